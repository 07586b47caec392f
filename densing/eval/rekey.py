"""Re-keying a results store: a sweep's parts get the key the sweep computes now (:func:`densing.eval.runner.rekey_store`),
their rows unchanged — for parts made before the key changed what it holds. It loads no model.

    python -m densing.eval.rekey STORE --models M (--benchmarks B | --suite S) [--local-data] [--data-root D]
        [--limit N] [--backend B] [--include-path P]
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from densing.errors import InputError
from densing.eval.runner import rekey_store


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m densing.eval.rekey STORE --models M (--benchmarks B | --suite S) [sweep options]``: give a
    sweep's parts the key the sweep computes now (:func:`densing.eval.runner.rekey_store`), one line per pair."""
    import argparse
    import sys

    from densing.errors import DensingError

    rekey = argparse.ArgumentParser(prog="python -m densing.eval.rekey",
                                    description="Give a sweep's parts the key the sweep computes now (rows unchanged); "
                                                "loads no model.")
    rekey.add_argument("store", type=Path)
    rekey.add_argument("--models", required=True, type=Path, help="the sweep's models file")
    which = rekey.add_mutually_exclusive_group(required=True)
    which.add_argument("--benchmarks", help="comma-separated benchmark names, as densing eval")
    which.add_argument("--suite", help="a suite's benchmarks, as densing measure (with --local-data: those with local splits)")
    rekey.add_argument("--local-data", action="store_true")
    rekey.add_argument("--data-root", type=Path)
    rekey.add_argument("--limit", type=float)
    rekey.add_argument("--prefix-cache", action="store_true", help=argparse.SUPPRESS)  # deprecated: --backend densing-hf
    rekey.add_argument("--backend", default="hf", help="the sweep's backend, any name in lm-eval's model registry")
    rekey.add_argument("--include-path", action="append", default=[], type=Path)
    args = rekey.parse_args(argv)
    try:
        if not args.store.is_dir():
            raise InputError(f"{args.store}: no such results store directory")
        if not args.models.is_file():
            raise InputError(f"{args.models}: no such models file")
        if args.suite is not None:
            from densing.eval.benchmarks import suite_benchmarks

            names = suite_benchmarks(args.suite.strip(), local_data=args.local_data)[0]
        else:
            names = args.benchmarks
        outcomes = rekey_store(args.store, args.models, names, backend=args.backend, limit=args.limit,
                               include_paths=args.include_path, local_data=args.local_data, data_root=args.data_root,
                               prefix_cache=args.prefix_cache)
    except DensingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for model, benchmark, outcome in outcomes:
        print(f"{model} / {benchmark}: {outcome}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
