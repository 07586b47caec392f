"""Per-rank work, run where a rank's file is decoded (:mod:`densing.overlap.engine`): the file's rows (decode, HTA's
selection, the metrics) and the few facts the set's rules need; never events.

The set's rules need two facts of every rank: its ``ProfilerStep`` names (HTA filters the last step when the set has
two or more: a rank with fewer computes its rows both ways and the driver picks one) and its first timestamp. The
alignment on the set's earliest event only shifts times, and the metrics are sums and differences of times on the
trace's own grid, which are exact, so a rank's rows are computed from its own first event
(``tools/overlap_same_output.py`` and ``tests/overlap/test_engine.py`` check it).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from densing.errors import TraceError
from densing.overlap.cpu_trace import CpuRank, cpu_rank
from densing.overlap.cpu_trace import to_rank_trace as cpu_rank_trace
from densing.overlap.kineto import GPU, DecodeInfo, Unsplittable, decode_file, prefixed
from densing.overlap.metrics import rank_metrics, rank_step_rows
from densing.overlap.model import DEFAULT_KERNEL_RULES
from densing.overlap.parts import decode_part
from densing.overlap.selection import DecodedRank, decoded_rank, filters_last_step, to_rank_trace


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
class RankRows:
    """One rank's analyze row and its per-step rows."""

    row: dict
    steps: list


@dataclass(frozen=True)
class RankOutcome:
    """A rank's facts and rows (keyed by the last-step rule: True, False; None for CPU sets), each a
    :class:`RankRows` or the TraceError to raise; or the decode ``error``."""

    facts: RankFacts | None = None
    rows: dict = field(default_factory=dict)
    error: TraceError | None = None


def part_columns(path: str | Path, part: int, parts: int, kind: str = GPU):
    """Part ``part`` of ``parts`` of one file (:mod:`densing.overlap.parts`); an Unsplittable or a TraceError is
    returned, not raised (the combining job then reads the file whole, or raises the error)."""
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


def rank_outcome(path: str | Path, default_rank: int, kind: str = GPU, *parts, rules: str = DEFAULT_KERNEL_RULES,
                 steps: bool = True) -> RankOutcome:
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
            rows[key] = RankRows(rank_metrics(trace), rank_step_rows(trace) if steps else [])
        except TraceError as exc:
            rows[key] = exc
    return RankOutcome(facts, rows)
