"""A forecast check of the Densing Law: the frontier line fitted on the models released up to a cutoff, carried to
the models released after it (docs/method.md, "The forecast check"; the rule was written before it ran on any table).

A table's declared ``cutoff`` gives the verdict (:func:`forecast_at`), the rule's grid (:func:`forecast_windows`)
context; :func:`_one_cutoff` applies the rule: the early line's width (:data:`MAX_EARLY_WIDTH`), the later models
placed against its band (:func:`place_later`, :data:`MIN_LATER`) and the outcome (:func:`outcome_of`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtri  # the normal quantile (scipy.stats.norm.ppf's), without importing scipy.stats

from densing.constants import DAYS_PER_MONTH, DEFAULT_EPOCH
from densing.errors import InputError
from densing.laws.bounds import EXACT, LOWER, UPPER
from densing.results import Result
from densing.states import FewLater, Outcome, WideEarlyLine
from densing.trend.rules import doubling_months, slope_band
from densing.trend.targets import parse_epoch, to_timestamp
from densing.trend.uncertainty import observed_trend

#: The share of models above a 0.9-quantile line.
ABOVE_SHARE = 0.10
#: Fewer later models than this leave the check untestable, said so (a share of 10% needs tens of models to be
#: told from 0% or 30%; docs/method.md, "The forecast check", says when it was set).
MIN_LATER = 10


def wilson_interval(count: int, total: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a binomial proportion count/total (Wilson 1927):
    (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n); (nan, nan) for total 0."""
    if total <= 0:
        return math.nan, math.nan
    z = float(ndtri(0.5 + level / 2))
    p = count / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


#: The rule's months and width (module docstring).
MIN_EARLY_MONTHS = 12.0
STEP_MONTHS = 3.0
END_MARGIN_MONTHS = 6.0
MAX_EARLY_WIDTH = 4.0


@dataclass(frozen=True)
class EarlyLine:
    """A frontier line ln ρ = intercept + slope·t (t days since the epoch) and the interval of its slope."""

    slope_per_day: float
    slope_per_day_ci_low: float
    slope_per_day_ci_high: float
    intercept: float
    n_models: int
    centre_days: float = math.nan  # the band's pivot (the early models' mean date where NaN)


@dataclass(frozen=True)
class ForecastCutoff(Result):
    """One cutoff of :func:`forecast_windows`: the early line, the later models above it, the verdict."""

    cutoff: str
    early_window_months: float
    n_early: int
    early_doubling_time_months: float
    early_doubling_time_months_ci_low: float
    early_doubling_time_months_ci_high: float
    n_later: int
    above_line: int
    above_band_low: int
    above_band_high: int
    state: Outcome
    #: why there is no verdict (:class:`WideEarlyLine`, :class:`FewLater`); None where there is one
    reason: object = None


@dataclass(frozen=True)
class ForecastWindows(Result):
    """The forecast check of a row at the declared cutoff (``declared``: the verdict) and the grid (context)."""

    row: str
    cutoffs: tuple[ForecastCutoff, ...]
    declared: ForecastCutoff | None = None

    def to_frame(self) -> pd.DataFrame:
        """One row per cutoff, the declared one first (``declared`` True), as values (with each outcome and verdict in
        words: :func:`densing.present.records.windows_frame`)."""
        found = [c for c in (self.declared,) if c is not None] + list(self.cutoffs)
        frame = pd.DataFrame([c.to_dict() for c in found])
        return frame.assign(declared=[c is self.declared for c in found]) if len(frame) else frame


def frontier_line(frame: pd.DataFrame, *, n_boot: int = 200, seed: int = 0) -> EarlyLine:
    """The default early line: the censored 0.9-quantile line and its slope's 95% interval (:func:`observed_trend`)."""
    labels = frame["model"] if "model" in frame.columns else frame.index.astype(str)
    found = observed_trend(
        frame["t"],
        frame["y"],
        frame["kind"],
        labels,
        families=frame["family"] if "family" in frame.columns else None,
        n_boot=n_boot,
        seed=seed,
    )
    return EarlyLine(
        found.slope_per_day,
        found.slope_ci_low,
        found.slope_ci_high,
        found.intercept,
        len(frame),
        float(frame["t"].mean()),
    )


def outcome_of(n_later: int, above_band_low: int, above_band_high: int) -> Outcome:
    """Ahead, holds or behind from the later models above the band's edges alone: ``ahead`` when the Wilson 95%
    interval of the share above the upper edge lies above :data:`ABOVE_SHARE` (0.10, a 0.9-quantile line's),
    ``behind`` when that of the share above the lower edge lies below it, else ``holds``."""
    if wilson_interval(above_band_high, n_later)[0] > ABOVE_SHARE:
        return Outcome.AHEAD
    if wilson_interval(above_band_low, n_later)[1] < ABOVE_SHARE:
        return Outcome.BEHIND
    return Outcome.HOLDS


def place_later(y: np.ndarray, kind: np.ndarray, edges: list[np.ndarray]) -> tuple[int, list[int]]:
    """(later models every edge places, the count above each edge): exact points and lower bounds above an edge are
    above it, exact points and upper bounds at or below it below; one undecided against any edge counts against none."""
    above_kinds, below_kinds = (kind == EXACT) | (kind == LOWER), (kind == EXACT) | (kind == UPPER)
    aboves = [(y > edge) & above_kinds for edge in edges]
    placed = np.logical_and.reduce([above | ((y <= edge) & below_kinds) for above, edge in zip(aboves, edges)])
    return int(placed.sum()), [int((above & placed).sum()) for above in aboves]


def _one_cutoff(frame: pd.DataFrame, cut: float, epoch: pd.Timestamp, fit) -> ForecastCutoff:
    early, late = frame[frame["t"] <= cut], frame[frame["t"] > cut]
    line = fit(early)
    months, low = doubling_months(line.slope_per_day), doubling_months(line.slope_per_day_ci_high)
    high = doubling_months(line.slope_per_day_ci_low) if math.isfinite(line.slope_per_day_ci_low) else math.inf
    t_late = late["t"].to_numpy(float)
    centre = line.centre_days if math.isfinite(line.centre_days) else float(early["t"].mean())
    band = slope_band(
        t_late, centre, line.slope_per_day, line.intercept, line.slope_per_day_ci_low, line.slope_per_day_ci_high
    )
    edges = [line.intercept + line.slope_per_day * t_late, *band]
    placed, (above, above_low, above_high) = place_later(late["y"].to_numpy(float), late["kind"].to_numpy(float), edges)
    if not (math.isfinite(high) and low > 0) or high / low > MAX_EARLY_WIDTH:
        outcome, reason = Outcome.NO_VERDICT, WideEarlyLine(low, high, MAX_EARLY_WIDTH)
    elif placed < MIN_LATER:
        outcome, reason = Outcome.NO_VERDICT, FewLater(placed, MIN_LATER)
    else:
        outcome, reason = outcome_of(placed, above_low, above_high), None
    date = (epoch + pd.Timedelta(days=float(cut))).strftime("%Y-%m-%d")
    return ForecastCutoff(
        date,
        float((cut - early["t"].min()) / DAYS_PER_MONTH),
        len(early),
        months,
        low,
        high,
        placed,
        above,
        above_low,
        above_high,
        outcome,
        reason,
    )


def _usable(frame: pd.DataFrame, row: str) -> pd.DataFrame:
    frame = frame.dropna(subset=["t", "y", "kind"])
    if frame.empty:
        raise InputError(f"forecast {row!r}: no model with a date and a density")
    return frame


def forecast_at(
    frame: pd.DataFrame,
    cutoff: str,
    *,
    row: str = "",
    epoch: str = DEFAULT_EPOCH,
    fit=None,
    n_boot: int = 200,
    seed: int = 0,
) -> ForecastCutoff:
    """The forecast check at one declared ``cutoff`` (models released on it are early), as :func:`forecast_windows`'."""
    frame = _usable(frame, row)
    start = parse_epoch(epoch)
    cut = float((to_timestamp(cutoff, field="cutoff", where=f"forecast {row!r}") - start) / pd.Timedelta(days=1))
    if not (frame["t"] <= cut).any():
        raise InputError(f"forecast {row!r}: no model released up to the declared cutoff {cutoff}")
    return _one_cutoff(frame, cut, start, fit or (lambda early: frontier_line(early, n_boot=n_boot, seed=seed)))


def forecast_windows(
    frame: pd.DataFrame,
    *,
    row: str = "",
    epoch: str = DEFAULT_EPOCH,
    fit=None,
    n_boot: int = 200,
    seed: int = 0,
    declared: str | None = None,
    grid: bool = True,
) -> ForecastWindows:
    """The forecast check at every cutoff of the rule: ``frame`` one row per model with ``t`` (days since ``epoch``),
    ``y`` and ``kind``; ``fit`` the early line (default :func:`frontier_line`); ``declared`` the table's cutoff
    (:func:`forecast_at`): with it the grid may be empty (``grid`` False: none), without it an empty grid is refused."""
    frame = _usable(frame, row)
    fit = fit or (lambda early: frontier_line(early, n_boot=n_boot, seed=seed))
    first, last = float(frame["t"].min()), float(frame["t"].max())
    cuts = np.arange(
        first + MIN_EARLY_MONTHS * DAYS_PER_MONTH,
        last - END_MARGIN_MONTHS * DAYS_PER_MONTH + 1e-9,
        STEP_MONTHS * DAYS_PER_MONTH,
    )
    if not grid and declared is not None:
        cuts = cuts[:0]
    if cuts.size == 0 and declared is None:
        raise InputError(
            f"forecast {row!r}: the models span {(last - first) / DAYS_PER_MONTH:.1f} months; the check "
            f"needs {MIN_EARLY_MONTHS + END_MARGIN_MONTHS:g}"
        )
    at = None if declared is None else forecast_at(frame, declared, row=row, epoch=epoch, fit=fit)
    return ForecastWindows(row, tuple(_one_cutoff(frame, float(c), parse_epoch(epoch), fit) for c in cuts), at)
