"""Readers for PyTorch-profiler (Kineto) Chrome-trace JSON: one file per rank.

``read_traces(path)`` takes a trace file (``.json`` / ``.json.gz``) or a directory of them and
returns one :class:`RankTrace` per rank: small frozen dataclasses of numpy arrays holding the GPU
kernels (start/end in µs relative to the set's earliest event, category, stream, launch step,
collective bytes) and the ``ProfilerStep#N`` annotations. Nothing else of the trace is kept.

Decoding is typed (msgspec): only ``ph, cat, name, ts, dur`` and a handful of ``args`` fields
are materialised, so a large trace never becomes a large Python object graph.

To give HTA 0.5.0's numbers, the reader reproduces its event selection
(``hta/common/trace_parser.py`` and ``hta/common/trace.py``):

* events without ``dur`` or ``cat`` and the ``cat == "Trace"`` event are dropped;
* if any timestamp in the file is fractional (ns-resolution traces, PyTorch ≥ 2.3) times are
  rounded inwards: ``ts ← ceil(ts)``, ``end ← floor(ts + dur)`` (HTA ``round_down_time_stamps``,
  see pytorch/pytorch#122425); integer traces keep ``end = ts + dur``;
* when the set has two or more distinct ``ProfilerStep*`` names, GPU events are kept only if
  their ``correlation`` matches a CPU event that starts before the last ``ProfilerStep`` of the
  rank (HTA ``_filter_irrelevant_gpu_kernels``: the last, usually incomplete, step is excluded);
* the kernels analysed are the kept events with ``args.stream != -1`` (HTA ``stream.ne(-1)``).
"""
from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import math
import operator
import re
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional, Union

import msgspec
import numpy as np
import pandas as pd

from densing.errors import TraceError

# Kernel categories (codes in RankTrace.kernel_category)
COMMUNICATION, MEMORY, COMPUTATION, OTHER = 0, 1, 2, 3
CATEGORY_NAMES = ("communication", "memory", "computation", "other")

# HTA 0.5.0 hta/utils/utils.py: NCCL_KERNEL_RE, MEMORY_KERNEL_RE, NCCL_COMPUTE_KERNEL_RE.
# RCCL kernels are also named "ncclKernel_*"/"ncclDevKernel_*"; gloo runs on the CPU and has
# no GPU kernels.
_COMM_RE = re.compile(r"^nccl.*Kernel")
_MEMORY_RE = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")
_NOT_COMPUTE_RE = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")

_SYNC_NAMES = ("Event Sync", "Context Sync")

# bytes per element for the dtype names PyTorch writes into record_param_comms args
_DTYPE_BYTES = {
    "float": 4, "float32": 4, "double": 8, "float64": 8, "half": 2, "float16": 2,
    "bfloat16": 2, "bf16": 2, "int": 4, "int32": 4, "long": 8, "int64": 8, "short": 2,
    "int16": 2, "char": 1, "int8": 1, "byte": 1, "uint8": 1, "bool": 1,
    "float8_e4m3fn": 1, "float8_e5m2": 1,
}


def kernel_category(name: str) -> int:
    """Classify a GPU kernel name as HTA 0.5.0 ``get_kernel_type`` does.

    communication: ``^nccl.*Kernel``; memory: ``^Memcpy|^Memset|^dma``; computation: anything
    else that is not ``.*Memcpy``, ``^Memset`` or ``.*Sync``; other: the rest (e.g. syncs).
    """
    if _COMM_RE.match(name):
        return COMMUNICATION
    if _MEMORY_RE.match(name):
        return MEMORY
    if not _NOT_COMPUTE_RE.match(name):
        return COMPUTATION
    return OTHER


class _Args(msgspec.Struct):
    stream: Any = None
    correlation: Any = None
    in_nelems: Any = msgspec.field(default=None, name="In msg nelems")
    dtype: Any = None
    group_size: Any = msgspec.field(default=None, name="Group size")


class _Event(msgspec.Struct):
    cat: Optional[str] = None
    name: Any = None
    ts: Union[int, float, None] = None
    dur: Union[int, float, None] = None
    args: Optional[_Args] = None


# Fast path: the types real Kineto traces use. gc=False structs skip garbage-collector tracking
# (they hold no reference cycles), which makes decoding ~1.5x faster. A trace that does not fit
# (e.g. a string stream id) is decoded again with the tolerant types above.
class _FastArgs(msgspec.Struct, gc=False):
    stream: int = -1
    correlation: int = -1
    in_nelems: Optional[int] = msgspec.field(default=None, name="In msg nelems")
    dtype: Optional[str] = None


class _FastEvent(msgspec.Struct, gc=False):
    cat: Optional[str] = None
    name: Optional[str] = None
    ts: Union[int, float, None] = None
    dur: Union[int, float, None] = None
    args: Optional[_FastArgs] = None


class _FastTrace(msgspec.Struct, gc=False):
    traceEvents: Optional[list[_FastEvent]] = None
    distributedInfo: Optional[_DistributedInfo] = None


class _DistributedInfo(msgspec.Struct):
    rank: Any = None
    world_size: Any = None


class _Trace(msgspec.Struct):
    traceEvents: Optional[list[_Event]] = None
    distributedInfo: Optional[_DistributedInfo] = None


_DECODER = msgspec.json.Decoder(_Trace)
_get_ts = operator.attrgetter("ts")
_get_dur = operator.attrgetter("dur")
_FAST_DECODER = msgspec.json.Decoder(_FastTrace)


@dataclass(frozen=True)
class RankTrace:
    """The GPU kernels and step annotations of one rank (times in µs from ``time_origin_us``)."""

    path: str
    rank: int
    world_size: int
    time_origin_us: float
    kernel_start_us: np.ndarray
    kernel_end_us: np.ndarray
    kernel_category: np.ndarray  # int8 codes, see CATEGORY_NAMES
    kernel_stream: np.ndarray  # int64
    kernel_name_code: np.ndarray  # int32 index into kernel_names
    kernel_names: tuple[str, ...]
    kernel_step: np.ndarray  # int64 ProfilerStep number of the launching CPU event, -1 if none
    kernel_comm_bytes: np.ndarray  # float64 collective message bytes where args carry it, else nan
    step_number: np.ndarray  # int64
    step_start_us: np.ndarray
    step_end_us: np.ndarray
    step_names_seen: frozenset = field(default=frozenset())

    @property
    def kernel_count(self) -> int:
        return int(self.kernel_start_us.size)

    def kernels_frame(self) -> pd.DataFrame:
        """The kernels as a tidy DataFrame (one row per kernel)."""
        return pd.DataFrame({
            "rank": self.rank,
            "start_us": self.kernel_start_us,
            "end_us": self.kernel_end_us,
            "duration_us": self.kernel_end_us - self.kernel_start_us,
            "category": np.asarray(CATEGORY_NAMES, dtype=object)[self.kernel_category],
            "stream": self.kernel_stream,
            "name": np.asarray(self.kernel_names, dtype=object)[self.kernel_name_code],
            "step": self.kernel_step,
            "comm_bytes": self.kernel_comm_bytes,
        })


def trace_files(path: str | Path) -> list[Path]:
    """The trace files named by ``path``: the file itself, or ``*.json``/``*.json.gz`` in a directory."""
    p = Path(path)
    if p.is_file():
        return [p]
    if p.is_dir():
        files = sorted(f for f in p.iterdir()
                       if f.is_file() and (f.name.endswith(".json") or f.name.endswith(".json.gz")))
        if not files:
            raise TraceError(f"{p}: no .json or .json.gz trace files in this directory")
        return files
    raise TraceError(f"{p}: no such trace file or directory")


def _as_int(value: Any, default: int) -> int:
    """``int(value)`` as HTA ``normalize_gpu_stream_numbers`` does; ``default`` when impossible."""
    if value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def _comm_bytes(args: _Args | None) -> float:
    if args is None or args.in_nelems is None:
        return math.nan
    try:
        nelems = float(args.in_nelems)
    except (TypeError, ValueError):
        return math.nan
    size = _DTYPE_BYTES.get(str(args.dtype).lower()) if args.dtype is not None else None
    return nelems * size if size else math.nan


@dataclass
class _Decoded:
    """Intermediate per-file arrays (one entry per kept duration event)."""

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
    step_names: frozenset
    origin: float | int  # ts/end are relative to this (0 for rounded float traces)
    first_ts: float | int  # earliest kept event, absolute


_FAST_EVENTS = msgspec.json.Decoder(list[_FastEvent])
_EVENTS = msgspec.json.Decoder(list[_Event])
_BATCH_BYTES = 8 << 20


class _Unsplittable(Exception):
    """The events array could not be cut into batches here; decode the document whole."""


def _decode_doc(data: bytes, path: Path):
    """Decode a whole trace document: fast types first, tolerant types if they do not fit."""
    try:
        try:
            return _FAST_DECODER.decode(data), True
        except msgspec.ValidationError:
            return _DECODER.decode(data), False
    except msgspec.ValidationError as exc:
        raise TraceError(f"{path}: unexpected trace structure ({exc})") from None
    except msgspec.DecodeError as exc:
        raise TraceError(f"{path}: malformed JSON ({exc})") from None


def _decode_batch(data: bytes):
    try:
        return _FAST_EVENTS.decode(data), True
    except msgspec.ValidationError:
        return _EVENTS.decode(data), False


def _raw_pieces(path: Path):
    """The decompressed file in pieces of about 1 MiB (the whole file for plain .json)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not path.name.endswith(".gz"):
        yield data
        return
    step = 1 << 20
    try:
        while data:
            d = zlib.decompressobj(31)
            pos = 0
            while not d.eof and pos < len(data):
                yield d.decompress(data[pos:pos + step])
                pos += step
            if not d.eof:
                raise TraceError(f"{path}: truncated gzip (stream ends before its end marker)")
            data = d.unused_data.lstrip(b"\0")  # another gzip member may follow
    except zlib.error as exc:
        raise TraceError(f"{path}: corrupt gzip ({exc})") from None


def _event_batches(path: Path, meta: dict):
    """Yield ``(events, fast)`` batches of the ``traceEvents`` array; sets ``meta["info"]``.

    The raw bytes are decompressed piece by piece and the array is cut after ``},\n`` followed
    by whitespace and ``{`` (a newline cannot occur inside a JSON string; Kineto writes one event
    per block), so only one batch of decoded events is alive at a time. The last batch is decoded
    together with the document's other keys. Compact one-line JSON has no cut points and is
    decoded whole at the end. Raises :class:`_Unsplittable` when a cut turns out wrong.
    """
    buf = bytearray()
    prefix = None
    searched = 0  # buf[:searched] holds no usable cut point
    for piece in _raw_pieces(path):
        buf += piece
        if prefix is None:
            key = buf.find(b'"traceEvents"')
            bracket = buf.find(b"[", key) if key >= 0 else -1
            if bracket < 0:
                continue
            if buf[key + 13:bracket].strip() != b":":
                raise _Unsplittable
            prefix = bytes(buf[:bracket])
            del buf[:bracket]  # buf[0] is now the "[" that opens the array
        if len(buf) < _BATCH_BYTES:
            continue
        cut = buf.rfind(b"},\n", max(1, searched - 3), len(buf) - 1)
        searched = len(buf)
        if cut < 0:
            continue
        nxt = cut + 3
        while nxt < len(buf) and buf[nxt] in b" \t\r\n":
            nxt += 1
        if nxt >= len(buf) or buf[nxt] != 0x7B:  # "{"
            continue
        # decode buf[0:cut + 2] in place as "[ {...}, ... {...} ]": overwrite the "," after the
        # last event with "]" (buf[0] is "[" or whitespace turned into "[")
        buf[0] = 0x5B
        buf[cut + 1] = 0x5D
        try:
            with memoryview(buf) as view:
                batch = _decode_batch(view[:cut + 2])
        except msgspec.DecodeError:
            raise _Unsplittable from None
        del buf[:nxt - 1]  # keep one byte before the next "{" to hold the next "["
        searched = 0
        yield batch
    if prefix is None:
        raise _Unsplittable
    try:
        buf[0] = 0x5B
        doc, fast = _decode_doc(prefix + bytes(buf), path)
    except TraceError:
        raise _Unsplittable from None
    meta["info"] = doc.distributedInfo
    meta["has_events_key"] = doc.traceEvents is not None
    yield (doc.traceEvents or []), fast


def _whole_batches(path: Path, meta: dict):
    data = b"".join(_raw_pieces(path))
    doc, fast = _decode_doc(data, path)
    del data
    meta["info"] = doc.distributedInfo
    yield (doc.traceEvents or []), fast


class _Columns:
    """Arrays built batch by batch from decoded events (only duration events are kept)."""

    def __init__(self) -> None:
        self.lookup: dict = {}
        self.ts_float = False
        self.events = 0
        self.parts: dict[str, list] = {k: [] for k in
                                       ("ts", "dur", "stream", "correlation", "name_code", "comm_bytes")}

    def add(self, events: list, fast: bool) -> None:
        self.events += len(events)
        ts_types = set(map(type, map(_get_ts, events)))
        batch_float = bool(ts_types - {int})
        self.ts_float |= batch_float
        kept = [e for e in events
                if e.dur is not None and e.ts is not None and e.cat is not None and e.cat != "Trace"]
        if not kept:
            return
        n = len(kept)
        setdefault, lookup = self.lookup.setdefault, self.lookup
        names = [e.name for e in kept]
        if not fast:
            names = [x if isinstance(x, str) else "" if x is None else str(x) for x in names]
        self.parts["name_code"].append(np.array([setdefault(x, len(lookup)) for x in names], dtype=np.int32))
        args = [e.args for e in kept]
        if fast:
            stream = [a.stream if a is not None else -1 for a in args]
            correlation = [a.correlation if a is not None else -1 for a in args]
        else:
            stream = [_as_int(a.stream, -1) if a is not None else -1 for a in args]
            correlation = [_as_int(a.correlation, -1) if a is not None else -1 for a in args]
        self.parts["stream"].append(np.array(stream, dtype=np.int64))
        self.parts["correlation"].append(np.array(correlation, dtype=np.int64))
        comm_bytes = np.full(n, np.nan)
        for i in [i for i, a in enumerate(args) if a is not None and a.in_nelems is not None]:
            comm_bytes[i] = _comm_bytes(args[i])
        self.parts["comm_bytes"].append(comm_bytes)
        self.parts["dur"].append(np.fromiter(map(_get_dur, kept), dtype=np.float64, count=n))
        if batch_float:
            self.parts["ts"].append(np.fromiter(map(_get_ts, kept), dtype=np.float64, count=n))
        else:
            try:
                self.parts["ts"].append(np.array([e.ts for e in kept], dtype=np.int64))
            except OverflowError:
                raise TraceError("timestamp beyond 64-bit integer range") from None

    def column(self, name: str) -> np.ndarray:
        parts = self.parts[name]
        if name == "ts" and self.ts_float:
            parts = [p.astype(np.float64) for p in parts]
        return np.concatenate(parts)


def _decode_file(path: Path, default_rank: int) -> _Decoded:
    meta: dict = {}
    cols = _Columns()
    try:
        try:
            for events, fast in _event_batches(path, meta):
                cols.add(events, fast)
        except _Unsplittable:
            meta, cols = {}, _Columns()
            for events, fast in _whole_batches(path, meta):
                cols.add(events, fast)
    except TraceError as exc:
        msg = str(exc)
        raise TraceError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
    if cols.events == 0:
        raise TraceError(f"{path}: no traceEvents")
    if not cols.parts["ts"]:
        raise TraceError(f"{path}: no duration events (traceEvents has no 'X' events with ts and dur)")
    info = meta.get("info")
    rank = _as_int(info.rank, default_rank) if info is not None else default_rank
    world_size = _as_int(info.world_size, 1) if info is not None else 1
    unique_names = [x if isinstance(x, str) else "" if x is None else str(x) for x in cols.lookup]
    name_code, stream, correlation = cols.column("name_code"), cols.column("stream"), cols.column("correlation")
    comm_bytes, dur = cols.column("comm_bytes"), cols.column("dur")
    ts = cols.column("ts")
    del cols
    if ts.dtype == np.float64:
        # HTA round_down_time_stamps: ts ← ceil(ts), end ← floor(ts + dur)
        start = np.ceil(ts)
        end = np.floor(ts + dur)
        origin: float | int = 0
        first: float | int = float(start.min())
    else:
        # shift in int64 first so ns-since-epoch timestamps (> 2**53) keep full precision
        origin = first = int(ts.min())
        start = (ts - origin).astype(np.float64)
        end = start + dur
    # Keep only rows the analysis can use (lossless): GPU-side rows, CPU rows with a correlation
    # id (launches), ProfilerStep annotations and device syncs.
    special = [i for i, x in enumerate(unique_names) if "ProfilerStep" in x or x in _SYNC_NAMES]
    useful = (stream != -1) | (correlation >= 0)
    if special:
        useful |= np.isin(name_code, special)
    start, end, stream, correlation = start[useful], end[useful], stream[useful], correlation[useful]
    name_code, comm_bytes = name_code[useful], comm_bytes[useful]
    return _Decoded(str(path), rank, world_size, start, end, stream, correlation, name_code,
                    unique_names, comm_bytes, _step_names(unique_names), origin, first)


def _step_names(unique_names: list) -> frozenset:
    return frozenset(n for n in unique_names if "ProfilerStep" in n)


def _to_rank_trace(d: _Decoded, filter_last_step: bool, set_origin_us: float) -> RankTrace:
    names = d.names
    sync_codes = [i for i, n in enumerate(names) if n in _SYNC_NAMES]
    is_gpu = (d.stream >= 0) & (d.correlation >= 0)
    if sync_codes:
        is_gpu |= np.isin(d.name_code, sync_codes)
    is_cpu = ~is_gpu
    step_code_to_number = {}
    for i, n in enumerate(names):
        if "ProfilerStep" in n:
            m = re.search(r"ProfilerStep#(\d+)", n)
            step_code_to_number[i] = int(m.group(1)) if m else -1
    step_codes = np.fromiter(step_code_to_number.keys(), dtype=np.int32, count=len(step_code_to_number))
    is_step = is_cpu & np.isin(d.name_code, step_codes)

    if filter_last_step:
        if not is_step.any():
            raise TraceError(f"{d.path}: no ProfilerStep annotations on this rank while other ranks have them")
        last_start = d.ts[is_step].max()
        kept_cpu = is_cpu & (d.ts < last_start)
        kept_gpu = is_gpu & np.isin(d.correlation, np.unique(d.correlation[kept_cpu]))
        kept = kept_cpu | kept_gpu
    else:
        kept = np.ones(d.ts.shape, dtype=bool)
    kernel = kept & (d.stream != -1)
    if not kernel.any():
        raise TraceError(f"{d.path}: no GPU kernels (events with args.stream) in the analysed steps")

    # steps (CPU annotations), sorted by start
    st_ts, st_end = d.ts[is_step], d.end[is_step]
    st_num = np.fromiter((step_code_to_number[c] for c in d.name_code[is_step]), dtype=np.int64,
                         count=int(is_step.sum()))
    order = np.argsort(st_ts, kind="stable")
    st_ts, st_end, st_num = st_ts[order], st_end[order], st_num[order]

    # the launching CPU event of each kernel (same correlation id) decides its step (HTA add_iteration)
    k_corr = d.correlation[kernel]
    k_step = np.full(k_corr.shape, -1, dtype=np.int64)
    if st_ts.size:
        launch = is_cpu & (d.correlation >= 0)
        l_corr, l_ts = d.correlation[launch], d.ts[launch]
        o = np.argsort(l_corr, kind="stable")
        l_corr, l_ts = l_corr[o], l_ts[o]
        launch_ts = np.full(k_corr.shape, np.nan)
        if l_corr.size:
            pos = np.minimum(np.searchsorted(l_corr, k_corr), l_corr.size - 1)
            found = l_corr[pos] == k_corr
            launch_ts[found] = l_ts[pos[found]]
        si = np.searchsorted(st_ts, launch_ts, side="right") - 1
        si_c = np.clip(si, 0, st_ts.size - 1)
        ok = ~np.isnan(launch_ts) & (si >= 0) & (launch_ts < st_end[si_c])
        k_step[ok] = st_num[si_c[ok]]

    codes = d.name_code[kernel]
    used, inverse = np.unique(codes, return_inverse=True)
    k_names = tuple(names[c] for c in used)
    cat_of_name = np.fromiter((kernel_category(n) for n in k_names), dtype=np.int8, count=len(k_names))
    offset = float(d.origin - set_origin_us)  # exact when both are ints
    return RankTrace(
        path=d.path, rank=d.rank, world_size=d.world_size, time_origin_us=float(set_origin_us),
        kernel_start_us=d.ts[kernel] + offset, kernel_end_us=d.end[kernel] + offset,
        kernel_category=cat_of_name[inverse], kernel_stream=d.stream[kernel],
        kernel_name_code=inverse.astype(np.int32), kernel_names=k_names, kernel_step=k_step,
        kernel_comm_bytes=d.comm_bytes[kernel],
        step_number=st_num, step_start_us=st_ts + offset, step_end_us=st_end + offset,
        step_names_seen=d.step_names,
    )


_PARALLEL_MIN_BYTES = 32 << 20


def _decode_files(files: list[Path]) -> list[_Decoded]:
    """Decode the files; in a fork-based process pool when there are several large ones
    (as HTA does), each worker returning only the small per-rank arrays."""
    workers = min(len(files), os.cpu_count() or 1)
    if (workers > 1 and sum(f.stat().st_size for f in files) >= _PARALLEL_MIN_BYTES
            and "fork" in multiprocessing.get_all_start_methods()):
        with concurrent.futures.ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_decode_file, files, range(len(files))))
    return [_decode_file(f, i) for i, f in enumerate(files)]


def read_traces(path: str | Path) -> list[RankTrace]:
    """Read one trace file or a directory of per-rank files; one :class:`RankTrace` per rank.

    Ranks come from ``distributedInfo.rank`` (else the file's position); times are µs relative
    to the earliest kept event of the whole set (HTA ``_align_all_ranks``).
    """
    files = trace_files(path)
    decoded = _decode_files(files)
    ranks = [d.rank for d in decoded]
    if len(set(ranks)) != len(ranks):
        raise TraceError(f"{path}: two trace files claim the same distributedInfo.rank")
    all_step_names = frozenset().union(*(d.step_names for d in decoded))
    filter_last_step = len(all_step_names) >= 2
    set_origin = min(d.first_ts for d in decoded)
    traces = [_to_rank_trace(d, filter_last_step, set_origin) for d in decoded]
    return sorted(traces, key=lambda t: t.rank)


def with_kernels(trace: RankTrace, mask: np.ndarray) -> RankTrace:
    """A copy of ``trace`` keeping only the kernels where ``mask`` is true."""
    return replace(
        trace,
        kernel_start_us=trace.kernel_start_us[mask], kernel_end_us=trace.kernel_end_us[mask],
        kernel_category=trace.kernel_category[mask], kernel_stream=trace.kernel_stream[mask],
        kernel_name_code=trace.kernel_name_code[mask], kernel_step=trace.kernel_step[mask],
        kernel_comm_bytes=trace.kernel_comm_bytes[mask],
    )
