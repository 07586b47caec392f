"""What an overlap strategy is: a name and up to three capabilities, each a plain function.

* ``step_time_s(point)`` — the what-if model (:func:`densing.overlap.whatif.predict`): predicted
  step time of data-parallel training at one :class:`WhatIfPoint` (workers, network, compute);
* ``predict_run_s(calibration, config, contention)`` — the validation model
  (:func:`densing.overlap.validate.validate`): step time of a measured run from a sync run's
  :class:`~densing.overlap.fluid.RunCalibration` and the run's ``run.yaml`` configuration;
* ``training(context)`` — the trainer's hooks (:mod:`densing.overlap.train`): a
  :class:`TrainHooks` for one rank of ``densing overlap run``.

One module per strategy defines its functions and a :class:`Strategy`; the registry
(:mod:`densing.overlap.strategies.registry`) lists them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

from densing.errors import InputError
from densing.overlap_defaults import DEFAULT_BUCKET_MB

CAPABILITIES = ("whatif", "validation", "training")


def ring_allreduce_time_s(workers: int, message_bytes: float, bandwidth_bytes_per_s: float,
                          latency_s: float = 0.0) -> float:
    """Ring all-reduce time  T = 2(p−1)/p · S/B + 2(p−1)·α  (Thakur et al. 2005; Patarasuk & Yuan 2009)."""
    if workers < 1:
        raise InputError(f"workers: expected ≥ 1, got {workers}")
    if bandwidth_bytes_per_s <= 0:
        raise InputError(f"bandwidth: expected > 0, got {bandwidth_bytes_per_s}")
    if workers == 1:
        return 0.0
    p = workers
    return 2.0 * (p - 1) / p * message_bytes / bandwidth_bytes_per_s + 2.0 * (p - 1) * latency_s


@dataclass(frozen=True)
class WhatIfPoint:
    """One point of the what-if grid: measured compute, the network, and the model inputs."""

    compute_s: float  # C: compute time per step
    workers: int  # p
    message_bytes: float  # S: bytes all-reduced per step
    bandwidth_bytes_per_s: float  # B
    latency_s: float  # α
    allreduce_s: float  # T_ar(p, S)
    local_steps: int = 4  # τ (CO2)
    contention: float = 0.1  # γ (T3)
    bucket_bytes: float = DEFAULT_BUCKET_MB * 2**20  # DDP bucket size
    backward_fraction: float = 2 / 3  # f_bwd


@dataclass
class TrainContext:
    """What a strategy's training hooks get on one rank."""

    config: Any  # densing.overlap.train.TrainConfig
    model: Any  # torch.nn.Module
    params: list
    world: int
    cuda: bool
    local_rank: int


class TrainHooks:
    """One rank's training loop calls these; the defaults do nothing (no collective of its own)."""

    #: True when every rank computes on the same batch (tensor parallelism): the trainer then gives
    #: each rank rank 0's data stream and counts the step's tokens once, not once per rank.
    shares_batch = False

    def __init__(self, context: TrainContext):
        self.context = context

    def wrap(self, model):
        """The module to call for the forward pass (e.g. a DistributedDataParallel wrapper)."""
        return model

    def after_backward(self, step: int) -> tuple[float, float]:
        """Run after ``backward()``; returns the blocking all-reduce's (wall s, CPU s), NaN if none."""
        return math.nan, math.nan

    def after_optimizer(self, step: int) -> None:
        """Run after the inner optimizer's step."""

    def settle(self) -> None:
        """Wait for this strategy's communication still in flight, keeping its result (the profiler
        is about to stop: no collective may run on another thread while it exports its trace)."""

    def finish(self) -> None:
        """Run after the last step."""


@dataclass(frozen=True)
class Strategy:
    """A named overlap strategy and its capabilities (see the module docstring)."""

    name: str
    summary: str
    step_time_s: Optional[Callable[[WhatIfPoint], float]] = None
    predict_run_s: Optional[Callable[[Any, dict, bool], float]] = None
    training: Optional[Callable[[TrainContext], TrainHooks]] = None

    def can(self, capability: str) -> bool:
        attr = {"whatif": "step_time_s", "validation": "predict_run_s", "training": "training"}[capability]
        return getattr(self, attr) is not None
