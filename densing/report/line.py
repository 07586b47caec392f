"""The density figure's line: one frontier rule's line exactly as the measurement fitted it.

The report's tables show :func:`densing.trend.measure.measure_trend`'s rules (slope, doubling time,
interval with fit, score and model uncertainty). The figure draws the same line: the measurement's
slope A, on the same points (every target model, a censored density entering as its bound), with
the intercept B of that same fit — the OLS intercept through the envelope's record-setters, the
censored 0.9 regression quantile's, or the Tobit line's — so the legend's doubling time is the
table's: the measurement keeps each rule's intercept, so nothing is re-fitted here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from densing.trend.lines import envelope_index
from densing.trend.scope import days_since, parse_epoch


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
    """The line of ``rule`` as ``measured`` (a :class:`~densing.trend.measure.TrendMeasurement`) fitted it.

    Slope, intercept and interval are the measurement's own (no re-fit); the envelope's R² is the
    OLS R² through its record-setters, which the line goes through.
    """
    result = measured.rules[rule]
    models = measured.models
    t = models["t"].to_numpy(float)
    y = models["log_density"].to_numpy(float)
    kind = models["bound"].to_numpy(float)
    labels = models["model"].astype(str).to_numpy()
    usable = np.flatnonzero(np.isfinite(y) & np.isfinite(kind))
    r_squared = math.nan
    index = usable
    if rule == "envelope":
        index = usable[envelope_index(t[usable], y[usable], labels[usable])]
        fitted = result.slope_per_day * t[index] + result.intercept
        total = float(np.sum((y[index] - y[index].mean()) ** 2))
        r_squared = 1 - float(np.sum((y[index] - fitted) ** 2)) / total if total > 0 else math.nan
    return MeasuredLine(
        frontier=rule, slope_per_day=result.slope_per_day, intercept=float(result.intercept),
        slope_ci_low=result.slope_ci_low, slope_ci_high=result.slope_ci_high,
        doubling_time_months=result.doubling_time_months, doubling_time_months_ci_low=result.doubling_time_months_ci_low,
        doubling_time_months_ci_high=result.doubling_time_months_ci_high, r_squared=float(r_squared),
        frontier_models=tuple(labels[index]), centre_days=float(np.mean(t[index])), epoch=parse_epoch(epoch),
    )
