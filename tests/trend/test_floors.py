"""Targets at a benchmark's chance level enter a row's frontier lines as upper bounds (densing.trend.floors): the rule
on planted scores at, near and above chance, its invariants, and its count in the row's result and JSON.

The planted row is studies/heterogeneity_level.py's world (its docstring states it): its earliest small targets score
a few items of MATH-hard, within two standard errors of MATH-hard's chance level 0."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings, strategies as st

from densing.constants import FLOOR_STDERRS
from densing.laws.bounds import EXACT, LOWER, UPPER
from densing.trend import floors, pooling, selection
from studies.heterogeneity_level import _joint, planted


def test_the_registry_gives_each_benchmark_its_chance_level_and_none_where_it_has_none():
    chance = floors.chance_levels(("mmlu_pro", "math_hard", "ifeval", "not_a_benchmark"))
    assert chance[:2].tolist() == [186749 / 1684480, 0.0] and np.isnan(chance[2:]).all()  # MMLU-Pro: 1/k over items


def test_scores_at_near_and_above_chance():
    """A planted benchmark of chance 0.1 (ten options, MMLU-Pro's kind) and MATH-hard (chance 0), σ 0.003 on both: a
    score is at the floor when it lies at most 2σ = 0.006 above its chance level, and only then; a target is at the
    floor when every score it has is, and one at the floor on one benchmark of a joint inversion only leaves that
    score out (floor_plan)."""
    chance = np.array([0.1, 0.0])
    sigma = np.full((6, 2), 0.003)
    scores = np.array(
        [
            [0.100, 0.30],  # at chance on MMLU-Pro
            [0.106, 0.30],  # exactly 2σ above it: at the floor (S ≤ c + 2σ)
            [0.1061, 0.30],  # just beyond 2σ on MMLU-Pro, MATH-hard far above 0: not at the floor
            [0.40, 0.0],  # MATH-hard 0: the floor of a generated answer
            [0.08, 0.30],  # below chance
            [0.40, 0.20],
        ]
    )  # far above chance on both
    near = floors.floor_scores(scores, sigma, chance)
    assert near.any(axis=1).tolist() == [True, True, False, True, True, False]
    assert not floors.at_floor(scores, sigma, chance).any()  # each has an informative score
    both = np.array([[0.100, 0.0], [0.106, 0.006], [0.1061, 0.0]])
    assert floors.at_floor(both, sigma[:3], chance).tolist() == [True, True, False]
    dropped = floors.floor_plan(scores, sigma, chance, joint=True)
    assert dropped.tolist() == [
        [True, False],
        [True, False],
        [False, False],
        [False, True],
        [True, False],
        [False, False],
    ]
    assert not floors.floor_plan(scores, sigma, chance, joint=False).any()  # a mean inversion leaves nothing out


def test_a_benchmark_without_a_chance_level_or_a_missing_score_puts_no_target_at_the_floor():
    chance = np.array([np.nan, 0.25])
    scores = np.array([[0.0, 0.6], [0.3, np.nan], [0.9, 0.25]])
    sigma = np.array([[0.0, 0.01], [0.01, np.nan], [0.01, np.nan]])  # a missing σ is read as 0
    assert floors.floor_scores(scores, sigma, chance).any(axis=1).tolist() == [False, False, True]
    # the third is at chance on the second benchmark only: a benchmark without a chance level is informative
    assert floors.at_floor(scores, sigma, chance).tolist() == [False, False, False]
    assert floors.at_floor(scores[:, 1:], sigma[:, 1:], chance[1:]).tolist() == [False, False, True]


def test_the_rule_reads_every_draw_alike():
    """Scores of K draws (K, n, B) against one σ (n, B): each draw's own flags, as for the point scores."""
    rng = np.random.default_rng(0)
    scores = rng.uniform(0.0, 0.5, (7, 5, 3))
    sigma = rng.uniform(0.001, 0.02, (5, 3))
    chance = np.array([0.25, 0.0, 0.1])
    drawn = floors.at_floor(scores, sigma, chance)
    assert drawn.shape == (7, 5)
    assert all(drawn[k].tolist() == floors.at_floor(scores[k], sigma, chance).tolist() for k in range(7))


finite = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(finite, finite, st.floats(0.0, 0.05), st.sampled_from([0.0, 0.1, 0.25, 0.5])), min_size=1, max_size=4
    ),
    st.lists(st.sampled_from([EXACT, LOWER, UPPER, math.nan]), min_size=1, max_size=1),
)
def test_a_floor_bound_is_never_made_from_a_score_far_above_chance_and_never_made_exact(cells, kinds):
    """One target, B benchmarks (score, a second score, σ, chance): at the floor exactly when some score S_b ≤ c_b + 2σ_b;
    a score more than 2σ above chance on every benchmark is never at the floor; the bound only ever turns an exact
    density into an upper bound, never a bound (or a dropped density) into an exact one (the value is not its to move)."""
    scores = np.array([[c[0] for c in cells]])
    sigma = np.array([[c[2] for c in cells]])
    chance = np.array([c[3] for c in cells])
    near = floors.floor_scores(scores, sigma, chance).any(axis=1)
    expected = any(s <= c + FLOOR_STDERRS * e for s, c, e in zip(scores[0], chance, sigma[0]))
    assert near.tolist() == [expected]
    every = all(s <= c + FLOOR_STDERRS * e for s, c, e in zip(scores[0], chance, sigma[0]))
    assert floors.at_floor(scores, sigma, chance).tolist() == [every]
    far = np.maximum(scores, chance + FLOOR_STDERRS * sigma + 1e-9)  # every score beyond the margin
    assert not floors.floor_scores(far, sigma, chance).any()
    kind = np.array(kinds, float)
    kind_out = floors.bounded_kind(kind, near)
    if kind[0] != EXACT:
        assert np.array_equal(kind_out, kind, equal_nan=True)  # a bound stays the bound it is; dropped stays dropped
    else:
        assert kind_out.tolist() == [UPPER if near[0] else EXACT]


def test_a_rows_floor_bounds_are_counted_per_reference_and_reach_its_json():
    """On a planted row with targets near MATH-hard's floor: the count per reference is the targets that are exact
    without the rule and upper bounds with it; the pooled point without them is the row's point with the rule off;
    the row's record (``densing trend --by benchmark --format json``) and the headline's JSON carry the count."""
    from types import SimpleNamespace

    from densing.laws.inversion import arrays
    from densing.present.verdict import saturation_words
    from densing.present.words import row_record
    from densing.trend.capability import Row
    from densing.trend.uncertainty import from_row_trend

    table = planted(5, count=120)
    chosen = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "RefB")], since=None)
    scores, sigma = arrays(chosen.frame, chosen.benchmarks)
    chance = floors.chance_levels(chosen.benchmarks)
    near = floors.floor_scores(scores, sigma, chance).any(axis=1)
    every = floors.at_floor(scores, sigma, chance)
    assert near.sum() >= 3  # the planted world has targets at the floor
    result = pooling.pooled_trend(chosen, n_boot=60, n_boot_share=0, seed=0)
    data = pooling._prepared(chosen)
    bare, bare_kind, _ = pooling._point(chosen, data, floors=False)
    for r in range(2):
        made = (result.kind0[r] == UPPER) & (bare_kind[r, 0] == EXACT)
        assert result.floor_bounds[r] == int(made.sum())
        assert not made[~near].any()  # never a target away from the floor
        assert np.array_equal(result.y0[r][every], bare[r, 0][every], equal_nan=True)  # at its value
        capped = made & ~every  # at the floor on some benchmarks: a bound no higher than its informative value
        assert np.all(result.y0[r][capped] <= bare[r, 0][capped] + 1e-9) or not capped.any()
    assert sum(result.floor_bounds) > 0  # the rest are below the references' smallest members (the region's bounds)
    head = from_row_trend(result, epoch="2023-02-24")
    assert head.n_floor_bounds == sum(result.floor_bounds) and head.floor_bounds == result.floor_bounds
    record = row_record(
        SimpleNamespace(
            name="planted",
            label="planted",
            capability="",
            benchmarks=("mmlu",),
            chance=0.25,
            references=("RefA", "RefB"),
            result=head,
            state=Row.state.fget(SimpleNamespace(result=head)),  # a row's state as densing.trend.capability.Row's
            reason=None,
        )
    )
    assert record["n_floor_bounds"] == head.n_floor_bounds
    assert record["months_without_floors"] == head.months_without_floors
    words = saturation_words(head, "floor")
    assert f" {head.n_floor_bounds} target inversions sit within 2 standard errors of a benchmark's chance" in words
    assert "enter the frontier fit as upper bounds" in words and "months without." in words


def test_a_target_at_chance_on_one_benchmark_of_a_set_is_read_from_the_others_and_named():
    """The planted row's targets at one benchmark's floor (MATH-hard's, or MMLU's) and informative on the other: the
    floor score leaves their joint inversion, and where the other's inversion lies above the size the floor benchmark's
    law allows at 2σ, each is an upper bound at that size whose reading names the floor benchmark (docs/method.md,
    "Direction by what the score does")."""
    from densing.laws.region import Reason

    table = planted(5, count=120)
    chosen = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "RefB")], since=None)
    data = pooling._prepared(chosen)
    assert data["dropped"][:, list(chosen.benchmarks).index("math_hard")].sum() >= 3
    readings = pooling.point_readings(chosen, data)
    capped = [r for r in readings if r[3] == Reason.CHANCE_CAP]
    labels = list(data["labels"])
    assert capped and all(r[2] == "upper" for r in capped)
    for model, _, _, _, benchmark, _ in capped:  # the benchmark named is one the target is at chance on
        assert data["dropped"][labels.index(model), list(chosen.benchmarks).index(benchmark)]
    assert "math_hard" in {r[4] for r in capped}
    y, kind, reason = pooling._point_readings(chosen, data)
    for r in range(2):
        at = reason[r] == Reason.CHANCE_CAP
        assert np.allclose(y[r][at], data["chance_caps"][r][at] - np.log(data["params"][at]))
