"""CPU time of the reference rule's candidate tables and the eligible family fits, as ``densing report`` makes them, against a
baseline commit.

Each tree (this checkout, and ``--baseline`` checked out with ``git worktree`` in a temporary folder) runs one
process that reads the public table as :func:`densing.trend.measure.measure_trend` does and times, inside
:func:`densing.runtime.same_tables`, ``--runs`` times each: the headline's candidate table (power shape,
with the shipped composed fits), the eligible fits (:func:`densing.laws.eligibility.eligible_fits`, 1000 draws each)
and the law-shape sensitivity's candidate table (logistic in ln N). It prints each step's median and range of CPU
seconds (``time.process_time``) per tree, the ratio of the medians, the load average before and after, and whether
the two trees' tables and fits are the same to the byte (the tables as CSV, the fits' laws, provenance, draws and
points by ``repr``). It asserts nothing.

    python bench/candidate_tables.py [--runs 5] [--baseline main]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from _baseline import ROOT, baseline_tree, package_root

#: Run in each tree: the timings (JSON on the first line) and the outputs' digest (the second).
INNER = """
import hashlib, json, sys, time
import densing
from densing.data.schema import table_argument
from densing.laws import eligibility
from densing.runtime.memo import same_tables
from densing.paths import DEFAULT_DENSITY_TARGETS as DEFAULT_RESULTS
from densing import registry
from densing.trend.targets import SCORE_COLUMNS
from densing.trend.targets import with_stderr
targets = with_stderr(table_argument(densing.read_results(DEFAULT_RESULTS), "targets", SCORE_COLUMNS))
benchmarks = registry.table("public").candidates
composed = eligibility.composed_fits(None)
times = {"candidate table, power": [], "eligible fits": [], "candidate table, logistic": []}
for _ in range(int(sys.argv[1])):
    with same_tables():
        t = time.process_time()
        power = eligibility.candidate_table(targets, composed=composed, benchmarks=benchmarks)
        times["candidate table, power"].append(time.process_time() - t)
        t = time.process_time()
        fits = eligibility.eligible_fits(targets, power, seed=0)
        times["eligible fits"].append(time.process_time() - t)
    with same_tables():
        t = time.process_time()
        logistic = eligibility.candidate_table(targets, composed=None,
                                               shape="logistic_ln_n", benchmarks=benchmarks)
        times["candidate table, logistic"].append(time.process_time() - t)
laws = {k: (f.params, f.provenance, f.bootstrap, f.points, f.d0, f.data_hash) for k, f in fits.items()}
print(json.dumps(times))
print(hashlib.sha256((power.to_csv() + logistic.to_csv() + repr(laws)).encode()).hexdigest())
"""


def run_tree(tree: Path, runs: int) -> tuple[dict, str]:
    """(step → CPU seconds of each run, digest of the outputs) of one tree."""
    source = package_root(tree)
    done = subprocess.run(
        [sys.executable, "-c", INNER, str(runs)],
        capture_output=True,
        text=True,
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(source), "OMP_NUM_THREADS": "1"},
    )
    if done.returncode != 0:
        raise SystemExit(f"{tree}: exit {done.returncode}: {done.stderr[-400:]}")
    lines = done.stdout.strip().splitlines()
    return json.loads(lines[-2]), lines[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", default="main")
    args = parser.parse_args()
    with baseline_tree(args.baseline) as (base, commit, _):
        load_before = os.getloadavg()
        current, current_digest = run_tree(ROOT, args.runs)
        baseline, baseline_digest = run_tree(base, args.runs)
        load_after = os.getloadavg()
    print(
        f"the reference rule's candidate tables and eligible fits on the public table: {args.runs} runs each, CPU seconds; "
        f"{os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
    )
    for step in current:
        now, before = statistics.median(current[step]), statistics.median(baseline[step])
        print(
            f"{step:<27} current {now:6.3f} s ({min(current[step]):.3f}–{max(current[step]):.3f})  "
            f"baseline {args.baseline} ({commit}) {before:6.3f} s ({min(baseline[step]):.3f}–{max(baseline[step]):.3f})  "
            f"ratio {now / before:.2f}"
        )
    print(f"same output as the baseline, to the byte: {'yes' if current_digest == baseline_digest else 'NO'}")


if __name__ == "__main__":
    main()
