"""The common targets of a row (densing.trend.pooling) on planted worlds: complete cases, every model a target, pooling.

The planted world is studies/heterogeneity_level.py's (its docstring states it); ``late_only`` there scores MATH-hard
only for targets released after a day, at another level than the references'."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from densing.states import LeftOut, ReferenceName
from densing.trend import pooling, selection
from densing.trend.rules import doubling_months
from studies.heterogeneity_level import (  # the planted world, documented there
    SIZES,
    SLOPE,
    joint as _joint,  # each family fitted by the planted law
    planted,
)


def test_a_benchmark_only_late_models_have_makes_no_trend():
    """math_hard only after day 400, at a level 1.0 above the references' (in ln N̂): complete cases recover the slope."""
    table = planted(1, count=120, late_only=400, level_shift=1.0)
    chosen = selection.common_targets(table, [_joint(table, "RefA")], since=None)
    planted_targets = chosen.frame[chosen.frame["family"].str.startswith("T")]
    assert planted_targets["t"].min() > 400  # the complete cases: every target has both scores
    result = pooling.pooled_trend(chosen, n_boot=200, n_boot_share=0, seed=0)
    assert result.slope_ci_low < SLOPE < result.slope_ci_high
    # the models with a missing score are named, with the reason
    assert (chosen.left_out["reason"] == LeftOut.INCOMPLETE).sum() > 0


def test_every_reference_inverts_the_same_targets_and_benchmarks():
    table = planted(2)
    chosen = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "RefB", "RefC")], since=None)
    # each reference's own six members are targets of the row, inverted by the others
    assert chosen.own.sum(axis=1).tolist() == [len(SIZES)] * 3
    assert set(chosen.frame["family"]) >= {"RefA", "RefB", "RefC"}
    with pytest.raises(Exception, match="same benchmarks"):
        selection.common_targets(table, [_joint(table, "RefA"), _joint(table, "RefB", ("mmlu",))], since=None)


def test_references_of_one_row_read_its_scores_under_one_metric():
    from dataclasses import replace

    from densing.errors import InputError
    from densing.laws.inversion import Joint

    table = planted(2)
    other = _joint(table, "RefB")
    other = Joint(tuple(replace(f, metric="acc_norm") for f in other.fits))
    with pytest.raises(InputError, match="under different metrics"):
        selection.common_targets(table, [_joint(table, "RefA"), other], since=None)


def test_a_frontier_family_that_is_a_reference_stays_on_the_frontier():
    """Family Front is released last and far above every target: its members define the frontier at the end.
    As a reference its own members get their densities from the others, so the row keeps them."""
    families = {"RefA": (200, 0.0, 1.0), "RefB": (350, 0.3, 1.0), "Front": (725, 1.5, 1.0)}
    table = planted(3, families=families)
    chosen = selection.common_targets(table, [_joint(table, f) for f in families], since=None)
    result = pooling.pooled_trend(chosen, n_boot=200, n_boot_share=0, seed=0)
    front = chosen.frame["family"].to_numpy() == "Front"
    y = result.y0[2]  # under Front itself: its own members from RefA and RefB on Front's scale
    assert np.all(np.isfinite(y[front]))
    others = y[~front & (chosen.frame["t"].to_numpy() > 600)]
    assert np.median(y[front]) > np.quantile(others[np.isfinite(others)], 0.9)
    # without its members (the old design: a reference never has its own family as targets) Front's slope drops
    assert result.reference_slopes[2] == pytest.approx(result.reference_slopes[0], rel=0.35)


def test_pooling_of_one_common_slope_rejects_at_about_its_level_and_finds_a_twofold_difference():
    """pool_slopes on planted paired draws: three correlated estimates with one common slope are rejected at about
    5%; with one reference at twice the slope nearly always."""
    rng = np.random.default_rng(0)
    cov = np.array([[1.0, 0.7, 0.6], [0.7, 1.0, 0.65], [0.6, 0.65, 1.2]]) * 1e-6
    chol = np.linalg.cholesky(cov)
    base = 7.6e-3
    rejected_same, rejected_double = 0, 0
    reps = 400
    for _ in range(reps):
        draws = base + chol @ rng.standard_normal((3, 400))
        same = base + chol @ rng.standard_normal(3)
        rejected_same += pooling.pool_slopes(same, draws).p_value < 0.05
        double = same * np.array([1.0, 1.0, 2.0])
        rejected_double += pooling.pool_slopes(double, draws).p_value < 0.05
    assert 0.02 < rejected_same / reps < 0.09
    assert rejected_double / reps > 0.95


@pytest.mark.parametrize("references, draws_count, chi2_least", [(16, 200, 0.0), (56, 200, 0.3), (112, 600, 0.3)])
def test_heterogeneity_keeps_its_level_when_the_references_are_many_beside_the_draws(
    references, draws_count, chi2_least
):
    """Σ estimated from K paired draws makes Q Hotelling's T², not χ²: with R references of one common slope (points
    and draws from one equicorrelated Σ) the test rejects at about 5% however large R is beside K. Read against
    χ²(R − 1), the same Q rejects about half of them at R = 56 with K = 200 and at R = 112 with K = 600; and
    Paule–Mandel's target E_Q, not R − 1, gives τ² > 0 in fewer rows. 300 replicates: a 5% rate's binomial SE is
    1.3%."""
    from scipy.special import chdtrc

    rng = np.random.default_rng(3)
    chol = np.linalg.cholesky(0.5 * np.ones((references, references)) + 0.5 * np.eye(references)) * 1e-3
    reps, rejected, by_chi2, spread, above_df = 300, 0, 0, 0, 0
    for _ in range(reps):
        pooled = pooling.pool_slopes(
            7.6e-3 + chol @ rng.standard_normal(references),
            7.6e-3 + chol @ rng.standard_normal((references, draws_count)),
        )
        rejected += pooled.p_value < 0.05
        by_chi2 += chdtrc(pooled.df, pooled.q) < 0.05
        spread += pooled.tau_squared > 0
        above_df += pooled.q > pooled.df
    assert 0.02 < rejected / reps < 0.09
    assert by_chi2 / reps >= chi2_least
    assert spread < above_df


def test_pooled_estimate_and_tau_on_planted_numbers():
    """One common slope: Â is the GLS mean and τ² = 0; spread points beyond Σ: τ² > 0 and I² > 0."""
    draws = np.random.default_rng(1).standard_normal((2, 2000)) * 1e-3
    pooled = pooling.pool_slopes(np.array([1e-2, 1e-2]), draws)
    assert (
        pooled.slope == pytest.approx(1e-2) and pooled.tau_squared == 0.0 and pooled.q == pytest.approx(0.0, abs=1e-9)
    )
    spread = pooling.pool_slopes(np.array([0.0, 1e-2]), draws)
    assert spread.tau_squared > 0 and spread.i_squared > 0.5 and spread.p_value < 1e-3
    assert spread.slope == pytest.approx(5e-3, rel=0.1)


def test_status_names_heterogeneity_and_an_unbounded_interval():
    table = planted(4, families={"RefA": (200, 0.0, 1.0), "Steep": (350, 0.0, 0.5)})
    chosen = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "Steep")], since=None)
    from densing.trend.uncertainty import from_row_trend

    result = from_row_trend(pooling.pooled_trend(chosen, n_boot=200, n_boot_share=0, seed=0))
    months = [doubling_months(s) for s in result.reference_slopes]
    assert months[1] < months[0] / 1.5  # a family of half the shape gives about twice the slope
    from dataclasses import replace

    from densing.present.words import status_words

    status = status_words(replace(result, judged=True))  # the words of a judged row
    assert status.startswith("not measured: its references disagree") and "Q = " in status
    # the words name the draws Q's p-value was read against (T²(df, K − 1)), and the p-value follows from them
    from scipy.special import fdtrc

    k = result.heterogeneity_draws
    assert 0 < k <= result.n_boot and f"Hotelling's T² over {k} draws" in status
    q, df, m = result.heterogeneity_q, result.heterogeneity_df, k - 1
    assert result.heterogeneity_p == pytest.approx(fdtrc(df, m - df + 1, q * (m - df + 1) / (df * m)), rel=1e-12)


def _candidate(family, benchmark, eligible, code="", z=0.0):
    return {
        "kind": "family",
        "family": family,
        "benchmark": benchmark,
        "eligible": eligible,
        "code": code,
        "why": f"{code}: the rule's reason in words" if code else "",
        "held_out_z": z,
    }


def test_set_references_keeps_the_families_its_rules_name():
    """The set's rules (set_references' docstring) on planted candidates: every benchmark present; R1–R3 and R2s pass
    on each; R4r/R4s pass on one; the held-out z's within χ²(B) at 0.95 (5.99 for B = 2)."""
    rows = [
        _candidate("A", "b1", True),
        _candidate("A", "b2", True, z=1.0),
        _candidate("B", "b1", True),
        _candidate("B", "b2", False, "R1"),
        _candidate("C", "b1", False, "R4r"),
        _candidate("C", "b2", False, "R4s"),
        _candidate("D", "b1", False, "R4r", z=2.0),
        _candidate("D", "b2", True, z=1.9),
        _candidate("E", "b1", True),
        _candidate("F", "b1", False, "R5z", z=1.5),
        _candidate("F", "b2", True, z=0.5),
        _candidate("G", "b1", True, z=np.nan),
        _candidate("G", "b2", True),
    ]
    candidates = pd.DataFrame(rows + [{**_candidate("A", "b1", True), "kind": "paper"}])
    assert selection.set_references(candidates, ("b1", "b2")) == {"A": ("b1", "b2"), "F": ("b1", "b2")}
    assert selection.set_references(candidates, ("b1", "b2"), strict=True) == {"A": ("b1", "b2"), "G": ("b1", "b2")}
    assert selection.set_references(candidates, ("b1",)) == {"A": ("b1",), "B": ("b1",), "E": ("b1",), "G": ("b1",)}
    assert selection.set_references(candidates, ("b3",)) == {}


def _same_trend(a, b) -> None:
    """Two pooled trends equal to the bit in every number they report and in their draws."""
    for name in (
        "slope_per_day",
        "intercept",
        "slope_ci_low",
        "slope_ci_high",
        "reference_slopes",
        "reference_ci",
        "weights",
        "shares",
        "sds",
        "failed_draws",
        "n_boot",
    ):
        assert getattr(a, name) == getattr(b, name), name
    np.testing.assert_array_equal(a.draws, b.draws)


def test_a_rule_reads_the_same_numbers_from_draws_made_before_it():
    """pooled_trend with the common targets' paired_draws passed in is pooled_trend drawing them itself (same counts, seed)."""
    table = planted(2)
    chosen = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "RefB", "RefC")], since=None)
    made = pooling.paired_draws(chosen, n_boot=60, n_boot_share=20, seed=5)
    for rule in ("quantile", "all", "envelope"):
        _same_trend(
            pooling.pooled_trend(chosen, rule=rule, n_boot=60, n_boot_share=20, seed=5),
            pooling.pooled_trend(chosen, rule=rule, n_boot=60, n_boot_share=20, seed=5, draws=made),
        )
    with pytest.raises(ValueError, match="61 draws and 20 of each source asked, 60 and 20 made"):
        pooling.pooled_trend(chosen, n_boot=61, n_boot_share=20, draws=made)
    other = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "RefB")], since=None)
    with pytest.raises(ValueError, match="made for other targets"):
        pooling.pooled_trend(other, n_boot=60, n_boot_share=20, draws=made)


def test_the_headline_rules_share_one_set_of_draws_and_the_headline_its_own_numbers():
    """by_rule draws once: the headline rule's numbers are those it draws alone (its draws grown by the same rule, up
    to the same caps); every other rule reads the first
    n_boot_side of the same draws (and the first 25 of each source's), so it is pooled_trend given those draws."""
    from densing.trend.plan import SIDE_SHARE_DRAWS, by_rule
    from densing.trend.uncertainty import from_row_trend

    table = planted(2)
    chosen = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "RefB", "RefC")], since=None)
    found, errors = by_rule(chosen, n_boot=80, n_boot_side=60, seed=3, epoch="2023-02-24")
    assert not errors and set(found) == {"quantile", "all", "envelope"}
    made = pooling.paired_draws(chosen, n_boot=80, n_boot_share=30, seed=3)
    for rule, result in found.items():
        alone = (
            pooling.pooled_trend(chosen, rule=rule, n_boot=80, n_boot_share=30, seed=3, draws_cap=pooling.DRAWS_CAP)
            if rule == "quantile"
            else pooling.pooled_trend(chosen, rule=rule, n_boot=60, n_boot_share=SIDE_SHARE_DRAWS, seed=3, draws=made)
        )
        expected = from_row_trend(alone, epoch="2023-02-24")
        for name in (
            "slope_per_day",
            "slope_ci_low",
            "slope_ci_high",
            "doubling_time_months",
            "doubling_time_months_ci_low",
            "doubling_time_months_ci_high",
            "share_fit",
            "share_score",
            "share_models",
            "share_reference",
        ):
            assert getattr(result, name) == getattr(expected, name), (rule, name)


# --- the verdict's design: families as the unit of sampling, ceilings as bounds, determined ends, influence --------

from hypothesis import given, settings, strategies as st


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["Qwen2", "Llama", "", "nan", "None", "<NA>", " ", "Qwen2 "]),
            st.none(),
            st.just(math.nan),
            st.just(pd.NA),
            st.integers(0, 3),
        ),
        max_size=30,
    )
)
def test_family_clusters_number_families_as_pandas_factorize_does(families):
    """The clusters are pandas' codes of the family names in order of first appearance, a missing family (None, NaN,
    NA, or one of the texts "", "nan", "None", "<NA>") a cluster of its own; any other text, a blank one included,
    is a family."""
    labels = pd.Series(list(families), dtype=object)
    missing = labels.isna() | labels.astype(str).isin(["", "nan", "None", "<NA>"])
    own = pd.Series([f"\x00model {i}" for i in range(len(labels))], dtype=object)
    expected = pd.factorize(labels.astype(str).where(~missing, own))[0]
    clusters = pooling.family_clusters(families)
    assert clusters.dtype == np.intp and clusters.tolist() == expected.tolist()


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=40), st.integers(1, 30), st.integers(0, 2**31))
def test_a_family_draw_counts_every_member_of_a_drawn_family_alike(codes, count, seed):
    """The one-stage family bootstrap (design step 3): members of one family share their count in every draw, each
    draw draws G families (the counts of the families sum to G), and a model with no family is a family of its own."""
    families = [f"f{c}" if c else None for c in codes]
    clusters = pooling.family_clusters(families)
    groups = int(clusters.max()) + 1
    assert groups == len({f for f in families if f}) + sum(f is None for f in families)
    weights = pooling._family_weights(clusters, count, np.random.default_rng(seed))
    assert weights.shape == (count, len(codes))
    for g in range(groups):
        members = weights[:, clusters == g]
        assert np.all(members == members[:, :1])
    first = np.array([np.flatnonzero(clusters == g)[0] for g in range(groups)])
    assert np.all(weights[:, first].sum(axis=1) == groups)


def test_the_family_bootstrap_covers_a_planted_slope_that_resampling_models_misses():
    """Targets clustered by family (a shared gap per family): the model resample understates the slope's spread over
    replicates; the family resample carries it (the coverage study's symptom on a small planted table)."""
    rng = np.random.default_rng(7)
    slope = 0.004
    points, families = [], []
    for f in range(14):
        start, gap = rng.uniform(0, 500), rng.exponential(1.0)
        for _ in range(4):
            t = start + rng.uniform(0, 60)
            points.append((t, slope * t - gap + rng.normal(0, 0.1)))
            families.append(f"F{f}")
    t, y = np.array(points).T
    clusters = pooling.family_clusters(families)
    from densing.trend import rules

    def spread(weights):
        lines = rules.frontier_lines_weighted(
            "quantile", t, np.broadcast_to(y, weights.shape), np.zeros(weights.shape), weights, np.array(families), 0.9
        )
        return float(np.nanstd(lines[:, 0]))

    by_family = spread(pooling._family_weights(clusters, 200, np.random.default_rng(0)))
    by_model = spread(pooling._family_weights(np.arange(len(t)), 200, np.random.default_rng(0)))
    assert by_family > 1.2 * by_model


def test_a_target_at_a_references_ceiling_enters_as_a_lower_bound():
    from densing.laws.bounds import EXACT, LOWER
    from densing.trend.floors import bounded_kind

    scores = np.array([[0.50, 0.30], [0.50, 0.565], [0.70, 0.20]])
    sigma = np.full((3, 2), 0.01)
    caps = np.array([0.80, 0.571])
    near = pooling.at_ceiling(scores, sigma, caps)  # 0.565 ≥ 0.571 − 0.02; 0.70 < 0.78
    assert near.tolist() == [False, True, False]
    kind = bounded_kind(np.array([EXACT, EXACT, LOWER]), near, LOWER)
    assert kind.tolist() == [EXACT, LOWER, LOWER]


def test_an_end_is_determined_where_the_order_statistics_pin_it():
    """end_range: the order statistics at K·q ∓ 1.96·√(K·q·(1 − q)) hold the q-quantile of fresh draws about 95% of
    the time (reseeding), and narrow as the draws grow."""
    rng = np.random.default_rng(3)
    truth = float(np.quantile(rng.normal(size=2_000_000), 0.025))
    held = []
    for _ in range(300):
        low, high = pooling.end_range(rng.normal(size=600), 0.025)
        held.append(low <= truth <= high)
    assert 0.90 <= np.mean(held) <= 0.99
    narrow = pooling.end_range(rng.normal(size=20000), 0.025)
    wide = pooling.end_range(rng.normal(size=200), 0.025)
    assert narrow[1] - narrow[0] < (wide[1] - wide[0]) / 4


def test_the_three_states_and_their_words():
    from types import SimpleNamespace

    from densing.present.words import STATE_WORDS, status_words
    from densing.trend.uncertainty import reasons_of, state_of

    def judged(**fields):
        result = SimpleNamespace(**fields)
        result.state = state_of(result)
        result.reasons = reasons_of(result)
        return result

    base = dict(
        heterogeneity_df=1,
        heterogeneity_p=0.8,
        heterogeneity_draws=600,
        reference_names=(ReferenceName("A"), ReferenceName("B")),
        reference_months={ReferenceName("A"): 4.6, ReferenceName("B"): 3.8},
        heterogeneity_q=0.1,
        slope_ci_low=0.002,
        low_undecided=False,
        high_undecided=False,
        n_boot=600,
        doubling_time_months_ci_low=2.0,
        doubling_time_months_ci_high=4.6,
        months_low_mc_low=1.9,
        months_high_mc_low=4.4,
    )
    for k, state in (
        ({"low_determined": True, "high_determined": True}, "measured"),
        ({"low_determined": True, "high_determined": False}, "bounded"),
        ({"low_determined": False, "high_determined": False}, "not measured"),
        ({"low_determined": True, "high_determined": True, "heterogeneity_p": 0.001}, "not measured"),
    ):
        result = judged(**{**base, **k})
        assert STATE_WORDS[result.state] == state and status_words(result).startswith(state)

    def words(**k):
        return status_words(judged(**{**base, "low_determined": True, **k}))

    assert words(high_determined=True) == "measured, 2.3-fold"  # the interval's ratio high/low beside the state
    assert (
        words(high_determined=False) == "bounded: the upper end is not determined (its interval reaches a zero slope)"
    )
    assert words(high_determined=False, high_undecided=True, n_boot=4800) == (
        "bounded: the upper end is not determined (undecided at 4,800 draws)"
    )


def test_an_end_is_decided_by_the_sign_of_its_quantile_range():
    """Step 5: the slope's 0.025 quantile wholly above 0 over its Monte Carlo range, the upper end is determined; wholly
    at or below 0, not determined; straddling 0, undecided — whatever the range's width."""

    def ends(low):
        return pooling.determined_ends((low, (0.01, 0.011)), 0.001, 0.0105)

    wide = ends((1e-5, 0.002))  # its months range spans far more than 25% of the end: determined all the same
    assert wide["high_determined"] and not wide["high_undecided"] and wide["low_determined"]
    assert wide["months_high_mc_high"] > 4 * wide["months_high_mc_low"]
    closed = ends((-0.002, 0.0))
    assert not closed["high_determined"] and not closed["high_undecided"]
    straddles = ends((-0.001, 0.001))
    assert not straddles["high_determined"] and straddles["high_undecided"]


def _observed(t: np.ndarray, y: np.ndarray) -> selection.CommonTargets:
    from densing.trend.uncertainty import Observed

    frame = pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(t.size)],
            "params": np.nan,
            "t": t,
            "score:y": y,
            "stderr:y": 0.0,
            "score:kind": 0.0,
            "stderr:kind": 0.0,
        }
    )
    return selection.reference_targets(Observed(), frame)


def test_an_undecided_end_doubles_the_draws_and_keeps_the_first():
    """A row whose slope's 0.025 quantile is 0 at its first draws (observed values tilted by that quantile: the
    censored quantile line is equivariant, y + c·t moves every draw's slope by c) is undecided there and doubles its
    draws up to the cap; the doubled set keeps the first draws."""
    rng = np.random.default_rng(0)
    t = np.sort(rng.uniform(0, 700, 40))
    y = 0.002 * t + rng.normal(0, 0.8, t.size)
    base = pooling.pooled_trend(_observed(t, y), n_boot=100, n_boot_share=0, seed=4)
    tilted = _observed(t, y - float(np.quantile(base.draws, 0.025)) * t)
    at_first = pooling.pooled_trend(tilted, n_boot=100, n_boot_share=0, seed=4)
    assert at_first.n_boot == 100 and pooling.undecided(at_first.ends_mc[0])  # no cap: 100 draws, undecided
    grown = pooling.pooled_trend(tilted, n_boot=100, n_boot_share=0, seed=4, draws_cap=800)
    assert grown.n_boot in (200, 400, 800) and np.array_equal(grown.draws[:100], at_first.draws)
    assert grown.n_boot == 800 or not any(map(pooling.undecided, grown.ends_mc))  # stops on a decision or the cap
    decided = pooling.pooled_trend(_observed(t, y + 0.01 * t), n_boot=100, n_boot_share=0, seed=4, draws_cap=800)
    assert decided.n_boot == 100  # decided at the first draws: no more are made
    made = pooling.paired_draws(tilted, n_boot=50, n_boot_share=0, seed=4)
    more = pooling.more_draws(made, 120)
    assert more.n_boot == 120 and np.array_equal(more.main.y[:, :50], made.main.y)


@pytest.mark.parametrize("per_chunk", [1, 7])
def test_draws_too_many_to_hold_give_the_same_numbers_a_chunk_at_a_time(monkeypatch, per_chunk):
    """Draws whose densities exceed DRAW_CELLS keep their random numbers alone and compute their densities again, a
    chunk of ``per_chunk`` draws at a time: every rule's pooled trend and shares, and a row that doubles its draws,
    are those of the densities held at once, to the bit."""
    table = planted(2)
    chosen = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "RefB", "RefC")], since=None)
    rng = np.random.default_rng(0)
    t = np.sort(rng.uniform(0, 700, 40))
    y = 0.002 * t + rng.normal(0, 0.8, t.size)
    base = pooling.pooled_trend(_observed(t, y), n_boot=100, n_boot_share=0, seed=4)
    tilted = _observed(t, y - float(np.quantile(base.draws, 0.025)) * t)  # undecided at 100 draws: it doubles
    rules = ("quantile", "all", "envelope")
    held = [pooling.pooled_trend(chosen, rule=rule, n_boot=40, n_boot_share=10, seed=7) for rule in rules]
    doubled = pooling.pooled_trend(tilted, n_boot=100, n_boot_share=0, seed=4, draws_cap=800)
    assert pooling.paired_draws(chosen, n_boot=40, n_boot_share=10, seed=7).main.y is not None and doubled.n_boot > 100
    monkeypatch.setattr(pooling, "DRAW_CELLS", per_chunk * 3 * len(chosen.frame))
    made = pooling.paired_draws(chosen, n_boot=40, n_boot_share=10, seed=7)
    assert made.main.y is None and all(d.y is None for d in made.shares.values())
    for rule, expected in zip(rules, held):
        _same_trend(expected, pooling.pooled_trend(chosen, rule=rule, n_boot=40, n_boot_share=10, seed=7))
        _same_trend(expected, pooling.pooled_trend(chosen, rule=rule, n_boot=40, n_boot_share=10, seed=7, draws=made))
    monkeypatch.setattr(pooling, "DRAW_CELLS", per_chunk * len(tilted.frame))
    _same_trend(doubled, pooling.pooled_trend(tilted, n_boot=100, n_boot_share=0, seed=4, draws_cap=800))


def test_leaving_a_family_out_is_the_pooled_line_without_its_targets():
    from densing.trend.uncertainty import from_row_trend
    from studies._planted import frontier_line

    table = planted(5)
    chosen = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "RefB")], since=None)
    row = pooling.pooled_trend(chosen, n_boot=50, n_boot_share=0, seed=0)
    influence = row.influence.set_index("family")
    frame = chosen.frame
    family = frame["family"].iloc[-1]
    keep = (frame["family"] != family).to_numpy()
    alone = [
        frontier_line(
            "quantile",
            frame["t"].to_numpy(float)[keep],
            row.y0[r][keep],
            row.kind0[r][keep],
            frame["model"].astype(str).to_numpy()[keep],
            0.9,
        )[0]
        for r in range(2)
    ]
    assert influence.loc[family, "slope_per_day"] == pytest.approx(float(np.dot(row.weights, alone)), rel=1e-9)
    assert influence["n_models"].sum() == len(frame)
    result = from_row_trend(row)
    table_out = result.influence_frame()
    assert set(table_out["family"]) == set(frame["family"])
    moves = table_out["move_months"].abs().to_numpy()
    assert np.all(np.diff(moves[np.isfinite(moves)]) <= 1e-12)  # the largest move first


def test_pooled_trend_declares_what_it_takes():
    from densing.errors import InputError

    table = planted(6)
    chosen = selection.common_targets(table, [_joint(table, "RefA")], since=None)
    for bad in ({"quantile": 1.5}, {"level": 0.0}, {"n_boot": 10**9}, {"seed": -1}):
        with pytest.raises(InputError, match=next(iter(bad))):
            pooling.pooled_trend(chosen, **bad)
    with pytest.raises(InputError, match="targets: expected a row.s common targets"):
        pooling.pooled_trend("not common targets")


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.integers(1, 40), st.floats(0, 1), st.booleans(), st.integers(0, 2**31))
def test_the_offsets_row_median_is_numpys_nanmedian_to_the_bit(rows, width, missing, rounded, seed):
    """The offsets' median per draw (design step 2) is ``np.nanmedian(values, axis=1)`` bit for bit: odd and even
    counts, ties, a row with no value (NaN), values over many magnitudes."""
    import warnings

    rng = np.random.default_rng(seed)
    values = rng.standard_normal((rows, width)) * 10.0 ** rng.uniform(-3, 3, size=(rows, 1))
    values = np.round(values, 1) if rounded else values
    values[rng.random(values.shape) < missing] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.nanmedian(values, axis=1)
    got = selection.row_medians(values, np.sum(~np.isnan(values), axis=1))
    assert np.array_equal(got, expected, equal_nan=True)


def test_a_row_grown_past_what_it_holds_computes_each_draws_densities_once(monkeypatch):
    """A row that doubles its draws past DRAW_CELLS computes the densities of each draw once: the draws it adds keep
    theirs for their slopes (pooling._grown), and its numbers are those of the densities held at once."""
    rng = np.random.default_rng(0)
    t = np.sort(rng.uniform(0, 700, 40))
    y = 0.002 * t + rng.normal(0, 0.8, t.size)
    base = pooling.pooled_trend(_observed(t, y), n_boot=100, n_boot_share=0, seed=4)
    tilted = _observed(t, y - float(np.quantile(base.draws, 0.025)) * t)  # undecided at 100 draws: it doubles
    held = pooling.pooled_trend(tilted, n_boot=100, n_boot_share=0, seed=4, draws_cap=800)
    assert held.n_boot > 100
    monkeypatch.setattr(pooling, "DRAW_CELLS", 150 * len(tilted.frame))  # the first 100 held, no doubled set
    computed = []
    densities = pooling._densities

    def counted(common, data, draws):
        computed.append(len(draws))
        return densities(common, data, draws)

    monkeypatch.setattr(pooling, "_densities", counted)
    grown = pooling.pooled_trend(tilted, n_boot=100, n_boot_share=0, seed=4, draws_cap=800)
    _same_trend(held, grown)
    assert sum(computed) == grown.n_boot
