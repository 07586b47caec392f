"""Impossible values: one registry of the values no measurement can have, for every reader (the results table, the
profiler traces), and the checks that apply it.

A results row's score outside [0, 1] (for a fraction), a negative loss or standard error; a trace event's NaN,
infinite or out-of-range timestamp, its negative or decade-long duration: :data:`IMPOSSIBLE` lists each with its
words, :func:`check_impossible` applies it to one results field, :func:`check_scores` to scores given as numbers,
:func:`first_impossible` to a trace column.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from densing.errors import InputError


#: Ten years in microseconds: no real duration, and no real trace's span, is longer.
MAX_TRACE_US = 10 * 365.25 * 86400 * 1e6
#: The largest timestamp a trace can hold: 2**63, the 64-bit integer range (Kineto writes µs since the Unix
#: epoch, about 1.7e15 today, and some traces integer ns, about 1.7e18); a float beyond it is an overflow.
MAX_TIMESTAMP_US = float(2**63)


@dataclass(frozen=True)
class Impossible:
    """A value no measurement can have: ``field``'s value ``v`` is refused when ``test(v, fraction)``
    holds (``fraction``: the row's metric is a fraction). A results rule's ``why`` completes
    "field 'F': V …" and may name ``{metric}``; a trace rule gets numpy arrays (``fraction=False``)
    and its ``why`` names what V is ("negative duration")."""

    table: str  # "results" (one row of the tidy table) or "trace" (a profiler trace's events)
    field: str
    test: Any
    why: str


#: Every impossible value densing refuses where it reads data, by table and field. The results
#: table's rows are checked by :func:`check_impossible` (from :func:`densing.data.validate_results`), a
#: trace's columns by :func:`first_impossible` (from :mod:`densing.overlap.columns`). Two rules span
#: rows rather than one value and are applied where the rows meet: in the results table, two
#: model names equal but for case with different scores for one measurement
#: (``densing.data.schema``: model ids on the Hugging Face Hub are case-insensitive, so they are one
#: model measured twice); in a trace, events spanning more than :data:`MAX_TRACE_US`.
IMPOSSIBLE: tuple[Impossible, ...] = (
    Impossible("results", "value", lambda v, fraction: fraction and not 0.0 <= v <= 1.0,
               "is outside [0, 1], the range of metric '{metric}'"),
    Impossible("results", "loss", lambda v, fraction: v < 0,
               "is negative; a conditional loss −log P is ≥ 0"),
    Impossible("results", "stderr", lambda v, fraction: v < 0,
               "is negative; a standard error is ≥ 0"),
    Impossible("results", "stderr", lambda v, fraction: fraction and v > 0.5,
               "is above 0.5, the largest standard error of a fraction (metric '{metric}')"),
    Impossible("trace", "ts", lambda v, fraction: ~(abs(v) <= MAX_TIMESTAMP_US),
               "impossible timestamp (NaN, infinite, or beyond the 64-bit range)"),
    Impossible("trace", "dur", lambda v, fraction: ~(v <= MAX_TRACE_US),
               "impossible duration (NaN, infinite, or longer than 10 years)"),
    Impossible("trace", "dur", lambda v, fraction: v < 0,
               "negative duration"),
)


def check_impossible(field: str, value: float, *, where: str, metric: str = "", fraction: bool = False) -> float:
    """``value`` of a results-table ``field``, or InputError naming ``where`` and the rule it breaks."""
    for rule in IMPOSSIBLE:
        if rule.table == "results" and rule.field == field and rule.test(value, fraction):
            hint = f" (a percentage? write {value / 100:g} for {value:g}%)" if field == "value" and 1.0 < value <= 100.0 else ""
            raise InputError(f"{where}: field '{field}': {value:g} {rule.why.format(metric=metric)}{hint}")
    return value


def check_scores(scores: Any, *, name: str = "scores", metric: str = "", fraction: bool = False):
    """``scores`` (a number or a sequence of numbers) as a float array, or InputError naming ``name``: not numbers, none,
    NaN or infinite, or impossible by :data:`IMPOSSIBLE`'s rules for a results table's ``value`` (``fraction``: the
    metric is a fraction, so a score outside [0, 1] is refused, as the table readers refuse it)."""
    import numpy as np

    if isinstance(scores, (str, bytes)) or isinstance(scores, Mapping):
        raise InputError(f"{name}: expected a score or a sequence of scores, got {scores!r}")
    try:
        array = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a score or a sequence of scores, got {scores!r}") from None
    if array.size == 0:
        raise InputError(f"{name}: no score given")
    flat = array.reshape(-1)
    for i, value in enumerate(flat):
        where = name if array.ndim == 0 else f"{name}[{i}]"
        if not math.isfinite(value):
            raise InputError(f"{where}: {'NaN' if math.isnan(value) else value} score cannot be inverted (expected a finite number)")
        for rule in IMPOSSIBLE:
            if rule.table == "results" and rule.field == "value" and rule.test(value, fraction):
                hint = f" (a percentage? write {value / 100:g} for {value:g}%)" if 1.0 < value <= 100.0 else ""
                raise InputError(f"{where}: {value:g} {rule.why.format(metric=metric)}{hint}")
    return array


def first_impossible(field: str, values) -> tuple[int, str, int] | None:
    """The first index of a trace column ``values`` (numpy) breaking a rule of ``field``, the rule's words and how
    many values break it; None if none does."""
    import numpy as np

    values = np.asarray(values, dtype=np.float64)
    for rule in IMPOSSIBLE:
        if rule.table == "trace" and rule.field == field:
            bad = np.flatnonzero(rule.test(values, False))
            if bad.size:
                return int(bad[0]), rule.why, int(bad.size)
    return None
