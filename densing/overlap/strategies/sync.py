"""``sync``: synchronous data parallel, no overlap — forward, backward, one blocking all-reduce of all gradients
(flattened into one buffer, averaged), then the optimizer step (what-if: :func:`step_time_s`). Validation: the sync run
is the calibration; its prediction is the sum of its measured phases F + B + P + T_ar + Σ + O + o
(:mod:`densing.overlap.validate`), exact by construction.
"""

from __future__ import annotations

import time

from densing.overlap.strategies.base import Strategy, TrainHooks, WhatIfPoint


def step_time_s(point: WhatIfPoint) -> float:
    """Synchronous data parallel, no overlap:  T = C + T_ar."""
    return point.compute_s + point.allreduce_s


def predict_run_s(cal, config: dict, contention: bool) -> float:
    return cal.forward_s + cal.backward_s + cal.copy_s + cal.allreduce_s + cal.skew_s + cal.optimizer_s + cal.overhead_s


class SyncHooks(TrainHooks):
    def after_backward(self, step: int) -> tuple[float, float]:
        import torch
        import torch.distributed as dist
        from torch.profiler import record_function

        ctx = self.context
        if ctx.world <= 1:
            return super().after_backward(step)
        with record_function("allreduce"):
            grads = [p.grad for p in ctx.params]
            flat = torch.cat([g.reshape(-1) for g in grads])
            w0, c0 = time.perf_counter(), time.process_time()
            dist.all_reduce(flat)
            if ctx.cuda:
                torch.cuda.synchronize()
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            flat /= ctx.world
            for g, piece in zip(grads, flat.split([g.numel() for g in grads])):
                g.copy_(piece.view_as(g))
        return wall, cpu


STRATEGY = Strategy(
    "sync",
    "synchronous data parallel: one blocking all-reduce after backward, no overlap",
    step_time_s=step_time_s,
    predict_run_s=predict_run_s,
    training=SyncHooks,
)
