"""One screen: what a command prints by default at an 80×40 terminal — the answer first, one compact table, the
notes counted, and a last line that repeats the answer; everything else behind ``--detail`` (and in ``--format
json|csv``, which never change).

The pieces every one-screen command shares:

- :func:`short_statuses`: a column of statuses ``"state: reason; reason"`` as the state with numbered reasons
  (``not measured [1,2]``) and the reasons once each below the table, so a status never folds into a paragraph;
- :func:`counted`: repeated notes as one line that says how many and where to read them;
- :func:`closing`: the last line, one sentence kept within the terminal's width (it drops its trailing clauses
  rather than fold, so the last line always holds the answer);
- :func:`browser_lines`: where a written page is and how to open it.
"""
from __future__ import annotations

import math
from pathlib import Path

#: A row's number, interval and status: kept beside its name in one block at any terminal width.
ROW_TOGETHER = ("months", "ci_low", "ci_high", "status")
#: The lines a default output may take (the terminal the one-screen layout is made for: 80 columns, 40 lines).
SCREEN_LINES = 40
#: ``densing density``'s rows on one screen (the densest; ``--detail``: every row).
DENSITY_ROWS = 25
#: What ``--detail`` adds, in the options' help.
DETAIL_HELP = "Print everything: the explanation, every table and every note (the default fits one 80×40 screen)."


def terminal_width() -> int:
    """The width :func:`densing.cli.output.print_text` folds at (``COLUMNS``; 80 when the output is not a terminal)."""
    from rich.console import Console

    return Console(file=None).width


def state_of(status: str) -> str:
    """A status's state, the words before its first ``:`` (``"not measured: …"`` → ``"not measured"``)."""
    return str(status).split(":", 1)[0].strip()


def short_statuses(statuses) -> tuple[list[str], list[str]]:
    """Each status ``"state: reason; reason"`` as ``"state [1,2]"``, the reasons numbered in order of first use →
    (the short cells, the reasons' lines ``"[1] reason"``). A status without reasons is kept as it is."""
    reasons: dict[str, int] = {}
    cells = []
    for status in statuses:
        text = "" if status is None or (isinstance(status, float) and math.isnan(status)) else str(status)
        state, _, why = text.partition(":")
        numbers = []
        for reason in (r.strip() for r in why.split(";")):
            if reason:
                numbers.append(reasons.setdefault(reason, len(reasons) + 1))
        cells.append(f"{state.strip()} [{','.join(map(str, numbers))}]" if numbers else text)
    return cells, [f"[{n}] {reason}" for reason, n in reasons.items()]


def counted(lines: list[str], what: str, where: str) -> str | None:
    """``lines`` (notes, warnings) as one line: ``"3 notes on order breaks: --detail"`` (None when there are none)."""
    if not lines:
        return None
    return f"{len(lines)} {what}: {where}"


def closing(clauses: list[str], width: int | None = None) -> str:
    """The last line: ``clauses`` joined by ``"; "`` and ended with a full stop, the trailing clauses dropped until it
    fits ``width`` (the first, the answer, is always kept)."""
    width = terminal_width() if width is None else width
    kept = [c for c in clauses if c]
    while len(kept) > 1 and len("; ".join(kept)) + 1 > width:
        kept.pop()
    return "; ".join(kept) + "."


def months_phrase(months: float, low: float, high: float) -> str:
    """``3.65 months (95% CI 2.71–127)`` by :func:`densing.numbers.format_number` (``∞`` for an open end)."""
    from densing.numbers import format_number

    def one(value: float) -> str:
        return "∞" if value == math.inf else format_number(value)

    if not math.isfinite(months):
        return "no estimate"
    return f"{one(months)} months (95% CI {one(low)}–{one(high)})"


def browser_lines(path: Path) -> list[str]:
    """Where a written HTML page is and how to open it: its size, then its ``file://`` address (the last line)."""
    size = path.stat().st_size
    shown = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} kB"
    return [f"wrote {path} ({shown}, self-contained: no network needed)",
            f"open it in a browser: {path.resolve().as_uri()}"]
