"""``densing ladder``: fit a model ladder as a reference (:mod:`densing.laws.olmo.ladder`) and check it on held-out
models."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from densing.cli.output import (
    FORMAT_HELP,
    SEED_HELP,
    Format,
    command_group,
    print_document,
    print_frame,
    print_progress,
    working,
)
from densing.io import check_writable, check_writable_folder, write_file_set
from densing.numbers import format_number
from densing.validation import BOOTSTRAP_CONSTRAINTS, ExistingPath, validate_params

ladder_app = command_group(
    "Fit AI2's OLMo ladder as a two-step reference; check it on OLMo-2 7B/13B and give OLMo-2 densities."
)


@ladder_app.command("fit")
@validate_params(BOOTSTRAP_CONSTRAINTS)
def fit_command(
    data: Path = typer.Option(..., "--data", help="The OLMo ladder folder (../shared/data/olmo_ladder)."),
    out_dir: Path | None = typer.Option(
        None,
        "--out-dir",
        help="Where to write olmo_<task>_two_step.json and the selection table (the shipped ones: reference_fits; "
        "missing folders are made). Without it nothing is written.",
    ),
    n_boot: int = typer.Option(200, "--n-boot", help="Bootstrap resamples of the ladder's runs."),
    seed: int = typer.Option(0, "--seed", help=SEED_HELP),
    jobs: int = typer.Option(1, "--jobs", help="Processes for the bootstrap (draws do not depend on it)."),
) -> None:
    """Choose the law's options inside the ladder, fit every task, write the fits."""
    from densing.data.olmo import ladder_benchmarks, read_olmo_ladder, split_ladder
    from densing.laws.olmo.ladder import fit_ladder

    if out_dir is not None:
        check_writable(check_writable_folder(out_dir) / "olmo_ladder_selection.csv")
    ladder, _ = split_ladder(read_olmo_ladder(data))
    tasks = ladder_benchmarks()
    print_progress(
        f"fitting {len(tasks)} tasks of the ladder ({ladder['run'].nunique()} runs): option choice, then "
        f"{n_boot} bootstrap draws each on {jobs} process(es); this takes a while"
    )
    with working(f"fitting {len(tasks)} tasks of the ladder: option choice, then {n_boot} bootstrap draws each"):
        source = "allenai/OLMo peteish-moreeval (see ../shared/data/olmo_ladder)"
        fits, options = fit_ladder(
            ladder,
            tasks,
            n_boot=n_boot,
            seed=seed,
            jobs=jobs,
            provenance={"source_data": source, "command": "densing ladder fit"},
        )
    texts = {
        f"olmo_{benchmark.removeprefix('olmes_')}_two_step.json": fit.to_json().decode() + "\n"
        for benchmark, fit in fits.items()
    }
    if out_dir is not None:  # the fits and the selection table as a set: all moved into place once all are written
        write_file_set(out_dir, {**texts, "olmo_ladder_selection.csv": options.table.to_csv(index=False)})
    for (benchmark, fit), name in zip(fits.items(), texts):
        path = None if out_dir is None else out_dir / name
        print(
            f"{'wrote ' + str(path) if path else benchmark}  (E: {'yes' if options.irreducible[benchmark] else 'no'}, "
            f"floor: {options.floor}, R² loss {format_number(fit.stages[0].r_squared)}, "
            f"score {format_number(fit.stages[1].r_squared)}, {len(fit.bootstrap)} draws)"
        )
    chosen = f"floor chosen: {options.floor}; held-out size for the choice: {options.held_size:.4g}"
    print(chosen if out_dir is None else f"wrote {out_dir / 'olmo_ladder_selection.csv'}  ({chosen})")
    if out_dir is None:
        print("note: nothing written (--out-dir reference_fits replaces the shipped fits)", file=sys.stderr)


@ladder_app.command("check")
@validate_params({"data": [ExistingPath("folder")], "fits_dir": [ExistingPath("folder")]})
def check_command(
    data: Path = typer.Option(..., "--data", help="The OLMo ladder folder (../shared/data/olmo_ladder)."),
    fits_dir: Path = typer.Option(Path("reference_fits"), "--fits-dir", help="Folder with olmo_<task>_two_step.json."),
    out_dir: Path | None = typer.Option(
        None,
        "--out-dir",
        help="Also write heldout.csv, densities.csv, sensitivity.csv here (missing folders are made).",
    ),
    level: float = typer.Option(0.95, "--level", help="Confidence level of the intervals."),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
) -> None:
    """Held-out 7B/13B predictions beside AI2's, OLMo-2 1B/7B/13B densities with κ, and sensitivity."""
    from densing.laws.olmo.check import check_ladder
    from densing.present.laws import ladder_findings, ladder_tables, write_ladder_check

    if out_dir is not None:
        check_writable_folder(out_dir)  # before the ladder is read
    result = check_ladder(data, fits_dir, level=level)
    if out_dir is not None:
        write_ladder_check(result, out_dir)
    if fmt is Format.json:  # a command with a headline: the held-out rows, the other tables and the summary beside
        held, densities, sensitivity = (frame for _, frame in ladder_tables(result, False))
        print_document(held, densities=densities, sensitivity=sensitivity, summary=ladder_findings(result))
        return
    for title, frame in ladder_tables(result, fmt.value == "table"):
        print_frame(frame, fmt, title=title)
    if fmt is Format.table:
        for line in ladder_findings(result):
            print(line)
