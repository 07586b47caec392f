"""``densing eval``: benchmark sweeps through lm-eval into a results store, ingest of old runs, and the merge of
sharded request caches."""

from __future__ import annotations

import gc
import importlib.util
from collections import Counter
from numbers import Integral
from pathlib import Path

import typer

from densing.cli.eval_progress import BarShow, PlainLines, PlainShow
from densing.cli.output import FORMAT_HELP, OUTPUTS, command_group, print_frame
from densing.errors import EvalError, InputError
from densing.io import check_writable_folder
from densing.paths import default_store
from densing.validation import ExistingPath, Interval, Options, validate

eval_app = command_group(
    "Run benchmarks through lm-eval, recording score and conditional loss, into a results store.",
    invoke_without_command=True,
    no_args_is_help=False,
)


def _loss_title(frame) -> str:
    """The table's title says what its ``loss`` is: nats per item, bits per byte (the ladder's tasks), or both."""
    units = set(frame["loss_unit"].dropna().astype(str)) if "loss_unit" in frame.columns else set()
    words = {"bpb": "bits per byte of the correct answer", "nats": "mean −log P(answer | prompt) per item"}
    if len(units) > 1:
        said = "; ".join(f"{u}: {words.get(u, u)}" for u in sorted(units))
    elif units:
        unit = next(iter(units))
        said = words.get(unit, unit)
    else:
        said = words["nats"]
    return f"scores and conditional losses (loss: {said})"


#: What the command's own options may be; backend and limit are the library's (loading.SWEEP_CONSTRAINTS).
OPTION_CONSTRAINTS = {
    "batch_size": [Interval(Integral, 1, None), Options({"auto"})],
    "output_format": [Options({"table", "json", "csv"})],
}


#: ``--out``'s help: the results store (``densing eval`` and ``densing eval ingest``).
STORE_HELP = (
    "Results store directory (missing folders are made; default: densing's store in the user cache, "
    "~/.cache/densing/store or $XDG_CACHE_HOME/densing/store; densing measure uses the same one)."
)
#: Backends checked after the models file (:func:`sweep`): the default, lm-eval's HF backend (every other name is
#: checked against lm-eval's model registry first; backend names live in densing.eval.backends alone).
QUICK_BACKENDS = ("hf",)


def _prefix_settings(backend: str, trie_tokens: int | None, slots: int | None):
    """``--trie-tokens`` and ``--slots`` as the prefix engine's settings (None: its defaults)."""
    if trie_tokens is None and slots is None:
        return None
    from densing.eval import backends

    if not backends.get(backend).engine:
        raise InputError(
            f"--trie-tokens/--slots: they set the prefix engine's passes and slots; add --backend "
            f"{backends.engine_names()}"
        )
    from densing.eval.backends.prefix.settings import PrefixSettings

    given = {k: v for k, v in (("tokens_per_batch", trie_tokens), ("rows_per_batch", slots)) if v is not None}
    return PrefixSettings(**given)


def _parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` (1 ≤ K ≤ N) → ``(K − 1, N)``; anything else is an :class:`InputError`."""
    parts = text.strip().split("/")
    if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
        k, n = (int(p) for p in parts)
        if 1 <= k <= n:
            return k - 1, n
    raise InputError(f"--shard: expected K/N with 1 <= K <= N (e.g. 1/2), got {text!r}")


@eval_app.callback()
def sweep(
    context: typer.Context,
    models: Path | None = typer.Option(None, "--models", help="Models file (.yaml or .csv)."),
    benchmarks: str | None = typer.Option(None, "--benchmarks", help="Comma-separated benchmark names."),
    suite: str | None = typer.Option(
        None,
        "--suite",
        help="A protocol's benchmarks: leaderboard-v1 (Open LLM Leaderboard v1), leaderboard-v2 or swallow-en "
        "(Swallow LLM Leaderboard, English: MMLU, BBH, MATH-500, GSM8K, HumanEval).",
    ),
    backend: str = typer.Option(
        "hf",
        "--backend",
        help="Any name in lm-eval's model registry (hf, vllm and others) "
        "or densing-hf (densing's prefix engine: hf's numbers, shared prompt prefixes computed once).",
    ),
    limit: float | None = typer.Option(
        None,
        "--limit",
        metavar="N",
        help="At most N items per task, a whole number (MMLU: N in each of its subjects; a quick look, not the protocol).",
    ),
    out: Path | None = typer.Option(None, "--out", help=STORE_HELP),
    include_path: list[Path] = typer.Option([], "--include-path", help="Extra directory of lm-eval task YAML."),
    device: str | None = typer.Option(None, "--device", help="torch device (default: cuda if available, else cpu)."),
    model_args: str | None = typer.Option(
        None,
        "--model-args",
        help="k=v,k=v passed to the lm-eval backend for every model (vllm: tensor_parallel_size=2,"
        "gpu_memory_utilization=0.85,max_model_len=4096); a models file's own model_args win.",
    ),
    batch_size: str = typer.Option("1", "--batch-size", help="The backend's batch size, or 'auto' (vllm: auto)."),
    trie_tokens: int | None = typer.Option(
        None,
        "--trie-tokens",
        help="densing-hf: new trie tokens per log-likelihood pass (default: sized to the device; 512 on a CPU).",
    ),
    slots: int | None = typer.Option(
        None,
        "--slots",
        help="densing-hf: requests decoded together in greedy generation (default: sized to the device; 16 on a CPU).",
    ),
    allow_unsafe_code: bool = typer.Option(
        False, "--allow-unsafe-code", help="Allow tasks that run model-written code."
    ),
    output_format: str = typer.Option("table", "--format", metavar="[table|json|csv]", help=FORMAT_HELP),
    local_data: bool = typer.Option(False, "--local-data", help="Run the known benchmarks on local splits (no Hub)."),
    data_root: Path | None = typer.Option(
        None, "--data-root", help="Folder holding benchmarks/ (default: $DENSING_SHARED_DATA or ../shared/data)."
    ),
    prefix_cache: bool = typer.Option(
        False, "--prefix-cache", hidden=True, help="Deprecated: the same as --backend densing-hf."
    ),
    shard: str | None = typer.Option(
        None,
        "--shard",
        help="K/N: compute only shard K of N of the requests into the request cache, write no result "
        "(run N such processes, then the same command without --shard to score); needs --backend densing-hf.",
    ),
    time_limit: float | None = typer.Option(
        None,
        "--time-limit",
        help="Minutes: greedy generation admits no new request after this, lets the ones in flight "
        "finish into the request cache and stops without scoring (run again to resume); needs --backend densing-hf.",
    ),
    isolate: bool | None = typer.Option(
        None,
        "--isolate/--no-isolate",
        help="Each model in a process of its own, so its GPU memory is returned before "
        "the next loads (default: on for vllm).",
    ),
    list_benchmarks: bool = typer.Option(
        False, "--list", help="List the known benchmarks (lm-eval tasks, shots, metric) and exit."
    ),
) -> None:
    """Evaluate every model on every benchmark (skipping pairs already in the store)."""
    if context.invoked_subcommand is not None:
        return
    out = default_store() if out is None else out
    if list_benchmarks:
        _list_benchmarks(output_format, local_data)
        return
    if models is None or (benchmarks is None and suite is None):
        raise InputError(
            "densing eval: --models and --benchmarks or --suite are required (or use 'densing eval ingest DIR')"
        )
    gc.disable()  # the checks import torch, transformers and lm-eval (~3,500 modules): objects that live to the end
    lines = PlainLines.for_stderr()  # on a pipe or a file: plain lines from the first slow step on
    try:
        if lines is not None and backend not in QUICK_BACKENDS:  # its check imports lm-eval (seconds) at once
            lines.step(
                f"checking the options and --backend {backend} in lm-eval's model registry (imports "
                "lm-eval, torch and transformers)"
            )
        names, left_out = _benchmark_names(suite, benchmarks, local_data)
        batch, backend, settings, share = _sweep_options(
            limit=limit,
            batch_size=batch_size,
            output_format=output_format,
            device=device,
            trie_tokens=trie_tokens,
            slots=slots,
            data_root=data_root,
            include_path=include_path,
            backend=backend,
            prefix_cache=prefix_cache,
            shard=shard,
            time_limit=time_limit,
            out=out,
        )
        specs = _model_specs(models, backend, model_args)
        if left_out:  # a note once every input is checked: a refusal above stays one line
            typer.echo(
                f"--suite {suite.strip()} --local-data: {', '.join(left_out)} left out (no local split)", err=True
            )
        _check_sources(specs, names, out)
        if lines is not None and backend in QUICK_BACKENDS:
            lines.step("importing lm-eval, torch and transformers")
        from densing.eval.loading import SWEEP_CONSTRAINTS

        validate(
            {"backend": SWEEP_CONSTRAINTS["backend"]}, backend=backend
        )  # lm-eval's names: imports lm-eval (seconds)
        gc.freeze()  # moved out of the collector's reach: no collection scans them again (bench/startup.results.txt)
        gc.enable()
        frame = _sweep_with_progress(
            specs,
            names,
            out,
            backend=backend,
            limit=limit,
            include_paths=include_path,
            device=device,
            batch_size=batch,
            allow_unsafe_code=allow_unsafe_code,
            local_data=local_data,
            data_root=data_root,
            settings=settings,
            shard=share,
            time_limit=None if time_limit is None else 60.0 * time_limit,
            isolate=isolate,
            shard_text=shard,
            lines=lines,
        )
    finally:
        _after_sweep(lines)
    if not frame.empty:
        _render(frame, output_format)


def _benchmark_names(suite: str | None, benchmarks: str | None, local_data: bool) -> tuple[list[str], list[str]]:
    """(the benchmarks to run, the suite's left out for want of a local split): ``--suite``'s, then each of
    ``--benchmarks`` not among them, in the order given."""
    from densing.eval.benchmarks import suite_benchmarks

    names, left_out = suite_benchmarks(suite.strip(), local_data=local_data) if suite is not None else ([], [])
    names += [b.strip() for b in (benchmarks or "").split(",") if b.strip() and b.strip() not in names]
    return names, left_out


def _after_sweep(lines) -> None:
    """The process as it was before the sweep, on every path: the plain progress lines closed, the collector on and
    nothing frozen out of its reach (for a caller that goes on; the CLI ends without another collection)."""
    if lines is not None:
        lines.close()
    gc.enable()
    gc.unfreeze()


def _render(frame, output_format: str) -> None:
    """The sweep's scores and losses; in a table the score beside its pair's name, a metric's name shortened with a
    key, never broken."""
    columns = [
        "model",
        "benchmark",
        "metric",
        "value",
        "n_shot",
        "loss",
        "loss_unit",
        "loss_per_token",
        "loss_per_byte",
    ]
    if output_format == "table":
        columns[2:4] = ["value", "metric"]
    print_frame(
        frame[[c for c in columns if c in frame.columns]],
        output_format,
        title=_loss_title(frame),
        keys=2,
        identifiers=("metric",),
        together=("value", "metric"),
    )


def _check_sources(specs: list, names: list[str], out: Path) -> None:
    """Before lm-eval builds its task index (seconds): the eval extra is installed, and every model with a pair
    missing from the store can be loaded (:func:`densing.eval.loading.check_model_source`)."""
    if importlib.util.find_spec("lm_eval") is None:
        raise EvalError("densing eval needs the eval extra: no installed package 'lm_eval' (pip install -e '.[eval]')")
    from densing.eval.loading import check_model_source
    from densing.eval.store import part_path

    for spec in specs:  # its files and package; a Hub id's cache is the sweep's to read, once every option is checked
        if not all(part_path(out, spec.name, name).exists() for name in names):
            check_model_source(spec)


def _model_specs(models: Path, backend: str, model_args: str | None) -> list:
    """The models file's specs, with ``--model-args``; a backend other than the default is checked first (its names
    are lm-eval's: seconds to read), the default after the models' sources."""
    from densing.eval.loading import SWEEP_CONSTRAINTS
    from densing.eval.models import read_models_file, with_model_args

    if backend not in QUICK_BACKENDS:
        validate({"backend": SWEEP_CONSTRAINTS["backend"]}, backend=backend)
    if not models.is_file():
        raise InputError(f"{models}: no such models file")
    return with_model_args(read_models_file(models), model_args)  # the backend's name: checked after the sources


def _list_benchmarks(output_format: str, local_data: bool) -> None:
    """``densing eval --list``: the known benchmarks, their tasks, shots and metric."""
    from densing.eval.benchmarks import benchmark_table

    OUTPUTS.get(output_format)  # an unknown format is an InputError before any work
    print_frame(
        benchmark_table(local_data=local_data),
        output_format,
        keys=1,
        together=("score_task", "shots"),
        identifiers=("score_task", "loss_task", "metric"),
        title="densing's benchmarks (any lm-eval task name works too)",
    )


def _sweep_options(
    *,
    limit,
    batch_size: str,
    output_format,
    device,
    trie_tokens,
    slots,
    data_root,
    include_path,
    backend: str,
    prefix_cache: bool,
    shard,
    time_limit,
    out,
):
    """(batch size, backend, prefix settings, shard): the sweep's options, each checked before the models file is
    read (but the backend's name)."""
    from densing.eval import backends
    from densing.eval.loading import SWEEP_CONSTRAINTS

    batch: int | str = int(batch_size) if batch_size.strip().isdigit() else batch_size.strip()
    validate(
        {**SWEEP_CONSTRAINTS, **OPTION_CONSTRAINTS},
        limit=limit,
        batch_size=batch,
        output_format=output_format,
        device=device,
    )
    validate(
        {
            "trie_tokens": [Interval(Integral, 1, None), None],
            "slots": [Interval(Integral, 1, None), None],
            "data_root": [ExistingPath("folder"), None],
        },
        trie_tokens=trie_tokens,
        slots=slots,
        data_root=data_root,
    )
    for folder in include_path:
        validate({"include_path": [ExistingPath("folder")]}, include_path=folder)
    backend = backends.with_prefix_cache(backend, prefix_cache)  # --prefix-cache: deprecated, --backend densing-hf
    settings = _prefix_settings(backend, trie_tokens, slots)
    share = _parse_shard(shard) if shard is not None else None
    if time_limit is not None and not SWEEP_CONSTRAINTS["time_limit"][0].matches(
        time_limit
    ):  # run_sweep's bound, in minutes
        raise InputError(f"--time-limit: expected a positive number of minutes, got {time_limit!r}")
    check_writable_folder(out)  # every option checked before the models file is read
    return batch, backend, settings, share


def _sweep_with_progress(
    specs: list, names: list[str], out, *, shard, shard_text: str | None, lines: PlainLines | None, **options
):
    """:func:`densing.eval.runner.run_sweep` with its progress on stderr (a bar on a terminal, ``lines`` on a pipe:
    :mod:`densing.cli.eval_progress`), then what was done, stopped or sharded."""
    from densing.eval.runner import run_sweep
    from densing.eval.store import CACHE_DIRECTORY

    total = len(specs) * len(names)
    show = BarShow(total) if lines is None else PlainShow(total, lines)
    if lines is not None:
        lines.step("reading lm-eval's task index and the store")
    counts = show.counts
    try:
        frame = run_sweep(
            specs,
            names,
            out,
            on_progress=show.on_progress,
            on_reuse=show.on_reuse,
            on_requests=show.on_requests,
            shard=shard,
            **options,
        )
    except KeyboardInterrupt:
        show.stop()
        typer.echo(
            f"interrupted: {counts['done']} pair(s) were written to {out}; run the same command to resume", err=True
        )
        raise
    finally:
        show.stop()
    typer.echo(f"{counts['done']} pair(s) evaluated, {counts['skipped']} already in the store: {out}", err=True)
    cache = f"their computed requests are in the request cache ({out}/{CACHE_DIRECTORY})"
    if counts["stopped"]:
        typer.echo(
            f"{counts['stopped']} pair(s) stopped at the time limit, not scored: {cache}; run the same command "
            "again to resume",
            err=True,
        )
    if counts["sharded"]:
        typer.echo(
            f"{counts['sharded']} pair(s) with shard {shard_text}'s share computed, not scored: {cache}; "
            "once every shard has finished, run the command without --shard to score",
            err=True,
        )
    return frame


@eval_app.command("ingest")
def ingest_command(
    directory: Path = typer.Argument(..., help="Directory of lm-eval outputs (results JSON, samples JSONL)."),
    out: Path | None = typer.Option(None, "--out", help=STORE_HELP),
    models: Path | None = typer.Option(None, "--models", help="Models file giving params/train_tokens by name."),
) -> None:
    """Read existing lm-eval outputs (0.3 and 0.4 formats) into the results store."""
    from densing.eval.ingest import ingest
    from densing.eval.models import read_models_file

    out = default_store() if out is None else out
    metadata = None
    if models is not None:
        import pandas as pd

        metadata = (
            pd.DataFrame([s.to_dict() for s in read_models_file(models)])
            .drop(columns=["model"])
            .rename(columns={"name": "model"})
        )
    counts = Counter()  # results files "written" and "skipped"
    frame = ingest(directory, out, metadata=metadata, on_progress=lambda source, status: counts.update([status]))
    typer.echo(
        f"{len(frame)} row(s) from {counts['written'] + counts['skipped']} results file(s): "
        f"{counts['written']} written, {counts['skipped']} already in the store: {out}"
    )


@eval_app.command("merge-cache")
def merge_cache_command(
    sources: list[Path] = typer.Argument(..., help="Stores that shards of one sweep wrote (densing eval --shard K/N)."),
    into: Path = typer.Option(
        ..., "--into", help="The store to score in: the same sweep without --shard reads its cache."
    ),
    output_format: str = typer.Option("table", "--format", metavar="[table|json|csv]", help=FORMAT_HELP),
) -> None:
    """Merge the request caches of sharded runs made on several machines into one store."""
    import pandas as pd

    from densing.eval.store import merge_request_caches

    OUTPUTS.get(output_format)  # an unknown format is an InputError before any work
    merged = merge_request_caches(sources, into)
    frame = pd.DataFrame(
        [
            {
                "cache": m.folder,
                "requests": m.requests,
                **{f"from {source}": count for source, count in zip(sources, m.added)},
                "repeated, same answer": m.same,
                "repeated, another answer": m.different,
            }
            for m in merged
        ]
    )
    print_frame(frame, output_format, title=f"request caches merged into {into}")
    if any(m.different for m in merged):
        typer.echo(
            "some requests were cached with different answers by different sources (non-deterministic "
            "decoding?); the first source's answer is kept",
            err=True,
        )
    typer.echo(f"run the same densing eval command without --shard and with --out {into} to score", err=True)
