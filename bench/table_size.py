"""Whole-process cost of ``densing report`` and ``densing trend`` against the size of the target table, in three shapes.

Workload: the shipped public table (``results/public_models.csv``, one row per model) replicated to ``--sizes`` times
its models. Copy c (c = 1 … k − 1) of every model is named ``<model>~c`` and released c days later, so no model
repeats (the readers refuse a repeated name) and no two copies share a date; its size, budget and scores are the
original's. The shapes differ by the copies' family:

- ``same``: the original's family (a copy is a new target of the same family: the references stay the same families);
- ``unlabeled``: empty (each copy is a family of its own: the family bootstrap's clusters and the leave-one-family-out
  table grow with the table);
- ``new``: the original's family with ``-r<c>`` appended (``Qwen2`` → ``Qwen2-r1``: every family of the table comes
  again, so more families pass the reference rule and a row's references grow with the table).

Each command, shape and size runs ``--repeats`` times (``--long N``: N times at sizes above ``--long-above``, 7) after
one warm-up of the first size; the script prints, per command, shape and size, the median and range of wall seconds and of CPU seconds
(the process and its children: its workers included), each median over the first size's, and per command and shape
the least-squares exponent b of cost ∝ size^b over the sizes (log–log). The bench's rule (issue "A thousand models in
seconds"): b ≤ 1.1 in CPU seconds, and the 7× table of new families at most 7× the 1× table. It asserts nothing.

    python bench/table_size.py [--sizes 1 3 7 15] [--shapes same unlabeled new] [--repeats 3] [--long 1]
                               [--long-above 7] [--commands report trend]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
from _timing import BYTECODE, environment, exponent, seconds, spread

TABLE = ROOT / "results" / "public_models.csv"
COMMANDS = {
    "report": ["report", "--results", "{table}", "--out", "{out}"],
    "trend": ["trend", "--results", "{table}"],
    "trend-by-benchmark": ["trend", "--by", "benchmark", "--results", "{table}"],
}
SHAPES = ("same", "unlabeled", "new")


def replicated(times: int, shape: str, folder: Path) -> Path:
    """The public table with ``times`` copies of each model in ``shape`` (module docstring), written under ``folder``."""
    table = pd.read_csv(TABLE)
    copies = []
    for c in range(times):
        copy = table.copy()
        if c:
            copy["model"] = copy["model"] + f"~{c}"
            copy["release_date"] = (pd.to_datetime(copy["release_date"]) + pd.Timedelta(days=c)).dt.strftime("%Y-%m-%d")
            if shape == "unlabeled":
                copy["family"] = ""
            elif shape == "new":
                copy["family"] = copy["family"].where(copy["family"].isna(), copy["family"].astype(str) + f"-r{c}")
        copies.append(copy)
    path = folder / f"public_{shape}_x{times}.csv"
    pd.concat(copies, ignore_index=True).to_csv(path, index=False)
    return path


def run(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole-process run of this tree (:func:`_timing.seconds`)."""
    return seconds(argv, environment(ROOT), ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 3, 7, 15])
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--long", type=int, default=None, help="runs at sizes above --long-above (default: --repeats)")
    parser.add_argument("--long-above", type=int, default=7)
    parser.add_argument("--commands", nargs="+", choices=sorted(COMMANDS), default=["report", "trend"])
    args = parser.parse_args()
    load_before = os.getloadavg()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for command in args.commands:
            for shape in args.shapes:
                for k in args.sizes:
                    table = replicated(k, shape, Path(tmp))
                    argv = [
                        sys.executable,
                        "-m",
                        "densing.cli",
                        *(w.format(table=table, out=Path(tmp) / "report.html") for w in COMMANDS[command]),
                    ]
                    if k == args.sizes[0]:
                        run(argv)  # warm-up: file caches, compiled bytecode
                    repeats = args.long if args.long is not None and k > args.long_above else args.repeats
                    results[command, shape, k] = [run(argv) for _ in range(repeats)]
                    print(
                        f"# {command} {shape} {k}x: {spread(c for _, c in results[command, shape, k])} CPU-s",
                        file=sys.stderr,
                        flush=True,
                    )
    load_after = os.getloadavg()
    models = len(pd.read_csv(TABLE))
    long = args.long if args.long is not None else args.repeats
    print(
        f"{args.repeats} whole-process runs per size after one warm-up ({long} above {args.long_above}x); "
        f"{os.cpu_count()} CPUs; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; {BYTECODE}; seconds: median [min–max]"
    )
    for command in args.commands:
        for shape in args.shapes:
            first = args.sizes[0]
            base_wall = statistics.median(w for w, _ in results[command, shape, first])
            base_cpu = statistics.median(c for _, c in results[command, shape, first])
            words = COMMANDS[command]
            print(f"densing {' '.join(words[: words.index('--results')])} — {shape}")
            walls, cpus = [], []
            for k in args.sizes:
                wall = statistics.median(w for w, _ in results[command, shape, k])
                cpu = statistics.median(c for _, c in results[command, shape, k])
                walls.append(wall)
                cpus.append(cpu)
                print(
                    f"  {k:>2}x ({k * models:>5} models, {len(results[command, shape, k])} runs)  "
                    f"wall {spread((w for w, _ in results[command, shape, k]), '7.2f')}  "
                    f"CPU {spread((c for _, c in results[command, shape, k]), '7.2f')}  "
                    f"wall / {first}x {wall / base_wall:5.2f}  CPU / {first}x {cpu / base_cpu:5.2f}  "
                    f"(size / {first}x {k / first:g})"
                )
            print(
                f"  exponent (least squares over {len(args.sizes)} sizes): wall {exponent(args.sizes, walls):.2f}, "
                f"CPU {exponent(args.sizes, cpus):.2f}"
            )


if __name__ == "__main__":
    main()
