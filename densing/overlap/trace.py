"""Reading a set of PyTorch-profiler (Kineto) traces, one file per rank: ``read_traces(path)``.

``read_traces`` takes a trace file (``.json`` / ``.json.gz``) or a directory of them and returns
one :class:`~densing.overlap.model.RankTrace` per rank. Each file is decoded once
(:mod:`densing.overlap.kineto`) into the columns its kind of set needs: a GPU job's kernels,
launches and steps, read with HTA's selection rules (:mod:`densing.overlap.selection`), or a
CPU-only (gloo) job's ops, read with the CPU-side definitions (:mod:`densing.overlap.cpu_trace`).
The kind is sniffed once per set from the first file's ``distributedInfo.backend``; a set whose
files say nothing (or the wrong thing) is read again as the other kind only when the first
reading finds no GPU kernels but gloo collectives (or GPU kernels in a gloo set).

Large files are streamed in batches; with fewer files than CPUs (on Linux) a large file is cut at
event boundaries and its parts decoded in forked processes (:mod:`densing.overlap.forked`);
several large files are decoded in a process pool, one file per worker.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from densing.errors import TraceError
from densing.overlap.cpu_trace import CpuRank, annotation_rows, cpu_rank, has_collectives, set_origin
from densing.overlap.cpu_trace import to_rank_trace as cpu_rank_trace
from densing.overlap.cutting import Unsplittable
from densing.overlap.forked import fork_ok, split_decode
from densing.overlap.gzipio import read_head, read_whole
from densing.overlap.kineto import BATCH_BYTES, CPU, GPU, decode_document, decode_file
from densing.overlap.model import NoGpuKernelsError, RankTrace
from densing.overlap.selection import DecodedRank, decoded_rank, filters_last_step, to_rank_trace

SPLIT_MIN_BYTES = 8 << 20  # decompressed size from which one file is decoded by several processes
PARALLEL_MIN_BYTES = 32 << 20  # compressed size of a set from which files are decoded in a pool

_BACKEND_RE = re.compile(rb'"distributedInfo"\s*:\s*\{[^{}]*?"backend"\s*:\s*"([^"]*)"')


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


def sniff_kind(files: list[Path]) -> str:
    """:data:`~densing.overlap.kineto.CPU` when the first file's ``distributedInfo.backend`` (in
    its first 64 KiB, where Kineto writes it) is ``gloo``, else :data:`~densing.overlap.kineto.GPU`."""
    m = _BACKEND_RE.search(read_head(files[0]))
    return CPU if m and m.group(1) == b"gloo" else GPU


def decode_columns(path: Path, kind: str = GPU, parts: int = 1, batch_bytes: int = BATCH_BYTES,
                   split_min_bytes: int = SPLIT_MIN_BYTES):
    """Columns and decode info of one file (:mod:`densing.overlap.kineto`): with ``parts > 1`` a
    file of at least ``split_min_bytes`` (decompressed) is decoded in ``parts`` processes, else
    read whole; with ``parts == 1`` it is streamed in batches of ``batch_bytes``. Errors name the file."""
    try:
        if parts > 1:
            data = read_whole(path)
            if len(data) >= split_min_bytes:
                try:
                    return split_decode(path, data, parts, kind)
                except Unsplittable:
                    pass
            return decode_document(data, path, kind)
        return decode_file(path, kind, batch_bytes)
    except TraceError as exc:
        msg = str(exc)
        raise TraceError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None


def decode_rank(path: Path, default_rank: int, kind: str = GPU, parts: int = 1, batch_bytes: int = BATCH_BYTES,
                split_min_bytes: int = SPLIT_MIN_BYTES) -> DecodedRank | CpuRank:
    """One rank's decoded rows: :class:`~densing.overlap.selection.DecodedRank` (GPU) or
    :class:`~densing.overlap.cpu_trace.CpuRank` (CPU)."""
    cols, info = decode_columns(path, kind, parts if fork_ok() else 1, batch_bytes, split_min_bytes)
    return decoded_rank(path, cols, info, default_rank) if kind == GPU else cpu_rank(path, cols, info, default_rank)


def _decode_task(args):
    return decode_rank(*args)


def decode_ranks(files: list[Path], kind: str) -> list:
    """Decode the files; in a fork-based process pool when there are several large ones (as HTA
    does), each worker returning only the small per-rank arrays. With fewer files than CPUs, each
    large file is instead split across the CPUs."""
    cpus = os.cpu_count() or 1
    workers = min(len(files), cpus)
    if workers > 1 and sum(f.stat().st_size for f in files) >= PARALLEL_MIN_BYTES and fork_ok():
        import concurrent.futures  # here: 5 ms of start-up that small sets do not need
        import multiprocessing

        with concurrent.futures.ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_decode_task, [(f, i, kind) for i, f in enumerate(files)]))
    parts = cpus if len(files) < cpus else 1
    return [decode_rank(f, i, kind, parts) for i, f in enumerate(files)]


def _unique_ranks(path, ranks: list) -> None:
    numbers = [r.rank for r in ranks]
    if len(set(numbers)) != len(numbers):
        raise TraceError(f"{path}: two trace files claim the same distributedInfo.rank")


def gpu_traces(path, ranks: list[DecodedRank]) -> list[RankTrace]:
    """The set's RankTraces under HTA's rules (the last step filtered when the set has two or
    more step names; times from the set's earliest event)."""
    _unique_ranks(path, ranks)
    filter_last_step = filters_last_step(frozenset().union(*(d.step_names for d in ranks)))
    origin = min(d.first_ts for d in ranks)
    return sorted((to_rank_trace(d, filter_last_step, origin) for d in ranks), key=lambda t: t.rank)


def cpu_traces(path, ranks: list[CpuRank]) -> list[RankTrace]:
    """The set's RankTraces under the CPU-side definitions (:mod:`densing.overlap.cpu_trace`)."""
    _unique_ranks(path, ranks)
    origin = set_origin(ranks)
    return sorted((cpu_rank_trace(c, origin) for c in ranks), key=lambda t: t.rank)


def read_ranks(path: str | Path) -> tuple[str, list]:
    """The kind of the set and its decoded ranks (each file decoded once, see the module docstring)."""
    files = trace_files(path)
    kind = sniff_kind(files)
    ranks = decode_ranks(files, kind)
    if kind == CPU and (any(c.stream_rows for c in ranks) or not any(has_collectives(c) for c in ranks)):
        kind, ranks = GPU, decode_ranks(files, GPU)  # GPU kernels after all, or no collectives to read
    return kind, ranks


def read_traces(path: str | Path) -> list[RankTrace]:
    """Read one trace file or a directory of per-rank files; one :class:`RankTrace` per rank.

    Ranks come from ``distributedInfo.rank`` (else the file's position); times are µs relative
    to the earliest kept event of the whole set (HTA ``_align_all_ranks``). A set without GPU
    kernels whose ranks ran gloo collectives is read with the CPU-side definitions.
    """
    kind, ranks = read_ranks(path)
    if kind == CPU:
        return cpu_traces(path, ranks)
    try:
        return gpu_traces(path, ranks)
    except NoGpuKernelsError:
        if any(d.has_collectives for d in ranks):  # a CPU-only (gloo) job whose files do not say so
            return cpu_traces(path, decode_ranks(trace_files(path), CPU))
        raise


def read_cpu_ranks(path: str | Path) -> list[CpuRank]:
    """The set's files decoded as a CPU-only (gloo) job's ops."""
    return decode_ranks(trace_files(path), CPU)


def read_cpu_traces(path: str | Path) -> list[RankTrace]:
    """Read CPU-side (gloo) traces: one RankTrace per rank (:mod:`densing.overlap.cpu_trace`).

    Raises TraceError naming the file when a rank has no ``gloo:*`` collective or no ``cpu_op``.
    """
    return cpu_traces(path, read_cpu_ranks(path))


def annotation_frame(path: str | Path, names: tuple[str, ...]):
    """The ``user_annotation`` events named in ``names`` (``record_function`` labels such as
    ``forward``) and the ``gloo:*`` collectives of a CPU set, one row each: rank, step (the
    ProfilerStep they start in, −1 outside), name, start_us and duration_us (µs from the set's
    first event)."""
    import pandas as pd

    ranks = read_cpu_ranks(path)
    origin = set_origin(ranks)
    rows = [row for c in ranks for row in annotation_rows(c, names, origin)]
    return pd.DataFrame(rows, columns=["rank", "step", "name", "start_us", "duration_us"])
