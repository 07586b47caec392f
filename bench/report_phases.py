"""Where the wall time of ``densing report`` goes: its steps timed in one process, and each job's CPU seconds.

Each of ``--runs`` child processes imports the command's modules, computes the report
(:func:`densing.report.compute.compute_report`, whose measurement hands its jobs to
:func:`densing.runtime.executor.run`) and renders it (:func:`densing.report.render.render`, which lays the sections out
by the same executor), timing each step with
``time.perf_counter``; the script prints each step's median and range. Then one more child runs the measurement's
jobs one after another in one process (``DENSING_SERIAL=1``) and prints each job's CPU seconds
(``time.process_time``), the longest first. Last, ``--timeline`` runs the whole report once more as ``densing report``
runs it (workers and all) and prints which process computed what, when (seconds since the child started) and with how
much CPU: the jobs of the measurement, the OLMES design beside them, the sections' layout; and the least wall time
the run's own CPU allows on this machine's cores (its one-process steps plus its jobs' CPU shared by the cores). It
asserts nothing.

    python bench/report_phases.py [--runs 5] [--timeline]
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
from densing.runtime import executor
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
from densing.runtime import executor
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

_TIMELINE = """
import json, os, tempfile, time
T0 = time.perf_counter()
FOLDER = tempfile.mkdtemp()
def mark(what, start, cpu=None):  # one line per mark in a file of the process's own: the workers write theirs too
    with open(os.path.join(FOLDER, str(os.getpid())), "a") as out:
        out.write(json.dumps([os.getpid(), what, start - T0, time.perf_counter() - T0, cpu]) + "\\n")
import densing.report.compute, densing.report.render, densing.trend.measure
import densing.designs.olmes.trend as olmes
from densing.runtime import executor
mark("imports", T0)
one = executor._run_one
def timed_one(job, needed, *context, **keep):  # a job, timed (in a worker or in the command's process beside them)
    start, cpu = time.perf_counter(), time.process_time()
    found = one(job, needed, *context, **keep)
    mark(job.key if isinstance(job.key, str) else f"section {job.key}", start, time.process_time() - cpu)
    return found
def timed_run(jobs, context, run=executor.run):
    start = time.perf_counter()
    found = run(jobs, context)
    mark(f"{len(jobs)} jobs", start)
    return found
executor._run_one = timed_one
executor.run = timed_run
measure_olmes = olmes.measure_olmes
def timed_olmes(**arguments):
    start, cpu = time.perf_counter(), time.process_time()
    found = measure_olmes(**arguments)
    mark("the OLMES design", start, time.process_time() - cpu)
    return found
olmes.measure_olmes = timed_olmes
start = time.perf_counter()
report = densing.report.compute.compute_report()
mark("computing the report", start)
start = time.perf_counter()
densing.report.render.render(report)
mark("rendering", start)
marks = [json.loads(line) for name in sorted(os.listdir(FOLDER)) for line in open(os.path.join(FOLDER, name))]
print(json.dumps({"marks": marks, "main": os.getpid(), "cores": os.cpu_count()}))
"""


def _child(code: str, serial: bool = False) -> dict:
    """The JSON the last line of ``code`` prints, run in a child in the checkout's root (with compiled bytecode cached,
    as the other benches run densing; ``serial``: DENSING_SERIAL set)."""
    from _timing import environment

    env = {**environment(ROOT), **({"DENSING_SERIAL": "1"} if serial else {})}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeline", action="store_true", help="also one run's processes and jobs over time")
    args = parser.parse_args()
    runs = [_child(_PHASES) for _ in range(args.runs)]
    print(f"densing report's steps, {args.runs} runs in one process each; seconds of wall: median [min–max]")
    for step in runs[0]:
        values = [r[step] for r in runs]
        print(f"  {step:40s} {statistics.median(values):5.2f} [{min(values):.2f}–{max(values):.2f}]")
    jobs = _child(_JOBS, serial=True)
    print(f"the measurement's jobs one after another in one process: CPU seconds (sum {sum(jobs.values()):.2f})")
    for key, value in sorted(jobs.items(), key=lambda kv: -kv[1]):
        print(f"  {value:5.2f}  {key}")
    if args.timeline:
        _print_timeline(_child(_TIMELINE))


def _print_timeline(found: dict) -> None:
    """One run's marks, by start: the process (0 the command's own), start and end (s since it started), CPU s."""
    marks = sorted(found["marks"], key=lambda m: (m[2], m[3]))
    order = [found["main"], *dict.fromkeys(m[0] for m in marks if m[0] != found["main"])]
    print(
        "one run as densing report runs it: process (0: the command's own; workers numbered as they appear), "
        "start–end s, CPU s"
    )
    for pid, what, start, end, cpu in marks:
        print(f"  {order.index(pid):2d}  {start:5.2f}–{end:5.2f}  {'' if cpu is None else f'{cpu:5.2f}':5s}  {what}")
    runs = [m for m in marks if m[0] == found["main"] and m[1].endswith(" jobs")]
    worked = [m for m in marks if m[4] is not None]
    end = max(m[3] for m in marks)
    alone = end - sum(m[3] - m[2] for m in runs)
    cpu = sum(m[4] for m in worked if m[1] != "the OLMES design")
    print(
        f"  the run {end:.2f} s: {alone:.2f} s outside the executor's runs (in one process, the OLMES design's worker "
        f"beside it), {cpu:.2f} CPU-s of jobs in its runs; on {found['cores']} cores those jobs take at least "
        f"{cpu / found['cores']:.2f} s, so the run at least {alone + cpu / found['cores']:.2f} s"
    )


if __name__ == "__main__":
    main()
