"""The one output layer of the command line: a DataFrame as a rich table, JSON or CSV.

Every command renders through :func:`print_frame`, so all of them follow the same rules:

- ``table``: a rich table with markup and highlighting off, so model names such as
  ``org/[/x]model`` print literally; numbers are ``{:.4g}`` and never wrap (text columns fold);
  a missing value is ``—``, an infinite one ``∞``.
- ``json``: a list of row objects, indented; NaN and infinity become ``null`` (a censored effective
  size N̂ = +inf is therefore ``null`` with its reason in the ``censored`` field); dates are
  ``YYYY-MM-DD``.
- ``csv``: one header row, dates as ``YYYY-MM-DD``, no index.

pandas, numpy and orjson are imported inside the functions, so importing this module (as every
command module does) keeps ``densing --help`` quick.
"""
from __future__ import annotations

import math
import sys
from datetime import date, datetime
from enum import Enum

from densing.numbers import format_number


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
    import orjson

    return orjson.dumps(records(frame), option=orjson.OPT_INDENT_2).decode()


def to_csv(frame) -> str:
    from densing.io import frame_to_csv

    return frame_to_csv(frame)


def _is_number(value) -> bool:
    import numpy as np

    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _cell(value) -> str:
    if _is_number(value) and math.isinf(float(value)):
        return format_number(value)
    value = _plain(value)
    if value is None or isinstance(value, float):
        return format_number(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


#: Text columns fold down to this many characters, no further; numbers never fold.
MIN_TEXT_WIDTH = 32
#: At most this many leading text columns (the row's name: model, benchmark) repeat in each block.
MAX_KEY_COLUMNS = 2


def header_lines(name: str, width: int) -> str:
    """``name`` broken after its underscores into lines of at most ``width`` characters where it
    can be (``density_ci_low`` at width 8: ``density_`` / ``ci_low``): a column header need not be
    wider than its numbers, and each line ends where the name continues."""
    pieces = [p + "_" for p in name.split("_")[:-1]] + [name.split("_")[-1]]
    lines = [""]
    for piece in pieces:
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(lines)


def _column_widths(frame, cells: list[list[str]]) -> list[tuple[bool, int, str]]:
    """Per column: (numeric, narrowest width it may take, header text)."""
    out = []
    for position, column in enumerate(frame.columns):
        values = frame[column]
        widest_cell = max([1, *(len(row[position]) for row in cells)])
        numeric = bool(len(values)) and bool(values.map(lambda v: _is_number(v) or _plain(v) is None).all())
        name = str(column)
        smallest = widest_cell if numeric else min(widest_cell, MIN_TEXT_WIDTH)
        header = header_lines(name, max(smallest, max(len(p) + 1 for p in name.split("_"))))
        smallest = max(smallest, *(len(line) for line in header.split("\n")))
        out.append((numeric, smallest, header))
    return out


def _key_positions(widths: list[tuple[bool, int, str]], keys_given: int | None = None) -> list[int]:
    """Positions of the leading text columns (at most :data:`MAX_KEY_COLUMNS`): the row's name;
    ``keys_given``: that many leading columns name the row whatever they hold (a rank, a worker count)."""
    if keys_given is not None:
        return list(range(min(keys_given, len(widths))))
    keys: list[int] = []
    for numeric, _, _ in widths[:MAX_KEY_COLUMNS]:
        if numeric:
            break
        keys.append(len(keys))
    return keys


def _table_width(widths: list[tuple[bool, int, str]], positions) -> int:
    """Characters a ``box.SIMPLE_HEAD`` table without edges takes for these columns: Σ (width + 3) − 1."""
    return sum(widths[p][1] + 3 for p in positions) - 1


def _blocks(widths: list[tuple[bool, int, str]], limit: int, keys_given: int | None = None) -> list[list[int]]:
    """Column positions of each printed block, so that every block fits ``limit`` characters.

    If all columns fit at their narrowest (:func:`_table_width`), one block; otherwise the leading text columns (the row's name, at most
    :data:`MAX_KEY_COLUMNS`, together at most 60% of the width) repeat in every block and the
    other columns are dealt out in order, as many per block as fit (at least one).
    """
    if _table_width(widths, range(len(widths))) <= limit:
        return [list(range(len(widths)))]
    keys = _key_positions(widths, keys_given)
    blocks: list[list[int]] = []
    current = list(keys)
    for position in range(len(keys), len(widths)):
        if len(current) > len(keys) and _table_width(widths, [*current, position]) > limit:
            blocks.append(current)
            current = list(keys)
        current.append(position)
    blocks.append(current)
    return blocks


def _key_widths(widths: list[tuple[bool, int, str]], limit: int, keys_given: int | None = None) -> list[tuple[bool, int, str]]:
    """``widths`` with the leading text columns (the row's name) narrowed, folding, so that
    together they take at most 60% of ``limit`` (8 characters each at least): they repeat in
    every block of a wide table."""
    keys = _key_positions(widths, keys_given)
    if not keys:
        return widths
    cap = max(8, (limit * 3 // 5) // len(keys) - 3)
    out = list(widths)
    for k in keys:
        numeric, smallest, header = widths[k]
        if smallest > cap:
            out[k] = (numeric, cap, header_lines(header.replace("\n", ""), cap))
    return out


def render_table(frame, *, title: str | None = None, width: int | None = None, file=None, keys: int | None = None) -> None:
    """Print ``frame`` as rich tables: markup off, numbers on one line, text columns fold.

    The output fits the terminal's width (``width`` overrides it; 80 when the output is not a
    terminal and ``COLUMNS`` is unset): text columns fold down to ``MIN_TEXT_WIDTH`` characters,
    and when the columns still do not fit, the table is printed in blocks of columns, each
    repeating the row's name (see :func:`_blocks`). A number is never broken across lines; only a
    single number or name wider than the terminal makes a line longer than it.
    """
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(markup=False, highlight=False, emoji=False, width=width, file=file or sys.stdout)
    cells = [[_cell(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    widths = _column_widths(frame, cells)
    if _table_width(widths, range(len(widths))) > console.width:
        widths = _key_widths(widths, console.width, keys)
    blocks = _blocks(widths, console.width, keys)
    columns = list(frame.columns)
    for number, block in enumerate(blocks):
        heading, caption = title, None
        if len(blocks) > 1:  # say that the table goes on, and where the one-line-a-row forms are
            if number:
                heading = f"{title}, continued ({number + 1} of {len(blocks)})" if title else f"continued ({number + 1} of {len(blocks)})"
            else:
                caption = f"{len(blocks)} blocks of columns; --format csv or json: one line a row"
        table = Table(
            caption=None if caption is None else Text(caption),
            box=box.SIMPLE_HEAD, show_edge=False, show_lines=False, caption_justify="left",
        )
        for c in block:
            numeric, smallest, header = widths[c]
            if numeric:  # numbers keep their full width: the table may fold text, never a number
                table.add_column(Text(header), justify="right", no_wrap=True, min_width=smallest)
            else:
                table.add_column(Text(header), overflow="fold", min_width=smallest)
        needed = _table_width(widths, block)
        for row in cells:
            table.add_row(*(Text(row[c]) for c in block))  # Text: user data is never parsed as markup
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


def print_frame(frame, fmt: Format | str = Format.table, *, title: str | None = None, keys: int | None = None) -> None:
    """Print ``frame`` to stdout in ``fmt`` (table|json|csv); the title is shown with tables only.

    ``keys``: how many leading columns name a row (repeated in every block of a wide table); by
    default the leading text columns."""
    fmt = Format(fmt)
    if fmt is Format.json:
        sys.stdout.write(to_json(frame) + "\n")
    elif fmt is Format.csv:
        sys.stdout.write(to_csv(frame))
    else:
        render_table(frame, title=title, keys=keys)


def print_json(value) -> None:
    """Print any JSON-able value (numpy scalars allowed), indented."""
    import orjson

    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode() + "\n")


def print_progress(message: str) -> None:
    """Say on stderr what a long step is doing — only when stderr is a terminal, so that a failing
    command still leaves exactly one line (its error) on a captured stderr."""
    stream = sys.stderr
    if getattr(stream, "isatty", lambda: False)():
        print(message, file=stream, flush=True)
