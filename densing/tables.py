"""A column shown to people: its header in words with its unit, its cells by :mod:`densing.numbers`.

The terminal tables (:mod:`densing.cli.output`), the report's tables (:mod:`densing.report.html`)
and nothing else use this module; CSV and JSON keep the machine field names and raw values.

A field's header is its entry in :data:`HEADERS`, else the field with ``_`` read as a space
(``density:mmlu`` as ``ρ mmlu``). Its cells follow the field's kind (:func:`kind`):

- a count (parameters, tokens, FLOPs) in words: ``1.42B``, ``15T``;
- a fraction shown as a percentage, the header saying ``(%)``: ``held_out_error`` 0.0712 → ``7.12``;
- a percentage (``*_pct``) as it is, the header saying ``(%)``;
- a duration in µs (``*_us``) in the unit its column reads in (``ms`` for 4.356e5 µs), the header
  saying which;
- any other number to 3 significant figures (:func:`densing.numbers.format_number`); a date as
  ``YYYY-MM-DD``; a boolean as yes/no; a missing value as ``—``.

A table with a ``bound`` column (a censored density: "upper bound", "lower bound") shows each bounded row's
density and effective size as the bound it is, ``≤ 0.000743`` / ``≥ 2.31`` (:func:`frame_columns`), so every
block of a wide terminal table and every HTML table says it, whichever columns it holds.
"""
from __future__ import annotations

import math
import numbers
from datetime import date, datetime

from densing.numbers import MISSING, format_count, format_number, time_unit

#: Field name → header. A header is a few short words: a table may wrap it between words, never inside one.
HEADERS = {
    # trend
    "row": "benchmark or set",
    "months": "months",
    "ci_low": "95% CI low",
    "ci_high": "95% CI high",
    "n_models": "models",
    "n_references": "references",
    "each_reference_months": "months per reference",
    "error": "why not measured",
    "lower_bounds": "lower bounds",
    "upper_bounds": "upper bounds",
    "n_lower": "lower bounds",
    "n_upper": "upper bounds",
    "share_fit": "fit share",
    "share_score": "score share",
    "share_models": "models share",
    "share_reference": "reference share",
    "fixed_size_months": "fixed-size months",
    "fixed_size_ci_low": "fixed-size 95% low",
    "fixed_size_ci_high": "fixed-size 95% high",
    "fixed_size_status": "fixed-size status",
    "heterogeneity_q": "Q",
    "heterogeneity_p": "Q p-value",
    "i_squared": "I²",
    "slope_per_day": "slope (per day)",
    "size_dependence": "size dependence",
    "months_ceiling_1": "months, ceiling 1",
    "score_r2": "score R²",
    "offset_stderr": "offset SE",
    # density
    "params": "N (params)",
    "effective_params": "N̂ (params)",
    "density": "ρ",
    "density_ci_low": "ρ 95% low",
    "density_ci_high": "ρ 95% high",
    "log_density": "ln ρ",
    "release_date": "released",
    "date_confidence": "date confidence",
    "train_tokens": "D (tokens)",
    "d0": "D0 (tokens)",
    "birge_ratio": "Birge ratio",
    # reference candidates
    "held_out_error": "held-out error",
    "held_out_predicted": "held-out predicted",
    "size_span": "size span (×)",
    "token_ratio": "token ratio (×)",
    "largest_score": "largest score",
    "top_kappa": "top-decile κ",
    # overlap
    "world_size": "ranks",
    "kernel_count": "kernels",
    "kernel_span_us": "kernel span",
    "idle_us": "idle",
    "compute_us": "compute",
    "non_compute_us": "non-compute",
    "comm_us": "comm",
    "overlap_us": "overlapped comm",
    "exposed_comm_us": "exposed comm",
    "comm_comp_overlap_pct": "comm-comp overlap",
    "idle_pct": "idle",
    "compute_pct": "compute",
    "non_compute_pct": "non-compute",
    "comm_bytes": "comm bytes",
}

#: Fields holding a fraction that a table shows as a percentage (one representation per quantity).
FRACTIONS = frozenset({"held_out_error", "share_fit", "share_score", "share_models", "share_reference", "i_squared"})
#: Fields holding a count (parameters, tokens, FLOPs), written in words.
COUNTS = frozenset({"params", "effective_params", "train_tokens", "d0", "tokens", "flops", "max_params", "min_params"})


def kind(field: str) -> str:
    """``count``, ``fraction`` (shown as a percentage), ``percent``, ``microseconds`` or ``other``."""
    name = str(field)
    if name in COUNTS or name.endswith(("_params", "_tokens", "_flops")):
        return "count"
    if name in FRACTIONS:
        return "fraction"
    if name.endswith("_pct"):
        return "percent"
    if name.endswith("_us"):
        return "microseconds"
    return "other"


def header(field: str, unit: str | None = None) -> str:
    """The header of ``field`` in words, with ``unit`` (or its kind's: ``%``) in brackets."""
    name = str(field)
    if name in HEADERS:
        text = HEADERS[name]
    elif name.startswith("density:"):
        text = "ρ " + name.split(":", 1)[1]
    elif name.startswith("score:"):
        text = "score " + name.split(":", 1)[1]
    else:
        text = name.replace("_", " ")
    unit = unit or ("%" if kind(name) in ("fraction", "percent") else None)
    return f"{text} ({unit})" if unit else text


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool) and not _is_bool(value)


def _is_bool(value) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _missing(value) -> bool:
    if value is None:
        return True
    if _is_number(value):
        try:
            return math.isnan(float(value))
        except (TypeError, ValueError):
            return False
    return type(value).__name__ in ("NAType", "NaTType")


def is_numeric(values) -> bool:
    """Whether every value is a number or missing (and one at least is there): right-aligned, never folded."""
    values = list(values)
    return bool(values) and all(_is_number(v) or _missing(v) for v in values)


def _text(value, html: bool) -> str:
    if _missing(value):
        return MISSING
    if _is_bool(value):
        return "yes" if value else "no"
    if _is_number(value):
        return format_number(value, html=html)
    if isinstance(value, (datetime, date)):
        return value.strftime("%Y-%m-%d")
    return str(value)


def column(field: str, values, *, html: bool = False) -> tuple[str, list[str]]:
    """(header, cells) of one column: ``values`` as people read them, by the field's :func:`kind`.

    A text value in a numeric field (a count already written as ``7B``) is kept as it is."""
    values = list(values)
    how = kind(field)
    unit = None
    scale = 1.0
    if how == "microseconds":
        finite = sorted(abs(float(v)) for v in values if _is_number(v) and math.isfinite(float(v)) and float(v) != 0)
        unit, seconds = time_unit(finite[len(finite) // 2] / 1e6 if finite else 1e-3)
        scale = seconds * 1e6

    def one(value) -> str:
        if _missing(value) or not _is_number(value):
            return _text(value, html)
        if how == "count":
            return format_count(value, html=html)
        if how == "fraction":
            return format_number(100 * float(value), html=html)
        if how == "microseconds":
            return format_number(float(value) / scale, html=html)
        return format_number(value, html=html)

    return header(field, unit), [one(v) for v in values]


def empty(cells) -> bool:
    """Whether a column says nothing: every cell missing (``—``) or blank."""
    return all(c in (MISSING, "") for c in cells)


#: The fields a ``bound`` column qualifies: the value is the bound, not an estimate.
BOUNDED_FIELDS = ("density", "effective_params")
#: ``bound`` → the sign a bounded cell is shown with.
BOUND_SIGNS = {"upper bound": "≤ ", "lower bound": "≥ "}


def bound_signs(frame) -> list[str] | None:
    """Per row, the sign its bounded fields are shown with ("≤ ", "≥ " or ""); None without a ``bound`` column."""
    if "bound" not in getattr(frame, "columns", ()):
        return None
    return [BOUND_SIGNS.get(str(b), "") for b in frame["bound"].tolist()]


def frame_columns(frame, *, html: bool = False) -> list[tuple[str, list[str]]]:
    """(header, cells) of every column of ``frame`` (:func:`column`), a bounded row's density and effective size
    written as its bound (``≤ x``, ``≥ x``; module docstring)."""
    signs = bound_signs(frame)
    out = []
    for name in frame.columns:
        head, cells = column(name, frame[name].tolist(), html=html)
        if signs is not None and str(name) in BOUNDED_FIELDS:
            cells = [f"{sign}{cell}" if sign and cell != MISSING else cell for sign, cell in zip(signs, cells)]
        out.append((head, cells))
    return out
