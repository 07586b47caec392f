"""The report's section "One law from three harnesses" (densing/report/designs/three_tables.py, the design
densing/designs/three_tables): computed beside the headline,
its chart of the three tables' points on the common scale with the pooled line and band, its tables and sentences."""

from __future__ import annotations

import json

import pytest

import densing
import densing.present as present
from densing.designs.three_tables import pooled as pooled_side
from densing.errors import InputError
from densing.numbers import format_months
from densing.registry import designs
from densing.report.designs import SECTIONS, LeftOut, three_tables as pooled_report
from densing.report.render import renderer


@pytest.fixture(scope="module")
def pooled():
    """The pooled law of the shipped tables at 40 draws, computed once for the module."""
    return densing.pooled_trend(n_boot=40, seed=0)


@pytest.fixture(scope="module")
def page(pooled):
    """The section laid out, as the report lays it out (its registered design's renderer)."""
    section = pooled_report.section(pooled, None, 3.3)
    return renderer(section)(section)


def test_the_design_runs_beside_the_headline_on_the_reports_draws():
    from densing.cli.designs import runnable

    design = designs()["three_tables"]
    assert "three_tables" not in runnable()  # no --design of its own: densing trend --table all measures it
    inputs = type("Inputs", (), {"n_boot": 40, "seed": 3})()
    function, arguments = design.side(inputs)
    assert function is pooled_side.measured and arguments == {"n_boot": 40, "seed": 3}
    assert SECTIONS["swallow"].rank < SECTIONS["three_tables"].rank < SECTIONS["olmes"].rank


def test_the_chart_draws_each_table_its_colour_and_bounds_as_bounds(pooled):
    figure = present.figure(pooled)
    names = [trace.name for trace in figure.data]
    for table in ("public", "openllm_v2", "swallow"):
        assert f"{table}: exact" in names
    symbols = {trace.marker.symbol for trace in figure.data if trace.mode == "markers"}
    assert symbols == {"circle", "triangle-up", "triangle-down"}
    colours = {trace.name.split(":")[0]: trace.marker.color for trace in figure.data if trace.mode == "markers"}
    assert len(set(colours.values())) == 3
    assert any(trace.fill == "toself" for trace in figure.data)  # the band
    assert any(trace.name.startswith("pooled line, the estimator's own") for trace in figure.data)
    drawn = sum(len(trace.x) for trace in figure.data if trace.mode == "markers")
    assert drawn == pooled.n_points


def test_the_section_shows_scales_tests_leave_outs_late_labs_and_the_forecast(page, pooled):
    body = " ".join(page.parts)
    assert page.title == "One law from three harnesses"
    assert 'id="three-tables"' in body
    for words in (
        "offset a [95% CI]",
        "scale s [95% CI]",
        "common slope: Cochran",
        "Leave one table out",
        "Leave one lab out",
        "late frontier after 2024-07-31",
        "forecast check at 2024-09-30",
        "through openllm_v2",
    ):
        assert words in body, words
    lead = pooled.record["leave_one_lab_out"][0]["lab"]
    assert body.index(lead) < body.index("Mistral AI")  # the public lead reference's lab first


def test_a_pooled_law_that_cannot_be_measured_is_one_line(monkeypatch):
    def refused(**options):
        raise InputError("table 'swallow': the Deming line onto the common scale has a slope s ≤ 0 or none")

    monkeypatch.setattr(pooled_side, "pooled_trend", refused)
    note = pooled_side.measured(40, 0)
    section = pooled_report.section(note, None, 3.3)
    assert note.startswith("table 'swallow'")  # the design holds the error's message; the sentence is present's
    assert isinstance(section, LeftOut) and section.note == f"The three tables' pooled law is not shown: {note}"
    assert renderer(section)(section).title == "One law from three harnesses"


def test_the_scales_table_is_one_row_per_table(pooled):
    table = pooled_report.scales_table(pooled)
    assert list(table["table"]) == ["public", "openllm_v2", "swallow"]
    assert table["mapped"].iloc[0] == "the common scale" and table["mapped"].iloc[2].startswith("through openllm_v2")
    json.dumps(table.to_dict("records"))  # plain cells


def test_the_section_leads_with_the_bias_corrected_figure_and_refuses_a_stale_record(pooled, monkeypatch, tmp_path):
    from densing.trend import pooled_bias

    point = pooled.doubling_time_months
    worlds = [
        {
            "world": name,
            "words": "one slope in every table",
            "role": role,
            "draws": 200,
            "planted_months": 8.0,
            "replicates": 100,
            "failed": 0,
            "bias": bias,
            "bias_se": 0.01,
        }
        for name, role, bias in (("common", "applied", 0.2), ("no_late_frontier", "sensitivity", 0.1))
    ]
    path = tmp_path / "bias.json"
    for at, says in (
        (point, f"{format_months(point * 1.2)} months (95% CI"),
        (point * 1.1, "Not bias-corrected, the estimator"),
    ):
        path.write_text(json.dumps({"study": "x", "commands": [], "point_months": at, "worlds": worlds}))
        monkeypatch.setattr(pooled_bias, "RECORD", path)
        section = pooled_report.section(pooled, None, 3.3)
        body = " ".join(renderer(section)(section).parts)
        assert says in body
    assert "Not bias-corrected" in body and "uncorrected" in body
