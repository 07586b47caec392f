"""What an overlap strategy is: a name and up to three capabilities, each a plain function (one module per
strategy, listed in :mod:`densing.overlap.strategies.registry`):

* ``step_time_s(point)`` — the what-if model (:func:`.whatif.predict`): the step time at a :class:`WhatIfPoint`;
* ``predict_run_s(calibration, config, contention)`` — the validation model (:func:`.validate.validate`): a measured
  run's step time from a sync run's :class:`RunCalibration` and the run's ``run.yaml`` configuration;
* ``training(context)`` — the trainer's hooks (:mod:`densing.overlap.train`): a :class:`TrainHooks` for one rank.

**The fluid model** of one data-parallel worker on a CPU (:func:`simulate`), calibrated on a ``sync`` run
(:func:`.validate.calibrate_run`): piecewise-constant rates between events (a compute segment ends, a bucket is
enqueued, an all-reduce finishes). Contention (T3's premise, Pati et al. 2024): the collective and the computation share
the cores. Processor sharing: each worker has c = N/W cores; computing needs t, an all-reduce u (measured); while both
run and t + u > c, both progress at c/(t + u) of their speed alone. With ``contention=False`` overlap is free.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from densing.errors import InputError
from densing.overlap_defaults import DEFAULT_BUCKET_MB
from densing.results import Result

CAPABILITIES = ("whatif", "validation", "training")


def ring_allreduce_time_s(
    workers: int, message_bytes: float, bandwidth_bytes_per_s: float, latency_s: float = 0.0
) -> float:
    """Ring all-reduce time  T_ar(p, S) = 2(p−1)/p · S/B + 2(p−1)·α,  T_ar(1, S) = 0  (Thakur, Rabenseifner & Gropp
    2005, IJHPCA 19(1); Patarasuk & Yuan 2009, JPDC 69(2)); S bytes, B bytes/s, α s per message."""
    if workers < 1:
        raise InputError(f"workers: expected ≥ 1, got {workers}")
    if bandwidth_bytes_per_s <= 0:
        raise InputError(f"bandwidth: expected > 0, got {bandwidth_bytes_per_s}")
    if workers == 1:
        return 0.0
    return 2.0 * (workers - 1) / workers * message_bytes / bandwidth_bytes_per_s + 2.0 * (workers - 1) * latency_s


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
    step_time_s: Callable[[WhatIfPoint], float] | None = None
    predict_run_s: Callable[[Any, dict, bool], float] | None = None
    training: Callable[[TrainContext], TrainHooks] | None = None

    def can(self, capability: str) -> bool:
        attr = {"whatif": "step_time_s", "validation": "predict_run_s", "training": "training"}[capability]
        return getattr(self, attr) is not None


SYNC_COPY_PASSES = 3  # flatten, average, unflatten: the passes over S bytes of the sync all-reduce


@dataclass(frozen=True)
class RunCalibration(Result):
    """What the model learns from the sync run (seconds, bytes)."""

    forward_s: float
    backward_s: float
    optimizer_s: float
    overhead_s: float
    copy_s: float  # P: flatten + average + unflatten of the gradients
    allreduce_s: float  # T_ar of all S bytes, fastest rank
    skew_s: float  # Σ: mean wait of a rank for its slower peer at a per-step all-reduce
    allreduce_cpu_share: float  # u
    comm_bytes: float  # S
    bandwidth_bytes_per_s: float
    step_s: float  # measured sync step
    workers: int  # W per node
    cores: int  # N
    threads: int  # t
    param_numel: tuple  # registration order

    _dict_exclude = ("param_numel",)  # one number per parameter tensor: not a column of the one-row table


def contention_rate(cal: RunCalibration, contention: bool = True) -> float:
    """Speed (0, 1] of computation and communication while both run: min(1, c/(t + u)), c = N/W."""
    return min(1.0, cal.cores / max(1, cal.workers) / (cal.threads + cal.allreduce_cpu_share)) if contention else 1.0


def simulate(segments: list[tuple], rate_overlap: float) -> float:
    """Wall time of one worker's timeline under processor sharing: ``segments`` of ``("compute", seconds)``,
    ``("send", seconds)`` (enqueue an all-reduce of that many seconds alone, FIFO), ``("wait",)`` (block until the
    queue is empty) and ``("delay", seconds)`` (idle: waiting for a slower peer). While compute and an all-reduce both
    progress, each runs at ``rate_overlap`` of its speed alone. Returns the time when the last segment ends (an
    all-reduce still queued then is not waited for)."""
    if not 0 < rate_overlap <= 1:
        raise InputError(f"rate_overlap: expected in (0, 1], got {rate_overlap}")
    now, queue = 0.0, []  # queue: remaining alone-seconds of each all-reduce, FIFO
    for seg in segments:
        kind, r = seg[0], rate_overlap
        if kind == "compute":
            compute_left = float(seg[1])  # alone-seconds, the queue draining beside them
            while compute_left > 1e-15:
                if not queue:
                    now += compute_left
                    break
                dt = min(compute_left / r, queue[0] / r)
                now += dt
                compute_left -= dt * r
                queue[0] -= dt * r
                if queue[0] <= 1e-15:
                    queue.pop(0)
        elif kind == "send":
            queue.append(float(seg[1]))
        elif kind == "wait":
            now += sum(queue)
            queue.clear()
        elif kind == "delay":
            now += float(seg[1])
        else:
            raise InputError(f"segment: expected compute, send or wait, got {kind!r}")
    return now
