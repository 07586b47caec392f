"""One summary of a result, three renderings (statsmodels' ``iolib.summary.Summary`` is the model): terminal text,
HTML and JSON, every number by :func:`densing.numbers.format_number`, so the text and the HTML print the same digits."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from densing.numbers import format_number, json_value

#: A text cell longer than this is cut with "…" in the terminal's item lines (the HTML and JSON keep it whole).
TEXT_WIDTH = 100


def cell(value) -> str:
    """A value as table text: a float by :func:`densing.numbers.format_number`, a nested result by its type's name."""
    if isinstance(value, float):
        return format_number(value)
    return type(value).__name__ if hasattr(value, "_summary_items") else str(value)


def table_html(header: Sequence[str], rows: Iterable[Sequence], caption: str | None = None) -> str:
    """``<table>`` with a header row, one row per item and an optional caption (every value escaped)."""
    title = f"<caption style='text-align:left'>{escape(caption)}</caption>" if caption else ""
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(cell(v))}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table>{title}<tr>{head}</tr>{body}</table>"


@dataclass(frozen=True)
class Table:
    """A captioned table of a summary: column names and rows of values (numbers formatted when shown)."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]

    @classmethod
    def of(cls, frame, caption: str) -> Table:
        """A DataFrame as a table (its index left out)."""
        return cls(
            caption, tuple(str(c) for c in frame.columns), tuple(tuple(r) for r in frame.itertuples(index=False))
        )

    def as_text(self) -> str:
        cells = [list(self.columns), *([cell(v) for v in row] for row in self.rows)]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
        return "\n".join([self.caption, *(f"  {line}" for line in lines)])


@dataclass(frozen=True)
class Summary:
    """A result as a reader sees it: ``title``, ``lines`` of words, ``items`` (name, value) and ``tables``, as
    :meth:`as_text` (``str``), :meth:`as_html` (notebooks, the report) and :meth:`to_dict` (JSON)."""

    title: str
    lines: tuple[str, ...] = ()
    items: tuple[tuple[str, object], ...] = ()
    tables: tuple[Table, ...] = ()

    def as_text(self) -> str:
        width = max((len(n) for n, _ in self.items), default=0)

        def shown(value) -> str:
            text = cell(value)
            return text if len(text) <= TEXT_WIDTH else text[: TEXT_WIDTH - 3] + "…"

        parts = [self.title, *self.lines, *(f"  {n:<{width}}  {shown(v)}" for n, v in self.items)]
        return "\n".join([*parts, *(t.as_text() for t in self.tables)])

    def as_html(self) -> str:
        words = "".join(f"<p>{escape(line)}</p>" for line in self.lines)
        items = table_html(["field", "value"], self.items, caption=self.title) if self.items else ""
        head = "" if self.items else f"<p><strong>{escape(self.title)}</strong></p>"
        return head + words + items + "".join(table_html(t.columns, t.rows, caption=t.caption) for t in self.tables)

    def to_dict(self) -> dict:
        return {
            "title": self.title,
            "lines": list(self.lines),
            "items": {n: json_value(v) for n, v in self.items},
            "tables": [
                {"caption": t.caption, "rows": [dict(zip(t.columns, map(json_value, r))) for r in t.rows]}
                for t in self.tables
            ],
        }

    __str__ = as_text
    _repr_html_ = as_html
