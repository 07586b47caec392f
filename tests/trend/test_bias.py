"""densing.trend.bias: the bias correction's arithmetic on planted numbers and its invariants, and the record's guard
(a missing or damaged record, or one measured at another point, is named in one line and its sentence left out)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, strategies as st

from densing.errors import InputError
from densing.present.bias import bias_sentence, bias_words
from densing.trend import bias
from densing.trend.rules import doubling_months

Z95 = 1.959963984540054


def test_the_correction_divides_by_one_plus_the_bias_and_widens_by_its_monte_carlo_error():
    # Â = 0.006 per day, [0.004, 0.009], b = +10% ± 2%: Ã = 0.006/1.1, s = 0.02/1.1
    slope, low, high = bias.corrected_slopes(0.006, 0.004, 0.009, 0.10, 0.02)
    spread = Z95 * 0.02 / 1.1
    assert slope == pytest.approx(0.006 / 1.1, rel=1e-12)
    assert low == pytest.approx(0.004 / 1.1 * math.exp(-spread), rel=1e-12)
    assert high == pytest.approx(0.009 / 1.1 * math.exp(spread), rel=1e-12)


def test_an_end_at_or_below_zero_moves_outward_and_keeps_its_sign():
    slope, low, high = bias.corrected_slopes(0.006, -0.001, 0.009, 0.10, 0.02)
    assert low == pytest.approx(-0.001 / 1.1 * math.exp(Z95 * 0.02 / 1.1), rel=1e-12) and low < 0
    assert bias.corrected_slopes(0.006, 0.0, 0.009, 0.10, 0.02)[1] == 0.0
    assert doubling_months(bias.corrected_slopes(0.006, -0.001, 0.009, 0.1, 0.02)[1]) == math.inf


def test_a_row_within_five_percent_is_not_corrected_and_one_beyond_is():
    kept = bias.row_from(0.006, 0.004, 0.009, bias=0.049, bias_se=0.01)
    assert kept["corrected"] is False and math.isnan(kept["corrected_months"])
    fixed = bias.row_from(0.006, 0.004, 0.009, bias=-0.08, bias_se=0.01)
    assert fixed["corrected"] is True
    assert fixed["corrected_months"] == pytest.approx(doubling_months(0.006) * 0.92, rel=1e-12)
    assert (
        fixed["corrected_months_low"]
        < doubling_months(0.009) * 0.92
        < doubling_months(0.004) * 0.92
        < fixed["corrected_months_high"]
    )


@pytest.mark.parametrize(
    "args",
    [
        (0.006, 0.004, 0.009, -1.0, 0.01),
        (0.006, 0.004, 0.009, math.nan, 0.01),
        (0.006, 0.004, 0.009, 0.1, -0.01),
        (0.006, 0.004, 0.009, 0.1, math.inf),
    ],
)
def test_a_bias_that_cannot_correct_is_refused_in_one_line(args):
    with pytest.raises(InputError, match="bias correction"):
        bias.corrected_slopes(*args)


slopes = st.floats(1e-5, 1e-1)
biases = st.floats(-0.5, 1.0)
errors = st.floats(0.0, 0.2)


@given(slopes, st.floats(0.1, 1.0), st.floats(1.0, 10.0), biases, errors, errors)
def test_the_corrected_interval_holds_the_corrected_point_and_widens_with_the_error(slope, lo, hi, b, s, more):
    fixed, low, high = bias.corrected_slopes(slope, slope * lo, slope * hi, b, s)
    assert low <= fixed * (1 + 1e-12) and fixed <= high * (1 + 1e-12)
    assert fixed * (1 + b) == pytest.approx(slope, rel=1e-9)
    wider = bias.corrected_slopes(slope, slope * lo, slope * hi, b, s + more)
    assert wider[1] <= low * (1 + 1e-12) and wider[2] >= high * (1 - 1e-12)


@given(slopes, st.floats(0.1, 1.0), st.floats(1.0, 10.0), biases)
def test_with_no_monte_carlo_error_the_correction_is_one_factor(slope, lo, hi, b):
    fixed, low, high = bias.corrected_slopes(slope, slope * lo, slope * hi, b, 0.0)
    assert (fixed, low, high) == pytest.approx((slope / (1 + b), slope * lo / (1 + b), slope * hi / (1 + b)), rel=1e-12)


POINT = 3.607861223922961


def _row(**change) -> dict:
    row = {
        "table": "public",
        "row": "paper",
        "label": "paper-like set",
        "frontier": "Qwen2",
        "references": ["Qwen1.5", "Qwen2"],
        "planted_months": POINT,
        "point_months": POINT,
        "replicates": 400,
        "failed": 2,
        "bias": 0.09,
        "bias_se": 0.015,
        "median_bias": 0.07,
        "median_bias_se": 0.02,
        "coverage": 0.95,
        "coverage_se": 0.011,
        "corrected": True,
        "corrected_months": POINT * 1.09,
        "corrected_months_low": 2.71,
        "corrected_months_high": None,
        "corrected_coverage": 0.96,
        "corrected_coverage_se": 0.01,
    }
    return {**row, **change}


def _write(tmp_path, rows, name="headline_bias.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"study": "studies/headline_bias.py", "commands": ["x"], "rows": rows}))
    return str(path)


def test_the_record_is_read_back_and_its_row_found(tmp_path):
    path = _write(tmp_path, [_row(), _row(table="swallow", bias=0.01, corrected=False, corrected_months=None)])
    record = bias.read_bias(path)
    row = record.row("public", "paper")
    assert row.bias == 0.09 and row.replicates == 400 and math.isinf(row.corrected_months_high) is False
    assert math.isnan(row.corrected_months_high) and record.row("openllm_v2", "v2_native") is None
    assert bias.headline_row("public", "paper", POINT * (1 + 1e-4), path) == row


@pytest.mark.parametrize(
    "text, says",
    [
        (None, "not found"),
        ("{not json", "not readable as JSON"),
        (json.dumps({"rows": {}}), "expected an object with a list 'rows'"),
        (
            json.dumps({"commands": [], "rows": [{k: v for k, v in _row().items() if k != "bias_se"}]}),
            "field 'bias_se' is missing",
        ),
        (json.dumps({"commands": [], "rows": [_row(bias="large")]}), "field 'bias': expected a number"),
        (json.dumps({"commands": [], "rows": [_row(corrected="yes")]}), "field 'corrected': expected true or false"),
        (json.dumps({"commands": [], "rows": [_row(bias=None)]}), "a finite bias"),
        (json.dumps({"commands": [], "rows": [_row(corrected_months=None)]}), "a corrected row needs a finite value"),
    ],
)
def test_a_missing_or_damaged_record_is_named_in_one_line_and_its_sentence_left_out(tmp_path, text, says):
    path = tmp_path / "headline_bias.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(InputError, match=says):
        bias.read_bias(path)
    words = bias_words(bias.looked_up("public", "paper", POINT, path))
    assert words.startswith("bias in planted worlds not shown: headline_bias.json") and says in words
    assert "\n" not in words and "bias-corrected" not in words


def test_a_record_measured_at_another_point_is_not_shown(tmp_path):
    path = _write(tmp_path, [_row()])
    words = bias_words(bias.looked_up("public", "paper", 3.9, path))
    assert (
        words.startswith("bias in planted worlds not shown")
        and "run studies/headline_bias.py again" in words
        and "(3.61 months)" in words
    )
    assert bias_words(bias.looked_up("swallow", "paper", 3.9, path)) is None


def test_the_sentence_gives_the_corrected_figure_beyond_five_percent_and_none_within(tmp_path):
    row = bias.read_bias(_write(tmp_path, [_row()])).row("public", "paper")
    words = bias_sentence(row)
    assert "9% ± 1.5 too steep" in words and f"bias-corrected {POINT * 1.09:.2f} months" in words
    assert "at least 2.71 at 95%" in words
    small = bias.read_bias(_write(tmp_path, [_row(bias=-0.02, corrected=False, corrected_months=None)])).rows[0]
    assert "2% ± 1.5 too shallow" in bias_sentence(small) and "no correction" in bias_sentence(small)
    assert "bias-corrected" not in bias_sentence(small)


def test_with_the_frontier_familys_place_drawn_too_the_corrected_figure_is_the_range_of_the_two_worlds(tmp_path):
    """The sensitivity world (the frontier family's place drawn, --gap drawn) corrects the row by its own bias; the
    sentence gives the corrected point and ends as the range the two worlds span, and a record without that world
    reads as before."""
    slope = math.log(2) / (POINT * 365.25 / 12)
    drawn = bias.corrected_months(slope, 0.0, slope * 1.4, bias=0.016, bias_se=0.013)  # the upper end open
    assert drawn[0] == pytest.approx(POINT * 1.016) and math.isinf(drawn[2])
    row = bias.read_bias(
        _write(
            tmp_path,
            [
                _row(
                    bias_drawn=0.016,
                    bias_drawn_se=0.013,
                    replicates_drawn=150,
                    corrected_months_drawn=drawn[0],
                    corrected_months_drawn_low=2.6,
                    corrected_months_drawn_high=None,
                )
            ],
        )
    ).rows[0]
    (point_low, point_high), (low_low, low_high), _ = row.corrected_range()
    assert (point_low, point_high) == (pytest.approx(drawn[0]), pytest.approx(POINT * 1.09))
    assert (low_low, low_high) == (2.6, 2.71)
    words = bias_sentence(row)
    assert f"bias-corrected by the two worlds, {drawn[0]:.2f}–{POINT * 1.09:.2f} months" in words
    assert "at least 2.6–2.71 at 95%" in words and "1.6% ± 1.3 too steep" in words
    alone = bias.read_bias(_write(tmp_path, [_row()])).rows[0]
    assert alone.corrected_range() is None and "by the two worlds" not in bias_sentence(alone)


def test_the_report_and_the_trend_load_without_scipy_stats():
    """scipy.stats costs about half a CPU-second and 40 MiB to import: the bias correction takes the normal quantile
    from scipy.special (ndtri, norm.ppf's own, to the bit), and the report's and the trend's modules never load it."""
    import subprocess
    import sys

    from scipy.special import ndtri
    from scipy.stats import norm

    assert all(
        float(ndtri(0.5 + level / 2)).hex() == float(norm.ppf(0.5 + level / 2)).hex() for level in (0.8, 0.9, 0.95)
    )
    code = (
        "import sys, densing.trend.bias, densing.trend.measure, densing.report.compute, densing.report.render\n"
        "print('scipy.stats' in sys.modules)"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "False"
