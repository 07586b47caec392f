"""Whole-process time of ``densing report`` (and ``densing trend --by benchmark``) against a baseline commit.

Each command runs as the ``densing`` console script runs it (``python -m densing.cli``: :func:`densing.cli.run`).
The baseline is the same command run from a checkout of ``--baseline`` (a commit of this repository,
default ``main``: the landed tree) made with ``git worktree`` in a temporary folder and imported through
``PYTHONPATH`` (its ``src/`` where the package lives there), so both run in this interpreter with the same
packages. The two commands alternate,
A B A B …, ``--runs`` times each after one warm-up of each; the script prints each one's median and
range of wall seconds and of CPU seconds (the process and its children, its workers included: on a machine
other processes share, CPU seconds move less than wall seconds) and the pair-by-pair ratios A/B (median, range and
the distribution-free 95% interval of their median, ``densing.trend.random_effects.end_range`` at q = 0.5), with the
load average before and after. It asserts nothing.

    python bench/report_time.py [--runs 5] [--baseline main] [--command report|trend]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from _baseline import ROOT, baseline_tree, package_root
from _timing import BYTECODE, environment, seconds

from densing.trend.random_effects import end_range

COMMANDS = {
    "report": ["report", "--out", "{out}"],
    "trend": ["trend", "--by", "benchmark"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--command", choices=sorted(COMMANDS), default="report")
    args = parser.parse_args()
    with baseline_tree(args.baseline) as (base, commit, _):
        out = base.parent / "report.html"
        words = [w.format(out=str(out)) for w in COMMANDS[args.command]]
        runs = {}
        for name, tree in (("current", ROOT), ("baseline", base)):
            env = environment(package_root(tree))
            runs[name] = ([sys.executable, "-m", "densing.cli", *words], env, tree)
        load_before = os.getloadavg()
        for name in runs:  # one warm-up each (file caches, compiled bytecode)
            seconds(*runs[name])
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        for _ in range(args.runs):
            for name in runs:
                times[name].append(seconds(*runs[name]))
        load_after = os.getloadavg()
    print(
        f"densing {' '.join(COMMANDS[args.command]).format(out='OUT')}: {args.runs} paired whole-process runs after one "
        f"warm-up each; {os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; "
        f"{BYTECODE}"
    )
    for column, what in ((0, "wall"), (1, "CPU")):
        found = {name: [run[column] for run in runs_of] for name, runs_of in times.items()}
        ratios = [a / b for a, b in zip(found["current"], found["baseline"])]
        for name, values in found.items():
            label = "current tree" if name == "current" else f"baseline {args.baseline} ({commit})"
            print(
                f"{what:<4} {label:<28} median {statistics.median(values):6.2f} s  range {min(values):6.2f}–{max(values):6.2f} s"
            )
        print(
            f"{what:<4} {'ratio current/base':<28} median {statistics.median(ratios):6.2f}    range {min(ratios):6.2f}–{max(ratios):6.2f}"
        )
        low, high = end_range(ratios, 0.5)
        print(
            f"{what:<4} {'ratio: the median within':<28}        {low:6.2f}–{high:6.2f}  (95%, order statistics: an "
            f"interval holding 1 is within the runs' noise)"
        )


if __name__ == "__main__":
    main()
