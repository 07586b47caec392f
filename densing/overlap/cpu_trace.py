"""Reader for CPU-side (gloo) PyTorch-profiler traces: the same :class:`RankTrace` as GPU traces.

A collective of a CPU job runs on a ProcessGroupGloo worker thread as a ``gloo:<collective>`` event, which the
training thread only dispatches (``c10d::allreduce_``, ``record_param_comms``) and waits for. Definitions (beside
HTA's for GPU traces, :mod:`densing.overlap.metrics`), per rank, with ∪ the union of merged intervals and \\ set
difference:

* communication threads: the threads with a ``gloo:*`` event; compute threads: the other threads with ``cpu_op``s;
* communication  M = ∪ ``gloo:*`` events (the collectives' execution, on their own threads);
* communication calls  K = ∪ ``cpu_op`` events on compute threads named ``c10d::*``, ``record_param_comms`` or
  ``gloo:*``/``nccl:*`` (dispatch, copies into/out of the collective's buffers done inside them);
* computation  C = (∪ ``cpu_op`` events on compute threads) \\ K;
* span T = max(end) − min(start) over M ∪ K ∪ C; idle I = T − |M ∪ K ∪ C|  (no thread of the rank runs an op).

The percentages, overlap and exposed communication are HTA's formulas with "GPU kernels" replaced by "ops of the rank's
threads": in the :class:`RankTrace` C's disjoint pieces are ``computation``, the ``gloo:*`` events ``communication`` and
K's pieces ``other`` (so :func:`.metrics.breakdown` computes every number), ``kernel_lane`` the thread,
``kernel_comm_bytes`` NaN (no shapes recorded); an interval belongs to the ``ProfilerStep#N`` it starts in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from densing.errors import TraceError
from densing.overlap.columns import CAT_CPU_OP, CAT_USER_ANNOTATION, COLLECTIVE_PREFIX, OpColumns, isin_codes
from densing.overlap.intervals import merge_intervals, subtract_intervals
from densing.overlap.kineto import DecodeInfo
from densing.overlap.model import COMMUNICATION, COMPUTATION, LANE_THREAD, OTHER, STEP_RE, RankTrace, step_containing

_COMM_CALL_PREFIXES = ("c10d::", "record_param_comms", "gloo:", "nccl:")  # ops on a compute thread for a collective


def is_collective(name: str) -> bool:
    """A collective's execution on a ProcessGroupGloo worker thread (``gloo:all_reduce`` …)."""
    return name.startswith(COLLECTIVE_PREFIX)


@dataclass
class CpuRank:
    """One CPU-trace file's complete events: absolute times (µs), thread, name, category code."""

    path: str
    rank: int
    world_size: int
    ts: np.ndarray
    end: np.ndarray
    tid: np.ndarray
    name_code: np.ndarray
    names: list
    cat: np.ndarray
    stream_rows: int  # events with an args.stream: GPU kernels, so not a CPU-only job
    info: DecodeInfo = DecodeInfo()  # distributedInfo as checked (the set's files must be one job's)

    @property
    def first_ts(self) -> float | None:
        return float(self.ts.min()) if self.ts.size else None

    @property
    def has_collectives(self) -> bool:
        return any(is_collective(n) for n in self.names)


def cpu_rank(path, cols: OpColumns, info: DecodeInfo, default_rank: int) -> CpuRank:
    """The events of one decoded CPU-trace file; rank and world size from ``distributedInfo`` (checked)."""
    if cols.events == 0:
        raise TraceError(f"{path}: no traceEvents")
    job = info.checked(path, default_rank)
    return CpuRank(
        str(path),
        job.rank,
        job.world_size or 1,
        cols.column("ts"),
        cols.column("end"),
        cols.column("tid"),
        cols.column("name_code"),
        cols.names,
        cols.column("cat"),
        cols.stream_rows,
        job,
    )


def _name_mask(c: CpuRank, test) -> np.ndarray:
    return isin_codes(c.name_code, [i for i, n in enumerate(c.names) if test(n)])


def _steps(c: CpuRank):
    """The ProfilerStep annotations, sorted by start: (absolute start, end, number)."""
    sel = (c.cat == CAT_USER_ANNOTATION) & _name_mask(c, lambda n: n.startswith("ProfilerStep#"))
    number = np.array([int(STEP_RE.match(c.names[k]).group(1)) for k in c.name_code[sel].tolist()], dtype=np.int64)
    o = np.argsort(c.ts[sel], kind="stable")
    return c.ts[sel][o], c.end[sel][o], number[o]


def to_rank_trace(c: CpuRank, origin: float) -> RankTrace:
    """One rank's :class:`RankTrace` as the module docstring defines it; times from ``origin``."""
    if not c.ts.size:
        raise TraceError(f"{c.path}: no duration events")
    ts, end, tid = c.ts - origin, c.end - origin, c.tid
    collective = _name_mask(c, is_collective)
    if not collective.any():
        raise TraceError(f"{c.path}: no GPU kernels and no CPU collectives (gloo:* events) in this trace")
    comm_threads = np.unique(tid[collective])
    on_compute = (c.cat == CAT_CPU_OP) & ~np.isin(tid, comm_threads)
    if not on_compute.any():
        raise TraceError(f"{c.path}: no cpu_op events outside the gloo threads")
    call = on_compute & _name_mask(c, lambda n: n.startswith(_COMM_CALL_PREFIXES))

    pieces = []  # (start, end, category, thread)
    for thread in np.unique(tid[on_compute]):
        sel = on_compute & (tid == thread)
        ks, ke = merge_intervals(ts[sel & call], end[sel & call])
        cs, ce = subtract_intervals(ts[sel & ~call], end[sel & ~call], ks, ke)
        pieces += [(cs, ce, COMPUTATION, thread), (ks, ke, OTHER, thread)]
    pieces.append((ts[collective], end[collective], COMMUNICATION, tid[collective]))
    start, stop = (np.concatenate([p[i] for p in pieces]) for i in (0, 1))
    category = np.concatenate([np.full(p[0].size, p[2], dtype=np.int8) for p in pieces])
    lane = np.concatenate([np.broadcast_to(np.asarray(p[3], dtype=np.int64), p[0].shape) for p in pieces])
    label = np.where(category == COMPUTATION, "computation", "communication call").astype(object)
    label[category == COMMUNICATION] = np.array(c.names, dtype=object)[c.name_code[collective]]
    order = np.argsort(start, kind="stable")
    start, stop, category, lane, label = start[order], stop[order], category[order], lane[order], label[order]

    st_ts, st_end, step_num = _steps(c)
    st_ts, st_end = st_ts - origin, st_end - origin

    unique, code = np.unique(label.astype(str), return_inverse=True)
    return RankTrace(
        path=c.path,
        rank=c.rank,
        world_size=c.world_size,
        time_origin_us=float(origin),
        kernel_start_us=start,
        kernel_end_us=stop,
        kernel_category=category,
        kernel_lane=lane,
        kernel_name_code=code.astype(np.int32),
        kernel_names=tuple(str(u) for u in unique),
        kernel_step=step_containing(start, st_ts, st_end, step_num),
        kernel_comm_bytes=np.full(start.shape, math.nan),
        step_number=step_num,
        step_start_us=st_ts,
        step_end_us=st_end,
        step_names_seen=frozenset(f"ProfilerStep#{n}" for n in step_num),
        lane_kind=LANE_THREAD,
    )


def set_origin(ranks: list[CpuRank]) -> float:
    """The earliest event of the set (0 when no rank has one)."""
    return min((c.first_ts for c in ranks if c.first_ts is not None), default=0.0)


def annotation_rows(c: CpuRank, names: tuple[str, ...], origin: float) -> list[dict]:
    """One rank's ``user_annotation`` events named in ``names`` and ``gloo:*`` collectives (``annotation_frame``)."""
    wanted = set(names)
    idx = np.flatnonzero(
        ((c.cat == CAT_USER_ANNOTATION) & _name_mask(c, wanted.__contains__)) | _name_mask(c, is_collective)
    )
    steps = step_containing(c.ts[idx], *_steps(c))
    return [
        {"rank": c.rank, "step": int(s), "name": c.names[k], "start_us": t - origin, "duration_us": e - t}
        for s, k, t, e in zip(steps.tolist(), c.name_code[idx].tolist(), c.ts[idx].tolist(), c.end[idx].tolist())
    ]
