"""``densing fit | convert | validate | density``: the reference law and its inversion."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer

from densing import paths, registry
from densing.cli.layout import DENSITY_ROWS, DETAIL_HELP, closing
from densing.cli.output import (
    FORMAT_HELP,
    SEED_HELP,
    Format,
    count_option,
    d0_option,
    print_frame,
    print_progress,
    print_text,
    size_option,
)
from densing.cli.output_files import output_option
from densing.constants import DEFAULT_EPOCH
from densing.errors import FitError, InputError
from densing.io import check_outputs_apart, check_writable, command_line
from densing.numbers import counted_noun, format_count, format_number
from densing.validation import (
    BOOTSTRAP_CONSTRAINTS,
    validate as check,  # `validate` is a command here
    validate_params,
)

#: A density, its interval and whether it is a bound: kept beside the model's name in one block at any width.
DENSITY_TOGETHER = ("density", "density_ci_low", "density_ci_high", "bound")
DATA_HELP = "Tidy CSV/Parquet, a results store, lm-eval JSON(s), the Pythia evals folder or the OLMo ladder folder."


Law = Enum("Law", {"two_step": "two-step", "composed": "composed"}, type=str)  # --law


def min_tokens_option(text: str | None, default):
    """``--min-train-tokens``: ``default`` where it is not given, None for ``none`` (no floor), else a count of
    tokens."""
    if text is None:
        return default
    if text == "none":
        return None
    return count_option(text, "--min-train-tokens")


def _names(text: str) -> str | list[str]:
    """One benchmark name, or several comma-separated (averaged per model)."""
    names = [b.strip() for b in text.split(",") if b.strip()]
    return names[0] if len(names) == 1 else names


def _read(data: Path, *, suite: str | None = None, final_only: bool = False, read: bool = True):
    """:func:`densing.data.read_reference_data` (``read=False``: its checks alone), saying on stderr that a folder is
    read; ``--suite`` and ``--final-only`` on the Pythia evals folder alone (``densing.data.formats.pythia_only``)."""
    from densing.data import read_reference_data
    from densing.data.formats import pythia_only

    pythia_only(data, suite, final_only)
    if data.is_dir():
        print_progress(f"reading {data} …")
    return read_reference_data(data, suite=suite or "standard", final_only=final_only) if read else None


@validate_params(BOOTSTRAP_CONSTRAINTS)
def fit(
    data: Path = typer.Option(..., "--data", help=DATA_HELP),
    benchmark: str = typer.Option(
        ..., "--benchmark", help="Benchmark name; several comma-separated are averaged per model."
    ),
    law: Law = typer.Option(Law.two_step, "--law", help="two-step needs losses; composed uses scores only."),
    out: Path | None = output_option(
        None,
        "--out",
        file="fit.json",
        holds="the fit's JSON",
        help="Write the fit as JSON here (atomically; missing folders are made).",
    ),
    metric: str = typer.Option(
        "acc", "--metric", help="Score metric of the rows to fit (acc, acc_norm, len_norm or another the table has)."
    ),
    n_shot: int | None = typer.Option(
        None, "--n-shot", help="Only the rows with this many shots (default: every row)."
    ),
    chance: str = typer.Option(
        "none", "--chance", help="Fix the floor d: 'auto' (benchmark's chance level), a number, or 'none'."
    ),
    ceiling: float | None = typer.Option(None, "--ceiling", help="Fix the ceiling c + d."),
    irreducible: bool = typer.Option(False, "--irreducible", help="Add the Chinchilla irreducible loss term E."),
    min_train_tokens: str | None = typer.Option(
        None,
        "--min-train-tokens",
        help="Drop points trained on fewer tokens (e.g. 3e9). Default: 3e9 on the Pythia folder (drops the warm-up "
        "checkpoints, steps 1 to 1000, as `validate` does; 'none' keeps them), none otherwise.",
    ),
    max_params: str | None = typer.Option(
        None, "--max-params", help="Fit only models below this size (held-out checks)."
    ),
    families: str | None = typer.Option(
        None, "--families", help="Use only models of these families (comma-separated) as the reference."
    ),
    family: str | None = typer.Option(
        None,
        "--family",
        help="Fit the family law on this one family at its own budget: S(N) = c/(1+e^(-γ(u - l))) + d, u = -(N/1e9)^-0.34, d = chance, c + d = 1 (replaces --law; --family-shape).",
    ),
    family_shape: str = typer.Option(
        "power",
        "--family-shape",
        help="The family law's shape: power (the paper's sigmoid of a power law) or logistic_ln_n (a sigmoid of ln N).",
    ),
    d0: str = typer.Option("1e12", "--d0", help="Default D0 tokens stored with the fit."),
    suite: str | None = typer.Option(
        None,
        "--suite",
        help="Pythia suite when --data is the Pythia evals folder (default standard; refused on other data).",
    ),
    n_boot: int = typer.Option(200, "--n-boot", help="Bootstrap resamples."),
    seed: int = typer.Option(0, "--seed", help=SEED_HELP),
    jobs: int = typer.Option(1, "--jobs", help="Processes for the bootstrap (draws do not depend on it)."),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
) -> None:
    """Fit the two-step (or composed) Densing Law on reference models, or the family law on one family (--family)."""
    from densing.data.formats import sniff_format
    from densing.laws.fit_schema import reference_subset
    from densing.laws.reference import fit_reference

    d0_tokens = d0_option(d0)  # before the data is read
    check_outputs_apart({"--out": out}, {"--data": data})  # an output never replaces an input
    if out is not None:
        check_writable(out)
    if family is not None:
        result = _fit_family(
            data,
            benchmark,
            family,
            family_shape,
            metric=metric,
            d0_tokens=d0_tokens,
            suite=suite,
            n_boot=n_boot,
            seed=seed,
        )
        _show_fit(result, out, fmt)
        return

    data_format = sniff_format(data)
    tokens = min_tokens_option(min_train_tokens, data_format.min_train_tokens)
    names = None if families is None else [f.strip() for f in families.split(",") if f.strip()]
    frame = reference_subset(
        _read(data, suite=suite), max_params=size_option(max_params, "--max-params"), families=names, source=str(data)
    )
    if n_boot:
        print_progress(f"fitting {benchmark} ({law.value}), then {n_boot} bootstrap refits on {jobs} process(es) …")
    pythia = data_format.name == "pythia_evals"
    provenance = {
        "source_data": str(data),
        "suite": (suite or "standard") if pythia else None,
        "max_params": max_params,
        "families": families,
        "command": command_line(),
    }
    result = fit_reference(
        frame,
        _names(benchmark),
        law=law.value,
        metric=metric,
        n_shot=n_shot,
        chance=chance,
        ceiling=ceiling,
        irreducible=irreducible,
        min_train_tokens=tokens,
        d0=d0_tokens,
        n_boot=n_boot,
        seed=seed,
        jobs=jobs,
        provenance=provenance,
    )
    _show_fit(result, out, fmt)


def _fit_family(
    data: Path,
    benchmark: str,
    family: str,
    shape: str,
    *,
    metric: str,
    d0_tokens: float,
    suite: str | None,
    n_boot: int,
    seed: int,
):
    """``densing fit --family``: the family law on one family, with the trend's pooled dispersion of the benchmark."""
    from densing.laws.eligibility import pooled_dispersions
    from densing.laws.family import fit_family, shape_constants
    from densing.laws.reference_fit import DEFAULT_D0

    if d0_tokens != DEFAULT_D0:  # the family law has no data term: its D0 is the family's own budget
        raise InputError(
            "--d0: a family fit (--family) has no data term; its D0 is the family's own budget "
            "(--d0 applies to the two-step and composed laws)"
        )
    if "," in benchmark:
        raise InputError("--benchmark: a family fit takes one benchmark (the joint inversion combines several)")
    frame = _read(data, suite=suite)
    metrics = set(frame.loc[frame["benchmark"] == benchmark, "metric"].astype(str))
    shape_constants(shape)  # an unknown shape: one line, before the table's fits
    floor = (
        pooled_dispersions(frame, (benchmark,), shape=shape).get(benchmark, 1.0) if "family" in frame.columns else 1.0
    )
    return fit_family(
        frame,
        family,
        benchmark,
        metric=metric if metric in metrics else None,
        n_boot=n_boot,
        seed=seed,
        dispersion_floor=floor,
        provenance={"source_data": str(data), "command": command_line()},
        shape=shape,
    )


def _show_fit(result, out: Path | None, fmt: Format) -> None:
    from densing.present.laws import fit_verdict, interval_notes
    from densing.present.shown import summary

    if out is not None:
        result.save(out)
    if fmt is Format.table:
        print(summary(result))
        for note in interval_notes(result):
            print_text(f"note: {note}")
        if out is not None:
            print(f"wrote {out}")
    else:
        frame = result.to_frame()
        # whether each percentile interval holds its point estimate (see the table format's notes), and the verdict
        inside = (frame["ci_low"] <= frame["estimate"]) & (frame["estimate"] <= frame["ci_high"])
        frame["ci_contains_estimate"] = inside.astype(object).where(frame["ci_low"].notna(), None)
        frame["fit_verdict"] = fit_verdict(result)
        print_frame(frame, fmt)
    if (verdict := fit_verdict(result)) is not None:
        print(
            f"warning: {result.benchmark}: {verdict}; do not invert through it "
            "(densing density leaves it out of the geometric mean)",
            file=sys.stderr,
        )


def convert(
    data: Path = typer.Option(..., "--data", help=DATA_HELP),
    out: Path = output_option(
        ...,
        "--out",
        file="results.csv",
        holds="the table",
        streams=True,
        help="Tidy CSV or Parquet to write (atomically; missing folders are made; DIR/: DIR/results.csv; '-': CSV on stdout).",
    ),
    suite: str | None = typer.Option(
        None,
        "--suite",
        help="Pythia suite when --data is the Pythia evals folder (default standard; refused on other data).",
    ),
    final_only: bool = typer.Option(
        False, "--final-only", help="Pythia: keep only the final checkpoint (step 143000)."
    ),
    benchmarks: str | None = typer.Option(None, "--benchmarks", help="Keep only these benchmarks (comma-separated)."),
) -> None:
    """Convert results into one validated tidy table (CSV or Parquet)."""
    from densing.data import write_table

    check_outputs_apart({"--out": out}, {"--data": data})  # an output never replaces an input
    if str(out) != "-":  # standard output: the table as CSV, and nothing else
        check_writable(out)  # before the data is read
    frame = _read(data, suite=suite, final_only=final_only)
    if benchmarks:
        keep = [b.strip() for b in benchmarks.split(",") if b.strip()]
        frame = frame[frame["benchmark"].isin(keep)]
        if frame.empty:
            raise InputError(f"--benchmarks: none of {', '.join(keep)} is in {data}")
    write_table(frame, out)
    if str(out) != "-":
        print(f"wrote {counted_noun(len(frame), 'row')} to {out}")


def validate(
    data: Path = typer.Option(..., "--data", help="Reference results (as for `densing fit`)."),
    benchmark: str = typer.Option(
        ..., "--benchmark", help="Benchmark to fit and predict; several comma-separated are averaged per model."
    ),
    max_params: str = typer.Option(..., "--max-params", help="Fit below this size, predict the models at or above it."),
    law: Law = typer.Option(Law.two_step, "--law", help="two-step needs losses; composed uses scores only."),
    metric: str | None = typer.Option(
        None, "--metric", help="Score metric (default: acc; on the OLMo ladder the task's own, len_norm or acc)."
    ),
    chance: str = typer.Option(
        "none", "--chance", help="Fix the floor d: 'auto' (benchmark's chance level), a number, or 'none'."
    ),
    min_train_tokens: str | None = typer.Option(
        None,
        "--min-train-tokens",
        help="Leave out checkpoints trained on fewer tokens, from the fit and the held-out rows. "
        "Default: 3e9 on the Pythia folder (drops the warm-up checkpoints, steps 1 to 1000), none otherwise.",
    ),
    final_only: bool = typer.Option(False, "--final-only", help="Report only each held-out run's last checkpoint."),
    suite: str | None = typer.Option(
        None,
        "--suite",
        help="Pythia suite when --data is the Pythia evals folder (default standard; refused on other data).",
    ),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
) -> None:
    """Held-out check: fit on small reference models, predict the large ones (paper Fig. 2b)."""
    from densing.laws.held_out import validate_held_out
    from densing.present.laws import held_out_summary

    _read(data, suite=suite, read=False)  # validate_held_out reads it
    tokens = min_tokens_option(min_train_tokens, "auto")
    table, about = validate_held_out(
        data,
        _names(benchmark),
        max_params=size_option(max_params, "--max-params"),
        law=law.value,
        metric=metric,
        chance=chance,
        min_train_tokens=tokens,
        final_only=final_only,
        suite=suite or "standard",
    )
    print_frame(table, fmt, title=f"held out: N ≥ {max_params}")
    if fmt is Format.table:
        print(held_out_summary(table, about))


def density(
    fit: list[Path] | None = typer.Option(
        None,
        "--fit",
        help="Reference fit JSON, or a shipped fit's short name (llama-3.1_mmlu); "
        "repeatable. Default: the headline's reference (as densing trend and report).",
    ),
    targets: Path | None = typer.Option(
        None,
        "--targets",
        help="Tidy results of target models. Default: the --table's file, results/public_models.csv without one.",
    ),
    table_name: str | None = typer.Option(
        None,
        "--table",
        help="Target table by name ("
        + ", ".join(registry.tables())
        + "; default: the one whose file --targets is, else the public table): "
        "the file read and, without --fit, the headline set and references.",
    ),
    d0: str | None = typer.Option(
        None,
        "--d0",
        help="With --fit: tokens D0 of the reference model (default: the fit's, "
        "1e12), or 'train_tokens': each target's own token count (its train_tokens column).",
    ),
    level: float = typer.Option(0.95, "--level", help="Confidence level of the intervals."),
    include_poor_fits: bool = typer.Option(
        False,
        "--include-poor-fits",
        help="With several --fit: fold fits with R² < 0.5 into the geometric mean too (default: their rows only).",
    ),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
    wide: bool = typer.Option(
        False, "--wide", help="Tables: every column of the result (as in --format csv), the empty ones too."
    ),
    detail: bool = typer.Option(False, "--detail", help=DETAIL_HELP),
) -> None:
    """Effective parameter size N̂ and capacity density ρ = N̂/N of target models: by default the headline's
    per-model densities (the report's), a censored one shown as its bound (≤, ≥)."""
    profile, source = registry.resolve_table(targets, table_name)  # the table's sets and rules, the file read
    if not fit:
        _headline_density(profile, source, d0, level, include_poor_fits, fmt, wide, detail)
        return
    from densing.data import read_results
    from densing.laws.density import compute_density, density_at_own_tokens
    from densing.laws.reference_fit import ReferenceFit
    from densing.present.laws import extrapolation_summary, extrapolation_words, fit_verdict

    own_tokens = d0 is not None and d0.strip() == "train_tokens"
    d0_tokens = None if own_tokens else d0_option(d0)  # before the fits and the targets are read
    fits = [ReferenceFit.load(paths.resolve_fit(p)) for p in fit]
    if source.is_file() and source.stat().st_size > 5_000_000:  # reading ~150k rows takes seconds
        print_progress(f"reading {source} ({source.stat().st_size / 1e6:.0f} MB) …")
    table = read_results(source)
    if len(table) > 20_000:
        print_progress(f"inverting {len(table)} rows through {len(fits)} fit(s) with their bootstrap draws …")
    options = {"level": level, "include_poor_fits": include_poor_fits}
    result = (
        density_at_own_tokens(table, fits, **options, source=str(source))
        if own_tokens
        else compute_density(table, fits, d0=d0_tokens, **options)
    )
    poor = [
        f"{f.benchmark} ({fit_verdict(f)})" for f in fits if fit_verdict(f) and f.benchmark in set(result["benchmark"])
    ]
    if poor and len(fits) > 1:
        action, hint = ("kept in", "") if include_poor_fits else ("left out of", " (--include-poor-fits keeps them)")
        print(f"note: {action} the geometric mean: {', '.join(poor)}{hint}", file=sys.stderr)  # one line, unfolded
    elif poor:
        print(f"warning: {', '.join(poor)}: do not rely on these densities", file=sys.stderr)
    if fmt is Format.table:
        columns = [
            "model",
            "benchmark",
            "params",
            "score",
            "effective_params",
            "density",
            "bound",
            "density_ci_low",
            "density_ci_high",
            "censored",
        ]
        references = ", ".join(dict.fromkeys(result.loc[result["benchmark"] != "geomean", "reference_fit"].astype(str)))
        print_frame(
            extrapolation_words(result) if wide else result[columns],
            fmt,
            title=f"capacity density under {references} (D0 = {format_count(result['d0'].iloc[0])} tokens)",
            wide=wide,
            together=DENSITY_TOGETHER,
            identifiers=("benchmark",),
        )
        if (summary := extrapolation_summary(result)) is not None:
            print_text(f"note: {summary}")
    else:
        print_frame(extrapolation_words(result), fmt)


def _headline_density(
    profile,
    source: Path,
    d0: str | None,
    level: float,
    include_poor_fits: bool,
    fmt: Format,
    wide: bool,
    detail: bool = False,
) -> None:
    """``densing density`` without ``--fit``: the headline's per-model densities on ``source`` under the registered
    table ``profile`` (:func:`densing.trend.measure.headline_densities`; :func:`densing.registry.resolve_table`, as
    ``densing trend`` resolves ``--results`` and ``--table``)."""
    if d0 is not None:  # never ignored in silence: the headline's references have no data term
        raise InputError(
            f"--d0 {d0.strip()}: the headline's reference is a family at its own budget, which has no data "
            "term, so D0 has no meaning for it; give --fit with a two-step law to invert at D0"
        )
    if include_poor_fits:
        raise InputError(
            "--include-poor-fits: the geometric mean of several --fit; the headline's reference is one "
            "family inverted jointly (give --fit)"
        )
    from densing.laws.density import DENSITY_CONSTRAINTS

    check({"level": DENSITY_CONSTRAINTS["level"]}, level=level)
    from densing.data import read_results
    from densing.trend.measure import headline_densities

    try:
        result = headline_densities(
            read_results(source), since=DEFAULT_EPOCH, epoch=DEFAULT_EPOCH, seed=0, level=level, table=profile
        )
    except FitError as exc:
        raise FitError(f"{source}: {exc}; give --fit to invert through a reference fit") from None
    reference = str(result["reference"].iloc[0]) if len(result) else "—"
    if fmt is not Format.table:
        print_frame(result, fmt)
        return
    columns = [
        c
        for c in (
            "model",
            "params",
            "effective_params",
            "density",
            "density_ci_low",
            "density_ci_high",
            "bound",
            "release_date",
            "family",
        )
        if c in result.columns
    ]
    bounded = result["reading"].isin(["upper bound", "lower bound"]).sum()
    censored = result["bound"].astype(str).isin(["upper bound", "lower bound"]).sum()
    if detail:
        models = counted_noun(len(result), "model")
        print_frame(
            result if wide else result[columns],
            fmt,
            wide=wide,
            together=DENSITY_TOGETHER,
            title=f"capacity density of the headline's targets ({models} released since "
            f"{DEFAULT_EPOCH}, densest first) under its reference {reference} (the family's own budget, "
            f"D0 = {format_count(result['d0'].iloc[0])} tokens)",
        )
        print_text(
            f"note: the report's per-model densities ({result.attrs.get('headline_set', 'the headline set')}); "
            f"{bounded} {'is a bound' if bounded == 1 else 'are bounds'} ({censored} censored — ρ ≤ x: the score is at or below what the reference "
            f"resolves; ρ ≥ x: above it — and {bounded - censored} by their 95% interval, which reaches 0 or ∞, "
            "or by a score at chance: the interval's other end is the bound); another reference: --fit NAME"
        )
    else:
        _density_screen(result, result.attrs["reference"].family, int(bounded), wide)
    print_text(_density_closing(result))


def _density_screen(result, family: str, bounded: int, wide: bool) -> None:
    """``densing density`` on one screen: the densest :data:`~densing.cli.layout.DENSITY_ROWS` models."""
    print_text(
        f"Capacity density ρ = N̂/N under the headline's lead reference, {family} at its own budget: one of the "
        f"references the headline pools, over the targets it inverts (its own family's models are not among "
        f"them), densest first; {result.attrs.get('headline_set', 'the headline set')}, "
        f"{counted_noun(len(result), 'model')}."
    )
    # a bound's sign is in its ρ cell and the line below says what it means; its cause is in --detail
    columns = [
        c for c in ("model", "density", "density_ci_low", "density_ci_high", "release_date") if c in result.columns
    ]
    print_frame(result[columns].head(DENSITY_ROWS), Format.table, wide=wide, together=DENSITY_TOGETHER)
    rest = len(result) - DENSITY_ROWS
    more = f"{rest} more models, every column: --detail or --format csv" if rest > 0 else "every column: --detail"
    print_text(f"{more}; ρ ≤ x / ≥ x: a bound ({bounded} of {len(result)}); another reference: --fit NAME")


def _density_closing(result) -> str:
    """The last line of ``densing density``: the densest model's density with its interval, and the median."""
    if not len(result):
        return closing(["No model to show"])
    top = result.iloc[0]
    median = format_number(float(result["density"].median()))
    return closing(
        [
            f"Densest: {top['model']}, ρ = {format_number(float(top['density']))} (95% CI "
            f"{format_number(float(top['density_ci_low']))}–{format_number(float(top['density_ci_high']))})",
            f"median ρ {median} over {counted_noun(len(result), 'model')}",
        ]
    )
