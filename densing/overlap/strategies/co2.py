"""``co2``: CO2 local updating (Sun et al., ICLR 2024, arXiv 2401.16265, Alg. 1): τ local steps of the inner
optimizer, then an asynchronous all-reduce of the model change that runs under the next τ local steps, with the
staleness gap penalty and outer momentum clipping in the authors' form by default (constant penalty, no clipping) or
densing's (adaptive per-tensor penalty, global ℓ2 clip): ``staleness_penalty``/``outer_clip_mode``.

Validation (the fluid model, :mod:`densing.overlap.strategies.base`; what-if: :func:`step_time_s`): one round is τ
local steps τ·(F + B + O + o) plus the outer step (12 passes over S bytes: :meth:`CO2.outer_step`), during which the
previous round's all-reduce (T_ar) runs; the outer step waits for it. T = round / τ. The ranks meet once per round,
with a round of computation as slack, so Σ is not added.

**The outer update**: round t's all-reduce runs under round t + 1's local steps, its result applied one round late.
W workers, x_{t,0} the model every worker starts round t from, x^{(i)}_{t,τ} worker i's model after its τ local steps,
α the outer learning rate, β the outer momentum, c the clipping threshold. The default follows the authors' code,
``weigao266/fairscale-CO2`` (linked from OpenNLPLab/CO2), ``fairscale/experimental/nn/data_parallel/gossip/co2.py``,
``_perform_local_optimization``: ``m.mul_(β).sub_(x, alpha=1/λ).add_(x_old, alpha=1/λ)``, then ``if co2_clip:
clamp(m, −c, c)``, then ``x_old −= α·m; x ← x_old``, with its defaults ``co2_gap_penalty = 1.0``, ``co2_clip =
False``, ``co2_clip_threshold = 1.0``, ``outer_lr = 1.0`` (``outer_momentum = 0.5`` there; the paper's recipes use
β = 0 at ≤ 16 GPUs, τ 20–48, densing's default β). Their ``_co2_clip`` discards ``torch.clamp``'s result, so their
clamp has no effect; densing implements the clamp it names.

* local change      Δ^{(i)}_t = x_{t,0} − x^{(i)}_{t,τ};  its mean Δ̄_t = (1/W) Σ_i Δ^{(i)}_t is all-reduced
                    asynchronously (started at the end of round t, waited for at the end of round t + 1);
* staleness gap penalty, ``staleness_penalty``: ``constant`` (default, the authors' code): Λ_t = 1/λ for every
  entry, λ = ``gap_penalty`` (1: no penalty); ``adaptive`` (densing's): layer by layer (l)
  λ_l = ‖Δ̄^l_{t−1}‖ / (‖Δ̄^l_{t−1}‖ + ‖x^l_{t,0} − x^l_{t−1,0}‖) ∈ (0, 1];
* outer momentum    m_t = β·m_{t−1} + Λ_t ⊙ Δ̄_{t−1};
* outer momentum clipping, ``clip_mode``: ``none`` (default); ``elementwise`` (the authors' clamp):
  m_t ← clamp(m_t, −c, c); ``l2`` (densing's): m_t ← m_t · min(1, c / ‖m_t‖₂);
* outer update      x_{t+1,0} = x_{t,0} − α·m_t, and every worker restarts from x_{t+1,0}.

In round 0 nothing has arrived yet: x_{1,0} = x_{0,0}. With W = 1, β = 0, α = 1 and no penalty, CO2 is local SGD
with a one-round delay. :func:`outer_update` is the pure rule; :class:`CO2` holds a run's state and all-reduce.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from densing.errors import InputError
from densing.overlap.strategies.base import (
    SYNC_COPY_PASSES,
    RunCalibration,
    Strategy,
    TrainContext,
    TrainHooks,
    WhatIfPoint,
    contention_rate,
    simulate,
)
from densing.validation import Options, validate

CO2_OUTER_PASSES = 12  # passes over S bytes in CO2.outer_step


def _check_local_steps(local_steps: int) -> None:
    if local_steps < 1:
        raise InputError(f"local_steps (τ): expected ≥ 1, got {local_steps}")


def step_time_s(point: WhatIfPoint) -> float:
    """CO2 (Sun et al. 2024), per local step in steady state, the all-reduce under τ steps:  T = max(C, T_ar/τ)."""
    _check_local_steps(point.local_steps)
    return max(point.compute_s, point.allreduce_s / point.local_steps)


def predict_run_s(cal: RunCalibration, config: dict, contention: bool = True) -> float:
    """CO2 step time (module docstring): round time / τ (the run's ``local_steps``), the last all-reduce under it."""
    local_steps = int(config["local_steps"])
    _check_local_steps(local_steps)
    pass_s = cal.copy_s / SYNC_COPY_PASSES
    local = cal.forward_s + cal.backward_s + cal.optimizer_s + cal.overhead_s
    # the round starts right after the previous outer step launched its all-reduce: 2 passes (Δ, cat)
    # happen before the launch, the other passes after the wait
    segs = [
        ("send", cal.allreduce_s),
        ("compute", local_steps * local + 2 * pass_s),
        ("wait",),
        ("compute", (CO2_OUTER_PASSES - 2) * pass_s),
    ]
    return simulate(segs, contention_rate(cal, contention)) / local_steps


def staleness_penalty(stale_update: Sequence, gap: Sequence) -> list[float]:
    """Per layer λ_l = ‖Δ̄_l‖ / (‖Δ̄_l‖ + ‖gap_l‖); 1 where both are zero (see the module docstring)."""
    norms = [(float(u.norm()), float(g.norm())) for u, g in zip(stale_update, gap)]
    return [1.0 if nu + ng == 0.0 else nu / (nu + ng) for nu, ng in norms]


PENALTY_MODES = ("constant", "adaptive")
CLIP_MODES = ("none", "elementwise", "l2")


def outer_update(
    anchor: Sequence,
    previous_anchor: Sequence | None,
    stale_update: Sequence,
    momentum: Sequence,
    outer_lr: float,
    outer_momentum: float,
    clip: float = math.inf,
    penalty: str = "constant",
    gap_penalty: float = 1.0,
    clip_mode: str = "none",
):
    """One CO2 outer step on lists of tensors (one per layer), the inputs left as they are; returns (new anchor, new
    momentum, Λ): m = β·m + Λ ⊙ Δ̄_{t−1};  clip m;  x_{t+1,0} = x_{t,0} − α·m (``penalty``, ``clip_mode``: the module
    docstring; ``adaptive``'s gap is x_{t,0} − x_{t−1,0}, :func:`staleness_penalty`)."""
    validate(
        {"staleness_penalty": [Options(PENALTY_MODES)], "outer_clip_mode": [Options(CLIP_MODES)]},
        staleness_penalty=penalty,
        outer_clip_mode=clip_mode,
    )
    if penalty == "adaptive" and previous_anchor is not None:
        lambdas = staleness_penalty(stale_update, [a - p for a, p in zip(anchor, previous_anchor)])
    else:
        lambdas = [1.0 if penalty == "adaptive" else 1.0 / gap_penalty] * len(stale_update)
    new_m = [outer_momentum * m + lam * u for m, u, lam in zip(momentum, stale_update, lambdas)]
    if clip_mode == "l2":
        norm = math.sqrt(sum(float(m.pow(2).sum()) for m in new_m))
        if norm > clip:
            new_m = [m * (clip / norm) for m in new_m]
    elif clip_mode == "elementwise":
        new_m = [m.clamp(-clip, clip) for m in new_m]
    return [a - outer_lr * m for a, m in zip(anchor, new_m)], new_m, lambdas


class CO2:
    """CO2's outer loop around a model trained by any inner optimizer: :meth:`outer_step`, after every τ-th local
    step, starts the asynchronous all-reduce of this round's change, waits for the previous round's, and moves the
    model to x_{t+1,0}."""

    def __init__(
        self,
        params,
        world_size: int,
        outer_lr: float = 1.0,
        outer_momentum: float = 0.0,
        clip: float = 1.0,
        penalty: str = "constant",
        gap_penalty: float = 1.0,
        clip_mode: str = "none",
    ):
        import torch

        self.params, self.world_size = list(params), int(world_size)
        self.rule = (outer_lr, outer_momentum, clip, penalty, gap_penalty, clip_mode)  # outer_update's last arguments
        with torch.no_grad():
            self.anchor = [p.detach().clone() for p in self.params]
        self.momentum = [torch.zeros_like(p) for p in self.anchor]
        self.pending: tuple | None = None  # (the all-reduce in flight or None, its buffer, the anchor it left)

    def outer_step(self) -> None:
        import torch
        import torch.distributed as dist

        with torch.no_grad():
            delta = torch.cat([(a - p.detach()).reshape(-1) for a, p in zip(self.anchor, self.params)])
            work = dist.all_reduce(delta, async_op=True) if self.world_size > 1 else None
            if self.pending is None:
                new_anchor = self.anchor  # round 0: nothing has arrived yet
            else:
                self.settle()
                flat = self.pending[1] / self.world_size  # Δ̄ split back into the layers
                stale = [p.view_as(a) for p, a in zip(flat.split([a.numel() for a in self.anchor]), self.anchor)]
                new_anchor, self.momentum, _ = outer_update(
                    self.anchor, self.pending[2], stale, self.momentum, *self.rule
                )
            for p, a in zip(self.params, new_anchor):
                p.copy_(a)
            self.pending = (work, delta, self.anchor)
            self.anchor = [a.clone() for a in new_anchor] if new_anchor is self.anchor else list(new_anchor)

    def settle(self) -> None:
        """Wait for the outer all-reduce in flight and keep it pending (the next round applies it as usual)."""
        if self.pending is not None and self.pending[0] is not None:
            self.pending[0].wait()

    def finish(self) -> None:
        """Wait for the all-reduce still in flight (end of training) without applying it."""
        self.settle()
        self.pending = None


class Co2Hooks(TrainHooks):
    def __init__(self, context: TrainContext):
        super().__init__(context)
        cfg = context.config
        self.outer = CO2(
            context.params,
            context.world,
            cfg.outer_lr,
            cfg.outer_momentum,
            cfg.outer_clip,
            cfg.staleness_penalty,
            gap_penalty=cfg.gap_penalty,
            clip_mode=cfg.outer_clip_mode,
        )
        self.settle, self.finish = self.outer.settle, self.outer.finish

    def after_optimizer(self, step: int) -> None:
        from torch.profiler import record_function

        if (step + 1) % self.context.config.local_steps == 0:
            with record_function("co2_outer"):
                self.outer.outer_step()


STRATEGY = Strategy(
    "co2",
    "CO2: τ local steps, the outer all-reduce hidden under the next τ steps",
    step_time_s=step_time_s,
    predict_run_s=predict_run_s,
    training=Co2Hooks,
)
