"""The OLMES trend: the shipped MC references over AI2's OLMES table, per task, with the D0 sensitivity and the checks."""
import math

import pytest

from densing.laws.olmo import mc_reference as mc
from densing.trend.olmes import measure_olmes, main


@pytest.fixture(scope="module")
def result():
    return measure_olmes(n_boot=120, n_boot_share=0, n_boot_side=60, seed=0)


def test_one_row_per_task_and_the_olmo2_rows_and_undated_models_are_not_targets(result):
    assert list(result.rows["task"]) == list(mc.MC_CHANCE)
    left = dict(zip(result.left_out["model"], result.left_out["reason"]))
    assert {m: left[m] for m in mc.OLMO2_MODELS} == {m: "defines the reference" for m in mc.OLMO2_MODELS}
    assert left["StableLM-2-12B"] == left["Zamba-2-7B"] == "no release date"
    assert (result.rows["n_models"] == 18).all()


def test_a_score_law_below_r2_half_is_not_inverted_and_says_why(result):
    rows = result.rows.set_index("task")
    for task in ("hellaswag", "winogrande"):
        assert rows.loc[task, "score_r2"] < 0.5 and math.isnan(rows.loc[task, "months"])
        assert rows.loc[task, "error"].startswith("not measured: the MC score law is a poor fit")
    for task in ("arc_challenge", "mmlu"):
        row = rows.loc[task]
        assert row["score_r2"] >= 0.5 and row["error"] == ""
        assert 0 < row["ci_low"] <= row["months"] <= row["ci_high"]
        assert math.isfinite(row["months_d0_0.3T"]) and math.isfinite(row["months_d0_3T"])


def test_the_checks_apply_and_the_offsets_come_from_the_two_olmo2_runs(result):
    assert set(result.checks["name"]) >= {"saturation", "conditioning", "size_confounding"}
    assert set(result.checks["benchmark"]) == {"olmes_arc_challenge_mc", "olmes_mmlu_mc"}
    assert set(result.offsets["run"]) == {"olmo-2-7b", "olmo-2-13b"} and len(result.offsets) == 8


def test_the_entry_point_prints_the_table(capsys):
    assert main(["--n-boot", "40"]) == 0
    out = capsys.readouterr().out
    assert "olmes_mmlu_mc" in out and "not measured" in out and "defines the reference" in out
