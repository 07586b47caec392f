"""The overlap analysis of a trace set or of read traces: per-rank and per-step rows.

Given a path, each rank's rows are computed where its file is decoded (:func:`rank_outcome`, one job per file); only
rows and the facts the set's rules need come back (rules and errors: :func:`.trace.read_traces`'s). A rank that cannot
tell whether HTA's last-step filter applies computes its rows both ways, from its own first event: aligning on the set's
earliest event only shifts times, of which the metrics are exact differences (``tools/overlap_same_output.py``,
``tests/overlap/test_engine.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from numbers import Integral
from pathlib import Path
from typing import TYPE_CHECKING

from densing.errors import TraceError
from densing.overlap.cpu_trace import CpuRank, to_rank_trace as cpu_rank_trace
from densing.overlap.kineto import GPU, DecodeInfo, Unsplittable
from densing.overlap.metrics import RANK_COLUMNS, STEP_COLUMNS, rank_metrics, rank_row, rank_step_rows
from densing.overlap.model import DEFAULT_KERNEL_RULES, NoGpuKernelsError, RankTrace, check_rules
from densing.overlap.selection import filters_last_step, to_rank_trace
from densing.overlap.stream import should_stream, stream_rank_row
from densing.overlap.trace import check_ranks, decode_rank, read_set, run_ranks, sniff_kind, trace_files
from densing.validation import Interval, validate_params

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class RankFacts:
    """What the set's rules need of one rank."""

    path: str
    rank: int
    step_names: frozenset
    has_collectives: bool  # gloo:* events: a CPU job's trace (if there are no GPU kernels)
    stream_rows: int  # CPU reading: events with an args.stream (GPU kernels after all)
    info: DecodeInfo = DecodeInfo()  # distributedInfo as checked (the set's files must be one job's)


@dataclass(frozen=True)
class RankOutcome:
    """A rank's facts, its (row, step rows) or TraceError by last-step rule (None: CPU), or the decode ``error``."""

    facts: RankFacts | None = None
    rows: dict = field(default_factory=dict)
    error: TraceError | None = None


def rank_outcome(
    path: str | Path, default_rank: int, kind: str = GPU, *parts, rules: str = DEFAULT_KERNEL_RULES, steps: bool = True
) -> RankOutcome:
    """The per-rank job: one rank's file decoded (or its parts combined), then its facts and rows (see the module
    docstring); GPU kernels classified by ``rules``; the per-step rows only with ``steps`` (a per-rank answer has no
    use for them)."""
    rank = decode_rank(path, default_rank, kind, *parts)
    if isinstance(rank, TraceError):
        return RankOutcome(error=rank)
    if isinstance(rank, CpuRank):
        facts = RankFacts(rank.path, rank.rank, frozenset(), rank.has_collectives, rank.stream_rows, rank.info)
        variants = {None: lambda: cpu_rank_trace(rank, rank.first_ts or 0.0)}
    else:
        facts = RankFacts(rank.path, rank.rank, rank.step_names, rank.has_collectives, 0, rank.info)
        keys = (True,) if filters_last_step(rank.step_names) else (True, False)
        variants = {k: (lambda k=k: to_rank_trace(rank, k, rank.first_ts, rules)) for k in keys}
    rows = {}
    for key, make in variants.items():
        try:
            trace = make()
            rows[key] = (rank_metrics(trace), rank_step_rows(trace) if steps else [])
        except TraceError as exc:
            rows[key] = exc
    return RankOutcome(facts, rows)


def _pick(path, outcomes: list[RankOutcome], kind: str) -> tuple[list[dict], list[dict]]:
    if (error := next((o.error for o in outcomes if o.error is not None), None)) is not None:
        raise error
    check_ranks(path, [o.facts for o in outcomes])
    key = filters_last_step(frozenset().union(*(o.facts.step_names for o in outcomes))) if kind == GPU else None
    rows = [o.rows[key] for o in outcomes]
    if (error := next((r for r in rows if isinstance(r, TraceError)), None)) is not None:
        raise error
    chosen = [r for _, r in sorted(zip((o.facts.rank for o in outcomes), rows), key=lambda item: item[0])]
    return [row for row, _ in chosen], [step for _, steps in chosen for step in steps]


def set_rows(
    path: str | Path,
    scheduler="auto",
    workers: int | None = None,
    rules: str = DEFAULT_KERNEL_RULES,
    steps: bool = True,
) -> tuple[list[dict], list[dict]]:
    """The set's rank rows and step rows (none without ``steps``) by rank; arguments as ``read_traces`` takes them."""
    job = partial(rank_outcome, rules=rules, steps=steps)
    return read_set(
        path,
        scheduler,
        workers,
        rules,
        partial(run_ranks, job=job),
        lambda outcomes: None if any(o.error for o in outcomes) else [o.facts for o in outcomes],
        lambda outcomes, kind: _pick(path, outcomes, kind),
    )


class RankTraces:
    """Read traces: a non-empty list or tuple of :class:`~densing.overlap.model.RankTrace`."""

    def matches(self, value) -> bool:
        return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(t, RankTrace) for t in value)

    def __str__(self) -> str:
        return "a non-empty list of RankTrace (densing.overlap.read_traces)"


class TraceSource(RankTraces):
    """What the analyses read: a trace file or folder (a path, not blank), or read traces (:class:`RankTraces`)."""

    def matches(self, value) -> bool:
        if isinstance(value, (str, os.PathLike)):
            return bool(str(os.fspath(value)).strip())
        return super().matches(value)

    def __str__(self) -> str:
        return f"a trace file or folder, or {super().__str__()}"


#: The arguments every analysis takes: what it reads and on how many processes.
ANALYZE_CONSTRAINTS = {"source": [TraceSource()], "workers": [Interval(Integral, 1, None), None]}


@validate_params(ANALYZE_CONSTRAINTS)
def analyze_rows(
    source: str | Path | Iterable[RankTrace],
    scheduler: str = "auto",
    workers: int | None = None,
    rules: str = DEFAULT_KERNEL_RULES,
    stream: bool | None = None,
) -> list[dict]:
    """:func:`analyze`'s rows as plain dicts (no pandas: the command line's fast path). A set of one GPU trace file is
    streamed (:mod:`densing.overlap.stream`) as :func:`~densing.overlap.stream.should_stream` says, unless it cannot be
    (compact JSON, no GPU kernels)."""
    if isinstance(source, (str, Path)):
        check_rules(rules)
        files = trace_files(source)
        if should_stream(files, stream) and sniff_kind(files) == GPU:
            try:
                return [stream_rank_row(files[0], rules)]
            except (Unsplittable, NoGpuKernelsError):
                pass
        return set_rows(source, scheduler, workers, rules, steps=False)[0]  # per rank: no step rows built
    return [rank_row(t) for t in source]


@validate_params(ANALYZE_CONSTRAINTS)
def analyze(
    source: str | Path | Iterable[RankTrace],
    scheduler: str = "auto",
    workers: int | None = None,
    rules: str = DEFAULT_KERNEL_RULES,
    stream: bool | None = None,
) -> pd.DataFrame:
    """Per-rank overlap and temporal breakdown of a trace file, directory, or read traces; a path's
    kernels are classified by ``rules`` (``hta``: HTA 0.5.0's categories, ``traceinsight``: 0.6.1's;
    read traces keep the categories they were read with); ``stream``: see :func:`analyze_rows`."""
    import pandas as pd

    return pd.DataFrame(analyze_rows(source, scheduler, workers, rules, stream), columns=RANK_COLUMNS)


@validate_params(ANALYZE_CONSTRAINTS)
def analyze_steps(
    source: str | Path | Iterable[RankTrace],
    scheduler: str = "auto",
    workers: int | None = None,
    rules: str = DEFAULT_KERNEL_RULES,
) -> pd.DataFrame:
    """Per (rank, ProfilerStep) breakdown; a kernel belongs to the step its launch falls in (``rank_step_rows``)."""
    import pandas as pd

    rows = (
        set_rows(source, scheduler, workers, rules)[1]
        if isinstance(source, (str, Path))
        else [row for t in source for row in rank_step_rows(t)]
    )
    return pd.DataFrame(rows, columns=STEP_COLUMNS)


def measured_step_s(run_dir: str | Path) -> float:
    """Median over ranks of the mean ProfilerStep duration of a run (seconds)."""
    steps = analyze_steps(run_dir)
    if steps.empty:
        raise TraceError(f"{run_dir}: no ProfilerStep annotations with ops")
    return float(steps.groupby("rank")["step_time_us"].mean().median() / 1e6)
