"""Numpy columns built batch by batch from decoded Kineto events (see :mod:`densing.overlap.kineto`).

:class:`KernelColumns` (GPU traces) keeps, of the duration events (with ``dur`` and a ``cat`` other than ``"Trace"``),
the rows the analysis can use: GPU-side rows, CPU rows with a correlation id (launches), ProfilerStep annotations and
device syncs, plus the smallest timestamp, the rank's time origin (HTA aligns ranks on it). :class:`OpColumns` (CPU,
gloo traces) keeps time, thread, name and category of the complete events (``ph == "X"``) with numeric ``ts``/``dur``,
a string name and a ``cat`` other than ``"Trace"``. Both hold a file-wide name table and extend across a file's parts.
"""

from __future__ import annotations

import itertools
import math
from operator import attrgetter
from typing import Any

import numpy as np

from densing.errors import TraceError
from densing.impossible import MAX_TRACE_US, first_impossible

# Set membership on integer arrays without NumPy's ``unique``/``isin``, which import ``numpy.ma`` (start-up time).


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` for a plain array: sorts and keeps each first occurrence."""
    ordered = np.sort(values, kind="stable")
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if ordered.size > 1 else ordered


def isin_codes(values: np.ndarray, codes) -> np.ndarray:
    """``np.isin(values, codes)`` for integer ``codes``."""
    return isin_sorted(values, sorted_unique(np.asarray(codes, dtype=values.dtype)))


def isin_sorted(values: np.ndarray, sorted_unique_values: np.ndarray) -> np.ndarray:
    """``np.isin(values, sorted_unique_values)`` by binary search (several times faster for int ids)."""
    if not sorted_unique_values.size:
        return np.zeros(values.shape, dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_unique_values, values), sorted_unique_values.size - 1)
    return sorted_unique_values[pos] == values


SYNC_NAMES = ("Event Sync", "Context Sync")
COLLECTIVE_PREFIX = "gloo:"

# bytes per element for the dtype names PyTorch writes into record_param_comms args
_DTYPE_BYTES = {
    "float": 4,
    "float32": 4,
    "double": 8,
    "float64": 8,
    "half": 2,
    "float16": 2,
    "bfloat16": 2,
    "bf16": 2,
    "int": 4,
    "int32": 4,
    "long": 8,
    "int64": 8,
    "short": 2,
    "int16": 2,
    "char": 1,
    "int8": 1,
    "byte": 1,
    "uint8": 1,
    "bool": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
}

NO_CAT = "\0"  # sentinel for an absent "cat" (dropped, as HTA drops events without one)


def as_int(value: Any, default: int) -> int:
    """``int(value)`` as HTA ``normalize_gpu_stream_numbers`` does; ``default`` when impossible."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):  # (None: absent)
        return default


def comm_bytes(args) -> float:
    """Collective message bytes: ``In msg nelems`` × the dtype's size; NaN when not given."""
    try:
        nelems = float(getattr(args, "in_nelems", None))  # (no args, or no nelems: None, a TypeError)
    except (TypeError, ValueError):
        return math.nan
    size = _DTYPE_BYTES.get(str(args.dtype).lower())  # (no dtype: "none", no size)
    return nelems * size if size else math.nan


def indices(items: list, value) -> list[int]:
    """Positions of ``value`` in ``items`` (C-level ``list.index`` scans; fast when rare)."""
    out, i = [], -1
    try:
        while True:
            i = items.index(value, i + 1)
            out.append(i)
    except ValueError:
        return out


class _Names:
    """A file-wide name table, the parts of each column of ``DTYPES`` and the event counts both collectors keep."""

    DTYPES: dict = {}

    def __init__(self) -> None:
        self.lookup: dict = {}
        self.events = self.duration_events = 0
        self.parts: dict[str, list] = {k: [] for k in self.DTYPES}

    @property
    def names(self) -> list:
        return list(self.lookup)

    def codes(self, names: list) -> tuple[np.ndarray, list, np.ndarray]:
        """Global codes of ``names`` (``None``, absent, is ""), the batch's unique names and each row's local code."""
        local = {name: i for i, name in enumerate(dict.fromkeys(names))}
        setdefault, lookup = self.lookup.setdefault, self.lookup
        uniques = ["" if u is None else u for u in local]
        to_global = np.fromiter((setdefault(u, len(lookup)) for u in uniques), dtype=np.int32, count=len(uniques))
        codes = np.fromiter(map(local.__getitem__, names), dtype=np.int32, count=len(names))
        return to_global[codes], uniques, codes

    def column(self, name: str) -> np.ndarray:
        parts = self.parts[name]
        return np.concatenate(parts) if parts else np.empty(0, dtype=self.DTYPES[name])

    def extend(self, other: _Names, **mapped) -> None:
        """Append the rows and counts of a later part of the file (``mapped``: parts to take instead of its own)."""
        setdefault, lookup = self.lookup.setdefault, self.lookup  # each of other's codes → the same name's here
        to_self = np.fromiter(
            (setdefault(name, len(lookup)) for name in other.lookup), dtype=np.int32, count=len(other.lookup)
        )
        for key, parts in other.parts.items():
            self.parts[key].extend(mapped.get(key, [to_self[p] for p in parts] if key == "name_code" else parts))
        self.events += other.events
        self.duration_events += other.duration_events


class KernelColumns(_Names):
    """GPU-trace rows (see the module docstring), one decoded batch at a time (:meth:`add`)."""

    DTYPES = {
        "ts": np.int64,
        "dur": np.float64,
        "stream": np.int64,
        "correlation": np.int64,
        "name_code": np.int32,
        "comm_bytes": np.float64,
    }

    def __init__(self) -> None:
        super().__init__()
        self.ts_float = self.has_collectives = False  # has_collectives: a gloo:* duration event (a CPU job's trace)
        self.span = None  # (first start, last end) of the duration events, µs
        self.timeless = 0  # kernels (events with args.stream) without a ts or a dur (absent or null): refused
        self.timeless_name = None  # the first one's name

    def add(self, events: list, tolerant: bool, float_ts: bool) -> None:
        self.events += len(events)
        self._add_tolerant(events) if tolerant else self._add_fast(events, float_ts)

    def _append(self, ts, dur, stream, correlation, names: list, comm) -> None:
        refuse_impossible(ts, dur, names)  # an impossible value is an error, not data (it made comm_us negative)
        self.duration_events += ts.size
        if ts.size:
            self._span(ts.min().item(), (ts + dur).max().item())
        codes, uniques, local = self.codes(names)
        special = [i for i, u in enumerate(uniques) if "ProfilerStep" in u or u in SYNC_NAMES]
        self.has_collectives = self.has_collectives or any(u.startswith(COLLECTIVE_PREFIX) for u in uniques)
        useful = (stream != -1) | (correlation >= 0) | isin_codes(local, special)
        for key, values in zip(self.DTYPES, (ts, dur, stream, correlation, codes, comm)):  # (in DTYPES' order)
            self.parts[key].append(values[useful])

    def _add_fast(self, events: list, float_ts: bool) -> None:
        # keep events with a dur and a cat other than "Trace"; later passes see only those
        dur = np.fromiter(map(attrgetter("dur"), events), dtype=np.float64, count=len(events))
        keep = ~np.isnan(dur)
        cats = list(map(attrgetter("cat"), events))
        for bad in (NO_CAT, "Trace"):
            keep[indices(cats, bad)] = False
        del cats
        if not keep.all():
            self._count_timeless(itertools.compress(events, np.isnan(dur).tolist()))
            events, dur = list(itertools.compress(events, keep.tolist())), dur[keep]
        n = len(events)
        if not n:
            return
        if float_ts:  # (an absent ts has failed the integer variant, whose ts is required)
            ts = np.fromiter(map(attrgetter("ts"), events), dtype=np.float64, count=n)
            if np.isnan(ts).any():
                self._count_timeless(itertools.compress(events, np.isnan(ts).tolist()))
                keep = ~np.isnan(ts)
                events, ts, dur = list(itertools.compress(events, keep.tolist())), ts[keep], dur[keep]
                n = len(events)
            self.ts_float = True
        else:
            ts = _int_ts(map(attrgetter("ts"), events), n)
        args = list(map(attrgetter("args"), events))
        comm = np.full(n, np.nan)
        nelems = np.fromiter(map(attrgetter("in_nelems"), args), dtype=np.int64, count=n)
        for i in np.flatnonzero(nelems >= 0).tolist():
            comm[i] = comm_bytes(args[i])
        self._append(
            ts,
            dur,
            np.fromiter(map(attrgetter("stream"), args), dtype=np.int64, count=n),
            np.fromiter(map(attrgetter("correlation"), args), dtype=np.int64, count=n),
            list(map(attrgetter("name"), events)),
            comm,
        )

    def _add_tolerant(self, events: list) -> None:
        self.ts_float |= any(type(e.ts) is not int for e in events)  # a float or an absent ts makes HTA's float
        self._count_timeless(e for e in events if e.dur is None or e.ts is None)
        kept = [e for e in events if e.dur is not None and e.ts is not None and e.cat is not None and e.cat != "Trace"]
        if not kept:
            return
        ts = (
            _int_ts((e.ts for e in kept), len(kept))
            if all(type(e.ts) is int for e in kept)
            else np.array([float(e.ts) for e in kept], dtype=np.float64)
        )
        args = [e.args for e in kept]
        self._append(
            ts,
            np.array([float(e.dur) for e in kept], dtype=np.float64),
            np.array([as_int(a.stream, -1) if a is not None else -1 for a in args], dtype=np.int64),
            np.array([as_int(a.correlation, -1) if a is not None else -1 for a in args], dtype=np.int64),
            [x if isinstance(x, str) or x is None else str(x) for x in (e.name for e in kept)],
            np.array([comm_bytes(a) for a in args], dtype=np.float64),
        )

    def _count_timeless(self, events) -> None:
        """Count the kernels (``args.stream`` set: GPU work, which cannot be left out without changing the numbers)
        among ``events``, dropped for a missing or null ``ts``/``dur``."""
        for event in events:
            if event.args is not None and as_int(event.args.stream, -1) != -1:
                self.timeless += 1
                if self.timeless_name is None:
                    self.timeless_name = str(event.name)

    @property
    def ts_min(self):
        """The smallest ts of all duration events (int, or float in a float-timestamp trace); None before any."""
        return None if self.span is None else self.span[0]

    def _span(self, first, last) -> None:
        """Widen the events' span to [first, last] µs; TraceError when it exceeds :data:`MAX_TRACE_US`."""
        self.span = (first, last) if self.span is None else (min(self.span[0], first), max(self.span[1], last))
        if self.span[1] - self.span[0] > MAX_TRACE_US:
            raise TraceError(
                f"events from ts {self.span[0]:.0f} to {self.span[1]:.0f} µs span "
                f"{(self.span[1] - self.span[0]) / MAX_TRACE_US * 10:.3g} years, not one real trace "
                "(timestamps in another unit, or overflowed)"
            )

    def extend(self, other: KernelColumns) -> None:
        super().extend(other)
        self.add_facts(other)

    def add_facts(self, other: KernelColumns) -> None:
        """Add what a later batch or part of the file says of it besides rows and counts (float ts, span, …)."""
        self.ts_float |= other.ts_float
        if other.span is not None:
            self._span(*other.span)
        self.has_collectives |= other.has_collectives
        if other.timeless and self.timeless_name is None:
            self.timeless_name = other.timeless_name
        self.timeless += other.timeless

    def column(self, name: str) -> np.ndarray:
        values = super().column(name)
        return values.astype(np.float64) if name == "ts" and self.ts_float else values


# categories of OpColumns.cat
CAT_CPU_OP, CAT_USER_ANNOTATION, CAT_OTHER = 0, 1, 2
_CAT_CODES = {"cpu_op": CAT_CPU_OP, "user_annotation": CAT_USER_ANNOTATION}
_THREAD_CODE_BASE = -(1 << 62)  # codes for thread ids that are not integers (never real tids)


class OpColumns(_Names):
    """CPU-trace rows: ts, end (absolute µs), thread, name and ``CAT_*`` codes; ``stream_rows`` (GPU kernels)."""

    DTYPES = {"ts": np.float64, "end": np.float64, "tid": np.int64, "name_code": np.int32, "cat": np.int8}

    def __init__(self) -> None:
        super().__init__()
        self.stream_rows = 0
        self.threads: dict = {}  # non-integer thread ids -> their codes

    def add(self, events: list, tolerant: bool, float_ts: bool = True) -> None:
        self.events += len(events)
        self.stream_rows += sum(1 for e in events if e.args is not None and as_int(e.args.stream, -1) != -1)
        kept = [
            e
            for e in events
            if e.ph == "X"
            and e.cat is not None
            and e.cat not in (NO_CAT, "Trace")
            and isinstance(e.name, str)
            and _number(e.ts)
            and _number(e.dur)
        ]
        if not kept:
            return
        n = len(kept)
        ts = np.fromiter((float(e.ts) for e in kept), dtype=np.float64, count=n)
        dur = np.fromiter((float(e.dur) for e in kept), dtype=np.float64, count=n)
        refuse_impossible(ts, dur, [e.name for e in kept])
        tids = [e.tid for e in kept]
        tid = np.fromiter((t if type(t) is int else self._thread_code(repr(t)) for t in tids), dtype=np.int64, count=n)
        codes, _, _ = self.codes([e.name for e in kept])
        cat = np.fromiter((_CAT_CODES.get(e.cat, CAT_OTHER) for e in kept), dtype=np.int8, count=n)
        self.duration_events += n
        for key, values in zip(self.DTYPES, (ts, ts + dur, tid, codes, cat)):  # (in DTYPES' order)
            self.parts[key].append(values)

    def _thread_code(self, key: str) -> int:
        """The code of a thread id that is not an integer (``key``: its repr)."""
        return self.threads.setdefault(key, _THREAD_CODE_BASE + len(self.threads))

    def extend(self, other: OpColumns) -> None:
        thread_map = {code: self._thread_code(key) for key, code in other.threads.items()}
        mapped = (
            {"tid": [np.array([thread_map.get(t, t) for t in p.tolist()], dtype=np.int64) for p in other.parts["tid"]]}
            if thread_map
            else {}
        )
        super().extend(other, **mapped)
        self.stream_rows += other.stream_rows


def refuse_impossible(ts: np.ndarray, dur: np.ndarray, names: list) -> None:
    """TraceError naming the first event whose ts or dur cannot be real (:data:`densing.impossible.IMPOSSIBLE`)."""
    for field, values in (("ts", ts), ("dur", dur)):
        if (found := first_impossible(field, values)) is not None:
            i, why, count = found
            raise TraceError(
                f"event {names[i]!r} at ts {ts[i]:.0f}: field '{field}': {why} {float(values[i]):g} µs"
                f" ({count} such event{'s' if count != 1 else ''})"
            )


def _int_ts(values, count: int) -> np.ndarray:
    """Integer timestamps as int64; a TraceError beyond its range (msgspec's int takes uint64 values)."""
    try:
        return np.fromiter(values, dtype=np.int64, count=count)
    except OverflowError:
        raise TraceError("timestamp beyond 64-bit integer range") from None


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value))
