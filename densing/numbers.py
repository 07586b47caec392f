"""Numbers as text and as JSON: the one rule every table, sentence and JSON document follows.

Text: a missing number (None, NaN) is ``—``, an infinity ``∞`` or ``−∞`` (the minus sign U+2212,
as in running text), any other number ``format(value, spec)``. JSON: a non-finite number is
``null`` (:func:`json_number`).
"""
from __future__ import annotations

import math

MISSING = "—"
INFINITY = "∞"
MINUS_INFINITY = "−∞"


def format_number(value, spec: str = ".4g") -> str:
    """``value`` as text: ``format(value, spec)``; None or NaN as —, ±infinity as ∞ / −∞."""
    if value is None:
        return MISSING
    value = float(value)
    if math.isnan(value):
        return MISSING
    if math.isinf(value):
        return INFINITY if value > 0 else MINUS_INFINITY
    return format(value, spec)


def json_number(value) -> float | None:
    """A number for JSON: a float, or None where it is missing or not finite."""
    return float(value) if value is not None and math.isfinite(value) else None


def spread(values, spec: str = ".2f", between: str = "–") -> str:
    """A repeated measurement as ``median [min<between>max]`` (each ``format(value, spec)``): the form
    the bench scripts print a distribution in (the brief: median and spread, never one number)."""
    import statistics

    values = list(values)
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{format(mid, spec)} [{format(low, spec)}{between}{format(high, spec)}]"
