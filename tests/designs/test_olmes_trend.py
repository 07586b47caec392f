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


def test_the_shown_rows_say_why_the_ceiling_one_law_is_a_poor_fit_from_its_values():
    import pandas as pd

    from densing.designs.olmes.trend import OlmesTrend
    from densing.present.olmes import rows_frame

    rows = pd.DataFrame(
        {
            "task": ["mmlu", "hellaswag"],
            "months_ceiling_1_ci": ["", "1.1–5.9"],
            "months_ceiling_1_why": ["", ""],
            "months_ceiling_1_r2": [0.4321, float("nan")],
            "months_ceiling_1_poor_fit": [True, False],
        }
    )
    empty = pd.DataFrame()
    shown = rows_frame(OlmesTrend(rows, empty, empty, empty))
    assert list(shown["months_ceiling_1_ci"]) == [
        "not measured: the ceiling-1 law is a poor fit: R² 0.432 < 0.5",
        "1.1–5.9",
    ]
    assert list(shown.columns) == ["task", "months_ceiling_1_ci"]


def test_the_shown_rows_say_why_the_ceiling_one_law_has_no_number_and_drop_the_value_column():
    import pandas as pd

    from densing.designs.olmes.trend import OlmesTrend
    from densing.present.olmes import rows_frame

    rows = pd.DataFrame(
        {
            "task": ["mmlu", "hellaswag"],
            "months_ceiling_1_ci": ["", "1.1–5.9"],
            "months_ceiling_1_why": ["the ceiling-1 law is a poor fit", ""],
        }
    )
    empty = pd.DataFrame()
    shown = rows_frame(OlmesTrend(rows, empty, empty, empty))
    assert list(shown["months_ceiling_1_ci"]) == ["not measured: the ceiling-1 law is a poor fit", "1.1–5.9"]
    assert "months_ceiling_1_why" not in shown and "months_ceiling_1_why" in rows  # the result keeps its values
