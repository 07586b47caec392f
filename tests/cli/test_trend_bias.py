"""``densing trend --detail`` shows the headline row's bias in planted worlds built like it, with the corrected figure
where |bias| > 5% (results/headline_bias.json, densing.trend.bias), and names a damaged record in one line."""

from __future__ import annotations

import json

import pytest

from densing.numbers import format_months
from densing.trend import bias
from tests.cli_run import run


def _record(tmp_path, point, **change):
    """A record of the public row made at ``point`` (months), the point a record must be made at."""
    row = {
        "table": "public",
        "row": "paper",
        "label": "paper-like set",
        "frontier": "Qwen2",
        "references": ["Qwen1.5", "Qwen2"],
        "planted_months": point,
        "point_months": point,
        "replicates": 300,
        "failed": 0,
        "bias": 0.088,
        "bias_se": 0.018,
        "median_bias": 0.066,
        "median_bias_se": 0.02,
        "coverage": 0.94,
        "coverage_se": 0.014,
        "corrected": True,
        "corrected_months": point * 1.088,
        "corrected_months_low": 2.66,
        "corrected_months_high": None,
        "corrected_coverage": 0.95,
        "corrected_coverage_se": 0.013,
        **change,
    }
    path = tmp_path / "headline_bias.json"
    path.write_text(json.dumps({"study": "studies/headline_bias.py", "commands": ["x"], "rows": [row]}))
    return path


@pytest.fixture(scope="module")
def measured():
    """The public table's headline as densing trend --detail measures it (once for this module)."""
    from densing.data import read_results
    from densing.paths import RESULTS
    from densing.trend.measure import measure_trend

    return measure_trend(read_results(RESULTS / "public_models.csv"), sections=("sensitivity", "breakpoint"))


def _point(measured) -> float:
    return measured.rules[measured.headline_rule].doubling_time_months


def test_a_row_beyond_five_percent_shows_the_corrected_figure_on_the_detail(tmp_path, monkeypatch, capsys, measured):
    point = _point(measured)
    monkeypatch.setattr(bias, "RECORD", _record(tmp_path, point))
    code, out, err = run(["trend", "--detail"], capsys)
    assert code == 0, err
    text = " ".join(out.split())
    assert "Bias in 300 worlds planted from this row" in text and "8.8% ± 1.8 too steep" in text
    assert f"bias-corrected {format_months(point * 1.088)} months, at least 2.66 at 95%" in text


def test_the_detail_names_a_damaged_record_in_one_line_and_shows_no_figure(tmp_path, monkeypatch, measured):
    from densing.present.bias import bias_words

    path = _record(tmp_path, _point(measured))
    path.write_text(path.read_text()[:40])
    monkeypatch.setattr(bias, "RECORD", path)
    words = bias_words(bias.measurement_row(measured, "public"))
    assert words.startswith("bias in planted worlds not shown: headline_bias.json") and "not readable as JSON" in words
    assert "\n" not in words and "bias-corrected" not in words
    monkeypatch.setattr(bias, "RECORD", _record(tmp_path, _point(measured), point_months=3.9))
    assert "default draws and seed (3.9 months), and this point is another" in bias_words(
        bias.measurement_row(measured, "public")
    )
