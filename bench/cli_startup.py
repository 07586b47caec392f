"""Start-up time of the command line: ``densing --help`` and every ``densing <command> --help``.

Each row is the median wall time of ``--runs`` whole-process runs (a fresh interpreter each time),
beside two baselines measured in the same run: ``python -c pass`` (the interpreter alone) and
``python -c "import typer"`` (the CLI framework, which brings click). Ratios are against
``python -c pass``; the target is ≤ 0.3 s for every help screen.

    python bench/cli_startup.py [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = [
    [],
    ["fit"],
    ["convert"],
    ["validate"],
    ["density"],
    ["trend"],
    ["report"],
    ["eval"],
    ["eval", "ingest"],
    ["overlap"],
    ["overlap", "analyze"],
    ["overlap", "skew"],
    ["overlap", "compare"],
    ["overlap", "whatif"],
    ["overlap", "run"],
    ["overlap", "validate"],
    ["overlap", "convergence"],
    ["ladder"],
    ["ladder", "fit"],
    ["ladder", "check"],
]


def densing_command() -> list[str]:
    """The installed console script beside this interpreter, else the module entry."""
    script = Path(sys.executable).parent / "densing"
    if script.exists():
        return [str(script)]
    found = shutil.which("densing")
    return [found] if found else [sys.executable, "-c", "from densing.cli import main; main()"]


def median_seconds(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.decode()[-300:]}")
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()

    densing = densing_command()
    rows = [
        ("python -c pass", median_seconds([sys.executable, "-c", "pass"], args.runs)),
        ('python -c "import typer"', median_seconds([sys.executable, "-c", "import typer"], args.runs)),
    ]
    for command in COMMANDS:
        rows.append(
            (" ".join(["densing", *command, "--help"]), median_seconds([*densing, *command, "--help"], args.runs))
        )
    base = rows[0][1]
    typer_time = rows[1][1]
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"median of {args.runs} whole-process runs; load average {load}; {os.cpu_count()} CPUs")
    width = max(len(name) for name, _ in rows)
    print(f"{'command':<{width}}  {'seconds':>8}  {'× pass':>7}  {'× typer':>8}")
    for name, seconds in rows:
        print(f"{name:<{width}}  {seconds:8.3f}  {seconds / base:7.2f}  {seconds / typer_time:8.2f}")
    worst = max(rows[2:], key=lambda row: row[1])
    print(f"slowest help: {worst[0]} {worst[1]:.3f} s (target ≤ 0.300 s): {'ok' if worst[1] <= 0.3 else 'over'}")


if __name__ == "__main__":
    main()
