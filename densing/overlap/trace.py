"""Reading a set of PyTorch-profiler (Kineto) traces, one file per rank, into one
:class:`~densing.overlap.model.RankTrace` per rank (:func:`read_traces`): a GPU job's kernels, launches and steps under
HTA's selection rules (:mod:`.selection`), or a CPU-only (gloo) job's ops (:mod:`.cpu_trace`), each file decoded by one
job of an engine (:func:`run_ranks`), a large one from parts decoded by jobs of their own (:func:`.kineto.decode_part`).
"""

from __future__ import annotations

import re
from pathlib import Path

from densing.errors import TraceError
from densing.overlap.cpu_trace import CpuRank, annotation_rows, cpu_rank, set_origin, to_rank_trace as cpu_rank_trace
from densing.overlap.engine import Job, SerialEngine, borrowed
from densing.overlap.gzipio import expected_size, read_head
from densing.overlap.kineto import CPU, GPU, Unsplittable, decode_file, decode_part, prefixed
from densing.overlap.model import DEFAULT_KERNEL_RULES, NoGpuKernelsError, RankTrace, check_rules
from densing.overlap.selection import DecodedRank, decoded_rank, filters_last_step, to_rank_trace

SPLIT_MIN_BYTES = 8 << 20  # decompressed size from which one file is cut into parts (when workers are idle)

_BACKEND_RE = re.compile(rb'"distributedInfo"\s*:\s*\{[^{}]*?"backend"\s*:\s*"([^"]*)"')


def trace_files(path: str | Path) -> list[Path]:
    """The trace files named by ``path``: the file itself, or ``*.json``/``*.json.gz`` in a directory."""
    p = Path(path)
    if p.is_file():
        return [p]
    if p.is_dir():
        if (p / "run.yaml").is_file():  # a run folder's traces are read only once the run is complete
            from densing.overlap.run_schema import check_run_folder  # (pandas: loaded only for a run folder)

            check_run_folder(p)
        files = sorted(f for f in p.iterdir() if f.is_file() and f.name.endswith((".json", ".json.gz")))
        if not files:
            raise TraceError(f"{p}: no .json or .json.gz trace files in this directory")
        return files
    raise TraceError(f"{p}: no such trace file or directory")


def sniff_kind(files: list[Path]) -> str:
    """CPU when the first file's ``distributedInfo.backend`` (in its first 64 KiB) is ``gloo``, else GPU."""
    m = _BACKEND_RE.search(read_head(files[0]))
    return CPU if m and m.group(1) == b"gloo" else GPU


def part_columns(path: str | Path, part: int, parts: int, kind: str = GPU):
    """Part ``part`` of ``parts`` of one file (:func:`.kineto.decode_part`), or its Unsplittable or TraceError."""
    try:
        return decode_part(path, part, parts, kind)
    except (Unsplittable, TraceError) as exc:
        return exc


def combined_columns(path: str | Path, kind: str, *parts):
    """The parts' columns concatenated in order; the whole file read in one go when there are no parts, or a part
    could not be cut or its bytes did not decode (the whole read then names the problem)."""
    if not parts or any(isinstance(p, Unsplittable) for p in parts):
        return decode_file(Path(path), kind)
    for p in parts:
        if isinstance(p, TraceError):
            raise prefixed(path, p)
    cols, _ = parts[0]
    for other, _ in parts[1:]:
        cols.extend(other)
    return cols, parts[-1][1]


def decode_rank(path: str | Path, default_rank: int, kind: str = GPU, *parts) -> DecodedRank | CpuRank | TraceError:
    """One rank decoded (from its ``parts`` when given); a TraceError is returned, not raised."""
    try:
        cols, info = combined_columns(path, kind, *parts)
        return (decoded_rank if kind == GPU else cpu_rank)(path, cols, info, default_rank)
    except TraceError as exc:  # the file named once
        return prefixed(path, exc)


def run_ranks(files: list[Path], kind: str, engine, job=decode_rank, split_min_bytes: int = SPLIT_MIN_BYTES) -> list:
    """One job per file, ``job(path, default_rank, kind, *parts)``, run on ``engine``; their results in file order.
    With fewer files than workers, a file of at least ``split_min_bytes`` (decompressed) is cut into that many part
    jobs (:func:`part_columns`) that feed its job."""
    split = engine.workers if len(files) < engine.workers else 1
    parts = [split if split > 1 and expected_size(f) >= split_min_bytes else 0 for f in files]
    return engine.run(
        [
            Job(job, (f, i, kind, *(Job(part_columns, (f, k, n, kind)) for k in range(n))))
            for i, (f, n) in enumerate(zip(files, parts))
        ]
    )


def decode_ranks(files: list[Path], kind: str, engine) -> list:
    """Decoded ranks, in file order; the first decode error (in file order) is raised."""
    ranks = run_ranks(files, kind, engine, decode_rank)
    if (error := next((r for r in ranks if isinstance(r, TraceError)), None)) is not None:
        raise error
    return ranks


def check_ranks(path, ranks: list) -> None:
    """A TraceError unless the ranks (each with ``rank``, ``path`` and the checked ``info``) are one job's: each rank
    number once, one world size and one backend among the files that state one (naming two files that differ)."""
    numbers = [r.rank for r in ranks]
    if len(set(numbers)) != len(numbers):
        raise TraceError(f"{path}: two trace files claim the same distributedInfo.rank")
    for field in ("world_size", "backend"):
        stated = [(r.path, getattr(r.info, field)) for r in ranks if getattr(r.info, field) is not None]
        if (other := next((item for item in stated if item[1] != stated[0][1]), None)) is not None:
            (first, a), (second, b) = stated[0], other
            raise TraceError(
                f"{path}: distributedInfo.{field}: {Path(first).name} says {a!r}, {Path(second).name} "
                f"says {b!r}: the traces of two jobs in one folder"
            )


def set_traces(
    path, ranks: list[DecodedRank] | list[CpuRank], kind: str, rules: str = DEFAULT_KERNEL_RULES
) -> list[RankTrace]:
    """The set's RankTraces by rank, times from its earliest event, under HTA's rules or :mod:`.cpu_trace`'s."""
    check_ranks(path, ranks)
    if kind == CPU:
        origin = set_origin(ranks)
        traces = (cpu_rank_trace(c, origin) for c in ranks)
    else:
        filter_last_step = filters_last_step(frozenset().union(*(d.step_names for d in ranks)))
        origin = min(d.first_ts for d in ranks)
        traces = (to_rank_trace(d, filter_last_step, origin, rules) for d in ranks)
    return sorted(traces, key=lambda t: t.rank)


def read_traces(
    path: str | Path, scheduler: str = "auto", workers: int | None = None, rules: str = DEFAULT_KERNEL_RULES
) -> list[RankTrace]:
    """Read one trace file or a directory of per-rank files; one :class:`RankTrace` per rank.

    Ranks come from ``distributedInfo.rank`` (else the file's position); times are µs from the earliest kept event of
    the set (HTA ``_align_all_ranks``). ``scheduler``: where the files are decoded
    (:func:`densing.overlap.engine.make_engine`); ``rules``: whose kernel categories (:data:`.KERNEL_RULES`).
    """
    return read_set(
        path,
        scheduler,
        workers,
        rules,
        decode_ranks,
        lambda ranks: ranks,
        lambda ranks, kind: set_traces(path, ranks, kind, rules),
    )


def read_set(path: str | Path, scheduler, workers: int | None, rules: str, run, facts, finish):
    """``finish(results, kind)`` of ``results = run(files, kind, engine)``: ``path``'s files (``rules`` checked first)
    on ``scheduler``'s engine, of the kind :func:`sniff_kind` says; a CPU set whose files hold GPU kernels, or no
    collectives, is read again as a GPU set, and a GPU set without GPU kernels whose ranks ran gloo collectives as a
    CPU set (``facts(results)``: each rank's ``stream_rows`` and ``has_collectives``, None if a rank was unread)."""
    check_rules(rules)
    files = trace_files(path)
    with borrowed(scheduler, files, workers) as engine:
        kind = sniff_kind(files)
        results = run(files, kind, engine)
        known = facts(results)
        if (
            kind == CPU
            and known is not None
            and (any(f.stream_rows for f in known) or not any(f.has_collectives for f in known))
        ):
            kind, results = GPU, run(files, GPU, engine)
        try:
            return finish(results, kind)
        except NoGpuKernelsError:
            if kind == GPU and any(f.has_collectives for f in facts(results) or ()):
                return finish(run(files, CPU, engine), CPU)
            raise


def annotation_frame(path: str | Path, names: tuple[str, ...]):
    """A CPU set's ``user_annotation`` events named in ``names`` (``record_function`` labels) and ``gloo:*``
    collectives: rank, step (its ProfilerStep, −1 outside), name, start_us (from the set's first event), duration_us."""
    import pandas as pd

    ranks = decode_ranks(trace_files(path), CPU, SerialEngine())  # a CPU-only (gloo) job's ops, in this process
    origin = set_origin(ranks)
    return pd.DataFrame(
        [row for c in ranks for row in annotation_rows(c, names, origin)],
        columns=["rank", "step", "name", "start_us", "duration_us"],
    )
