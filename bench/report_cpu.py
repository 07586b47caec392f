"""CPU seconds, wall seconds and peak memory of ``densing report`` and ``densing trend --by benchmark`` on this tree
against a baseline commit, in alternated pairs.

    python bench/report_cpu.py --baseline REV [--runs 5] [--command report] [--command trend]

The baseline is ``git archive REV`` unpacked into a temporary folder, the shared data beside it as the tree finds its
own (``shared/`` next to the folder: a link to this tree's :data:`densing.paths.SHARED_DATA` parent), and run with
``PYTHONPATH`` (and the working folder) set to it; this tree is run the same way, with the same interpreter. Each
command runs once per tree as a warm-up (compiled bytecode, file caches), then ``--runs`` pairs, the order of the two
trees alternating from pair to pair. Each run is one process reaped with ``os.wait4``: its CPU (user + system) and
peak resident memory cover the process and every worker it waited for, as ``/usr/bin/time -v`` reports them.
Prints each run, then per command and tree the median and range of CPU seconds, wall seconds and peak MiB, and the
ratios of the medians (this tree / baseline). It asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _baseline import baseline_folder  # bench/ is the script's folder
from _timing import BYTECODE, environment, spread

REPO = Path(__file__).resolve().parent.parent

#: The commands timed, by name: each one's arguments ({out}: a file in the run's temporary folder).
COMMANDS = {"report": ["report", "--out", "{out}"], "trend": ["trend", "--by", "benchmark"]}


def measured_run(source: Path, arguments: list[str]) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak MiB) of one ``densing ARGUMENTS`` process run from ``source``; a failing run
    ends the bench with its exit status."""
    env = {**environment(source), "DENSING_HOME": str(source)}
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", "from densing.cli import run; run()", *arguments],
        cwd=source,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"densing {' '.join(arguments)} in {source}: exit {child.returncode}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024  # ru_maxrss in KiB on Linux


def _median_ratio(found: dict, column: int) -> float:
    """The ratio of the medians of ``column`` (0 CPU, 1 wall, 2 MiB), this tree over the baseline."""
    mine = statistics.median(run[column] for run in found["this tree"])
    theirs = statistics.median(run[column] for run in found["baseline"])
    return mine / theirs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="the commit to compare with")
    parser.add_argument("--runs", type=int, default=5, help="alternated pairs per command (default 5)")
    parser.add_argument(
        "--command", action="append", choices=sorted(COMMANDS), help="a command to time (repeatable; default both)"
    )
    args = parser.parse_args()
    names = args.command or list(COMMANDS)
    revision = subprocess.run(
        ["git", "rev-parse", "--short", args.baseline], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.strip()
    load_before = os.getloadavg()[0]
    results: dict[str, dict[str, list]] = {}
    with tempfile.TemporaryDirectory() as folder:
        trees = {"baseline": baseline_folder(revision, Path(folder)), "this tree": REPO}
        for name in names:
            arguments = [word.format(out=str(Path(folder) / "report.html")) for word in COMMANDS[name]]
            for source in trees.values():  # one warm-up each, not counted
                measured_run(source, arguments)
            found: dict[str, list] = {tree: [] for tree in trees}
            for pair in range(args.runs):
                order = list(trees.items()) if pair % 2 == 0 else list(reversed(trees.items()))
                for tree, source in order:
                    cpu, wall, mib = measured_run(source, arguments)
                    found[tree].append((cpu, wall, mib))
                    print(
                        f"{name} pair {pair + 1} {tree:<9} CPU {cpu:.2f} s, wall {wall:.2f} s, peak {mib:.0f} MiB",
                        flush=True,
                    )
            results[name] = found
    print(
        f"{args.runs} alternated pairs per command after one warm-up each, baseline {args.baseline} ({revision}); "
        f"{os.cpu_count()} CPUs; load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; {BYTECODE}"
    )
    for name, found in results.items():
        print(f"densing {' '.join(COMMANDS[name]).format(out='OUT')}:")
        for tree, runs in found.items():
            print(
                f"  {tree:<9} CPU s {spread(r[0] for r in runs)}; wall s {spread(r[1] for r in runs)}; "
                f"peak MiB {spread((r[2] for r in runs), '.0f')}"
            )
        print(
            f"  ratio of the medians (this tree / baseline): CPU {_median_ratio(found, 0):.2f}, "
            f"wall {_median_ratio(found, 1):.2f}, peak memory {_median_ratio(found, 2):.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
