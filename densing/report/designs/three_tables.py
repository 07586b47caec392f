"""The report's section "One law from three harnesses": the pooled law of the three tables
(:func:`densing.trend.pooled_trend.pooled_trend`, ``densing trend --table all``'s measurement), computed by the report
beside its headline in a forked worker (:func:`densing.designs.three_tables.pooled.side`), laid out by :func:`render`: the three tables' points on one
chart on the common scale with the pooled line and its band, each table's offset and scale, the common-slope test,
leave one table out, leave one lab out, the late frontier's labs and the forecast verdict; below the headline, the
pooled figure corrected for its bias in planted worlds (:mod:`densing.trend.pooled_bias`), or why it is not shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from densing.constants import PAPER_JOURNAL
from densing.errors import InputError
from densing.numbers import format_months, format_number
from densing.present import pooled as words
from densing.present.findings import OUTCOME_NAMES
from densing.report.designs import SECTIONS, DesignSection, LeftOut
from densing.report.html import Section, cards_html, esc, figure_html, months_words, table_html
from densing.trend.pooled_bias import PooledCorrection, headline, looked_up
from densing.trend.pooled_trend import PooledTrend

TITLE = "One law from three harnesses"
DESIGN = "three_tables"


@dataclass(frozen=True)
class PooledSection:
    """The pooled law of the three tables (:class:`~densing.trend.pooled_trend.PooledTrend`), the paper's months and
    the pooled figure's bias correction (:func:`densing.trend.pooled_bias.looked_up`'s answer: the correction, or the
    InputError of a stale, missing or damaged record)."""

    title: ClassVar[str] = TITLE
    design: ClassVar[str] = DESIGN  # the registered design that renders it
    pooled: PooledTrend
    paper_months: float
    correction: PooledCorrection | InputError


def section(result, rows: pd.DataFrame, paper_months: float) -> PooledSection | LeftOut:
    """The section's data from the side job's ``result`` (the public table's ``rows`` are not needed: the public
    table is one of the three) with its bias correction read from the record; a note where it could not be measured
    (:class:`LeftOut`)."""
    if isinstance(result, str):  # the error's message; its sentence is densing.present.pooled's
        return LeftOut(TITLE, DESIGN, words.not_shown_words(result))
    return PooledSection(result, paper_months, looked_up(result.record["pooled"]))


def scales_table(pooled: PooledTrend) -> pd.DataFrame:
    """One row per table: its row, its points, its own doubling time on the common scale [95% CI], its offset a and
    scale s with their 95% intervals, and how it reaches the common scale."""
    rows = []
    for r in pooled.to_frame().to_dict("records"):
        common = r["table"] == pooled.names[0]
        rows.append(
            {
                "table": r["table"],
                "row": r["row"],
                "points": r["n_points"],
                "own doubling time on the common scale, months [95% CI]": months_words(
                    r["doubling_time_months"], r["ci_low"], r["ci_high"]
                ),
                "offset a [95% CI]": _interval(r["a"], r["a_ci_low"], r["a_ci_high"], common),
                "scale s [95% CI]": _interval(r["s"], r["s_ci_low"], r["s_ci_high"], common),
                "mapped": _reach(r, common),
            }
        )
    return pd.DataFrame(rows)


def _reach(row: dict, common: bool) -> str:
    """How a table reaches the common scale: it is the common scale, through another table, or directly."""
    if common:
        return "the common scale"
    if row["through"]:
        return f"through {row['through']} ({row['n_shared']} exact models shared with it)"
    return f"directly ({row['n_shared']} exact models shared)"


def _interval(value: float, low: float, high: float, fixed: bool) -> str:
    """``"0.933 [0.463–1.5]"``; the common table's fixed value alone."""
    if fixed:
        return format_number(value, ".3g")
    return f"{format_number(value, '.3g')} [{format_number(low, '.3g')}–{format_number(high, '.3g')}]"


def leave_one_out_tables(record: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(leave one table out with each removal's interval, leave one lab out: each lab's points, the doubling time
    without it and its move, the common table's lead lab first)."""
    tables = pd.DataFrame(
        [
            {
                "without": r["table"],
                "months [95% CI]": months_words(r["doubling_time_months"], r["ci_low"], r["ci_high"]),
            }
            for r in record["leave_one_table_out"]
        ]
    )
    labs = pd.DataFrame(
        [
            {
                "without": r["lab"],
                "its points": r["n_points"],
                "months": format_months(r["doubling_time_months"]),
                "move (months)": format_number(r["move_months"], "+.2f"),
            }
            for r in record["leave_one_lab_out"]
        ]
    )
    return tables, labs


def _cards(pooled: PooledTrend, paper_months: float, correction: PooledCorrection | InputError) -> str:
    """The section's cards: the pooled time (bias-corrected where ``correction`` applies), its state, the
    common-slope test's p, the forecast's outcome, the paper."""
    record = pooled.record
    test = record["common_slope"]
    said = "rejected: the tables disagree" if test["rejected"] else "not rejected"
    return cards_html(
        [
            ("pooled doubling time, 95% CI", words.figure_words(headline(record["pooled"], correction))),
            ("state", "not measured: the tables disagree" if pooled.tables_disagree else pooled.state.value),
            ("one slope across tables", f"p = {test['p_value']:.2g}, {said}"),
            (f"forecast check at {record['forecast'].cutoff}", OUTCOME_NAMES[record["forecast"].state]),
            (
                "for comparison: the paper",
                f"{PAPER_JOURNAL['doubling_time_months']:g} months over {PAPER_JOURNAL['models']} models to "
                f"{PAPER_JOURNAL['through']} (journal version); {paper_months:g} in the first",
            ),
        ]
    )


def render(s: PooledSection | LeftOut) -> Section:
    """The pooled law's chart, cards, tables and sentences (or why it is left out)."""
    if isinstance(s, LeftOut):
        return Section(s.title, s.note)
    pooled, record = s.pooled, s.pooled.record
    shown = headline(record["pooled"], s.correction)
    tables, labs = leave_one_out_tables(record)
    sides = [f'<p class="sub">{esc(line)}.</p>' for line in words.side_lines(record)]
    parts = [
        f'<p class="verdict"><strong>{esc(words.headline_words(record, shown))}</strong></p>',
        f'<p class="sub">{esc(words.correction_sentence(s.correction, record["pooled"]))}</p>',
        _cards(pooled, s.paper_months, s.correction),
        figure_html(
            words.pooled_figure(pooled),
            "three-tables",
            "Each table's points on the public table's scale (y_public = a + s·y_table), a colour per "
            "table; ● exact, ▲ a lower bound, ▼ an upper bound under the identified-region rule, as the "
            "density chart draws them. The red line is the censored 0.9-quantile line through all of "
            "them, its band the 95% interval of its slope: the estimator's own, before the bias correction "
            "the section's first sentence gives.",
        ),
        table_html(scales_table(pooled), scroll=False),
        *sides,
        "<h3>Leave one table out</h3>",
        table_html(tables, scroll=False),
        "<h3>Leave one lab out</h3>",
        table_html(labs, scroll=False),
    ]
    intro = (
        f"Computed by this command (densing trend --table all; results/three_tables/DECLARATION.md fixes the "
        f"method, DEVIATIONS.md where it departs): each of the three tables — the public table, the Open LLM "
        f"Leaderboard v2 and the Swallow leaderboard — enters with its own headline row, its points mapped onto "
        f"the public table's scale by Deming regression on the models exact in both, and one censored "
        f"0.9-quantile line is fitted through all of them, bounds as bounds; {pooled.n_boot} draws of labs, "
        f"families within them, each point's noise and the scales. The three tables as shipped: --results and "
        f"--since do not reach it, --seed and --n-boot do."
    )
    return Section(s.title, intro, parts)


__all__ = ["PooledSection", "leave_one_out_tables", "render", "scales_table", "section"]


SECTIONS.register(DESIGN, DesignSection(section, render, rank=15))
