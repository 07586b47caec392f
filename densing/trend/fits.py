"""A line through given points with a bootstrap over the points: the cost halving time's fit (:mod:`.corollaries`).

The doubling time of capacity density is not fitted here: it is :func:`densing.fit_trend`
(:mod:`densing.trend.doubling`), which carries the reference fit's and the scores' uncertainty too.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

from densing.results import Result
from densing.errors import FitError
from densing.trend.constants import DAYS_PER_MONTH
from densing.trend.scope import Points, dates_as_days, days_since, unit_days
from densing.trend import rules
from densing.trend.lines import (select_frontier, check_fittable, fit_line, percentile_interval, doubling_days, doubling_interval,
                                 check_options, slope_band)
from densing.numbers import json_number

# --------------------------------------------------------------------------------------------
# TrendFit
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TrendFit(Result):
    """ln ρ(t) = A·t + B fitted on one frontier choice, with its doubling time ln 2 / A.

    ``slope_per_day`` is A in 1/day whatever ``time_unit`` the fit used (``slope_per_time_unit``
    is A in that unit); ``intercept`` is B = ln ρ at the epoch. ``n_models`` counts the points
    the line was fitted to (the envelope's models for ``"envelope"``), ``n_candidates`` the usable
    input models. Bootstrap and analytic intervals of the doubling time are in days; an infinite
    upper bound means the slope interval reaches 0 or below; ``to_dict`` writes non-finite
    numbers as ``None``.
    """
    _dict_exclude = ("points", "excluded", "analytic_slope_per_day_ci_low", "analytic_slope_per_day_ci_high",
                     "slope_per_time_unit", "fit_warnings")

    frontier: str
    slope_per_day: float
    intercept: float
    r_squared: float
    r_squared_kind: str
    doubling_time_days: float
    doubling_time_days_ci_low: float
    doubling_time_days_ci_high: float
    analytic_doubling_time_days_ci_low: float
    analytic_doubling_time_days_ci_high: float
    slope_per_day_ci_low: float
    slope_per_day_ci_high: float
    analytic_slope_per_day_ci_low: float
    analytic_slope_per_day_ci_high: float
    fraction_nonpositive_slope: float
    n_models: int
    n_candidates: int
    frontier_models: tuple[str, ...]
    epoch: pd.Timestamp
    time_unit: str
    slope_per_time_unit: float
    quantile: float | None
    ci: float
    n_boot: int
    n_boot_failed: int
    seed: int | None
    points: pd.DataFrame = field(repr=False)
    excluded: pd.DataFrame = field(repr=False)
    fit_warnings: tuple[str, ...] = ()

    #: an analytic interval's point estimate is the bootstrap interval's (the same line)
    _ci_estimates = {"analytic_slope_per_day": "slope_per_day", "analytic_doubling_time_days": "doubling_time_days"}
    _level_field = "ci"  # conf_int(alpha) gives the intervals of level ``ci``

    @property
    def doubling_time_months(self) -> float:
        return self.doubling_time_days / DAYS_PER_MONTH

    @property
    def doubling_time_months_ci_low(self) -> float:
        return self.doubling_time_days_ci_low / DAYS_PER_MONTH

    @property
    def doubling_time_months_ci_high(self) -> float:
        return self.doubling_time_days_ci_high / DAYS_PER_MONTH

    def predict(self, dates: object) -> float | np.ndarray:
        """ln ρ̂(date) = A·(date − epoch in days) + B; a scalar for one date, else an array."""
        scalar = isinstance(dates, (str, pd.Timestamp, datetime, date, np.datetime64))
        out = self.slope_per_day * self._days(dates) + self.intercept
        return float(out[0]) if scalar else out

    def _days(self, dates: object) -> np.ndarray:
        return dates_as_days(dates, self.epoch)  # InputError for what is not a date

    def confidence_band(self, dates: object) -> tuple[np.ndarray, np.ndarray]:
        """ln ρ band from the bootstrap slope interval, pivoting at the frontier points' centre.

        Lines through (t̄, A·t̄ + B) — t̄ the mean release time of the fitted points — with the
        slope at its lower and upper bootstrap bound; the band is their pointwise min and max.
        It shows the slope's uncertainty (what the doubling time's CI says), not the intercept's.
        """
        centre = float(np.mean(self.points["t_days"])) if len(self.points) else 0.0
        return slope_band(self._days(dates), centre, self.slope_per_day, self.intercept, self.slope_per_day_ci_low,
                          self.slope_per_day_ci_high)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (non-finite numbers → None; :func:`line_dict`)."""
        return line_dict(self, "doubling_time")

    def to_frame(self) -> pd.DataFrame:
        """One row holding :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])

    def __repr__(self) -> str:
        return (f"TrendFit({self.frontier}: doubling time {self.doubling_time_months:.3g} months "
                f"[{self.ci:.0%} CI {self.doubling_time_months_ci_low:.3g}, {self.doubling_time_months_ci_high:.3g}], "
                f"A = {self.slope_per_day:.4g}/day, {self.n_models} of {self.n_candidates} models)")

    def _repr_html_(self) -> str:
        from densing import _html

        rows = [
            ("frontier", self.frontier + ("" if self.quantile is None else f" (q = {self.quantile})")),
            ("slope A (1/day)", self.slope_per_day),
            ("intercept B", self.intercept),
            (self.r_squared_kind, self.r_squared),
            ("doubling time (months)", self.doubling_time_months),
            (f"bootstrap {self.ci:.0%} CI (months)", f"{_html.cell(self.doubling_time_months_ci_low)} to {_html.cell(self.doubling_time_months_ci_high)}"),
            ("models fitted / usable / excluded", f"{self.n_models} / {self.n_candidates} / {len(self.excluded)}"),
            ("epoch", str(self.epoch.date())),
            ("bootstrap draws (unfittable)", f"{self.n_boot} ({self.n_boot_failed})"),
        ]
        return _html.table(["", "value"], rows, caption="Densing-law trend ln ρ(t) = A·t + B")

    def summary(self) -> str:
        def fmt(value: float, digits: int = 1) -> str:
            return "inf" if value == math.inf else ("nan" if not math.isfinite(value) else f"{value:.{digits}f}")

        level = f"{self.ci:.0%}"
        q = f" (q = {self.quantile})" if self.quantile is not None else ""
        lines = [
            f"Densing-law trend  ln ρ(t) = A·t + B   frontier: {self.frontier}{q}",
            f"epoch {self.epoch.date()}  time unit {self.time_unit}  models fitted {self.n_models}"
            f" of {self.n_candidates} usable, {len(self.excluded)} excluded",
            f"A = {self.slope_per_day:.6g} /day   B = {self.intercept:.4g}   "
            f"{self.r_squared_kind} = {fmt(self.r_squared, 3)}",
            f"doubling time {fmt(self.doubling_time_days)} days = {fmt(self.doubling_time_months, 2)} months",
            f"  bootstrap {level} CI [{fmt(self.doubling_time_days_ci_low)}, "
            f"{fmt(self.doubling_time_days_ci_high)}] days  ({self.n_boot} draws, "
            f"{self.n_boot_failed} unfittable, {self.fraction_nonpositive_slope:.1%} with A ≤ 0)",
            f"  analytic  {level} CI [{fmt(self.analytic_doubling_time_days_ci_low)}, {fmt(self.analytic_doubling_time_days_ci_high)}] days",
        ]
        if self.fit_warnings:
            lines.append("warnings: " + "; ".join(self.fit_warnings))
        return "\n".join(lines)


def line_dict(result: Result, time: str) -> dict[str, Any]:
    """The JSON of a fitted line's result (:class:`TrendFit`, :class:`densing.trend.corollaries.CostHalvingFit`):
    :meth:`densing.results.Result.to_dict`'s fields, the epoch as a date, then the ``time`` (``doubling_time``,
    ``halving_time``) in months beside its ``_days`` fields and ``n_excluded``, the rows left out of the fit."""
    months = {f"{time}_months{end}": json_number(getattr(result, f"{time}_days{end}") / DAYS_PER_MONTH)
              for end in ("", "_ci_low", "_ci_high")}
    return {**Result.to_dict(result), "epoch": result.epoch.date().isoformat(), **months, "n_excluded": len(result.excluded)}


def fit_points(
    points: Points,
    excluded: pd.DataFrame,
    *,
    frontier: str,
    quantile: float,
    epoch: pd.Timestamp,
    time_unit: str,
    n_boot: int,
    seed: int | None,
    ci: float,
    what: str,
) -> TrendFit:
    rules.get(frontier)  # a registered rule, else one line listing them
    check_options(n_boot, ci, quantile)
    unit = unit_days(time_unit)
    days = days_since(points.dates, epoch)
    t = days / unit
    index = select_frontier(frontier, t, points.y, points.labels)
    check_fittable(t[index], f"{what}, frontier {frontier!r}")
    kind = points.kinds()
    labels = points.labels.astype(str)
    # one engine: the point line and every bootstrap line come from the rule registry that the
    # measurement, the CLI and the report use (bounds as bounds where a ``bound`` column has them)
    slope, intercept = rules.frontier_line(frontier, t, points.y, kind, labels, quantile)
    if not math.isfinite(slope):
        raise FitError(f"{what}, frontier {frontier!r}: no line could be fitted")
    alpha = 1.0 - ci
    exact = index[kind[index] == 0] if frontier != "envelope" else index
    line = fit_line(frontier, t[exact], points.y[exact], quantile, alpha) if (kind == 0).all() else None
    slope_per_day = slope / unit

    rng = np.random.default_rng(seed)
    n = len(t)
    picks = [rng.integers(0, n, n) for _ in range(n_boot)]
    # the draws' lines solved together by the engine's line solver (each the number it gives alone)
    draws = rules.frontier_lines(frontier, [(t[p], points.y[p], kind[p], labels[p]) for p in picks], quantile)[:, 0] / unit
    ok = draws[np.isfinite(draws)]
    if ok.size:
        slope_low, slope_high = percentile_interval(ok, ci)
        fraction_nonpositive = float(np.mean(ok <= 0))
    else:
        slope_low = slope_high = fraction_nonpositive = math.nan
    boot_low, boot_high = doubling_interval(slope_low, slope_high)
    # the analytic interval (OLS, HC3 or QuantReg's) exists for exact points only; with bounds it is NaN
    analytic_slope = (line.slope_ci[0] / unit, line.slope_ci[1] / unit) if line is not None else (math.nan, math.nan)
    analytic_low, analytic_high = doubling_interval(*analytic_slope) if line is not None else (math.nan, math.nan)

    chosen = pd.DataFrame(
        {"model": points.labels[index], "release_date": points.dates[index],
         "density": points.values[index], "t_days": days[index], "y": points.y[index]}
    )
    return TrendFit(
        frontier=frontier,
        slope_per_day=slope_per_day,
        intercept=intercept,
        r_squared=line.r_squared if line is not None else math.nan,
        r_squared_kind="pseudo_r1_koenker_machado" if frontier == "quantile" else "ols_r_squared",
        doubling_time_days=doubling_days(slope_per_day),
        doubling_time_days_ci_low=boot_low,
        doubling_time_days_ci_high=boot_high,
        analytic_doubling_time_days_ci_low=analytic_low,
        analytic_doubling_time_days_ci_high=analytic_high,
        slope_per_day_ci_low=slope_low,
        slope_per_day_ci_high=slope_high,
        analytic_slope_per_day_ci_low=analytic_slope[0],
        analytic_slope_per_day_ci_high=analytic_slope[1],
        fraction_nonpositive_slope=fraction_nonpositive,
        n_models=int(len(index)),
        n_candidates=int(n),
        frontier_models=tuple(str(v) for v in points.labels[index]),
        epoch=epoch,
        time_unit=time_unit,
        slope_per_time_unit=slope,
        quantile=float(quantile) if frontier == "quantile" else None,
        ci=float(ci),
        n_boot=int(n_boot),
        n_boot_failed=int(n_boot - ok.size),
        seed=seed,
        points=chosen,
        excluded=excluded,
        fit_warnings=line.warnings if line is not None else (),
    )
