"""The one output layer of the command line: a DataFrame as a rich table, JSON or CSV.

Every command renders through :func:`print_frame` (a table command) or :func:`print_document` (a command with a
headline), so all of them follow the same rules:

- ``table``: a rich table with markup and highlighting off, so model names such as
  ``org/[/x]model`` print literally; headers in words with their units and cells by the one rule
  of :mod:`densing.tables` (numbers to 3 significant figures, counts as 1.42B, durations in ms or
  s, fractions as percentages; a missing value ``—``, an infinite one ``∞``); numbers never wrap
  (text columns fold); columns with nothing in them left out unless ``wide``; one row as a
  key/value table; a censored density (a ``bound`` column) as its bound, ``≤ x`` / ``≥ x``, in
  every block.
- ``json``, one shape per family of commands:

  - a **table command** (``density``, ``fit``, ``validate``, ``eval``, every ``overlap`` command) prints a JSON
    **list of row objects**, one per row of its table, the field names as in CSV;
  - a **command with a headline** (``trend`` in each of its forms: the headline, ``--by benchmark``, ``--design
    olmes``; ``ladder check``) prints one JSON **object** ``{"rows": [row objects], ...}``: its main table under
    ``rows``, then named sections beside it (the verdict in words, further tables as lists of row objects, nested
    objects).

  In both, NaN and infinity become ``null`` (a censored effective size N̂ = +inf is therefore ``null`` with its
  reason in the ``censored`` field), dates are ``YYYY-MM-DD``, the output is indented.
- ``csv``: one header row, dates as ``YYYY-MM-DD``, no index.

pandas, numpy and orjson are imported inside the functions, so importing this module (as every
command module does) keeps ``densing --help`` quick.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum

from densing.registry import Registry, check_callable


class Format(str, Enum):
    """``--format`` of every command that prints a table."""

    table = "table"
    json = "json"
    csv = "csv"


FORMATS = tuple(f.value for f in Format)


def _plain(value):
    import numpy as np
    import pandas as pd

    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (pd.Timestamp, datetime, date)):
        return value.strftime("%Y-%m-%d")
    return value


def records(frame) -> list[dict]:
    """JSON-ready list of dicts (NaN/inf → None, timestamps → YYYY-MM-DD)."""
    return [{str(k): _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


def to_json(frame) -> str:
    """A table command's JSON: a list of row objects (module docstring)."""
    import orjson

    return orjson.dumps(records(frame), option=orjson.OPT_INDENT_2).decode()


def _json_ready(value):
    """``value`` as plain JSON: a DataFrame as its row objects, a result as its ``to_dict()``, mappings and sequences
    element by element, every scalar by :func:`_plain` (NaN and infinity → None, dates → YYYY-MM-DD)."""
    import numpy as np
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        return records(value)
    if hasattr(value, "to_dict") and hasattr(value, "__dataclass_fields__"):
        return _json_ready(value.to_dict())
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_json_ready(v) for v in value.tolist()]
    return _plain(value)


def document(rows, /, **sections) -> dict:
    """A command with a headline's JSON object: ``{"rows": [row objects], **sections}`` (module docstring); ``rows``
    a DataFrame or a list of row dicts, each section any JSON-able value (a DataFrame as its rows)."""
    if "rows" in sections:
        raise ValueError("document: 'rows' is the main table, not a section")
    return {"rows": _json_ready(rows), **{name: _json_ready(value) for name, value in sections.items()}}


def print_document(rows, /, **sections) -> None:
    """Print :func:`document` as indented JSON: the ``--format json`` of a command with a headline."""
    import orjson

    sys.stdout.write(orjson.dumps(document(rows, **sections), option=orjson.OPT_INDENT_2).decode() + "\n")


def to_csv(frame) -> str:
    from densing.io import frame_to_csv

    return frame_to_csv(frame)


#: Text columns fold down to this many characters, no further; numbers never fold.
MIN_TEXT_WIDTH = 32
#: At most this many leading text columns (the row's name: model, benchmark) repeat in each block.
MAX_KEY_COLUMNS = 2


def header_lines(text: str, width: int) -> str:
    """``text`` broken between words into lines of at most ``width`` characters where it can be
    (``95% CI low`` at width 6: ``95% CI`` / ``low``); a word is never broken, and a word longer
    than ``width`` has a line of its own."""
    lines = [""]
    for word in text.split(" "):
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append("")
        lines[-1] = f"{lines[-1]} {word}" if lines[-1] else word
    return "\n".join(lines)


def _longest_word(text: str) -> int:
    return max(len(w) for w in text.split(" "))


@dataclass
class _Column:
    """One column as printed: its field, header in words, cells as text, right-aligned and unbroken if numeric."""

    field: str
    header: str
    cells: list[str]
    numeric: bool
    width: int = 0  # the width it is given
    lines: str = ""  # the header as printed, broken between words to fit ``width``

    def widest_cell(self) -> int:
        return max([1, *(len(c) for c in self.cells)])

    def narrowest(self) -> int:
        """The least width: its widest number (a text column folds down to MIN_TEXT_WIDTH), its longest header word."""
        cells = self.widest_cell() if self.numeric else min(self.widest_cell(), MIN_TEXT_WIDTH)
        return max(cells, _longest_word(self.header))

    def set_width(self, width: int) -> None:
        self.width = width
        self.lines = header_lines(self.header, width)


def columns_of(frame, *, wide: bool = False) -> list[_Column]:
    """The columns of ``frame`` as people read them (:func:`densing.tables.column`); unless
    ``wide``, a column with nothing in it (every cell missing or blank) is left out."""
    from densing.tables import empty, frame_columns, is_numeric

    out = []
    for name, (head, cells) in zip(frame.columns, frame_columns(frame)):
        out.append(_Column(str(name), head, cells, is_numeric(frame[name].tolist())))
    if not wide:
        kept = [c for c in out if not empty(c.cells)]
        out = kept or out[:1]
    return out


#: Padding of a cell (top, right, bottom, left): one space after it, and the divider — together two
#: spaces between columns.
PADDING = (0, 1, 0, 0)


def _table_width(columns: list[_Column], positions) -> int:
    """Characters a ``box.SIMPLE_HEAD`` table without edges and with :data:`PADDING` takes for these
    columns: Σ (width + 2) − 1."""
    return sum(columns[p].width + 2 for p in positions) - 1


def _lines_at(text: str, width: int) -> int:
    return header_lines(text, width).count("\n") + 1


def _widen_headers(columns: list[_Column], limit: int) -> None:
    """Spend the room left within ``limit`` on headers: each column, left to right, as wide as puts
    its header on two lines, then on one, where the table still fits."""
    for most in (2, 1):
        for c in columns:
            if _lines_at(c.header, c.width) <= most:
                continue
            wanted = next(w for w in range(c.width, len(c.header) + 1) if _lines_at(c.header, w) <= most)
            if _table_width(columns, range(len(columns))) + wanted - c.width <= limit:
                c.set_width(wanted)


def _key_positions(columns: list[_Column], keys_given: int | None = None) -> list[int]:
    """Positions of the leading text columns (at most :data:`MAX_KEY_COLUMNS`): the row's name;
    ``keys_given``: that many leading columns name the row whatever they hold (a rank, a worker count)."""
    if keys_given is not None:
        return list(range(min(keys_given, len(columns))))
    keys: list[int] = []
    for c in columns[:MAX_KEY_COLUMNS]:
        if c.numeric:
            break
        keys.append(len(keys))
    return keys


def _blocks(columns: list[_Column], limit: int, keys_given: int | None = None) -> list[list[int]]:
    """Column positions of each printed block, so that every block fits ``limit`` characters.

    If all columns fit (:func:`_table_width`), one block; otherwise the leading text columns (the
    row's name, at most :data:`MAX_KEY_COLUMNS`, together at most 60% of the width) repeat in every
    block and the other columns are dealt out in order, as many per block as fit (at least one).
    """
    if _table_width(columns, range(len(columns))) <= limit:
        return [list(range(len(columns)))]
    keys = _key_positions(columns, keys_given)
    blocks: list[list[int]] = []
    current = list(keys)
    for position in range(len(keys), len(columns)):
        if len(current) > len(keys) and _table_width(columns, [*current, position]) > limit:
            blocks.append(current)
            current = list(keys)
        current.append(position)
    blocks.append(current)
    return blocks


def _fit(columns: list[_Column], limit: int, keys_given: int | None = None) -> None:
    """Give each column its width: headers on one line where the table then fits ``limit``; else
    each column at its narrowest (headers broken between words, the room left spent on headers of
    fewer lines: :func:`_widen_headers`); if that is still too wide, the row's name columns
    narrowed, folding, to at most 60% of ``limit`` together (8 characters each at least) — they
    repeat in every block of a table still too wide (where they take more than that)."""
    for c in columns:
        c.set_width(max(c.narrowest(), len(c.header)))
    if _table_width(columns, range(len(columns))) <= limit:
        return
    for c in columns:
        c.set_width(c.narrowest())
    if _table_width(columns, range(len(columns))) <= limit:
        _widen_headers(columns, limit)
        return
    keys = _key_positions(columns, keys_given)
    budget = limit * 3 // 5
    if keys and _table_width(columns, keys) > budget:
        cap = max(8, budget // len(keys) - 2)
        for k in keys:
            if columns[k].width > cap:
                columns[k].set_width(max(cap, _longest_word(columns[k].header)))
    # a text column beside the row's name folds to the room left in its block (a block holds at least one column)
    room = limit - _table_width(columns, keys) - 2 if keys else limit
    for position, c in enumerate(columns):
        if position not in keys and not c.numeric and c.width > room >= 8:
            c.set_width(max(room, _longest_word(c.header)))


def _console(width: int | None, file):
    from rich.console import Console

    return Console(markup=False, highlight=False, emoji=False, width=width, file=file or sys.stdout)


def _render_one_row(columns: list[_Column], console, title: str | None) -> None:
    """A one-row result as a key/value table: one line per field, the value beside its header."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, show_lines=False, padding=PADDING)
    table.add_column(Text("field"), no_wrap=True)
    table.add_column(Text("value"), overflow="fold")
    for c in columns:
        table.add_row(Text(c.header), Text(c.cells[0]))  # Text: user data is never parsed as markup
    if title is not None:
        console.print(Text(title))
    console.print(table)


def render_table(frame, *, title: str | None = None, width: int | None = None, file=None, keys: int | None = None,
                 wide: bool = False) -> None:
    """Print ``frame`` as rich tables: markup off, headers in words (:mod:`densing.tables`), numbers
    by :mod:`densing.numbers` on one line, text columns fold.

    Unless ``wide``, a column with nothing in it is left out. A single row prints as a key/value
    table (one line per field). Otherwise the output fits the terminal's width (``width`` overrides
    it; 80 when the output is not a terminal and ``COLUMNS`` is unset): headers break between words,
    never inside one; text columns fold down to ``MIN_TEXT_WIDTH`` characters; and when the columns
    still do not fit, the table is printed in blocks of columns, each repeating the row's name (see
    :func:`_blocks`). A number is never broken across lines; only a single number or name wider
    than the terminal makes a line longer than it.
    """
    from rich import box
    from rich.table import Table
    from rich.text import Text

    console = _console(width, file)
    columns = columns_of(frame, wide=wide)
    if len(frame) == 1 and len(columns) > 2:
        _render_one_row(columns, console, title)
        return
    _fit(columns, console.width, keys)
    blocks = _blocks(columns, console.width, keys)
    for number, block in enumerate(blocks):
        heading, caption = title, None
        if len(blocks) > 1:  # say that the table goes on, and where the one-line-a-row forms are
            if number:
                heading = f"{title}, continued ({number + 1} of {len(blocks)})" if title else f"continued ({number + 1} of {len(blocks)})"
            else:
                caption = f"{len(blocks)} blocks of columns; --format csv or json: one line a row"
        table = Table(
            caption=None if caption is None else Text(caption),
            box=box.SIMPLE_HEAD, show_edge=False, show_lines=False, caption_justify="left", padding=PADDING,
        )
        for c in block:
            column = columns[c]
            if column.numeric:  # numbers keep their full width: the table may fold text, never a number
                table.add_column(Text(column.lines), justify="right", no_wrap=True, min_width=column.width)
            else:
                table.add_column(Text(column.lines), overflow="fold")
        needed = _table_width(columns, block)
        for row in range(len(frame)):
            table.add_row(*(Text(columns[c].cells[row]) for c in block))  # Text: user data is never parsed as markup
        if needed > console.width:  # one column wider than the terminal: grow rather than break it
            console.width = needed
        if number:
            console.print()
        if heading is not None:  # above the table at the terminal's width, not folded to the table's
            console.print(Text(heading))
        console.print(table)


def print_text(text: str, *, file=None) -> None:
    """Print prose (a headline, a note) folded at word boundaries to the terminal's width (80 when
    the output is not a terminal), with markup off so names print literally."""
    from rich.console import Console
    from rich.text import Text

    console = Console(markup=False, highlight=False, emoji=False, file=file or sys.stdout)
    for paragraph in str(text).split("\n"):
        console.print(Text(paragraph))


def _write_json(frame, **_) -> None:
    sys.stdout.write(to_json(frame) + "\n")


def _write_csv(frame, **_) -> None:
    sys.stdout.write(to_csv(frame))


def _write_table(frame, *, title=None, keys=None, wide=False) -> None:
    render_table(frame, title=title, keys=keys, wide=wide)


#: The output formats, by name: each a writer ``(frame, *, title, keys, wide)`` of stdout (a
#: :class:`densing.registry.Registry`; ``--format`` takes these names).
OUTPUTS: Registry = Registry("--format", [(Format.table.value, _write_table), (Format.json.value, _write_json),
                                          (Format.csv.value, _write_csv)],
                             check=lambda registry, name, write: check_callable(registry, name, "writer", write, 1))


def print_frame(frame, fmt: Format | str = Format.table, *, title: str | None = None, keys: int | None = None,
                wide: bool = False) -> None:
    """Print ``frame`` to stdout in ``fmt`` (table|json|csv: :data:`OUTPUTS`); the title is shown with tables only.

    ``keys``: how many leading columns name a row (repeated in every block of a wide table); by
    default the leading text columns. ``wide``: a table keeps its columns with nothing in them.
    CSV and JSON keep the field names and the raw values whatever ``wide`` says."""
    OUTPUTS.get(fmt.value if isinstance(fmt, Format) else fmt)(frame, title=title, keys=keys, wide=wide)


def print_json(value) -> None:
    """Print an already JSON-able value (numpy scalars allowed), indented: a table command's row objects computed
    without pandas (``overlap analyze``'s fast path). Anything else goes through :func:`print_frame` or
    :func:`print_document`."""
    import orjson

    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode() + "\n")


def print_progress(message: str) -> None:
    """Say on stderr what a long step is doing — only when stderr is a terminal, so that a failing
    command still leaves exactly one line (its error) on a captured stderr."""
    stream = sys.stderr
    if getattr(stream, "isatty", lambda: False)():
        print(message, file=stream, flush=True)
