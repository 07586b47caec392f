"""``densing measure``: your models on the density chart.

    densing measure --models my.yaml --suite leaderboard-v1 [--local-data] [--limit N] --out report.html
                    [--store DIR] [--csv rows.csv]

The store defaults to the user's cache (:func:`densing.paths.default_store`), never the repository's ``results/``.
"""
from __future__ import annotations

from numbers import Integral
from pathlib import Path
from typing import Optional

import typer

from densing.errors import InputError


def measure(
    models: Path = typer.Option(..., "--models", help="Models file (.yaml or .csv), as for 'densing eval'."),
    suite: str = typer.Option("leaderboard-v1", "--suite", help="The public protocol: leaderboard-v1, leaderboard-v2 or swallow-en."),
    local_data: bool = typer.Option(False, "--local-data", help="Run the suite's benchmarks on local splits (no Hub)."),
    data_root: Optional[Path] = typer.Option(
        None, "--data-root", help="Folder holding benchmarks/ (default: $DENSING_SHARED_DATA or ../shared/data)."
    ),
    limit: Optional[float] = typer.Option(None, "--limit", metavar="N", help="At most N items per task, a whole number (MMLU: N in each of its subjects); the intervals are those of the items scored."),
    out: Path = typer.Option(Path("report.html"), "--out", help="HTML report to write (atomically)."),
    store: Optional[Path] = typer.Option(
        None, "--store", help="Results store, a folder (a rerun reuses its pairs; default: $XDG_CACHE_HOME/densing/store, "
        "else ~/.cache/densing/store)."),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Also write one row per model (scores, density, verdict) as CSV."),
    backend: str = typer.Option("hf", "--backend", help="Any name in lm-eval's model registry (hf, vllm and others) "
                                "or densing-hf (densing's prefix engine: hf's numbers, shared prompt prefixes computed once)."),
    device: Optional[str] = typer.Option(None, "--device", help="torch device (default: cuda if available, else cpu)."),
    batch_size: str = typer.Option("1", "--batch-size", help="Batch size, or 'auto'."),
    prefix_cache: bool = typer.Option(False, "--prefix-cache", hidden=True,
                                      help="Deprecated: the same as --backend densing-hf."),
    allow_unsafe_code: bool = typer.Option(False, "--allow-unsafe-code", help="Allow tasks that run model-written code "
                                           "(HumanEval, as densing eval)."),
    n_boot: int = typer.Option(600, "--n-boot", help="Bootstrap draws of the headline trend (its default)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the headline's random draws (bootstrap, sampling): the same seed, the same numbers."),
) -> None:
    """Evaluate your models on a public protocol and place them on the density chart: density, 95% interval, above or
    below the frontier line; writes the report with them highlighted."""
    import sys
    import time

    from densing.placement.measure import measure as run, plan

    batch, store = _checked_options(batch_size, n_boot, seed, device, data_root, store, out, csv)
    from densing.eval.backends import with_prefix_cache

    backend = with_prefix_cache(backend, prefix_cache)  # --prefix-cache: deprecated, --backend densing-hf
    checked = plan(models, suite, limit=limit, local_data=local_data, data_root=data_root, backend=backend, device=device,
                   store=store)
    if checked.left_out:
        typer.echo(f"--suite {checked.suite} --local-data: {', '.join(checked.left_out)} left out (no local split)", err=True)
    started = time.monotonic()

    def say(line: str) -> None:
        print(f"[{time.monotonic() - started:7.0f} s] {line}", file=sys.stderr, flush=True)

    result = run(list(checked.specs), checked.suite, limit=limit, local_data=local_data, data_root=data_root, store=store,
                 n_boot=n_boot, seed=seed, backend=backend, device=device, batch_size=batch,
                 on_progress=say, allow_unsafe_code=allow_unsafe_code)
    say("writing the report …")
    words = _command_words(models, checked.suite, out, store, n_boot, seed, local_data, allow_unsafe_code,
                           {"--backend": backend, "--data-root": data_root, "--limit": limit, "--csv": csv, "--device": device})
    _write(result, out, csv, words, n_boot, seed)


def _write(result, out: Path, csv, words: str, n_boot: int, seed: int) -> None:
    """The report (led by the user's models), the CSV rows, and the placement in words."""
    from densing.cli.output import print_text
    from densing.io import atomic_write_text
    from densing.report.build import build_report

    html, _, _ = build_report(n_boot=n_boot, seed=seed, measured=result.measurement, yours=result.to_frame(),
                              yours_suite=result.protocol() + (f"; left out (no local split): {', '.join(result.left_out)}"
                                                                 if result.left_out else ""), command=words)
    atomic_write_text(out, html)
    if csv is not None:
        atomic_write_text(csv, result.to_frame().to_csv(index=False, float_format="%.6g"))
    print_text(result.summary())
    print(f"wrote {out}" + (f" and {csv}" if csv is not None else ""))


def _checked_options(batch_size: str, n_boot: int, seed: int, device, data_root, store, out: Path, csv):
    """Every option and output path checked before any work → (batch size, store folder)."""
    from densing.io import check_writable, check_writable_folder
    from densing.validation import Device, ExistingPath, Interval, Options, validate

    batch: int | str = int(batch_size) if batch_size.strip().isdigit() else batch_size.strip()
    validate({"batch_size": [Interval(Integral, 1, None), Options({"auto"})], "n_boot": [Interval(Integral, 1, None)],
              "seed": [Interval(Integral, 0, None)], "device": [Device(), None]}, batch_size=batch, n_boot=n_boot, seed=seed,
             device=device)
    validate({"data_root": [ExistingPath("folder"), None]}, data_root=data_root)
    if store is None:
        from densing.paths import default_store

        store = default_store()
    check_writable_folder(store)
    check_writable(out)
    if csv is not None:
        check_writable(csv)
    if store.exists() and not store.is_dir():
        raise InputError(f"{store}: --store exists and is not a directory")
    return batch, store


def _command_words(models, suite: str, out, store, n_boot: int, seed: int, local_data: bool, allow_unsafe_code: bool,
                   options: dict) -> str:
    """The command line that makes the report again, for its footer."""
    import shlex

    words = ["densing", "measure", "--models", str(models), "--suite", suite, "--out", str(out), "--store", str(store),
             "--n-boot", str(n_boot), "--seed", str(seed)]
    words += ["--local-data"] * local_data + ["--allow-unsafe-code"] * allow_unsafe_code
    for option, value in options.items():
        if value is not None:
            words += [option, f"{value:g}" if isinstance(value, float) else str(value)]
    return shlex.join(words)
