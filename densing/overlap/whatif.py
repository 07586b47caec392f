"""What-if models: step time and scaling efficiency of data-parallel training under other overlap strategies, worker
counts and networks, calibrated from a trace: each strategy's ``step_time_s`` (:mod:`densing.overlap.strategies`) at a
:class:`~densing.overlap.strategies.base.WhatIfPoint` (its fields name the notation), the all-reduce timed by
:func:`~densing.overlap.strategies.base.ring_allreduce_time_s`. Scaling efficiency (weak scaling, fixed per-worker
batch):  E = C / T  (1 = perfect).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from densing.errors import InputError
from densing.overlap.analysis import ANALYZE_CONSTRAINTS
from densing.overlap.metrics import breakdown
from densing.overlap.model import COMMUNICATION, RankTrace
from densing.overlap.strategies.base import WhatIfPoint, ring_allreduce_time_s
from densing.overlap.strategies.registry import get, names
from densing.overlap.trace import read_traces
from densing.overlap_defaults import DEFAULT_BUCKET_MB, MAX_BUCKET_MB
from densing.results import Result
from densing.validation import CONTENTION, InstanceOf, Interval, validate, validate_params

if TYPE_CHECKING:
    import pandas as pd

#: Below this computation per step (µs) a calibration describes no real training step (e.g. HTA's ``cpu_only`` test
#: trace: 3.96 µs): the what-if warns, and reports no scaling efficiency.
MIN_COMPUTE_US = 100.0

#: The largest worker count a what-if predicts at: the largest world size NCCL and gloo hold (2³¹ − 1).
MAX_WORKERS = 2**31 - 1

# The CO2 paper's two clusters: 800 Gb/s RDMA (InfiniBand) and 80 Gb/s TCP/IP Ethernet.
DEFAULT_BANDWIDTHS_GBPS = (800.0, 80.0)

#: What the what-if's inputs may be: :func:`calibrate` and :func:`predict` check theirs, and the command line
#: checks its options against the same constraints before any trace is read.
WHATIF_CONSTRAINTS = {
    "model_params": [Interval(Real, 0, None, closed="neither"), None],
    # bytes all-reduced per parameter: 0.5 (4-bit) to 8 (fp64 gradients); above 64 (many tensors each) a unit slip
    "bytes_per_param": [Interval(Real, 0, 64, closed="right")],
    "workers": [Interval(Integral, 1, MAX_WORKERS)],
    "bandwidths_gbps": [Interval(Real, 0, None, closed="neither")],
    "local_steps": [Interval(Integral, 1, None)],
    "contention": [CONTENTION],  # γ > −1 (densing.validation.CONTENTION)
    "latency_us": [Interval(Real, 0, None)],
    "bucket_bytes": [Interval(Real, 0, MAX_BUCKET_MB * 2**20, closed="right")],
    "backward_fraction": [Interval(Real, 0, 1, closed="right")],
}


@dataclass(frozen=True)
class Calibration(Result):
    """Per-step quantities measured from a trace (means over ranks and steps)."""

    compute_time_per_step_us: float
    comm_time_per_step_us: float
    exposed_comm_per_step_us: float
    step_time_us: float
    comm_bytes_per_step: float
    comm_bytes_source: str  # "trace args" or "model size"
    world_size: int
    steps: int
    #: the measured step's time with no kernel running (host work, data loading, waits): no prediction includes it
    idle_time_per_step_us: float = math.nan


@validate_params(
    {"source": ANALYZE_CONSTRAINTS["source"], **{k: WHATIF_CONSTRAINTS[k] for k in ("model_params", "bytes_per_param")}}
)
def calibrate(
    source: str | Path | Iterable[RankTrace], model_params: float | None = None, bytes_per_param: float = 4.0
) -> Calibration:
    """Measure compute, communication and bytes per step from traces. Bytes per step come from the collectives'
    ``In msg nelems`` × dtype size where the trace carries them; otherwise S = model_params × bytes_per_param."""
    traces = read_traces(source) if isinstance(source, (str, Path)) else list(source)
    steps, nbytes = [], []  # each step's breakdown and collective bytes
    for t in traces:
        groups = [t.kernel_step == n for n in t.step_number]
        groups = [g for g in groups if g.any()] or [np.ones(t.kernel_count, dtype=bool)]
        for sel in groups:
            steps.append(breakdown(t.kernel_start_us[sel], t.kernel_end_us[sel], t.kernel_category[sel]))
            cb = t.kernel_comm_bytes[sel & (t.kernel_category == COMMUNICATION)]
            nbytes.append(float(np.nansum(cb)) if np.isfinite(cb).any() else math.nan)
    per_step_bytes = float(np.nanmean(nbytes)) if np.isfinite(nbytes).any() else math.nan
    source_name = "trace args"
    if model_params is not None:
        per_step_bytes, source_name = float(model_params) * bytes_per_param, "model size"
    elif not math.isfinite(per_step_bytes):
        raise InputError(
            "communication volume: the trace's collectives carry no message sizes "
            "(args 'In msg nelems'/'dtype'); give the model size (--model-params)"
        )
    mean = {
        k: float(np.mean([b[k] for b in steps]))
        for k in ("compute_us", "comm_us", "exposed_comm_us", "kernel_span_us", "idle_us")
    }
    return Calibration(
        compute_time_per_step_us=mean["compute_us"],
        comm_time_per_step_us=mean["comm_us"],
        exposed_comm_per_step_us=mean["exposed_comm_us"],
        step_time_us=mean["kernel_span_us"],
        comm_bytes_per_step=per_step_bytes,
        comm_bytes_source=source_name,
        world_size=max(t.world_size for t in traces),
        steps=len(steps),
        idle_time_per_step_us=mean["idle_us"],
    )


def calibration_warnings(calibration: Calibration) -> list[str]:
    """Why a calibration's predictions should not be read as meaningful (one line each)."""
    c = calibration.compute_time_per_step_us
    return (
        []
        if c >= MIN_COMPUTE_US
        else [
            f"compute_time_per_step_us: {c:.3g} µs per step is below "
            f"{MIN_COMPUTE_US:g} µs — the trace holds no real training step; scaling "
            "efficiency is not reported (NaN)"
        ]
    )


def idle_note(calibration: Calibration) -> str:
    """What every predicted step leaves out: the measured step's idle time (no kernel running) and its share of the
    step (a prediction is compute and communication alone, as HTA's what-if)."""
    from densing.numbers import format_number, time_unit

    idle, step = calibration.idle_time_per_step_us, calibration.step_time_us
    unit, scale = time_unit(step * 1e-6)
    share = (
        f", {format_number(100 * idle / step)}% of the measured {format_number(step * 1e-6 / scale)} {unit} step"
        if step > 0
        else ""
    )
    return (
        f"predicted steps are compute and communication alone; idle time is excluded (measured: "
        f"{format_number(idle * 1e-6 / scale)} {unit} per step{share})"
    )


@validate_params({"calibration": [InstanceOf(Calibration, "a Calibration (densing.overlap.calibrate)")]})
def predict(
    calibration: Calibration,
    workers: Sequence[int] = (1, 2, 4, 8, 16, 32, 64, 128),
    bandwidths_gbps: Sequence[float] = DEFAULT_BANDWIDTHS_GBPS,
    strategies: Sequence[str] | None = None,
    local_steps: int = 4,
    contention: float = 0.1,
    latency_us: float = 5.0,
    bucket_bytes: float = DEFAULT_BUCKET_MB * 2**20,
    backward_fraction: float = 2 / 3,
) -> pd.DataFrame:
    """Predicted step time and scaling efficiency per (strategy, workers, bandwidth).

    ``strategies``: names in the registry with a what-if model (default: all of them). ``local_steps`` (τ, CO2),
    ``contention`` (γ, T3), ``latency_us`` (α) and ``bucket_bytes`` (default: the bucket ``densing overlap run``
    trains with) are model inputs, not measured from the trace. Bandwidths are link rates in Gb/s (10⁹ bit/s).
    """
    for name, values in (("workers", workers), ("bandwidths_gbps", bandwidths_gbps)):
        for value in values:
            validate(WHATIF_CONSTRAINTS, **{name: value})
    validate(
        WHATIF_CONSTRAINTS,
        local_steps=local_steps,
        contention=contention,
        latency_us=latency_us,
        bucket_bytes=bucket_bytes,
        backward_fraction=backward_fraction,
    )
    chosen = [get(s, "whatif") for s in (names("whatif") if strategies is None else strategies)]
    meaningful = not calibration_warnings(calibration)
    compute_s, latency_s = calibration.compute_time_per_step_us * 1e-6, latency_us * 1e-6
    nbytes = calibration.comm_bytes_per_step
    rows = []
    for gbps in bandwidths_gbps:
        bw = gbps * 1e9 / 8.0
        for p in workers:
            ar = ring_allreduce_time_s(int(p), nbytes, bw, latency_s)
            point = WhatIfPoint(
                compute_s, int(p), nbytes, bw, latency_s, ar, local_steps, contention, bucket_bytes, backward_fraction
            )
            for strategy in chosen:
                t = strategy.step_time_s(point)
                rows.append(
                    {
                        "strategy": strategy.name,
                        "workers": int(p),
                        "bandwidth_gbps": float(gbps),
                        "compute_us": compute_s * 1e6,
                        "allreduce_us": ar * 1e6,
                        "step_time_us": t * 1e6,
                        "exposed_comm_us": max(0.0, t - compute_s) * 1e6,
                        "scaling_efficiency": compute_s / t if t > 0 and meaningful else math.nan,
                    }
                )
    import pandas as pd

    return pd.DataFrame(rows)
