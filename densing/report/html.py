"""One self-contained HTML page: plotly.js inline (opens offline), figures, escaped tables. Every user-supplied string
passes through ``html.escape`` before it reaches the page, in tables and in figure hover text alike.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from plotly.offline import get_plotlyjs

from densing.display import frame_columns
from densing.numbers import NumberText, format_months
from densing.present.words import record_as_range, record_interval, record_mark, state_words
from densing.states import State, stated_state

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:1.6rem;margin:0 0 4px}h2{font-size:1.2rem;margin:32px 0 8px;border-bottom:1px solid #dde;padding-bottom:4px}
.sub{color:#5a6275;margin:0 0 16px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{background:#fff;border:1px solid #dde;border-radius:8px;padding:12px 16px;min-width:150px}
.card .v{font-size:1.5rem;font-weight:600}.card .v.long{font-size:1rem}.card.lead .v{font-size:2.2rem}.card.lead{border-color:#99a}.card .k{color:#5a6275;font-size:.85rem;max-width:40em}
.table{max-width:100%;overflow-x:auto;margin:0 0 8px}
table{border-collapse:collapse;font-size:.82rem;background:#fff;width:100%}
th,td{border:1px solid #e3e6ee;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}
th{background:#f0f2f7}
.scroll th{position:sticky;top:0;z-index:1}
td:first-child,th:first-child{white-space:nowrap;position:sticky;left:0;background:#fff}
th:first-child{background:#f0f2f7;z-index:2}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.n.r{white-space:normal}
td.t{min-width:11em}
@media (max-width:1100px){main{padding:16px}table{font-size:.74rem}th,td{padding:3px 4px}td.t{min-width:7em}td:first-child,th:first-child{white-space:normal;min-width:6em}th{overflow-wrap:normal}th.w{overflow-wrap:anywhere}}
.scroll{max-height:520px;overflow:auto;border:1px solid #dde}
.fig{background:#fff;border:1px solid #dde;border-radius:8px;margin:12px 0;padding:4px}
ul.caveats li{margin:4px 0}
.caption{color:#5a6275;font-size:.85rem;margin:4px 8px 8px}
.headline-words{font-size:1.05rem;font-weight:600}
footer{color:#5a6275;font-size:.8rem;margin-top:40px}details.appendix>summary{cursor:pointer}details.appendix>summary h2{display:inline}footer code{font-size:.8rem}
"""


@dataclass
class Section:
    """A titled part of the report: intro text (plain, escaped), figures and tables (HTML)."""

    title: str
    intro: str = ""
    parts: list[str] = field(default_factory=list)
    collapsed: bool = False  # an appendix: shown closed, opened by its title


def esc(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


#: A text cell longer than this gets a minimum width and wraps (class ``t``) instead of squeezing to a word a line.
LONG_TEXT = 40
#: A header word longer than this may break inside itself in a narrow window (shorter ones break between words only).
LONG_HEADER_WORD = 6
#: A card value longer than this is set in a smaller font.
LONG_CARD = 32


def table_html(frame: pd.DataFrame, *, scroll: bool = True) -> str:
    """An HTML table of ``frame`` in a horizontally scrollable box (``scroll``: also at most 520 px high): headers
    and cells by :mod:`densing.display`, every cell escaped, numbers right-aligned, long text wraps."""
    shown = frame_columns(frame)
    wide = ' class="w"'  # a header with a word longer than LONG_HEADER_WORD
    head = "".join(
        f"<th{wide if max(map(len, str(header).split()), default=0) > LONG_HEADER_WORD else ''}>{esc(header)}</th>"
        for header, _ in shown
    )
    rows = []
    for i, record in enumerate(frame.itertuples(index=False, name=None)):
        cells = []
        for (_, texts), value in zip(shown, record):
            cells.append(f"<td{cell_class(value)}>{esc(texts[i])}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    return f'<div class="table{" scroll" if scroll else ""}">{table}</div>'


def cell_class(value) -> str:
    """A table cell's class attribute: ``n`` for a number (``n r`` for a number given as text, right-aligned as one),
    ``t`` for a long text (wrapped), none otherwise."""
    is_number = isinstance(value, (int, float, np.integer, np.floating, NumberText))
    if is_number and not isinstance(value, (bool, np.bool_)):
        if isinstance(value, NumberText):
            return ' class="n r"'
        return ' class="n"'
    if isinstance(value, str) and len(value) > LONG_TEXT:
        return ' class="t"'
    return ""


def legend_paragraphs(legend: str, after: str = "") -> list[str]:
    """A legend as the one paragraph under a table (``after``, already escaped, ends it before the full stop); none
    where there is no legend."""
    if not legend:
        return []
    return [f'<p class="sub">{esc(legend)}{after}.</p>']


def figure_html(figure, div_id: str, caption: str = "") -> str:
    """A plotly figure as a <div> + script, without plotly.js (the page includes it once), with its own caption."""
    body = figure.to_html(
        full_html=False, include_plotlyjs=False, div_id=div_id, config={"displaylogo": False, "responsive": True}
    )
    note = f'<p class="caption">{esc(caption)}</p>' if caption else ""
    return f'<div class="fig">{body}{note}</div>'


def cards_html(cards: list[tuple[str, str]], *, lead: bool = False) -> str:
    """A row of cards (value over its key); ``lead``: the first card is the page's largest number."""
    return (
        '<div class="cards">'
        + "".join(
            f'<div class="card{" lead" if lead and i == 0 else ""}"><div class="v{" long" if len(v) > LONG_CARD else ""}">'
            f'{esc(v)}</div><div class="k">{esc(k)}</div></div>'
            for i, (k, v) in enumerate(cards)
        )
        + "</div>"
    )


def page(title: str, subtitle: str, sections: list[Section], footer: str) -> str:
    """The whole page, plotly.js inlined so that it opens with no network; ``footer`` is HTML (escape its text)."""
    body = []
    for section in sections:
        inner = (f'<p class="sub">{esc(section.intro)}</p>' if section.intro else "") + "".join(section.parts)
        head = f"<h2>{esc(section.title)}</h2>"
        body.append(
            f'<details class="appendix"><summary>{head}</summary>{inner}</details>'
            if section.collapsed
            else head + inner
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{esc(title)}</title>'
        f'<style>{_STYLE}</style><script type="text/javascript">{get_plotlyjs()}</script></head>'
        f'<body><main><h1>{esc(title)}</h1><p class="sub">{esc(subtitle)}</p>{"".join(body)}'
        f"<footer>{footer}</footer></main></body></html>\n"
    )


# -- a stored record's rows (months and 95% intervals as JSON writes them) --------------------------------------


def months_words(months, low, high) -> str:
    """'months [low–high]' of a record (JSON writes an infinite doubling time, no trend, as null): '∞' for null."""
    if months is None and low is None and high is None:
        return "—"  # no line was fitted

    def words(v):
        return "∞" if v is None else format_months(v)

    return f"{words(months)} [{words(low) if low is not None else '0'}–{words(high)}]"


def record_cell(row: dict | None) -> str:
    """'months [low–high]' of a stored row and its state's mark; its state's words where it has no interval."""
    if not row:
        return "—"
    months, low, high = (row.get(k) for k in ("months", "ci_low", "ci_high"))
    state = stated_state(row.get("state"), f"stored row {row.get('row', '?')!r}")
    if state is State.NOT_MEASURED or (low is None and high is None):  # no doubling time: the state's words alone
        return state_words(state)
    if low is not None and months is not None and (record_as_range(row, "low") or record_as_range(row, "high")):
        return f"{format_months(months)}{record_interval(row)}" + record_mark(state)
    return months_words(months, low, high) + record_mark(state)


def record_agreement(a: dict | None, b: dict | None) -> str:
    """Whether two rows' 95% intervals overlap, in words."""

    def ends(row):
        return (
            None
            if not row or row.get("ci_low") is None
            else (row["ci_low"] or 0.0, math.inf if row.get("ci_high") is None else row["ci_high"])
        )

    x, y = ends(a), ends(b)
    if x is None or y is None:
        return "cannot be compared (a row has no interval)"
    return "intervals overlap" if x[0] <= y[1] and y[0] <= x[1] else "intervals do not overlap"
