"""``densing trend`` computes the sections of the measurement its output shows (``densing.cli.trend.SHOWN``) and no
others: each output of the headline is the same, byte for byte, as from a measurement of more sections."""

from __future__ import annotations

import pytest

from densing.trend.plan import SECTIONS

OUTPUTS = {"screen": (), "detail": ("--detail",), "csv": ("--format", "csv"), "json": ("--format", "json")}


def _printed(run_cli, monkeypatch, args: tuple) -> tuple[str, list]:
    """What ``densing trend --n-boot 40 ARGS`` prints, and the sections it asked the measurement for."""
    from densing.trend import measure

    asked, real = [], measure.measure_trend

    def recorded(*positional, **named):
        asked.append(named.get("sections"))
        return real(*positional, **named)

    monkeypatch.setattr(measure, "measure_trend", recorded)
    code, out, err = run_cli("trend", "--n-boot", "40", *args)
    assert code == 0, err
    return out, asked


@pytest.mark.slow
@pytest.mark.parametrize("output", list(OUTPUTS))
def test_each_output_is_the_same_as_from_a_measurement_of_more_sections(output, run_cli, monkeypatch):
    """The sections an output leaves out change nothing it prints: ``rows`` apart (the JSON of the headline holds the
    headline set's row alone; ``--by benchmark`` every row), every other section added gives the same bytes."""
    from densing.cli import trend as command

    shown, asked = _printed(run_cli, monkeypatch, OUTPUTS[output])
    assert asked == [command.SHOWN[output]]
    assert set(command.SHOWN[output]) < set(SECTIONS)  # something is left out of every output of the headline
    more = tuple(s for s in SECTIONS if output != "json" or s != "rows")
    monkeypatch.setitem(command.SHOWN, output, more)
    everything, asked = _printed(run_cli, monkeypatch, OUTPUTS[output])
    assert asked == [more]
    assert everything == shown


@pytest.mark.slow
def test_by_benchmark_computes_every_section(run_cli, monkeypatch):
    _, asked = _printed(run_cli, monkeypatch, ("--by", "benchmark", "--format", "csv"))
    assert asked == ["all"]


@pytest.mark.slow
def test_the_by_benchmark_screen_is_the_same_as_from_every_section(run_cli, monkeypatch):
    """``--by benchmark``'s screen computes its rows, their notes and the order breaks alone (not the rows at one
    budget, the sensitivity, the breakpoint or the densities, which ``--detail`` shows): the same bytes as from a
    measurement of every section."""
    from densing.cli import trend as command

    shown, asked = _printed(run_cli, monkeypatch, ("--by", "benchmark"))
    assert asked == [command.SHOWN["by benchmark screen"]]
    assert set(command.SHOWN["by benchmark screen"]) < set(SECTIONS)
    monkeypatch.setitem(command.SHOWN, "by benchmark screen", "all")
    everything, asked = _printed(run_cli, monkeypatch, ("--by", "benchmark"))
    assert asked == ["all"]
    assert everything == shown
