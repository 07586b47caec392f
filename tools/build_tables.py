"""Regenerate the shipped tables and fits that are built from source data, one subcommand each.

    python tools/build_tables.py public --obsscaling results/obsscaling --dates results/release_dates.csv \\
        --corrections results/corrections.csv --active-params results/active_params.csv --out results/public_models.csv
    python tools/build_tables.py swallow --source ../shared/data/swallow --curated results/swallow \\
        --dates results/release_dates.csv --out results/swallow
    python tools/build_tables.py candidates --results results/public_models.csv --fits-dir reference_fits
    python tools/build_tables.py protocol --out results/swallow/trend
    python tools/build_tables.py mc-reference --data ../shared/data/olmo_ladder --fits-dir reference_fits \\
        --results-dir results/olmes --n-boot 200 --seed 0
    python tools/build_tables.py olmes --fits-dir reference_fits --results-dir results/olmes --n-boot 600 --seed 0 \\
        --out results/olmes/trend.csv
    python tools/build_tables.py fixed-size --n-boot 1000 --seed 0 --out results/fixed_size.csv

Each writes its files atomically and byte-identically for the same inputs; the computation is the package's
(:mod:`densing.data.public`, :mod:`densing.data.swallow`, :mod:`densing.laws.eligibility`,
:mod:`densing.trend.protocol`, :mod:`densing.laws.olmo.mc_reference`, :mod:`densing.trend.olmes`,
:mod:`densing.trend.fixed_size`), this script
only reads the arguments, writes and prints. An error of the package (:class:`densing.errors.DensingError`) is
one line ``error: …`` on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if (ROOT / "densing").is_dir() and str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the checkout's package, installed or not (as cli.py)

from densing import paths  # noqa: E402
from densing.errors import DensingError  # noqa: E402
from densing.io import atomic_write_text  # noqa: E402


def public(args) -> int:
    """The shipped table of public base models (:mod:`densing.data.public`): build, write, and print the
    remaining validation issues to stderr."""
    from densing.data.public import build_public_models, write_public_models
    from densing.data.public_checks import validate_public_models

    frame = build_public_models(args.obsscaling, args.dates, args.corrections, args.active_params)
    write_public_models(frame, args.out)
    issues = validate_public_models(frame)
    dated = int((frame["release_date"] != "").sum())
    print(f"wrote {args.out}: {len(frame)} models, {dated} dated, {len(issues)} validation issues", file=sys.stderr)
    for issue in issues.itertuples(index=False):
        print(f"  {issue.model} {issue.field}={issue.value}: {issue.reason} (expected {issue.expected})", file=sys.stderr)
    return 0


def swallow(args) -> int:
    """The Swallow LLM Leaderboard's target tables (:mod:`densing.data.swallow`): build and write every output; one
    line per file on stderr."""
    from densing.data.swallow import build_swallow, write_swallow

    outputs = build_swallow(args.source, args.curated, args.dates)
    written = write_swallow(outputs, args.out)
    for path, (_, frame) in zip(written, outputs.items()):
        print(f"wrote {path}: {len(frame)} rows", file=sys.stderr)
    return 0


def candidates(args) -> int:
    """The shipped candidate table of the trend's references, rules v3, v2 and v1 (:mod:`densing.laws.eligibility`)."""
    import pandas as pd

    from densing.data import read_results
    from densing.laws import eligibility
    from densing.trend.measure import CANDIDATES_FILE
    from densing.trend.targets import with_stderr

    targets, composed = with_stderr(read_results(args.results)), eligibility.composed_fits(args.fits_dir)
    # rule v3 (the references of every row) first, rules v2 and v1 (labelled variants) after it; the rule column says which
    table = pd.concat([eligibility.candidate_table(targets, since=args.since, composed=composed, rule=rule)
                       for rule in ("v3", "v2", "v1")], ignore_index=True)
    out = Path(args.fits_dir) / CANDIDATES_FILE
    atomic_write_text(out, table.to_csv(index=False, float_format="%.6g"))
    print(eligibility.eligible_families(table[table["rule"] == "v3"]).drop(columns="headline").to_string(index=False))
    print(f"wrote {out}")
    return 0


def protocol(args) -> int:
    """The Swallow tables' trend records (:data:`densing.trend.protocol.VARIANTS`, one JSON file each) into ``--out``."""
    from densing.data import read_results
    from densing.trend import tables
    from densing.trend.protocol import VARIANTS, measure_table

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for stem, table, drop in VARIANTS:
        _, record = measure_table(read_results(tables.get(table).path), table, continual=not drop)
        atomic_write_text(out / f"{stem}.json", json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
        print(f"wrote {out / (stem + '.json')}: {record['verdict']}")
    return 0


def mc_reference(args) -> int:
    """The MC references of the four OLMES tasks (:mod:`densing.laws.olmo.mc_reference`): fit and write them, write
    the offsets and the held-out chain, print them."""
    import pandas as pd

    from densing.data.olmo import read_olmo_mc_runs
    from densing.laws.olmo import mc_reference as mc
    from densing.laws.reference_fit import ReferenceFit

    runs = read_olmo_mc_runs(args.data)
    targets = mc.read_olmes_table(args.results_dir)
    offsets, held, lines = [], [], []
    for task in mc.MC_CHANCE:
        loss_fit = ReferenceFit.load(Path(args.fits_dir) / mc.LADDER_FIT.format(task=task))
        fit = mc.fit_mc_reference(loss_fit, runs, task, n_boot=args.n_boot, seed=args.seed)
        out = fit.save(Path(args.fits_dir) / mc.MC_FIT.format(task=task))
        fixed = mc.fit_mc_reference(loss_fit, runs, task, n_boot=args.n_boot, seed=args.seed, ceiling=1.0)
        fixed.save(Path(args.fits_dir) / mc.MC_FIT_CEILING_ONE.format(task=task))
        offset = mc.measure_offset(fit, targets)
        offsets.append(offset.frame())
        held.append(mc.held_out(fit, offset, targets))
        stage = fit.stages[-1]
        p = fit.params
        lines.append(f"{task}: S_MC(L) = {p['c']:.4f}/(1 + e^(−({p['gamma']:.3f})(L − {p['l']:.4f}))) + {p['d']:g}, "
                     f"ceiling {'free' if fit.provenance['ceiling'] is None else fit.provenance['ceiling']}, "
                     f"R² {stage.r_squared:.3f}, RMSE {stage.rmse:.4f}, {stage.n_points} checkpoints; "
                     f"Δ = {offset.delta:+.4f} ± {offset.stderr:.4f}  -> {out}")
    results = Path(args.results_dir)
    atomic_write_text(results / "mc_offsets.csv", pd.concat(offsets).to_csv(index=False, float_format="%.6g"))
    atomic_write_text(results / "mc_held_out.csv", pd.concat(held).to_csv(index=False, float_format="%.6g"))
    print("\n".join(lines))
    print(pd.concat(held)[["task", "model", "scale", "measured_score", "predicted_score", "ci_low", "ci_high", "error"]]
          .to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"wrote {results / 'mc_offsets.csv'} and {results / 'mc_held_out.csv'}")
    return 0


def olmes(args) -> int:
    """The OLMES trend (:func:`densing.trend.olmes.measure_olmes`): print its rows and checks; with --out, write the
    rows as CSV and the checks beside them."""
    from densing.trend.olmes import measure_olmes

    result = measure_olmes(args.fits_dir, args.results_dir, d0=args.d0, n_boot=args.n_boot, seed=args.seed)
    print(result.table())
    print()
    print(result.checks[["benchmark", "name", "status", "detail"]].to_string(index=False))
    print()
    print("left out:", "; ".join(f"{m} ({r})" for m, r in result.left_out.drop_duplicates("model")[["model", "reason"]].itertuples(index=False)))
    if args.out:
        out = Path(args.out)
        atomic_write_text(out, result.rows.to_csv(index=False, float_format="%.6g"))
        atomic_write_text(out.with_name(out.stem + "_checks.csv"), result.checks.to_csv(index=False, float_format="%.6g"))
        print(f"wrote {out} and {out.with_name(out.stem + '_checks.csv')}")
    return 0


def fixed_size(args) -> int:
    """The fixed-size time regression's rows (:func:`densing.trend.fixed_size.fixed_size_rows`) on every registered
    target table: print them; with --out, write them as one CSV."""
    import pandas as pd

    from densing.data import read_results
    from densing.trend import tables
    from densing.trend.fixed_size import fixed_size_rows

    found = []
    for name, table in tables.TABLES.items():
        rows = fixed_size_rows(read_results(table.path), name, n_boot=args.n_boot, seed=args.seed)
        found.append(rows.assign(benchmarks=rows["benchmarks"].map(" ".join)).drop(columns="estimator")
                     .assign(table=name))
    frame = pd.concat(found, ignore_index=True)
    frame = frame[["table", *[c for c in frame.columns if c != "table"]]]
    shown = ["table", "row", "n_scores", "n_families", "doubling_time_months", "doubling_time_months_ci_low",
             "doubling_time_months_ci_high", "delta_doubling_time_months_ci_low", "delta_doubling_time_months_ci_high",
             "status"]
    print(frame[shown].to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if args.out:
        atomic_write_text(Path(args.out), frame.to_csv(index=False, float_format="%.6g"))
        print(f"wrote {args.out}")
    return 0


def parser() -> argparse.ArgumentParser:
    from densing.trend.constants import DEFAULT_EPOCH
    from densing.trend.olmes import D0

    top = argparse.ArgumentParser(prog="python tools/build_tables.py", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="table", required=True)

    def command(name: str, run) -> argparse.ArgumentParser:
        words = " ".join(run.__doc__.split())
        found = sub.add_parser(name, help=words.split(" (")[0].split(":")[0], description=words)
        found.set_defaults(run=run)
        return found

    p = command("public", public)
    p.add_argument("--obsscaling", required=True, help="folder with the ObsScaling CSVs and SOURCE_COMMIT")
    p.add_argument("--dates", required=True, help="release_dates.csv")
    p.add_argument("--corrections", required=True, help="corrections.csv")
    p.add_argument("--active-params", default=None, help="active_params.csv (mixture-of-experts models)")
    p.add_argument("--out", required=True, help="output CSV (written atomically)")

    p = command("swallow", swallow)
    p.add_argument("--source", required=True, help="folder with the leaderboard's model_2025-06.yml and model_2026-05.yml")
    p.add_argument("--curated", required=True, help="folder with lineage.csv, params.csv, tokens.csv")
    p.add_argument("--dates", required=True, help="the house's release_dates.csv")
    p.add_argument("--out", required=True, help="output folder (files written atomically)")

    p = command("candidates", candidates)
    p.add_argument("--results", default=str(paths.RESULTS / "public_models.csv"))
    p.add_argument("--fits-dir", default=str(paths.REFERENCE_FITS))
    p.add_argument("--since", default=DEFAULT_EPOCH)

    p = command("protocol", protocol)
    p.add_argument("--out", required=True)

    p = command("mc-reference", mc_reference)
    p.add_argument("--data", default=str(paths.SHARED_DATA / "olmo_ladder"), help="the OLMo ladder folder")
    p.add_argument("--fits-dir", default=str(paths.REFERENCE_FITS), help="where the ladder's fits are and the MC fits go")
    p.add_argument("--results-dir", default=str(paths.RESULTS / "olmes"),
                   help="the OLMES table; mc_offsets.csv and mc_held_out.csv go here")
    p.add_argument("--n-boot", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)

    p = command("olmes", olmes)
    p.add_argument("--fits-dir", default=str(paths.REFERENCE_FITS))
    p.add_argument("--results-dir", default=str(paths.RESULTS / "olmes"))
    p.add_argument("--d0", type=float, default=D0)
    p.add_argument("--n-boot", type=int, default=600)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="write the rows here (CSV) and the checks beside it (<stem>_checks.csv)")

    p = command("fixed-size", fixed_size)
    p.add_argument("--n-boot", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="write the rows of every table here (CSV)")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except (DensingError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
