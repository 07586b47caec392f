"""Long work announced: past ``PILOT_FROM`` draws, ``densing measure`` times a pilot of 80 and 40 draws, reads
t(n) ≈ a + b·n from it, and prints an estimate over a minute on stderr before the work; draws above the ceiling are
refused with its reason."""
from __future__ import annotations

class _Clock:
    """perf_counter of a machine where the headline takes 2 s plus 0.1 s a draw."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def test_a_long_headline_is_announced_with_its_estimate(monkeypatch, capsys):
    from densing import registry
    from densing.cli import measure
    from densing.trend import measure as trend_measure

    clock = _Clock()
    asked = []

    def fake_measure_trend(rows, *, n_boot, **_):
        asked.append(n_boot)
        clock.now += 2.0 + 0.1 * n_boot
        return n_boot

    monkeypatch.setattr(measure, "time", clock)
    monkeypatch.setattr(trend_measure, "measure_trend", fake_measure_trend)
    assert measure.measure_headline(registry.resolve_table(), 3000, 0, report=False) == 3000
    assert asked == [80, 40, 3000]
    err = capsys.readouterr().err
    assert err.startswith("densing measure: 3,000 draws of the headline will take about 5 min (a pilot of 80 and 40 "
                          "draws: 100 ms a draw)"), err
    asked.clear()
    assert measure.measure_headline(registry.resolve_table(), 600, 0, report=False) == 600 and asked == [600]
    assert capsys.readouterr().err == ""


def test_draws_above_the_ceiling_are_refused_with_the_reason(run_cli):
    code, out, err = run_cli("measure", "--scores", "tests/placement/fixtures/lm_eval_results.json", "--n-boot", "200000")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("error: --n-boot: 200,000 draws are above the ceiling of 100,000 (") and "memory" in err, err
