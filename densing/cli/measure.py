"""``densing measure``: your models on the density chart (evaluated with ``--models``, or ``--scores`` you have)."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from numbers import Integral
from pathlib import Path

import typer

from densing import registry
from densing.cli.layout import browser_lines, closing, command_words
from densing.cli.output import Format, announced, draws_option, print_frame, print_progress, print_text, size_option
from densing.cli.output_files import output_option
from densing.cli.pooled import ALL_TABLES
from densing.errors import InputError
from densing.io import atomic_write_text, check_outputs_apart, check_writable, check_writable_folder, create_new_text
from densing.paths import default_store
from densing.present.placement import answer
from densing.validation import Device, ExistingPath, Interval, Options, validate


def measure(
    models: Path | None = typer.Option(
        None, "--models", help="Models file (.yaml or .csv), as for 'densing eval': evaluate them, then place them."
    ),
    scores: Path | None = typer.Option(
        None,
        "--scores",
        help="Scores you already have: a table (tidy, or one row per "
        "model as results/public_models.csv) or an lm-eval results JSON; placed "
        "without evaluating (with a model's size and date: its columns, or --params "
        "and --release-date).",
    ),
    template: Path | None = output_option(
        None,
        "--template",
        file="scores.csv",
        holds="the scores file to fill in",
        streams=True,
        help="Write a scores file to fill in (one row per "
        "model, a column per headline benchmark) to this new file ('-': stdout; missing folders are made), "
        "and stop; an existing file is refused.",
    ),
    model_name: str | None = typer.Option(
        None, "--model", help="With --scores: the model's name (an lm-eval JSON's own, else its file's)."
    ),
    params: str | None = typer.Option(None, "--params", help="With --scores: the model's parameter count (7e9, 7B)."),
    release_date: str | None = typer.Option(
        None, "--release-date", help="With --scores: the model's release date (YYYY-MM-DD)."
    ),
    suite: str = typer.Option(
        "leaderboard-v1", "--suite", help="The public protocol: leaderboard-v1, leaderboard-v2 or swallow-en."
    ),
    local_data: bool = typer.Option(False, "--local-data", help="Run the suite's benchmarks on local splits (no Hub)."),
    data_root: Path | None = typer.Option(
        None, "--data-root", help="Folder holding benchmarks/ (default: $DENSING_SHARED_DATA or ../shared/data)."
    ),
    limit: float | None = typer.Option(
        None,
        "--limit",
        metavar="N",
        help="At most N items per task, a whole number (MMLU: N in each of its subjects); the intervals are those of the items scored.",
    ),
    out: Path | None = output_option(
        None,
        "--out",
        file="report.html",
        holds="the HTML report",
        help="HTML report to write (atomically; missing folders are made; default report.html with "
        "--models, none with --scores).",
    ),
    store: Path | None = typer.Option(
        None,
        "--store",
        help="Results store, a folder (a rerun reuses its pairs; default: $XDG_CACHE_HOME/densing/store, "
        "else ~/.cache/densing/store).",
    ),
    csv: Path | None = output_option(
        None,
        "--csv",
        file="placed.csv",
        holds="the placed rows",
        help="Also write one row per model (scores, density, verdict) as CSV (missing folders are made).",
    ),
    backend: str = typer.Option(
        "hf",
        "--backend",
        help="Any name in lm-eval's model registry (hf, vllm and others) "
        "or densing-hf (densing's prefix engine: hf's numbers, shared prompt prefixes computed once).",
    ),
    device: str | None = typer.Option(None, "--device", help="torch device (default: cuda if available, else cpu)."),
    batch_size: str = typer.Option("1", "--batch-size", help="Batch size, or 'auto'."),
    prefix_cache: bool = typer.Option(
        False, "--prefix-cache", hidden=True, help="Deprecated: the same as --backend densing-hf."
    ),
    allow_unsafe_code: bool = typer.Option(
        False, "--allow-unsafe-code", help="Allow tasks that run model-written code (HumanEval, as densing eval)."
    ),
    table_name: str | None = typer.Option(
        None,
        "--table",
        help="The target table placed against, by name ("
        + ", ".join(registry.tables())
        + "; default: the public table with "
        "--scores, the suite's with --models; 'all': the three tables' pooled law, "
        "with --scores and --protocol); with --template, its headline set's "
        "columns. --table openllm_v2 places MMLU-Pro, BBH and MATH-hard scores on "
        "the Open LLM Leaderboard v2's own headline.",
    ),
    n_boot: int = typer.Option(
        600,
        "--n-boot",
        help="Bootstrap draws of the headline trend (its default; at most "
        "100,000; work that its first parts show will take over a minute more is announced).",
    ),
    seed: int = typer.Option(
        0,
        "--seed",
        help="Seed of the headline's random draws (bootstrap, sampling) and, with each "
        "model's own numbers, of that model's interval draws: the same seed, the same numbers.",
    ),
    allow_missing: bool = typer.Option(
        False,
        "--allow-missing",
        help="With --scores: place a model from the benchmarks "
        "it has where it lacks a score the headline inverts (refused otherwise); the "
        "last line names what was left out.",
    ),
    protocol: str | None = typer.Option(
        None,
        "--protocol",
        help="With --table all: the table whose harness scored "
        "--scores (public, openllm_v2 or swallow); its ln ρ is computed there and "
        "mapped to the pooled law's common scale. Default: the one table whose "
        "headline benchmarks the file holds, refused where it cannot be told.",
    ),
) -> None:
    """Place your models on the density chart — evaluated on a public protocol (--models), or from scores you already
    have (--scores): density with its 95% interval or bound, above, within or below the frontier's band at its date;
    writes the report with them highlighted."""
    if table_name == ALL_TABLES:  # the three tables' pooled law (densing.cli.pooled_measure)
        from densing.cli.pooled_measure import place_on_pooled

        place_on_pooled(
            scores=scores,
            protocol=protocol,
            models=models,
            template=template,
            model=model_name,
            params=params,
            release_date=release_date,
            out=out,
            csv=csv,
            n_boot=n_boot,
            seed=seed,
            allow_missing=allow_missing,
        )
        return
    if protocol is not None:
        raise InputError(
            "--protocol: names the protocol of --scores placed against the pooled law (--table all); "
            "one table's placement reads its own"
        )
    # the one resolution of the table (a bad name, first), handed down; without --table, the path taken resolves the
    # default it places against (the public table with --scores, the suite's with --models)
    target = registry.resolve_table(table=table_name) if table_name is not None else None
    if template is not None:
        _write_template(template, table_name, target)
    elif scores is not None:
        _place_scores(scores, model_name, params, release_date, out, csv, n_boot, seed, target, allow_missing)
    elif models is None:
        raise InputError("give --models (a models file: evaluate, then place) or --scores (a scores file: place)")
    else:
        _evaluate(
            models,
            suite,
            local_data,
            data_root,
            limit,
            Path("report.html") if out is None else out,
            store,
            csv,
            backend,
            device,
            batch_size,
            prefix_cache,
            allow_unsafe_code,
            table_name,
            target,
            n_boot,
            seed,
        )


def _evaluate(
    models: Path,
    suite: str,
    local_data: bool,
    data_root,
    limit,
    out: Path,
    store,
    csv,
    backend: str,
    device,
    batch_size: str,
    prefix_cache: bool,
    allow_unsafe_code: bool,
    table_name,
    target,
    n_boot: int,
    seed: int,
) -> None:
    """``densing measure --models``: every input checked, the headline measured (announced where long), the models
    evaluated on the suite and placed on ``target`` (the ``--table`` resolved; None: the suite's, resolved once by
    :func:`densing.placement.measure.plan`); the report, the CSV rows and the answer's line."""
    from densing.eval.backends import with_prefix_cache
    from densing.placement.measure import measure as run, plan
    from densing.placement.own_scores import shown_names

    batch, store = _checked_options(batch_size, n_boot, seed, device, data_root, store, out, csv)
    backend = with_prefix_cache(backend, prefix_cache)  # --prefix-cache: deprecated, --backend densing-hf
    checked = plan(
        models,
        suite,
        limit=limit,
        local_data=local_data,
        data_root=data_root,
        backend=backend,
        device=device,
        store=store,
        target=target,
    )
    if checked.left_out:
        typer.echo(
            f"--suite {checked.suite} --local-data: {', '.join(checked.left_out)} left out (no local split)", err=True
        )
    started = time.monotonic()

    def say(line: str) -> None:
        print(f"[{time.monotonic() - started:7.0f} s] {line}", file=sys.stderr, flush=True)

    say(f"measuring the headline trend on {checked.target.table.words} ({n_boot} draws) …")
    headline = measure_headline(checked.target, n_boot, seed, report=True)
    result = run(
        list(checked.specs),
        checked.suite,
        limit=limit,
        local_data=local_data,
        data_root=data_root,
        store=store,
        target=checked.target,
        n_boot=n_boot,
        seed=seed,
        backend=backend,
        device=device,
        batch_size=batch,
        on_progress=say,
        allow_unsafe_code=allow_unsafe_code,
        measurement=headline,
    )
    say("writing the report …")
    words = command_words(
        "measure",
        {
            "--models": models,
            "--suite": checked.suite,
            "--out": out,
            "--store": store,
            "--n-boot": n_boot,
            "--seed": seed,
            "--local-data": local_data,
            "--allow-unsafe-code": allow_unsafe_code,
            "--backend": backend,
            "--data-root": data_root,
            "--limit": limit,
            "--csv": csv,
            "--device": device,
            "--table": table_name,
        },
    )
    shown = shown_names(checked.target.table)
    _write(result, out, csv, words, n_boot, seed, checked.target, shown)
    print_text_closing(result, shown, f"{out}'s table" + (f" and in {csv}" if csv is not None else ""))


def _place_scores(
    scores: Path,
    model: str | None,
    params: str | None,
    release_date: str | None,
    out: Path | None,
    csv: Path | None,
    n_boot: int,
    seed: int,
    target=None,
    allow_missing: bool = False,
) -> None:
    """``densing measure --scores``: the scores file placed against the headline of ``target``
    (:func:`densing.registry.resolve_table`; None: the shipped public table)."""
    check_outputs_apart({"--out": out, "--csv": csv}, {"--scores": scores})
    draws_option(n_boot, seed)
    for path in (out, csv):
        if path is not None:
            check_writable(path)
    from densing.placement.own_scores import check_complete, place, read_scores, scores_suite, shown_names

    size = size_option(params, "--params")
    table = read_scores(scores, model=model, params=size, release_date=release_date)  # a bad file: said before the fit
    target = target or registry.resolve_table()
    shown = shown_names(target.table)
    check_complete(
        table, target.table.sets[target.table.headline_set][1], str(scores), allow_missing, shown, "--allow-missing"
    )  # before the headline's draws
    print_progress(f"measuring the headline on {target.table.words} …")
    headline = measure_headline(target, n_boot, seed, report=out is not None)
    result = replace(
        place(
            table,
            n_boot=n_boot,
            seed=seed,
            target=target,
            measurement=headline,
            allow_missing=allow_missing,
        ),
        suite=scores_suite(scores),
    )
    from densing.present.placed import placement_summary

    print_text(placement_summary(result))  # the placement in words (one paragraph per model) and one table
    _print_placed_table(result)
    words = command_words(
        "measure",
        {
            "--scores": scores,
            "--out": out,
            "--n-boot": n_boot,
            "--seed": seed,
            "--model": model,
            "--params": params,
            "--release-date": release_date,
            "--table": None if target.table.leads else target.table.name,
            "--allow-missing": allow_missing,
        },
    )
    _write(result, out, csv, words, n_boot, seed, target, shown, summary=False)
    print_text_closing(result, shown, "the table above" + (f" and in {csv}" if csv is not None else ""))


#: The columns of ``densing measure --scores``' table of placed models, in order (those the result holds).
PLACED_COLUMNS = (
    "model",
    "density",
    "density_ci_low",
    "density_ci_high",
    "bound",
    "effective_params",
    "effective_params_ci_low",
    "effective_params_ci_high",
    "release_date",
    "frontier_density_ci_low",
    "frontier_density_ci_high",
    "band",
)


def _print_placed_table(result) -> None:
    """The placed models' table of ``densing measure --scores``: :data:`PLACED_COLUMNS`, the band's ends as
    ``band_low``/``band_high``, each density printed with its interval or bound."""
    frame = result.to_frame()
    columns = [c for c in PLACED_COLUMNS if c in frame.columns]
    print_frame(
        frame[columns].rename(columns={"frontier_density_ci_low": "band_low", "frontier_density_ci_high": "band_high"}),
        Format.table,
        keys=1,
        together=("density", "density_ci_low", "density_ci_high", "bound", "effective_params", "band"),
    )


def measure_headline(target, n_boot: int, seed: int, *, report: bool):
    """The headline's :class:`~densing.trend.measurement.TrendMeasurement` on ``target`` with ``n_boot`` draws: every
    section where the report is written (``report``), else the densities alone (the line and the models it inverts,
    all a placement reads); long work announced as it goes (:func:`densing.cli.output.announced`)."""
    from densing.data import read_results
    from densing.trend.measure import measure_trend

    rows = read_results(target.path)
    return announced(
        lambda draws: measure_trend(
            rows, n_boot=draws, seed=seed, table=target.table, sections="all" if report else ("densities",)
        ),
        n_boot,
        "measure",
        "the headline",
    )


def _write_template(path: Path, table: str | None = None, target=None) -> None:
    """``densing measure --template FILE``: the scores file to fill in (the headline set's columns of ``table``,
    the ``--table`` given, resolved as ``target``; default the public table's), written to a new file (or stdout for
    ``-``)."""
    from densing.placement.own_scores import scores_template

    if str(path) == "-":
        print(scores_template(target=target), end="")
        return
    if path.suffix.lower() != ".csv":  # the one format it writes, which --scores reads back once filled
        raise InputError(f"{path}: --template writes a CSV scores file; give a name ending in .csv (or - for stdout)")
    if path.exists() or path.is_symlink():  # said before the template is made; create_new_text is what decides
        raise InputError(f"{path}: --template: the file exists; give a new file name (densing never overwrites it)")
    create_new_text(path, scores_template(target=target), "--template")  # of processes racing for one name, one writes
    given = f" --table {table}" if table is not None else ""
    print(
        f"wrote {path}: fill in params (7e9 or 7B), release_date (YYYY-MM-DD) and the scores (fractions in [0, 1]), "
        f"then run densing measure --scores {path}{given}"
    )


#: Up to this many placed models, the closing lines give each its own line; past it, one line counts them.
CLOSING_MODELS = 5


def print_text_closing(result, shown: dict[str, str] | None = None, table: str = "the table above") -> None:
    """The closing lines: up to :data:`CLOSING_MODELS` models, one line each — its density (or bound), N̂, where it
    sits against the frontier's band, and the benchmarks the headline inverts that it has no score on
    (``--allow-missing``; by the names ``shown``); past that, one line counting them and naming ``table``, where each
    one's row is."""
    frame = result.to_frame()
    if len(frame) > CLOSING_MODELS:
        print_text(closing([models_counted(result, table)]))
        return
    for said, date in zip(answers(result, shown), frame["release_date"]):
        print_text(closing([said, f"released {date}"]))


def models_counted(result, table: str) -> str:
    """The closing line of many placed models: how many, how many lie above, within and below the frontier's band,
    how many were placed without a score the headline inverts (``--allow-missing``), and ``table``, where each is."""
    frame = result.to_frame()
    places = frame["band"].value_counts()
    counted = ", ".join(f"{places[place]} {place}" for place in ("above", "within", "below") if place in places)
    undetermined = len(frame) - sum(places.get(place, 0) for place in ("above", "within", "below"))
    if undetermined:
        counted += f"{', ' if counted else ''}{undetermined} undetermined against"
    short = sum(bool(result.benchmarks_of(model)[1]) for model in frame["model"])
    without = f"; {short} of them placed without a score the headline inverts" if short else ""
    return (
        f"{len(frame)} models placed ({counted} the frontier's band{without}): each one's ρ, N̂ and band are in {table}"
    )


def answers(result, shown: dict[str, str] | None = None) -> tuple[str, ...]:
    """Each placed model's one-line answer (:func:`densing.present.placement.answer`), the terminal's and the page's."""
    return tuple(
        answer(r, *result.benchmarks_of(r["model"]), shown=shown) for r in result.to_frame().to_dict("records")
    )


def _write(
    result,
    out: Path | None,
    csv,
    words: str,
    n_boot: int,
    seed: int,
    target,
    shown: dict[str, str],
    summary: bool = True,
) -> None:
    """The report led by the user's models (with ``out``) on the table ``target`` (a resolved table), the CSV rows, and
    the placement in words."""
    from densing.present.placed import placed_frame, protocol_words
    from densing.report.render import build_report

    if out is not None:
        left_out = f"; left out (no local split): {', '.join(result.left_out)}" if result.left_out else ""
        html, _, _ = build_report(
            target=target,
            n_boot=n_boot,
            seed=seed,
            measured=result.measurement,
            yours=placed_frame(result),  # the rows in words (the report's cards, table and stars)
            yours_suite=protocol_words(result) + left_out,
            yours_evaluated=result.evaluated,
            yours_answers=answers(result, shown),
            command=words,
        )
        atomic_write_text(out, html)
    if csv is not None:
        atomic_write_text(csv, placed_frame(result).to_csv(index=False, float_format="%.6g"))
    if summary:
        from densing.present.placed import placement_summary

        print_text(placement_summary(result))
    if csv is not None:
        print(f"wrote {csv}")
    for line in browser_lines(out) if out is not None else ():
        print(line)


def _checked_options(batch_size: str, n_boot: int, seed: int, device, data_root, store, out: Path, csv):
    """Every option and output path checked before any work → (batch size, store folder)."""
    check_outputs_apart({"--out": out, "--csv": csv}, {})
    batch: int | str = int(batch_size) if batch_size.strip().isdigit() else batch_size.strip()
    draws_option(n_boot, seed)
    validate(
        {
            "batch_size": [Interval(Integral, 1, None), Options({"auto"})],
            "device": [Device(), None],
            "data_root": [ExistingPath("folder"), None],
        },
        batch_size=batch,
        device=device,
        data_root=data_root,
    )
    store = default_store() if store is None else store
    check_writable_folder(store)
    check_writable(out)
    if csv is not None:
        check_writable(csv)
    return batch, store
