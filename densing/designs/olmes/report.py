"""The OLMES design's words: ``densing trend --design olmes`` (:func:`run`: one row per task, no combined row, so
``--by`` makes no difference; ``--detail``: the D0 sensitivity, the ceiling-1 law, every check, the models left out)
and its section of the report (its rows beside the public table's, the forest of its tasks, its sensitivity and
checks), registered with the design (:mod:`densing.designs.olmes`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from densing.cli.layout import ROW_TOGETHER, closing, counted
from densing.cli.output import Format, print_document, print_frame, print_text, print_texts
from densing.constants import PAPER
from densing.designs.olmes.trend import (
    D0,
    beside_leaderboard,
    failed_and_fired,
    measure_olmes,
    row_parts,
    row_states,
    row_statuses,
)
from densing.errors import InputError
from densing.numbers import format_count, format_number
from densing.present import figures as trend_figures
from densing.present.words import ends_shown, short_statuses, shown_legend
from densing.report.html import Section, figure_html, table_html
from densing.report.render_parts import details
from densing.results import Result
from densing.states import State


@dataclass(frozen=True)
class OlmesSection:
    """The paper's two-step design on AI2's recipe (:func:`densing.designs.olmes.trend.measure_olmes`), beside the rows."""

    title: ClassVar[str] = "A second measurement: the paper's design on AI2's recipe"
    design: ClassVar[str] = "olmes"  # the registered design that renders it
    olmes: Result
    beside: pd.DataFrame  # beside_leaderboard's table, its columns in words
    paper_months: float


def side(inputs) -> tuple:
    """The OLMES design on the report's inputs, computed beside the headline (no shares' draws: the page shows none)."""
    return measure_olmes, {
        "fits_dir": inputs.fits_dir,
        "d0": D0,
        "since": inputs.since,
        "n_boot": inputs.n_boot,
        "n_boot_share": 0,
        "seed": inputs.seed,
    }


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
    rows = olmes.rows.assign(
        row=olmes.rows["task"],
        capability="OLMES MC",
        references=olmes.rows["reference"],
        each_reference_months="one reference",
    )
    rows["error"] = rows["error"].fillna("")
    rows["status"] = row_statuses(rows)  # a failed check is a finding beside the row, as on the leaderboard's rows
    rows["state"] = [s.value for s in row_states(rows)]
    d0_columns = [c for c in olmes.rows.columns if c.startswith("months_d0_") and not c.endswith("_ci")]
    shown = (
        ["task", "months", "ci_low", "ci_high"]
        + [c for d in d0_columns for c in (d, f"{d}_ci")]
        + ["months_ceiling_1", "months_ceiling_1_ci", "ceiling", "score_r2", "offset", "offset_stderr"]
    )
    sensitivity = ends_shown(olmes.rows)[[c for c in shown if c in olmes.rows.columns]]
    intro = (
        f"Computed by this command from AI2's OLMES scores (results/olmes/) and the OLMo ladder's fits, with its "
        f"--since, --seed and --n-boot; --results reaches only the leaderboard-based column beside it (the OLMES "
        f"scores are another table). The paper's own design on one "
        f"public recipe, with other targets and other prompts: the OLMo ladder's loss "
        f"law L(N, D) per task (bits per byte of the correct answer), an MC score law S(L) fitted on the OLMo-2 "
        f"checkpoints, the in-loop → offline offset carried, N̂ at D0 = {format_count(D0)} tokens, over AI2's OLMES "
        f"scores of {olmes.rows['n_models'].max()} dated base models. Same frontier rule (0.9 quantile) and "
        f"uncertainty engine as above. A row without a number says why; the checks are said in words. Levels differ "
        f"between the two tables (other prompts); their trends are comparable. The paper: {s.paper_months:g} months "
        f"over its own five benchmarks (the red line)."
    )
    forest = trend_figures.forest_figure(
        rows,
        s.paper_months,
        title="Doubling time by OLMES task · the paper's design on AI2's recipe (OLMo ladder references)",
    )
    checks = olmes.checks
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


def run(options) -> None:
    """``densing trend --design olmes`` from the command's options (:class:`densing.registry.Design`)."""
    for option in ("results", "fit"):
        if options[option] is not None:
            raise InputError(
                f"--{option}: --design olmes has its own targets (results/olmes) and references (the MC "
                f"references in reference_fits/olmo2_mc_*); --{option} applies to --design leaderboard"
            )
    fmt, wide, detail = options["fmt"], options["wide"], options["detail"]
    result = measure_olmes(
        d0=D0 if options["d0"] is None else options["d0"],
        since=options["since"],
        epoch=options["epoch"],
        n_boot=options["n_boot"],
        seed=options["seed"],
    )
    left_out = result.left_out.drop_duplicates("model")[["model", "reason"]]
    if fmt is Format.json:
        return print_document(result.rows, checks=result.checks, left_out=left_out)
    if fmt is Format.csv:
        return print_frame(result.rows, fmt)
    print_text(
        "The paper's two-step design on AI2's recipe over AI2's OLMES table: doubling time of the 0.9-quantile "
        "frontier per task, 95% intervals over the ladder's and the score law's fits, the offset, score noise "
        "and models (one row per task: the four MC references have four loss laws, so there is no combined "
        "row)."
    )
    failed, fired = failed_and_fired(result.checks)  # a finding that fires is not a gate
    notes = [
        *(f"{r.benchmark}: {r.name} check failed — {r.detail}" for r in failed.itertuples()),
        *(f"{r.benchmark}: finding (not a gate): {r.name} {r.detail}" for r in fired.itertuples()),
        "left out: " + "; ".join(f"{m} ({why})" for m, why in left_out.itertuples(index=False)),
    ]
    if detail:
        bases = [
            c for c in result.rows.columns if c.startswith(("months_d0_", "months_ceiling_1")) and not c.endswith("_ci")
        ]
        sensitivity = [c for base in bases for c in (base, f"{base}_ci") if c in result.rows.columns]  # each, its CI
        columns = [
            "benchmark",
            "months",
            "ci_low",
            "ci_high",
            "status",
            "n_models",
            "n_lower",
            "n_upper",
            *sensitivity,
            "score_r2",
        ]
        rows = ends_shown(result.rows, keep=wide).assign(status=row_statuses(result.rows))
        print_frame(
            rows if wide else rows[columns],
            fmt,
            keys=1,
            together=ROW_TOGETHER,
            title="doubling time in months per OLMES task (D0 sensitivity and the ceiling-1 law beside, each "
            "with its 95% interval)",
            wide=wide,
        )
        errors = (f"{r.benchmark}: {r.error}" for r in result.rows.itertuples() if r.error)
        print_texts(
            shown_legend(result.rows),
            *errors,
            *notes,
            "beside the leaderboard-based rows and the paper's "
            "3.3 months: densing report (its second-measurement section)",
        )
    else:
        cells, reasons = short_statuses(row_parts(result.rows))
        print_frame(
            ends_shown(result.rows)[["benchmark", "months", "ci_low", "ci_high"]].assign(status=cells),
            fmt,
            keys=1,
            together=ROW_TOGETHER,
            title="doubling time in months per OLMES task, with its 95% interval",
        )
        print_texts(*reasons, shown_legend(result.rows))
        line = counted(notes, "notes (the failed checks' details, the models left out)", "--detail lists them")
        print_text(
            "--detail: the D0 sensitivity, the ceiling-1 law, the score law's R²" + (f"; {line}" if line else "")
        )
    measured = [
        f"{r.benchmark} {format_number(r.months)}"  # the last line: else how many have an estimate
        for r, s in zip(result.rows.itertuples(), row_states(result.rows))
        if s is State.MEASURED
    ]
    estimated = int(result.rows["months"].notna().sum())
    print_text(
        closing(
            [
                f"OLMES doubling time in months: {', '.join(measured)}"
                if measured
                else f"OLMES: no task measured ({estimated} of {len(result.rows)} with an estimate)",
                f"paper: {PAPER['doubling_time_months']} months",
            ]
        )
    )
