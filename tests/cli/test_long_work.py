"""Long work announced: past ``PILOT_FROM`` draws, ``densing measure`` and ``densing trend`` time a pilot of 80 and 40
draws (:func:`densing.cli.output.announced`), read t(n) ≈ a + b·n from it, and print an estimate over a minute on
stderr before the work; draws above the ceiling are refused with its reason."""

from __future__ import annotations

import pytest


class _Clock:
    """perf_counter of a machine where the headline takes 2 s plus 0.1 s a draw."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def test_a_long_headline_is_announced_with_its_estimate(monkeypatch, capsys):
    from densing import registry
    from densing.cli import measure, output
    from densing.trend import measure as trend_measure

    clock = _Clock()
    asked = []

    def fake_measure_trend(rows, *, n_boot, **_):
        asked.append(n_boot)
        clock.now += 2.0 + 0.1 * n_boot
        return n_boot

    monkeypatch.setattr(output, "time", clock)
    monkeypatch.setattr(trend_measure, "measure_trend", fake_measure_trend)
    assert measure.measure_headline(registry.resolve_table(), 3000, 0, report=False) == 3000
    assert asked == [80, 40, 3000]
    err = capsys.readouterr().err
    assert err.startswith(
        "densing measure: 3,000 draws of the headline will take about 5 min (a pilot of 80 and 40 draws: 100 ms a draw)"
    ), err
    asked.clear()
    assert measure.measure_headline(registry.resolve_table(), 600, 0, report=False) == 600 and asked == [600]
    assert capsys.readouterr().err == ""


def test_a_long_trend_is_announced_with_its_estimate_before_the_work(monkeypatch, run_cli):
    """``densing trend --n-boot 3000`` on a machine where the trend takes 2 s plus 0.1 s a draw: the pilot's two
    runs, then the estimate on stderr, then the work (here refused at its start, to end the command)."""
    from densing.cli import output, trend
    from densing.errors import InputError

    clock = _Clock()
    asked = []

    def fake_measure(path, profile, fit, d0, since, epoch, n_boot, *_):
        asked.append(n_boot)
        clock.now += 2.0 + 0.1 * n_boot
        if n_boot == 3000:
            raise InputError("the work starts here")
        return None, None

    monkeypatch.setattr(output, "time", clock)
    monkeypatch.setattr(trend, "_measure", fake_measure)
    code, out, err = run_cli("trend", "--n-boot", "3000")
    assert code == 2 and asked == [80, 40, 3000], (asked, err)
    assert err.startswith(
        "densing trend: 3,000 draws of the trend will take about 5 min (a pilot of 80 and 40 draws: 100 ms a draw)"
    ), err
    assert err.rstrip().endswith("error: the work starts here"), err


@pytest.mark.parametrize(
    "command", [("measure", "--scores", "tests/placement/fixtures/lm_eval_results.json"), ("trend",)]
)
def test_draws_above_the_ceiling_are_refused_with_the_reason(run_cli, command):
    code, out, err = run_cli(*command, "--n-boot", "200000")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("error: --n-boot: 200,000 draws are above the ceiling of 100,000 (") and "memory" in err, err
