"""``densing trend --design olmes``: one row per OLMES task (no combined row: ``--by`` makes no difference), the notes
counted, the answer last; ``--detail``: the D0 sensitivity, the ceiling-1 law, every check, the models left out."""
from __future__ import annotations

from densing.cli.layout import ROW_TOGETHER
from densing.cli.output import Format, print_document, print_frame, print_text


def run(options) -> None:
    """``densing trend --design olmes`` from the command's options (:class:`densing.registry.Design`)."""
    from densing.designs.olmes.trend import D0, failed_and_fired, measure_olmes, row_parts, row_states, row_statuses
    from densing.errors import InputError

    for option in ("results", "fit"):
        if options[option] is not None:
            raise InputError(f"--{option}: --design olmes has its own targets (results/olmes) and references (the MC "
                             f"references in reference_fits/olmo2_mc_*); --{option} applies to --design leaderboard")
    fmt, wide, detail = options["fmt"], options["wide"], options["detail"]
    result = measure_olmes(d0=D0 if options["d0"] is None else options["d0"], since=options["since"],
                           epoch=options["epoch"], n_boot=options["n_boot"], seed=options["seed"])
    if fmt is Format.json:
        print_document(result.rows, checks=result.checks,
                       left_out=result.left_out.drop_duplicates("model")[["model", "reason"]])
        return
    if fmt is Format.csv:
        print_frame(result.rows, fmt)
        return
    print_text("The paper's two-step design on AI2's recipe over AI2's OLMES table: doubling time of the 0.9-quantile "
               "frontier per task, 95% intervals over the ladder's and the score law's fits, the offset, score noise "
               "and models (one row per task: the four MC references have four loss laws, so there is no combined row).")
    statuses = row_statuses(result.rows)
    failed, fired = failed_and_fired(result.checks)  # a finding that fires is not a gate
    notes = [*(f"{r.benchmark}: {r.name} check failed — {r.detail}" for r in failed.itertuples()),
             *(f"{r.benchmark}: finding (not a gate): {r.name} {r.detail}" for r in fired.itertuples()),
             "left out: " + "; ".join(f"{m} ({why})" for m, why in
                                      result.left_out.drop_duplicates("model")[["model", "reason"]].itertuples(index=False))]
    if detail:
        bases = [c for c in result.rows.columns if c.startswith(("months_d0_", "months_ceiling_1")) and not c.endswith("_ci")]
        sensitivity = [c for base in bases for c in (base, f"{base}_ci") if c in result.rows.columns]  # each beside its CI
        columns = ["benchmark", "months", "ci_low", "ci_high", "n_models", "n_lower", "n_upper", *sensitivity, "score_r2"]
        rows = result.rows.assign(status=statuses)
        print_frame(rows if wide else rows[[*columns[:4], "status", *columns[4:]]], fmt, keys=1, together=ROW_TOGETHER,
                    title="doubling time in months per OLMES task (D0 sensitivity and the ceiling-1 law beside, each "
                          "with its 95% interval)", wide=wide)
        for r in result.rows.itertuples():
            if r.error:
                print_text(f"{r.benchmark}: {r.error}")
        for line in notes:
            print_text(line)
        print_text("beside the leaderboard-based rows and the paper's 3.3 months: densing report (its second-measurement "
                   "section)")
    else:
        from densing.cli.layout import counted
        from densing.present.words import short_statuses

        cells, reasons = short_statuses(row_parts(result.rows))
        print_frame(result.rows[["benchmark", "months", "ci_low", "ci_high", "n_models"]].assign(status=cells), fmt,
                    keys=1, together=ROW_TOGETHER,
                    title="doubling time in months per OLMES task, with its 95% interval")
        for line in reasons:
            print_text(line)
        line = counted(notes, "notes (the failed checks' details, the models left out)", "--detail lists them")
        print_text("--detail: the D0 sensitivity, the ceiling-1 law, the score law's R²" + (f"; {line}" if line else ""))
    print_text(_olmes_closing(result.rows, row_states(result.rows)))


def _olmes_closing(rows, states: list) -> str:
    """The last line of ``--design olmes``: the measured tasks' doubling times, else how many have an estimate."""
    from densing.cli.layout import closing
    from densing.constants import PAPER
    from densing.numbers import format_number
    from densing.states import State

    measured = [f"{r.benchmark} {format_number(r.months)}" for r, s in zip(rows.itertuples(), states)
                if s is State.MEASURED]
    estimated = int(rows["months"].notna().sum())
    answer = (f"OLMES doubling time in months: {', '.join(measured)}" if measured else
              f"OLMES: no task measured ({estimated} of {len(rows)} with an estimate)")
    return closing([answer, f"paper: {PAPER['doubling_time_months']} months"])
