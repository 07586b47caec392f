"""Whole-process cost of ``densing report`` and ``densing trend --by benchmark`` against the size of the target table.

Workload: the shipped public table (``results/public_models.csv``, one row per model) replicated to ``--sizes`` times
its models. Copy c (c = 1 … k − 1) of every model is named ``<model>~c`` and released c days later, so no model
repeats (the readers refuse a repeated name) and no two copies share a date; its family, size, budget and scores are
the original's (a copy is a new target of the same family, so the references stay the same families). Each size runs
``--repeats`` times after one warm-up of the 1× table; the script prints, per command and size, the median and range
of wall seconds and of CPU seconds (the process and its children: its workers included), and each median over
the 1× median. The bench's rule (issue "Speed where users wait"): the 7× table costs at most 7× the 1× table. It
asserts nothing.

    python bench/table_size.py [--sizes 1 3 7] [--repeats 3] [--commands report trend]
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
from _timing import BYTECODE, environment, seconds  # noqa: E402 (bench/ is the script's folder)
TABLE = ROOT / "results" / "public_models.csv"
COMMANDS = {
    "report": ["report", "--results", "{table}", "--out", "{out}"],
    "trend": ["trend", "--by", "benchmark", "--results", "{table}"],
}


def replicated(times: int, folder: Path) -> Path:
    """The public table with ``times`` copies of each model (module docstring), written under ``folder``."""
    table = pd.read_csv(TABLE)
    copies = []
    for c in range(times):
        copy = table.copy()
        if c:
            copy["model"] = copy["model"] + f"~{c}"
            copy["release_date"] = (pd.to_datetime(copy["release_date"]) + pd.Timedelta(days=c)).dt.strftime("%Y-%m-%d")
        copies.append(copy)
    path = folder / f"public_x{times}.csv"
    pd.concat(copies, ignore_index=True).to_csv(path, index=False)
    return path


def run(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole-process run of this tree (:func:`_timing.seconds`)."""
    return seconds(argv, environment(ROOT), ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 3, 7])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--commands", nargs="+", choices=sorted(COMMANDS), default=["report", "trend"])
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        tables = {k: replicated(k, Path(tmp)) for k in args.sizes}
        results = {}
        for command in args.commands:
            for k, table in tables.items():
                argv = [sys.executable, "-m", "densing.cli.app",
                        *(w.format(table=table, out=Path(tmp) / "report.html") for w in COMMANDS[command])]
                if k == args.sizes[0]:
                    run(argv)  # warm-up: file caches, compiled bytecode
                results[command, k] = [run(argv) for _ in range(args.repeats)]
    load_after = os.getloadavg()
    models = len(pd.read_csv(TABLE))
    print(f"{args.repeats} whole-process runs per size after one warm-up; {os.cpu_count()} CPUs; load average "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after; {BYTECODE}; seconds: median [min–max]")
    for command in args.commands:
        base_wall = statistics.median(w for w, _ in results[command, args.sizes[0]])
        base_cpu = statistics.median(c for _, c in results[command, args.sizes[0]])
        print(f"densing {' '.join(COMMANDS[command][:3 if command == 'trend' else 1])}")
        for k in args.sizes:
            walls, cpus = [w for w, _ in results[command, k]], [c for _, c in results[command, k]]
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            print(f"  {k}x ({k * models:>5} models)  wall {wall:7.2f} [{min(walls):.2f}–{max(walls):.2f}]  "
                  f"CPU {cpu:7.2f} [{min(cpus):.2f}–{max(cpus):.2f}]  "
                  f"wall / 1x {wall / base_wall:5.2f}  CPU / 1x {cpu / base_cpu:5.2f}  (size / 1x {k / args.sizes[0]:g})")


if __name__ == "__main__":
    main()
