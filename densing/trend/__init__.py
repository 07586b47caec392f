"""ln(density) over release dates: the doubling time of the Densing Law, and the §4 corollaries.

The Densing Law (Xiao et al. 2024, arXiv 2412.04315, §3) says the maximum capacity density of
open LLMs grows exponentially with release date::

    ln ρmax(t) = A·t + B,        doubling time = ln 2 / A

with t in days since an epoch (default 2023-02-24, the release of Llama-1). The paper reports
A ≈ 0.0073/day (doubling every ≈ 3.3 months), R² ≈ 0.91.

One entry point per question, all on one uncertainty engine (:mod:`.uncertainty`: the reference
fit's draws, each score's standard error, the sampling of models and, with several references,
the choice among them):

- :func:`densing.fit_trend` (:mod:`.doubling`): the doubling time of a score table against a
  reference, with the CLI's defaults;
- :func:`densing.measure_trend` (:mod:`.measure`): the measurement ``densing trend`` and the
  report show — the headline with its validity checks, the rows per benchmark and per set, the
  verdict.

Modules: :mod:`.targets` (which models enter), :mod:`.rules` (the frontier rules: the censored
0.9 regression quantile, the paper's envelope, the Tobit mean line; :mod:`.censored`), :mod:`.capability` (rows per
benchmark and set), :mod:`.checks`, :mod:`.measurement` (the result types). The references' rule (v3) is
:mod:`densing.laws.eligibility`'s, and the inversions themselves (score → ρ, per benchmark or jointly) are
:mod:`densing.laws.inversion`'s.

A second estimator beside the envelope, with no reference: :mod:`.fixed_size` (the fixed-size time regression, logit
of the score above chance on ln N and t, clustered by family; :func:`.fixed_size.fixed_size_rows` gives a table's
rows). The forecast check at several cutoffs is :func:`.forecast.forecast_windows`.

Corollaries of §4 (other quantities than the doubling time): :func:`compression_density` (does
compression raise density?) and :func:`cost_halving_time` (inference price halving time, a line
through the prices, the one engine on them: :func:`.uncertainty.observed_trend`).
"""
from __future__ import annotations

from densing.constants import CHATGPT_RELEASE, DAYS_PER_MONTH, DEFAULT_EPOCH

#: The package's names made on first use (importing the package, or one light module of it such as
#: :mod:`.tables`, loads no estimator).
_LAZY = {"CostHalvingFit": "corollaries", "compression_density": "corollaries", "cost_halving_time": "corollaries"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"densing.trend.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'densing.trend' has no attribute {name!r}")

__all__ = [
    "CHATGPT_RELEASE",
    "DAYS_PER_MONTH",
    "DEFAULT_EPOCH",
    "CostHalvingFit",
    "compression_density",
    "cost_halving_time",
]
