"""``densing trend | report``: the density trend over release dates, and the HTML report."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from densing import paths, registry
from densing.cli import designs
from densing.cli.layout import DETAIL_HELP, ROW_TOGETHER, browser_lines, closing, command_words, counted
from densing.cli.output import (
    FORMAT_HELP,
    SEED_HELP,
    Format,
    announced,
    d0_option,
    draws_option,
    print_document,
    print_frame,
    print_text,
    print_texts,
    working,
)
from densing.cli.output_files import output_option
from densing.cli.pooled import ALL_HELP, ALL_TABLES
from densing.constants import DEFAULT_EPOCH, PAPER
from densing.errors import InputError
from densing.io import atomic_write_text, check_outputs_apart, check_writable
from densing.numbers import format_count, parse_date
from densing.validation import ExistingPath, validate

EPOCH_HELP = "t = 0 (default: Llama-1's release)."
SINCE_HELP = "Only models released on or after this date ('none': all)."
RESULTS_HELP = "Target results (default: results/public_models.csv)."
FIT_HELP = "Reference fit (default: the one the reference rule chooses, see README)."
D0_HELP = (
    "Tokens D0 of the inversion: with --fit of a law with a data term, or --design olmes (default 1T); "
    "refused for the reference rule's family references, which have none."
)
N_BOOT_HELP = "Bootstrap draws of the headline rule (fit × score × models; 40 to 100,000)."
#: Seconds a command runs before its spinner shows (on a terminal): the shipped table's trend and report finish first.
PROGRESS_AFTER_S = 5.0
WIDE_HELP = "Tables: keep the columns with nothing in them (and, where a command has more, every column)."


By = Enum("By", {name: name for name in ("headline", "benchmark")}, type=str)  # --by

#: The sections of the measurement (:data:`densing.trend.plan.SECTIONS`) each output of the headline shows and
#: computes; ``--by benchmark`` computes every section, but on its screen (the rows, their notes and the order
#: breaks; not the rows at one budget, the sensitivity, the breakpoint, the densities or each row's slopes without
#: each kind of bound, readings and leave-one-out tables: ``--detail`` shows those).
SHOWN = {
    "screen": (),
    "csv": (),
    "detail": ("sensitivity", "breakpoint", "row_details"),
    "json": ("sensitivity", "breakpoint", "order_breaks", "row_details"),
    "by benchmark screen": ("rows", "order_breaks"),
}


#: The main design: the leaderboard-based measurement of a target table (every other name is a registered design).
LEADERBOARD = "leaderboard"
DESIGN_HELP = (
    f"'{LEADERBOARD}' (default): the leaderboard-based measurement of --table; "
    + "; ".join(f"'{name}': {registry.designs()[name].help}" for name in designs.runnable())
    + " (a design is a folder of densing/designs, its printing a module of densing/cli/designs)."
)


def _since(text: str | None, option: str = "--since") -> str | None:
    """'none' or an ISO date (one line naming the option otherwise)."""
    if text in (None, "none"):
        return None
    return parse_date(text, field=option.lstrip("-"), where=option).strftime("%Y-%m-%d")


TABLE_HELP = (
    "Target table by name (the default: the public table, results/public_models.csv): "
    + "; ".join(f"'{name}': {table.words}" for name, table in registry.tables().items())
    + f"; {ALL_HELP}. With --results, the table's benchmarks and sets applied to that file."
)


def trend(
    results: Path | None = typer.Option(None, "--results", help=RESULTS_HELP),
    fit: Path | None = typer.Option(None, "--fit", help=FIT_HELP),
    d0: str | None = typer.Option(None, "--d0", help=D0_HELP),
    epoch: str = typer.Option(DEFAULT_EPOCH, "--epoch", help=EPOCH_HELP),
    since: str | None = typer.Option(DEFAULT_EPOCH, "--since", help=SINCE_HELP),
    n_boot: int = typer.Option(
        600, "--n-boot", help=N_BOOT_HELP + " Work that its first parts show will take over a minute more is announced."
    ),
    seed: int = typer.Option(0, "--seed", help=SEED_HELP),
    by: By = typer.Option(
        By.headline,
        "--by",
        help="'benchmark': one row per benchmark and per benchmark set (the Densing Law by capability).",
    ),
    design: str = typer.Option(LEADERBOARD, "--design", help=DESIGN_HELP),
    table_name: str | None = typer.Option(None, "--table", help=TABLE_HELP),
    without_continual: bool = typer.Option(
        False,
        "--without-continual",
        help="Drop the models marked as continual pre-training of another (the Swallow tables' derivation column).",
    ),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
    wide: bool = typer.Option(False, "--wide", help=WIDE_HELP),
    detail: bool = typer.Option(False, "--detail", help=DETAIL_HELP),
) -> None:
    """Density trend ln ρmax = A·t + B with fit, score and model uncertainty, validity checks, and the headline (or why it is withheld)."""
    if table_name == ALL_TABLES:  # the three tables' pooled law (densing.cli.pooled)
        _pooled(results, fit, d0, epoch, since, n_boot, seed, by, without_continual, fmt)
        return
    profile, path = registry.resolve_table(results, table_name)  # the table's sets and rules, the file read
    d0_tokens = d0_option(d0)  # before any work, for either design
    if design != LEADERBOARD:  # --table with it is refused by densing.cli.app.EXCLUSIVE
        choices = designs.runnable()
        if design not in choices:
            raise InputError(f"--design: expected one of {', '.join([LEADERBOARD, *choices])}, got {design!r}")
        draws_option(n_boot, seed)
        designs.PRINTERS[design].run(
            {
                "results": results,
                "fit": fit,
                "d0": d0_tokens,
                "since": _since(since),
                "epoch": _since(epoch, "--epoch") or DEFAULT_EPOCH,
                "n_boot": n_boot,
                "seed": seed,
                "fmt": fmt,
                "wide": wide,
                "detail": detail,
            }
        )
        return
    draws_option(n_boot, seed)
    if fmt is not Format.table:
        output = fmt.value
    elif detail:
        output = "detail"
    else:
        output = "screen"
    if by is By.benchmark:
        shown = SHOWN["by benchmark screen"] if output == "screen" else "all"
    else:
        shown = SHOWN[output]
    with working(f"measuring the trend of {path.name} …", after=PROGRESS_AFTER_S):
        result, forecast = announced(
            lambda draws: _measure(
                path, profile, fit, d0_tokens, since, epoch, draws, seed, by, without_continual, shown
            ),
            n_boot,
            "trend",
            "the trend",
        )
    benchmark = by is By.benchmark
    if fmt is Format.json:
        from densing.present import records
        from densing.present.shown import verdict_of
        from densing.present.words import FOLD_LEGEND, budget_notes

        document = (
            dict(
                rows=records.by_benchmark(result),
                fold=FOLD_LEGEND,
                verdict=verdict_of(result),
                at_budget=records.by_benchmark_at_budget(result),
                at_budget_notes=budget_notes(result),
                cross_check=records.cross_check(result),
                influence=result.influence(),
                labs=result.labs(),
                **({"forecast": forecast} if forecast else {}),
            )
            if benchmark
            else records.document(result)
        )
        print_document(document.pop("rows"), **document)
        return
    if fmt is Format.csv:
        from densing.present.records import measurement_frame

        print_frame(measurement_frame(result, by="benchmark" if benchmark else "rule"), fmt)
        return
    if benchmark and detail:
        _print_by_benchmark_detail(result, forecast, wide)
    elif benchmark:
        _print_by_benchmark_screen(result, forecast)
    else:
        shipped = path.resolve() == profile.path.resolve() and fit is None and d0_tokens is None  # measured as shipped
        if detail:
            _print_headline_detail(result, wide, table=profile.name if shipped else None)
        else:
            _print_headline_screen(result, beside=profile.leads and shipped, forecast=forecast)
    print_text(_closing(result))


def _pooled(results, fit, d0, epoch, since, n_boot, seed, by, without_continual, fmt) -> None:
    """``densing trend --table all`` (:func:`densing.cli.pooled.run`), once every option it does not take is refused."""
    from densing.cli import pooled

    pooled.refuse_options(
        {
            "--results": results is not None,
            "--fit": fit is not None,
            "--d0": d0 is not None,
            "--epoch": epoch != DEFAULT_EPOCH,
            "--since": since != DEFAULT_EPOCH,
            "--by": by is not By.headline,
            "--without-continual": without_continual,
        }
    )
    draws_option(n_boot, seed)
    pooled.run(n_boot=n_boot, seed=seed, fmt=fmt)


def _measure(path, profile, fit, d0_tokens, since, epoch, n_boot, seed, by, without_continual, shown):
    """The measurement ``densing trend`` prints (the registered protocol's, with its forecast check, for ``--by
    benchmark`` on a registered table with no --fit or --d0) → (measurement, forecast or None)."""
    from densing.data import read_results
    from densing.laws.reference_fit import ReferenceFit
    from densing.trend.measure import measure_trend, require_set_benchmarks

    targets = read_results(path)
    if fit is None:  # a given fit brings its own benchmarks
        require_set_benchmarks(targets, profile, path)
    start, since = _since(epoch, "--epoch") or DEFAULT_EPOCH, _since(since)
    if by is By.benchmark and fit is None and d0_tokens is None and profile.cutoff is not None:
        from densing.present.records import forecast_record
        from densing.trend.protocol import measure_table

        found = measure_table(
            targets, profile.name, continual=not without_continual, since=since, epoch=start, n_boot=n_boot, seed=seed
        )
        return found.measured, forecast_record(found.forecast)
    if without_continual:
        from densing.trend.protocol import without_continual as drop_continual

        targets = drop_continual(targets)
    result = measure_trend(
        targets,
        fit=None if fit is None else ReferenceFit.load(paths.resolve_fit(fit)),
        d0=d0_tokens,
        since=since,
        epoch=start,
        n_boot=n_boot,
        seed=seed,
        table=profile,
        sections=shown,
    )
    if fit is None and d0_tokens is None and profile.cutoff is not None:  # the declared check beside the headline
        from densing.present.records import forecast_record
        from densing.trend.protocol import declared_forecast

        found = declared_forecast(targets, result, profile.name, since=since, epoch=start, seed=seed, grid=False)
        return result, forecast_record(found)
    return result, None


#: ``--by benchmark``'s columns at the terminal (``--wide``: all of them).
BY_BENCHMARK_SHOWN = [
    "row",
    "months",
    "ci_low",
    "ci_high",
    "status",
    "n_models",
    "slope_per_day",
    "slope_ci_low",
    "slope_ci_high",
    "heterogeneity",
    "capability",
    "each_reference_months",
]


def _print_by_benchmark_screen(result, forecast) -> None:
    """``densing trend --by benchmark``, one screen: the verdict, each row's months, interval and state (the reasons
    numbered below), what ``--detail`` adds."""
    from densing.present.records import by_benchmark
    from densing.present.shown import verdict_of
    from densing.present.words import budget_notes, ends_shown, fold_legend, row_parts, short_statuses, shown_legend

    print_text(verdict_of(result))
    table = by_benchmark(result)
    cells, reasons = short_statuses([row_parts(r) for r in (*result.benchmark_rows, *result.set_rows)])
    shown = ends_shown(table)
    shown = shown[[c for c in ("row", "months", "ci_low", "ci_high") if c in shown.columns]].assign(status=cells)
    print_frame(
        shown,
        Format.table,
        keys=1,
        together=ROW_TOGETHER,
        title="doubling time in months per benchmark and benchmark set, with its 95% interval",
    )
    results = [r.result for r in (*result.benchmark_rows, *result.set_rows)]
    print_texts(*reasons, shown_legend(table), fold_legend(results), _declared_line(forecast))
    sets = table[table["capability"] == "set"] if "capability" in table.columns else table.iloc[0:0]
    if len(sets):  # a set's short id beside its name in words, as the report and the README name it
        print_text("sets: " + "; ".join(f"{r.row} = {r.label}" for r in sets.itertuples()))
    notes = [*_order_break_lines(result), *(f"at one budget, {n}: {v}" for n, v in budget_notes(result).items())]
    more = [
        "slopes, heterogeneity, each reference's months",
        "the two estimators' cross-check",
        "the rows at one budget",
    ] + (["the forecast check's grid of cutoffs"] if forecast else [])
    line = counted(notes, "notes", "--detail lists them")
    print_text(f"--detail: {', '.join(more)}" + (f" ({line})" if line else ""))


def _print_by_benchmark_detail(result, forecast, wide: bool) -> None:
    """``--by benchmark --detail``: every column, the cross-check, the budget rows, the forecast check."""
    import pandas as pd

    from densing.present.records import by_benchmark, by_benchmark_at_budget, cross_check
    from densing.present.shown import verdict_of
    from densing.present.words import budget_notes, ends_shown, fold_legend, shown_legend
    from densing.trend.capability import BUDGET_D0

    rows, budget_rows = by_benchmark(result), by_benchmark_at_budget(result)
    table, budget = ends_shown(rows, keep=wide), ends_shown(budget_rows, keep=wide)
    print_text(verdict_of(result))
    shown = [c for c in BY_BENCHMARK_SHOWN if c in table.columns]
    print_frame(
        table if wide else table[shown],
        wide=wide,
        keys=1,
        together=ROW_TOGETHER,
        title="doubling time in months per benchmark and benchmark set (common targets per row: every reference "
        "inverts the same benchmarks for the same targets; pooled by random effects); slope A of ln ρmax "
        "per day with its 95% interval; each reference's own months with its 95% interval",
    )
    print_texts(
        shown_legend(pd.concat([rows, budget_rows], ignore_index=True)),
        fold_legend(r.result for r in (*result.benchmark_rows, *result.set_rows, *result.budget_rows)),
        *_order_break_lines(result),
    )
    cross = ends_shown(cross_check(result), keep=wide)
    if len(cross):
        print_frame(
            cross,
            wide=wide,
            keys=1,
            together=ROW_TOGETHER,
            title="two estimators of the same law: the frontier of densities under the references, and the "
            "fixed-size time regression (logit of the score above chance ~ ln N + t, clustered by "
            "family; no reference)",
        )
    if len(budget):
        print_frame(
            budget if wide else budget[[c for c in shown if c in budget.columns]],
            wide=wide,
            keys=1,
            together=ROW_TOGETHER,
            title=f"budget sensitivity: the same rows with every reference's members brought to "
            f"D0 = {format_count(BUDGET_D0)} tokens through the loss law of Hoffmann et al. 2022",
        )
        for name, note in budget_notes(result).items():
            print_text(f"at one budget, {name}: {note}")
    if forecast:
        declared = [dict(forecast["declared"], declared=True)] if forecast.get("declared") else []
        print_frame(
            pd.DataFrame(declared + [dict(c, declared=False) for c in forecast["cutoffs"]]),
            wide=wide,
            title=f"forecast check: the {forecast['row']} row's frontier line fitted on the models up to the "
            f"table's declared cutoff (its verdict) and up to each cutoff of the rule's grid (at least "
            f"12 months of them), carried to the later ones",
        )
        print_text(forecast["summary"])


def _closing(result) -> str:
    """The last line of ``densing trend``: the headline's doubling time beside the paper's."""
    from densing.present.verdict import closing_words

    return closing([closing_words(result), f"paper: {PAPER['doubling_time_months']} months"])


def _order_break_lines(result) -> list[str]:
    breaks = () if result.order_breaks is None else result.order_breaks.itertuples(index=False)
    return [
        f"order break in a reference family: {r.model} scores below the smaller {r.smaller_model} on "
        f"{r.benchmarks} beyond 2 standard errors ({r.in_fit} in {r.family}'s fits)"
        for r in breaks
    ]


def _declared_line(forecast) -> str | None:
    """The forecast check at the table's declared cutoff in one line (None where there is none)."""
    from densing.present.findings import cutoff_words

    found = (forecast or {}).get("declared")
    return None if not found else (f"forecast check of {forecast['row']} at its declared cutoff {cutoff_words(found)}")


def _print_headline_screen(result, beside: bool = False, forecast=None) -> None:
    """``densing trend``, one screen: the verdict, the rules' months, the forecast check at the table's declared
    cutoff, the checks and notes counted; ``beside``: each design's line after them."""
    from densing.present.shown import verdict_of
    from densing.present.words import FOLD_LEGEND, fold_legend, rule_ends_shown, rules_legend

    print_text(verdict_of(result))
    table = rule_ends_shown(result.table(), result.rules.values())
    print_frame(
        table[["rule", "months", "ci_low", "ci_high", "n_models", "draws"]],
        Format.table,
        keys=1,
        together=("months", "ci_low", "ci_high"),
        title=f"doubling time in months by frontier rule (headline: {result.headline_rule}), 95% interval, "
        f"at each rule's draws",
    )
    print_texts(rules_legend(result.rules.values()), _declared_line(forecast))
    failed = [c.name for c in result.checks if c.failed]
    notes = [f"{rule}: {error}" for rule, error in result.rule_errors.items()]
    checks = f"{len(result.checks)} checks, {len(failed)} failed" + (f" ({', '.join(failed)})" if failed else "")
    line = counted(notes, "notes", "listed there")
    print_text(
        f"--detail: why, {checks}, the references, the sensitivity, the breakpoint"
        + (f"; {line}" if line else "")
        + "; per benchmark: --by benchmark"
        + "; every family left out: --format json"
    )
    lines = designs.lines() if beside else []
    print_texts(*lines)
    if lines:  # a stored row's status may say "-fold": said once under them
        print_text(FOLD_LEGEND)
    else:
        print_texts(fold_legend([result.rules.get(result.headline_rule)]))


def _print_headline_detail(result, wide: bool, table: str | None = None) -> None:
    """``densing trend --detail``: the why, every table and the breakpoint; ``table``, a registered table measured as
    shipped: the headline row's bias in planted worlds built like it, and its corrected figure where the bias exceeds
    5% (:mod:`densing.present.bias`); what "-fold" is, once (the sensitivity's statuses say it); the single most
    influential target and the headline row's knife edges (:mod:`densing.present.knife_edge`)."""
    from densing.present import records
    from densing.present.shown import rests_on, verdict_of, why
    from densing.present.words import FOLD_LEGEND, rule_ends_shown, rules_legend

    print_text(verdict_of(result))
    print_text(why(result))
    print_texts(rests_on(result))
    if table is not None:
        from densing.present.bias import bias_words
        from densing.trend.bias import measurement_row

        print_texts(bias_words(measurement_row(result, table)))
    print_frame(
        rule_ends_shown(result.table(), result.rules.values()),
        keys=1,
        together=("months", "ci_low", "ci_high"),
        title=f"doubling time in months and slope A of ln ρmax per day by frontier rule, each with its 95% "
        f"interval at the rule's draws (headline: {result.headline_rule}); shares of the slope variance",
        wide=wide,
    )
    print_texts(rules_legend(result.rules.values()), FOLD_LEGEND)
    for rule, error in result.rule_errors.items():
        print_text(f"note: {rule} rule not fitted: {error}")
    print_text(
        "note: the envelope row's interval is optimistic (its points are chosen on the response); the headline rule is the censored quantile"
    )
    print_frame(records.checks_table(result), title="validity checks of the headline inversion", wide=wide)
    print_frame(
        records.references_frame(result),
        keys=1,
        together=("months", "ci_low", "ci_high"),
        identifiers=("benchmarks",),
        title="the headline's references (pooling weight; months: its own doubling time with its 95% interval "
        "over the same paired draws)",
        wide=wide,
    )
    head = result.rules.get(result.headline_rule)
    if head is not None and len(head.lab_influence):
        print_frame(
            head.lab_influence_frame(),
            keys=1,
            title="leave one lab out: the headline without each lab's "
            "targets (the references and their weights kept), the largest move first",
            wide=wide,
        )
    if head is not None:
        from densing.present.knife_edge import knife_edge_words
        from densing.present.verdict import influential_target_words

        print_texts(influential_target_words(head), knife_edge_words(result.knife_edges()))
    print_frame(
        records.sensitivity_frame(result),
        keys=2,
        together=("months", "doubling_time_months", "ci_low", "ci_high", "status"),
        title="sensitivity of the headline, one engine: each reference, the other frontier rules, every "
        "reference at one budget, the family law's other shape",
        wide=wide,
    )
    print_text(records.breakpoint_line(result))
    print_text("per benchmark: densing trend --by benchmark; every family left out: densing trend --format json")


def report(
    out: Path = output_option(
        Path("report.html"),
        "--out",
        file="report.html",
        holds="the HTML report",
        help="HTML file to write (atomically; missing folders are made).",
    ),
    results: Path | None = typer.Option(None, "--results", help=RESULTS_HELP),
    fit: Path | None = typer.Option(None, "--fit", help=FIT_HELP),
    d0: str | None = typer.Option(None, "--d0", help=D0_HELP),
    frontier: str = typer.Option(
        "quantile",
        "--frontier",
        help="Frontier rule drawn in the report's density figure: any rule "
        "registered in densing.trend.rules (built in: quantile, the headline rule; all; envelope).",
    ),
    epoch: str = typer.Option(DEFAULT_EPOCH, "--epoch", help=EPOCH_HELP),
    since: str | None = typer.Option(DEFAULT_EPOCH, "--since", help=SINCE_HELP),
    n_boot: int = typer.Option(600, "--n-boot", help=N_BOOT_HELP),
    seed: int = typer.Option(0, "--seed", help=SEED_HELP),
    traces: Path | None = typer.Option(
        None, "--traces", help="Add an overlap section from PyTorch-profiler traces in this folder."
    ),
    table_name: str | None = typer.Option(None, "--table", help=TABLE_HELP),
) -> None:
    """Write the self-contained HTML report and print its headline."""
    check_outputs_apart({"--out": out}, {"--results": results, "--fit": fit, "--traces": traces})  # never an input
    check_writable(out)  # first: an output that cannot be written is said before anything is imported or computed
    draws_option(n_boot, seed)
    d0_tokens = d0_option(d0)
    target = registry.resolve_table(results, table_name)  # the table's sets and rules, the file read: once
    from densing.report.render import build_report

    validate({"traces": [ExistingPath("folder"), None]}, traces=traces)
    words = command_words(
        "report",
        {
            "--out": out,
            "--frontier": frontier,
            "--epoch": epoch,
            "--since": since or "none",
            "--n-boot": n_boot,
            "--seed": seed,
            "--results": results,
            "--fit": fit,
            "--d0": d0,
            "--traces": traces,
            "--table": table_name,
        },
    )
    shown = target.path.name if results else target.table.words
    with working(f"computing the report of {shown} …", after=PROGRESS_AFTER_S):
        html, measurement, _ = build_report(
            target=target,
            headline_fit=fit,
            d0=d0_tokens,
            frontier=frontier,
            epoch=_since(epoch, "--epoch") or DEFAULT_EPOCH,
            since=_since(since),
            n_boot=n_boot,
            seed=seed,
            traces=traces,
            command=words,
        )
    atomic_write_text(out, html)
    from densing.present.shown import verdict_of

    print_text(verdict_of(measurement))
    print_text(_closing(measurement))
    for line in browser_lines(out):
        print(line)  # whole, never folded: the path is copied from it
