"""The OLMES trend: the shipped MC references over AI2's OLMES table, per task, with the D0 sensitivity and the checks."""

import math

import pandas as pd
import pytest

from densing.designs.olmes import mc_reference as mc
from densing.designs.olmes.trend import measure_olmes
from densing.present.olmes import VALUE_COLUMNS
from densing.present.words import left_out_frame
from densing.states import LeftOut
from tools.build_tables import main


@pytest.fixture(scope="module")
def result():
    return measure_olmes(n_boot=120, n_boot_share=0, n_boot_side=60, seed=0)


def test_one_row_per_task_and_the_olmo2_rows_and_undated_models_are_not_targets(result):
    assert list(result.rows["task"]) == list(mc.MC_CHANCE)
    left = dict(zip(result.left_out["model"], result.left_out["reason"]))  # codes; their words are present/'s
    assert {m: left[m] for m in mc.OLMO2_MODELS} == {m: LeftOut.OWN for m in mc.OLMO2_MODELS}
    assert left["StableLM-2-12B"] == left["Zamba-2-7B"] == LeftOut.NO_DATE
    said = dict(zip(*left_out_frame(result.left_out)[["model", "reason"]].to_dict("list").values()))
    assert said["Zamba-2-7B"] == "no release date" and said[mc.OLMO2_MODELS[0]] == "defines the reference"
    assert (result.rows["n_models"] == 18).all()


def test_a_score_law_below_r2_half_is_not_inverted_and_says_why(result):
    from densing.present.olmes import rows_frame

    rows, shown = result.rows.set_index("task"), rows_frame(result).set_index("task")
    for task in ("hellaswag", "winogrande"):
        assert rows.loc[task, "score_r2"] < 0.5 and math.isnan(rows.loc[task, "months"])
        assert rows.loc[task, "poor_fit"] and rows.loc[task, "error"] == ""  # the design holds R² and the flag
        r2 = rows.loc[task, "score_r2"]
        assert shown.loc[task, "error"] == (  # the words are densing.present.olmes'
            f"the MC score law is a poor fit: R² {r2:.3f} < 0.5 on the OLMo-2 checkpoints "
            "(bits per byte does not order MC accuracy)"
        )
    assert not set(VALUE_COLUMNS) & set(shown.columns)
    for task in ("arc_challenge", "mmlu"):
        row = rows.loc[task]
        assert row["score_r2"] >= 0.5 and row["error"] == "" and not row["poor_fit"]
        assert 0 < row["ci_low"] <= row["months"] <= row["ci_high"]
        assert math.isfinite(row["months_d0_0.3T"]) and math.isfinite(row["months_d0_3T"])


def test_the_checks_apply_and_the_offsets_come_from_the_two_olmo2_runs(result):
    assert set(result.checks["name"]) >= {"saturation", "conditioning", "size_confounding"}
    assert set(result.checks["benchmark"]) == {"olmes_arc_challenge_mc", "olmes_mmlu_mc"}
    assert set(result.offsets["run"]) == {"olmo-2-7b", "olmo-2-13b"} and len(result.offsets) == 8


def test_the_entry_point_prints_the_table(capsys):
    assert main(["olmes", "--n-boot", "40"]) == 0
    out = capsys.readouterr().out
    assert "olmes_mmlu_mc" in out and "not measured" in out and "defines the reference" in out


def _planted(months_low_high: dict, error: str = "") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"row": b, "months": m, "ci_low": lo, "ci_high": hi, "error": error if m != m else ""}
            for b, (m, lo, hi) in months_low_high.items()
        ]
    )


def test_beside_leaderboard_says_overlap_disjoint_and_missing_per_benchmark(result):
    from densing.designs.olmes.trend import LEADERBOARD_TWIN
    from densing.present.olmes import beside_leaderboard

    nan = float("nan")
    mmlu = result.rows.set_index("task").loc["mmlu"]
    arc = result.rows.set_index("task").loc["arc_challenge"]
    theirs = _planted(
        {
            "mmlu": (mmlu["months"], mmlu["ci_low"], mmlu["ci_high"]),  # the same interval: overlaps
            "arc_challenge": (arc["ci_high"] * 3, arc["ci_high"] * 2, arc["ci_high"] * 4),  # above it: disjoint
            "hellaswag": (10.0, 4.0, 20.0),
            "gsm8k": (nan, nan, nan),
        },
        error="no family passes the reference rule on it",
    )
    side = beside_leaderboard(result, theirs, 3.3).set_index("benchmark")
    assert list(side.index) == list(LEADERBOARD_TWIN)
    assert side.loc["mmlu", "agreement"].startswith("consistent")
    assert side.loc["arc_challenge", "agreement"].startswith("they disagree")
    assert side.loc["hellaswag", "agreement"] == "cannot compare: OLMES design not measured"
    assert side.loc["hellaswag", "olmes"].startswith("not measured: the MC score law is a poor fit")
    assert (
        side.loc["gsm8k", "olmes"].startswith("no reference")
        and side.loc["gsm8k", "leaderboard"] == "no family passes the reference rule on it"
    )
    assert side.loc["winogrande", "leaderboard"] == "not in the public table"
    assert "finding: conditioning fires" in side.loc["mmlu", "olmes_checks"]  # a finding, not a gate
    from densing.numbers import format_months

    assert (
        side.loc["mmlu", "olmes"]
        == f"{format_months(mmlu['months'])} [{format_months(mmlu['ci_low'])}–{format_months(mmlu['ci_high'])}]"
    )


def test_cli_design_olmes_prints_the_rows_checks_and_left_out_models(run_cli):
    code, out, err = run_cli("trend", "--design", "olmes", "--n-boot", "40", "--detail")
    assert code == 0 and err == ""
    assert (
        "olmes_mmlu_mc" in out
        and "finding (not a gate): conditioning fires" in " ".join(out.split())
        and "R² 0.033 < 0.5" in " ".join(out.split())
    )
    assert "StableLM-2-12B (no release date)" in " ".join(out.split())
    code, out, err = run_cli("trend", "--design", "olmes", "--n-boot", "40", "--format", "csv")
    assert code == 0 and out.splitlines()[0].startswith("task,benchmark,reference,d0") and len(out.splitlines()) == 5


def test_cli_design_olmes_refuses_the_leaderboard_options_in_one_line(run_cli):
    code, out, err = run_cli("trend", "--design", "olmes", "--fit", "reference_fits/x.json")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith("error: --fit:")


def _side_rows(**ceiling) -> pd.DataFrame:
    """Two rows of sensitivity values (mmlu, hellaswag) as the design holds them, the ceiling-1 law's given."""
    from densing.designs.olmes.trend import SIDE_KEYS

    nan = float("nan")
    rows = {"task": ["mmlu", "hellaswag"], "reference": ["x", "y"], "months_ceiling_1": [nan, 3.0]}
    for key in SIDE_KEYS:
        rows |= {
            f"{key}_ci_low": [nan, 1.1],
            f"{key}_ci_high": [nan, 5.9],
            f"{key}_measured": [False, True],
            f"{key}_error": ["", ""],
        }
    rows |= {
        "months_ceiling_1_failed": [(), ("saturation", "conditioning")],
        "months_ceiling_1_own_choice": [False, False],
        "months_ceiling_1_missing": ["", ""],
        "months_ceiling_1_folder": ["", ""],
        "months_ceiling_1_r2": [nan, nan],
        "months_ceiling_1_poor_fit": [False, False],
        "error": ["", ""],
    }
    rows |= {k: v for k, v in ceiling.items()}
    return pd.DataFrame(rows)


def test_the_shown_rows_say_why_the_ceiling_one_law_is_a_poor_fit_from_its_values():
    from densing.designs.olmes.trend import OlmesTrend
    from densing.present.olmes import VALUE_COLUMNS, rows_frame

    rows = _side_rows(months_ceiling_1_r2=[0.4321, float("nan")], months_ceiling_1_poor_fit=[True, False])
    empty = pd.DataFrame()
    shown = rows_frame(OlmesTrend(rows, empty, empty, empty))
    assert list(shown["months_ceiling_1_ci"]) == [
        "not measured: the ceiling-1 law is a poor fit: R² 0.432 < 0.5",
        "1.1–5.9 (failed: saturation, conditioning)",
    ]
    assert list(shown.columns) == [
        "task",
        "reference",
        "months_ceiling_1",
        "months_ceiling_1_ci",
        "error",
        "months_d0_0.3T_ci",
        "months_d0_3T_ci",
    ]
    assert not set(VALUE_COLUMNS) & set(shown.columns)
    assert list(shown["reference"]) == [  # the design holds the reference's file; present/ says it
        "OLMo ladder loss law + OLMo-2 MC score law (mmlu)",
        "OLMo ladder loss law + OLMo-2 MC score law (hellaswag)",
    ]
    assert math.isnan(shown.loc[0, "months_d0_3T_ci"]) and shown.loc[1, "months_d0_3T_ci"] == "1.1–5.9"


def test_the_shown_rows_say_why_the_ceiling_one_law_has_no_number_from_its_values():
    from densing.designs.olmes.trend import OlmesTrend
    from densing.present.olmes import rows_frame

    empty = pd.DataFrame()
    rows = _side_rows(
        months_ceiling_1_missing=["olmo2_mc_mmlu_ceiling1_two_step.json", ""],
        months_ceiling_1_folder=["fits", ""],
        months_ceiling_1_failed=[(), ()],
    )
    shown = rows_frame(OlmesTrend(rows, empty, empty, empty))
    assert list(shown["months_ceiling_1_ci"]) == [
        "not measured: olmo2_mc_mmlu_ceiling1_two_step.json not in fits",
        "1.1–5.9 (every testable check passed)",
    ]
    assert "months_ceiling_1_missing" in rows  # the result keeps its values
    rows = _side_rows(months_ceiling_1_own_choice=[True, False], months_ceiling_1_error=["", "too few models"])
    assert list(rows_frame(OlmesTrend(rows, empty, empty, empty))["months_ceiling_1_ci"]) == [
        "the rule's own choice",
        "too few models",
    ]


def test_the_design_holds_the_missing_ceiling_one_fit_as_values(tmp_path):
    import shutil

    from densing import paths
    from densing.designs.olmes.trend import measure_olmes
    from densing.present.olmes import rows_frame

    for task in mc.MC_CHANCE:  # the MC references without their ceiling-1 fits
        shutil.copy(paths.REFERENCE_FITS / mc.MC_FIT.format(task=task), tmp_path)
    result = measure_olmes(tmp_path, n_boot=40, n_boot_share=0, n_boot_side=20, seed=0)
    mmlu = result.rows.set_index("task").loc["mmlu"]
    assert mmlu["months_ceiling_1_missing"] == mc.MC_FIT_CEILING_ONE.format(task="mmlu")
    assert mmlu["months_ceiling_1_folder"] == tmp_path.name and not mmlu["months_ceiling_1_measured"]
    shown = rows_frame(result).set_index("task")
    assert shown.loc["mmlu", "months_ceiling_1_ci"] == (
        f"not measured: {mc.MC_FIT_CEILING_ONE.format(task='mmlu')} not in {tmp_path.name}"
    )
    assert shown.loc["mmlu", "reference"] == "OLMo ladder loss law + OLMo-2 MC score law (mmlu)"
    assert mmlu["reference"] == mc.MC_FIT.format(task="mmlu")
