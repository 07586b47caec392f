"""Where the wall time of ``densing report`` goes: its steps timed in one process, and each job's CPU seconds.

Each of ``--runs`` child processes imports the command's modules, computes the report
(:func:`densing.report.compute.compute_report`, whose measurement hands its jobs to
:func:`densing.trend.executor.run`) and renders it (:func:`densing.report.render.render`, which lays the sections out
by the same executor), timing each step with
``time.perf_counter``; the script prints each step's median and range. Then one more child runs the measurement's
jobs one after another in one process (``DENSING_SERIAL=1``) and prints each job's CPU seconds
(``time.process_time``), the longest first. It asserts nothing.

    python bench/report_phases.py [--runs 5]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PHASES = """
import json, time
t0 = time.perf_counter()
import densing.report.compute, densing.report.render, densing.trend.measure
from densing.trend import executor
t1 = time.perf_counter()
marks = {}
run = executor.run
def timed(jobs, context):  # the measurement's jobs: the first call (rendering lays its sections out by run too)
    first = "pre" not in marks
    if first:
        marks["pre"] = time.perf_counter()
    found = run(jobs, context)
    if first:
        marks["jobs"] = time.perf_counter()
    return found
executor.run = timed
report = densing.report.compute.compute_report()
t2 = time.perf_counter()
densing.report.render.render(report)
t3 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "table, candidates and eligible fits": marks["pre"] - t1,
                  "the plan's jobs": marks["jobs"] - marks["pre"], "the other sections": t2 - marks["jobs"],
                  "rendering": t3 - t2}))
"""

_JOBS = """
import json, time
from densing import paths
from densing.data import read_results
from densing.trend import executor
from densing.trend.measure import measure_trend
seconds = {}
here = executor._here
def timed_here(jobs, context, done):
    done = dict(done)
    for job in jobs:
        start = time.process_time()
        done[job.key] = job.run(context, {n: done[n] for n in job.needs})
        seconds[job.key] = time.process_time() - start
    return done
executor._here = timed_here
measure_trend(read_results(paths.RESULTS / "public_models.csv"))
print(json.dumps(seconds))
"""


def _child(code: str, env: dict | None = None) -> dict:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    import os

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    runs = [_child(_PHASES) for _ in range(args.runs)]
    print(f"densing report's steps, {args.runs} runs in one process each; seconds of wall: median [min–max]")
    for step in runs[0]:
        values = [r[step] for r in runs]
        print(f"  {step:40s} {statistics.median(values):5.2f} [{min(values):.2f}–{max(values):.2f}]")
    jobs = _child(_JOBS, {**os.environ, "DENSING_SERIAL": "1"})
    print(f"the measurement's jobs one after another in one process: CPU seconds (sum {sum(jobs.values()):.2f})")
    for key, value in sorted(jobs.items(), key=lambda kv: -kv[1]):
        print(f"  {value:5.2f}  {key}")


if __name__ == "__main__":
    main()
