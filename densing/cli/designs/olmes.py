"""``densing trend --design olmes`` (:func:`run`): the OLMES design's rows at the terminal, one row per task, no
combined row, so ``--by`` makes no difference; ``--detail``: the D0 sensitivity, the ceiling-1 law, every check, the
models left out. The design's computation (:mod:`densing.designs.olmes.trend`) loads when the command runs."""

from __future__ import annotations

from densing.cli.designs import PRINTERS, Printer
from densing.cli.layout import ROW_TOGETHER, closing, counted
from densing.cli.output import Format, print_document, print_frame, print_text, print_texts
from densing.constants import PAPER
from densing.errors import InputError
from densing.numbers import format_number
from densing.states import State


def run(options) -> None:
    """``densing trend --design olmes`` from the command's options (:class:`densing.cli.designs.Printer`): the rows
    as JSON, CSV, or the screen (:func:`_print_detail` with ``--detail``, else :func:`_print_short`), then the line."""
    from densing.designs.olmes.trend import D0, measure_olmes
    from densing.present.olmes import checks_frame, failed_and_fired, rows_frame
    from densing.present.words import left_out_frame

    for option in ("results", "fit"):
        if options[option] is not None:
            raise InputError(
                f"--{option}: --design olmes has its own targets (results/olmes) and references (the MC "
                f"references in reference_fits/olmo2_mc_*); --{option} applies to --design leaderboard"
            )
    fmt = options["fmt"]
    result = measure_olmes(
        d0=D0 if options["d0"] is None else options["d0"],
        since=options["since"],
        epoch=options["epoch"],
        n_boot=options["n_boot"],
        seed=options["seed"],
    )
    left_out = left_out_frame(result.left_out.drop_duplicates("model"))[["model", "reason"]]
    shown_rows, checks = rows_frame(result), checks_frame(result)
    if fmt is Format.json:
        return print_document(shown_rows, checks=checks, left_out=left_out)
    if fmt is Format.csv:
        return print_frame(shown_rows, fmt)
    print_text(
        "The paper's two-step design on AI2's recipe over AI2's OLMES table: doubling time of the 0.9-quantile "
        "frontier per task, 95% intervals over the ladder's and the score law's fits, the offset, score noise "
        "and models (one row per task: the four MC references have four loss laws, so there is no combined "
        "row)."
    )
    failed, fired = failed_and_fired(checks)  # a finding that fires is not a gate
    notes = [
        *(f"{r.benchmark}: {r.name} check failed — {r.detail}" for r in failed.itertuples()),
        *(f"{r.benchmark}: finding (not a gate): {r.name} {r.detail}" for r in fired.itertuples()),
        "left out: " + "; ".join(f"{m} ({why})" for m, why in left_out.itertuples(index=False)),
    ]
    if options["detail"]:
        _print_detail(shown_rows, notes, fmt, options["wide"])
    else:
        _print_short(shown_rows, notes, fmt)
    print_text(_closing_line(shown_rows))


def _print_detail(shown_rows, notes: list[str], fmt: Format, wide: bool) -> None:
    """``--detail``: every row with its D0 sensitivity and the ceiling-1 law beside (each with its interval), the
    rows' errors, the failed checks and findings, the models left out."""
    from densing.present.olmes import row_statuses
    from densing.present.words import ends_shown, shown_legend

    bases = [
        c for c in shown_rows.columns if c.startswith(("months_d0_", "months_ceiling_1")) and not c.endswith("_ci")
    ]
    sensitivity = [c for base in bases for c in (base, f"{base}_ci") if c in shown_rows.columns]  # each, its CI
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
    rows = ends_shown(shown_rows, keep=wide).assign(status=row_statuses(shown_rows))
    print_frame(
        rows if wide else rows[columns],
        fmt,
        keys=1,
        together=ROW_TOGETHER,
        title="doubling time in months per OLMES task (D0 sensitivity and the ceiling-1 law beside, each "
        "with its 95% interval)",
        wide=wide,
    )
    errors = (f"{r.benchmark}: {r.error}" for r in shown_rows.itertuples() if r.error)
    print_texts(
        shown_legend(shown_rows),
        *errors,
        *notes,
        "beside the leaderboard-based rows and the paper's 3.3 months: densing report (its second-measurement section)",
    )


def _print_short(shown_rows, notes: list[str], fmt: Format) -> None:
    """The screen without ``--detail``: each task's doubling time and status, the reasons, and how many notes
    ``--detail`` lists."""
    from densing.present.olmes import row_parts
    from densing.present.words import ends_shown, short_statuses, shown_legend

    cells, reasons = short_statuses(row_parts(shown_rows))
    print_frame(
        ends_shown(shown_rows)[["benchmark", "months", "ci_low", "ci_high"]].assign(status=cells),
        fmt,
        keys=1,
        together=ROW_TOGETHER,
        title="doubling time in months per OLMES task, with its 95% interval",
    )
    print_texts(*reasons, shown_legend(shown_rows))
    line = counted(notes, "notes (the failed checks' details, the models left out)", "--detail lists them")
    print_text("--detail: the D0 sensitivity, the ceiling-1 law, the score law's R²" + (f"; {line}" if line else ""))


def _closing_line(shown_rows) -> str:
    """The last line: each measured task's doubling time, or how many have an estimate; the paper's beside."""
    from densing.designs.olmes.trend import row_states

    measured = [
        f"{r.benchmark} {format_number(r.months)}"
        for r, s in zip(shown_rows.itertuples(), row_states(shown_rows))
        if s is State.MEASURED
    ]
    if measured:
        answer = f"OLMES doubling time in months: {', '.join(measured)}"
    else:
        estimated = int(shown_rows["months"].notna().sum())
        answer = f"OLMES: no task measured ({estimated} of {len(shown_rows)} with an estimate)"
    return closing([answer, f"paper: {PAPER['doubling_time_months']} months"])


PRINTERS.register("olmes", Printer(run=run))
