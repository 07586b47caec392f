"""Long work announced as it goes: ``densing measure`` and ``densing trend`` time their own run
(:func:`densing.cli.output.announced`): at the first part the job executor finishes past five seconds, the time so
far over the parts finished times the parts left is the estimate, printed once on stderr where it is over a minute;
no extra run is made. Draws above the ceiling are refused with its reason."""

from __future__ import annotations

import pytest


class _Clock:
    """perf_counter of a machine where each part of the work takes ``part`` seconds."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def _parts(clock: _Clock, count: int, seconds: float):
    """A run of ``count`` jobs of ``seconds`` each through the job executor, in this process."""
    from densing.runtime import executor

    class Job:
        needs = ()

        def __init__(self, i):
            self.key = f"part {i}"

        def run(self, context, needed):
            clock.now += seconds
            return self.key

    return executor._here([Job(i) for i in range(count)], None, {})


def test_a_long_headline_is_announced_from_its_own_first_parts_and_run_once(monkeypatch, capsys):
    from densing import registry
    from densing.cli import measure, output
    from densing.trend import measure as trend_measure

    clock = _Clock()
    asked = []

    def fake_measure_trend(rows, *, n_boot, **_):
        asked.append(n_boot)
        return len(_parts(clock, 10, 20.0))

    monkeypatch.setattr(output, "time", clock)
    monkeypatch.setattr(trend_measure, "measure_trend", fake_measure_trend)
    assert measure.measure_headline(registry.resolve_table(), 3000, 0, report=False) == 10
    assert asked == [3000]  # one run: no pilot
    err = capsys.readouterr().err
    assert err == (
        "densing measure: 3,000 draws of the headline will take about 3 min more (1 of its 10 parts took 20 s); "
        "fewer draws (--n-boot, default 600) are quicker\n"
    ), err


def test_short_work_and_work_whose_rest_is_short_say_nothing(monkeypatch, capsys):
    from densing import registry
    from densing.cli import measure, output
    from densing.trend import measure as trend_measure

    clock = _Clock()
    seconds = {"part": 1.0}
    monkeypatch.setattr(output, "time", clock)
    monkeypatch.setattr(
        trend_measure, "measure_trend", lambda rows, *, n_boot, **_: len(_parts(clock, 10, seconds["part"]))
    )
    assert measure.measure_headline(registry.resolve_table(), 600, 0, report=False) == 10  # 10 s in all
    seconds["part"] = 30.0
    monkeypatch.setattr(
        trend_measure, "measure_trend", lambda rows, *, n_boot, **_: len(_parts(clock, 2, seconds["part"]))
    )
    assert measure.measure_headline(registry.resolve_table(), 600, 0, report=False) == 2  # 30 s left after one
    assert capsys.readouterr().err == ""


def test_a_long_trend_is_announced_while_it_works(monkeypatch, run_cli):
    """``densing trend --n-boot 3000`` on a machine where each of its 6 parts takes 30 s: the estimate after the
    first part, on stderr, then the rest of the work (here refused after its parts, to end the command)."""
    from densing.cli import output, trend
    from densing.errors import InputError

    clock = _Clock()
    asked = []

    def fake_measure(path, profile, fit, d0, since, epoch, n_boot, *_):
        asked.append(n_boot)
        _parts(clock, 6, 30.0)
        raise InputError("the work ends here")

    monkeypatch.setattr(output, "time", clock)
    monkeypatch.setattr(trend, "_measure", fake_measure)
    code, out, err = run_cli("trend", "--n-boot", "3000")
    assert code == 2 and asked == [3000], (asked, err)
    assert err.startswith(
        "densing trend: 3,000 draws of the trend will take about 2 min more (1 of its 6 parts took 30 s)"
    ), err
    assert err.rstrip().endswith("error: the work ends here"), err


@pytest.mark.parametrize(
    "command", [("measure", "--scores", "tests/placement/fixtures/lm_eval_results.json"), ("trend",)]
)
def test_draws_above_the_ceiling_are_refused_with_the_reason(run_cli, command):
    code, out, err = run_cli(*command, "--n-boot", "200000")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("error: --n-boot: 200,000 draws are above the ceiling of 100,000 (") and "memory" in err, err
