"""The Densing Law by capability: rule v2, missing scores, size confounding, rows.

References drawn in the bootstrap (the uncertainty engine) are tested in test_uncertainty.py."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from planted_families import family_table

import densing.present as present
from densing.errors import DensingError
from densing.laws import eligibility
from densing.laws.bounds import EXACT, LOWER
from densing.laws.family import fit_family
from densing.laws.inversion import Joint
from densing.laws.joint import invert_joint
from densing.trend import checks
from densing.trend.uncertainty import trend_uncertainty
from tools.build_tables import MAX_TOP_CONDITIONING, earlier_candidate_table, eligible_families


def test_rule_v2_on_a_hand_table_reads_no_date_and_names_each_failure():
    table = family_table()
    v2 = earlier_candidate_table(table, since="2023-02-24", rule="v2")
    good = v2[v2["family"] == "Good"].set_index("benchmark")
    assert good.loc["mmlu", "eligible"] and good.loc["winogrande", "eligible"]
    assert good.loc["mmlu", "top_kappa"] <= MAX_TOP_CONDITIONING and np.isnan(good.loc["mmlu", "reach_score"])
    narrow = v2[v2["family"] == "Narrow"]
    assert narrow.empty  # fewer than 3 models: not a candidate
    # no release date is read: moving every target's date changes nothing
    moved = table.assign(release_date="2019-01-01")
    again = earlier_candidate_table(moved, since="2023-02-24", rule="v2")
    pd.testing.assert_frame_equal(v2.drop(columns=["reach_score"]), again.drop(columns=["reach_score"]))
    families = eligible_families(v2).set_index("family")
    assert families.loc["Good", "benchmarks"] == ("mmlu", "winogrande")
    # a benchmark without a chance level or item count is a candidate with its reason, never an exception
    odd = pd.concat([table, table[table["benchmark"] == "mmlu"].assign(benchmark="math_hard_unknown")])
    found = earlier_candidate_table(
        odd.assign(benchmark=odd["benchmark"].replace("math_hard_unknown", "musr_x")), since=None, rule="v2"
    )
    assert set(found["benchmark"]) <= set(eligibility.CANDIDATE_BENCHMARKS)


def test_rule_v2_fails_a_top_decile_that_saturates_the_law():
    table = family_table()
    top = table["family"].str.startswith("T") & (table["benchmark"] == "mmlu")
    table.loc[top, "value"] = 0.999
    table.loc[top, "stderr"] = 0.001
    v2 = earlier_candidate_table(table, since=None, rule="v2").set_index("reference")
    assert not v2.loc["Good:mmlu", "eligible"] and v2.loc["Good:mmlu", "why"].startswith("R4s")


def test_a_missing_score_leaves_the_joint_size_to_the_scores_a_model_has():
    table = family_table()
    fits = [fit_family(table, "Good", b, n_boot=50) for b in ("mmlu", "winogrande")]
    scores = np.array([[0.6, 0.7], [0.6, np.nan], [np.nan, 0.7]])
    solved = invert_joint(fits, scores, np.full(scores.shape, 0.01))
    alone_mmlu = np.log(fits[0].effective_params(np.array([0.6])))[0]
    alone_wino = np.log(fits[1].effective_params(np.array([0.7])))[0]
    assert solved.log_size[1] == pytest.approx(alone_mmlu, abs=1e-6)
    assert solved.log_size[2] == pytest.approx(alone_wino, abs=1e-6)
    assert np.isnan(solved.per_benchmark_size[1, 1]) and np.isfinite(solved.log_size).all()
    assert min(alone_mmlu, alone_wino) - 1e-9 <= solved.log_size[0] <= max(alone_mmlu, alone_wino) + 1e-9


def test_the_joint_trend_keeps_models_with_some_scores_and_an_empty_one_is_a_densing_error():
    from densing.trend.targets import trend_targets

    table = family_table()
    half = table[~((table["model"] == "t3") & (table["benchmark"] == "winogrande"))]
    joint = Joint(tuple(fit_family(half, "Good", b, n_boot=50) for b in ("mmlu", "winogrande")))
    models, _ = trend_targets(half, joint, since=None)
    assert "t3" in set(models["model"]) and np.isnan(models.loc[models["model"] == "t3", "stderr:winogrande"]).all()
    with pytest.raises(DensingError):
        trend_uncertainty(models.iloc[:0], joint, n_boot=10, n_boot_share=0)


def test_the_qwen15_joint_on_mmlu_and_bbh_gives_a_result_or_a_densing_error():
    """The defect: a bare ``ValueError: zero-size array`` from laws/joint.py's solve."""
    from densing.data import read_results
    from densing.trend.targets import trend_targets

    table = read_results("results/public_models.csv")
    joint = Joint(tuple(fit_family(table, "Qwen1.5", b, n_boot=50) for b in ("mmlu", "leaderboard_bbh")))
    try:
        models, _ = trend_targets(table, joint)
        result = trend_uncertainty(models, joint, n_boot=20, n_boot_share=0)
        assert np.isfinite(result.slope_per_day)
    except DensingError as exc:
        assert "leaderboard_bbh" in str(exc) or "model" in str(exc)


def _trend_points(seed: int, size_effect: float, n: int = 120):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 600, n)
    log_n = rng.uniform(np.log(1e9), np.log(1e11), n) + 0.004 * t  # larger models released later
    y = 0.005 * t + size_effect * (log_n - log_n.mean()) - np.abs(rng.normal(0, 0.7, n))
    return t, y, np.full(n, EXACT, float), np.exp(log_n)


def test_size_confounding_passes_without_a_size_effect_and_fails_with_one():
    t, y, kind, params = _trend_points(0, 0.0)
    assert checks.size_confounding(t, y, kind, params).status == checks.PASSED
    t, y, kind, params = _trend_points(0, 1.0)
    found = checks.size_confounding(t, y, kind, params)
    assert found.status == checks.FAILED and "ln N" in present.detail(found)
    few = checks.size_confounding(t[:5], y[:5], kind[:5], params[:5])
    assert few.status == checks.UNTESTABLE


def test_size_confounding_drops_bounds_and_counts_them():
    t, y, kind, params = _trend_points(1, 0.0)
    kind[y > np.quantile(y, 0.95)] = LOWER
    found = checks.size_confounding(t, y, kind, params)
    assert found.status == checks.PASSED and f"{int((kind == LOWER).sum())} bounds dropped" in present.detail(found)


def test_checks_under_several_references_fail_if_any_fails():
    ok = checks.Check("saturation", 0.0, checks.PASSED, checks.Saturated(0, 3, 0.9, 0.9, ()))
    bad = checks.Check("saturation", 2.0, checks.FAILED, checks.Saturated(2, 3, 0.9, 0.9, (("m", None, 0.9),) * 2))
    assert checks.under_references({"a": ok, "b": bad}).failed
    assert checks.under_references({"a": ok, "b": ok}).passed


@pytest.fixture(scope="module")
def shipped():
    from densing.data import read_results
    from densing.trend.measure import measure_trend

    return measure_trend(read_results("results/public_models.csv"), n_boot=60, n_boot_side=40)


def test_one_row_per_benchmark_with_a_number_or_its_reason(shipped):
    from densing.registry import leading_table
    from densing.trend.capability import CAPABILITY

    table = present.by_benchmark(shipped)
    scored = set(shipped.candidates["benchmark"])
    assert list(table["row"]) == [b for b in CAPABILITY if b in scored] + list(leading_table().sets)
    for row in table.itertuples():
        assert np.isfinite(row.months) != bool(row.error)
        if np.isfinite(row.months):
            assert row.ci_low <= row.months <= row.ci_high and row.n_references >= 1
    assert set(table["capability"]) >= {"knowledge", "commonsense", "set"}


def test_the_api_defaults_give_the_cli_headline():
    """``densing.measure_trend`` and ``densing.fit_trend`` with their defaults and ``densing trend`` with its defaults
    give one headline: the notebook path of the README gives the report's number."""
    import densing
    from densing.laws.reference_fit import ReferenceFit

    public = densing.read_results("results/public_models.csv")
    api = densing.measure_trend(public)
    out = subprocess.run(
        [sys.executable, "-m", "densing.cli.app", "trend", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    printed = json.loads(out)  # a command with a headline: {"rows": [one per frontier rule], the sections beside}
    head = next(r for r in printed["rows"] if r["headline"])
    assert printed["verdict"] == present.verdict_of(api)
    assert head["doubling_time_months"] == pytest.approx(api.rules[api.headline_rule].doubling_time_months, rel=1e-12)
    # densing.fit_trend: the headline's references by default, every number the CLI's (the same draws and seed)
    fitted = densing.fit_trend(public)
    record = present.record(fitted)  # its values with its status in words, as the JSON's row holds them
    assert record == {k: v for k, v in head.items() if k in record}
    # ... and the lead reference's shipped fits (reference_fits/family_<family>_<benchmark>.json, in the headline's
    # benchmark order) are the fits the headline inverts with
    lead = fitted.reference_names[0]  # "Family:joint(b1,b2,...)"
    family, benchmarks = lead.family, lead.benchmark.removeprefix("joint(").rstrip(")").split(",")
    shipped = [ReferenceFit.load(f"reference_fits/family_{family.lower()}_{b}.json") for b in benchmarks]
    used = {f.benchmark: f for f in api.fits}
    for fit in shipped:
        assert fit.params == pytest.approx(used[fit.benchmark].params, rel=1e-9)
    given = densing.fit_trend(public, shipped, n_boot=50, n_boot_share=0)
    assert given.n_references == 1 and present.status(given) and math.isfinite(given.doubling_time_months)


def test_the_tables_multiple_choice_bbh_is_a_row_with_a_number(shipped):
    """The defect: BBH alone gave "fewer than 3 usable models" (no chance level or item count for the table's BBH).

    The public table's BBH is leaderboard v2's multiple-choice BBH, registered as ``leaderboard_bbh`` (chance level and
    item count from its subtasks); lm-eval's chain-of-thought ``bbh`` keeps its own name and zero floor.
    """
    rows = present.by_benchmark(shipped).set_index("row")
    assert "bbh" not in rows.index
    bbh = rows.loc["leaderboard_bbh"]
    assert bbh["capability"] == "reasoning & math"
    assert bbh["n_models"] >= 30 and (np.isfinite(bbh["months"]) or "R" in bbh["error"])


def test_why_a_set_has_no_reference_names_the_families_eligible_on_one_benchmark_only():
    from densing.present.words import row_reason
    from densing.trend.capability import _why_none

    table = family_table()
    v2 = earlier_candidate_table(table, since=None, rule="v2")
    reason = _why_none(v2, ("mmlu", "gsm8k"))
    assert ("Good", "mmlu") in reason.eligible_on_one and "other" not in dict(reason.failures)  # the record's values
    words = row_reason(reason)
    assert "other" not in words and "eligible on one only: Good (mmlu)" in words


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6)), max_size=40))
def test_the_held_out_mean_is_pandas_mean(values):
    """A reference's mean held-out miss (the order of a row's references) is the mean pandas gave it: NaNs skipped."""
    from densing.trend.capability import _held_out

    values = np.array([np.nan if v is None else v for v in values], float)
    names = tuple(f"b{i}" for i in range(len(values)))  # a table without z: the mean of its relative errors
    candidates = pd.DataFrame({"family": ["f"] * len(values), "benchmark": list(names), "held_out_error": values})
    with pd.option_context("compute.use_bottleneck", False):
        expected = pd.Series(values).mean()
    got = _held_out(candidates, "f", names)
    assert (np.isnan(expected) and np.isnan(got)) or got == expected
