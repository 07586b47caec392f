"""densing/trend/pooled_bias.py: the pooled law's bias record (results/three_tables/bias.json, studies/three_tables.py
--summary --write) read and checked, the pooled figure corrected by each world beyond 5% (densing.trend.bias's
correction), the range over the worlds, a record beside another point refused as stale."""

from __future__ import annotations

import json
import math

import pytest

from densing.errors import InputError
from densing.present.pooled import correction_clauses, correction_sentence
from densing.trend import pooled_bias
from densing.trend.bias import corrected_slopes
from densing.trend.rules import doubling_months

#: A pooled figure as the pooled law's "pooled" record holds it (the slope and its interval per day).
POOLED = {
    "doubling_time_months": doubling_months(0.0042),
    "slope_per_day": 0.0042,
    "slope_ci_low": 0.0005,
    "slope_ci_high": 0.009,
}


def _world(name="common", **change) -> dict:
    return {
        "world": name,
        "words": "one slope in every table",
        "draws": 200,
        "planted_months": 4.0,
        "replicates": 150,
        "failed": 0,
        "bias": 0.2,
        "bias_se": 0.01,
        **change,
    }


def _write(tmp_path, worlds, point=POOLED["doubling_time_months"]) -> str:
    path = tmp_path / "bias.json"
    path.write_text(
        json.dumps({"study": "studies/three_tables.py", "commands": ["x"], "point_months": point, "worlds": worlds})
    )
    return str(path)


def test_each_world_beyond_five_percent_corrects_the_point_and_the_range_spans_them(tmp_path):
    path = _write(
        tmp_path, [_world(bias=0.2), _world("no_late_frontier", bias=0.1, bias_se=0.03), _world("small", bias=0.03)]
    )
    found = pooled_bias.pooled_correction(POOLED, path)
    assert [c.world.world for c in found.corrections] == ["common", "no_late_frontier"]  # 3% is within 5%
    expected = []
    for bias, bias_se in ((0.2, 0.01), (0.1, 0.03)):
        slope, low, high = corrected_slopes(0.0042, 0.0005, 0.009, bias, bias_se)
        expected.append((doubling_months(slope), doubling_months(high), doubling_months(low)))
    point, low_end, high_end = found.corrected_range()
    assert point == pytest.approx((expected[1][0], expected[0][0]))
    assert low_end == pytest.approx((min(e[1] for e in expected), max(e[1] for e in expected)))
    assert high_end == pytest.approx((min(e[2] for e in expected), max(e[2] for e in expected)))
    field = found.to_dict()
    assert field["shown"] and field["corrected"] and field["doubling_time_months"] == pytest.approx(list(point))
    assert [w["corrected"] for w in field["worlds"]] == [True, True, False] and field["worlds"][2]["ci_low"] is None
    line = correction_clauses(found)[0]
    assert line.startswith(f"bias-corrected: {point[0]:.2f}–{point[1]:.2f} months, 95% CI from (") and len(line) <= 80


def test_worlds_within_five_percent_correct_nothing(tmp_path):
    found = pooled_bias.pooled_correction(POOLED, _write(tmp_path, [_world(bias=0.04), _world(bias=-0.02)]))
    assert found.corrected_range() is None and found.to_dict()["doubling_time_months"] is None
    assert "no correction" in correction_sentence(found) and "bias-corrected" not in correction_sentence(found)


def test_a_record_beside_another_point_is_stale_and_not_shown(tmp_path):
    path = _write(tmp_path, [_world()], point=POOLED["doubling_time_months"] * 1.01)
    with pytest.raises(pooled_bias.StaleBias, match="run studies/three_tables.py again"):
        pooled_bias.pooled_correction(POOLED, path)
    found = pooled_bias.looked_up(POOLED, path)
    assert pooled_bias.correction_field(found) == {"shown": False, "stale": True, "why": str(found)}
    assert correction_clauses(found)[0].startswith("bias correction stale, not shown")
    assert correction_sentence(found).startswith("The bias correction is stale and not shown")
    assert pooled_bias.pooled_correction(
        POOLED, _write(tmp_path, [_world()], point=POOLED["doubling_time_months"] * (1 + 1e-4))
    )


@pytest.mark.parametrize(
    "text, says",
    [
        (None, "not found"),
        ("{not json", "not readable as JSON"),
        (json.dumps({"worlds": {}, "commands": []}), "expected an object with a list 'worlds'"),
        (json.dumps({"worlds": [], "commands": [], "point_months": -1}), "field 'point_months'"),
        (
            json.dumps(
                {"worlds": [{k: v for k, v in _world().items() if k != "bias_se"}], "commands": [], "point_months": 5.0}
            ),
            "field 'bias_se' is missing",
        ),
        (json.dumps({"worlds": [_world(bias="large")], "commands": [], "point_months": 5.0}), "field 'bias'"),
        (json.dumps({"worlds": [_world(replicates=0)], "commands": [], "point_months": 5.0}), "at least one replicate"),
    ],
)
def test_a_missing_or_damaged_record_is_named_in_one_line(tmp_path, text, says):
    path = tmp_path / "bias.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(InputError, match=says):
        pooled_bias.read_pooled_bias(path)
    found = pooled_bias.looked_up(POOLED, path)
    field = pooled_bias.correction_field(found)
    assert field["shown"] is False and field["stale"] is False and says in field["why"]
    assert correction_clauses(found) == [f"bias correction not shown: {found}"] and "\n" not in str(found)


def test_the_shipped_record_holds_the_studys_worlds_and_todays_point():
    """bias.json corrects the pooled law the package gives today (trend.json), not the first result."""
    record = pooled_bias.read_pooled_bias()
    today = json.loads((pooled_bias.RECORD.parent / "trend.json").read_text())["pooled"]
    assert record.point_months == pytest.approx(today["doubling_time_months"], rel=1e-12)
    assert {(w.world, w.draws) for w in record.worlds} == {("common", 200), ("no_late_frontier", 200), ("common", 600)}
    assert all(math.isfinite(w.bias) and w.bias_se > 0 for w in record.worlds)
