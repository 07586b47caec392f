"""Impossible values: one registry of the values no measurement can have (:data:`IMPOSSIBLE`) for every reader, the
checks that apply it, and the domains of a parameter count (:func:`check_params`) and of a date (:func:`check_date`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from densing.errors import InputError

#: Ten years in microseconds: no real duration, and no real trace's span, is longer.
MAX_TRACE_US = 10 * 365.25 * 86400 * 1e6
#: The largest timestamp a trace can hold: 2**63, the 64-bit integer range (Kineto writes µs since the Unix
#: epoch, about 1.7e15 today, and some traces integer ns, about 1.7e18); a float beyond it is an overflow.
MAX_TIMESTAMP_US = float(2**63)


@dataclass(frozen=True)
class Impossible:
    """A value no measurement can have: ``field``'s ``v`` is refused where ``test(v, fraction)`` (``fraction``: the
    metric is one; a trace rule gets arrays); ``why`` completes "field 'F': V …" (results; may name ``{metric}``)."""

    table: str  # "results" (one row of the tidy table) or "trace" (a profiler trace's events)
    field: str
    test: Any
    why: str


#: Every impossible value densing refuses where it reads data, by table and field (two rules that span rows are
#: applied where the rows meet: names equal but for case, ``densing.data.schema``; a trace's span).
IMPOSSIBLE: tuple[Impossible, ...] = (
    Impossible(
        "results",
        "value",
        lambda v, fraction: fraction and not 0.0 <= v <= 1.0,
        "is outside [0, 1], the range of metric '{metric}'",
    ),
    Impossible("results", "loss", lambda v, fraction: v < 0, "is negative; a conditional loss −log P is ≥ 0"),
    Impossible("results", "stderr", lambda v, fraction: v < 0, "is negative; a standard error is ≥ 0"),
    Impossible(
        "results",
        "stderr",
        lambda v, fraction: fraction and v > 0.5,
        "is above 0.5, the largest standard error of a fraction (metric '{metric}')",
    ),
    Impossible(
        "trace",
        "ts",
        lambda v, fraction: ~(abs(v) <= MAX_TIMESTAMP_US),
        "impossible timestamp (NaN, infinite, or beyond the 64-bit range)",
    ),
    Impossible(
        "trace",
        "dur",
        lambda v, fraction: ~(v <= MAX_TRACE_US),
        "impossible duration (NaN, infinite, or longer than 10 years)",
    ),
    Impossible("trace", "dur", lambda v, fraction: v < 0, "negative duration"),
)


def _refusal(field: str, value: float, metric: str, fraction: bool) -> str | None:
    """``"V why (hint)"`` of the first results rule ``value`` breaks, None where it breaks none."""
    for rule in IMPOSSIBLE:
        if rule.table == "results" and rule.field == field and rule.test(value, fraction):
            hint = (
                f" (a percentage? write {value / 100:g} for {value:g}%)"
                if field == "value" and 1.0 < value <= 100.0
                else ""
            )
            return f"{value:g} {rule.why.format(metric=metric)}{hint}"
    return None


def check_impossible(field: str, value: float, *, where: str, metric: str = "", fraction: bool = False) -> float:
    """``value`` of a results-table ``field``, or InputError naming ``where`` and the rule it breaks."""
    if (refusal := _refusal(field, value, metric, fraction)) is not None:
        raise InputError(f"{where}: field '{field}': {refusal}")
    return value


def check_scores(scores: Any, *, name: str = "scores", metric: str = "", fraction: bool = False):
    """``scores`` (a number or a sequence) as a float array, or InputError naming ``name``: not numbers, none, NaN or
    infinite, or impossible by :data:`IMPOSSIBLE`'s rules for a ``value`` (``fraction``: outside [0, 1] refused)."""
    import numpy as np

    if isinstance(scores, (str, bytes, Mapping)):
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
            raise InputError(
                f"{where}: {'NaN' if math.isnan(value) else value} score cannot be inverted (expected a finite number)"
            )
        if (refusal := _refusal("value", value, metric, fraction)) is not None:
            raise InputError(f"{where}: {refusal}")
    return array


def first_impossible(field: str, values) -> tuple[int, str, int] | None:
    """(first index, the rule's words, how many) of a trace column ``values`` breaking a rule of ``field``, or None."""
    import numpy as np

    values = np.asarray(values, dtype=np.float64)
    for rule in (r for r in IMPOSSIBLE if r.table == "trace" and r.field == field):
        if (bad := np.flatnonzero(rule.test(values, False))).size:
            return int(bad[0]), rule.why, int(bad.size)
    return None


# -- The domains of a parameter count and of a date (module docstring) -------------------------------------------------

#: Plausible parameter counts of a language model: outside them a unit mistake (``7`` for 7B). 1e4, not the 1e6 of the
#: smallest published models: densing's evaluation runs tiny test models (about 43,000 parameters).
MIN_PARAMS, MAX_PARAMS = 1e4, 1e13

#: The earliest date of anything densing reads: 2018-06-11, when OpenAI published GPT-1 (Radford et al.), the first
#: decoder-only transformer pre-trained as a language model; before it, an empty cell read as a day zero
#: (1899-12-30, 1970-01-01), a typo or a date of something else. The latest is today.
EARLIEST_DATE = "2018-06-11"


def date_domain() -> str:
    """The domain of a date, in words: ``[2018-06-11, today (YYYY-MM-DD)]``."""
    return f"[{EARLIEST_DATE}, today {date.today().isoformat()}]"


def in_date_domain(day) -> bool:
    return date.fromisoformat(EARLIEST_DATE) <= day <= date.today()


def check_date(value: Any, *, field: str = "release_date", where: str | None = None):
    """``value`` (a date or a Timestamp) if it lies in [:data:`EARLIEST_DATE`, today]; else an InputError."""
    day = value.date() if isinstance(value, datetime) else value
    if in_date_domain(day):
        return value
    why = (
        f"before {EARLIEST_DATE} (GPT-1), the first release of a generatively pre-trained language model (an "
        "empty cell read as a spreadsheet's or Unix's day zero? a typo?)"
        if day < date.fromisoformat(EARLIEST_DATE)
        else "in the future"
    )
    prefix = f"{where}: " if where else ""
    raise InputError(f"{prefix}field '{field}': {day.isoformat()} is {why}; expected a date in {date_domain()}")


def check_params(value: float, *, field: str = "params", where: str | None = None) -> float:
    """A parameter count within [MIN_PARAMS, MAX_PARAMS]; an InputError naming the likely unit mistake otherwise."""
    prefix = f"{where}: " if where else ""
    if value < MIN_PARAMS:
        guesses = [
            f"{value * scale:.3g} for {value:g} {unit}"
            for unit, scale in (("billion", 1e9), ("million", 1e6))
            if 1e6 <= value * scale <= MAX_PARAMS
        ]
        guess = f"; write {' or '.join(guesses)}" if guesses else ""
        raise InputError(
            f"{prefix}field '{field}': {value:g} parameters is below {MIN_PARAMS:g}, "
            f"not a language model's size (counts are plain numbers, 7e9 for 7B{guess})"
        )
    if value > MAX_PARAMS:
        raise InputError(
            f"{prefix}field '{field}': {value:.3g} parameters is above {MAX_PARAMS:g}, "
            "not a language model's size (counts are plain numbers, 7e9 for 7B)"
        )
    return value
