"""``t3``: T3-style fine-grained producer/collective fusion (Pati et al. 2024, arXiv 2401.16677): the collective
streams out of its producer GEMM, slowed by γ while they overlap (:func:`t3_step_time_s`); what-if only, no hooks."""

from __future__ import annotations

from densing.errors import InputError
from densing.overlap.strategies.base import Strategy, WhatIfPoint
from densing.validation import CONTENTION


def t3_step_time_s(compute_s: float, allreduce_s: float, contention: float) -> float:
    """T3 (Pati et al. 2024) fused producer/collective:  T = max(C + γ·min(C, T_ar), T_ar).

    The overlapped time min(C, T_ar) costs γ extra compute (memory-bandwidth contention); γ > −1
    (:data:`densing.validation.CONTENTION`: a measured γ may be below 0, a GEMM that ran faster beside the collective).
    """
    if not CONTENTION.matches(contention):
        raise InputError(f"contention (γ): expected {CONTENTION}, got {contention}")
    return max(compute_s + contention * min(compute_s, allreduce_s), allreduce_s)


def step_time_s(point: WhatIfPoint) -> float:
    return t3_step_time_s(point.compute_s, point.allreduce_s, point.contention)


STRATEGY = Strategy(
    "t3", "T3 fused producer/collective (what-if only): overlap costs γ extra compute", step_time_s=step_time_s
)
