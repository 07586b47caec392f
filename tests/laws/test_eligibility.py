"""The reference rule R1–R5 on a hand-made table: each rule excludes the candidate it should, with its reason (rules v1
and v2: the shipped table's variants, computed by tools/build_tables.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from densing.laws import eligibility, forms
from tools.build_tables import earlier_candidate_table, eligible_families


def _family(
    name: str, sizes, tokens, *, gamma=0.45, level=22.0, benchmark="mmlu", shift=0.0, active=None, date="2024-01-01"
):
    n = np.asarray(sizes, float)
    score = forms.performance_law(np.log(n), 0.75, gamma, level, 0.25) + shift
    return pd.DataFrame(
        {
            "model": [f"{name}-{i}" for i in range(n.size)],
            "family": name,
            "benchmark": benchmark,
            "metric": "acc",
            "value": score,
            "params": n,
            "train_tokens": np.asarray(tokens, float),
            "active_params": np.nan if active is None else active,
            "release_date": pd.Timestamp(date),
        }
    )


def _table() -> pd.DataFrame:
    big = (0.5e9, 2e9, 7e9, 20e9, 70e9)
    targets = _family("T", (1e9, 3e9, 7e9, 13e9, 34e9, 70e9), 2e12, gamma=0.5, level=23.0)  # the trend's targets
    return pd.concat(
        [
            targets,
            _family("Good", big, 3e12),  # eligible
            _family("Narrow", (7e9, 13e9, 70e9), 2e12),  # R2: 10× span
            _family("Mixed", big, (0.3e12, 1e12, 3e12, 3e12, 3e12)),  # R3: 10× tokens
            _family("Weak", big, 3e12, level=26.0),  # R4: never reaches the targets' top
            _family("Bent", big, 3e12, shift=np.array([0, 0, 0, 0, 0.08])),  # R5: the largest member off the curve
            _family("Two", (1e9, 1e9, 70e9), 3e12),  # R2: two distinct sizes
        ],
        ignore_index=True,
    )


def test_each_rule_excludes_the_candidate_it_should():
    table = earlier_candidate_table(_table(), since="2023-01-01", rule="v1")
    why = table.set_index("reference")["why"]
    eligible = table.set_index("reference")["eligible"]
    assert eligible["Good:mmlu"] and why["Good:mmlu"] == ""
    assert why["Narrow:mmlu"].startswith("R2: sizes span 10×")
    assert why["Mixed:mmlu"].startswith("R3: token counts differ 10×")
    assert why["Weak:mmlu"].startswith("R4:")
    assert why["Bent:mmlu"].startswith("R5: held-out error")
    assert why["Two:mmlu"].startswith("R2: 2 sizes")
    assert table.loc[table["reference"] == "Good:mmlu", "held_out_error"].iloc[0] < 1e-9


def test_a_family_needs_two_eligible_benchmarks_and_the_lowest_held_out_error_leads():
    base = _table()
    second = base.assign(benchmark="hellaswag")
    table = earlier_candidate_table(pd.concat([base, second], ignore_index=True), since="2023-01-01", rule="v1")
    families = eligible_families(table)
    assert list(families["family"]) == ["Good"] and families["headline"].tolist() == [True]
    assert families["benchmarks"].iloc[0] == ("mmlu", "hellaswag")
    only_one = eligible_families(earlier_candidate_table(base, since="2023-01-01", rule="v1"))
    assert only_one.empty  # one eligible benchmark is not a family reference


def test_mixture_of_experts_members_are_not_fitted():
    table = _table()
    table.loc[(table["family"] == "Good") & (table["params"] == 70e9), "active_params"] = 14e9
    row = earlier_candidate_table(table, since="2023-01-01", rule="v1").set_index("reference").loc["Good:mmlu"]
    assert "moe: Good-4" in row["why"] and row["sizes"] == 4


def _rule_table() -> pd.DataFrame:
    big = (0.5e9, 2e9, 7e9, 20e9, 70e9)
    targets = _family("T", (1e9, 3e9, 7e9, 13e9, 34e9, 70e9), 2e12, gamma=0.5, level=23.0)
    code_targets = _family("T", (1e9, 3e9, 7e9, 13e9, 34e9, 70e9), 2e12, gamma=0.5, level=23.0, benchmark="humaneval")
    code_targets["value"] -= 0.25  # HumanEval's chance is 0: the same curve, floored at 0
    # an informative family on 164 items: scores off its curve by about one binomial standard error, alternating
    code = _family("Code", big, 2e12, benchmark="humaneval")
    code["value"] = code["value"] - 0.25
    se = np.sqrt(code["value"] * (1 - code["value"]) / 164)
    code["value"] += se * np.array([1.0, -1.0, 0.8, -0.9, 0.7])
    return pd.concat(
        [
            targets,
            code_targets,
            _family("Good", big, 3e12),  # eligible
            _family("Floor", big, 3e12, level=30.0),  # R4r: its best member barely leaves chance
            _family("Saturating", big, 3e12, shift=np.array([0, 0, 0, -0.05, -0.15])),  # another shape: R5z
            _family("Mixed", big, (0.3e12, 1e12, 3e12, 3e12, 3e12)),  # R3: 10× tokens
            _family("Two", (1e9, 1e9, 70e9), 3e12),  # R2: two distinct sizes
            code,  # noisy, informative: eligible
        ],
        ignore_index=True,
    )


# The planted families follow the logistic in ln N. Under it, the floor family fails on reach and the saturating one
# (its top members bend below the logistic) on the held-out test; under the power shape (the default) the floor
# family's slope is not above its noise (R2s), and the saturating family bends as a power law does: it passes.
@pytest.mark.parametrize(
    "shape, floor_rule, saturating_rule", [("logistic_ln_n", "R4r:", "R5z:"), ("power", "R2s:", "")]
)
def test_the_rule_refuses_the_floor_and_the_misspecified_and_keeps_a_noisy_informative_family(
    shape, floor_rule, saturating_rule
):
    table = eligibility.candidate_table(_rule_table(), shape=shape).set_index("reference")
    assert (table["shape"] == shape).all()
    assert table.loc["Good:mmlu", "eligible"] and table.loc["Good:mmlu", "why"] == ""
    assert table.loc["Code:humaneval", "eligible"], table.loc["Code:humaneval", "why"]
    assert abs(table.loc["Code:humaneval", "held_out_z"]) <= eligibility.MAX_HELD_OUT_Z
    floor = table.loc["Floor:mmlu"]
    assert (
        not floor["eligible"] and floor["why"].startswith(floor_rule) and floor["reach_share"] < eligibility.REACH_SHARE
    )
    saturating = table.loc["Saturating:mmlu"]
    assert saturating["why"].startswith(saturating_rule) and bool(saturating["eligible"]) == (saturating_rule == "")
    assert table.loc["Mixed:mmlu", "why"].startswith("R3:")
    assert table.loc["Two:mmlu", "why"].startswith("R2: 2 sizes")
    assert (table["rule"] == "v3").all()


def test_the_rule_refuses_a_family_whose_slope_is_not_above_its_noise():
    flat = _family("Flat", (0.5e9, 2e9, 7e9, 20e9, 70e9), 3e12, level=22.0, gamma=0.45)
    flat["value"] = 0.70 + np.array([0.004, -0.003, 0.002, -0.004, 0.003])  # no rise with size, high above chance
    table = pd.concat([_rule_table(), flat], ignore_index=True)
    row = eligibility.candidate_table(table).set_index("reference").loc["Flat:mmlu"]
    assert not row["eligible"] and row["why"].startswith("R2s:")


def test_the_rules_fits_are_likelihood_fits_with_the_pooled_dispersion():
    table = _rule_table()
    found = eligibility.candidate_table(table)
    fits = eligibility.eligible_fits(table, found, family_boot=50)
    fit = fits[("Good", "mmlu")]
    assert fit.provenance["method"] == "binomial"
    pooled = float(found.loc[found["benchmark"] == "mmlu", "pooled_dispersion"].iloc[0])
    assert fit.provenance["dispersion_floor"] == pytest.approx(pooled) and fit.provenance["dispersion"] >= pooled


@pytest.mark.parametrize("shape", ["power", "logistic_ln_n"])
def test_the_rule_judges_each_benchmark_on_its_own(shape):
    """A benchmark's rows of the candidate table are the same numbers in a table of fewer benchmarks (each
    benchmark's families and pooled dispersion are its own): what lets the trend's other law shape fit only the
    benchmarks its rows read (densing.trend.plan.FitsJob)."""
    from densing import paths
    from densing.data import read_results
    from densing.data.benchmarks import with_stderr

    table = with_stderr(read_results(paths.RESULTS / "public_models.csv"))
    every = ("mmlu", "arc_challenge", "hellaswag", "gsm8k", "humaneval", "leaderboard_bbh", "math_hard")
    fewer = ("mmlu", "leaderboard_bbh", "math_hard")
    whole = eligibility.candidate_table(table, benchmarks=every, shape=shape)
    part = eligibility.candidate_table(table, benchmarks=fewer, shape=shape)
    chosen = whole[whole["benchmark"].isin(fewer)].reset_index(drop=True)
    assert len(part) == len(chosen) > 0
    pd.testing.assert_frame_equal(
        part.sort_values(["benchmark", "family"]).reset_index(drop=True),
        chosen.sort_values(["benchmark", "family"]).reset_index(drop=True),
        check_exact=True,
    )


def test_a_held_out_refit_without_a_finite_standard_error_fails_r5z_in_words():
    """A refit whose information matrix is singular predicts with no standard error (z NaN): R5z in words, never a
    crash in formatting the z."""
    from densing.laws.eligibility import _held_out_reason

    row: dict = {"family": "F", "benchmark": "mmlu"}
    held = {"held_out": "F-70B", "measured": 0.61, "predicted": 0.58, "predicted_stderr": float("nan")}
    held |= {"relative_error": 0.05, "z": float("nan")}
    code, words = _held_out_reason(row, None, held)
    assert code == "R5z" and "no finite standard error" in words and "F-70B" in words
    assert _held_out_reason({"family": "F", "benchmark": "mmlu"}, None, held | {"z": 1.0}) is None
