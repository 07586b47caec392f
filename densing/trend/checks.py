"""Validity checks of a density trend: can this reference measure the frontier at all?

Each check is computed on the data and returns a :class:`Check` (value, threshold, passed, words).
The thresholds are fixed here, before any trend is looked at:

- **saturation** — a frontier model whose score is within 2 standard errors of the highest score
  the reference expresses at D0 (:func:`densing.trend.bounds.score_cap`) has a density set by that
  cap, not by the model. Fails if any frontier model is saturated.
- **conditioning** — κ, how many-fold ρ moves for one standard error of the score
  (:func:`densing.density.conditioning`). Fails if the median κ over the frontier models exceeds 2.
- **size dependence** — within one recipe density should not depend on size if the reference law
  has the targets' shape: OLS of ln ρ on ln N with one intercept per family (families with ≥ 2
  sizes, exact densities), HC3 interval. Fails if the 95% interval of the slope excludes 0.
- **sensitivity** — the doubling time across the candidate references, benchmarks and D0.
  Fails if any is not finite or the largest is more than twice the smallest.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

SATURATION_STDERRS = 2.0
MAX_MEDIAN_CONDITIONING = 2.0
MAX_SENSITIVITY_RATIO = 2.0


@dataclass(frozen=True)
class Check:
    name: str
    value: float
    threshold: str
    passed: bool
    detail: str

    def to_dict(self) -> dict:
        out = asdict(self)
        out["value"] = None if not math.isfinite(self.value) else self.value
        return out


def _g(value: float) -> str:
    """A number for the words of a check: 3 significant digits, ∞ for an infinity."""
    value = float(value)
    return ("∞" if value > 0 else "−∞") if math.isinf(value) else f"{value:.3g}"


def saturation(scores, stderr, cap: float, models) -> Check:
    """Frontier models whose score S ≥ S_cap − 2σ (module docstring)."""
    scores, sigma = np.asarray(scores, float), np.nan_to_num(np.asarray(stderr, float))
    near = scores >= cap - SATURATION_STDERRS * sigma
    names = [str(m) for m, flag in zip(models, near) if flag]
    return Check(
        "saturation", float(near.sum()), f"0 of {len(scores)} frontier models within {SATURATION_STDERRS:g} SE of the cap",
        bool(near.sum() == 0),
        f"{int(near.sum())} of {len(scores)} frontier models within {SATURATION_STDERRS:g} standard errors of the highest "
        f"score the reference expresses at D0 ({cap:.4f})" + (f": {', '.join(names)}" if names else ""),
    )


def conditioning(kappa, models) -> Check:
    """Median κ over the frontier models (module docstring); an infinite κ counts as infinite."""
    kappa = np.asarray(kappa, float)
    kappa = np.where(np.isnan(kappa), np.inf, kappa)
    median = float(np.median(kappa)) if kappa.size else math.nan
    worst = int(np.argmax(kappa)) if kappa.size else None
    detail = (f"median over {kappa.size} frontier models: one standard error of the score moves ρ {_g(median)}-fold"
              + (f" (worst {models[worst]}: {_g(kappa[worst])}-fold)" if worst is not None else ""))
    return Check("conditioning", median, f"median κ ≤ {MAX_MEDIAN_CONDITIONING:g}", bool(median <= MAX_MEDIAN_CONDITIONING), detail)


def size_dependence(frame: pd.DataFrame, level: float = 0.95) -> Check:
    """Within-family slope of ln ρ on ln N with family fixed effects (module docstring).

    ``frame``: ``family``, ``params``, ``log_density`` (exact densities only).
    """
    from densing._sm import OLS

    data = frame.dropna(subset=["family", "log_density"])
    sizes = data.groupby("family")["params"].nunique()
    data = data[data["family"].isin(sizes[sizes >= 2].index)]
    if data["family"].nunique() < 1 or len(data) < data["family"].nunique() + 2:
        return Check("size_dependence", math.nan, "95% CI of the slope contains 0", False,
                     "too few families with two or more sizes to estimate the within-family slope")
    design = pd.get_dummies(data["family"].astype(str), dtype=float)
    design.insert(0, "log_params", np.log(data["params"].to_numpy(float)))
    result = OLS(data["log_density"].to_numpy(float), design.to_numpy(float)).fit(cov_type="HC3")
    slope = float(result.params[0])
    low, high = (float(v) for v in result.conf_int(alpha=1 - level)[0])
    families = data["family"].nunique()
    return Check(
        "size_dependence", slope, "95% CI of the slope contains 0", bool(low <= 0 <= high),
        f"within-family slope of ln ρ on ln N: {slope:+.3f} (95% CI {low:+.3f} to {high:+.3f}; {families} families, "
        f"{len(data)} models, family fixed effects, HC3)",
    )


def sensitivity(doubling_months) -> Check:
    """Spread of the doubling time across references, benchmarks and D0 (module docstring)."""
    values = np.asarray(doubling_months, float)
    finite = values[np.isfinite(values) & (values > 0)]
    if finite.size < values.size or finite.size == 0:
        ratio = math.inf
    else:
        ratio = float(finite.max() / finite.min())
    detail = (f"{values.size} variants: {finite.size} finite, from {finite.min():.3g} to {finite.max():.3g} months"
              if finite.size else f"{values.size} variants: none finite")
    return Check("sensitivity", ratio, f"largest / smallest ≤ {MAX_SENSITIVITY_RATIO:g}, all finite",
                 bool(ratio <= MAX_SENSITIVITY_RATIO), detail)
