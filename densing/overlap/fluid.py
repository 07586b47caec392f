"""The fluid model of one data-parallel worker on a CPU: compute and collectives sharing cores.

Calibrated on a ``sync`` run (:func:`densing.overlap.validate.calibrate_run`); the strategies'
validation models (:mod:`densing.overlap.strategies`) build a timeline of segments on it.

* contention (the effect T3, Pati et al. 2024, is built around): on a CPU the collective and the
  computation share the cores. Processor sharing: each worker has c = N/W cores; computing needs
  t, an all-reduce u (measured); while both run and t + u > c, both progress at c/(t + u) of
  their speed alone. Without contention (``contention=False``) overlap is free.

The simulation is a fluid model: piecewise-constant rates between events (a compute segment ends,
a bucket is enqueued, an all-reduce finishes).
"""
from __future__ import annotations

from dataclasses import dataclass

from densing.errors import InputError
from densing.results import Result

SYNC_COPY_PASSES = 3   # flatten, average, unflatten: the passes over S bytes of the sync all-reduce


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
    if not contention:
        return 1.0
    cores_per_worker = cal.cores / max(1, cal.workers)
    demand = cal.threads + cal.allreduce_cpu_share
    return min(1.0, cores_per_worker / demand)


def simulate(segments: list[tuple], rate_overlap: float) -> float:
    """Wall time of one worker's timeline under processor sharing.

    ``segments`` is a list of ``("compute", seconds)``, ``("send", seconds)`` (enqueue an
    all-reduce of that many seconds alone, FIFO), ``("wait",)`` (block until the queue is
    empty) and ``("delay", seconds)`` (idle: waiting for a slower peer; only after a wait). While compute and an all-reduce both progress, each runs at ``rate_overlap`` of its
    speed alone; otherwise at full speed. Returns the time when the last segment ends (an
    all-reduce still queued at the end keeps running: it is not waited for).
    """
    if not 0 < rate_overlap <= 1:
        raise InputError(f"rate_overlap: expected in (0, 1], got {rate_overlap}")
    now, queue = 0.0, []  # queue: remaining alone-seconds of each all-reduce, FIFO

    def advance(compute_left: float) -> None:
        """Run compute of ``compute_left`` alone-seconds with the queue draining beside it."""
        nonlocal now
        while compute_left > 1e-15:
            if not queue:
                now += compute_left
                return
            r = rate_overlap
            t_comp, t_comm = compute_left / r, queue[0] / r
            dt = min(t_comp, t_comm)
            now += dt
            compute_left -= dt * r
            queue[0] -= dt * r
            if queue[0] <= 1e-15:
                queue.pop(0)

    for seg in segments:
        kind = seg[0]
        if kind == "compute":
            advance(float(seg[1]))
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
