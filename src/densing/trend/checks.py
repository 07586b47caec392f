"""Validity checks of a density trend: can this reference measure the frontier at all?

Each check is computed on the data and returns a :class:`Check` (value, threshold, status, words)
whose ``status`` is ``passed``, ``failed`` or ``untestable`` (the data cannot decide: said so,
never counted as a failure nor as a pass). The thresholds are fixed here, before any trend on the
family references was looked at (the size check's equivalence form and margin, and the
"untestable" status replace an earlier "the CI contains 0" / "failed" form, and were fixed before those
results were computed; git history holds the change):

- **saturation** — a frontier model whose score is within 2 standard errors of the highest score
  the reference expresses at D0 (:func:`densing.laws.bounds.score_cap`) has a density set by that
  cap, not by the model. Fails if any frontier model is saturated.
- **conditioning** — κ, how many-fold ρ moves for one standard error of the score
  (:func:`densing.laws.inversion.conditioning`). Fails if the median κ over the frontier models
  exceeds 2.
- **size dependence** — within one recipe density should not depend on size if the reference law
  has the targets' shape: OLS of ln ρ on ln N with one intercept per family (families with ≥ 2
  sizes, exact densities), HC3 interval. An *equivalence* test (two one-sided tests at 2.5% each,
  i.e. the 95% interval): passes if the interval lies inside ±:data:`SIZE_SLOPE_MARGIN`, fails
  otherwise; untestable with fewer than :data:`MIN_SIZE_FAMILIES` such families.
- **sensitivity** — the doubling time across the eligible references (per-benchmark and joint
  inversions) and, for references that identify a data term, D0. Fails if any is not finite or
  the largest is more than twice the smallest; untestable with fewer than 2 variants.

A measurement is reported when no check has failed; an untestable check is named beside it. Every row
of the capability trend (:func:`densing.trend.capability.trend_row`) runs saturation, conditioning and
sensitivity under its own references; the headline's row adds size confounding.

**The capability trend's checks** (written with rule v2 of :mod:`densing.laws.eligibility` and kept
unchanged under rule v3; fixed here before any trend under rule v2 was computed; the issue that asked for them had measured, exploring, that adding
ln N changes the doubling time by ≤ 1.3× under 7 of 8 family references — the factor below was set
knowing that, and is not tuned to any result of this code):

- **size confounding** replaces size dependence as the gate. What the size check guards against is
  the size mix of the targets confounding the trend (larger models released later, and denser or
  less dense by the reference's shape alone). The frontier line is refitted with ln N as a
  covariate — Powell's censored 0.9 quantile of ln ρ on (1, t, ln N)
  (:func:`densing.trend.censored.censored_quantile_coefficients`) — and the size-adjusted doubling
  time ln 2 / A_adj compared with the headline's ln 2 / A: fails if their ratio lies outside
  [1/:data:`MAX_SIZE_CONFOUNDING_RATIO`, :data:`MAX_SIZE_CONFOUNDING_RATIO`] or the adjusted slope is
  not positive; untestable with fewer than :data:`MIN_SIZE_CONFOUNDING_MODELS` exact densities.
- **size dependence** (the within-family slope above) stays reported as a finding (status
  ``reported``), not a gate.
- **sensitivity** compares the candidate references of the *same* benchmark set (their own point
  doubling times, within a factor :data:`MAX_SENSITIVITY_RATIO`); benchmarks disagreeing with each
  other is the per-benchmark table, not a failure.
- saturation and conditioning as above. With several candidate references each check is computed
  under every one of them and fails if it fails under any (:func:`under_references`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from densing.numbers import format_number
from densing.results import Result

SATURATION_STDERRS = 2.0
MAX_MEDIAN_CONDITIONING = 2.0
MAX_SENSITIVITY_RATIO = 2.0
#: |within-family slope of ln ρ on ln N| the 95% interval must stay inside: ρ changing by at most
#: 2^0.25 ≈ 1.19× per doubling of N, i.e. ≤ 1.8× across a 10× family.
SIZE_SLOPE_MARGIN = 0.25
MIN_SIZE_FAMILIES = 2
#: Size confounding: the largest factor between the size-adjusted and the headline doubling time.
MAX_SIZE_CONFOUNDING_RATIO = 1.5
MIN_SIZE_CONFOUNDING_MODELS = 10

PASSED, FAILED, UNTESTABLE = "passed", "failed", "untestable"
#: A finding shown beside the checks that gates nothing (the within-family slope under rules v2 and v3).
REPORTED = "reported"


@dataclass(frozen=True)
class Check(Result):
    name: str
    value: float
    threshold: str
    status: str
    detail: str

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def failed(self) -> bool:
        return self.status == FAILED

    def to_dict(self) -> dict:
        return {**super().to_dict(), "passed": self.passed}


def _status(ok: bool) -> str:
    return PASSED if ok else FAILED


def _g(value: float) -> str:
    """A number for the words of a check: 3 significant digits, ∞ for an infinity."""
    return format_number(value, ".3g")


def saturation(scores, stderr, cap: float, models) -> Check:
    """Frontier models whose score S ≥ S_cap − 2σ (module docstring)."""
    scores, sigma = np.asarray(scores, float), np.nan_to_num(np.asarray(stderr, float))
    if scores.size == 0:
        return Check("saturation", math.nan, "0 frontier models within 2 SE of the cap", UNTESTABLE, "no frontier model")
    near = scores >= cap - SATURATION_STDERRS * sigma
    names = [str(m) for m, flag in zip(models, near) if flag]
    return Check(
        "saturation", float(near.sum()), f"0 of {len(scores)} frontier models within {SATURATION_STDERRS:g} SE of the cap",
        _status(near.sum() == 0),
        f"{int(near.sum())} of {len(scores)} frontier models within {SATURATION_STDERRS:g} standard errors of the highest "
        f"score the reference expresses ({format_number(cap)})" + (f": {', '.join(names)}" if names else ""),
    )


def conditioning(kappa, models) -> Check:
    """Median κ over the frontier models (module docstring); an infinite κ counts as infinite."""
    kappa = np.asarray(kappa, float)
    if kappa.size == 0:
        return Check("conditioning", math.nan, f"median κ ≤ {MAX_MEDIAN_CONDITIONING:g}", UNTESTABLE, "no frontier model")
    kappa = np.where(np.isnan(kappa), np.inf, kappa)
    median = float(np.median(kappa))
    worst = int(np.argmax(kappa))
    detail = (f"median over {kappa.size} frontier models: one standard error of the score moves ρ {_g(median)}-fold"
              f" (worst {models[worst]}: {_g(kappa[worst])}-fold)")
    return Check("conditioning", median, f"median κ ≤ {MAX_MEDIAN_CONDITIONING:g}", _status(median <= MAX_MEDIAN_CONDITIONING), detail)


def size_dependence(frame: pd.DataFrame, level: float = 0.95, margin: float = SIZE_SLOPE_MARGIN) -> Check:
    """Within-family slope of ln ρ on ln N with family fixed effects, as an equivalence test.

    ``frame``: ``family``, ``params``, ``log_density`` (exact densities only). Passes when the
    ``level`` interval of the slope lies inside ±``margin`` (module docstring).
    """
    threshold = f"{level:.0%} CI of the slope inside ±{margin:g}"
    data = frame.dropna(subset=["family", "log_density"])
    sizes = data.groupby("family")["params"].nunique()
    data = data[data["family"].isin(sizes[sizes >= 2].index)]
    families = data["family"].nunique()
    if families < MIN_SIZE_FAMILIES or len(data) < families + 2:
        return Check("size_dependence", math.nan, threshold, UNTESTABLE,
                     f"{families} target famil{'y' if families == 1 else 'ies'} with two or more sizes "
                     f"(need {MIN_SIZE_FAMILIES}): the within-family slope cannot be estimated")
    design = pd.get_dummies(data["family"].astype(str), dtype=float)
    design.insert(0, "log_params", np.log(data["params"].to_numpy(float)))
    slope, low, high = ols_hc3_first(design.to_numpy(float), data["log_density"].to_numpy(float), level)
    inside = -margin <= low and high <= margin
    return Check(
        "size_dependence", slope, threshold, _status(inside),
        f"within-family slope of ln ρ on ln N: {slope:+.3f} (95% CI {low:+.3f} to {high:+.3f}, "
        f"{'inside' if inside else 'not inside'} ±{margin:g}; {families} families, {len(data)} models, "
        "family fixed effects, HC3)",
    )


def size_confounding(t, y, kind, params, quantile: float = 0.9) -> Check:
    """The frontier's doubling time with and without ln N as a covariate (module docstring).

    ``t`` days, ``y`` ln ρ (or its bound), ``kind`` 0/+1/−1 (NaN dropped), ``params`` N, one per model.
    """
    from densing.trend.censored import censored_quantile_coefficients
    from densing.trend.lines import doubling_months

    t, y, kind, params = (np.asarray(a, float) for a in (t, y, kind, params))
    use = np.isfinite(y) & np.isfinite(kind) & np.isfinite(t) & (params > 0)
    factor = MAX_SIZE_CONFOUNDING_RATIO
    threshold = f"size-adjusted / headline doubling time within ×{factor:g}"
    if int((kind[use] == 0).sum()) < MIN_SIZE_CONFOUNDING_MODELS or np.ptp(np.log(params[use])) == 0:
        return Check("size_confounding", math.nan, threshold, UNTESTABLE,
                     f"{int((kind[use] == 0).sum())} exact densities (need {MIN_SIZE_CONFOUNDING_MODELS}) or one size only")
    t, y, kind, log_n = t[use], y[use], kind[use].astype(int), np.log(params[use])
    base = censored_quantile_coefficients(np.column_stack([np.ones_like(t), t]), y, kind, quantile)
    sized = censored_quantile_coefficients(np.column_stack([np.ones_like(t), t, log_n - log_n.mean()]), y, kind, quantile)
    months = [doubling_months(b[1]) for b in (base, sized)]
    ratio = months[1] / months[0] if all(math.isfinite(m) for m in months) else math.inf
    ok = math.isfinite(ratio) and 1 / factor <= ratio <= factor
    return Check(
        "size_confounding", ratio, threshold, _status(ok),
        f"doubling time {_g(months[0])} months; with ln N in the frontier regression {_g(months[1])} months "
        f"(×{_g(ratio)}; ln N coefficient {sized[2]:+.3f}; censored {quantile:g} quantile, {t.size} models)",
    )


def under_references(found: dict[str, Check]) -> Check:
    """One check over several candidate references: failed if it fails under any, passed if it passes under every
    one that can test it, untestable if none can; the detail names each reference's result."""
    items = list(found.items())
    if len(items) == 1:
        return items[0][1]
    first = items[0][1]
    statuses = [c.status for _, c in items]
    status = FAILED if FAILED in statuses else (UNTESTABLE if all(s == UNTESTABLE for s in statuses) else
                                                (REPORTED if REPORTED in statuses else PASSED))
    values = [c.value for _, c in items if isinstance(c.value, (int, float)) and math.isfinite(c.value)]
    worst = max(values, key=lambda v: abs(math.log(v)) if first.name == "size_confounding" and v > 0 else v) if values else math.nan
    detail = "; ".join(f"under {name}: {c.status}, {c.detail}" for name, c in items)
    return Check(first.name, float(worst), first.threshold + " under every candidate reference", status, detail)


def ols_hc3_first(x: np.ndarray, y: np.ndarray, level: float) -> tuple[float, float, float]:
    """OLS coefficient of the first column of ``x`` and its normal-theory interval with HC3 errors.

        β̂ = (XᵀX)⁻¹Xᵀy,  Cov_HC3 = (XᵀX)⁻¹ Xᵀ diag(e_i² / (1 − h_ii)²) X (XᵀX)⁻¹  (MacKinnon & White 1985)

    the same numbers as statsmodels' ``OLS(y, x).fit(cov_type="HC3")`` (tested against it), without
    importing statsmodels (≈0.5 s of the report's start-up).
    """
    from scipy.special import ndtri  # the standard normal quantile (what scipy.stats.norm.ppf computes), without importing scipy.stats (≈0.25 s)

    xtx_inv = np.linalg.pinv(x.T @ x)
    beta = xtx_inv @ x.T @ y
    resid = y - x @ beta
    leverage = np.einsum("ij,jk,ik->i", x, xtx_inv, x)
    omega = (resid / (1.0 - leverage)) ** 2
    cov = xtx_inv @ (x.T * omega) @ x @ xtx_inv
    z = float(ndtri(0.5 + level / 2))
    se = float(np.sqrt(cov[0, 0]))
    return float(beta[0]), float(beta[0] - z * se), float(beta[0] + z * se)


def sensitivity(doubling_months, labels=None) -> Check:
    """Spread of the doubling time across eligible references and inversions (module docstring)."""
    values = np.asarray(doubling_months, float)
    threshold = f"largest / smallest ≤ {MAX_SENSITIVITY_RATIO:g}, all finite"
    if values.size < 2:
        return Check("sensitivity", math.nan, threshold, UNTESTABLE,
                     f"{values.size} variant{'' if values.size == 1 else 's'}: nothing to compare")
    finite = values[np.isfinite(values) & (values > 0)]
    ratio = math.inf if finite.size < values.size or finite.size == 0 else float(finite.max() / finite.min())
    detail = (f"{values.size} variants: {finite.size} finite, from {finite.min():.3g} to {finite.max():.3g} months"
              if finite.size else f"{values.size} variants: none finite")
    if labels is not None and finite.size < values.size:
        bad = [str(label) for label, v in zip(labels, values) if not (math.isfinite(v) and v > 0)]
        detail += f" (not finite: {', '.join(bad)})"
    return Check("sensitivity", ratio, threshold, _status(ratio <= MAX_SENSITIVITY_RATIO), detail)


def plain_reason(check: Check, sensitivity: pd.DataFrame) -> str:
    """One plain sentence for a failed check (the check's own ``detail`` keeps the numbers in full)."""
    if check.name == "size_dependence":
        return (f"Within a family, larger models come out denser (ln ρ rises {check.value:+.2f} per unit of ln N; the rule "
                f"needs a slope shown to lie within ±{SIZE_SLOPE_MARGIN:g}), so the reference's shape in N does not "
                "match the targets' and density mixes size with release date.")
    if check.name == "sensitivity":
        values = sensitivity["doubling_time_months"].to_numpy(float)
        finite = values[np.isfinite(values)]
        spread = f"from {finite.min():.1f} to {finite.max():.1f} months" if finite.size else "none finite"
        return (f"The eligible references and inversions disagree: their doubling times run {spread}, more than the factor "
                f"{MAX_SENSITIVITY_RATIO:g} the rule allows.")
    if check.name == "size_confounding":
        return (f"Adding model size to the frontier regression changes the doubling time {_g(check.value)}-fold (the rule "
                f"allows {MAX_SIZE_CONFOUNDING_RATIO:g}), so the targets' size mix confounds the trend.")
    if check.name == "saturation":
        return "Frontier models score at the highest score the reference can express, so their densities are set by that cap."
    if check.name == "conditioning":
        return f"One standard error of a frontier model's score moves its density {_g(check.value)}-fold (the rule allows 2)."
    return f"{check.name}: {check.detail}."
