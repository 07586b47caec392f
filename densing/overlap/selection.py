"""HTA 0.5.0's selection rules: which decoded GPU-trace rows are analysed, and when.

The reader reproduces HTA 0.5.0's event selection (``hta/common/trace_parser.py``, ``hta/common/trace.py``):

* events without ``dur`` or ``cat`` and the ``cat == "Trace"`` event are dropped (:class:`.columns.KernelColumns`);
* if any timestamp in the file is fractional (ns-resolution traces, PyTorch ≥ 2.3) times are rounded inwards:
  ``ts ← ceil(ts)``, ``end ← floor(ts + dur)`` (HTA ``round_down_time_stamps``, see pytorch/pytorch#122425);
  integer traces keep ``end = ts + dur``;
* ranks are aligned on the set's earliest duration event (HTA ``_align_all_ranks``);
* when the set has two or more distinct ``ProfilerStep*`` names, GPU events are kept only if their ``correlation``
  matches a CPU event that starts before the last ``ProfilerStep`` of the rank (HTA
  ``_filter_irrelevant_gpu_kernels``: the last, usually incomplete, step is excluded);
* the kernels analysed are the kept events with ``args.stream != -1`` (HTA ``stream.ne(-1)``);
* a kernel belongs to the step in which its launching CPU event (same correlation id) starts (HTA ``add_iteration``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from densing.errors import TraceError
from densing.overlap.columns import SYNC_NAMES, KernelColumns, isin_codes, isin_sorted, sorted_unique
from densing.overlap.kineto import DecodeInfo
from densing.overlap.model import (
    DEFAULT_KERNEL_RULES,
    STEP_RE,
    NoGpuKernelsError,
    RankTrace,
    kernel_category,
    step_containing,
)


@dataclass
class DecodedRank:
    """One GPU-trace file's usable rows (rounded as HTA rounds them) and what the set needs of it."""

    path: str
    rank: int
    world_size: int
    ts: np.ndarray
    end: np.ndarray
    stream: np.ndarray
    correlation: np.ndarray
    name_code: np.ndarray
    names: list
    comm_bytes: np.ndarray
    step_names: frozenset  # the ProfilerStep* names of the file (the set's rule needs all ranks')
    origin: float | int  # ts/end are relative to this (0 for rounded float traces)
    first_ts: float | int  # earliest duration event, absolute (the set is aligned on the smallest)
    has_collectives: bool  # a gloo:* event: read as a CPU job if there are no GPU kernels
    info: DecodeInfo = DecodeInfo()  # distributedInfo as checked (the set's files must be one job's)


def step_number(name: str) -> int:
    """The step of a ``ProfilerStep#N`` event's name, −1 where it gives none."""
    found = STEP_RE.search(name)
    return int(found.group(1)) if found else -1


def check_events(path, cols) -> None:
    """The errors of a file without (duration) events, or with kernels without a time."""
    if cols.events == 0:
        raise TraceError(f"{path}: no traceEvents")
    if not cols.duration_events:
        raise TraceError(f"{path}: no duration events (traceEvents has no 'X' events with ts and dur)")
    if timeless := cols.timeless:  # left out, they would change every overlap number without a word
        raise TraceError(
            f"{path}: {timeless} kernel event{'s' if timeless != 1 else ''} (with args.stream) without a "
            f"'ts' or 'dur' (absent or null), the first {cols.timeless_name!r}: where they ran cannot "
            "be known; a trace whose kernels all have both is needed"
        )


def decoded_rank(path, cols: KernelColumns, info: DecodeInfo, default_rank: int) -> DecodedRank:
    """The rows of one decoded file, timestamps rounded as HTA rounds them (module docstring); rank and world size
    from ``distributedInfo`` (else ``default_rank`` and 1), checked (:meth:`.DecodeInfo.checked`)."""
    check_events(path, cols)
    job = info.checked(path, default_rank)
    names, ts, dur = cols.names, cols.column("ts"), cols.column("dur")
    if cols.ts_float:  # HTA round_down_time_stamps
        start, end, origin, first = np.ceil(ts), np.floor(ts + dur), 0, float(math.ceil(float(cols.ts_min)))
    else:  # shifted in int64 first, so that ns-since-epoch timestamps (> 2**53) keep full precision
        origin = first = int(cols.ts_min)
        start = (ts - origin).astype(np.float64)
        end = start + dur
    return DecodedRank(
        str(path),
        job.rank,
        job.world_size or 1,
        start,
        end,
        cols.column("stream"),
        cols.column("correlation"),
        cols.column("name_code"),
        names,
        cols.column("comm_bytes"),
        frozenset(n for n in names if "ProfilerStep" in n),
        origin,
        first,
        cols.has_collectives,
        job,
    )


def gpu_side(stream: np.ndarray, correlation: np.ndarray, name_code: np.ndarray, names: list) -> np.ndarray:
    """HTA's GPU-side rows: those on a stream with a correlation id, and the device syncs."""
    syncs = [i for i, n in enumerate(names) if n in SYNC_NAMES]
    return ((stream >= 0) & (correlation >= 0)) | isin_codes(name_code, syncs)


def filters_last_step(step_names: frozenset) -> bool:
    """HTA's rule: the last step is excluded when the set has two or more ProfilerStep names."""
    return len(step_names) >= 2


def to_rank_trace(
    d: DecodedRank, filter_last_step: bool, set_origin_us: float, rules: str = DEFAULT_KERNEL_RULES
) -> RankTrace:
    """The analysed kernels and steps of one rank (module docstring), kernels classified by ``rules``
    (:func:`~densing.overlap.model.kernel_category`); NoGpuKernelsError when none is left."""
    names, is_gpu = d.names, gpu_side(d.stream, d.correlation, d.name_code, d.names)
    is_cpu = ~is_gpu
    step_code_to_number = {i: step_number(n) for i, n in enumerate(names) if "ProfilerStep" in n}
    is_step = is_cpu & isin_codes(d.name_code, list(step_code_to_number))

    kernel = d.stream != -1
    if filter_last_step:
        if not is_step.any():
            raise TraceError(f"{d.path}: no ProfilerStep annotations on this rank while other ranks have them")
        kept_cpu = is_cpu & (d.ts < d.ts[is_step].max())
        kernel &= kept_cpu | (is_gpu & isin_sorted(d.correlation, sorted_unique(d.correlation[kept_cpu])))
    if not kernel.any():
        raise NoGpuKernelsError(f"{d.path}: no GPU kernels (events with args.stream) in the analysed steps")

    order = np.argsort(d.ts[is_step], kind="stable")  # the steps (CPU annotations) by start
    st_ts, st_end = d.ts[is_step][order], d.end[is_step][order]
    st_num = np.array([step_code_to_number[c] for c in d.name_code[is_step].tolist()], dtype=np.int64)[order]

    # the launching CPU event of each kernel (same correlation id) decides its step (HTA add_iteration)
    k_corr = d.correlation[kernel]
    k_step = np.full(k_corr.shape, -1, dtype=np.int64)
    if st_ts.size:
        launch = np.flatnonzero(is_cpu & (d.correlation >= 0))
        launch = launch[np.argsort(d.correlation[launch], kind="stable")]
        l_corr, l_ts = d.correlation[launch], d.ts[launch]
        launch_ts = np.full(k_corr.shape, np.nan)
        if l_corr.size:
            pos = np.minimum(np.searchsorted(l_corr, k_corr), l_corr.size - 1)
            found = l_corr[pos] == k_corr
            launch_ts[found] = l_ts[pos[found]]
        k_step = step_containing(launch_ts, st_ts, st_end, st_num)

    used, inverse = np.unique(d.name_code[kernel], return_inverse=True)
    k_names = tuple(names[c] for c in used)
    cat_of_name = np.fromiter((kernel_category(n, rules) for n in k_names), dtype=np.int8, count=len(k_names))
    offset = float(d.origin - set_origin_us)  # exact when both are ints
    return RankTrace(
        path=d.path,
        rank=d.rank,
        world_size=d.world_size,
        time_origin_us=float(set_origin_us),
        kernel_start_us=d.ts[kernel] + offset,
        kernel_end_us=d.end[kernel] + offset,
        kernel_category=cat_of_name[inverse],
        kernel_lane=d.stream[kernel],
        kernel_name_code=inverse.astype(np.int32),
        kernel_names=k_names,
        kernel_step=k_step,
        kernel_comm_bytes=d.comm_bytes[kernel],
        step_number=st_num,
        step_start_us=st_ts + offset,
        step_end_us=st_end + offset,
        step_names_seen=d.step_names,
    )
