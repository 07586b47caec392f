"""``ddp``: bucketed DDP overlap (Li et al. 2020, "PyTorch Distributed", VLDB 13(12)) —
``torch.nn.parallel.DistributedDataParallel`` with its gradient buckets (``bucket_cap_mb``):
bucket all-reduces overlap the rest of the backward pass (what-if: :func:`step_time_s`).

Validation (the fluid model, :mod:`densing.overlap.strategies.base`): backward produces the gradients in reverse
registration order; bucket i (DDP's greedy assignment) is ready at r_i = F + B·(bytes ready)/S and its all-reduce takes
T_ar·S_i/S, FIFO on the collective thread; DDP copies the gradients into the buckets during backward (P/3) and back
after the wait (2P/3); the last bucket waits for the slower peer like sync's all-reduce (Σ);
T = F + B + P/3 + wait + Σ + 2P/3 + O + o.
"""

from __future__ import annotations

import math

from densing.overlap.strategies.base import (
    SYNC_COPY_PASSES,
    RunCalibration,
    Strategy,
    TrainHooks,
    WhatIfPoint,
    contention_rate,
    ring_allreduce_time_s,
    simulate,
)


def step_time_s(point: WhatIfPoint) -> float:
    """Bucketed DDP overlap (Li et al. 2020): buckets all-reduced as backward produces them.

    k = ⌈S/bucket⌉; r_i = (1 − f_bwd)·C + i·f_bwd·C/k; f_i = max(r_i, f_{i−1}) + T_ar(p, S/k);
    T = max(C, f_k).
    """
    compute_s, message_bytes, backward_fraction = point.compute_s, point.message_bytes, point.backward_fraction
    if point.workers == 1 or message_bytes <= 0:
        return compute_s
    k = max(1, math.ceil(message_bytes / point.bucket_bytes))
    per_bucket = ring_allreduce_time_s(point.workers, message_bytes / k, point.bandwidth_bytes_per_s, point.latency_s)
    finish, forward = 0.0, (1.0 - backward_fraction) * compute_s
    for i in range(1, k + 1):
        ready = forward + i * backward_fraction * compute_s / k
        finish = max(ready, finish) + per_bucket
    return max(compute_s, finish)


def ddp_buckets(param_numel: tuple, bucket_bytes: float, bytes_per_param: float = 4.0) -> list[float]:
    """DDP's greedy bucket sizes (bytes) in the order backward fills them: parameters in reverse
    registration order, a bucket closed once it holds ≥ ``bucket_bytes`` (Li et al. 2020, §3.2.3)."""
    buckets, current = [], 0.0
    for n in reversed(param_numel):
        current += n * bytes_per_param
        if current >= bucket_bytes:
            buckets.append(current)
            current = 0.0
    return buckets + [current] if current > 0 else buckets


def predict_run_s(cal: RunCalibration, config: dict, contention: bool = True) -> float:
    """DDP step time (see the module docstring), buckets of the run's ``bucket_mb``."""
    buckets = ddp_buckets(cal.param_numel, float(config["bucket_mb"]) * 2**20)
    segs: list[tuple] = [("compute", cal.forward_s)]
    backward = cal.backward_s + cal.copy_s / SYNC_COPY_PASSES
    for b in buckets:
        segs += [("compute", backward * b / cal.comm_bytes), ("send", cal.allreduce_s * b / cal.comm_bytes)]
    segs += [
        ("wait",),
        ("delay", cal.skew_s),
        ("compute", cal.copy_s * (SYNC_COPY_PASSES - 1) / SYNC_COPY_PASSES + cal.optimizer_s + cal.overhead_s),
    ]
    return simulate(segs, contention_rate(cal, contention))


class DdpHooks(TrainHooks):
    def wrap(self, model):
        from torch.nn.parallel import DistributedDataParallel

        ctx = self.context
        return DistributedDataParallel(
            model, device_ids=[ctx.local_rank] if ctx.cuda else None, bucket_cap_mb=ctx.config.bucket_mb
        )


STRATEGY = Strategy(
    "ddp",
    "bucketed DDP: gradient buckets all-reduced while backward runs",
    step_time_s=step_time_s,
    predict_run_s=predict_run_s,
    training=DdpHooks,
)
