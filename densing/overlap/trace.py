"""Readers for PyTorch-profiler (Kineto) Chrome-trace JSON: one file per rank.

``read_traces(path)`` takes a trace file (``.json`` / ``.json.gz``) or a directory of them and
returns one :class:`RankTrace` per rank: small frozen dataclasses of numpy arrays holding the GPU
kernels (start/end in µs relative to the set's earliest event, category, stream, launch step,
collective bytes) and the ``ProfilerStep#N`` annotations. Nothing else of the trace is kept.

Decoding is typed (msgspec): only ``cat, name, ts, dur`` and a handful of ``args`` fields are
materialised, one batch of events at a time, and each batch is reduced at once to numpy columns
of the rows the analysis can use, so a large trace never becomes a large Python object graph.
Gzip is inflated with ISA-L (``isal``). With fewer files than CPUs (on Linux), a large file is
cut at event boundaries and its parts decoded in forked processes (:func:`_split_columns`);
several large files are decoded in a process pool, one file per worker, streamed in batches.

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

import atexit
import itertools
import math
import operator
import os
import pickle
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import msgspec
import numpy as np
from isal import isal_zlib  # ISA-L inflate: zlib-compatible, about 2x faster than zlib's

from densing.errors import TraceError

if TYPE_CHECKING:
    import pandas as pd

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
_STEP_RE = re.compile(r"ProfilerStep#(\d+)")

# bytes per element for the dtype names PyTorch writes into record_param_comms args
_DTYPE_BYTES = {
    "float": 4, "float32": 4, "double": 8, "float64": 8, "half": 2, "float16": 2,
    "bfloat16": 2, "bf16": 2, "int": 4, "int32": 4, "long": 8, "int64": 8, "short": 2,
    "int16": 2, "char": 1, "int8": 1, "byte": 1, "uint8": 1, "bool": 1,
    "float8_e4m3fn": 1, "float8_e5m2": 1,
}


class NoGpuKernelsError(TraceError):
    """A trace without GPU kernels: a CPU-only job, read by :mod:`densing.overlap.cpu_trace` when it
    holds gloo collectives."""


def kernel_category(name: str) -> int:
    """Classify a GPU kernel name as HTA 0.5.0 ``get_kernel_type`` does.

    communication: ``^nccl.*Kernel``; memory: ``^Memcpy|^Memset|^dma``; computation: anything
    else that is not ``.*Memcpy``, ``^Memset`` or ``.*Sync``; other: the rest (e.g. syncs).
    Names without a newline (``.`` does not match one) are classified with plain string tests,
    which give the same answers as the regular expressions several times faster.
    """
    if "\n" in name:
        if _COMM_RE.match(name):
            return COMMUNICATION
        if _MEMORY_RE.match(name):
            return MEMORY
        if not _NOT_COMPUTE_RE.match(name):
            return COMPUTATION
        return OTHER
    if name.startswith("nccl") and name.find("Kernel", 4) >= 0:
        return COMMUNICATION
    if name.startswith(("Memcpy", "Memset", "dma")):
        return MEMORY
    if "Memcpy" in name or "Sync" in name:
        return OTHER
    return COMPUTATION


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


# Fast paths: the types real Kineto traces use, in two variants: integer timestamps (µs traces)
# and float timestamps (ns-resolution traces, PyTorch >= 2.3). gc=False structs skip
# garbage-collector tracking (they hold no reference cycles), which makes decoding ~1.5x faster.
# Absent fields take shared sentinel defaults instead of None, so each column is read with one
# C-level attrgetter/np.fromiter pass rather than a Python loop. A batch that does not fit the
# integer variant is decoded with the float one, and one that fits neither (e.g. a string stream
# id, a null dur) with the tolerant types above.
class _FastArgs(msgspec.Struct, gc=False, frozen=True):
    stream: int = -1
    correlation: int = -1
    in_nelems: int = msgspec.field(default=-1, name="In msg nelems")
    dtype: Optional[str] = None


_NO_ARGS = _FastArgs()
_NO_CAT = "\0"  # sentinel for an absent "cat" (dropped, as HTA drops events without one)


class _IntTsEvent(msgspec.Struct, gc=False):
    ts: int  # required: an absent ts makes HTA's ts column float (so rounded), as FLOAT_TS does
    cat: str = _NO_CAT
    name: Optional[str] = None
    dur: float = math.nan  # absent: not a duration event, dropped
    args: _FastArgs = _NO_ARGS


class _FloatTsEvent(msgspec.Struct, gc=False):
    cat: str = _NO_CAT
    name: Optional[str] = None
    ts: float = math.nan
    dur: float = math.nan
    args: _FastArgs = _NO_ARGS


class _DistributedInfo(msgspec.Struct):
    rank: Any = None
    world_size: Any = None


class _Trace(msgspec.Struct):
    traceEvents: Optional[list[_Event]] = None
    distributedInfo: Optional[_DistributedInfo] = None


def _doc_type(event_type: type) -> type:
    return msgspec.defstruct("_Doc", [("traceEvents", Optional[list[event_type]], None),
                                      ("distributedInfo", Optional[_DistributedInfo], None)], gc=False)


# decode modes, tried in this order: (whole-document decoder, events-array decoder)
INT_TS, FLOAT_TS, TOLERANT = 0, 1, 2
_DECODERS = [(msgspec.json.Decoder(_doc_type(t)), msgspec.json.Decoder(list[t]))
             for t in (_IntTsEvent, _FloatTsEvent, _Event)]
_get_ts = operator.attrgetter("ts")
_get_dur = operator.attrgetter("dur")
_get_cat = operator.attrgetter("cat")
_get_name = operator.attrgetter("name")
_get_args = operator.attrgetter("args")
_get_stream = operator.attrgetter("stream")
_get_correlation = operator.attrgetter("correlation")
_get_nelems = operator.attrgetter("in_nelems")


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

    def kernels_frame(self) -> "pd.DataFrame":
        """The kernels as a tidy DataFrame (one row per kernel)."""
        import pandas as pd

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
    """Intermediate per-file arrays (one entry per usable row, see :class:`_Columns`)."""

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
    first_ts: float | int  # earliest duration event, absolute


_BATCH_BYTES = 8 << 20


class _Unsplittable(Exception):
    """The events array could not be cut into batches here; decode the document whole."""


def _decode(data, mode: int, whole: bool):
    """Decode ``data`` (a whole document, or one batch of the events array) with the first of
    the decode modes from ``mode`` on whose types fit; returns ``(value, mode)``. Raises
    msgspec's errors: a batch that does not decode means the cut was wrong, not the file."""
    for m in range(mode, TOLERANT):
        try:
            return _DECODERS[m][0 if whole else 1].decode(data), m
        except msgspec.ValidationError:
            pass
    return _DECODERS[TOLERANT][0 if whole else 1].decode(data), TOLERANT


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _raw_pieces(path: Path):
    """The decompressed file piece by piece (the whole file for plain .json)."""
    return _inflate_pieces(path, _read_bytes(path))


def _inflate_pieces(path: Path, data: bytes):
    """``data``, the bytes of ``path``, decompressed from 1 MiB pieces if it is gzip."""
    if not path.name.endswith(".gz"):
        yield data
        return
    step = 1 << 20
    try:
        while data:
            d = isal_zlib.decompressobj(31)
            pos = 0
            while not d.eof and pos < len(data):
                yield d.decompress(data[pos:pos + step])
                pos += step
            if not d.eof:
                raise TraceError(f"{path}: truncated gzip (stream ends before its end marker)")
            data = d.unused_data.lstrip(b"\0")  # another gzip member may follow
    except isal_zlib.error as exc:
        raise TraceError(f"{path}: corrupt gzip ({exc})") from None


def _decode_doc(data, mode: int, path: Path):
    try:
        return _decode(data, mode, whole=True)
    except msgspec.ValidationError as exc:
        raise TraceError(f"{path}: unexpected trace structure ({exc})") from None
    except msgspec.DecodeError as exc:
        raise TraceError(f"{path}: malformed JSON ({exc})") from None


def _events_start(buf) -> int:
    """Position of the ``[`` that opens the ``traceEvents`` array; -1 if not (yet) found;
    raises :class:`_Unsplittable` if the key is not followed by ``:`` and ``[``."""
    key = buf.find(b'"traceEvents"')
    bracket = buf.find(b"[", key) if key >= 0 else -1
    if bracket >= 0 and buf[key + 13:bracket].strip() != b":":
        raise _Unsplittable
    return bracket


def _cut_before(buf, lo: int, hi: int, forward: bool = False) -> tuple[int, int]:
    """The last (or with ``forward`` the first) event boundary in ``buf[lo:hi]``: ``(cut, nxt)``
    with ``buf[cut:cut + 2] == b"},"`` closing one event and ``buf[nxt] == "{"`` opening the next
    after a newline and whitespace; ``(-1, -1)`` when there is none."""
    while True:
        cut = buf.find(b"},\n", lo, hi) if forward else buf.rfind(b"},\n", lo, hi)
        if cut < 0:
            return -1, -1
        nxt = cut + 3
        while nxt < len(buf) and buf[nxt] in b" \t\r\n":
            nxt += 1
        if nxt < len(buf) and buf[nxt] == 0x7B:  # "{"
            return cut, nxt
        if forward:
            lo = cut + 1
        else:
            hi = cut + 2


def _event_batches(path: Path, meta: dict):
    """Yield ``(events, mode)`` batches of the ``traceEvents`` array; sets ``meta["info"]``.

    The raw bytes are decompressed piece by piece and the array is cut after ``},\n`` followed
    by whitespace and ``{`` (a newline cannot occur inside a JSON string; Kineto writes one event
    per block), so only one batch of decoded events is alive at a time. The last batch is decoded
    together with the document's other keys. Compact one-line JSON has no cut points and is
    decoded whole at the end. Raises :class:`_Unsplittable` when a cut turns out wrong.
    """
    buf = bytearray()
    prefix = None
    mode = INT_TS
    searched = 0  # buf[:searched] holds no usable cut point
    for piece in _raw_pieces(path):
        buf += piece
        if prefix is None:
            bracket = _events_start(buf)
            if bracket < 0:
                continue
            prefix = bytes(buf[:bracket])
            del buf[:bracket]  # buf[0] is now the "[" that opens the array
        if len(buf) < _BATCH_BYTES:
            continue
        cut, nxt = _cut_before(buf, max(1, searched - 3), len(buf) - 1)
        searched = len(buf)
        if cut < 0:
            continue
        # decode buf[0:cut + 2] in place as "[ {...}, ... {...} ]": overwrite the "," after the
        # last event with "]" (buf[0] is "[" or whitespace turned into "[")
        buf[0] = 0x5B
        buf[cut + 1] = 0x5D
        try:
            with memoryview(buf) as view:
                events, mode = _decode(view[:cut + 2], mode, whole=False)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise _Unsplittable from None
        del buf[:nxt - 1]  # keep one byte before the next "{" to hold the next "["
        searched = 0
        yield events, mode
    if prefix is None:
        raise _Unsplittable
    try:
        buf[0] = 0x5B
        doc, mode = _decode_doc(prefix + bytes(buf), mode, path)
    except TraceError:
        raise _Unsplittable from None
    meta["info"] = doc.distributedInfo
    yield (doc.traceEvents or []), mode


def _whole_columns(data, path: Path, meta: dict) -> "_Columns":
    """Columns of a whole trace document held in memory (decoded in one call)."""
    doc, mode = _decode_doc(data, INT_TS, path)
    meta["info"] = doc.distributedInfo
    cols = _Columns()
    cols.add(doc.traceEvents or [], mode)
    return cols


def _indices(items: list, value) -> list[int]:
    """Positions of ``value`` in ``items`` (C-level ``list.index`` scans; fast when rare)."""
    out, i = [], -1
    try:
        while True:
            i = items.index(value, i + 1)
            out.append(i)
    except ValueError:
        return out


class _Columns:
    """Arrays built batch by batch from decoded events.

    Of the duration events (those with ``dur`` and a ``cat`` other than ``"Trace"``) only the
    rows the analysis can use are kept (lossless): GPU-side rows, CPU rows with a correlation id
    (launches), ProfilerStep annotations and device syncs. The smallest timestamp of all
    duration events is kept too, as the rank's time origin (HTA aligns ranks on it).
    """

    _DTYPES = {"ts": np.int64, "dur": np.float64, "stream": np.int64, "correlation": np.int64,
               "name_code": np.int32, "comm_bytes": np.float64}

    def __init__(self) -> None:
        self.lookup: dict = {}
        self.ts_float = False
        self.ts_min = None  # smallest ts of all duration events (int, or float once ts_float)
        self.events = 0
        self.duration_events = 0
        self.parts: dict[str, list] = {k: [] for k in self._DTYPES}

    def add(self, events: list, mode: int) -> None:
        self.events += len(events)
        if mode == TOLERANT:
            self._add_tolerant(events)
        else:
            self._add_fast(events, mode == FLOAT_TS)

    def _codes(self, names: list) -> tuple[np.ndarray, np.ndarray]:
        """Codes of ``names`` in the file-wide name table (``None``, an absent name, is ""), and
        whether each is a ProfilerStep annotation or a device sync."""
        local = {name: i for i, name in enumerate(dict.fromkeys(names))}
        setdefault, lookup = self.lookup.setdefault, self.lookup
        uniques = ["" if u is None else u for u in local]
        to_global = np.fromiter((setdefault(u, len(lookup)) for u in uniques), dtype=np.int32, count=len(uniques))
        codes = np.fromiter(map(local.__getitem__, names), dtype=np.int32, count=len(names))
        special = [i for i, u in enumerate(uniques) if "ProfilerStep" in u or u in _SYNC_NAMES]
        return to_global[codes], _isin_codes(codes, special)  # no special names: all False

    def _append(self, ts, dur, stream, correlation, names: list, comm_bytes) -> None:
        self.duration_events += ts.size
        if ts.size:
            self._lower_ts_min(ts.min().item())
        codes, special = self._codes(names)
        useful = (stream != -1) | (correlation >= 0) | special
        for key, values in (("ts", ts), ("dur", dur), ("stream", stream), ("correlation", correlation),
                            ("name_code", codes), ("comm_bytes", comm_bytes)):
            self.parts[key].append(values[useful])

    def _add_fast(self, events: list, float_ts: bool) -> None:
        # keep events with a dur and a cat other than "Trace"; later passes see only those
        dur = np.fromiter(map(_get_dur, events), dtype=np.float64, count=len(events))
        keep = ~np.isnan(dur)
        cats = list(map(_get_cat, events))
        for bad in (_NO_CAT, "Trace"):
            keep[_indices(cats, bad)] = False
        del cats
        if not keep.all():
            events, dur = list(itertools.compress(events, keep.tolist())), dur[keep]
        n = len(events)
        if not n:
            return
        if float_ts:  # (an absent ts has failed the integer variant, whose ts is required)
            ts = np.fromiter(map(_get_ts, events), dtype=np.float64, count=n)
            if np.isnan(ts).any():
                keep = ~np.isnan(ts)
                events, ts, dur = list(itertools.compress(events, keep.tolist())), ts[keep], dur[keep]
                n = len(events)
            self.ts_float = True
        else:
            try:
                ts = np.fromiter(map(_get_ts, events), dtype=np.int64, count=n)
            except OverflowError:  # msgspec's int takes uint64 values
                raise TraceError("timestamp beyond 64-bit integer range") from None
        args = list(map(_get_args, events))
        comm_bytes = np.full(n, np.nan)
        nelems = np.fromiter(map(_get_nelems, args), dtype=np.int64, count=n)
        for i in np.flatnonzero(nelems >= 0).tolist():
            comm_bytes[i] = _comm_bytes(args[i])
        self._append(ts, dur, np.fromiter(map(_get_stream, args), dtype=np.int64, count=n),
                     np.fromiter(map(_get_correlation, args), dtype=np.int64, count=n),
                     list(map(_get_name, events)), comm_bytes)

    def _add_tolerant(self, events: list) -> None:
        ts_types = set(map(type, map(_get_ts, events)))
        self.ts_float |= bool(ts_types - {int})  # a float or an absent ts makes HTA's column float
        kept = [e for e in events
                if e.dur is not None and e.ts is not None and e.cat is not None and e.cat != "Trace"]
        if not kept:
            return
        if all(type(e.ts) is int for e in kept):
            try:
                ts = np.array([e.ts for e in kept], dtype=np.int64)
            except OverflowError:
                raise TraceError("timestamp beyond 64-bit integer range") from None
        else:
            ts = np.array([float(e.ts) for e in kept], dtype=np.float64)
        args = [e.args for e in kept]
        self._append(
            ts, np.array([float(e.dur) for e in kept], dtype=np.float64),
            np.array([_as_int(a.stream, -1) if a is not None else -1 for a in args], dtype=np.int64),
            np.array([_as_int(a.correlation, -1) if a is not None else -1 for a in args], dtype=np.int64),
            [x if isinstance(x, str) or x is None else str(x) for x in (e.name for e in kept)],
            np.array([_comm_bytes(a) for a in args], dtype=np.float64))

    def _lower_ts_min(self, value) -> None:
        self.ts_min = value if self.ts_min is None else min(self.ts_min, value)

    def extend(self, other: "_Columns") -> None:
        """Append ``other``'s rows (decoded from a later part of the same file)."""
        setdefault, lookup = self.lookup.setdefault, self.lookup
        to_self = np.fromiter((setdefault(name, len(lookup)) for name in other.lookup), dtype=np.int32,
                              count=len(other.lookup))
        for key, parts in other.parts.items():
            if key == "name_code":
                parts = [to_self[p] for p in parts]
            self.parts[key].extend(parts)
        self.ts_float |= other.ts_float
        if other.ts_min is not None:
            self._lower_ts_min(other.ts_min)
        self.events += other.events
        self.duration_events += other.duration_events

    def column(self, name: str) -> np.ndarray:
        parts = self.parts[name]
        if name == "ts" and self.ts_float:
            parts = [p.astype(np.float64) for p in parts]
        return np.concatenate(parts) if parts else np.empty(0, dtype=self._DTYPES[name])


_SPLIT_MIN_BYTES = 8 << 20  # decompressed size from which one file is decoded by several processes


def _span_columns(data: bytes, start: int, cut: int) -> "_Columns":
    """Columns of the events in ``data[start:cut + 2]`` (``data[start]`` precedes the first
    ``{``, ``data[cut:cut + 2] == b"},"`` ends the last event)."""
    with memoryview(data) as view:
        span = bytearray(view[start:cut + 2])
    span[0] = 0x5B  # "["
    span[-1] = 0x5D  # "]"
    events, mode = _decode(span, INT_TS, whole=False)
    del span
    cols = _Columns()
    cols.add(events, mode)
    return cols


def _in_child(func, *args):
    """Run ``func(*args)`` in a forked child process; returns a callable that waits for it and
    returns ``(True, result)`` or ``(False, exception)``. The child shares the parent's memory
    copy-on-write, so large inputs are not copied; the (small) result comes back pickled."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns
        code = 0
        try:
            os.close(read_fd)
            try:
                result = (True, func(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the parent
                result, code = (False, exc), 1
            with os.fdopen(write_fd, "wb") as fh:
                pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
        finally:
            os._exit(code)
    os.close(write_fd)

    def wait():
        try:
            with os.fdopen(read_fd, "rb") as fh:
                return pickle.load(fh)
        except (EOFError, pickle.UnpicklingError):
            return False, TraceError("decoding worker process died")
        finally:
            _reap(pid)
    return wait


_UNREAPED: list[int] = []


def _reap(pid: int) -> None:
    """Collect the exit status of ``pid`` (and of earlier children) without waiting for it:
    a child that has sent its result may still be tearing down its copy of the address space,
    which takes milliseconds the caller need not spend. Whatever is left is collected at the
    next call or at interpreter exit."""
    _UNREAPED.append(pid)
    for child in list(_UNREAPED):
        try:
            done, _ = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            done = child
        if done:
            _UNREAPED.remove(child)


@atexit.register
def _reap_all() -> None:
    for child in _UNREAPED:
        try:
            os.waitpid(child, 0)
        except ChildProcessError:
            pass
    _UNREAPED.clear()


def _split_columns(path: Path, data: bytes, parts: int, meta: dict) -> "_Columns":
    """Decode one large file in ``parts`` processes: the events array is cut at event
    boundaries into ``parts`` spans of about equal size; forked children decode the first
    spans while this process decodes the last one together with the document's other keys."""
    bracket = _events_start(data)
    if bracket < 0:
        raise _Unsplittable
    spans, lo = [], bracket
    for k in range(1, parts):
        target = max(lo + 1, bracket + k * (len(data) - bracket) // parts)
        cut, nxt = _cut_before(data, target, len(data), forward=True)
        if cut < 0:
            break
        spans.append((lo, cut))
        lo = nxt - 1
    if not spans:
        raise _Unsplittable
    waits = [_in_child(_span_columns, data, start, cut) for start, cut in spans]
    try:
        with memoryview(data) as view:
            last = _whole_columns(b"".join((view[:bracket], b"[", view[lo + 1:])), path, meta)
    except TraceError:
        last = None
    finally:
        outcomes = [wait() for wait in waits]  # every child is waited for, whatever happened
    failed = [value for ok, value in outcomes if not ok]
    if last is None or any(isinstance(e, (msgspec.DecodeError, msgspec.ValidationError)) for e in failed):
        raise _Unsplittable  # decoded whole again, which names the problem and its position
    if failed:
        raise failed[0]
    cols = outcomes[0][1]
    for other in [value for _, value in outcomes[1:]] + [last]:
        cols.extend(other)
    return cols


def _read_whole(path: Path) -> bytes:
    """The whole decompressed file. A single-member gzip is inflated in one call into a buffer
    of the size its trailer states (ISIZE, RFC 1952), which is about twice as fast as growing
    the output; anything else (several members, a truncated or corrupt stream) goes through
    :func:`_inflate_pieces`, which also names the problem."""
    raw = _read_bytes(path)
    if not path.name.endswith(".gz"):
        return raw
    isize = int.from_bytes(raw[-4:], "little") if len(raw) >= 18 else 0
    try:
        data = isal_zlib.decompress(raw, 31, max(isize, 1 << 16))
        if len(data) % (1 << 32) == isize:
            return data
    except isal_zlib.error:
        pass
    return b"".join(_inflate_pieces(path, raw))


def _expected_size(path: Path) -> int:
    """The file's decompressed size: its size, or for gzip the trailer's ISIZE (mod 2**32)."""
    size = path.stat().st_size
    if not path.name.endswith(".gz") or size < 18:
        return size
    with path.open("rb") as fh:
        fh.seek(-4, os.SEEK_END)
        return int.from_bytes(fh.read(4), "little")


def _file_columns(path: Path, parts: int, meta: dict) -> "_Columns":
    """Columns of one trace file, read whole and decoded in one call (small files), split across
    ``parts`` processes (large files when ``parts > 1``), or streamed batch by batch (large
    files otherwise, so that memory stays bounded when files are decoded in parallel)."""
    data = None
    try:
        if parts > 1 or _expected_size(path) <= _BATCH_BYTES:
            data = _read_whole(path)
            if parts > 1 and len(data) >= _SPLIT_MIN_BYTES:
                return _split_columns(path, data, parts, meta)
            return _whole_columns(data, path, meta)
        cols = _Columns()
        for events, mode in _event_batches(path, meta):
            cols.add(events, mode)
        return cols
    except _Unsplittable:
        meta.clear()
        return _whole_columns(_read_whole(path) if data is None else data, path, meta)


def _decode_file(path: Path, default_rank: int, parts: int = 1) -> _Decoded:
    meta: dict = {}
    try:
        cols = _file_columns(path, parts if _fork_ok() else 1, meta)
    except TraceError as exc:
        msg = str(exc)
        raise TraceError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
    if cols.events == 0:
        raise TraceError(f"{path}: no traceEvents")
    if not cols.duration_events:
        raise TraceError(f"{path}: no duration events (traceEvents has no 'X' events with ts and dur)")
    info = meta.get("info")
    rank = _as_int(info.rank, default_rank) if info is not None else default_rank
    world_size = _as_int(info.world_size, 1) if info is not None else 1
    unique_names = list(cols.lookup)
    name_code, stream, correlation = cols.column("name_code"), cols.column("stream"), cols.column("correlation")
    comm_bytes, dur = cols.column("comm_bytes"), cols.column("dur")
    ts = cols.column("ts")
    if cols.ts_float:
        # HTA round_down_time_stamps: ts ← ceil(ts), end ← floor(ts + dur)
        start = np.ceil(ts)
        end = np.floor(ts + dur)
        origin: float | int = 0
        first: float | int = float(math.ceil(float(cols.ts_min)))
    else:
        # shift in int64 first so ns-since-epoch timestamps (> 2**53) keep full precision
        origin = first = int(cols.ts_min)
        start = (ts - origin).astype(np.float64)
        end = start + dur
    del cols
    return _Decoded(str(path), rank, world_size, start, end, stream, correlation, name_code,
                    unique_names, comm_bytes, _step_names(unique_names), origin, first)


def _step_names(unique_names: list) -> frozenset:
    return frozenset(n for n in unique_names if "ProfilerStep" in n)


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` for a plain array. NumPy's own ``unique`` imports ``numpy.ma``
    (10-30 ms of a command's start-up) to ask whether the array is masked; this one sorts and
    keeps each first occurrence."""
    ordered = np.sort(values, kind="stable")
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _isin_codes(values: np.ndarray, codes) -> np.ndarray:
    """``np.isin(values, codes)`` for integer ``codes`` (without NumPy's ``unique``)."""
    return _isin_sorted(values, _sorted_unique(np.asarray(codes, dtype=values.dtype)))


def _isin_sorted(values: np.ndarray, sorted_unique: np.ndarray) -> np.ndarray:
    """``np.isin(values, sorted_unique)`` by binary search (several times faster for int ids)."""
    if not sorted_unique.size:
        return np.zeros(values.shape, dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_unique, values), sorted_unique.size - 1)
    return sorted_unique[pos] == values


def _to_rank_trace(d: _Decoded, filter_last_step: bool, set_origin_us: float) -> RankTrace:
    names = d.names
    sync_codes = [i for i, n in enumerate(names) if n in _SYNC_NAMES]
    is_gpu = (d.stream >= 0) & (d.correlation >= 0)
    if sync_codes:
        is_gpu |= _isin_codes(d.name_code, sync_codes)
    is_cpu = ~is_gpu
    step_code_to_number = {}
    for i, n in enumerate(names):
        if "ProfilerStep" in n:
            m = _STEP_RE.search(n)
            step_code_to_number[i] = int(m.group(1)) if m else -1
    step_codes = np.fromiter(step_code_to_number.keys(), dtype=np.int32, count=len(step_code_to_number))
    is_step = is_cpu & _isin_codes(d.name_code, step_codes)

    if filter_last_step:
        if not is_step.any():
            raise TraceError(f"{d.path}: no ProfilerStep annotations on this rank while other ranks have them")
        last_start = d.ts[is_step].max()
        kept_cpu = is_cpu & (d.ts < last_start)
        kept_gpu = is_gpu & _isin_sorted(d.correlation, _sorted_unique(d.correlation[kept_cpu]))
        kept = kept_cpu | kept_gpu
    else:
        kept = np.ones(d.ts.shape, dtype=bool)
    kernel = kept & (d.stream != -1)
    if not kernel.any():
        raise NoGpuKernelsError(f"{d.path}: no GPU kernels (events with args.stream) in the analysed steps")

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


def _fork_ok() -> bool:
    """Whether decoding may fork worker processes (Linux only: fork is unsafe on macOS)."""
    return sys.platform.startswith("linux") and (os.cpu_count() or 1) > 1


def _decode_files(files: list[Path]) -> list[_Decoded]:
    """Decode the files; in a fork-based process pool when there are several large ones
    (as HTA does), each worker returning only the small per-rank arrays. With fewer files than
    CPUs, each large file is instead split across the CPUs (:func:`_split_columns`)."""
    cpus = os.cpu_count() or 1
    workers = min(len(files), cpus)
    if workers > 1 and sum(f.stat().st_size for f in files) >= _PARALLEL_MIN_BYTES and _fork_ok():
        import concurrent.futures  # here: 5 ms of start-up that small sets do not need
        import multiprocessing

        with concurrent.futures.ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_decode_file, files, range(len(files))))
    parts = cpus if len(files) < cpus else 1
    return [_decode_file(f, i, parts) for i, f in enumerate(files)]


def read_traces(path: str | Path) -> list[RankTrace]:
    """Read one trace file or a directory of per-rank files; one :class:`RankTrace` per rank.

    Ranks come from ``distributedInfo.rank`` (else the file's position); times are µs relative
    to the earliest kept event of the whole set (HTA ``_align_all_ranks``). A set without GPU
    kernels whose ranks ran gloo collectives is read by :func:`densing.overlap.cpu_trace.read_cpu_traces`
    (CPU-side definitions); GPU traces are read as above, unchanged.
    """
    files = trace_files(path)
    decoded = _decode_files(files)
    ranks = [d.rank for d in decoded]
    if len(set(ranks)) != len(ranks):
        raise TraceError(f"{path}: two trace files claim the same distributedInfo.rank")
    all_step_names = frozenset().union(*(d.step_names for d in decoded))
    filter_last_step = len(all_step_names) >= 2
    set_origin = min(d.first_ts for d in decoded)
    try:
        traces = [_to_rank_trace(d, filter_last_step, set_origin) for d in decoded]
    except NoGpuKernelsError:
        # a CPU-only (gloo) job: its collectives and ops are read by the CPU-side reader
        from densing.overlap.cpu_trace import has_collectives, read_cpu_traces

        if has_collectives(path):
            return read_cpu_traces(path)
        raise
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
