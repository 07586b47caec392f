"""Overlap and temporal-breakdown metrics per rank, per step, and across ranks.

Definitions (HolisticTraceAnalysis 0.5.0, ``hta/analyzers/communication_analysis.py`` and
``hta/analyzers/breakdown_analysis.py``), with ∪ the union of merged kernel intervals:

* kernel span  T = max(end) − min(start) over all GPU kernels
* idle         I = T − |∪ all kernels|
* compute      C = |∪ computation kernels|
* non-compute  N = T − C − I            (communication, memory and other kernels not under compute)
* overlap %    = 100 · |∪ comm ∩ ∪ comp| / |∪ comm|
* exposed communication (not in HTA) = |∪ comm| − |∪ comm ∩ ∪ comp|: communication time that
  no computation hides, the time a perfect overlap strategy could save.
Percentages of the breakdown are 100 · I/T, 100 · C/T, 100 · N/T. :func:`peer_wait` splits the exposed
communication into transfer and peer wait (skew) across the ranks of a set.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from densing.overlap.intervals import intersection_length, merge_intervals, subtract_intervals, union_length
from densing.overlap.model import COMMUNICATION, COMPUTATION, LANE_STREAM, RankTrace
from densing.validation import Frame, Interval, validate_params

if TYPE_CHECKING:
    import pandas as pd

RANK_COLUMNS = [
    "rank",
    "world_size",
    "kernel_count",
    "kernel_span_us",
    "idle_us",
    "compute_us",
    "non_compute_us",
    "comm_us",
    "overlap_us",
    "exposed_comm_us",
    "comm_comp_overlap_pct",
    "idle_pct",
    "compute_pct",
    "non_compute_pct",
    "comm_bytes",
    "stream_overlaps",
]


def stream_overlaps(start_us: np.ndarray, end_us: np.ndarray, stream: np.ndarray, carry: dict | None = None) -> int:
    """How many kernels start before an earlier kernel of their CUDA stream has ended: each is a fault of the trace
    (clocks, a dropped or merged event; HTA's test trace ``diff_test`` has 30), counted, not corrected. ``carry``
    (stream → latest end so far, updated) continues a count over kernels given in time windows."""
    count = 0
    for lane in set(stream.tolist()):  # (np.unique would load numpy.ma, which the JSON path leaves out)
        on = stream == lane
        order = np.argsort(start_us[on], kind="stable")
        s, e = start_us[on][order], end_us[on][order]
        before = -np.inf if carry is None else carry.get(int(lane), -np.inf)
        latest = np.maximum.accumulate(np.concatenate(([before], e)))  # latest end before each kernel, and after
        count += int((s < latest[:-1]).sum())
        if carry is not None:
            carry[int(lane)] = float(latest[-1])
    return count


def breakdown(start_us: np.ndarray, end_us: np.ndarray, category: np.ndarray) -> dict:
    """The overlap and temporal-breakdown numbers of one set of kernels (see module docstring)."""
    if start_us.size == 0:
        return {k: math.nan for k in RANK_COLUMNS if k not in ("rank", "world_size")} | {"kernel_count": 0}
    ms, me = merge_intervals(start_us, end_us)
    comm, comp = category == COMMUNICATION, category == COMPUTATION
    return breakdown_row(
        int(start_us.size),
        float(me[-1] - ms[0]),
        float(me.sum() - ms.sum()),
        union_length(start_us[comp], end_us[comp]),
        union_length(start_us[comm], end_us[comm]),
        intersection_length(start_us[comm], end_us[comm], start_us[comp], end_us[comp]),
    )


def breakdown_row(count: int, span: float, busy: float, compute: float, comm_time: float, overlap: float) -> dict:
    """The breakdown's columns from T, |∪ all|, |∪ comp|, |∪ comm| and |∪ comm ∩ ∪ comp| (see module docstring)."""
    idle = span - busy
    non_compute = span - compute - idle

    def pct(x: float, total: float) -> float:
        return 100.0 * x / total if total > 0 else math.nan

    return {
        "kernel_count": count,
        "kernel_span_us": span,
        "idle_us": idle,
        "compute_us": compute,
        "non_compute_us": non_compute,
        "comm_us": comm_time,
        "overlap_us": overlap,
        "exposed_comm_us": comm_time - overlap,
        "comm_comp_overlap_pct": pct(overlap, comm_time),
        "idle_pct": pct(idle, span),
        "compute_pct": pct(compute, span),
        "non_compute_pct": pct(non_compute, span),
    }


def rank_metrics(trace: RankTrace) -> dict:
    """One rank's row: :func:`breakdown` over all its analysed kernels, plus collective bytes."""
    row = {"rank": trace.rank, "world_size": trace.world_size}
    row |= breakdown(trace.kernel_start_us, trace.kernel_end_us, trace.kernel_category)
    comm_bytes = trace.kernel_comm_bytes[trace.kernel_category == COMMUNICATION]
    row["comm_bytes"] = float(np.nansum(comm_bytes)) if np.isfinite(comm_bytes).any() else math.nan
    if trace.lane_kind == LANE_STREAM:  # a CPU trace's ops nest on their thread: no count
        row["stream_overlaps"] = stream_overlaps(trace.kernel_start_us, trace.kernel_end_us, trace.kernel_lane)
    return row


STEP_COLUMNS = ["rank", "step", "step_time_us"] + [
    c for c in RANK_COLUMNS if c not in ("rank", "world_size", "comm_bytes", "stream_overlaps")
]


def rank_row(trace: RankTrace) -> dict:
    """:func:`rank_metrics` with every column of :data:`RANK_COLUMNS`, in order."""
    row = rank_metrics(trace)
    return {c: row.get(c, math.nan) for c in RANK_COLUMNS}


def rank_step_rows(trace: RankTrace) -> list[dict]:
    """Per ProfilerStep with kernels: ``step_time_us`` (its duration) and the breakdown of the kernels it launched."""
    rows, t = [], trace
    order = np.argsort(t.kernel_step, kind="stable")  # each step's kernels once, in trace order (not a scan per step)
    steps = t.kernel_step[order]
    for number, start, end in zip(t.step_number, t.step_start_us, t.step_end_us):
        low, high = np.searchsorted(steps, number, "left"), np.searchsorted(steps, number, "right")
        if low == high:
            continue
        sel = order[low:high]
        rows.append(
            {"rank": t.rank, "step": int(number), "step_time_us": float(end - start)}
            | breakdown(t.kernel_start_us[sel], t.kernel_end_us[sel], t.kernel_category[sel])
        )
    return rows


#: What :func:`step_skew`'s threshold may be: a percentage over the median step time, ≥ 0 (a negative one
#: would flag the slowest rank of every step, however even the steps).
SKEW_CONSTRAINTS = {
    "steps": [Frame(("step", "rank", "step_time_us"), min_rows=0)],
    "straggler_threshold_pct": [Interval(Real, 0, None)],
}

#: The rank-mean metrics :func:`compare` compares (columns of :func:`densing.overlap.analyze`'s rows).
COMPARED = (
    "kernel_span_us",
    "idle_us",
    "compute_us",
    "non_compute_us",
    "comm_us",
    "overlap_us",
    "exposed_comm_us",
    "comm_comp_overlap_pct",
    "idle_pct",
    "compute_pct",
    "non_compute_pct",
)
_STEPS = [Frame(("step_time_us",), min_rows=0), None]
#: compare's arguments: two analyses of at least one rank each (a mean over none would be NaN), and their steps.
COMPARE_CONSTRAINTS = {
    "base": [Frame(COMPARED)],
    "candidate": [Frame(COMPARED)],
    "base_steps": _STEPS,
    "candidate_steps": _STEPS,
}


@validate_params(SKEW_CONSTRAINTS)
def step_skew(steps: pd.DataFrame, straggler_threshold_pct: float = 5.0) -> pd.DataFrame:
    """Across ranks, per step: fastest/median/slowest step time, skew and the slowest rank.

    skew_us = max_r t_r − min_r t_r;  slowest_excess_pct = 100 · (max_r t_r / median_r t_r − 1);
    the slowest rank is flagged a straggler when its excess exceeds ``straggler_threshold_pct``.
    """
    import pandas as pd

    out = []
    for step, g in steps.groupby("step", sort=True):
        times = g["step_time_us"].to_numpy()
        median = float(np.median(times))
        excess = 100.0 * (times.max() / median - 1.0) if median > 0 else math.nan
        out.append(
            {
                "step": int(step),
                "ranks": int(len(g)),
                "min_step_time_us": float(times.min()),
                "median_step_time_us": median,
                "max_step_time_us": float(times.max()),
                "skew_us": float(times.max() - times.min()),
                "slowest_rank": int(g["rank"].iloc[times.argmax()]),
                "slowest_excess_pct": excess,
                "straggler": bool(len(g) > 1 and excess > straggler_threshold_pct),
            }
        )
    return pd.DataFrame(
        out,
        columns=[
            "step",
            "ranks",
            "min_step_time_us",
            "median_step_time_us",
            "max_step_time_us",
            "skew_us",
            "slowest_rank",
            "slowest_excess_pct",
            "straggler",
        ],
    )


@validate_params(COMPARE_CONSTRAINTS)
def compare(
    base: pd.DataFrame,
    candidate: pd.DataFrame,
    base_steps: pd.DataFrame | None = None,
    candidate_steps: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per-metric deltas, candidate − base, of the rank-mean metrics; plus step-time speedup.

    speedup = mean step time(base) / mean step time(candidate) (> 1: the candidate is faster).
    """
    import pandas as pd

    def row(metric: str, b: float, c: float) -> dict:
        return {"metric": metric, "base": b, "candidate": c, "delta": c - b, "ratio": c / b if b else math.nan}

    rows = [row(m, float(base[m].mean()), float(candidate[m].mean())) for m in COMPARED]
    if base_steps is not None and candidate_steps is not None and len(base_steps) and len(candidate_steps):
        b, c = float(base_steps["step_time_us"].mean()), float(candidate_steps["step_time_us"].mean())
        rows += [row("step_time_us", b, c), row("step_time_speedup", 1.0, b / c if c else math.nan)]
    return pd.DataFrame(rows, columns=["metric", "base", "candidate", "delta", "ratio"])


def peer_wait_rows(traces: Iterable[RankTrace]) -> list[dict]:
    """One row per rank: exposed communication split into transfer and peer wait (skew), across the ranks of a set.

    A collective cannot finish before its slowest participant has joined: one that starts on rank r while a peer is
    still computing spends its first part waiting. The j-th collective of a given name in ProfilerStep N is matched
    on every rank (same program, same sequence on each rank); with s_r its start on rank r (the set's common clock),

    * peer wait of rank r     w_r = min(duration_r, max_r' s_r' − s_r)   (waiting for the last to join);
    * per rank: peer wait = |∪[s_r, s_r + w_r)|, transfer = |∪ collectives| − peer wait (unions: queued
      asynchronous collectives overlap one another);
    * exposed peer wait  = |W \\ C|, W = ∪[s_r, s_r + w_r), C the rank's computation (as in the breakdown);
    * exposed transfer   = exposed communication − exposed peer wait.

    Exposed transfer is what a better overlap could hide; exposed peer wait is skew, which only balancing the ranks
    removes. Collectives whose match is missing on a rank (the profiler window cut it) are left out of the split
    (counted in ``unmatched``). Columns: comm_us, peer_wait_us, transfer_us, exposed_comm_us, exposed_peer_wait_us,
    exposed_transfer_us, matched and unmatched.
    """
    import pandas as pd

    traces, keyed, key = list(traces), [], ["step", "name", "nth"]
    for t in traces:  # each rank's collectives by start, keyed by step, name and the nth of that name in the step
        comm = np.flatnonzero(t.kernel_category == COMMUNICATION)
        comm = comm[np.argsort(t.kernel_start_us[comm], kind="stable")]
        frame = pd.DataFrame(
            {
                "step": t.kernel_step[comm],
                "start": t.kernel_start_us[comm],
                "name": np.asarray(t.kernel_names, dtype=object)[t.kernel_name_code[comm]],
                "end": t.kernel_end_us[comm],
            }
        )
        keyed.append(frame.assign(nth=frame.groupby(["step", "name"]).cumcount()))
    every = pd.concat(keyed).groupby(key)["start"].agg(latest="max", ranks="size")  # max_r' s_r', and on how many
    rows = []
    for t, frame in zip(traces, keyed):
        frame = frame.join(every, on=key)
        ok = (frame["ranks"] == len(traces)).to_numpy()
        s, e = frame["start"].to_numpy(), frame["end"].to_numpy()
        wait = np.clip(frame["latest"].to_numpy() - s, 0.0, e - s)
        wait[~ok] = 0.0
        comp = t.kernel_category == COMPUTATION
        comm_total = union_length(s, e)
        exposed = float(comm_total - intersection_length(s, e, t.kernel_start_us[comp], t.kernel_end_us[comp]))
        ws, we = subtract_intervals(s[ok], s[ok] + wait[ok], t.kernel_start_us[comp], t.kernel_end_us[comp])
        exposed_wait = min(exposed, float((we - ws).sum()))
        waited = union_length(s[ok], s[ok] + wait[ok])
        rows.append(
            {
                "rank": t.rank,
                "comm_us": comm_total,
                "peer_wait_us": waited,
                "transfer_us": comm_total - waited,
                "exposed_comm_us": exposed,
                "exposed_peer_wait_us": exposed_wait,
                "exposed_transfer_us": exposed - exposed_wait,
                "matched": int(ok.sum()),
                "unmatched": int((~ok).sum()),
            }
        )
    return rows


def peer_wait(source: str | Path | Iterable[RankTrace]) -> pd.DataFrame:
    """:func:`peer_wait_rows` of a trace directory (or read traces) as a DataFrame."""
    import pandas as pd

    from densing.overlap.trace import read_traces

    return pd.DataFrame(peer_wait_rows(read_traces(source) if isinstance(source, (str, Path)) else list(source)))
