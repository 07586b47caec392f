"""Re-keying a results store: a sweep's parts get the key the sweep computes now, rows unchanged (:func:`rekey_store`).

python -m densing.eval.rekey STORE --models M (--benchmarks B | --suite S) [--local-data] [--data-root D]
    [--limit N] [--backend B] [--include-path P]
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from densing.errors import InputError
from densing.eval import backends
from densing.eval.benchmarks import suite_benchmarks
from densing.eval.harness import lm_eval_version
from densing.eval.models import ModelSpec
from densing.eval.runner import as_model_specs, sweep_keys, sweep_tasks
from densing.eval.store import part_path

#: The row columns a part must agree on with a sweep before :func:`rekey_store` gives it the sweep's key.
REKEY_COLUMNS = ("model_path", "revision", "score_task", "limit", "backend", "lm_eval_version")


def rekey_store(
    store: str | Path,
    models: str | Path | Sequence[ModelSpec | dict],
    benchmarks: Sequence[str] | str,
    *,
    backend: str = "hf",
    limit: float | None = None,
    include_paths: Sequence[str | Path] = (),
    local_data: bool = False,
    data_root: str | Path | None = None,
    prefix_cache: bool = False,
) -> list[tuple[str, str, str]]:
    """Give the parts of a sweep (its options: ``densing eval``'s) the config hash it computes now (:func:`sweep_keys`),
    rewriting the key and nothing else; the caller vouches that each part was evaluated with the task files and local
    data the sweep reads now. A part absent, or whose rows disagree with the sweep on :data:`REKEY_COLUMNS`, is left
    as it is; no model is loaded. Returns ``(model, benchmark, outcome)`` per pair: ``"rekeyed OLD → NEW"``,
    ``"current"``, ``"absent"``, or ``"differs: …"``."""
    specs = as_model_specs(models)
    limit = None if limit is None else float(limit)
    root, manager, benches = sweep_tasks(
        benchmarks, include_paths, local_data=local_data, data_root=data_root, allow_unsafe_code=True
    )  # nothing runs
    backend = backends.with_prefix_cache(backend, prefix_cache)
    hashes = sweep_keys(
        specs, benches, manager, backend=backend, limit=limit, include_paths=include_paths, data_root=root
    )[0]
    common = {"limit": limit, "backend": backends.get(backend).recorded_as, "lm_eval_version": lm_eval_version()}
    return [
        (
            spec.name,
            bench.name,
            _rekey_part(
                part_path(store, spec.name, bench.name),
                hashes[spec.name, bench.name],
                {"model_path": spec.model, "revision": spec.revision, **common, "score_task": bench.score_task},
            ),
        )
        for spec in specs
        for bench in benches
    ]


def _rekey_part(path: Path, new: str, expected: dict[str, Any]) -> str:
    """Give the part at ``path`` the key ``new`` where its rows record ``expected``; the outcome in words."""
    import pyarrow.parquet as pq

    from densing.eval.store import read_part_hash, rewrite_key

    old = read_part_hash(path)
    if old is None or old == new:
        return "absent" if old is None else "current"
    missing = [column for column in REKEY_COLUMNS if column not in pq.read_schema(path).names]
    if missing:
        return f"differs: no column {', '.join(missing)} (not a sweep's part)"
    rows = pq.read_table(path, columns=list(REKEY_COLUMNS)).to_pandas()
    differs = [
        f"{column} {', '.join(sorted(map(str, values)))} (the sweep: {_comparable(want)})"
        for column, want in expected.items()
        if (values := {_comparable(value) for value in rows[column].tolist()}) != {_comparable(want)}
    ]
    if differs:
        return "differs: " + "; ".join(differs)
    rewrite_key(path, new)
    return f"rekeyed {old} → {new}"


def _comparable(value: Any) -> Any:
    """A row value as :func:`rekey_store` compares it: NaN, NA and None alike, numbers as floats."""
    if value is None or (not isinstance(value, (str, list, tuple)) and pd.isna(value)):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return str(value)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line of the module docstring: :func:`rekey_store`, one line per pair."""
    import argparse
    import sys

    from densing.errors import DensingError

    rekey = argparse.ArgumentParser(
        prog="python -m densing.eval.rekey",
        description="Give a sweep's parts the key the sweep computes now (rows unchanged); loads no model.",
    )
    rekey.add_argument("store", type=Path)
    rekey.add_argument("--models", required=True, type=Path, help="the sweep's models file")
    which = rekey.add_mutually_exclusive_group(required=True)
    which.add_argument("--benchmarks", help="comma-separated benchmark names, as densing eval")
    which.add_argument(
        "--suite", help="a suite's benchmarks, as densing measure (with --local-data: those with local splits)"
    )
    rekey.add_argument("--local-data", action="store_true")
    rekey.add_argument("--data-root", type=Path)
    rekey.add_argument("--limit", type=float)
    rekey.add_argument(
        "--prefix-cache", action="store_true", help=argparse.SUPPRESS
    )  # deprecated: --backend densing-hf
    rekey.add_argument("--backend", default="hf", help="the sweep's backend, any name in lm-eval's model registry")
    rekey.add_argument("--include-path", action="append", default=[], type=Path)
    args = rekey.parse_args(argv)
    try:
        if not args.store.is_dir():
            raise InputError(f"{args.store}: no such results store directory")
        names = (
            args.benchmarks
            if args.suite is None
            else suite_benchmarks(args.suite.strip(), local_data=args.local_data)[0]
        )
        outcomes = rekey_store(
            args.store,
            args.models,
            names,
            backend=args.backend,
            limit=args.limit,
            include_paths=args.include_path,
            local_data=args.local_data,
            data_root=args.data_root,
            prefix_cache=args.prefix_cache,
        )
    except DensingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for model, benchmark, outcome in outcomes:
        print(f"{model} / {benchmark}: {outcome}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
