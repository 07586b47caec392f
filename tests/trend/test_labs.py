"""Labs as the outer unit of the draws (densing.data.labs, densing.trend.pooling step 3) and of the pooling
(densing.trend.random_effects.pool_by_lab): planted draws and invariants, and every shipped family's lab."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import densing.present as present
from densing.data.labs import lab_of, lab_table, labs_of
from densing.trend import pooling
from densing.trend.random_effects import pool_by_lab, pool_slopes
from tests.conftest import REPO_ROOT

SHIPPED_TABLES = (
    "results/public_models.csv",
    "results/openllm_v2/openllm_v2_2025-03.csv",
    "results/swallow/swallow_2025-06.csv",
    "results/swallow/swallow_2026-05.csv",
    "results/olmes/models.csv",
)


def test_every_family_of_every_shipped_table_has_a_lab():
    known = lab_table()
    for path in SHIPPED_TABLES:
        families = set(pd.read_csv(REPO_ROOT / path)["family"].dropna().astype(str))
        assert not families - set(known), f"{path}: families without a lab: {sorted(families - set(known))}"


def test_a_derived_family_is_in_its_parents_lab():
    for family, (lab, parent) in lab_table().items():
        if parent and parent in lab_table():
            assert lab_table()[parent][0] == lab, f"{family} derives from {parent} but is in {lab}"


def test_the_lab_of_a_family():
    assert lab_of("Qwen2.5-Coder") == lab_of("Qwen2") == lab_of("Qwen1.5")
    assert lab_of("Llama-3-Swallow-v0.1") == lab_of("Llama-3") != lab_of("Qwen2")
    assert lab_of("a family no table holds") == "a family no table holds"  # a lab of its own
    assert lab_of(None) == lab_of(float("nan")) == lab_of("") == ""
    # a table's own lab column wins; a blank cell takes the lab the table gives its family (a family is one lab's),
    # else the file's
    assert labs_of(["Qwen2", "Qwen2", None], ["Elsewhere", None, None]).tolist() == ["Elsewhere", "Elsewhere", ""]
    assert labs_of(["Qwen2", "Llama-3", None], ["Elsewhere", " ", None]).tolist() == [
        "Elsewhere",
        lab_of("Llama-3"),
        "",
    ]


def _reference(rng, count, draws=400):
    base = rng.normal(0.004, 0.001, size=(count, 1))
    return base[:, 0], base + rng.normal(0, 0.0005, size=(count, draws))


def test_one_reference_a_lab_pools_as_before_to_the_bit():
    rng = np.random.default_rng(0)
    points, draws = _reference(rng, 4)
    by_lab, plain = pool_by_lab(points, draws, np.arange(4)), pool_slopes(points, draws)
    assert by_lab.slope == plain.slope and np.array_equal(by_lab.weights, plain.weights)
    assert (by_lab.q, by_lab.df, by_lab.p_value, by_lab.tau_squared) == (
        plain.q,
        plain.df,
        plain.p_value,
        plain.tau_squared,
    )
    assert np.array_equal(by_lab.lab_weights, plain.weights)


def test_one_lab_is_not_tested_and_its_references_are_weighted_by_their_variance():
    rng = np.random.default_rng(1)
    points = np.array([0.004, 0.005, 0.003])
    draws = points[:, None] + rng.normal(0, 1, size=(3, 500)) * np.array([[0.001], [0.002], [0.004]])
    pooled = pool_by_lab(points, draws, np.zeros(3, np.intp))
    assert pooled.df == 0 and np.isnan(pooled.p_value) and pooled.tau_squared == 0.0
    inverse = 1 / np.var(draws, axis=1, ddof=1)
    assert np.allclose(pooled.weights, inverse / inverse.sum())
    assert pooled.slope == pytest.approx(float(pooled.weights @ points))


def test_labs_are_what_the_agreement_test_compares():
    """Two labs of two references each: Q on 1 df; a lab whose references sit far from the other lab's rejects."""
    rng = np.random.default_rng(2)
    noise = rng.normal(0, 0.0003, size=(4, 600))
    same = np.array([0.004, 0.0041, 0.0039, 0.004])
    apart = np.array([0.004, 0.0041, 0.008, 0.0081])
    labs = np.array([0, 0, 1, 1])
    assert pool_by_lab(same, same[:, None] + noise, labs).df == 1
    assert pool_by_lab(same, same[:, None] + noise, labs).p_value > 0.05
    assert pool_by_lab(apart, apart[:, None] + noise, labs).p_value < 0.01
    weights = pool_by_lab(apart, apart[:, None] + noise, labs)
    assert weights.weights.sum() == pytest.approx(1.0) and weights.lab_weights.sum() == pytest.approx(1.0)


def test_every_lab_one_family_draws_the_family_bootstrap_exactly():
    clusters = np.array([0, 0, 1, 2, 2, 2, 3])
    one = pooling._family_weights(clusters, 50, np.random.default_rng(3))
    two = pooling._family_weights(clusters, 50, np.random.default_rng(3), labs=clusters.copy())
    assert np.array_equal(one, two)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12), st.integers(0, 2**31))
def test_two_stage_counts(family_of_lab, seed):
    """Families nested in labs: every draw picks L labs in all; a family's count is 0 when its lab is not drawn, and
    the counts of a lab's families add to (times the lab is drawn) × (its families)."""
    # family g lies in lab family_of_lab[g] (relabelled by first appearance); each family has 1–2 targets
    lab_codes = pd.factorize(pd.Series(family_of_lab))[0]
    clusters = np.repeat(np.arange(len(family_of_lab)), 2)
    labs = lab_codes[clusters]
    counts = pooling._family_weights(clusters, 30, np.random.default_rng(seed), labs=labs)
    first = np.unique(clusters, return_index=True)[1]
    per_family = counts[:, first]  # (draws, families)
    per_lab = np.stack([per_family[:, lab_codes == lab].sum(axis=1) for lab in range(lab_codes.max() + 1)], axis=1)
    sizes = np.bincount(lab_codes)
    drawn = per_lab / sizes
    assert np.allclose(drawn, np.round(drawn)) and np.all(drawn.sum(axis=1) == lab_codes.max() + 1)
    assert np.all(counts >= 0)


def test_the_shipped_row_names_the_lab_of_every_reference_and_target():
    import densing
    from densing import registry
    from densing.data import read_results

    profile = registry.table("openllm_v2")
    head = densing.measure_trend(read_results(profile.path), table=profile, sections=()).rules["quantile"]
    record = head.labs_record()
    assert [r["lab"] for r in record["references"]] == [lab_of(r["family"]) for r in record["references"]]
    assert sum(record["lab_weights"].values()) == pytest.approx(1.0)
    table = pd.read_csv(profile.path).set_index("model")
    families = {str(table.loc[m, "family"]) if pd.notna(table.loc[m, "family"]) else m for m in head.models}
    listed = {f for members in record["targets"].values() for f in members}
    assert families == listed
    assert {r["lab"] for r in record["leave_one_lab_out"]} == set(record["targets"])


def test_what_the_headline_rests_on_is_said_from_its_values():
    """The labs (one lab: not testable), the late frontier family and the floor bounds, each in one sentence, from
    the headline's own fields."""
    import densing
    from densing.data import read_results

    measured = densing.measure_trend(read_results(REPO_ROOT / "results" / "public_models.csv"), sections=())
    head = measured.rules[measured.headline_rule]
    words = present.rests_on(measured)
    assert words.startswith("What the headline rests on.")
    assert f"one lab's ({head.labs[0]})" in words and len(head.labs) == 1
    assert f"without {head.largest_influence().family}" in words
    if head.n_floor_bounds:
        noun = "target inversion" if head.n_floor_bounds == 1 else "target inversions"
        assert f"{head.n_floor_bounds} {noun} at a benchmark's chance level" in words
    else:  # the shipped headline: no target at chance once each benchmark is read in ln N
        assert words.endswith("Floor bounds: no target sits at a benchmark's chance level.")
