"""Slopes before and after a date (the paper's ChatGPT breakpoint)."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from densing.errors import FitError, InputError
from densing.trend.constants import CHATGPT_RELEASE, FRONTIERS
from densing.trend.scope import to_timestamp, days_since
from densing.trend.lines import select_frontier, quantreg, percentile_interval, doubling_days, check_options
from densing.numbers import json_number
from densing.trend.fits import density_points

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
            "slope_before_per_day": json_number(self.slope_before_per_day),
            "slope_after_per_day": json_number(self.slope_after_per_day),
            "slope_ratio": json_number(self.slope_ratio),
            "slope_ratio_ci_low": json_number(self.slope_ratio_ci_low),
            "slope_ratio_ci_high": json_number(self.slope_ratio_ci_high),
            "interaction_coefficient": json_number(self.interaction_coefficient),
            "interaction_statistic": json_number(self.interaction_statistic),
            "interaction_p_value": json_number(self.interaction_p_value),
            "doubling_time_before_days": json_number(self.doubling_time_before_days),
            "doubling_time_after_days": json_number(self.doubling_time_after_days),
            "n_before": int(self.n_before),
            "n_after": int(self.n_after),
            "models_before": list(self.models_before),
            "models_after": list(self.models_after),
            "quantile": self.quantile,
            "ci": self.ci,
            "n_boot": int(self.n_boot),
            "n_boot_failed": int(self.n_boot_failed),
            "fraction_nonpositive_slope_before": json_number(self.fraction_nonpositive_slope_before),
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
        parts.append(where[select_frontier(method, days[where], y[where], labels[where])])
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
    check_options(n_boot, ci, quantile)
    points, excluded = density_points(frame)
    break_date = to_timestamp(date, field="date", where="breakpoint")
    days = days_since(points.dates, break_date)
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
                result, _ = quantreg(y, design, quantile)
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
    low, high = percentile_interval(ok, ci) if ok.size else (math.nan, math.nan)
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
        doubling_time_before_days=doubling_days(before_slope),
        doubling_time_after_days=doubling_days(after_slope),
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
