"""One large GPU trace file analysed in bounded memory: its per-rank row without holding its kernels.

Each decoded batch's rows go at once to scratch files (docs/profiling.md): a row on a stream to the file of its time
window ``k = ⌊start / W⌋`` (W = ``window_us``), a CPU-side row's ``(correlation, ts)`` to one file. HTA's last-step
rule (:mod:`densing.overlap.selection`) is settled as for the whole file (one bit per kept correlation id), then the
windows are read in time order. Union and intersection lengths are additive over a partition of time, so with
Wₖ = [hi_{k−1}, hi_k) and the carry Cₖ = [hi_{k−1}, max end of the earlier kernels)

    |∪ kernels| = Σₖ |(∪ kernels starting in Wₖ ∪ Cₖ) ∩ Wₖ|      (and alike for ∪ comp, ∪ comm, ∪ comm ∩ ∪ comp)

and the span is max end − min start: the numbers of :func:`densing.overlap.metrics.breakdown` (exact on the µs grid
of Kineto's times, to rounding otherwise). Memory is one decoded batch, one window's rows and the id table.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from densing.errors import InputError, TraceError
from densing.overlap.columns import KernelColumns, isin_codes
from densing.overlap.gzipio import is_gzip, read_pieces
from densing.overlap.intervals import intersection_length, merge_intervals
from densing.overlap.kineto import BATCH_BYTES, GPU, _add, event_batches, prefixed
from densing.overlap.metrics import RANK_COLUMNS, breakdown_row, stream_overlaps
from densing.overlap.model import COMMUNICATION, COMPUTATION, DEFAULT_KERNEL_RULES, NoGpuKernelsError, kernel_category
from densing.overlap.selection import check_events, filters_last_step, gpu_side

WINDOW_US = 1_000_000  # trace time per scratch window
STREAM_MIN_BYTES = {False: 1 << 30, True: 128 << 20}  # on-disk size (plain, gzip) from which `auto` streams
ROW = np.dtype(
    [
        ("ts_i", "i8"),
        ("ts_f", "f8"),
        ("dur", "f8"),
        ("cat", "i1"),
        ("gpu", "?"),
        ("corr", "i8"),
        ("comm", "f8"),
        ("stream", "i8"),
    ]
)
CPU_ROW = np.dtype([("ts_i", "i8"), ("ts_f", "f8"), ("corr", "i8")])
FLUSH_ROWS = 1 << 20  # buffered rows written out from this many
READ_ROWS = 1 << 20  # CPU rows read back at a time


def should_stream(files: list[Path], stream: bool | None) -> bool:
    """Whether ``analyze`` streams: ``stream`` when given, else a set of one file of :data:`STREAM_MIN_BYTES`."""
    return len(files) == 1 and (
        stream if stream is not None else files[0].stat().st_size >= STREAM_MIN_BYTES[is_gzip(files[0])]
    )


class _Scratch:
    """Rows written out by time window (CPU rows to one file) in a temporary folder made in ``folder`` (made where
    missing; the system's temporary folder when None); an InputError naming a folder that cannot be made."""

    def __init__(self, folder: str | None, window_us: int):
        import tempfile  # here: the command line's start-up does not need it

        try:
            if folder:
                Path(folder).mkdir(parents=True, exist_ok=True)
            self.dir = Path(tempfile.mkdtemp(prefix="densing-stream-", dir=folder))
        except OSError as exc:
            raise InputError(
                f"{folder or tempfile.gettempdir()}: cannot make the streaming scratch folder here "
                f"({exc.strerror or type(exc).__name__}); set DENSING_SCRATCH to a writable "
                "folder"
            ) from None
        self.window_us, self.pending, self.pending_rows, self.windows = window_us, {}, 0, set()
        self.cpu = (self.dir / "cpu.bin").open("ab")

    def add(self, keys: np.ndarray, rows: np.ndarray) -> None:
        order = np.argsort(keys, kind="stable")
        keys, rows = keys[order], rows[order]
        bounds = np.flatnonzero(np.diff(keys)) + 1
        for chunk_keys, chunk in zip(np.split(keys, bounds), np.split(rows, bounds)):
            if chunk.size:
                self.pending.setdefault(int(chunk_keys[0]), []).append(chunk)
        self.pending_rows += rows.size
        if self.pending_rows >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        for key, chunks in self.pending.items():
            with (self.dir / f"w{key}.bin").open("ab") as fh:
                for chunk in chunks:
                    chunk.tofile(fh)
            self.windows.add(key)
        self.pending, self.pending_rows = {}, 0

    def close(self) -> None:
        self.cpu.close()
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)


class _Pass:
    """What the decoding pass keeps: scratch rows, step annotations, file-wide facts."""

    def __init__(self, scratch: _Scratch, rules: str):
        self.scratch, self.rules = scratch, rules
        self.total = KernelColumns()  # counters, span and the ts_float flag of the whole file
        self.step_names, self.steps = set(), []  # the names, and (ts_i, ts_f) of every ProfilerStep annotation
        self.corr_range = [math.inf, -math.inf]  # the CPU rows' correlation ids

    def batch(self, cols: KernelColumns) -> None:
        t = self.total
        t.events, t.duration_events = t.events + cols.events, t.duration_events + cols.duration_events
        t.add_facts(cols)
        if not cols.parts["ts"]:
            return
        names, ts = cols.names, cols.column("ts")
        ts_i = ts if ts.dtype == np.int64 else np.zeros(ts.size, dtype=np.int64)
        ts_f = ts if ts.dtype == np.float64 else np.full(ts.size, np.nan)
        stream, corr, code = cols.column("stream"), cols.column("correlation"), cols.column("name_code")
        gpu = gpu_side(stream, corr, code, names)
        cpu = ~gpu
        steps = [i for i, n in enumerate(names) if "ProfilerStep" in n]
        self.step_names.update(names[i] for i in steps)
        is_step = cpu & isin_codes(code, steps)
        self.steps.extend(zip(ts_i[is_step].tolist(), ts_f[is_step].tolist()))
        if cpu.any():
            rows = np.empty(int(cpu.sum()), dtype=CPU_ROW)
            rows["ts_i"], rows["ts_f"], rows["corr"] = ts_i[cpu], ts_f[cpu], corr[cpu]
            rows.tofile(self.scratch.cpu)
            self.corr_range = [
                min(self.corr_range[0], int(rows["corr"].min())),
                max(self.corr_range[1], int(rows["corr"].max())),
            ]
        on_stream = stream != -1  # the possible kernels, to the scratch windows
        if not on_stream.any():
            return
        category_of = np.fromiter((kernel_category(n, self.rules) for n in names), dtype=np.int8, count=len(names))
        rows = np.empty(int(on_stream.sum()), dtype=ROW)
        rows["ts_i"], rows["ts_f"], rows["dur"] = ts_i[on_stream], ts_f[on_stream], cols.column("dur")[on_stream]
        rows["cat"], rows["gpu"], rows["corr"] = category_of[code[on_stream]], gpu[on_stream], corr[on_stream]
        rows["comm"], rows["stream"] = cols.column("comm_bytes")[on_stream], stream[on_stream]
        w = self.scratch.window_us
        keys = (
            ts[on_stream] // w if ts.dtype == np.int64 else np.ceil(ts[on_stream]).astype(np.int64) // w
        )  # the window of the start as rounded (selection)
        self.scratch.add(keys, rows)


def _final_start(ts_i: np.ndarray, ts_f: np.ndarray, ts_float: bool, origin: int) -> np.ndarray:
    """Start times as :func:`~densing.overlap.selection.decoded_rank` makes them: ⌈ts⌉ (float trace), ts − origin."""
    if ts_float:
        return np.ceil(np.where(np.isnan(ts_f), ts_i.astype(np.float64), ts_f))
    return (ts_i - origin).astype(np.float64)


def _kept_ids(p: _Pass, last_start: float, origin: int) -> tuple[int, np.ndarray]:
    """HTA's kept correlation ids, of the CPU rows that start before ``last_start``: a bit table over their range."""
    low, high = p.corr_range
    if low > high:
        return 0, np.zeros(0, dtype=np.uint8)
    bits = np.zeros((high - low) // 8 + 1, dtype=np.uint8)
    p.scratch.cpu.close()
    with (p.scratch.dir / "cpu.bin").open("rb") as fh:
        while (rows := np.fromfile(fh, dtype=CPU_ROW, count=READ_ROWS)).size:
            before = _final_start(rows["ts_i"], rows["ts_f"], p.total.ts_float, origin) < last_start
            index = np.unique(rows["corr"][before] - low)
            np.bitwise_or.at(bits, index >> 3, (1 << (index & 7)).astype(np.uint8))
    return low, bits


def _launched(corr: np.ndarray, low: int, bits: np.ndarray) -> np.ndarray:
    """Whether each correlation id is in the bit table of :func:`_kept_ids`."""
    index = corr - low
    known = (index >= 0) & (index < bits.size * 8)
    out = np.zeros(corr.size, dtype=bool)
    i = index[known]
    out[known] = (bits[i >> 3] >> (i & 7).astype(np.uint8)) & 1 == 1
    return out


class _Sums:
    """The additive parts of the breakdown, window by window (module docstring)."""

    def __init__(self) -> None:
        self.carry: dict[str, tuple | None] = dict.fromkeys(("all", "comp", "comm"))  # (from, to) past a window
        self.length = dict.fromkeys(("all", "comp", "comm"), 0.0)
        self.first, self.last, self.overlap = math.inf, -math.inf, 0.0
        self.count, self.comm_bytes, self.any_bytes, self.stream_overlaps = 0, 0.0, False, 0
        self.stream_ends: dict[int, float] = {}  # each stream's latest kernel end so far

    def _clip(self, key: str, start, end, hi: float):
        """Merge a window's intervals with the carry, count their part before ``hi``, carry the rest."""
        if self.carry[key] is not None:
            start, end = np.append(start, self.carry[key][0]), np.append(end, self.carry[key][1])
        s, e = merge_intervals(start, end)
        self.carry[key] = (hi, float(e.max())) if e.size and e.max() > hi else None
        inside = s < hi
        s, e = s[inside], np.minimum(e[inside], hi)
        self.length[key] += float((e - s).sum())  # not Σe − Σs: sums of absolute µs since the epoch pass 2**53
        return s, e

    def window(self, start, end, cat, comm, hi: float, stream) -> None:
        """Add one window's kernels (all starting before ``hi``, none before the previous window's ``hi``)."""
        self.stream_overlaps += stream_overlaps(start, end, stream, self.stream_ends)
        if start.size:
            self.first, self.last = min(self.first, float(start.min())), max(self.last, float(end.max()))
            self.count += int(start.size)
            b = comm[cat == COMMUNICATION]
            if np.isfinite(b).any():
                self.comm_bytes += float(np.nansum(b))
                self.any_bytes = True
        self._clip("all", start, end, hi)
        comp, cm = cat == COMPUTATION, cat == COMMUNICATION
        cs, ce = self._clip("comp", start[comp], end[comp], hi)
        ms, me = self._clip("comm", start[cm], end[cm], hi)
        self.overlap += intersection_length(ms, me, cs, ce)

    def row(self, rank: int, world_size: int) -> dict:
        row = {
            "rank": rank,
            "world_size": world_size,
            "comm_bytes": self.comm_bytes if self.any_bytes else math.nan,
            "stream_overlaps": self.stream_overlaps,
        }
        row |= breakdown_row(
            self.count,
            self.last - self.first,
            self.length["all"],
            self.length["comp"],
            self.length["comm"],
            self.overlap,
        )
        return {c: row[c] for c in RANK_COLUMNS}


def stream_rank_row(
    path: str | Path,
    rules: str = DEFAULT_KERNEL_RULES,
    batch_bytes: int = BATCH_BYTES,
    window_us: int = WINDOW_US,
    scratch_dir: str | None = None,
) -> dict:
    """The per-rank row (:data:`~densing.overlap.metrics.RANK_COLUMNS`) of one GPU trace file in bounded memory
    (module docstring), scratch in ``scratch_dir`` (removed after); Unsplittable for compact JSON."""
    path = Path(path)
    scratch = _Scratch(scratch_dir or os.environ.get("DENSING_SCRATCH"), window_us)
    try:
        p = _Pass(scratch, rules)
        try:
            info = None
            for events, mode, batch_info in event_batches(read_pieces(path), path, GPU, batch_bytes):
                info = batch_info  # the last batch alone has one
                cols = _add(KernelColumns(), events, GPU, mode)
                del events
                p.batch(cols)
            p.scratch.flush()
            check_events(path, p.total)
        except TraceError as exc:
            raise prefixed(path, exc) from None
        job = info.checked(path, 0)
        t = p.total
        origin = 0 if t.ts_float else int(t.ts_min)
        low, kept_ids, last_start = 0, None, None
        if filters_last_step(frozenset(p.step_names)):
            steps = np.array(p.steps, dtype=[("ts_i", "i8"), ("ts_f", "f8")])
            last_start = float(_final_start(steps["ts_i"], steps["ts_f"], t.ts_float, origin).max())
            low, kept_ids = _kept_ids(p, last_start, origin)
        sums = _Sums()
        for key in sorted(scratch.windows):
            rows = np.fromfile(scratch.dir / f"w{key}.bin", dtype=ROW)
            start = _final_start(rows["ts_i"], rows["ts_f"], t.ts_float, origin)
            end = (
                np.floor(np.where(np.isnan(rows["ts_f"]), rows["ts_i"].astype(np.float64), rows["ts_f"]) + rows["dur"])
                if t.ts_float
                else start + rows["dur"]
            )
            if kept_ids is not None:
                keep = np.where(rows["gpu"], _launched(rows["corr"], low, kept_ids), start < last_start)
                rows, start, end = rows[keep], start[keep], end[keep]
            sums.window(start, end, rows["cat"], rows["comm"], float((key + 1) * window_us - origin), rows["stream"])
        sums.window(np.empty(0), np.empty(0), np.empty(0, dtype=np.int8), np.empty(0), math.inf, np.empty(0, np.int64))
        if sums.count == 0:
            raise NoGpuKernelsError(f"{path}: no GPU kernels (events with args.stream) in the analysed steps")
        return sums.row(job.rank, job.world_size or 1)
    except OSError as exc:  # the scratch's disk full or gone; the trace's own read errors keep their words
        if exc.filename is not None and Path(exc.filename) == path:
            raise
        raise InputError(
            f"{scratch.dir}: cannot write the streaming scratch ({exc.strerror or exc}); set "
            "DENSING_SCRATCH to a folder with room"
        ) from None
    finally:
        scratch.close()
