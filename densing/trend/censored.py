"""Lines through points some of which are bounds: censored regression for the density trend.

A censored density is a bound, not a missing value (:func:`densing.laws.bounds.log_density_bounds`): each point carries
``kind``, 0 exact, +1 a lower bound (the true ln ρ ≥ y), −1 an upper bound. Beside the Tobit mean line
(:mod:`densing.trend.tobit`), :func:`censored_quantile_lines_weighted` is the q-th regression quantile with censoring
(Powell 1986, "Censored regression quantiles", J. Econometrics 32:143–155), which minimises

    Σ_i w_i·ρ_q(y_i − g_i(A·t_i + B)),   ρ_q(u) = u·(q − 1[u < 0]),

g = min(y_i, ·) for a lower bound, max(y_i, ·) for an upper bound and the identity for an exact point; w_i a point's
weight. Each term is convex and piecewise linear in (A, B), so the minimum lies at a vertex, a line through two points
of distinct dates; the solver walks the vertices (the simplex method of Barrodale & Roberts 1973 for two
coefficients: :func:`_rotate`, :func:`_cost_and_check`), every problem in one array computation, and
``tests/trend/test_censored.py`` holds it to an exhaustive search.
"""

from __future__ import annotations

import math

import numpy as np

from densing.laws.bounds import LOWER, UPPER

#: The most pivots of one walk (each strictly lowers the objective; a bootstrap's walks take 1–4).
MAX_PIVOTS = 500
#: The most rows one walk solves at once, more in blocks of this many (a row's walk is its own): 2,048 rows × 109
#: targets peak at about 28 MB of temporaries, the public table's HellaSwag row's 9,600 at once at 130 MB.
BLOCK_ROWS = 2048


def _costs(kind: np.ndarray, weight: np.ndarray, quantile: float) -> tuple[np.ndarray, np.ndarray]:
    """(above, below): a point's cost per unit of residual r = y − fit where r > 0 and where r < 0 — q and 1 − q for
    an exact point, q and 0 for a lower bound, 0 and 1 − q for an upper bound — times its weight."""
    above = np.where(kind == UPPER, 0.0, quantile) * weight
    below = np.where(kind == LOWER, 0.0, 1.0 - quantile) * weight
    return above, below


def _cost_and_check(t, y, above, below, slope, intercept, pivot, other, scale) -> tuple[np.ndarray, np.ndarray]:
    """(value, optimal) of each row's line through its points ``pivot`` (p) and ``other`` (q): Powell's objective
    Σ_i above_i·max(r_i, 0) + below_i·max(−r_i, 0), r = y − (A·t + B) (``below`` negated), and whether the vertex is
    certified the unique minimum: with g_i = above_i where r_i > 0, −below_i where r_i < 0, 0 is a subgradient iff
    λ_p ∈ [−below_p, above_p] and λ_q ∈ [−below_q, above_q] solve Σ_{i≠p,q} g_i·(t_i, 1) + λ_p·(t_p, 1) + λ_q·(t_q, 1)
    = 0; certified where both lie inside by more than the sums' rounding (``scale``) and no other point is on it."""
    rows = np.arange(len(slope))
    residual = y - (slope[:, None] * t + intercept[:, None])
    g = np.where(residual > 0, above, below)
    value = np.sum(g * residual, axis=1)
    t_p, t_q = (t[pivot], t[other]) if t.ndim == 1 else (t[rows, pivot], t[rows, other])
    g_p, g_q = g[rows, pivot], g[rows, other]
    flat = g.sum(axis=1) - g_p - g_q
    moment = (g * t).sum(axis=1) - g_p * t_p - g_q * t_q
    optimal = _inside(
        flat,
        moment,
        t_p,
        t_q,
        1e-9,
        scale[:2],
        (below[rows, pivot], above[rows, pivot]),
        (below[rows, other], above[rows, other]),
    )
    size = scale[2] + np.abs(slope) * np.max(np.abs(t), axis=-1) + np.abs(intercept)
    near = np.abs(residual) <= 1e-9 * size[:, None]
    near[rows, pivot] = near[rows, other] = False
    return value, optimal & ~near.any(axis=1)


def _inside(flat, moment, t_p, t_q, factor: float, sums, range_p, range_q) -> np.ndarray:
    """Whether λ_q = (flat·t_p − moment)/(t_q − t_p) and λ_p = −flat − λ_q lie inside ``range_q`` and ``range_p`` by
    more than factor·(Σ(above + below)·(1 + |t_p|/|t_q − t_p|) + Σ(above + below)·|t|/|t_q − t_p|), the two sums
    ``sums`` (:func:`_cost_and_check`'s certificate)."""
    gap = t_q - t_p
    with np.errstate(divide="ignore", invalid="ignore"):
        lam_q = (flat * t_p - moment) / gap
        margin = factor * (sums[0] * (1 + np.abs(t_p) / np.abs(gap)) + sums[1] / np.abs(gap))
    lam_p = -flat - lam_q
    return (
        (lam_p > range_p[0] + margin)
        & (lam_p < range_p[1] - margin)
        & (lam_q > range_q[0] + margin)
        & (lam_q < range_q[1] - margin)
    )


def _rotate(t, y, above, below, out, pivot: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The best line through each row's ``pivot`` point: (A, B, the other point it passes through). Along the lines
    through p, point i's term is up_i·max(s_i − A, 0) + down_i·max(A − s_i, 0), s_i = (y_i − y_p)/(t_i − t_p),
    (up, down) = |d_i|·(above, below) for d_i = t_i − t_p > 0 and |d_i|·(below, above) for d_i < 0; the sum's
    derivative Σ_{s_i < A} down_i − Σ_{s_i > A} up_i first reaches 0 at the s_(k) where the cumulative (up + down) of
    the sorted s reaches Σ up. A point that does not count (``out``) or has p's date gets s = +inf and no weight."""
    count, n = y.shape
    rows = np.arange(count)
    flat = rows * n
    t_p = (t[pivot] if t.ndim == 1 else t[rows, pivot])[:, None]
    y_p = y[rows, pivot][:, None]
    d = t - t_p
    forward = d > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (y - y_p) / d
    still = (d == 0) | out
    s = np.where(still, np.inf, s)
    size = np.abs(d)
    up = np.where(forward, above, below) * size
    down = above * size
    down += below * size  # up + down, the same sum whichever side a point lies on
    order = np.argsort(s, axis=1)
    order += flat[:, None]
    ranked = s.ravel()[order]
    tied = ((ranked[:, 1:] == ranked[:, :-1]) & np.isfinite(ranked[:, 1:])).any(axis=1)
    if tied.any():  # the stable order for rows whose finite values tie, the only rows where the two sorts can differ
        order[tied] = np.argsort(s[tied], axis=1, kind="stable") + flat[tied, None]
    reached = np.cumsum(down.ravel()[order], axis=1)
    need = up.sum(axis=1)
    # a relative 1e-12 forgives the rounding of the two sums (else a row whose down-costs are all 0 finds no k)
    k = np.argmax(reached >= (need - 1e-12 * reached[:, -1])[:, None], axis=1)
    other = order[rows, k]
    slope = np.where(still.all(axis=1), math.nan, s.ravel()[other])
    return slope, y_p[:, 0] - slope * t_p[:, 0], other - flat


def _first_pivots(t, y, valid, start) -> np.ndarray:
    """Each row's first pivot: the valid point nearest the ``start`` line, or the mean date without one."""
    if start is not None and np.all(np.isfinite(start)):
        slope, intercept = (np.asarray(v, float)[..., None] for v in start)
        gap = np.abs(y - (slope * t + intercept))
    else:
        centre = (t * valid).sum(axis=1) / np.maximum(valid.sum(axis=1), 1)
        gap = np.abs(t - centre[:, None])
    return np.argmin(np.where(valid, gap, np.inf), axis=1)


def censored_quantile_lines_weighted(
    t, y, kind, weight, quantile: float = 0.9, start=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, B, pivots) of Powell's censored q-th regression quantile of each row of ``y`` (module docstring), ``t``,
    ``y``, ``kind`` and ``weight`` broadcast to (problems, n); a point of zero weight or a non-finite value does not
    count. ``start``: a line (A, B) to begin near, one or one per problem. NaNs where no two dates pair."""
    return _walk(t, y, kind, weight, quantile, start)[:3]


def _walk(t, y, kind, weight, quantile: float, start) -> tuple[np.ndarray, ...]:
    """:func:`censored_quantile_lines_weighted`'s (A, B, pivots) and each row's vertex: the two points of its line."""
    t, y, kind, weight = (np.asarray(a, float) for a in (t, y, kind, weight))
    shape = np.broadcast_shapes(t.shape, y.shape, kind.shape, weight.shape)
    shape = shape if len(shape) == 2 else (1, *shape)
    if shape[0] > BLOCK_ROWS:  # in blocks of rows: each row's walk is its own arithmetic
        if start is not None:  # a start with any non-finite number is no start for any row (_first_pivots)
            start = (
                tuple(np.broadcast_to(np.asarray(v, float), shape[:1]) for v in start)
                if np.all(np.isfinite(start))
                else None
            )
        cut = [(np.broadcast_to(a, shape) if a.ndim == 2 else a) for a in (t, y, kind, weight)]
        pieces = [
            _walk(
                *(a[low : low + BLOCK_ROWS] if a.ndim == 2 else a for a in cut),
                quantile,
                None if start is None else tuple(v[low : low + BLOCK_ROWS] for v in start),
            )
            for low in range(0, shape[0], BLOCK_ROWS)
        ]
        return tuple(np.concatenate(piece) for piece in zip(*pieces))
    shared = t.ndim == 1 and bool(np.isfinite(t).all())  # one row of dates for every problem: kept as one row
    t, y, kind, weight = (np.broadcast_to(a, shape) for a in (t, y, kind, weight))
    if shape[1] == 0:
        none = np.zeros(shape[0], dtype=np.int64)
        return np.full(shape[0], math.nan), np.full(shape[0], math.nan), none, none, none
    valid = (weight > 0) & np.isfinite(y) & np.isfinite(kind) & np.isfinite(t)
    y, t = np.where(valid, y, 0.0), (t[0] if shared else np.where(valid, t, 0.0))
    above, below = _costs(kind, np.where(valid, weight, 0.0), quantile)
    count = y.shape[0]
    pivot = _first_pivots(t, y, valid, start)
    slope, intercept = np.full(count, math.nan), np.full(count, math.nan)
    best, pivots = np.full(count, math.inf), np.zeros(count, dtype=np.int64)
    first, second = np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
    live = np.flatnonzero(valid.any(axis=1))
    total = above + below
    scale = (total.sum(axis=1), (total * np.abs(t)).sum(axis=1), np.max(np.abs(y), axis=1))
    parts = (y, ~valid, above, below, -below, scale) if live.size == count else None
    for _ in range(MAX_PIVOTS):
        if not live.size:
            break
        if parts is None:  # the rows still walking: their values, the points that do not count, costs and scales
            parts = (y[live], ~valid[live], above[live], below[live], -below[live], tuple(v[live] for v in scale))
        y_l, out_l, above_l, below_l, negated_l, scale_l = parts
        t_l = t if shared else t[live]
        a, b, other = _rotate(t_l, y_l, above_l, below_l, out_l, pivot[live])
        value, optimal = _cost_and_check(t_l, y_l, above_l, negated_l, a, b, pivot[live], other, scale_l)
        previous = best[live]
        with np.errstate(invalid="ignore"):
            better = np.isfinite(a) & (
                value < np.where(np.isfinite(previous), previous - 1e-12 * np.abs(previous), np.inf)
            )
        slope[live[better]], intercept[live[better]] = a[better], b[better]
        first[live[better]], second[live[better]] = pivot[live[better]], other[better]
        best[live[better]], pivot[live[better]] = value[better], other[better]
        pivots[live[better]] += 1
        going = better & ~optimal  # a certified vertex is the minimum: the rotation about q would not lower it
        if not going.all():
            live, parts = live[going], None
    return slope, intercept, pivots, first, second


#: How far inside their ranges a vertex's multipliers must lie, relative to the sums behind them, for a leave-out to
#: keep the vertex (:func:`quantile_lines_left_out`): a hundred times the walk's own certificate's margin.
LEAVE_OUT_MARGIN = 1e-7


def quantile_lines_left_out(
    t, y, kind, quantile: float, groups: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, B, kept): each row's censored quantile line, every point counted once, and for every group of ``groups``
    (n,) (0 … G − 1) whether the row's vertex (p, q) stays the unique minimum without the group's points, (rows, G).

    A group that holds neither p nor q changes the multipliers' sums (:func:`_cost_and_check`) by its own terms only:
    λ_q = (flat·t_p − moment)/(t_q − t_p), λ_p = −flat − λ_q, flat and moment less the group's Σ g_i and Σ g_i·t_i.
    It is kept where both stay inside their ranges by :data:`LEAVE_OUT_MARGIN` of the full sums and no third point
    lies on the line within that margin: the walk without it, from this line, certifies the same slope, to the bit."""
    t, y, kind = np.asarray(t, float), np.asarray(y, float), np.asarray(kind, float)
    groups = np.asarray(groups, np.int64)
    count, n = y.shape
    width = int(groups.max()) + 1 if groups.size else 0
    slope, intercept, _, p, q = _walk(t, y, kind, np.ones((count, n)), quantile, None)
    valid = np.isfinite(y) & np.isfinite(kind) & np.isfinite(t)
    above, below = _costs(kind, valid.astype(float), quantile)
    rows = np.arange(count)
    with np.errstate(invalid="ignore"):
        residual = np.where(valid, y, 0.0) - (slope[:, None] * t + intercept[:, None])
    g = np.where(valid, np.where(residual > 0, above, -below), 0.0)
    g[rows, p] = g[rows, q] = 0.0
    flat = g.sum(axis=1)[:, None] - _group_sums(g, groups, width)
    moment = (g * t).sum(axis=1)[:, None] - _group_sums(g * t, groups, width)
    total = above + below
    inside = _inside(
        flat,
        moment,
        t[p][:, None],
        t[q][:, None],
        LEAVE_OUT_MARGIN,
        (total.sum(axis=1)[:, None], (total * np.abs(t)).sum(axis=1)[:, None]),
        (-below[rows, p][:, None], above[rows, p][:, None]),
        (-below[rows, q][:, None], above[rows, q][:, None]),
    )
    with np.errstate(invalid="ignore"):
        size = np.max(np.where(valid, np.abs(y), 0.0), axis=1) + np.abs(slope) * np.max(np.abs(t)) + np.abs(intercept)
        near = valid & (np.abs(residual) <= LEAVE_OUT_MARGIN * size[:, None])
    near[rows, p] = near[rows, q] = False
    # a point that does not count enters the walk's certificate at y = 0 (its residual −(A·t + B)): one of them on the
    # line leaves the vertex uncertified, a group's members once the group is left out
    with np.errstate(invalid="ignore"):
        at_zero = np.abs(slope[:, None] * t + intercept[:, None]) <= LEAVE_OUT_MARGIN * size[:, None]
    holds = np.zeros((count, width), bool)
    holds[rows, groups[p]] = holds[rows, groups[q]] = True
    holds |= _group_sums(at_zero.astype(float), groups, width) > 0
    single = (p != q) & np.isfinite(slope) & ~near.any(axis=1) & ~(at_zero & ~valid).any(axis=1)
    return slope, intercept, inside & ~holds & single[:, None]


def _group_sums(values: np.ndarray, groups: np.ndarray, width: int) -> np.ndarray:
    """Each row's sum of ``values`` (rows, n) over every group (rows, width)."""
    count = values.shape[0]
    at = (np.arange(count)[:, None] * width + groups[None, :]).ravel()
    return np.bincount(at, weights=values.ravel(), minlength=count * width).reshape(count, width)
