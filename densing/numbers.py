"""Numbers as text and as JSON: the one rule every table, sentence and JSON document follows (docs/cli_reference.md),
and counts and dates parsed as people write them (:func:`parse_count`, :func:`parse_date`).
"""

from __future__ import annotations

import contextlib
import enum
import math
import re
from datetime import date, datetime
from typing import TYPE_CHECKING

from densing.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

MISSING, INFINITY, MINUS_INFINITY = "—", "∞", "−∞"


class NumberText(str):
    """The text of a number that a table places as a number (right-aligned, never folded), though it is not one
    value: an interval end printed as its Monte Carlo range, "(12.8–150)" (:func:`densing.present.words.ends_shown`)."""


#: Significant figures of a number shown to people.
DIGITS = 3
#: Positional notation for magnitudes in [10**SMALLEST, 10**LARGEST); scientific outside.
SMALLEST, LARGEST = -3, 5
#: An integer below this prints whole (a count of models, kernels, a rank).
WHOLE = 10**6

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _special(value) -> str | None:
    """— for None/NaN, ∞ / −∞ for infinities, None for a finite number."""
    number = math.nan if value is None else float(value)
    if math.isnan(number):
        return MISSING
    if not math.isinf(number):
        return None
    return INFINITY if number > 0 else MINUS_INFINITY


def significant(value: float, digits: int = DIGITS) -> str:
    """A finite ``value`` to ``digits`` significant figures, ``3.2×10⁻⁵`` outside positional notation's range and a
    minus sign (−, U+2212) rather than a hyphen, on every surface."""
    value = float(value)
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    exponent = int(exponent)
    if SMALLEST <= exponent < LARGEST:
        text = f"{float(f'{mantissa}e{exponent}'):.{max(0, digits - 1 - exponent)}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
        return text.replace("-", "−")
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    return f"{mantissa.replace('-', '−')}×10{str(exponent).translate(_SUPERSCRIPT)}"


def signed(value: float, digits: int = DIGITS) -> str:
    """A change to ``digits`` significant figures with its sign: "+1.9", "−0.0123"."""
    return ("+" if float(value) > 0 else "") + significant(value, digits)


def format_months(value) -> str:
    """A doubling time (months) by :func:`format_number`'s rule: a sentence and its table print the same digits."""
    return format_number(value)


def log_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    """(values, texts) of a log axis spanning ``10**low`` to ``10**high``: the powers of ten inside,
    and their 2× and 5× where fewer than three powers are inside."""
    exponents = range(math.floor(low), math.ceil(high) + 1)
    mantissas = (1,) if sum(low <= e <= high for e in exponents) >= 3 else (1, 2, 5)
    powers = {e: f"10{str(e).translate(_SUPERSCRIPT)}" for e in exponents}  # 10⁻⁴ and 2×10⁻⁴, never SI's 100μ
    ticks = [
        (m * 10.0**e, powers[e] if m == 1 else f"{m}×{powers[e]}")
        for e in exponents
        for m in mantissas
        if low <= math.log10(m) + e <= high
    ]
    return [v for v, _ in ticks], [t for _, t in ticks]


def format_number(value, spec: str | None = None, *, digits: int = DIGITS) -> str:
    """``value`` as text by the module's rule, or ``format(value, spec)`` where a sentence asks for a fixed form."""
    if (special := _special(value)) is not None:
        return special
    if spec is not None:
        return re.sub(r"^-", "−", format(float(value), spec))
    if float(value).is_integer() and abs(float(value)) < WHOLE:
        return str(int(value)).replace("-", "−")
    return significant(value, digits)


#: Word suffixes of counts, largest first.
_SCALES = (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3))


def format_count(value, digits: int = DIGITS) -> str:
    """A count (parameters, tokens, FLOPs) as people write it: 6.9e9 → ``6.9B``, 1.5e13 → ``15T``, 7e4 → ``70K``."""
    if (special := _special(value)) is not None:
        return special
    value = float(value)
    rounded = float(f"{value:.{digits - 1}e}")  # 999.6 is 1K, not 1000
    suffix, scale = next(((suffix, scale) for suffix, scale in _SCALES if abs(rounded) >= scale), ("", 1.0))
    return significant(value / scale, digits) + suffix


def counted_noun(count, singular: str, plural: str | None = None) -> str:
    """A whole ``count`` and its noun in the number the count takes: ``1 cutoff``, ``3 cutoffs``, ``0 cutoffs``.

    ``plural`` is the noun's plural where adding "s" does not make it (``counted_noun(2, "family", "families")``).
    """
    whole = int(count)
    noun = singular if whole == 1 else (plural or f"{singular}s")
    return f"{whole} {noun}"


#: Units of time, largest first: (name, seconds).
_TIME_UNITS = (("h", 3600.0), ("min", 60.0), ("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def time_unit(seconds) -> tuple[str, float]:
    """(unit, seconds per unit) for durations of about ``seconds``: the largest unit it is at least one of."""
    if _special(seconds) is not None or float(seconds) == 0:
        return "s", 1.0
    return next((unit for unit in _TIME_UNITS if abs(float(seconds)) >= unit[1]), _TIME_UNITS[-1])


def json_number(value) -> float | None:
    """A number for JSON: a float, or None where it is missing or not finite."""
    return float(value) if value is not None and math.isfinite(value) else None


def json_value(value):
    """A value as JSON: a result (anything with ``to_dict`` and ``conf_int``) as its ``to_dict()``, a non-finite float
    as None, numpy scalars as Python numbers, a state (an enum) as its code, an error as its message, tuples, lists and
    dicts of them in kind."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, BaseException):
        return str(value)
    if hasattr(value, "item") and not isinstance(value, (str, bytes)) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if hasattr(value, "to_dict") and hasattr(value, "conf_int"):
        return value.to_dict()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (tuple, list)) and any(hasattr(v, "conf_int") for v in value):
        return [json_value(v) for v in value]
    if isinstance(value, dict) and any(hasattr(v, "conf_int") for v in value.values()):
        return {k: json_value(v) for k, v in value.items()}
    return value


def json_tree(value):
    """:func:`json_value` of every value in nested dicts, lists and tuples (NaN as None, numpy as Python)."""
    if isinstance(value, dict):
        return {k: json_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_tree(v) for v in value]
    return json_value(value)


# -- Counts and dates as people write them, parsed at the input edge ("7B", "1.1b", "350M", "2T", "7e9"; "2023-02") ----

_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBgGtT]?)\s*$")


def _where(where: str | None) -> str:
    return f"{where}: " if where else ""


def parse_count(value: object, *, field: str = "params", where: str | None = None) -> float:
    """A count written as ``7B``, ``1.1b``, ``350M``, ``2T``, ``7e9`` or a plain number, as a positive finite float;
    an :class:`InputError` naming ``where`` and ``field`` for anything else."""
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


def parse_date(
    value: object, *, field: str = "release_date", where: str | None = None, in_domain: bool = True
) -> pd.Timestamp:
    """An ISO date (``2023-02-24``; ``2023-02``: the first of the month) in [:data:`~densing.impossible.EARLIEST_DATE`,
    today], else an InputError naming ``where``, ``field``, the date and the domain; ``in_domain=False``: any date."""
    from densing.impossible import check_date

    parsed = _parse_date(value, field=field, where=where)
    return check_date(parsed, field=field, where=where) if in_domain else parsed


def _parse_date(value: object, *, field: str, where: str | None) -> pd.Timestamp:
    """A date as a time-zone-naive Timestamp at midnight; a date-time with a time zone is first taken to UTC (its day
    there: 2023-02-25 01:00+09:00 is 2023-02-24)."""
    import pandas as pd  # the dates' one type; imported where a date is read

    if isinstance(value, (datetime, date)):
        stamp = pd.Timestamp(value)
        return (stamp.tz_convert("UTC").tz_localize(None) if stamp.tzinfo is not None else stamp).normalize()
    text = "" if value is None else str(value).strip()
    for fmt in ("%Y-%m-%d", "%Y-%m"):
        with contextlib.suppress(ValueError):
            return pd.Timestamp(datetime.strptime(text, fmt))
    try:  # an ISO date-time with its zone (2023-02-25T01:00+09:00, …Z): its day in UTC
        stamp = datetime.fromisoformat(text) if len(text) > 10 and text[10] in "T " else None
    except ValueError:
        stamp = None
    if stamp is not None and stamp.tzinfo is not None:
        return _parse_date(stamp, field=field, where=where)
    raise InputError(
        f"{_where(where)}field '{field}': cannot parse {text!r} as a date (expected YYYY-MM-DD, YYYY-MM "
        "for the first of the month, or a date-time with its zone for its day in UTC)"
    )


def frame_records(frame) -> list[dict]:
    """A DataFrame's rows as JSON-ready dicts: numpy scalars as Python numbers, a non-finite number as None."""
    return [{str(k): json_value(v) for k, v in row.items()} for row in frame.to_dict("records")]
