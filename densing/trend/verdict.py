"""What a row's draws determine, and the words for it: the ends of the interval and their Monte Carlo ranges, the
three states (measured, bounded, not measured), the one gate (the references' heterogeneity), the leave-one-family-out
table (:mod:`densing.trend.design`, steps 5–7).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from densing.numbers import format_number
from densing.results import Result
from densing.trend.rules import doubling_interval, doubling_months
from densing.trend.constants import DAYS_PER_MONTH

#: The level of the heterogeneity test: references "disagree" when Q's p-value is below it.
HETEROGENEITY_ALPHA = 0.05
#: An interval end is determined when its 95% Monte Carlo range spans at most this fraction of it (step 5).
END_STABILITY = 0.25


def end_range(draws: np.ndarray, q: float, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` Monte Carlo range of the q-quantile of ``draws`` (K of them): the order statistics at ranks
    K·q ∓ z·√(K·q·(1 − q)) (the binomial distribution of how many draws fall below the quantile; Hyndman & Fan 1996,
    the distribution-free interval of a quantile), the spread that reseeding the draws gives its end (step 6)."""
    from scipy.special import ndtri

    values = np.sort(np.asarray(draws, float))
    k = values.size
    if k < 2:
        return math.nan, math.nan
    half = float(ndtri(0.5 + level / 2)) * math.sqrt(k * q * (1 - q))
    low, high = int(math.floor(k * q - half)), int(math.ceil(k * q + half))
    return float(values[max(low, 0)]), float(values[min(high, k - 1)])


def months_interval(low: float, high: float) -> tuple[float, float]:
    """A slope interval (per day) as a doubling-time interval in months (an interval reaching 0 is unbounded)."""
    a, b = doubling_interval(low, high)
    return a / DAYS_PER_MONTH, b / DAYS_PER_MONTH


def heterogeneity_words(result) -> str:
    """The heterogeneity test of a :class:`~densing.trend.uncertainty.TrendUncertainty` in one clause: Q, its degrees of
    freedom and p-value, I², and τ as a factor on the doubling time's slope per year."""
    if result.heterogeneity_df == 0:
        return "one reference: heterogeneity not testable"
    tau = math.sqrt(max(result.tau_squared, 0.0)) * 365.25
    return (f"Q = {format_number(result.heterogeneity_q)} on {result.heterogeneity_df} df, "
            f"p = {format_number(result.heterogeneity_p)}, "
            f"I² = {result.i_squared:.0%}, τ = {format_number(tau)} in ln ρ per year")


def heterogeneity_check(result):
    """The heterogeneity test as a :class:`~densing.trend.checks.Check` (the checks table shows it beside the others):
    failed when Q's p-value is below :data:`HETEROGENEITY_ALPHA`, untestable with one reference."""
    from densing.trend import checks

    threshold = f"one common slope not rejected at {HETEROGENEITY_ALPHA:g} (Cochran's Q with the paired draws' covariance)"
    if result.heterogeneity_df == 0:
        return checks.Check("heterogeneity", math.nan, threshold, checks.UNTESTABLE, heterogeneity_words(result))
    status = checks.FAILED if result.heterogeneity_p < HETEROGENEITY_ALPHA else checks.PASSED
    return checks.Check("heterogeneity", float(result.heterogeneity_p), threshold, status, heterogeneity_words(result))


#: A failed gate of a row in words (the check's own detail keeps the numbers), the heterogeneity test aside. No check
#: but the heterogeneity test passes the gate rule (step 6): saturation, conditioning and size confounding fire in
#: more than 10% of the planted worlds where the estimate is right (studies/gate_calibration.results.txt), so they
#: are findings shown beside the number.
CHECK_WORDS: dict[str, str] = {}

#: The three states of a row (step 6).
MEASURED, BOUNDED, NOT_MEASURED = "measured", "bounded", "not measured"


def status_words(result, failed: tuple[str, ...] = ()) -> str:
    """A row's one status (module docstring, step 6) from its :class:`~densing.trend.uncertainty.TrendUncertainty`:
    "measured" (both ends of the interval determined), "bounded: " and which end is not determined, or
    "not measured: " and every reason — the heterogeneity test rejects one common slope, a gate in ``failed`` (checks
    or names of :data:`CHECK_WORDS`) fails, or neither end of the interval is determined."""
    reasons = []
    if result.heterogeneity_df > 0 and result.heterogeneity_p < HETEROGENEITY_ALPHA:
        own = ", ".join(f"{name.split(':')[0]} {_m(s)}" for name, s in zip(result.reference_names, result.reference_slopes))
        reasons.append(f"its references disagree beyond their shared uncertainty (Q = {format_number(result.heterogeneity_q)} "
                       f"on {result.heterogeneity_df} df, p = {format_number(result.heterogeneity_p)}; {own} months)")
    names = [getattr(check, "name", check) for check in failed]  # checks or their names
    reasons += [CHECK_WORDS.get(name, name) for name in names]
    low, high = result.low_determined, result.high_determined
    if not (low or high):
        reasons.append("neither end of its interval is determined" if result.slope_ci_low > 0 else
                       "its interval reaches a zero slope and its lower end is not determined")
    if reasons:
        return f"{NOT_MEASURED}: " + "; ".join(reasons)
    if low and high:
        return MEASURED
    if low:
        # the range's near edge ("beyond X months") is the row's ci_high_beyond and the verdict's, not the status's:
        # one status, the same words, on every row it fits
        why = ("its interval reaches a zero slope" if not result.slope_ci_low > 0 else
               "it moves with the Monte Carlo draws")
        return f"{BOUNDED}: the upper end is not determined ({why})"
    return f"{BOUNDED}: the lower end is not determined (it moves with the Monte Carlo draws)"


def _m(slope: float) -> str:
    from densing.numbers import format_months

    months = doubling_months(slope)
    return format_months(months) if math.isfinite(months) else "∞"




@dataclass(frozen=True)
class FamilyInfluence(Result):
    """One family left out of a row's targets (:func:`densing.trend.design.family_influence`): the point doubling
    time without its models and the move from the row's estimate (months; ∞ where the line no longer rises)."""

    family: str
    n_models: int
    doubling_time_months: float
    move_months: float


def determined_ends(ends_mc: tuple, slope_low: float, slope_high: float) -> dict:
    """The doubling time's interval ends' Monte Carlo ranges in months and whether each is determined: finite, and its
    95% range at most :data:`END_STABILITY` of the end. ``ends_mc``: the slope's ends' ranges (:func:`end_range`)."""
    (low_a, low_b), (high_a, high_b) = ends_mc  # the slope's low end's range, the slope's high end's
    out = {"months_low_mc_low": doubling_months(high_b), "months_low_mc_high": doubling_months(high_a),
           "months_high_mc_low": doubling_months(low_b), "months_high_mc_high": doubling_months(low_a)}
    ends = {"low": doubling_months(slope_high), "high": doubling_months(slope_low)}
    for end, value in ends.items():
        a, b = out[f"months_{end}_mc_low"], out[f"months_{end}_mc_high"]
        out[f"{end}_determined"] = bool(all(math.isfinite(v) for v in (a, b, value)) and b - a <= END_STABILITY * value)
    return out


def influence_items(result) -> tuple:
    point = doubling_months(result.slope_per_day)
    return tuple(FamilyInfluence(str(r.family), int(r.n_models), doubling_months(r.slope_per_day),
                                 doubling_months(r.slope_per_day) - point)
                 for r in result.influence.itertuples()) if len(result.influence) else ()




def most_influential_model(result) -> dict:
    """The target whose removal moves a row's point estimate most (leave one model out: a model's date or score that
    carries the line), and the doubling time without it (months; ∞ where the line no longer rises)."""
    frame = result.model_influence
    if not len(frame):
        return {"most_influential_model": "", "months_without_model": math.nan}
    point = doubling_months(result.slope_per_day)
    months = np.array([doubling_months(v) for v in frame["slope_per_day"]])
    with np.errstate(invalid="ignore"):  # ∞ − ∞: a line that rises neither with nor without the model
        move = np.nan_to_num(np.abs(months - point), nan=np.inf)
    top = int(np.argmax(move))
    return {"most_influential_model": str(frame["family"].iloc[top]), "months_without_model": float(months[top])}


def determined_words(result) -> str:
    """What the draws determine, in words: "3.61 months [95% CI 2.59–5.1]" (both ends), "3.61 months, at least 2.59
    at 95%; the upper end not determined" (one), or the estimate and its interval, "neither end determined"."""
    from densing.numbers import format_months

    est, low, high = result.doubling_time_months, result.doubling_time_months_ci_low, result.doubling_time_months_ci_high
    shown = (lambda v: format_months(v) if math.isfinite(v) else "∞")  # noqa: E731
    level = f"{result.level:.0%}"
    if result.low_determined and result.high_determined:
        return f"{shown(est)} months [{level} CI {shown(low)}–{shown(high)}]"
    if result.low_determined:
        return f"{shown(est)} months, at least {shown(low)} at {level}; the upper end not determined"
    if result.high_determined:
        return f"{shown(est)} months, at most {shown(high)} at {level}; the lower end not determined"
    return f"{shown(est)} months [{level} CI {shown(low)}–{shown(high)}]; neither end determined"


def summary_items(result) -> list[tuple[str, object]]:
    """The first lines of a result's ``summary()``: its state, what is determined, the largest leave-one-family-out
    move (every family: ``influence_frame()``)."""
    items = [("state", result.state or "not judged"), ("doubling time", determined_words(result))]
    frame = result.influence_frame()
    if len(frame):
        top = frame.iloc[0]
        items.append(("leave one family out", f"without {top['family']} ({int(top['n_models'])} models): "
                      f"{top['doubling_time_months']:.3g} months (the largest move; every family: influence_frame())"))
    return items
