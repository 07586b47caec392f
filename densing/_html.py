"""Small HTML tables for notebooks (``_repr_html_`` of the fitted objects); every value is escaped."""
from __future__ import annotations

from html import escape
from typing import Iterable, Sequence

from densing.numbers import format_number


def cell(value) -> str:
    """A value as table text: floats by :func:`densing.numbers.format_number` (3 significant figures,
    3.2×10⁻⁵, NaN —, ±∞)."""
    if isinstance(value, float):
        return format_number(value, html=True)
    return str(value)


def table(header: Sequence[str], rows: Iterable[Sequence], caption: str | None = None) -> str:
    """``<table>`` with a header row, one row per item and an optional caption (all escaped)."""
    parts = ["<table>"]
    if caption:
        parts.append(f"<caption style='text-align:left'>{escape(caption)}</caption>")
    parts.append("<tr>" + "".join(f"<th>{escape(str(h))}</th>" for h in header) + "</tr>")
    for row in rows:
        parts.append("<tr>" + "".join(f"<td>{escape(cell(v))}</td>" for v in row) + "</tr>")
    parts.append("</table>")
    return "".join(parts)
