"""The density figure's line: one frontier rule's line exactly as the measurement fitted it.

The report's tables show :func:`densing.trend.measure.measure_trend`'s rules (slope, doubling time,
interval with fit, score and model uncertainty). The figure draws the same line: the measurement's
slope A, on the same points (every target model, a censored density entering as its bound), with
the intercept B of that same fit — the OLS intercept through the envelope's record-setters, the
censored 0.9 regression quantile's, or the Tobit line's — so the legend's doubling time is the
table's. :func:`measured_line` checks that the slope it recomputes is the measurement's.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from densing.trend.censored import censored_quantile_line, tobit_line
from densing.trend.lines import envelope_index, fit_line
from densing.trend.scope import days_since, parse_epoch

#: How close the recomputed slope must be to the measurement's (they are the same computation).
SLOPE_RTOL = 1e-6


@dataclass(frozen=True)
class MeasuredLine:
    """ln ρ = A·t + B of one rule of the measurement (t in days since ``epoch``), with its slope interval."""

    frontier: str
    slope_per_day: float
    intercept: float
    slope_ci_low: float
    slope_ci_high: float
    doubling_time_months: float
    doubling_time_months_ci_low: float
    doubling_time_months_ci_high: float
    r_squared: float  # OLS R² through the envelope's record-setters; NaN for the censored rules
    frontier_models: tuple[str, ...]  # the points the line goes through (every model for quantile/all)
    centre_days: float  # mean t of those points: the band's pivot
    epoch: pd.Timestamp

    def _days(self, dates) -> np.ndarray:
        return days_since(np.asarray(pd.DatetimeIndex(pd.to_datetime(list(dates))), dtype="datetime64[ns]"), self.epoch)

    def predict(self, dates) -> np.ndarray:
        return self.slope_per_day * self._days(dates) + self.intercept

    def confidence_band(self, dates) -> tuple[np.ndarray, np.ndarray]:
        """Lines through the frontier points' centre with the slope at the ends of the measurement's 95% interval.

        The same convention as :meth:`densing.trend.fits.TrendFit.confidence_band`: it shows the
        slope's uncertainty (what the doubling time's interval says), not the intercept's.
        """
        days = self._days(dates)
        level = self.slope_per_day * self.centre_days + self.intercept
        lines = [level + s * (days - self.centre_days) for s in (self.slope_ci_low, self.slope_ci_high) if math.isfinite(s)]
        if not lines:
            fitted = level + self.slope_per_day * (days - self.centre_days)
            return fitted, fitted
        stacked = np.vstack(lines)
        return stacked.min(axis=0), stacked.max(axis=0)


def measured_line(measured, rule: str, epoch: str) -> MeasuredLine:
    """The line of ``rule`` as ``measured`` (a :class:`~densing.trend.measure.TrendMeasurement`) fitted it."""
    result = measured.rules[rule]
    models = measured.models
    t = models["t"].to_numpy(float)
    y = models["log_density"].to_numpy(float)
    kind = models["bound"].to_numpy(float)
    labels = models["model"].astype(str).to_numpy()
    usable = np.flatnonzero(np.isfinite(y) & np.isfinite(kind))
    r_squared = math.nan
    if rule == "envelope":
        index = usable[envelope_index(t[usable], y[usable], labels[usable])]
        fitted = fit_line("envelope", t[index], y[index], 0.9, 0.05)  # OLS: quantile and alpha play no part
        slope, intercept, r_squared = fitted.slope, fitted.intercept, fitted.r_squared
    elif rule == "quantile":
        index = usable
        slope, intercept, _ = censored_quantile_line(t[index], y[index], kind[index].astype(int))
    elif rule == "all":
        index = usable
        slope, intercept, _ = tobit_line(t[index], y[index], kind[index].astype(int))
    else:
        raise ValueError(f"frontier: no line for rule {rule!r}")
    if not math.isclose(slope, result.slope_per_day, rel_tol=SLOPE_RTOL, abs_tol=1e-12):
        raise RuntimeError(f"{rule} line: recomputed slope {slope!r} is not the measurement's {result.slope_per_day!r}")
    return MeasuredLine(
        frontier=rule, slope_per_day=result.slope_per_day, intercept=float(intercept),
        slope_ci_low=result.slope_ci_low, slope_ci_high=result.slope_ci_high,
        doubling_time_months=result.doubling_time_months, doubling_time_months_ci_low=result.doubling_time_months_ci_low,
        doubling_time_months_ci_high=result.doubling_time_months_ci_high, r_squared=float(r_squared),
        frontier_models=tuple(labels[index]), centre_days=float(np.mean(t[index])), epoch=parse_epoch(epoch),
    )
