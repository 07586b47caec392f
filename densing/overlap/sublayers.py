"""Per-sublayer analysis of tensor-parallel runs (``tp`` strategy), measured contention, and the T3 prediction of
the chunked run from the serialized one.

Per rank, from the annotations (:mod:`.strategies.tp`), means over the profiled steps (µs per step), s ∈ {attn, mlp}:

* sublayer time      = Σ ``tp/<s>`` durations (forward);
* producer GEMM      = Σ ``tp/<s>/<gemm>`` durations (``proj``/``fc2``; one annotation per chunk when chunked);
* exposed comm       = Σ ``tp/<s>/allreduce`` durations: the forward all-reduce time the training thread could not
  hide (serialized: all of it; chunked: what is left after the last chunk);
* backward comm      = Σ ``tp/<s>/grad_allreduce`` (blocking in both modes).

**Measured contention** (:func:`gemm_contention`): each producer-GEMM interval is *alone* when no ``gloo:*``
collective of its rank covers it, *concurrent* when at least :data:`CONCURRENT_MIN` (½) of it is covered (partial
overlaps in between are left out). With equal-sized GEMMs (a run's chunks split the tokens evenly)

    γ = mean(concurrent GEMM time) / mean(alone GEMM time) − 1,

the extra compute time a GEMM pays while a collective runs beside it — T3's contention (Pati et al. 2024, arXiv
2401.16677, §3: memory bandwidth; on a CPU, gloo's threads also compete for the cores). In a chunked run chunks 2…k
of a sublayer run beside the previous chunk's all-reduce; a serialized run has none (γ: NaN).

**T3 prediction of the chunked run** (:func:`predict_t3`): per sublayer of the serialized (``tp-none``) run, C =
producer GEMM time and A = forward all-reduce time; T3's model (:func:`.t3.t3_step_time_s`) replaces C + A by
max(C + γ·min(C, A), A), so the chunked step is step_none − Σ_s (C_s + A_s) + Σ_s max(C_s + γ·min(C_s, A_s), A_s), γ
measured on the chunked run (or given). Step times are ProfilerStep means.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from densing.errors import InputError
from densing.overlap.intervals import merge_intervals

if TYPE_CHECKING:
    import pandas as pd

SUBLAYERS = {"attn": "proj", "mlp": "fc2"}  # sublayer → its producer GEMM's annotation
CONCURRENT_MIN = 0.5  # the covered fraction from which a GEMM runs beside a collective
ANNOTATIONS = tuple(
    f"tp/{s}{part}" for s, gemm in SUBLAYERS.items() for part in ("", f"/{gemm}", "/allreduce", "/grad_allreduce")
)


def covered_fraction(start: np.ndarray, end: np.ndarray, cover_start: np.ndarray, cover_end: np.ndarray) -> np.ndarray:
    """For each interval [start_i, end_i), the fraction of it covered by ∪[cover_start, cover_end)."""
    start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    cs, ce = merge_intervals(cover_start, cover_end)
    if cs.size == 0:
        return np.zeros(start.shape)
    cum = np.concatenate([[0.0], np.cumsum(ce - cs)])

    def covered_before(t):
        k = np.searchsorted(cs, t, side="right")  # intervals starting at or before t
        last = np.clip(k - 1, 0, cs.size - 1)
        return cum[k] - np.where(k > 0, np.maximum(0.0, ce[last] - t), 0.0)

    length = end - start
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(length > 0, (covered_before(end) - covered_before(start)) / length, 0.0)


def gemm_contention(gemm_start, gemm_end, coll_start, coll_end) -> dict:
    """Measured contention γ of GEMM intervals against collective intervals (module docstring)."""
    gemm_start, gemm_end = np.asarray(gemm_start, dtype=float), np.asarray(gemm_end, dtype=float)
    frac = covered_fraction(gemm_start, gemm_end, coll_start, coll_end)
    dur = gemm_end - gemm_start
    alone, concurrent = dur[frac <= 0.0], dur[frac >= CONCURRENT_MIN]
    a, c = (float(d.mean()) if d.size else math.nan for d in (alone, concurrent))
    return {
        "gemm_alone_n": int(alone.size),
        "gemm_alone_us": a,
        "gemm_concurrent_n": int(concurrent.size),
        "gemm_concurrent_us": c,
        "contention": c / a - 1.0 if a > 0 else math.nan,
    }  # NaN: a side is empty


def _per_step_us(annotations: pd.DataFrame, name: str, steps: int) -> float:
    """µs per profiled step of the annotations named ``name`` (their durations summed over the steps)."""
    return float(annotations.loc[annotations["name"] == name, "duration_us"].sum() / steps)


def sublayer_table(run_dir: str | Path) -> pd.DataFrame:
    """Per (rank, sublayer) of a tp run: µs per profiled step and its producer GEMM's contention (module docstring)."""
    import pandas as pd

    from densing.overlap.trace import annotation_frame

    run_dir = Path(run_dir)
    ann = annotation_frame(run_dir, ANNOTATIONS).loc[lambda a: a["step"] >= 0]
    if not ann["name"].str.startswith("tp/").any():
        raise InputError(f"{run_dir}: no tp/* annotations in the profiled steps (not a tp run?)")
    rows = []
    for rank, r in ann.groupby("rank"):
        coll = r[r["name"].str.startswith("gloo:")]
        steps = r["step"].nunique()
        for s, gemm in SUBLAYERS.items():
            g = r[r["name"] == f"tp/{s}/{gemm}"]
            cont = gemm_contention(
                g["start_us"],
                g["start_us"] + g["duration_us"],
                coll["start_us"],
                coll["start_us"] + coll["duration_us"],
            )
            rows.append(
                {
                    "rank": int(rank),
                    "sublayer": s,
                    "steps": steps,
                    "sublayer_us": _per_step_us(r, f"tp/{s}", steps),
                    "producer_gemm_us": _per_step_us(r, f"tp/{s}/{gemm}", steps),
                    "exposed_comm_us": _per_step_us(r, f"tp/{s}/allreduce", steps),
                    "backward_comm_us": _per_step_us(r, f"tp/{s}/grad_allreduce", steps),
                    **cont,
                }
            )
    return pd.DataFrame(rows)


def measured_contention(run_dir: str | Path) -> float:
    """γ of a (chunked) tp run: all producer GEMMs of all ranks and sublayers pooled, each sublayer's concurrent GEMMs
    normalised by its alone mean (sublayers have different GEMM sizes)."""
    run_dir = Path(run_dir)
    table = sublayer_table(run_dir)
    used = table[(table["gemm_alone_n"] > 0) & (table["gemm_concurrent_n"] > 0)]
    if used.empty:
        raise InputError(
            f"{run_dir}: no producer GEMM ran beside a collective (a tp-none run? "
            f"contention is measured on a --tp-overlap chunked run)"
        )
    counts = used["gemm_concurrent_n"].tolist()
    ratios = (used["gemm_concurrent_us"] / used["gemm_alone_us"]).tolist()
    return float(sum(k * v for k, v in zip(counts, ratios)) / sum(counts) - 1.0)


def predict_t3(none_dir: str | Path, chunked_dir: str | Path, contention: float | None = None) -> tuple:
    """T3's prediction of the chunked run's step from the serialized run (module docstring): (γ, the predicted step
    with γ, the predicted step with no contention, γ = 0), steps in µs."""
    from densing.overlap.analysis import measured_step_s
    from densing.overlap.strategies.t3 import t3_step_time_s

    table = sublayer_table(none_dir)
    gamma = measured_contention(chunked_dir) if contention is None else float(contention)
    per = table.groupby("sublayer")[["producer_gemm_us", "exposed_comm_us"]].mean()
    serial = float((per["producer_gemm_us"] + per["exposed_comm_us"]).sum())
    step_none = measured_step_s(none_dir) * 1e6

    def predicted_us(g: float) -> float:
        fused = float(sum(t3_step_time_s(c, a, g) for c, a in zip(per["producer_gemm_us"], per["exposed_comm_us"])))
        return step_none - serial + fused

    return gamma, predicted_us(max(0.0, gamma)), predicted_us(0.0)
