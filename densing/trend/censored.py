"""Lines through points some of which are bounds: censored regression for the density trend.

A censored density is a bound, not a missing value: a score the reference cannot reach at D0
says ρ ≥ x, a score at or below its floor says ρ ≤ x (:func:`densing.laws.bounds.log_density_bounds`).
Each point carries ``kind``: 0 exact, +1 a lower bound (the true ln ρ ≥ y), −1 an upper bound
(the true ln ρ ≤ y).

Two estimators of ln ρ = A·t + B that use bounds as bounds:

- :func:`censored_quantile_lines_weighted`, the q-th regression quantile with censoring (Powell 1986,
  "Censored regression quantiles", J. Econometrics 32:143–155), which minimises

      Σ_i w_i·ρ_q(y_i − g_i(A·t_i + B)),   ρ_q(u) = u·(q − 1[u < 0]),

  with g = min(y_i, ·) for a lower bound (an observation censored at y_i from above: the true value is ≥ y_i),
  max(y_i, ·) for an upper bound and the identity for an exact point; w_i a point's weight (its count in a
  bootstrap resample, 1 otherwise).
- :func:`densing.trend.tobit.tobit_line`, the Gaussian censored-regression likelihood (Tobin 1958; Amemiya
  1973), in its own module.

Under a location-shift model (ln ρ_i = A·t_i + B + ε_i, ε i.i.d.) every quantile line and the
mean line share the slope A, so both estimate the same doubling time ln 2 / A.

**The objective is a linear programme.** With r = y − (A·t + B), an exact point costs ρ_q(r), a lower bound
q·max(r, 0) (only a line below it pays), an upper bound (1 − q)·max(−r, 0): each term is convex and piecewise
linear in (A, B), with its kink on the line through the point (only exact points would carry a censoring point in
Powell's general setting, which makes his objective non-convex; here they do not). So the minimum lies at a vertex —
a line through two points of distinct dates — and a vertex from which neither of its two edges descends is the
global minimum. The solver walks the vertices (the simplex method of Barrodale &
Roberts 1973 for two coefficients): from a pivot point p it finds the best line through p exactly — along the lines
through p, point i's term is |t_i − t_p|·(its cost) of the slope's distance to s_i = (y_i − y_p)/(t_i − t_p), so
the best slope is a weighted quantile of the s_i (:func:`_rotate`) — then pivots on the point that line reaches,
and stops when the rotation about the new pivot no longer lowers the objective (both edges of the vertex then rise).
Every step is one array computation over all problems still walking, so a bootstrap's draws are solved together;
each row's arithmetic is its own, so a problem's line is the same number solved alone or among others of its size.
``tests/trend/test_censored.py`` holds it to an exhaustive search (every line through two
points) on random and planted problems, bounds, ties in date and resampling weights included.
"""
from __future__ import annotations

import math

import numpy as np

from densing.laws.bounds import LOWER, UPPER

#: The most pivots of one walk (each strictly lowers the objective; a bootstrap's walks take 1–4).
MAX_PIVOTS = 500


def _costs(kind: np.ndarray, weight: np.ndarray, quantile: float) -> tuple[np.ndarray, np.ndarray]:
    """(above, below): a point's cost per unit of residual r = y − fit where r > 0 and where r < 0 — q and 1 − q for
    an exact point, q and 0 for a lower bound, 0 and 1 − q for an upper bound — times its weight."""
    above = np.where(kind == UPPER, 0.0, quantile) * weight
    below = np.where(kind == LOWER, 0.0, 1.0 - quantile) * weight
    return above, below


def _cost_of(t, y, above, below, slope: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    """Σ_i above_i·max(r_i, 0) + below_i·max(−r_i, 0), r = y − (A·t + B), per row: Powell's objective (module
    docstring) with the costs of :func:`_costs`."""
    residual = y - (slope[:, None] * t + intercept[:, None])
    return np.sum(np.where(residual > 0, above * residual, -below * residual), axis=1)


def _rotate(t, y, above, below, valid, pivot: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The best line through each row's ``pivot`` point: (A, B, the other point it passes through).

    Along the lines through p (slope A), point i's residual is d_i·(s_i − A), d_i = t_i − t_p, so its term is
    up_i·max(s_i − A, 0) + down_i·max(A − s_i, 0) with (up, down) = |d_i|·(above, below) for d_i > 0 and
    |d_i|·(below, above) for d_i < 0; a point of p's date does not move. The sum's derivative in A,
    Σ_{s_i < A} down_i − Σ_{s_i > A} up_i, first reaches 0 at the s_(k) where the cumulative (up + down) of the
    sorted s reaches Σ up: that slope is the best (the smallest such where the minimum is flat)."""
    rows = np.arange(t.shape[0])
    t_p, y_p = t[rows, pivot][:, None], y[rows, pivot][:, None]
    d = t - t_p
    moving = valid & (d != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(moving, (y - y_p) / d, np.inf)  # a point that does not move sorts last and weighs nothing
    size = np.abs(d)
    up = np.where(moving, np.where(d > 0, above, below) * size, 0.0)
    down = np.where(moving, np.where(d > 0, below, above) * size, 0.0)
    order = np.argsort(s, axis=1, kind="stable")
    reached = np.cumsum(np.take_along_axis(up + down, order, axis=1), axis=1)
    need = up.sum(axis=1)
    # a relative 1e-12 forgives the rounding of the two sums (else a row whose down-costs are all 0 finds no k)
    k = np.argmax(reached >= (need - 1e-12 * reached[:, -1])[:, None], axis=1)
    other = order[rows, k]
    slope = np.where(moving.any(axis=1), s[rows, other], math.nan)
    return slope, y_p[:, 0] - slope * t_p[:, 0], other


def _first_pivots(t, y, valid, start) -> np.ndarray:
    """Each row's first pivot: the valid point nearest the ``start`` line (A, B), or nearest the mean date without one."""
    if start is not None and all(math.isfinite(v) for v in start):
        gap = np.abs(y - (start[0] * t + start[1]))
    else:
        centre = (t * valid).sum(axis=1) / np.maximum(valid.sum(axis=1), 1)
        gap = np.abs(t - centre[:, None])
    return np.argmin(np.where(valid, gap, np.inf), axis=1)


def censored_quantile_lines_weighted(t, y, kind, weight, quantile: float = 0.9, start=None
                                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, B, pivots) of Powell's censored q-th regression quantile of each row of ``y`` (shape (problems, n)), the
    points weighted by ``weight`` (module docstring: the vertex walk). ``t``, ``y``, ``kind`` and ``weight`` broadcast
    to one shape (problems, n); a point with zero weight, or a non-finite value or kind, does not count. ``start``: a line (A, B)
    near which to begin (a bootstrap passes its point estimate). NaNs where no point has a date of its own to pair with.
    """
    t, y, kind, weight = (np.asarray(a, float) for a in (t, y, kind, weight))
    shape = np.broadcast_shapes(t.shape, y.shape, kind.shape, weight.shape)
    shape = shape if len(shape) == 2 else (1, *shape)
    t, y, kind, weight = (np.broadcast_to(a, shape) for a in (t, y, kind, weight))
    if shape[1] == 0:
        return np.full(shape[0], math.nan), np.full(shape[0], math.nan), np.zeros(shape[0], dtype=np.int64)
    valid = (weight > 0) & np.isfinite(y) & np.isfinite(kind) & np.isfinite(t)
    y, t = np.where(valid, y, 0.0), np.where(valid, t, 0.0)
    above, below = _costs(kind, np.where(valid, weight, 0.0), quantile)
    count = y.shape[0]
    pivot = _first_pivots(t, y, valid, start)
    slope, intercept = np.full(count, math.nan), np.full(count, math.nan)
    best, pivots = np.full(count, math.inf), np.zeros(count, dtype=np.int64)
    live = np.flatnonzero(valid.any(axis=1))
    for _ in range(MAX_PIVOTS):
        if not live.size:
            break
        parts = (t[live], y[live], above[live], below[live])
        a, b, other = _rotate(*parts, valid[live], pivot[live])
        value = _cost_of(*parts, a, b)
        previous = best[live]
        with np.errstate(invalid="ignore"):
            better = np.isfinite(a) & (value < np.where(np.isfinite(previous), previous - 1e-12 * np.abs(previous), np.inf))
        live = live[better]
        slope[live], intercept[live], best[live], pivot[live] = a[better], b[better], value[better], other[better]
        pivots[live] += 1
    return slope, intercept, pivots
