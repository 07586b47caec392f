"""Parsing of human-written sizes and dates at the input edge ("7B", "1.1b", "350M", "2T", "7e9").

Parameter counts and token counts are plain numbers inside densing (7e9, never "7" billions);
these helpers turn the strings people write into those numbers, or raise an
:class:`~densing.errors.InputError` that names where the bad value came from.
"""
from __future__ import annotations

import math
import re
from datetime import date, datetime

import pandas as pd

from densing.errors import InputError

_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBgGtT]?)\s*$")


def _where(where: str | None) -> str:
    return f"{where}: " if where else ""


def parse_count(value: object, *, field: str = "params", where: str | None = None) -> float:
    """Parse a count written as ``7B``, ``1.1b``, ``350M``, ``2T``, ``7e9`` or a plain number.

    Returns a positive finite float. Raises :class:`InputError` naming ``where`` and ``field``
    for anything else (empty, negative, zero, NaN, unknown suffix).
    """
    if isinstance(value, bool):
        raise InputError(f"{_where(where)}field '{field}': expected a count like 7e9 or '7B', got {value!r}")
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = "" if value is None else str(value)
        match = _SIZE_RE.match(text)
        if not match:
            raise InputError(
                f"{_where(where)}field '{field}': cannot parse {text!r} as a count "
                "(expected e.g. 7e9, 7B, 1.1b, 350M, 2T)"
            )
        number = float(match.group(1)) * _SUFFIX[match.group(2).lower()]
    if not math.isfinite(number) or number <= 0:
        raise InputError(f"{_where(where)}field '{field}': expected a positive finite count, got {value!r}")
    return number


def format_count(value: float) -> str:
    """Print a count the way people write it: 6.9e9 -> '6.9B', 3.5e11 -> '350B', 1.2e12 -> '1.2T'
    (:func:`densing.numbers.format_count`, the one rule of numbers shown to people)."""
    if value is None or not math.isfinite(value):
        return str(value)
    from densing.numbers import format_count as words

    return words(value)


def parse_date(value: object, *, field: str = "release_date", where: str | None = None,
               in_domain: bool = True) -> pd.Timestamp:
    """Parse an ISO date (``2023-02-24``; also ``2023-02`` meaning the first of the month) in the domain of dates,
    [:data:`densing.validation.EARLIEST_DATE`, today]: a date outside it is an InputError naming ``where``, ``field``,
    the date and the domain. ``in_domain=False``: any date (for a check that reports its own range as a finding)."""
    from densing.validation import check_date

    parsed = _parse_date(value, field=field, where=where)
    return check_date(parsed, field=field, where=where) if in_domain else parsed


def _parse_date(value: object, *, field: str, where: str | None) -> pd.Timestamp:
    """A date as a time-zone-naive Timestamp at midnight; a date-time with a time zone is first taken to UTC (its day
    there: 2023-02-25 01:00+09:00 is 2023-02-24)."""
    if isinstance(value, (datetime, date)):
        stamp = pd.Timestamp(value)
        return (stamp.tz_convert("UTC").tz_localize(None) if stamp.tzinfo is not None else stamp).normalize()
    text = "" if value is None else str(value).strip()
    for fmt in ("%Y-%m-%d", "%Y-%m", "%Y/%m/%d"):
        try:
            return pd.Timestamp(datetime.strptime(text, fmt))
        except ValueError:
            continue
    raise InputError(f"{_where(where)}field '{field}': cannot parse {text!r} as a date (expected YYYY-MM-DD)")
