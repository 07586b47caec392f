"""``densing trend --table all``: the three tables' pooled law (densing.cli.pooled), its JSON's fields, its screen."""
from __future__ import annotations

import copy
import json

import pytest

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
