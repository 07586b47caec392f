"""The report's verdict shows the headline row's bias in planted worlds built like it (results/headline_bias.json)
where the page measures the leading table as shipped, the corrected figure where |bias| > 5%, and nothing for
another file or a given fit; the second tables' sections show their rows' sentences."""

from __future__ import annotations

import json

import pytest

from densing import paths
from densing.constants import PAPER
from densing.report import compute
from densing.report.render import verdict_html
from densing.trend import bias


@pytest.fixture(scope="module")
def measured():
    from densing.data import read_results
    from densing.trend.measure import measure_trend

    return measure_trend(read_results(paths.RESULTS / "public_models.csv"), sections=())


def _record(tmp_path, rows):
    path = tmp_path / "headline_bias.json"
    path.write_text(json.dumps({"study": "studies/headline_bias.py", "commands": ["x"], "rows": rows}))
    return path


def _row(table="public", row="paper", point=None, **change):
    return {
        "table": table,
        "row": row,
        "label": "a set",
        "frontier": "Qwen2",
        "references": ["Qwen1.5", "Qwen2"],
        "planted_months": point,
        "point_months": point,
        "replicates": 200,
        "failed": 0,
        "bias": 0.1,
        "bias_se": 0.02,
        "median_bias": 0.08,
        "median_bias_se": 0.02,
        "coverage": 0.93,
        "coverage_se": 0.02,
        "corrected": True,
        "corrected_months": point * 1.1,
        "corrected_months_low": 2.7,
        "corrected_months_high": None,
        "corrected_coverage": 0.97,
        "corrected_coverage_se": 0.012,
        **change,
    }


def test_the_verdict_shows_the_corrected_figure_for_the_shipped_table_only(tmp_path, monkeypatch, measured):
    point = measured.rules[measured.headline_rule].doubling_time_months  # the record is made at the headline's point
    monkeypatch.setattr(bias, "RECORD", _record(tmp_path, [_row(point=point)]))
    words = compute._bias(measured, paths.DEFAULT_DENSITY_TARGETS, None, None)
    assert f"bias-corrected {point * 1.1:.2f} months, at least 2.7 at 95%" in words
    assert compute._bias(measured, tmp_path / "other.csv", None, None) is None
    assert compute._bias(measured, paths.DEFAULT_DENSITY_TARGETS, "some_fit.json", None) is None
    html = verdict_html(measured, PAPER, bias=words)
    assert "bias-corrected" in html and "10% ± 2 too steep" in html


def test_the_second_tables_sections_show_their_rows(tmp_path, monkeypatch):
    from densing.designs.openllm_v2 import record
    from densing.report.designs import openllm_v2 as v2, swallow

    v2_months = next(r["months"] for r in record.read()[0]["rows"] if r["row"] == "v2_native")
    monkeypatch.setattr(
        bias,
        "RECORD",
        _record(
            tmp_path, [_row("openllm_v2", "v2_native", v2_months, bias=-0.01, corrected=False, corrected_months=None)]
        ),
    )
    found = v2.section(None, __import__("pandas").DataFrame(columns=["row"]), 3.3)
    assert "1% ± 2 too shallow" in found.bias and "no correction" in found.bias
    assert "The v2-native row. Bias in 200 worlds" in v2.render(found).parts[2]
    missing = swallow.section(None, __import__("pandas").DataFrame(columns=["row"]), 3.3)
    assert missing.bias is None  # the record has no Swallow row: nothing said
