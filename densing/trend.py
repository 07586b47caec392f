"""ln(density) over release dates: frontiers, regressions, doubling time (the Densing Law).

The Densing Law (Xiao et al. 2024, arXiv 2412.04315, §3) says the maximum capacity density of
open LLMs grows exponentially with release date::

    ln ρmax(t) = A·t + B,        doubling time = ln 2 / A

with t in days since an epoch (default 2023-02-24, the release of Llama-1). The paper reports
A ≈ 0.0073/day (doubling every ≈ 3.3 months), R² ≈ 0.91.

Three ways to pick the points the line goes through (``frontier=``):

``"envelope"``
    The paper's record-setters, fitted by OLS. Rule: order models by release date; on each date
    keep the single model of highest density (equal densities on one date: the alphabetically
    first model name); that model is on the envelope iff its density is *strictly* greater than
    every density released on an earlier date. The first date's best model is always on it.
``"quantile"``
    Linear quantile regression of ln ρ on t over all models (statsmodels ``QuantReg``,
    q = 0.9 by default). Its "R²" is the Koenker–Machado pseudo-R¹ (``prsquared``), labelled so
    in ``r_squared_kind``.
``"all"``
    OLS of ln ρ on t over all models, HC3 (heteroskedasticity-consistent) standard errors.

Uncertainty of the doubling time comes two ways: a bootstrap over models (resample the input
models with replacement, recompute the frontier and the fit, take the percentile interval of the
slope A and map it through ln 2 / A, which is monotone for A > 0; an interval whose lower slope is
≤ 0 has an infinite upper doubling time) and the analytic interval of the fit itself (OLS
t-interval, HC3 t-interval, or QuantReg's own interval) mapped the same way.

How good the intervals are: ``bench/trend_coverage.py`` plants a known doubling time and counts
how often each interval covers it. With 120 models and exponential gaps below the line, at
nominal 0.95: all-models 0.90 (bootstrap) / 0.92 (HC3); quantile 1.00 / 1.00 (conservative);
envelope 0.84 / 0.81 (undercover: its points are chosen on the response, record-setters, which
neither the OLS errors nor a bootstrap of a running maximum accounts for). Read envelope
intervals as optimistic.

Corollaries of §4: :func:`compression_density` (does compression raise density?) and
:func:`cost_halving_time` (inference price halving time; envelope = running minimum).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from densing.data.schema import is_missing, require_columns
from densing.data.units import parse_date
from densing.errors import FitError, InputError

__all__ = [
    "DAYS_PER_MONTH",
    "DEFAULT_EPOCH",
    "FRONTIERS",
    "TIME_UNITS_DAYS",
    "BreakpointFit",
    "CostHalvingFit",
    "TrendFit",
    "breakpoint",
    "compression_density",
    "cost_halving_time",
    "envelope_models",
    "sensitivity",
    "trend",
    "trend_all",
]

DEFAULT_EPOCH = "2023-02-24"  # Llama-1 release, the paper's t = 0
CHATGPT_RELEASE = "2022-11-30"
DAYS_PER_MONTH = 365.25 / 12
FRONTIERS: tuple[str, ...] = ("envelope", "quantile", "all")
#: length of one time unit in days; ``time_unit`` only rescales t, the doubling time in days is
#: the same whichever unit is chosen.
TIME_UNITS_DAYS: dict[str, float] = {
    "days": 1.0,
    "weeks": 7.0,
    "months": DAYS_PER_MONTH,
    "years": 365.25,
}
MIN_POINTS = 3  # a line with a t-interval needs n - 2 ≥ 1 residual degrees of freedom
LN2 = math.log(2.0)


# --------------------------------------------------------------------------------------------
# input preparation
# --------------------------------------------------------------------------------------------


def _to_timestamp(value: object, *, field: str, where: str) -> pd.Timestamp:
    if isinstance(value, (pd.Timestamp, datetime, date, np.datetime64)):
        stamp = pd.Timestamp(value)
        if stamp.tzinfo is not None:
            stamp = stamp.tz_convert(None)
        return stamp
    try:
        return parse_date(value, field=field, where=where)
    except InputError:
        # parse_date takes dates only; also accept full ISO 8601 date-times ("2023-02-24T12:00")
        try:
            stamp = pd.to_datetime(str(value).strip(), format="ISO8601")
        except (TypeError, ValueError):
            raise InputError(
                f"{where}: field '{field}': cannot parse {value!r} as a date "
                "(expected YYYY-MM-DD or an ISO 8601 date-time)"
            ) from None
        return stamp.tz_convert(None) if stamp.tzinfo is not None else stamp


def _epoch(epoch: object) -> pd.Timestamp:
    if is_missing(epoch):
        raise InputError("field 'epoch': expected a date such as 2023-02-24, got nothing")
    return _to_timestamp(epoch, field="epoch", where="trend")


def _unit_days(time_unit: str) -> float:
    try:
        return TIME_UNITS_DAYS[time_unit]
    except KeyError:
        raise InputError(
            f"field 'time_unit': expected one of {', '.join(TIME_UNITS_DAYS)}, got {time_unit!r}"
        ) from None


@dataclass(frozen=True, eq=False)
class _Points:
    """Usable rows: labels, release dates, days since the epoch and the fitted response y."""

    labels: np.ndarray  # object array of str
    dates: np.ndarray  # datetime64[ns]
    values: np.ndarray  # the raw positive value (density or price)
    y: np.ndarray  # ln density, or −ln price for costs (so "higher is better" in both)


def _prepare(
    frame: pd.DataFrame,
    *,
    value_column: str,
    date_column: str,
    label_column: str | None,
    source: str,
    unique_labels: bool,
    sign: float,
) -> tuple[_Points, pd.DataFrame]:
    """Validate a frame; split it into usable points and an ``excluded`` frame with reasons.

    Raises InputError for a non-frame, missing columns, an empty table, an unparseable date
    or a non-numeric value (naming the row, 1-based, and the field). Rows with a missing date,
    a non-finite or non-positive value, or a non-empty ``censored`` reason are excluded, not
    dropped: they come back in the excluded frame with a ``reason``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"{source}: expected a pandas DataFrame, got {type(frame).__name__}")
    require_columns(frame, [c for c in (label_column, date_column, value_column) if c is not None], source)
    has_censored = "censored" in frame.columns
    labels: list[str] = []
    dates: list[pd.Timestamp] = []
    values: list[float] = []
    excluded: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for i, rec in enumerate(frame.to_dict("records"), start=1):
        where = f"{source}: row {i}"
        if label_column is None:
            label = f"row {i}"
        else:
            raw_label = rec[label_column]
            if is_missing(raw_label):
                raise InputError(f"{where}: field '{label_column}': expected a name, got nothing")
            label = str(raw_label)
        if unique_labels:
            if label in seen:
                raise InputError(
                    f"{where}: field '{label_column}': model {label!r} already appears in row "
                    f"{seen[label]}; the trend needs one density per model (pass the per-model "
                    "geometric-mean frame, or one benchmark at a time)"
                )
            seen[label] = i
        raw_date, raw_value = rec[date_column], rec[value_column]
        reason = None
        if has_censored and not is_missing(rec["censored"]):
            reason = f"censored: {rec['censored']}"
        stamp = None
        if is_missing(raw_date):
            reason = reason or f"missing {date_column}"
        else:
            stamp = _to_timestamp(raw_date, field=date_column, where=where)
        if is_missing(raw_value):
            number = math.nan
        else:
            try:
                number = float(raw_value)
            except (TypeError, ValueError):
                raise InputError(
                    f"{where}: field '{value_column}': expected a number, got {raw_value!r}"
                ) from None
        if reason is None and not math.isfinite(number):
            reason = f"non-finite {value_column} ({raw_value!r})"
        if reason is None and number <= 0:
            reason = f"non-positive {value_column} ({number!r})"
        if reason is not None:
            excluded.append(
                {"row": i, "label": label, date_column: raw_date, value_column: raw_value,
                 "reason": reason}
            )
            continue
        labels.append(label)
        dates.append(stamp)
        values.append(number)
    excluded_frame = pd.DataFrame(
        excluded, columns=["row", "label", date_column, value_column, "reason"]
    )
    if label_column is not None:
        excluded_frame = excluded_frame.rename(columns={"label": label_column})
    value_array = np.asarray(values, dtype=float)
    points = _Points(
        labels=np.asarray(labels, dtype=object),
        dates=np.asarray(pd.DatetimeIndex(dates), dtype="datetime64[ns]")
        if dates else np.asarray([], dtype="datetime64[ns]"),
        values=value_array,
        y=sign * np.log(value_array),
    )
    return points, excluded_frame


def _days_since(dates: np.ndarray, epoch: pd.Timestamp) -> np.ndarray:
    return (dates - np.datetime64(epoch.to_datetime64(), "ns")) / np.timedelta64(1, "D")


# --------------------------------------------------------------------------------------------
# frontier selection and one fit
# --------------------------------------------------------------------------------------------


def _envelope_index(days: np.ndarray, y: np.ndarray, labels: np.ndarray) -> np.ndarray:
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
    points, _ = _prepare(frame, value_column="density", date_column="release_date",
                         label_column="model", source="densities", unique_labels=True, sign=1.0)
    days = _days_since(points.dates, _epoch(DEFAULT_EPOCH))
    return tuple(points.labels[_envelope_index(days, points.y, points.labels)])


def _select(method: str, days: np.ndarray, y: np.ndarray, labels: np.ndarray) -> np.ndarray:
    if method == "envelope":
        return _envelope_index(days, y, labels)
    return np.argsort(days, kind="stable")


def _check_fittable(t: np.ndarray, what: str) -> None:
    if len(t) < MIN_POINTS:
        raise FitError(f"{what}: {len(t)} point(s); a trend line needs at least {MIN_POINTS}")
    if np.unique(t).size < 2:
        raise FitError(f"{what}: all points share one release date; the slope is undefined")


def _quantreg(y: np.ndarray, design: np.ndarray, quantile: float) -> tuple[Any, str]:
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
class _LineFit:
    slope: float  # per time unit
    intercept: float
    r_squared: float
    slope_ci: tuple[float, float]
    warnings: tuple[str, ...]


def _fit_line(method: str, t: np.ndarray, y: np.ndarray, quantile: float, alpha: float) -> _LineFit:
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
                result, bandwidth = _quantreg(y, design, quantile)
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
    return _LineFit(slope, intercept, r_squared, (float(low), float(high)), tuple(dict.fromkeys(notes + caught)))


def _bootstrap_slope(method: str, t: np.ndarray, y: np.ndarray, labels: np.ndarray,
                     quantile: float) -> float:
    """Slope of one bootstrap draw (NaN when the draw cannot be fitted)."""
    index = _select(method, t, y, labels)
    tt, yy = t[index], y[index]
    if len(tt) < MIN_POINTS or np.unique(tt).size < 2:
        return math.nan
    if method == "quantile":
        scale = float(np.std(tt))
        return quantile_slope((tt - tt.mean()) / scale, yy, quantile) / scale
    centred = tt - tt.mean()
    return float(centred @ (yy - yy.mean()) / (centred @ centred))


def quantile_slope(t: np.ndarray, y: np.ndarray, quantile: float) -> float:
    """Slope A of the q-th regression quantile y ≈ A·t + B (Koenker & Bassett 1978).

    Profiles out the intercept: for a given A the best B is the q-quantile of y − A·t, so A
    minimises the convex, piecewise-linear f(A) = Σ ρ_q(r − Q_q(r)), r = y − A·t, with
    ρ_q(u) = u·(q − 1[u < 0]). Its kinks, and so its minimiser (a vertex of the linear programme),
    are pairwise slopes (y_j − y_i)/(t_j − t_i): a binary search over the sorted pairwise slopes
    on the sign of f(c_{m+1}) − f(c_m) finds the exact minimiser in ~log2(n²) steps. Used for the
    bootstrap, where statsmodels' IRLS solver (the point estimate's) costs ~20× more per draw.
    """
    dt = t[:, None] - t[None, :]
    dy = y[:, None] - y[None, :]
    positive = dt > 0
    candidates = np.unique(dy[positive] / dt[positive])
    if candidates.size == 0:
        return math.nan
    k = max(math.ceil(quantile * len(y)) - 1, 0)  # the inverted-CDF q-quantile is the k-th smallest

    def check_loss(slope: float) -> float:
        residual = y - slope * t
        residual = residual - np.partition(residual, k)[k]
        return float(np.sum(residual * (quantile - (residual < 0))))

    low, high = 0, candidates.size - 1
    while low < high:
        middle = (low + high) // 2
        if check_loss(candidates[middle + 1]) < check_loss(candidates[middle]):
            low = middle + 1
        else:
            high = middle
    return float(candidates[low])


def _interval(draws: np.ndarray, ci: float) -> tuple[float, float]:
    tail = (1.0 - ci) / 2.0
    low, high = np.quantile(draws, [tail, 1.0 - tail])
    return float(low), float(high)


def _doubling(slope_per_day: float) -> float:
    """ln 2 / A for A > 0; +inf for A ≤ 0 (the quantity never doubles)."""
    return LN2 / slope_per_day if slope_per_day > 0 else math.inf


def _doubling_interval(slope_low: float, slope_high: float) -> tuple[float, float]:
    """Map a slope interval [a, b] through ln2/A (decreasing for A > 0): [ln2/b, ln2/a].

    a ≤ 0 < b gives an infinite upper bound; b ≤ 0 gives (inf, inf): no doubling at all.
    """
    if not (math.isfinite(slope_low) and math.isfinite(slope_high)):
        return math.nan, math.nan
    return _doubling(slope_high), _doubling(slope_low)


def _check_options(n_boot: int, ci: float, quantile: float) -> None:
    if not (isinstance(n_boot, (int, np.integer)) and n_boot >= 0):
        raise InputError(f"field 'n_boot': expected a non-negative integer, got {n_boot!r}")
    if not (0.0 < ci < 1.0):
        raise InputError(f"field 'ci': expected a level in (0, 1), got {ci!r}")
    if not (0.0 < quantile < 1.0):
        raise InputError(f"field 'quantile': expected a level in (0, 1), got {quantile!r}")


def _json_number(value: float) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


# --------------------------------------------------------------------------------------------
# TrendFit
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TrendFit:
    """ln ρ(t) = A·t + B fitted on one frontier choice, with its doubling time ln 2 / A.

    ``slope_per_day`` is A in 1/day whatever ``time_unit`` the fit used (``slope_per_time_unit``
    is A in that unit); ``intercept`` is B = ln ρ at the epoch. ``n_models`` counts the points
    the line was fitted to (the envelope's models for ``"envelope"``), ``n_candidates`` the usable
    input models. Bootstrap and analytic intervals of the doubling time are in days; an infinite
    upper bound means the slope interval reaches 0 or below; ``to_dict`` writes non-finite
    numbers as ``None``.
    """

    frontier: str
    slope_per_day: float
    intercept: float
    r_squared: float
    r_squared_kind: str
    doubling_time_days: float
    doubling_time_days_ci_low: float
    doubling_time_days_ci_high: float
    analytic_ci_low_days: float
    analytic_ci_high_days: float
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
        scalar = isinstance(dates, (str, pd.Timestamp, datetime, date, np.datetime64))
        items = [dates] if scalar else list(dates)  # type: ignore[arg-type]
        stamps = [_to_timestamp(d, field="dates", where=f"predict: item {i}")
                  for i, d in enumerate(items, start=1)]
        return _days_since(np.asarray(pd.DatetimeIndex(stamps), dtype="datetime64[ns]"), self.epoch)

    def confidence_band(self, dates: object) -> tuple[np.ndarray, np.ndarray]:
        """ln ρ band from the bootstrap slope interval, pivoting at the frontier points' centre.

        Lines through (t̄, A·t̄ + B) — t̄ the mean release time of the fitted points — with the
        slope at its lower and upper bootstrap bound; the band is their pointwise min and max.
        It shows the slope's uncertainty (what the doubling time's CI says), not the intercept's.
        """
        days = self._days(dates)
        centre = float(np.mean(self.points["t_days"])) if len(self.points) else 0.0
        level = self.slope_per_day * centre + self.intercept
        lines = [level + slope * (days - centre) for slope in (self.slope_per_day_ci_low, self.slope_per_day_ci_high) if math.isfinite(slope)]
        if not lines:
            fitted = level + self.slope_per_day * (days - centre)
            return fitted, fitted
        stacked = np.vstack(lines)
        return stacked.min(axis=0), stacked.max(axis=0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (non-finite numbers → None)."""
        return {
            "frontier": self.frontier,
            "slope_per_day": _json_number(self.slope_per_day),
            "intercept": _json_number(self.intercept),
            "r_squared": _json_number(self.r_squared),
            "r_squared_kind": self.r_squared_kind,
            "doubling_time_days": _json_number(self.doubling_time_days),
            "doubling_time_days_ci_low": _json_number(self.doubling_time_days_ci_low),
            "doubling_time_days_ci_high": _json_number(self.doubling_time_days_ci_high),
            "doubling_time_months": _json_number(self.doubling_time_months),
            "doubling_time_months_ci_low": _json_number(self.doubling_time_months_ci_low),
            "doubling_time_months_ci_high": _json_number(self.doubling_time_months_ci_high),
            "analytic_ci_low_days": _json_number(self.analytic_ci_low_days),
            "analytic_ci_high_days": _json_number(self.analytic_ci_high_days),
            "slope_per_day_ci_low": _json_number(self.slope_per_day_ci_low),
            "slope_per_day_ci_high": _json_number(self.slope_per_day_ci_high),
            "fraction_nonpositive_slope": _json_number(self.fraction_nonpositive_slope),
            "n_models": int(self.n_models),
            "n_candidates": int(self.n_candidates),
            "n_excluded": int(len(self.excluded)),
            "frontier_models": list(self.frontier_models),
            "epoch": self.epoch.date().isoformat(),
            "time_unit": self.time_unit,
            "quantile": self.quantile,
            "ci": self.ci,
            "n_boot": int(self.n_boot),
            "n_boot_failed": int(self.n_boot_failed),
            "seed": self.seed,
        }

    def to_frame(self) -> pd.DataFrame:
        """One row holding :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])

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
            f"  analytic  {level} CI [{fmt(self.analytic_ci_low_days)}, {fmt(self.analytic_ci_high_days)}] days",
        ]
        if self.fit_warnings:
            lines.append("warnings: " + "; ".join(self.fit_warnings))
        return "\n".join(lines)


def _fit_points(
    points: _Points,
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
    if frontier not in FRONTIERS:
        raise InputError(f"field 'frontier': expected one of {', '.join(FRONTIERS)}, got {frontier!r}")
    _check_options(n_boot, ci, quantile)
    unit = _unit_days(time_unit)
    days = _days_since(points.dates, epoch)
    t = days / unit
    index = _select(frontier, t, points.y, points.labels)
    _check_fittable(t[index], f"{what}, frontier {frontier!r}")
    alpha = 1.0 - ci
    line = _fit_line(frontier, t[index], points.y[index], quantile, alpha)
    slope_per_day = line.slope / unit

    draws = np.full(n_boot, np.nan)
    rng = np.random.default_rng(seed)
    n = len(t)
    for b in range(n_boot):
        pick = rng.integers(0, n, n)
        draws[b] = _bootstrap_slope(frontier, t[pick], points.y[pick], points.labels[pick], quantile) / unit
    ok = draws[np.isfinite(draws)]
    if ok.size:
        slope_low, slope_high = _interval(ok, ci)
        fraction_nonpositive = float(np.mean(ok <= 0))
    else:
        slope_low = slope_high = fraction_nonpositive = math.nan
    boot_low, boot_high = _doubling_interval(slope_low, slope_high)
    analytic_slope = (line.slope_ci[0] / unit, line.slope_ci[1] / unit)
    analytic_low, analytic_high = _doubling_interval(*analytic_slope)

    chosen = pd.DataFrame(
        {"model": points.labels[index], "release_date": points.dates[index],
         "density": points.values[index], "t_days": days[index], "y": points.y[index]}
    )
    return TrendFit(
        frontier=frontier,
        slope_per_day=slope_per_day,
        intercept=line.intercept,
        r_squared=line.r_squared,
        r_squared_kind="pseudo_r1_koenker_machado" if frontier == "quantile" else "ols_r_squared",
        doubling_time_days=_doubling(slope_per_day),
        doubling_time_days_ci_low=boot_low,
        doubling_time_days_ci_high=boot_high,
        analytic_ci_low_days=analytic_low,
        analytic_ci_high_days=analytic_high,
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
        slope_per_time_unit=line.slope,
        quantile=float(quantile) if frontier == "quantile" else None,
        ci=float(ci),
        n_boot=int(n_boot),
        n_boot_failed=int(n_boot - ok.size),
        seed=seed,
        points=chosen,
        excluded=excluded,
        fit_warnings=line.warnings,
    )


def _density_points(frame: pd.DataFrame) -> tuple[_Points, pd.DataFrame]:
    return _prepare(frame, value_column="density", date_column="release_date",
                    label_column="model", source="densities", unique_labels=True, sign=1.0)


def trend(
    frame: pd.DataFrame,
    *,
    frontier: str = "envelope",
    quantile: float = 0.9,
    epoch: object = DEFAULT_EPOCH,
    time_unit: str = "days",
    n_boot: int = 1000,
    seed: int | None = 0,
    ci: float = 0.95,
) -> TrendFit:
    """Fit the Densing Law ln ρmax(t) = A·t + B (Xiao et al. 2024, §3) on one frontier.

    ``frame`` needs ``model``, ``release_date`` (datetime or ISO string) and ``density``
    (ρ = N̂/N); one row per model. Rows with a missing date, a non-finite or non-positive
    density, or a non-empty ``censored`` reason are excluded and returned in ``.excluded``.
    t = (release_date − epoch) in ``time_unit``; doubling time = ln 2 / A in days (and
    months = days / (365.25/12)). The bootstrap resamples the usable models with replacement
    (``n_boot`` draws, ``seed``), recomputes the frontier and the fit, and maps the percentile
    interval of A through ln 2 / A. Raises InputError for bad input, FitError for fewer than 3
    frontier points or a single release date.
    """
    points, excluded = _density_points(frame)
    return _fit_points(points, excluded, frontier=frontier, quantile=quantile, epoch=_epoch(epoch),
                       time_unit=time_unit, n_boot=n_boot, seed=seed, ci=ci, what="densities")


def trend_all(
    frame: pd.DataFrame,
    *,
    frontiers: Iterable[str] = FRONTIERS,
    **options: Any,
) -> pd.DataFrame:
    """:func:`trend` for each frontier choice; one row per choice (the keys of ``TrendFit.to_dict``)."""
    return pd.concat([trend(frame, frontier=f, **options).to_frame() for f in frontiers],
                     ignore_index=True)


def sensitivity(
    frames: Mapping[str, pd.DataFrame],
    *,
    frontiers: Iterable[str] = FRONTIERS,
    **options: Any,
) -> pd.DataFrame:
    """Doubling time and its CIs for each labelled density frame and frontier choice.

    ``frames`` maps a label (a benchmark, a reference fit, a D0 …) to a density frame as for
    :func:`trend`. One row per (label, frontier) with the ``TrendFit.to_dict`` keys, plus
    ``label`` and ``error``: a label whose fit fails (FitError) keeps its row, with the message
    in ``error`` and the numbers missing, so no label disappears from the table.
    """
    if not isinstance(frames, Mapping) or not frames:
        raise InputError("sensitivity: expected a non-empty mapping of label -> density frame")
    rows: list[dict[str, Any]] = []
    frontiers = tuple(frontiers)
    for label, frame in frames.items():
        for frontier in frontiers:
            try:
                row = trend(frame, frontier=frontier, **options).to_dict()
                row["error"] = None
            except FitError as exc:
                row = {"frontier": frontier, "error": str(exc)}
            except InputError as exc:
                raise InputError(f"sensitivity label {label!r}: {exc}") from exc
            rows.append({"label": label, **row})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# breakpoint comparison
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BreakpointFit:
    """Slopes of ln ρ on t before and after a date, their ratio, and a test of equal slopes.

    One regression ln ρ = b0 + b1·t + b2·after + b3·t·after (t = days from the breakpoint,
    after = 1 on or after it): slope before = b1, slope after = b1 + b3; the equal-slopes test
    is the t-test (z-test for QuantReg) of b3 = 0.
    """

    frontier: str
    breakpoint_date: pd.Timestamp
    slope_before_per_day: float
    slope_after_per_day: float
    slope_ratio: float
    slope_ratio_ci_low: float
    slope_ratio_ci_high: float
    interaction_coefficient: float
    interaction_statistic: float
    interaction_p_value: float
    doubling_time_before_days: float
    doubling_time_after_days: float
    n_before: int
    n_after: int
    models_before: tuple[str, ...]
    models_after: tuple[str, ...]
    quantile: float | None
    ci: float
    n_boot: int
    n_boot_failed: int
    fraction_nonpositive_slope_before: float
    seed: int | None
    excluded: pd.DataFrame = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (non-finite numbers → None)."""
        return {
            "frontier": self.frontier,
            "breakpoint_date": self.breakpoint_date.date().isoformat(),
            "slope_before_per_day": _json_number(self.slope_before_per_day),
            "slope_after_per_day": _json_number(self.slope_after_per_day),
            "slope_ratio": _json_number(self.slope_ratio),
            "slope_ratio_ci_low": _json_number(self.slope_ratio_ci_low),
            "slope_ratio_ci_high": _json_number(self.slope_ratio_ci_high),
            "interaction_coefficient": _json_number(self.interaction_coefficient),
            "interaction_statistic": _json_number(self.interaction_statistic),
            "interaction_p_value": _json_number(self.interaction_p_value),
            "doubling_time_before_days": _json_number(self.doubling_time_before_days),
            "doubling_time_after_days": _json_number(self.doubling_time_after_days),
            "n_before": int(self.n_before),
            "n_after": int(self.n_after),
            "models_before": list(self.models_before),
            "models_after": list(self.models_after),
            "quantile": self.quantile,
            "ci": self.ci,
            "n_boot": int(self.n_boot),
            "n_boot_failed": int(self.n_boot_failed),
            "fraction_nonpositive_slope_before": _json_number(self.fraction_nonpositive_slope_before),
            "seed": self.seed,
            "n_excluded": int(len(self.excluded)),
        }

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self.to_dict()])

    def summary(self) -> str:
        return "\n".join([
            f"Breakpoint {self.breakpoint_date.date()}  frontier: {self.frontier}",
            f"before: A = {self.slope_before_per_day:.6g} /day  (n = {self.n_before}, "
            f"doubling {self.doubling_time_before_days:.1f} days)",
            f"after:  A = {self.slope_after_per_day:.6g} /day  (n = {self.n_after}, "
            f"doubling {self.doubling_time_after_days:.1f} days)",
            f"ratio after/before = {self.slope_ratio:.3g}  {self.ci:.0%} bootstrap CI "
            f"[{self.slope_ratio_ci_low:.3g}, {self.slope_ratio_ci_high:.3g}]  "
            f"({self.n_boot} draws, {self.n_boot_failed} unfittable)",
            f"equal slopes: interaction = {self.interaction_coefficient:.4g}, "
            f"statistic = {self.interaction_statistic:.3g}, p = {self.interaction_p_value:.3g}",
        ])


def _segment_index(method: str, days: np.ndarray, y: np.ndarray, labels: np.ndarray,
                   after: np.ndarray) -> np.ndarray:
    """Points of each segment: the envelope is recomputed within each segment."""
    parts = []
    for mask in (~after, after):
        where = np.flatnonzero(mask)
        parts.append(where[_select(method, days[where], y[where], labels[where])])
    return np.concatenate(parts)


def _segments_fittable(days: np.ndarray, after: np.ndarray) -> bool:
    for mask in (~after, after):
        if mask.sum() < 2 or np.unique(days[mask]).size < 2:
            return False
    return len(days) >= 5  # four coefficients and at least one residual degree of freedom


def breakpoint(
    frame: pd.DataFrame,
    date: object = CHATGPT_RELEASE,
    *,
    frontier: str = "envelope",
    quantile: float = 0.9,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci: float = 0.95,
) -> BreakpointFit:
    """Compare the density growth rate before and after ``date`` (default ChatGPT, 2022-11-30).

    Segmented regression in one model (Xiao et al. 2024, §3 "ChatGPT accelerated the trend")::

        ln ρ = b0 + b1·t + b2·after + b3·t·after,   t = days from ``date``, after = [date ≤ release]

    slope before = b1, after = b1 + b3, ratio = (b1 + b3) / b1, equal-slopes test H0: b3 = 0
    (OLS t-test for ``"envelope"``, HC3 t-test for ``"all"``, QuantReg's test for
    ``"quantile"``). The envelope is computed separately within each segment (a model released
    after ``date`` joins it by beating the post-``date`` record, not the all-time one). The
    ratio's interval is a percentile bootstrap over models (resample, re-select, refit).
    """
    from densing import _sm as sm

    if frontier not in FRONTIERS:
        raise InputError(f"field 'frontier': expected one of {', '.join(FRONTIERS)}, got {frontier!r}")
    _check_options(n_boot, ci, quantile)
    points, excluded = _density_points(frame)
    break_date = _to_timestamp(date, field="date", where="breakpoint")
    days = _days_since(points.dates, break_date)
    after_all = days >= 0
    index = _segment_index(frontier, days, points.y, points.labels, after_all)
    d, y, after = days[index], points.y[index], after_all[index]
    if not _segments_fittable(d, after):
        raise FitError(
            f"breakpoint {break_date.date()}, frontier {frontier!r}: need at least 2 points on two "
            f"dates on each side and 5 in all; have {int((~after).sum())} before, {int(after.sum())} after"
        )

    scale = float(np.std(d))  # fit in d / sd(d) for conditioning; slopes are rescaled back
    a = after.astype(float)
    design = np.column_stack([np.ones_like(d), d / scale, a, d / scale * a])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if frontier == "quantile":
                result, _ = _quantreg(y, design, quantile)
            elif frontier == "all":
                result = sm.OLS(y, design).fit(cov_type="HC3", use_t=True)
            else:
                result = sm.OLS(y, design).fit()
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise FitError(f"breakpoint fit failed: {exc}") from exc
    params = np.asarray(result.params)
    before_slope, after_slope = float(params[1]) / scale, float(params[1] + params[3]) / scale

    def slopes(dd: np.ndarray, yy: np.ndarray, aa: np.ndarray) -> tuple[float, float]:
        out = []
        for mask in (~aa, aa):
            tt, ys = dd[mask], yy[mask]
            if frontier == "quantile":
                sd = float(np.std(tt))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fit = sm.QuantReg(ys, sm.add_constant((tt - tt.mean()) / sd, has_constant="add")).fit(q=quantile)
                out.append(float(np.asarray(fit.params)[1]) / sd)
            else:
                c = tt - tt.mean()
                out.append(float(c @ (ys - ys.mean()) / (c @ c)))
        return out[0], out[1]

    rng = np.random.default_rng(seed)
    n = len(days)
    ratios = np.full(n_boot, np.nan)
    before_draws = np.full(n_boot, np.nan)
    for b in range(n_boot):
        pick = rng.integers(0, n, n)
        dd, yy, ll, aa = days[pick], points.y[pick], points.labels[pick], after_all[pick]
        sub = _segment_index(frontier, dd, yy, ll, aa)
        if not _segments_fittable(dd[sub], aa[sub]):
            continue
        try:
            s_before, s_after = slopes(dd[sub], yy[sub], aa[sub])
        except (np.linalg.LinAlgError, ValueError):
            continue
        before_draws[b] = s_before
        if s_before != 0:
            ratios[b] = s_after / s_before
    ok = ratios[np.isfinite(ratios)]
    low, high = _interval(ok, ci) if ok.size else (math.nan, math.nan)
    ok_before = before_draws[np.isfinite(before_draws)]
    return BreakpointFit(
        frontier=frontier,
        breakpoint_date=break_date,
        slope_before_per_day=before_slope,
        slope_after_per_day=after_slope,
        slope_ratio=after_slope / before_slope if before_slope != 0 else math.nan,
        slope_ratio_ci_low=low,
        slope_ratio_ci_high=high,
        interaction_coefficient=float(params[3]) / scale,
        interaction_statistic=float(np.asarray(result.tvalues)[3]),
        interaction_p_value=float(np.asarray(result.pvalues)[3]),
        doubling_time_before_days=_doubling(before_slope),
        doubling_time_after_days=_doubling(after_slope),
        n_before=int((~after).sum()),
        n_after=int(after.sum()),
        models_before=tuple(str(v) for v in points.labels[index][~after]),
        models_after=tuple(str(v) for v in points.labels[index][after]),
        quantile=float(quantile) if frontier == "quantile" else None,
        ci=float(ci),
        n_boot=int(n_boot),
        n_boot_failed=int(n_boot - ok.size),
        fraction_nonpositive_slope_before=float(np.mean(ok_before <= 0)) if ok_before.size else math.nan,
        seed=seed,
        excluded=excluded,
    )


# --------------------------------------------------------------------------------------------
# corollaries (§4)
# --------------------------------------------------------------------------------------------


def compression_density(pairs: pd.DataFrame, densities: pd.DataFrame) -> pd.DataFrame:
    """Density of each compressed model against its parent (Xiao et al. 2024, §4.2).

    ``pairs`` has ``compressed_model, parent_model, method``; ``densities`` has ``model`` and
    ``density`` (one row per model; censored or non-positive densities count as unknown).
    Returns one row per pair: ``compressed_density``, ``parent_density``,
    ``density_ratio`` = ρ_compressed / ρ_parent, ``density_increased`` (ratio > 1; missing when
    either density is unknown) and ``note`` naming a missing density.
    """
    if not isinstance(pairs, pd.DataFrame):
        raise InputError(f"pairs: expected a pandas DataFrame, got {type(pairs).__name__}")
    needed = ["compressed_model", "parent_model", "method"]
    missing = [c for c in needed if c not in pairs.columns]
    if missing:
        raise InputError(
            f"pairs: missing required column(s) {', '.join(missing)} "
            f"(have: {', '.join(map(str, pairs.columns)) or 'none'})"
        )
    if not isinstance(densities, pd.DataFrame):
        raise InputError(f"densities: expected a pandas DataFrame, got {type(densities).__name__}")
    frame = densities.copy()
    if "release_date" not in frame.columns:
        frame["release_date"] = pd.Timestamp(DEFAULT_EPOCH)  # dates play no part here
    points, excluded = _density_points(frame)
    known = dict(zip(points.labels, points.values))
    why = dict(zip(excluded["model"].astype(str), excluded["reason"]))
    rows = []
    for i, rec in enumerate(pairs.to_dict("records"), start=1):
        for column in needed[:2]:
            if is_missing(rec[column]):
                raise InputError(f"pairs: row {i}: field '{column}': expected a model name, got nothing")
        child, parent = str(rec["compressed_model"]), str(rec["parent_model"])
        notes = []
        for role, name in (("compressed", child), ("parent", parent)):
            if name not in known:
                notes.append(f"no density for {role} model {name!r}"
                             + (f" ({why[name]})" if name in why else ""))
        rho_child, rho_parent = known.get(child, math.nan), known.get(parent, math.nan)
        ratio = rho_child / rho_parent if not notes else math.nan
        rows.append({
            "compressed_model": child,
            "parent_model": parent,
            "method": rec["method"],
            "compressed_density": rho_child,
            "parent_density": rho_parent,
            "density_ratio": ratio,
            "density_increased": (bool(ratio > 1.0) if not notes else pd.NA),
            "note": "; ".join(notes) or None,
        })
    out = pd.DataFrame(rows, columns=["compressed_model", "parent_model", "method",
                                      "compressed_density", "parent_density", "density_ratio",
                                      "density_increased", "note"])
    out["density_increased"] = out["density_increased"].astype("boolean")
    return out


@dataclass(frozen=True, eq=False)
class CostHalvingFit:
    """ln price(t) = A·t + B with A < 0; halving time = ln 2 / (−A) (Xiao et al. 2024, §4.1).

    Fitted as the doubling of 1/price with the same machinery as :func:`trend`: the envelope is
    the running minimum of price (a point joins it by being strictly cheaper than every earlier
    one); the quantile frontier fits quantile 1 − q of ln price (the cheap edge).
    """

    frontier: str
    slope_per_day: float  # of ln price, negative when prices fall
    intercept: float  # ln price at the epoch
    r_squared: float
    r_squared_kind: str
    halving_time_days: float
    halving_time_days_ci_low: float
    halving_time_days_ci_high: float
    analytic_ci_low_days: float
    analytic_ci_high_days: float
    fraction_nonnegative_slope: float
    n_points: int
    frontier_points: tuple[str, ...]
    epoch: pd.Timestamp
    ci: float
    n_boot: int
    n_boot_failed: int
    excluded: pd.DataFrame = field(repr=False)

    @property
    def halving_time_months(self) -> float:
        return self.halving_time_days / DAYS_PER_MONTH

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (non-finite numbers → None)."""
        return {
            "frontier": self.frontier,
            "slope_per_day": _json_number(self.slope_per_day),
            "intercept": _json_number(self.intercept),
            "r_squared": _json_number(self.r_squared),
            "r_squared_kind": self.r_squared_kind,
            "halving_time_days": _json_number(self.halving_time_days),
            "halving_time_days_ci_low": _json_number(self.halving_time_days_ci_low),
            "halving_time_days_ci_high": _json_number(self.halving_time_days_ci_high),
            "halving_time_months": _json_number(self.halving_time_months),
            "halving_time_months_ci_low": _json_number(self.halving_time_days_ci_low / DAYS_PER_MONTH),
            "halving_time_months_ci_high": _json_number(self.halving_time_days_ci_high / DAYS_PER_MONTH),
            "analytic_ci_low_days": _json_number(self.analytic_ci_low_days),
            "analytic_ci_high_days": _json_number(self.analytic_ci_high_days),
            "fraction_nonnegative_slope": _json_number(self.fraction_nonnegative_slope),
            "n_points": int(self.n_points),
            "frontier_points": list(self.frontier_points),
            "epoch": self.epoch.date().isoformat(),
            "ci": self.ci,
            "n_boot": int(self.n_boot),
            "n_boot_failed": int(self.n_boot_failed),
            "n_excluded": int(len(self.excluded)),
        }

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self.to_dict()])

    def summary(self) -> str:
        return "\n".join([
            f"Inference price trend  ln price(t) = A·t + B   frontier: {self.frontier}",
            f"A = {self.slope_per_day:.6g} /day  B = {self.intercept:.4g}  "
            f"{self.r_squared_kind} = {self.r_squared:.3f}  points {self.n_points}",
            f"halving time {self.halving_time_days:.1f} days = {self.halving_time_months:.2f} months, "
            f"{self.ci:.0%} bootstrap CI [{self.halving_time_days_ci_low:.1f}, "
            f"{self.halving_time_days_ci_high:.1f}] days, analytic "
            f"[{self.analytic_ci_low_days:.1f}, {self.analytic_ci_high_days:.1f}]",
        ])


def cost_halving_time(
    prices: pd.DataFrame,
    *,
    frontier: str = "envelope",
    quantile: float = 0.9,
    epoch: object = DEFAULT_EPOCH,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci: float = 0.95,
) -> CostHalvingFit:
    """Halving time of inference price: ln p(t) = A·t + B, halving = ln 2 / (−A) (§4.1).

    ``prices`` has ``date`` and ``price_per_million_tokens`` (> 0), optionally ``model``
    (the same model may appear at several dates, e.g. after price cuts). The paper reports the
    price of GPT-3.5-level models halving roughly every 2.6 months. ``quantile`` is the
    upper quantile of −ln price, i.e. quantile 1 − q of ln price. Bootstrap resamples rows.
    """
    label_column = "model" if isinstance(prices, pd.DataFrame) and "model" in prices.columns else None
    points, excluded = _prepare(prices, value_column="price_per_million_tokens", date_column="date",
                                label_column=label_column, source="prices", unique_labels=False,
                                sign=-1.0)
    fit = _fit_points(points, excluded, frontier=frontier, quantile=quantile, epoch=_epoch(epoch),
                      time_unit="days", n_boot=n_boot, seed=seed, ci=ci, what="prices")
    return CostHalvingFit(
        frontier=frontier,
        slope_per_day=-fit.slope_per_day,
        intercept=-fit.intercept,
        r_squared=fit.r_squared,
        r_squared_kind=fit.r_squared_kind,
        halving_time_days=fit.doubling_time_days,
        halving_time_days_ci_low=fit.doubling_time_days_ci_low,
        halving_time_days_ci_high=fit.doubling_time_days_ci_high,
        analytic_ci_low_days=fit.analytic_ci_low_days,
        analytic_ci_high_days=fit.analytic_ci_high_days,
        fraction_nonnegative_slope=fit.fraction_nonpositive_slope,
        n_points=fit.n_models,
        frontier_points=fit.frontier_models,
        epoch=fit.epoch,
        ci=fit.ci,
        n_boot=fit.n_boot,
        n_boot_failed=fit.n_boot_failed,
        excluded=excluded,
    )
