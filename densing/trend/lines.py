"""The paper's envelope (its record-setters), the doubling time of a slope, and the band a slope's interval draws."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from densing.trend.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, LN2
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
