"""densing/trend/pooled_bias.py: the pooled law's bias record (results/three_tables/bias.json, studies/pooled_correction.py
--summary --write) read and checked, the pooled figure corrected by its applied world where its bias exceeds 5%
(densing.trend.bias's correction), the sensitivity world beside it, a record beside another point refused as stale
and the estimator's own figure shown."""

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


def _world(name="common", role="applied", **change) -> dict:
    return {
        "world": name,
        "words": "one slope in every table",
        "role": role,
        "draws": 200,
        "planted_months": 8.0,
        "replicates": 150,
        "failed": 0,
        "bias": 0.2,
        "bias_se": 0.01,
        **change,
    }


def _pair(applied=None, sensitivity=None) -> list[dict]:
    """The record's two worlds: the applied one and the sensitivity one beside it."""
    return [
        _world(**(applied or {})),
        _world("no_late_frontier", "sensitivity", **({"bias": 0.1, "bias_se": 0.03} | (sensitivity or {}))),
    ]


def _write(tmp_path, worlds, point=POOLED["doubling_time_months"]) -> str:
    path = tmp_path / "bias.json"
    path.write_text(
        json.dumps(
            {
                "study": "studies/pooled_correction.py",
                "commands": ["x"],
                "point_months": point,
                "worlds": worlds,
                "rounds": [{"months": 6.0, "bias": 0.18}],
                "check": {"check_at_point": {"corrected": {"bias": 0.01}}},
            }
        )
    )
    return str(path)


def _months(bias, bias_se):
    slope, low, high = corrected_slopes(
        POOLED["slope_per_day"], POOLED["slope_ci_low"], POOLED["slope_ci_high"], bias, bias_se
    )
    return doubling_months(slope), doubling_months(high), doubling_months(low)


def test_the_applied_world_corrects_the_figure_shown_and_the_sensitivity_world_stands_beside_it(tmp_path):
    found = pooled_bias.pooled_correction(POOLED, _write(tmp_path, _pair()))
    assert (found.applied.months, found.applied.months_low, found.applied.months_high) == pytest.approx(
        _months(0.2, 0.01)
    )
    assert found.sensitivity.months == pytest.approx(_months(0.1, 0.03)[0])
    shown = pooled_bias.headline({**POOLED, "ci_low": 1.0, "ci_high": 9.0, "state": "measured"}, found)
    assert shown["bias_corrected"] and shown["uncorrected_because"] == "" and shown["state"] == "measured"
    assert shown["doubling_time_months"] == pytest.approx(_months(0.2, 0.01)[0])
    field = found.to_dict()
    assert field["corrected"] and field["doubling_time_months"] == pytest.approx(found.applied.months)
    assert field["applied"]["bias"] == 0.2 and field["sensitivity"]["world"] == "no_late_frontier"
    assert field["rounds"] == [{"months": 6.0, "bias": 0.18}] and "check_at_point" in field["check"]
    own = {**POOLED, "ci_low": 1.0, "ci_high": 9.0}
    clauses = correction_clauses(found, own)
    assert clauses[0].startswith("the estimator's own figure: ") and "+20.0% ± 1" in clauses[1]
    assert "corrected by it to" in correction_sentence(found, own)


def test_an_applied_world_within_five_percent_corrects_nothing(tmp_path):
    found = pooled_bias.pooled_correction(POOLED, _write(tmp_path, _pair({"bias": 0.04})))
    own = {**POOLED, "ci_low": 1.0, "ci_high": 9.0, "state": "measured"}
    assert found.applied is None and found.to_dict()["doubling_time_months"] is None
    shown = pooled_bias.headline(own, found)
    assert not shown["bias_corrected"] and shown["uncorrected_because"] == "within_threshold"
    assert shown["doubling_time_months"] == POOLED["doubling_time_months"]
    assert "no correction" in correction_sentence(found, own) and "corrected by it" not in correction_sentence(
        found, own
    )


def test_a_record_beside_another_point_is_stale_and_the_estimators_own_figure_is_shown(tmp_path):
    path = _write(tmp_path, _pair(), point=POOLED["doubling_time_months"] * 1.01)
    with pytest.raises(pooled_bias.StaleBias, match="run studies/pooled_correction.py again"):
        pooled_bias.pooled_correction(POOLED, path)
    found = pooled_bias.looked_up(POOLED, path)
    own = {**POOLED, "ci_low": 1.0, "ci_high": 9.0, "state": "measured"}
    assert pooled_bias.correction_field(found) == {"shown": False, "stale": True, "why": str(found)}
    assert pooled_bias.headline(own, found)["uncorrected_because"] == "stale"
    assert correction_clauses(found, own)[0].startswith("uncorrected: its bias record is stale")
    assert correction_sentence(found, own).startswith("Not bias-corrected, the estimator's own figure is")
    assert pooled_bias.pooled_correction(
        POOLED, _write(tmp_path, _pair(), point=POOLED["doubling_time_months"] * (1 + 1e-4))
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
        (json.dumps({"worlds": [_world()], "commands": [], "point_months": 5.0}), "expected one 'applied' and one"),
        (json.dumps({"worlds": [_world(), _world()], "commands": [], "point_months": 5.0}), "field 'role'"),
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
    own = {**POOLED, "ci_low": 1.0, "ci_high": 9.0, "state": "measured"}
    assert pooled_bias.headline(own, found)["uncorrected_because"] == "missing_or_damaged"
    assert correction_clauses(found, own) == [f"uncorrected: no bias record: {found}"] and "\n" not in str(found)


def test_the_shipped_record_holds_the_studys_worlds_and_todays_point():
    """bias.json corrects the pooled law the package gives today (trend.json), not the first result; its applied
    world is planted at the figure it corrects (the last round's corrected point)."""
    record = pooled_bias.read_pooled_bias()
    today = json.loads((pooled_bias.RECORD.parent / "trend.json").read_text())["pooled"]
    assert record.point_months == pytest.approx(today["doubling_time_months"], rel=1e-12)
    assert (record.applied.world, record.sensitivity.world) == ("common", "no_late_frontier")
    assert record.applied.planted_months == pytest.approx(record.rounds[-1]["months"])
    assert record.applied.bias == pytest.approx(record.rounds[-1]["bias"])
    corrected_point = record.point_months * (1 + record.applied.bias)
    assert record.sensitivity.planted_months == pytest.approx(corrected_point)
    assert all(math.isfinite(w.bias) and w.bias_se > 0 for w in (record.applied, record.sensitivity))
