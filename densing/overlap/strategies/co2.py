"""``co2``: CO2 local updating (Sun et al., ICLR 2024, arXiv 2401.16265, Alg. 1;
:mod:`densing.overlap.co2`): τ local steps of the inner optimizer, then an asynchronous all-reduce
of the model change that runs under the next τ local steps, with the staleness gap penalty and
outer momentum clipping in the authors' form by default (constant penalty, no clipping) or
densing's (adaptive per-tensor penalty, global ℓ2 clip): ``staleness_penalty``/``outer_clip_mode``.

* what-if (steady state, per local step):  T = max(C, T_ar(p, S)/τ);
* validation (:mod:`densing.overlap.fluid`): one round is τ local steps τ·(F + B + O + o) plus
  the outer step (12 passes over S bytes: ``densing.overlap.co2.CO2.outer_step``), during which
  the previous round's all-reduce (T_ar) runs; the outer step waits for it. T = round / τ. The
  ranks meet once per round, with a round of computation as slack, so Σ is not added.
"""
from __future__ import annotations

from densing.errors import InputError
from densing.overlap.fluid import SYNC_COPY_PASSES, RunCalibration, contention_rate, simulate
from densing.overlap.strategies.base import Strategy, TrainContext, TrainHooks, WhatIfPoint

CO2_OUTER_PASSES = 12  # passes over S bytes in CO2.outer_step (see the module docstring)


def _check_local_steps(local_steps: int) -> None:
    if local_steps < 1:
        raise InputError(f"local_steps (τ): expected ≥ 1, got {local_steps}")


def step_time_s(point: WhatIfPoint) -> float:
    """CO2 (Sun et al. 2024): outer all-reduce hidden behind τ local steps:  T = max(C, T_ar/τ)."""
    _check_local_steps(point.local_steps)
    return max(point.compute_s, point.allreduce_s / point.local_steps)


def predict_run_s(cal: RunCalibration, config: dict, contention: bool = True) -> float:
    """CO2 step time (see the module docstring): round time / τ, the previous round's all-reduce under it;
    τ is the run's ``local_steps``."""
    local_steps = int(config["local_steps"])
    _check_local_steps(local_steps)
    rate = contention_rate(cal, contention)
    pass_s = cal.copy_s / SYNC_COPY_PASSES
    local = cal.forward_s + cal.backward_s + cal.optimizer_s + cal.overhead_s
    # the round starts right after the previous outer step launched its all-reduce: 2 passes (Δ, cat)
    # happen before the launch, the other passes after the wait
    segs = [("send", cal.allreduce_s), ("compute", local_steps * local + 2 * pass_s), ("wait",),
            ("compute", (CO2_OUTER_PASSES - 2) * pass_s)]
    return simulate(segs, rate) / local_steps


class Co2Hooks(TrainHooks):
    def __init__(self, context: TrainContext):
        from densing.overlap.co2 import CO2

        super().__init__(context)
        cfg = context.config
        self.outer = CO2(context.params, context.world, cfg.outer_lr, cfg.outer_momentum, cfg.outer_clip,
                         cfg.staleness_penalty, gap_penalty=cfg.gap_penalty, clip_mode=cfg.outer_clip_mode)

    def after_optimizer(self, step: int) -> None:
        from torch.profiler import record_function

        if (step + 1) % self.context.config.local_steps == 0:
            with record_function("co2_outer"):
                self.outer.outer_step()

    def settle(self) -> None:
        self.outer.settle()

    def finish(self) -> None:
        self.outer.finish()


STRATEGY = Strategy("co2", "CO2: τ local steps, the outer all-reduce hidden under the next τ steps",
                    step_time_s=step_time_s, predict_run_s=predict_run_s, training=Co2Hooks)
