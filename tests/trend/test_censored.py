"""Censored regression recovers a planted slope when part of the data are bounds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from densing.laws.bounds import EXACT, LOWER, UPPER
from densing.trend.censored import censored_quantile_lines_weighted
from densing.trend.tobit import tobit_line, tobit_lines_weighted

SLOPE, INTERCEPT, SIGMA = 0.004, 1.0, 0.5


def powell_objective(t, y, kind, slope: float, intercept: float, quantile: float) -> float:
    """Powell's objective of the line A·t + B, every point of weight 1, from its definition (densing.trend.censored's
    docstring): with r = y − (A·t + B), an exact point costs ρ_q(r), a lower bound q·max(r, 0), an upper bound
    (1 − q)·max(−r, 0)."""
    residual = np.asarray(y, float) - (slope * np.asarray(t, float) + intercept)
    kind = np.asarray(kind)
    above = np.where(kind == UPPER, 0.0, quantile)
    below = np.where(kind == LOWER, 0.0, 1.0 - quantile)
    return float(np.sum(np.where(residual > 0, above * residual, -below * residual)))


def exhaustive_censored_quantile_line(t, y, kind, quantile: float = 0.9) -> tuple[float, float]:
    """The global minimum of Powell's objective by trying every line through two points of distinct dates (a minimum
    of the piecewise-linear objective lies on such a vertex); O(n³), the solver's reference."""
    t, y = np.asarray(t, float), np.asarray(y, float)
    i, j = np.triu_indices(t.size, 1)
    keep = t[i] != t[j]
    i, j = i[keep], j[keep]
    slopes = (y[j] - y[i]) / (t[j] - t[i])
    intercepts = y[i] - slopes * t[i]
    costs = [powell_objective(t, y, kind, a, b, quantile) for a, b in zip(slopes, intercepts)]
    best = int(np.argmin(costs))
    return float(slopes[best]), float(intercepts[best])


def censored_quantile_line(t, y, kind, quantile: float = 0.9) -> tuple[float, float, int]:
    """The solver on one problem, every point of weight 1: (A, B, pivots)."""
    slope, intercept, pivots = censored_quantile_lines_weighted(t, np.asarray(y, float)[None], kind, 1.0, quantile)
    return float(slope[0]), float(intercept[0]), int(pivots[0])


def _planted(seed: int, n: int = 400, cap: float = 2.6, floor: float = 0.2):
    """ln ρ = A·t + B + σ·ε, then values above ``cap`` become lower bounds at cap, below ``floor`` upper bounds."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 600, n)
    y = SLOPE * t + INTERCEPT + SIGMA * rng.standard_normal(n)
    kind = np.where(y > cap, LOWER, np.where(y < floor, UPPER, EXACT))
    return t, np.clip(y, floor, cap), kind


def test_tobit_recovers_the_planted_line_with_a_third_of_the_points_censored():
    t, y, kind = _planted(0)
    assert (kind != EXACT).mean() > 0.25
    slope, intercept, sigma = tobit_line(t, y, kind)
    assert slope == pytest.approx(SLOPE, rel=0.08)
    assert intercept == pytest.approx(INTERCEPT, abs=0.1)
    assert sigma == pytest.approx(SIGMA, rel=0.1)
    # treating the bounds as values flattens the slope: the censoring is what the likelihood repairs
    naive = np.polyfit(t, y, 1)[0]
    assert naive < 0.9 * SLOPE


@pytest.mark.parametrize("start", [None, (SLOPE, INTERCEPT)])
def test_tobit_rows_solved_together_are_each_rows_tobit_line(start):
    """tobit_lines_weighted (Newton on every row at once) against tobit_line on each row's points repeated: the same
    optimum to L-BFGS-B's tolerance; rows with few exact points, and a resample's zero counts, included."""
    t, y0, kind0 = _planted(4, n=60)
    rng = np.random.default_rng(9)
    rows = 25
    y = y0 + 0.1 * rng.standard_normal((rows, t.size))
    kind = np.tile(kind0, (rows, 1)).astype(float)
    kind[0, 3:] = LOWER  # three exact points, the rest lower bounds: the start through all points
    kind[1, 5] = np.nan  # an unusable point
    weight = np.stack([np.bincount(rng.integers(t.size, size=t.size), minlength=t.size) for _ in range(rows)])
    weight[2] = 1
    slope, intercept, sigma = tobit_lines_weighted(t, y, kind, weight, start)
    for r in range(rows):
        index = np.repeat(np.arange(t.size), weight[r])
        index = index[np.isfinite(kind[r, index])]
        expected = tobit_line(t[index], y[r, index], kind[r, index].astype(int), start)
        np.testing.assert_allclose((slope[r], intercept[r], sigma[r]), expected, rtol=1e-6, atol=1e-9)
    # a row whose steps do not settle is tobit_line's own answer
    fallback = tobit_lines_weighted(t, y[2:3], kind[2:3], weight[2:3], start, max_iter=0)
    assert np.array_equal(np.ravel(fallback), tobit_line(t, y[2], kind[2].astype(int), start))


def test_tobit_rows_recover_the_planted_line():
    t, y, kind = _planted(0)
    slope, intercept, sigma = tobit_lines_weighted(t, y[None], kind[None].astype(float), np.ones((1, t.size)))
    assert slope[0] == pytest.approx(SLOPE, rel=0.08) and intercept[0] == pytest.approx(INTERCEPT, abs=0.1)
    assert sigma[0] == pytest.approx(SIGMA, rel=0.1)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_powell_median_recovers_the_planted_slope(seed):
    t, y, kind = _planted(seed, cap=3.3)
    assert 0.05 < (kind == LOWER).mean() < 0.2
    slope, intercept, _ = censored_quantile_line(t, y, kind, 0.5)
    naive, _, _ = censored_quantile_line(t, y, np.zeros_like(kind), 0.5)
    assert slope == pytest.approx(SLOPE, rel=0.1)
    # Powell's criterion: the censored line is at least as good as the line with bounds as values
    naive_intercept = censored_quantile_line(t, y, np.zeros_like(kind), 0.5)[1]
    assert (
        powell_objective(t, y, kind, slope, intercept, 0.5)
        <= powell_objective(t, y, kind, naive, naive_intercept, 0.5) + 1e-9
    )


def test_powell_quantile_line_is_not_identified_above_the_bounds():
    """Where the q-line runs above the bounds (saturation), the criterion is flat there and the slope
    comes out low: the saturation check exists because of this (densing.trend.checks)."""
    t, y, kind = _planted(1, cap=2.6)
    slope = censored_quantile_line(t, y, kind, 0.9)[0]
    assert slope < 0.6 * SLOPE


def test_bounds_the_line_satisfies_do_not_move_it():
    rng = np.random.default_rng(3)
    t = np.linspace(0, 500, 60)
    y = 0.01 * t + 0.3 * rng.standard_normal(60)
    kind = np.zeros(60, int)
    exact = censored_quantile_line(t, y, kind, 0.5)[:2]
    # add lower bounds far below the line: they carry no information beyond "it is above here"
    t2 = np.concatenate([t, [100.0, 300.0]])
    y2 = np.concatenate([y, [-10.0, -10.0]])
    kind2 = np.concatenate([kind, [LOWER, LOWER]])
    assert censored_quantile_line(t2, y2, kind2, 0.5)[:2] == pytest.approx(exact)


@settings(max_examples=25, deadline=None)
@given(st.floats(-0.01, 0.01), st.floats(-2, 2), st.integers(0, 10_000))
def test_tobit_without_censoring_is_ordinary_least_squares(slope, intercept, seed):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 800, 50)
    y = slope * t + intercept + 0.4 * rng.standard_normal(50)
    fitted = tobit_line(t, y, np.zeros(50, int))
    assert fitted[0] == pytest.approx(np.polyfit(t, y, 1)[0], abs=1e-6)


def test_the_audit_cases_reach_the_global_optimum():
    """pile_hellaswag and pile_mean at D0 = 0.3T: the solver stopped early before (not finite; 9.85 vs ~11.9 months)."""
    from densing.data import read_results
    from densing.laws.density import point_densities
    from densing.laws.inversion import PerBenchmark
    from densing.laws.reference_fit import ReferenceFit
    from densing.trend.rules import doubling_days
    from densing.trend.targets import trend_targets

    table = read_results("results/public_models.csv")
    months = {}
    for name in ("pile_hellaswag_composed", "pile_mean_composed"):
        inversion = PerBenchmark(ReferenceFit.load(f"reference_fits/{name}.json"), 3e11)
        rows, _ = trend_targets(table, inversion, since="2023-02-24")
        y, kind = point_densities(rows, inversion)
        ok = np.isfinite(y) & np.isfinite(kind)
        t, y, kind = rows["t"].to_numpy(float)[ok], y[ok], kind[ok].astype(int)
        slope, intercept, _ = censored_quantile_line(t, y, kind, 0.9)
        best = exhaustive_censored_quantile_line(t, y, kind, 0.9)
        assert powell_objective(t, y, kind, slope, intercept, 0.9) <= powell_objective(t, y, kind, *best, 0.9) + 1e-9
        months[name] = doubling_days(slope) / (365.25 / 12)
    assert np.isfinite(months["pile_hellaswag_composed"])
    assert months["pile_mean_composed"] == pytest.approx(11.9, abs=0.05)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 60))
def test_the_vertex_walk_finds_the_exhaustive_optimum(seed, n):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 600, n)
    y = 0.005 * t + rng.normal(0, 1, n)
    kind = rng.choice([EXACT, EXACT, EXACT, LOWER, UPPER], n)

    slope, intercept, _ = censored_quantile_line(t, y, kind, 0.9)
    best = exhaustive_censored_quantile_line(t, y, kind, 0.9)
    assert powell_objective(t, y, kind, slope, intercept, 0.9) <= powell_objective(t, y, kind, *best, 0.9) + 1e-9


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(4, 40), draws=st.integers(1, 12), start=st.booleans())
def test_weighted_rows_reach_the_optimum_of_their_points_repeated(seed, n, draws, start):
    """A bootstrap's resamples as counts: each row's line is the exhaustive optimum over its points repeated (ties in
    date, bounds of both kinds, zero counts, a start line or none)."""
    from densing.trend.censored import censored_quantile_lines_weighted

    rng = np.random.default_rng(seed)
    t = np.round(rng.uniform(0, 600, n), -1)
    y = 0.004 * t + rng.normal(0, 1, (draws, n))
    kind = rng.choice([EXACT, EXACT, EXACT, LOWER, UPPER], (draws, n))
    weight = np.stack([np.bincount(rng.integers(n, size=n), minlength=n) for _ in range(draws)])
    slope, intercept, _ = censored_quantile_lines_weighted(t, y, kind, weight, 0.9, (0.004, 0.0) if start else None)
    for k in range(draws):
        index = np.repeat(np.arange(n), weight[k])
        if np.ptp(t[index]) == 0:
            assert np.isnan(slope[k])
            continue
        best = exhaustive_censored_quantile_line(t[index], y[k, index], kind[k, index], 0.9)
        assert (
            powell_objective(t[index], y[k, index], kind[k, index], slope[k], intercept[k], 0.9)
            <= powell_objective(t[index], y[k, index], kind[k, index], *best, 0.9) + 1e-9
        )


def test_a_planted_line_through_exact_points_is_found_whatever_the_start():
    """Points on a line, bounds the line satisfies: the objective is 0 only on the planted line."""
    from densing.trend.censored import censored_quantile_lines_weighted

    t = np.linspace(0, 700, 30)
    y = 0.003 * t - 1.0
    kind = np.zeros(30)
    kind[::5] = LOWER
    y = np.where(kind == LOWER, y - 0.5, y)  # lower bounds under the line: satisfied, cost 0
    for start in (None, (0.0, 0.0), (-1.0, 50.0)):
        slope, intercept, _ = censored_quantile_lines_weighted(t, y[None], kind, 1.0, 0.9, start)
        assert slope[0] == pytest.approx(0.003, rel=1e-9) and intercept[0] == pytest.approx(-1.0, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 30), draws=st.integers(1, 8))
def test_dates_given_once_or_per_row_give_the_same_lines_to_the_bit(seed, n, draws):
    """One row of dates serves every problem as the same dates repeated per row do (the solver keeps a shared row of
    dates as one row; a date that is not finite leaves its point out either way)."""
    from densing.trend.censored import censored_quantile_lines_weighted

    rng = np.random.default_rng(seed)
    t = np.round(rng.uniform(0, 600, n), -1)
    y = 0.004 * t + rng.normal(0, 1, (draws, n))
    kind = rng.choice([EXACT, EXACT, LOWER, UPPER], (draws, n))
    weight = rng.integers(0, 3, (draws, n)).astype(float)
    for dates in (t, np.where(rng.random(n) < 0.2, np.nan, t)):
        once = censored_quantile_lines_weighted(dates, y, kind, weight, 0.9)
        per_row = censored_quantile_lines_weighted(np.broadcast_to(dates, y.shape).copy(), y, kind, weight, 0.9)
        for a, b in zip(once, per_row):
            assert np.array_equal(a, b, equal_nan=True)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(3, 30),
    draws=st.integers(2, 40),
    block=st.integers(1, 9),
    start=st.sampled_from(["none", "numbers", "rows", "a row not finite"]),
    shared=st.booleans(),
)
def test_rows_solved_in_blocks_equal_the_rows_solved_at_once_to_the_bit(seed, n, draws, block, start, shared):
    """Above ``BLOCK_ROWS`` rows the walk solves them in blocks: every output of every row is the one-call walk's
    (dates once or per row, starts as numbers, per row, or with a row not finite: then no row has a start)."""
    from densing.trend import censored

    rng = np.random.default_rng(seed)
    t = np.round(rng.uniform(0, 600, n), -1)
    dates = t if shared else np.broadcast_to(t, (draws, n)).copy()
    y = 0.004 * t + rng.normal(0, 1, (draws, n))
    kind = rng.choice([EXACT, EXACT, LOWER, UPPER], (draws, n))
    weight = rng.integers(0, 3, (draws, n)).astype(float)
    lines = {
        "none": None,
        "numbers": (0.004, 0.0),
        "rows": (rng.normal(0.004, 0.002, draws), rng.normal(0, 1, draws)),
        "a row not finite": (np.where(np.arange(draws) == draws // 2, np.nan, 0.004), np.zeros(draws)),
    }[start]
    at_once = censored._walk(dates, y, kind, weight, 0.9, lines)
    whole, censored.BLOCK_ROWS = censored.BLOCK_ROWS, block
    try:
        in_blocks = censored._walk(dates, y, kind, weight, 0.9, lines)
    finally:
        censored.BLOCK_ROWS = whole
    for a, b in zip(at_once, in_blocks):
        assert a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000), n=st.integers(4, 25), quantile=st.sampled_from([0.1, 0.5, 0.9]), bounds=st.booleans()
)
def test_the_vertex_certificate_holds_at_the_minimum_and_nowhere_above_it(seed, n, quantile, bounds):
    """The walk's early stop (``_cost_and_check``): a vertex it certifies is the exhaustive minimum (every line through
    two points of distinct dates), bounds or not; where every point is exact and one vertex is the minimum, that vertex
    is certified (a bound's multiplier may sit at the end of its range, where nothing is certified and the rotation
    decides); the value it returns is Powell's objective."""
    from densing.trend.censored import _cost_and_check, _costs

    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 600, n)
    y = 0.004 * t + rng.normal(0, 1, n)
    kind = rng.choice([EXACT, EXACT, EXACT, LOWER, UPPER] if bounds else [EXACT], n).astype(float)
    above, below = _costs(kind, np.ones(n), quantile)
    total = above + below
    scale = (total.sum()[None], (total * np.abs(t)).sum()[None], np.max(np.abs(y))[None])
    lines = []
    for p in range(n):
        for q in range(n):
            if t[q] != t[p]:
                slope = (y[q] - y[p]) / (t[q] - t[p])
                lines.append((powell_objective(t, y, kind, slope, y[p] - slope * t[p], quantile), p, q, slope))
    lowest = min(v for v, *_ in lines)
    for value, p, q, slope in lines:
        got, certified = _cost_and_check(
            t,
            y[None],
            above[None],
            -below[None],
            np.array([slope]),
            np.array([y[p] - slope * t[p]]),
            np.array([p]),
            np.array([q]),
            scale,
        )
        assert got[0] == pytest.approx(value, rel=1e-9, abs=1e-12)
        if certified[0]:
            assert value <= lowest + 1e-9 * (1 + abs(lowest))
    best = [(p, q) for value, p, q, _ in lines if value <= lowest + 1e-12 * (1 + abs(lowest))]
    if not bounds and len({frozenset(v) for v in best}) == 1:  # one vertex is the minimum: certified from either end
        for p, q in best:
            slope = (y[q] - y[p]) / (t[q] - t[p])
            _, certified = _cost_and_check(
                t,
                y[None],
                above[None],
                -below[None],
                np.array([slope]),
                np.array([y[p] - slope * t[p]]),
                np.array([p]),
                np.array([q]),
                scale,
            )
            assert certified[0]


def test_the_inverse_mills_ratio_is_finite_and_right_from_the_far_tail_to_the_far_side():
    """tobit._mills: φ(s)/Φ(s) against √(2/π)/erfcx(−s/√2) on s from −10¹⁵⁰ to 40 (relative 10⁻⁸ where e^(…) keeps
    its digits, 10⁻¹² beyond FAR_TAIL), without a floating-point warning; above FAR_TAIL the same bits as the one
    expression e^(−s²/2 − ln √(2π) − ln Φ(s)) that the Tobit lines used alone."""
    import warnings

    from scipy import special

    from densing.trend.tobit import FAR_TAIL, _mills

    s = np.concatenate([-np.logspace(150, 0, 300), np.linspace(-1, 40, 200)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = _mills(s, special.log_ndtr(s))
    truth = np.sqrt(2 / np.pi) / special.erfcx(-s / np.sqrt(2))
    assert np.all(np.isfinite(found))
    assert np.allclose(found[s < FAR_TAIL], truth[s < FAR_TAIL], rtol=1e-12, atol=0)
    near = s >= FAR_TAIL
    assert np.allclose(found[near], truth[near], rtol=1e-8, atol=1e-300)
    alone = np.exp(-0.5 * s[near] * s[near] - 0.5 * np.log(2 * np.pi) - special.log_ndtr(s[near]))
    assert np.array_equal(found[near], alone)
