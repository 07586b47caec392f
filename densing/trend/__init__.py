"""ln(density) over release dates: the doubling time of the Densing Law, and the §4 corollaries.

The Densing Law (Xiao et al. 2024, arXiv 2412.04315, §3) says the maximum capacity density of open LLMs grows
exponentially with release date::

    ln ρmax(t) = A·t + B,        doubling time = ln 2 / A

with t in days since an epoch (default 2023-02-24, the release of Llama-1). The paper reports A ≈ 0.0073/day
(doubling every ≈ 3.3 months), R² ≈ 0.91. Entry points on one engine (:mod:`.pooling`): :func:`densing.fit_trend`
(:mod:`.doubling`) and :func:`densing.measure_trend` (:mod:`.measure`); the §4 corollaries :func:`compression_density`
and :func:`cost_halving_time` (:mod:`.corollaries`).
"""

from __future__ import annotations

from densing.constants import CHATGPT_RELEASE, DAYS_PER_MONTH, DEFAULT_EPOCH

#: The package's names made on first use (importing the package loads no estimator).
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
