"""``densing trend --table all``: the three tables' pooled law (densing.cli.pooled), its JSON's fields, its screen."""

from __future__ import annotations

import copy
import json

import pytest

from densing.numbers import format_months
from densing.trend import pooled_tables


@pytest.fixture(scope="module")
def measured():
    """The pooled law of the shipped tables at 40 draws, computed once for the module."""
    return pooled_tables.measure_tables(n_boot=40, seed=0)


@pytest.fixture
def cached(monkeypatch, measured):
    """``densing trend --table all`` reads the module's measurement (a copy each call)."""
    monkeypatch.setattr(pooled_tables, "measure_tables", lambda **options: copy.deepcopy(measured))


def test_help_lists_all(run_cli):
    code, out, _ = run_cli("trend", "--help")
    assert code == 0 and "'all'" in " ".join(out.split())


def test_the_json_holds_every_declared_field(run_cli, cached):
    code, out, _ = run_cli("trend", "--table", "all", "--n-boot", "40", "--format", "json")
    found = json.loads(out)
    assert code == 0
    assert [row["table"] for row in found["rows"]] == ["public", "openllm_v2", "swallow"]
    assert all({"doubling_time_months", "ci_low", "ci_high", "slope_per_day"} <= set(row) for row in found["rows"])
    assert {"doubling_time_months", "ci_low", "ci_high", "state"} <= set(found["pooled"])
    assert {"q", "df", "p_value", "rejected"} <= set(found["common_slope"]) and found["common_slope"]["df"] == 2
    assert [row["table"] for row in found["leave_one_table_out"]] == ["public", "openllm_v2", "swallow"]
    assert found["leave_one_lab_out"][0]["lab"].startswith("Alibaba")  # the public table's lead reference's lab first
    assert {"labs", "n_labs", "after"} <= set(found["late_frontier"])
    assert all({"a", "a_ci", "s", "s_ci", "through"} <= set(scale) for scale in found["scales"])
    assert {"cutoff", "outcome", "verdict"} <= set(found["forecast"]) and found["forecast"]["cutoff"] == "2024-09-30"
    assert {"doubling_time_months", "tau_squared"} <= set(found["no_common_scale"])


def test_the_screen_fits_80_by_40_and_ends_with_the_doubling_time(run_cli, cached, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli("trend", "--table", "all", "--n-boot", "40")
    lines = out.rstrip("\n").split("\n")
    assert code == 0 and len(lines) <= 40 and max(map(len, lines)) <= 80
    assert lines[-1].startswith("Doubling time: ") and "months" in lines[-1]


def test_an_option_for_one_table_is_refused_in_one_line(run_cli):
    code, out, err = run_cli("trend", "--table", "all", "--by", "benchmark")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "--by" in err


def _bias_record(tmp_path, point: float) -> str:
    """A bias record (results/three_tables/bias.json's form) written beside the pooled point ``point`` (months): the
    applied world's bias +20%, the sensitivity world's +10%."""
    worlds = [
        {
            "world": name,
            "words": words,
            "role": role,
            "draws": 200,
            "planted_months": point * 1.2,
            "replicates": 100,
            "failed": 0,
            "bias": bias,
            "bias_se": 0.01,
        }
        for name, words, role, bias in (
            ("common", "one slope", "applied", 0.2),
            ("no_late_frontier", "no late family", "sensitivity", 0.1),
        )
    ]
    path = tmp_path / "bias.json"
    path.write_text(
        json.dumps(
            {"study": "studies/pooled_correction.py", "commands": ["x"], "point_months": point, "worlds": worlds}
        )
    )
    return str(path)


def test_the_screen_and_the_json_lead_with_the_bias_corrected_figure_of_a_record_at_this_point(
    run_cli, cached, measured, monkeypatch, tmp_path
):
    from densing.trend import pooled_bias

    monkeypatch.setenv("COLUMNS", "80")
    point = measured["pooled"]["doubling_time_months"]
    monkeypatch.setattr(pooled_bias, "RECORD", _bias_record(tmp_path, point))
    code, out, _ = run_cli("trend", "--table", "all", "--n-boot", "40")
    lines = out.rstrip("\n").split("\n")
    own = next(line for line in lines if line.startswith("the estimator's own figure: "))
    assert code == 0 and len(own) <= 80 and len(lines) <= 40
    assert own.startswith(f"the estimator's own figure: {format_months(point)} months (95% CI ")
    assert lines[-1].startswith(f"Doubling time: {format_months(point * 1.2)} months (95% CI ")
    assert "bias-corrected" in lines[-1] and "bias-corrected" in out.split("\n", 2)[0] + out.split("\n", 2)[1]
    code, out, _ = run_cli("trend", "--table", "all", "--n-boot", "40", "--format", "json")
    found = json.loads(out)
    field, shown = found["bias_correction"], found["headline"]
    assert code == 0 and field["shown"] and not field["stale"] and field["corrected"]
    assert field["doubling_time_months"] == pytest.approx(point * 1.2)
    assert field["sensitivity"]["doubling_time_months"] == pytest.approx(point * 1.1)
    assert shown["bias_corrected"] and shown["doubling_time_months"] == pytest.approx(point * 1.2)
    assert shown["state"] == found["pooled"]["state"] and shown["ci_low"] < shown["doubling_time_months"]


def test_a_record_beside_another_point_is_said_stale_and_the_estimators_figure_shown(
    run_cli, cached, measured, monkeypatch, tmp_path
):
    from densing.trend import pooled_bias

    monkeypatch.setenv("COLUMNS", "80")
    point = measured["pooled"]["doubling_time_months"]
    monkeypatch.setattr(pooled_bias, "RECORD", _bias_record(tmp_path, point * 1.1))
    code, out, _ = run_cli("trend", "--table", "all", "--n-boot", "40")
    lines = out.rstrip("\n").split("\n")
    assert code == 0 and "uncorrected: its bias record is stale" in out
    assert lines[-1].startswith(f"Doubling time: {format_months(point)} months") and "uncorrected" in lines[-1]
    code, out, _ = run_cli("trend", "--table", "all", "--n-boot", "40", "--format", "json")
    found = json.loads(out)
    field = found["bias_correction"]
    assert (
        field["shown"] is False and field["stale"] is True and "run studies/pooled_correction.py again" in field["why"]
    )
    assert found["headline"]["uncorrected_because"] == "stale"
    assert found["headline"]["doubling_time_months"] == pytest.approx(point)


def test_the_shipped_bias_record_is_at_the_shipped_point_and_shown(run_cli, cached, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli("trend", "--table", "all", "--n-boot", "40")
    assert code == 0 and ", bias-corrected" in out.rstrip("\n").split("\n")[-1]
