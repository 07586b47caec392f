"""``densing measure --table all``: models whose scores you have placed against the three tables' pooled law
(:mod:`densing.placement.pooled_place`), each read in the protocol of the table its scores come from (``--protocol``,
or told from the file's benchmarks; refused in one line where it cannot be told)."""

from __future__ import annotations

from pathlib import Path

from densing.cli.layout import closing
from densing.cli.output import Format, draws_option, print_frame, print_progress, print_text, size_option
from densing.errors import InputError
from densing.io import atomic_write_text, check_outputs_apart, check_writable

#: The columns the terminal shows of each placed model.
SHOWN_COLUMNS = (
    "model",
    "release_date",
    "protocol",
    "reading",
    "density_own",
    "density",
    "density_ci_low",
    "density_ci_high",
    "line_density",
    "band_low",
    "band_high",
    "band",
)


def refuse_other_inputs(scores: Path | None, models: Path | None, template: Path | None, out: Path | None) -> None:
    """An InputError for what --table all does not take: --models and --template (one table's), --out (the pooled
    law's section is the report's), or no --scores."""
    if models is not None:
        raise InputError(
            "--models: --table all places scores you already have (--scores) against the pooled law; "
            "--models evaluates on one table's suite (--table public, openllm_v2 or swallow)"
        )
    if template is not None:
        raise InputError(
            "--template: writes one table's headline columns; give --table public, openllm_v2 or swallow "
            "(the protocol the scores will come from)"
        )
    if out is not None:
        raise InputError(
            "--out: --table all prints its placement (and --csv writes it); the pooled law's chart is "
            "densing report's section 'One law from three harnesses'"
        )
    if scores is None:
        raise InputError(
            "--table all: give --scores (a scores file) and --protocol (the table whose harness scored them)"
        )


def place_on_pooled(
    *,
    scores: Path | None,
    protocol: str | None,
    models: Path | None,
    template: Path | None,
    model: str | None,
    params: str | None,
    release_date: str | None,
    out: Path | None,
    csv: Path | None,
    n_boot: int,
    seed: int,
    allow_missing: bool,
) -> None:
    """``densing measure --table all --scores FILE [--protocol NAME]``: every input checked before any work, the
    protocol's table's headline and the pooled law measured, each model placed; its line, and the CSV rows."""
    from densing import registry
    from densing.placement.own_scores import check_complete, place, read_scores, shown_names
    from densing.placement.pooled_place import headline_benchmarks, place_pooled, protocol_of
    from densing.present.pooled import placed_answer, placed_frame
    from densing.trend.pooled_trend import pooled_trend

    refuse_other_inputs(scores, models, template, out)
    check_outputs_apart({"--csv": csv}, {"--scores": scores})
    draws_option(n_boot, seed)
    if csv is not None:
        check_writable(csv)
    size = size_option(params, "--params")
    table = read_scores(scores, model=model, params=size, release_date=release_date)
    protocol = protocol_of(table, protocol, str(scores))
    target = registry.resolve_table(table=protocol)  # the protocol's table, resolved once
    shown = shown_names(target.table)
    check_complete(table, headline_benchmarks(protocol), str(scores), allow_missing, shown, "--allow-missing")
    print_progress(f"measuring the three tables' pooled law and the {protocol} table's headline …")
    pooled = pooled_trend(n_boot=n_boot, seed=seed)
    placed = place(
        scores,
        model=model,
        params=size,
        release_date=release_date,
        n_boot=n_boot,
        seed=seed,
        target=target,
        allow_missing=allow_missing,
    )
    frame = place_pooled(pooled, protocol=protocol, placed=placed)
    shown_frame = placed_frame(frame)  # the band in words
    print_frame(
        shown_frame[list(SHOWN_COLUMNS)],
        Format.table,
        keys=1,
        title=f"placed against the pooled law ({pooled.state.value}; ρ on the public table's scale, the "
        f"{protocol} table's ln ρ mapped by its a and s)",
    )
    if csv is not None:
        atomic_write_text(csv, shown_frame.to_csv(index=False, float_format="%.6g"))
        print(f"wrote {csv}")
    if pooled.tables_disagree:
        print_text("the pooled law is not measured: the tables disagree on one slope (densing trend --table all)")
    for row in frame.to_dict("records"):
        print_text(closing([placed_answer(row)]))


__all__ = ["place_on_pooled", "refuse_other_inputs"]
