"""The OLMES design's section of the report (:mod:`densing.designs.olmes`): its rows beside the public table's, the
forest of its tasks, its sensitivity and checks, registered in :data:`densing.report.designs.SECTIONS`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from densing.designs.olmes.trend import D0, row_states
from densing.numbers import format_count
from densing.present import figures as trend_figures
from densing.present.olmes import beside_leaderboard, checks_frame, row_statuses, rows_frame
from densing.present.words import ends_shown
from densing.report.designs import SECTIONS, DesignSection
from densing.report.html import Section, figure_html, table_html
from densing.report.render_parts import details
from densing.results import Result


@dataclass(frozen=True)
class OlmesSection:
    """The paper's two-step design on AI2's recipe (:func:`densing.designs.olmes.trend.measure_olmes`), beside the rows."""

    title: ClassVar[str] = "A second measurement: the paper's design on AI2's recipe"
    design: ClassVar[str] = "olmes"  # the registered design that renders it
    olmes: Result
    beside: pd.DataFrame  # beside_leaderboard's table, its columns in words
    paper_months: float


def section(olmes, rows: pd.DataFrame, paper_months: float) -> OlmesSection:
    """The section's data: the OLMES rows beside the public table's ``rows`` (:func:`beside_leaderboard`)."""
    side = beside_leaderboard(olmes, rows, paper_months)
    return OlmesSection(
        olmes,
        side.drop(columns=["paper"]).rename(
            columns={
                "olmes": "OLMES design, months [95% CI]",
                "olmes_checks": "its failed checks",
                "leaderboard": "leaderboard-based, months [95% CI]",
            }
        ),
        paper_months,
    )


def render(s: OlmesSection) -> Section:
    """The second, independent measurement: the paper's two-step design on AI2's recipe (:mod:`densing.designs.olmes.trend`)."""
    olmes = s.olmes
    shown_rows = rows_frame(olmes)
    rows = shown_rows.assign(
        row=shown_rows["task"],
        capability="OLMES MC",
        references=shown_rows["reference"],
        each_reference_months="one reference",
    )
    rows["error"] = rows["error"].fillna("")
    rows["status"] = row_statuses(rows)  # a failed check is a finding beside the row, as on the leaderboard's rows
    rows["state"] = [s.value for s in row_states(rows)]
    d0_columns = [c for c in shown_rows.columns if c.startswith("months_d0_") and not c.endswith("_ci")]
    shown = (
        ["task", "months", "ci_low", "ci_high"]
        + [c for d in d0_columns for c in (d, f"{d}_ci")]
        + ["months_ceiling_1", "months_ceiling_1_ci", "ceiling", "score_r2", "offset", "offset_stderr"]
    )
    sensitivity = ends_shown(shown_rows)[[c for c in shown if c in shown_rows.columns]]
    intro = (
        f"Computed by this command from AI2's OLMES scores (results/olmes/) and the OLMo ladder's fits, with its "
        f"--since, --seed and --n-boot; --results reaches only the leaderboard-based column beside it (the OLMES "
        f"scores are another table). The paper's own design on one "
        f"public recipe, with other targets and other prompts: the OLMo ladder's loss "
        f"law L(N, D) per task (bits per byte of the correct answer), an MC score law S(L) fitted on the OLMo-2 "
        f"checkpoints, the in-loop → offline offset carried, N̂ at D0 = {format_count(D0)} tokens, over AI2's OLMES "
        f"scores of {shown_rows['n_models'].max()} dated base models. Same frontier rule (0.9 quantile) and "
        f"uncertainty engine as above. A row without a number says why; the checks are said in words. Levels differ "
        f"between the two tables (other prompts); their trends are comparable. The paper: {s.paper_months:g} months "
        f"over its own five benchmarks (the red line)."
    )
    forest = trend_figures.forest_figure(
        rows,
        s.paper_months,
        title="Doubling time by OLMES task · the paper's design on AI2's recipe (OLMo ladder references)",
    )
    checks = checks_frame(olmes)
    return Section(
        s.title,
        intro,
        [
            figure_html(forest, "olmes-forest"),
            table_html(s.beside, scroll=False),
            details(
                "sensitivity to D0 and to the MC law's ceiling (fixed at 1), score-law fit and offset per task, each "
                "doubling time with its 95% CI",
                table_html(sensitivity, scroll=False),
            ),
            details(
                "every check of the OLMES rows",
                table_html(checks[["benchmark", "name", "status", "detail"]], scroll=False),
            )
            if len(checks)
            else "",
        ],
    )


SECTIONS.register("olmes", DesignSection(section, render, rank=20))
