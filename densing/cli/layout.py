"""How a table is laid out on a terminal of a given width (:func:`plan`; the rule in docs/cli_reference.md): each
column's width, the columns of each block, the names shortened. Then the pieces every one-screen command shares (the
answer first, one compact table, the notes counted, a last line that repeats the answer): :func:`counted`,
:func:`closing`, :func:`browser_lines`.
"""

from __future__ import annotations

from dataclasses import dataclass, field as dataclass_field
from pathlib import Path

from densing.invocation import CommandLine

#: Text columns fold down to this many characters, no further; numbers never fold.
MIN_TEXT_WIDTH = 32
#: A text column that must share the first block (a status) folds down to this many characters.
MIN_TOGETHER_TEXT = 16
#: A name is shortened to no fewer characters than this.
MIN_NAME_WIDTH = 10
#: At most this many leading text columns (the row's name: model, benchmark) repeat in each block.
MAX_KEY_COLUMNS = 2


def header_lines(text: str, width: int) -> str:
    """``text`` broken between words into lines of at most ``width`` characters (a longer word has its own line)."""
    lines = [""]
    for word in text.split(" "):
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append("")
        lines[-1] = f"{lines[-1]} {word}" if lines[-1] else word
    return "\n".join(lines)


def _longest_word(text: str) -> int:
    return max(len(w) for w in text.split(" "))


@dataclass
class Column:
    """One column as printed: its field, header in words, cells as text; a number is right-aligned and never broken,
    a name (``identifier``) never broken but shortened, other text folds."""

    field: str
    header: str
    cells: list[str]
    numeric: bool
    identifier: bool = False
    width: int = 0  # the width it is given
    lines: str = ""  # the header as printed, broken between words to fit ``width``
    shown: list[str] = dataclass_field(default_factory=list)  # the cells as printed (a name shortened to fit)

    def widest_cell(self) -> int:
        return max([1, *(len(c) for c in self.cells)])

    def least_header(self) -> int:
        return _longest_word(self.header)

    def narrowest(self) -> int:
        """The least width without shortening (text folds down to :data:`MIN_TEXT_WIDTH`)."""
        whole = self.numeric or self.identifier
        return max(self.widest_cell() if whole else min(self.widest_cell(), MIN_TEXT_WIDTH), self.least_header())

    def set_width(self, width: int) -> None:
        self.width = width
        self.lines = header_lines(self.header, width)


def table_width(columns: list[Column], positions) -> int:
    """Characters an edgeless table with one space of padding takes for these columns: Σ (width + 2) − 1."""
    return sum(columns[p].width + 2 for p in positions) - 1


def _widen_headers(columns: list[Column], limit: int) -> None:
    """Spend the room left within ``limit`` on headers: each column as wide as puts its header on two lines, then on
    one, where the table still fits."""
    for most in (2, 1):
        for c in columns:
            if header_lines(c.header, c.width).count("\n") < most:
                continue
            wanted = next(w for w in range(c.width, len(c.header) + 1) if header_lines(c.header, w).count("\n") < most)
            if table_width(columns, range(len(columns))) + wanted - c.width <= limit:
                c.set_width(wanted)


def shorten(cells: list[str], width: int) -> tuple[list[str], dict[str, str]]:
    """Each cell longer than ``width`` cut to it, its middle as ``…`` (``Qwen/Qwe…1.5-110B``; numbered, ``…2``, where
    two names would read alike) → (the cells as shown, {shortened: full name})."""
    shown, key = [], {}
    head = (width - 1) * 2 // 5
    for cell in cells:
        if len(cell) <= width:
            shown.append(cell)
            continue
        short, number = f"{cell[:head]}…{cell[len(cell) - (width - 1 - head) :]}", 1
        while key.get(short, cell) != cell:
            number += 1
            short = f"{cell[: width - 1 - len(str(number))]}…{number}"
        key[short] = cell
        shown.append(short)
    return shown, key


def _shrink_names(columns: list[Column], names: list[Column], excess) -> None:
    """Shorten the widest of ``names`` step by step (none below :data:`MIN_NAME_WIDTH` or its header's longest word)
    while ``excess()`` is above 0."""
    while excess() > 0:
        shrinkable = [c for c in names if c.width > max(MIN_NAME_WIDTH, c.least_header())]
        if not shrinkable:
            return
        widest = max(shrinkable, key=lambda c: c.width)
        floor = max(MIN_NAME_WIDTH, widest.least_header(), *(c.width for c in names if c is not widest))
        widest.set_width(max(floor, widest.width - excess()) if floor < widest.width else widest.width - 1)


def _fit_first_block(columns: list[Column], first: list[int], keys: list[int], limit: int) -> None:
    """Widths for the first block's columns so that it fits ``limit``: text folds at :data:`MIN_TOGETHER_TEXT`, names
    are shortened until the block fits and the keys leave room for a later block's widest number, then the room left
    goes to the folding text."""
    for c in [columns[p] for p in first]:
        whole = c.numeric or c.identifier
        c.set_width(c.narrowest() if whole else max(min(c.widest_cell(), MIN_TOGETHER_TEXT), c.least_header()))
    _shrink_names(
        columns, [columns[p] for p in first if columns[p].identifier], lambda: table_width(columns, first) - limit
    )
    for c in [columns[p] for p in first]:  # still too wide: its text folds down to its longest word
        if table_width(columns, first) > limit and not (c.numeric or c.identifier):
            c.set_width(max(c.least_header(), *(_longest_word(cell) for cell in c.cells)))
    later = max(
        (c.narrowest() if c.numeric else MIN_NAME_WIDTH for p, c in enumerate(columns) if p not in first), default=0
    )
    _shrink_names(
        columns,
        [columns[p] for p in keys if columns[p].identifier],
        lambda: table_width(columns, keys) + later + 2 - limit,
    )
    for c in [columns[p] for p in first]:
        if not (c.numeric or c.identifier):
            room = limit - table_width(columns, first)
            c.set_width(min(c.widest_cell(), c.width + max(room, 0)) if room > 0 else c.width)


def _deal(columns: list[Column], first: list[int], keys: list[int], limit: int) -> list[list[int]]:
    """The blocks: ``first``, then every other column in order into the current block's room, else a new block that
    repeats the keys; a text column as wide as its cells up to the room."""
    room = limit - table_width(columns, keys) - 2 if keys else limit
    blocks, current = [], list(first)
    for p in [p for p in range(len(columns)) if p not in first]:
        c = columns[p]
        if c.identifier and c.width > room >= MIN_NAME_WIDTH:
            c.set_width(max(room, c.least_header()))
        elif not (c.numeric or c.identifier) and room >= MIN_NAME_WIDTH:  # text: as wide as its cells, up to the room
            c.set_width(max(min(c.widest_cell(), room), c.least_header()))
        if len(current) > len(keys) and table_width(columns, [*current, p]) > limit:
            blocks.append(current)
            current = list(keys)
        current.append(p)
    blocks.append(current)
    return blocks


def plan(
    columns: list[Column], limit: int, keys_given: int | None = None, together=(), identifiers=()
) -> tuple[list[list[int]], dict[str, str]]:
    """Lay ``columns`` out within ``limit`` characters (module docstring) → (the column positions of each block,
    {shortened name: full name} for the key below the table). Sets each column's ``width``, ``lines`` and ``shown``."""
    leading = columns[:MAX_KEY_COLUMNS]  # the row's name: the first keys_given columns, else the leading text ones
    keys = list(
        range(
            min(keys_given, len(columns))
            if keys_given is not None
            else next((i for i, c in enumerate(leading) if c.numeric), len(leading))
        )
    )
    for position, c in enumerate(columns):
        c.identifier = (position in keys and not c.numeric) or c.field in identifiers
        c.shown = list(c.cells)
        c.set_width(max(c.narrowest(), len(c.header)))
    everything = list(range(len(columns)))
    if table_width(columns, everything) <= limit:
        return [everything], {}
    for c in columns:
        c.set_width(c.narrowest())
    if table_width(columns, everything) <= limit:
        _widen_headers(columns, limit)
        return [everything], {}
    first = [*keys, *(p for p, c in enumerate(columns) if c.field in together and p not in keys)]
    if len(first) == len(keys) and len(first) < len(columns):  # nothing named: the first column after the keys
        first.append(len(keys))
    _fit_first_block(columns, first, keys, limit)
    while table_width(columns, first) > limit:  # names and numbers at their least: a folding text column moves on
        text = [p for p in first if p not in keys and not (columns[p].numeric or columns[p].identifier)]
        if not text:
            break
        first.remove(text[-1])
    blocks = _deal(columns, first, keys, limit)
    key: dict[str, str] = {}
    for c in columns:
        if c.identifier and c.width < c.widest_cell():
            c.shown, shortened = shorten(c.cells, c.width)
            key.update(shortened)
    return blocks, key


# ------------------------------------------ One screen (module docstring) -------------------------------------------

#: A row's number, interval and status: kept beside its name in one block at any terminal width.
ROW_TOGETHER = ("months", "ci_low", "ci_high", "status")
#: ``densing density``'s rows on one screen (the densest; ``--detail``: every row).
DENSITY_ROWS = 25
#: What ``--detail`` adds, in the options' help.
DETAIL_HELP = "Print everything: the explanation, every table and every note (the default fits one 80×40 screen)."


def counted(lines: list[str], what: str, where: str) -> str | None:
    """``lines`` as one line: ``"3 notes on order breaks: --detail"`` (None when there are none)."""
    return f"{len(lines)} {what}: {where}" if lines else None


def closing(clauses: list[str], width: int | None = None) -> str:
    """The last line (or any one line of clauses): ``clauses`` joined by ``"; "`` with a full stop, trailing clauses
    dropped until it fits ``width`` (default: the terminal's; the first clause, the answer, is always kept)."""
    if width is None:
        from rich.console import Console

        width = Console(file=None).width
    kept = [c for c in clauses if c]
    while len(kept) > 1 and len("; ".join(kept)) + 1 > width:
        kept.pop()
    return "; ".join(kept) + "."


def browser_lines(path: Path) -> list[str]:
    """Where a written HTML page is and how to open it: its size, then its ``file://`` address (the last line)."""
    size = path.stat().st_size
    shown = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} kB"
    return [
        f"wrote {path} ({shown}, self-contained: no network needed)",
        f"open it in a browser: {path.resolve().as_uri()}",
    ]


def command_words(command: str, options: dict) -> CommandLine:
    """The command line that makes a written page again, for its footer (a flag where its value is True), as values
    (:class:`densing.invocation.CommandLine`)."""
    return CommandLine.of(command, options)
