"""The one output layer of the command line: a DataFrame as a rich table, JSON or CSV, through :func:`print_frame`
(JSON a list of row objects) or :func:`print_document` (JSON ``{"rows": [...], sections...}``); each format's rules
are in docs/cli_reference.md. pandas, numpy and orjson are imported inside the functions (``densing --help`` stays
quick).
"""

from __future__ import annotations

import math
import re
import sys
import time
from contextlib import contextmanager
from datetime import date, datetime
from enum import Enum

from densing.cli.guard import print_json, visible
from densing.cli.layout import Column, plan, table_width
from densing.display import frame_columns, is_numeric
from densing.errors import InputError
from densing.impossible import check_params
from densing.io import frame_to_csv
from densing.numbers import MISSING, parse_count
from densing.registry import Registry, check_callable
from densing.validation import (
    BOOTSTRAP_CONSTRAINTS,
    D0_TOKENS,
    INTERVAL_DRAWS,
    MAX_DRAWS,
    MIN_INTERVAL_DRAWS,
    validate as check,
)


def command_group(help: str, **settings):
    """A typer app of densing's kind: plain help, no shell completion, Python's own tracebacks, its help when given no
    command (unless ``settings`` say otherwise)."""
    import typer

    return typer.Typer(
        help=help,
        **{"no_args_is_help": True, **settings},
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )


def count_option(text: str | None, option: str) -> float | None:
    """A count option (``--d0``, ``--min-train-tokens``, a size): parsed, with the option named in its error."""
    if text is None:
        return None
    count = parse_count(text, field=option.lstrip("-").replace("-", "_"), where=option)
    if option == "--min-train-tokens":  # a token count: no budget is above MAX_D0_TOKENS
        check({"min_train_tokens": [D0_TOKENS]}, min_train_tokens=count)
    return count


def d0_option(text: str | None) -> float | None:
    """``--d0``: a count of tokens, positive and at most ``densing.validation.MAX_D0_TOKENS`` (why: there)."""
    d0 = count_option(text, "--d0")
    check({"d0": [D0_TOKENS, None]}, d0=d0)
    return d0


def size_option(text: str | None, option: str) -> float | None:
    """A parameter count option: parsed, and plausible for a language model (unit mistakes named)."""
    count = count_option(text, option)
    return None if count is None else check_params(count, field=option.lstrip("-").replace("-", "_"), where=option)


def draws_option(n_boot: int, seed: int) -> None:
    """``--n-boot`` and ``--seed`` of a command that prints a 95% interval, checked before any work: at least
    :data:`~densing.validation.MIN_INTERVAL_DRAWS` draws, at most ``MAX_DRAWS``; a seed ≥ 0."""
    if isinstance(n_boot, int) and n_boot < MIN_INTERVAL_DRAWS:
        raise InputError(
            f"--n-boot: {n_boot} draws are too few for a 95% interval (each end needs a draw beyond it); "
            f"give at least {MIN_INTERVAL_DRAWS}"
        )
    if isinstance(n_boot, int) and n_boot > MAX_DRAWS:
        raise InputError(
            f"--n-boot: {n_boot:,} draws are above the ceiling of {MAX_DRAWS:,} (there the Monte Carlo "
            "error of an interval's end is already a few hundredths of a percentile, and beyond it the "
            "arrays of draws outgrow a workstation's memory)"
        )
    check({"n_boot": [INTERVAL_DRAWS], "seed": BOOTSTRAP_CONSTRAINTS["seed"]}, n_boot=n_boot, seed=seed)


#: The estimate of the work left is printed once the run has gone this many seconds (before, one finished part says
#: too little of the rest) ...
ESTIMATE_AFTER_S = 5.0
#: ... and only where the work left is longer than this many seconds.
LONG_WORK_S = 60.0


class _Estimate:
    """The listener :func:`announced` installs (:func:`densing.runtime.progress.listening`): at the first finished
    job past :data:`ESTIMATE_AFTER_S` seconds, the work left is estimated as the time so far over the jobs finished
    times the jobs left, and printed once on stderr where it exceeds :data:`LONG_WORK_S`."""

    def __init__(self, n_boot: int, command: str, what: str) -> None:
        self.n_boot, self.command, self.what = n_boot, command, what
        self.start = time.perf_counter()
        self.said = False

    def __call__(self, finished: int, total: int) -> None:
        if self.said or finished >= total:
            return
        elapsed = time.perf_counter() - self.start
        if elapsed < ESTIMATE_AFTER_S:
            return
        left = elapsed / finished * (total - finished)
        if left <= LONG_WORK_S:
            return
        self.said = True
        print(
            f"densing {self.command}: {self.n_boot:,} draws of {self.what} will take about {format_duration(left)} "
            f"more ({finished} of its {total} parts took {format_duration(elapsed)}); fewer draws (--n-boot, "
            f"default 600) are quicker",
            file=sys.stderr,
            flush=True,
        )


def announced(run, n_boot: int, command: str, what: str):
    """``run(n_boot)``, timed as it goes: once its jobs (:mod:`densing.runtime.executor`) show that the work left is
    longer than a minute, the estimate is printed on stderr (``command`` and ``what`` name the command and what it
    draws), from the real run's own first parts, with no extra run. The ceiling on draws is :func:`draws_option`'s."""
    from densing.runtime.progress import listening

    with listening(_Estimate(n_boot, command, what)):
        return run(n_boot)


def format_duration(seconds: float) -> str:
    """``seconds`` as people say a wait: 90 s, 4 min, 1.5 h."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


#: ``--format`` of every command that prints a table.
Format = Enum("Format", {name: name for name in ("table", "json", "csv")}, type=str)


#: ``--format``'s help, the same in every command.
FORMAT_HELP = (
    "table: words and numbers fitted to the terminal; json or csv: every field, one row a line (for files and scripts)."
)
#: ``--seed``'s help: every command that draws.
SEED_HELP = "Seed of the random draws (bootstrap, sampling): the same seed, the same numbers."


def _plain(value):
    import numpy as np
    import pandas as pd

    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()  # int, bool
    if isinstance(value, (pd.Timestamp, datetime, date)):
        return value.strftime("%Y-%m-%d")
    return value


def _json_ready(value):
    """``value`` as plain JSON: a DataFrame as its row objects, a result as its ``to_dict()``, containers element by
    element, NaN and infinity as None, dates as YYYY-MM-DD."""
    import numpy as np
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        return [{str(k): _plain(v) for k, v in row.items()} for row in value.to_dict("records")]
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
    """A command with a headline's JSON object: ``{"rows": [row objects], **sections}``, each section any JSON-able
    value (a DataFrame as its rows)."""
    if "rows" in sections:
        raise ValueError("document: 'rows' is the main table, not a section")
    return {"rows": _json_ready(rows), **{name: _json_ready(value) for name, value in sections.items()}}


def print_document(rows, /, **sections) -> None:
    """Print :func:`document` as indented JSON: the ``--format json`` of a command with a headline."""
    print_json(document(rows, **sections))


def columns_of(frame, *, wide: bool = False) -> list[Column]:
    """The columns of ``frame`` as people read them, header and cells :func:`~densing.cli.guard.visible` (a name's
    escape sequence is shown, never acted on, and the layout measures it as shown); unless ``wide``, a column with
    nothing in it is left out."""
    out = [
        Column(str(name), visible(head), [visible(cell) for cell in cells], is_numeric(frame[name].tolist()))
        for name, (head, cells) in zip(frame.columns, frame_columns(frame))
    ]
    return out if wide else [c for c in out if any(cell not in (MISSING, "") for cell in c.cells)] or out[:1]


#: Padding of a cell (top, right, bottom, left): one space after it, and the divider (two spaces between columns).
PADDING = (0, 1, 0, 0)


def _console(width: int | None, file):
    """The rich console of a table or of prose, markup off. rich decides what reaches the file: on a terminal the
    tables' styles (a bold header) as escape codes; on a pipe or a file, ``TERM=dumb``, or with ``NO_COLOR`` set to
    any non-empty value (no-color.org) plain text with no escape code at all (rich's own ``NO_COLOR`` drops colours
    but keeps bold, so there densing turns every style off)."""
    from rich.console import Console

    settings = {"markup": False, "highlight": False, "emoji": False, "width": width, "file": file or sys.stdout}
    console = Console(**settings)
    if console.no_color:
        return Console(**settings, color_system=None)
    return console


#: The end of a line after its last visible character: spaces and tabs, and the style codes (SGR) among them.
_LINE_END = re.compile(r"(?:[ \t]|\x1b\[[0-9;]*m)+$")
#: One style code (SGR: ``ESC [ … m``).
_STYLE_CODE = re.compile(r"\x1b\[[0-9;]*m")


def _without_trailing_spaces(line: str) -> str:
    """``line`` with no space or tab at its end; the style codes among them stay (a bold header cell still ends)."""
    end = _LINE_END.search(line)
    if end is None:
        return line
    return line[: end.start()] + "".join(_STYLE_CODE.findall(end.group()))


def _emit(console, *renderables, whole=()) -> None:
    """Print ``renderables`` on ``console``, then the lines ``whole`` unbroken, with no space at the end of a line.
    What they hold from user data is already :func:`~densing.cli.guard.visible` (:func:`columns_of`,
    :func:`render_table`, :func:`print_text`): every escape code written here is rich's own style."""
    with console.capture() as captured:
        for renderable in renderables:
            console.print(renderable)
        for line in whole:
            console.print(line, soft_wrap=True)
    console.file.write("\n".join(_without_trailing_spaces(line) for line in captured.get().split("\n")))
    console.file.flush()


def _table(caption: str | None = None):
    """An edgeless rich table with a rule under its header and :data:`PADDING`; ``caption`` below it, on the left."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    return Table(
        caption=None if caption is None else Text(caption),
        box=box.SIMPLE_HEAD,
        show_edge=False,
        show_lines=False,
        caption_justify="left",
        padding=PADDING,
    )


def _block_table(frame, columns: list[Column], block: list[int], caption: str | None):
    from rich.text import Text

    table = _table(caption)
    for c in block:
        column = columns[c]
        if column.numeric:  # numbers keep their full width: the table may fold text, never a number
            table.add_column(Text(column.lines), justify="right", no_wrap=True, min_width=column.width)
        elif column.identifier:  # a name is never broken: it is shortened to the column's width (layout.plan)
            table.add_column(Text(column.lines), no_wrap=True, width=column.width)
        else:
            table.add_column(Text(column.lines), overflow="fold", width=column.width)
    for row in range(len(frame)):
        table.add_row(*(Text(columns[c].shown[row]) for c in block))  # Text: user data is never parsed as markup
    return table


def render_table(
    frame,
    *,
    title: str | None = None,
    width: int | None = None,
    file=None,
    keys: int | None = None,
    wide: bool = False,
    together=(),
    identifiers=(),
) -> None:
    """Print ``frame`` as rich tables, markup off: a single row as a key/value table, else laid out at the terminal's
    ``width`` by :func:`densing.cli.layout.plan`, with a key below of the names it shortened."""
    from rich.text import Text

    console = _console(width, file)
    title = None if title is None else visible(title)  # a title may quote a name (a file, a model)
    columns = columns_of(frame, wide=wide)
    if len(frame) == 1 and len(columns) > 2:  # one row: a key/value table, the value beside its header
        table = _table()
        table.add_column(Text("field"), no_wrap=True)
        table.add_column(Text("value"), overflow="fold")
        for c in columns:
            table.add_row(Text(c.header), Text(c.cells[0]))  # Text: user data is never parsed as markup
        _emit(console, *([] if title is None else [Text(title)]), table)
        return
    blocks, key = plan(columns, console.width, keys, together, identifiers)
    terminal = console.width
    for number, block in enumerate(blocks):  # several: say that the table goes on, and where one line a row is
        heading = ", ".join(filter(None, [title, f"continued ({number + 1} of {len(blocks)})"])) if number else title
        caption = (
            f"{len(blocks)} blocks of columns; --format csv or json: one line a row"
            if len(blocks) > 1 and not number
            else None
        )
        # the heading above the table at the terminal's width, not folded to the table's
        _emit(console, *([Text("")] if number else []), *([] if heading is None else [Text(heading)]))
        console.width = max(terminal, table_width(columns, block))  # one column wider than the terminal: grow
        _emit(console, _block_table(frame, columns, block, caption))
        console.width = terminal
    lines = ["names shortened above (…), in full:"] if key else []  # the key: `short  full name` a line
    for short, full in key.items():
        lines += [f"  {short}  {full}"] if len(short) + len(full) + 4 <= terminal else [f"  {short}", f"    {full}"]
    _emit(console, whole=[Text(line) for line in lines])


def print_text(text: str) -> None:
    """Print prose folded at word boundaries to the terminal's width (80 off a terminal), markup off."""
    from rich.text import Text

    _emit(_console(None, None), *(Text(visible(paragraph)) for paragraph in str(text).split("\n")))


def print_texts(*texts) -> None:
    """:func:`print_text` of each of ``texts`` that is not None or empty."""
    for text in filter(None, texts):
        print_text(text)


def print_csv(frame) -> None:
    """``frame`` as CSV on standard output: on a terminal each character a terminal acts on (a name's escape sequence,
    a right-to-left override) written as its visible escape (:func:`~densing.cli.guard.visible`), as ``ls`` shows a
    name on a terminal; into a file or a pipe, the values as they are."""
    text = frame_to_csv(frame)
    sys.stdout.write(visible(text) if sys.stdout.isatty() else text)


#: The output formats, by name: each a writer ``(frame, *, title, keys, wide)`` of stdout (``--format``'s names).
OUTPUTS: Registry = Registry(
    "--format",
    [
        (Format.table.value, render_table),
        (Format.json.value, lambda frame, **_: print_json(_json_ready(frame))),
        (Format.csv.value, lambda frame, **_: print_csv(frame)),
    ],
    check=lambda registry, name, write: check_callable(registry, name, "writer", write, 1),
)


def print_frame(
    frame,
    fmt: Format | str = Format.table,
    *,
    title: str | None = None,
    keys: int | None = None,
    wide: bool = False,
    together=(),
    identifiers=(),
) -> None:
    """Print ``frame`` to stdout in ``fmt`` (:data:`OUTPUTS`); for a table only: the ``title``, ``keys`` (how many
    leading columns name a row), ``wide`` (keep empty columns), ``together`` (fields kept in the row name's block)
    and ``identifiers`` (text shortened, never broken): :func:`densing.cli.layout.plan`."""
    OUTPUTS.get(fmt.value if isinstance(fmt, Format) else fmt)(
        frame, title=title, keys=keys, wide=wide, together=together, identifiers=identifiers
    )


class _PlainWorking:
    """What :func:`working` shows where a spinner would be a style (``NO_COLOR``, ``TERM=dumb``): its words as a line
    on stderr once the delay is over, and each new word said after that as a line of its own: no animation, no escape
    code."""

    def __init__(self, message: str):
        import threading

        self.words = message
        self.shown = False
        self.lock = threading.Lock()

    def start(self) -> None:
        """The delay is over: the current words as a line."""
        with self.lock:
            self.shown = True
            print(self.words, file=sys.stderr, flush=True)

    def say(self, text: str) -> None:
        """New words: kept, and printed as a line once the first has been."""
        with self.lock:
            self.words = visible(text)
            if self.shown:
                print(self.words, file=sys.stderr, flush=True)


def _spinner(console, message: str):
    """A transient rich spinner on ``console`` with ``message`` and the time taken → (its start, its ``say``, its
    stop); the words are text, never markup."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = progress.add_task(message, total=None)

    def say(text: str) -> None:
        progress.update(task, description=visible(text))

    return progress.start, say, progress.stop


def _ignore(text: str) -> None:
    """``say`` off a terminal: nothing is shown."""


@contextmanager
def working(message: str, *, after: float = 0.0):
    """While the block runs, a transient spinner on stderr (a terminal only) with ``message`` and the time taken,
    shown after ``after`` seconds; yields ``say(text)``, which replaces the words. With ``NO_COLOR`` or on a dumb
    terminal the words are plain lines instead (:class:`_PlainWorking`); a name in them is shown
    :func:`~densing.cli.guard.visible`."""
    if not getattr(sys.stderr, "isatty", lambda: False)():
        yield _ignore
        return
    import threading

    from rich.console import Console

    console = Console(stderr=True)
    if console.no_color or not console.is_interactive:
        plain = _PlainWorking(visible(message))
        start, say, stop = plain.start, plain.say, None
    else:
        start, say, stop = _spinner(console, visible(message))
    timer = threading.Timer(after, start)
    timer.daemon = True
    timer.start()
    try:
        yield say
    finally:
        timer.cancel()
        timer.join()
        if stop is not None:
            stop()


def print_progress(message: str) -> None:
    """Say on stderr what a long step is doing, only on a terminal (a captured stderr keeps one error line)."""
    if getattr(sys.stderr, "isatty", lambda: False)():
        print(message, file=sys.stderr, flush=True)
