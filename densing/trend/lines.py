"""Frontier selection (envelope, quantile, all) and one line fit with its bootstrap over models."""
from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from densing.errors import FitError, InputError
from densing.trend.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, LN2, MIN_POINTS
from densing.trend.scope import parse_epoch, prepare, days_since

# --------------------------------------------------------------------------------------------
# frontier selection and one fit
# --------------------------------------------------------------------------------------------


def envelope_index(days: np.ndarray, y: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Indices of the record-setters, in date order (rule in the module docstring)."""
    order = np.lexsort((labels.astype(str), -y, days))  # by date, then y desc, then name
    sorted_days = days[order]
    first_of_date = np.ones(len(order), dtype=bool)
    first_of_date[1:] = sorted_days[1:] != sorted_days[:-1]
    best_of_date = order[first_of_date]  # one model per date: its highest (tie: first name)
    y_best = y[best_of_date]
    earlier_max = np.concatenate([[-np.inf], np.maximum.accumulate(y_best)[:-1]])
    return best_of_date[y_best > earlier_max].astype(int)


def envelope_models(frame: pd.DataFrame) -> tuple[str, ...]:
    """The models on the density envelope of ``frame``, in release order.

    A model is on the envelope iff it has the highest density of its release date (equal
    densities on one date: the alphabetically first name) and its density is strictly greater
    than every density released on an earlier date (Xiao et al. 2024, §3, Fig. 1 frontier).
    """
    points, _ = prepare(frame, value_column="density", date_column="release_date",
                         label_column="model", source="densities", unique_labels=True, sign=1.0)
    days = days_since(points.dates, parse_epoch(DEFAULT_EPOCH))
    return tuple(points.labels[envelope_index(days, points.y, points.labels)])


def select_frontier(method: str, days: np.ndarray, y: np.ndarray, labels: np.ndarray) -> np.ndarray:
    if method == "envelope":
        return envelope_index(days, y, labels)
    return np.argsort(days, kind="stable")


def check_fittable(t: np.ndarray, what: str) -> None:
    if len(t) < MIN_POINTS:
        raise FitError(f"{what}: {len(t)} point(s); a trend line needs at least {MIN_POINTS}")
    if np.unique(t).size < 2:
        raise FitError(f"{what}: all points share one release date; the slope is undefined")


def quantreg(y: np.ndarray, design: np.ndarray, quantile: float) -> tuple[Any, str]:
    """QuantReg fit whose standard errors are finite if any bandwidth rule gives them.

    statsmodels' default Hall–Sheather bandwidth gives NaN standard errors when q ± h leaves
    (0, 1) (small n, high q); fall back to Bofinger, then Chamberlain.
    """
    from densing import _sm as sm

    for bandwidth in ("hsheather", "bofinger", "chamberlain"):
        result = sm.QuantReg(y, design).fit(q=quantile, bandwidth=bandwidth)
        if np.all(np.isfinite(np.asarray(result.bse))):
            break
    return result, bandwidth


@dataclass(frozen=True, eq=False)
class LineFit:
    slope: float  # per time unit
    intercept: float
    r_squared: float
    slope_ci: tuple[float, float]
    warnings: tuple[str, ...]


def fit_line(method: str, t: np.ndarray, y: np.ndarray, quantile: float, alpha: float) -> LineFit:
    """y = A·t + B by OLS (envelope), OLS+HC3 (all) or QuantReg(q) (quantile)."""
    from densing import _sm as sm

    # Fit on standardised time z = (t − mean)/sd so the design, and any iterative solver's
    # path, is the same whatever the epoch and unit; A = β_z / sd, B = α_z − A·mean.
    centre, scale = float(np.mean(t)), float(np.std(t))
    design = sm.add_constant((t - centre) / scale, has_constant="add")
    caught: list[str] = []
    notes: list[str] = []
    try:
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            if method == "quantile":
                result, bandwidth = quantreg(y, design, quantile)
                if bandwidth != "hsheather":
                    notes.append(f"QuantReg standard errors use the {bandwidth} bandwidth "
                                 "(Hall–Sheather gave NaN)")
                r_squared = float(result.prsquared)
            elif method == "all":
                result = sm.OLS(y, design).fit(cov_type="HC3", use_t=True)
                r_squared = float(result.rsquared)
            else:
                result = sm.OLS(y, design).fit()
                r_squared = float(result.rsquared)
            low, high = np.asarray(result.conf_int(alpha=alpha))[1] / scale
        caught = [str(r.message) for r in records]
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise FitError(f"{method} fit failed: {exc}") from exc
    level, slope_z = (float(v) for v in np.asarray(result.params))
    slope = slope_z / scale
    intercept = level - slope * centre
    if not (math.isfinite(slope) and math.isfinite(intercept)):
        raise FitError(f"{method} fit gave a non-finite slope or intercept")
    return LineFit(slope, intercept, r_squared, (float(low), float(high)), tuple(dict.fromkeys(notes + caught)))


@functools.lru_cache(maxsize=256)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The index pairs (i, j), i < j, of n points (kept per n: the bootstrap asks for the same n many times)."""
    first, second = np.triu_indices(n, 1)
    first.flags.writeable = second.flags.writeable = False
    return first, second


ARITY = 64
_STEPS = np.arange(ARITY, dtype=float)


def quantile_slope(t: np.ndarray, y: np.ndarray, quantile: float) -> float:
    """Slope A of the q-th regression quantile y ≈ A·t + B (Koenker & Bassett 1978).

    Profiles out the intercept: for a given A the best B is the q-quantile of y − A·t, so A
    minimises the convex, piecewise-linear f(A) = Σ ρ_q(r − Q_q(r)), r = y − A·t, with
    ρ_q(u) = u·(q − 1[u < 0]). Its kinks, and so its minimiser (a vertex of the linear programme),
    are pairwise slopes (y_j − y_i)/(t_j − t_i): a binary search over the sorted pairwise slopes
    (a 64-ary search, f evaluated at 64 candidates at once) finds the exact minimiser (the leftmost
    one where f is flat) in ~log64(n²) vectorised steps. Used for the bootstrap, where statsmodels'
    IRLS solver (the point estimate's) costs ~20× more per draw. One row of :func:`quantile_slopes`.
    """
    return float(quantile_slopes(np.asarray(t, float)[None, :], np.asarray(y, float)[None, :], quantile)[0])


def quantile_slopes(t: np.ndarray, y: np.ndarray, quantile: float) -> np.ndarray:
    """:func:`quantile_slope` of each row of ``t`` and ``y`` (shape (rows, n)), the rows searched together.

    Every row's arithmetic is the one-row search's (pairwise slopes, sort, the 64-ary search's grid, f summed
    along a row of n), so a row's slope is the same number solved alone or in a batch; the batch saves the
    per-call overhead that dominates at the bootstrap's sizes (n ≈ 100).
    """
    rows, n = y.shape
    first, second = _pairs(n)
    dt = t[:, second] - t[:, first]
    keep = dt != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        # each pair of distinct dates once; + 0.0 writes a zero slope as +0.0 whichever way round the pair is taken
        slopes = (y[:, second] - y[:, first]) / dt + 0.0
    slopes[~keep] = np.nan  # sorted last, never a candidate
    candidates = np.sort(slopes, axis=1)  # repeated values change nothing
    count = keep.sum(axis=1)
    k = max(math.ceil(quantile * n) - 1, 0)  # the inverted-CDF q-quantile is the k-th smallest

    def check_loss(which: np.ndarray, at: np.ndarray) -> np.ndarray:
        residual = y[which, None, :] - at[:, :, None] * t[which, None, :]
        residual = residual - np.partition(residual, k, axis=2)[:, :, k:k + 1]
        return np.sum(residual * (quantile - (residual < 0)), axis=2)

    # f is convex over the sorted candidates: a k-ary search evaluates it at up to 64 of them at once
    # and keeps the bracket around the leftmost smallest value, ending with every candidate left
    low, high = np.zeros(rows, dtype=np.int64), count.astype(np.int64) - 1
    while True:
        wide = np.flatnonzero(high - low > ARITY)
        if not wide.size:
            break
        lo, hi = low[wide], high[wide]
        # np.linspace(lo, hi, 64).astype(int) per row, computed as linspace computes it (i·step + lo, the last at hi)
        index = _STEPS[None, :] * ((hi - lo) / (ARITY - 1))[:, None] + lo[:, None]
        index[:, -1] = hi
        index = index.astype(int)  # strictly increasing: high − low > 64
        best = np.argmin(check_loss(wide, np.take_along_axis(candidates[wide], index, axis=1)), axis=1)
        across = np.arange(wide.size)
        low[wide] = index[across, np.maximum(best - 1, 0)]
        high[wide] = index[across, np.minimum(best + 1, index.shape[1] - 1)]
    out = np.full(rows, math.nan)
    done = np.flatnonzero(count > 0)
    if done.size:
        width = int((high[done] - low[done]).max()) + 1
        index = low[done, None] + np.arange(width)[None, :]
        beyond = index > high[done, None]
        index = np.minimum(index, high[done, None])
        values = check_loss(done, np.take_along_axis(candidates[done], index, axis=1))
        values[beyond] = np.inf  # the padding of a narrower bracket is never chosen
        out[done] = candidates[done, index[np.arange(done.size), np.argmin(values, axis=1)]]
    return out


def percentile_interval(draws: np.ndarray, ci: float) -> tuple[float, float]:
    tail = (1.0 - ci) / 2.0
    low, high = np.quantile(draws, [tail, 1.0 - tail])
    return float(low), float(high)


def doubling_days(slope_per_day: float) -> float:
    """ln 2 / A for A > 0; +inf for A ≤ 0 (the quantity never doubles)."""
    return LN2 / slope_per_day if slope_per_day > 0 else math.inf


def doubling_months(slope_per_day: float) -> float:
    """ln 2 / A in months of 365.25/12 days; +inf for A ≤ 0."""
    return doubling_days(slope_per_day) / DAYS_PER_MONTH


def doubling_interval(slope_low: float, slope_high: float) -> tuple[float, float]:
    """Map a slope interval [a, b] through ln2/A (decreasing for A > 0): [ln2/b, ln2/a].

    a ≤ 0 < b gives an infinite upper bound; b ≤ 0 gives (inf, inf): no doubling at all.
    """
    if not (math.isfinite(slope_low) and math.isfinite(slope_high)):
        return math.nan, math.nan
    return doubling_days(slope_high), doubling_days(slope_low)


def slope_band(days: np.ndarray, centre: float, slope: float, intercept: float, slope_low: float,
               slope_high: float) -> tuple[np.ndarray, np.ndarray]:
    """The band a slope interval draws around the line A·t + B over ``days``: the lines through (t̄, A·t̄ + B),
    t̄ = ``centre``, with the slope at each finite end of [``slope_low``, ``slope_high``], their pointwise min and
    max (the line itself where neither end is finite). It shows the slope's uncertainty, not the intercept's."""
    level = slope * centre + intercept
    lines = [level + s * (days - centre) for s in (slope_low, slope_high) if math.isfinite(s)]
    if not lines:
        fitted = level + slope * (days - centre)
        return fitted, fitted
    stacked = np.vstack(lines)
    return stacked.min(axis=0), stacked.max(axis=0)


def check_options(n_boot: int, ci: float, quantile: float) -> None:
    if not (isinstance(n_boot, (int, np.integer)) and n_boot >= 0):
        raise InputError(f"field 'n_boot': expected a non-negative integer, got {n_boot!r}")
    if not (0.0 < ci < 1.0):
        raise InputError(f"field 'ci': expected a level in (0, 1), got {ci!r}")
    if not (0.0 < quantile < 1.0):
        raise InputError(f"field 'quantile': expected a level in (0, 1), got {quantile!r}")

