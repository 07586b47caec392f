"""Where ``densing report``'s CPU goes (or ``densing trend --by benchmark``'s), on this tree and a baseline commit: the
censored-quantile walks, the density draws, and the rest, each run in one process (``DENSING_SERIAL=1``), pairs
alternating.

    python bench/report_shares.py --baseline REV [--runs 3] [--command report|trend]

Each run is a fresh ``python`` child in the tree's folder (the baseline: ``git archive REV`` with the shared data
beside it, :func:`_baseline.baseline_folder`), ``DENSING_SERIAL=1`` so that the measurement's jobs and the designs'
sections run in the one process (its CPU is the parallel run's less the workers' start-up and transfers). The child
wraps two functions of the package with ``time.process_time`` and counts their outermost calls only:

- ``densing.trend.censored._walk``: every censored 0.9-quantile line solved, the point lines, the bootstrap draws'
  lines and the designs' (the walk of Barrodale & Roberts, numpy over every row at once);
- ``densing.trend.pooling._densities``: the ln ρ and kinds of every paired draw of every reference (the inversions,
  the bounds, each reference's own members from the others).

Everything else (imports, tables, candidates and fits, the designs' own steps, pooling, rendering) is the rest. It
prints each run, then per tree the median and range of each part, and what the parts say of a CPU goal of 1.0× the
baseline's whole: this tree's rest alone over the baseline's whole (the ratio with walks and density draws costing
nothing), and how many times faster the walks and density draws together would have to be for the whole to match
the baseline's. It asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _baseline import ROOT, baseline_folder  # bench/ is the script's folder
from _timing import BYTECODE, environment, spread

#: The child: the two parts timed around the command (its arguments after the child's), every part's CPU seconds
#: printed as JSON on stderr's last line (the commands print to stdout).
_CHILD = """
import json, os, resource, sys, time
from densing.trend import censored, pooling
parts = {"walks": 0.0, "density draws": 0.0}
depth = [0]
def timed(module, name, part):
    inner = getattr(module, name)
    def outer(*args, **keywords):
        depth[0] += 1
        start = time.process_time()
        try:
            return inner(*args, **keywords)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                parts[part] += time.process_time() - start
    setattr(module, name, outer)
timed(censored, "_walk", "walks")
timed(pooling, "_densities", "density draws")
from densing.cli import main
try:
    main(sys.argv[1:])
except SystemExit as ended:
    if ended.code not in (0, None):
        raise
usage = resource.getrusage(resource.RUSAGE_SELF)
parts["whole"] = usage.ru_utime + usage.ru_stime
print(json.dumps(parts), file=sys.stderr)
"""

PARTS = ("whole", "walks", "density draws")
#: The commands, by name: each one's arguments ({out}: a file in the bench's temporary folder).
COMMANDS = {"report": ["report", "--out", "{out}"], "trend": ["trend", "--by", "benchmark"]}


def one_run(source: Path, arguments: list[str]) -> dict:
    """Each part's CPU seconds in one ``densing ARGUMENTS`` run from ``source`` in one process; a failing run ends
    the bench with its exit status and the end of its stderr."""
    # BLAS in one thread, as the command sets it for itself before numpy loads (here numpy loads first)
    env = {**environment(source), "DENSING_HOME": str(source), "DENSING_SERIAL": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *arguments], cwd=source, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"densing {' '.join(arguments)} in {source}: exit {done.returncode}: {done.stderr[-400:]}")
    return json.loads(done.stderr.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="the commit to compare with")
    parser.add_argument("--runs", type=int, default=3, help="alternated pairs (default 3)")
    parser.add_argument("--command", choices=sorted(COMMANDS), default="report", help="the command (default report)")
    args = parser.parse_args()
    revision = subprocess.run(
        ["git", "rev-parse", "--short", args.baseline], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.strip()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        trees = {"baseline": baseline_folder(revision, Path(folder)), "this tree": ROOT}
        arguments = [word.format(out=str(Path(folder) / "report.html")) for word in COMMANDS[args.command]]
        for source in trees.values():  # one warm-up each, not counted
            one_run(source, arguments)
        found: dict[str, list[dict]] = {tree: [] for tree in trees}
        for pair in range(args.runs):
            order = list(trees.items()) if pair % 2 == 0 else list(reversed(trees.items()))
            for tree, source in order:
                parts = one_run(source, arguments)
                found[tree].append(parts)
                shown = ", ".join(f"{part} {parts[part]:.2f}" for part in PARTS)
                print(f"pair {pair + 1} {tree:<9} CPU s: {shown}", flush=True)
    print(
        f"densing {' '.join(COMMANDS[args.command]).format(out='OUT')} in one process (DENSING_SERIAL=1), {args.runs} alternated pairs after one warm-up each, "
        f"baseline {args.baseline} ({revision}); {os.cpu_count()} CPUs; load average {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after; {BYTECODE}"
    )
    medians = {}
    for tree, runs in found.items():
        rest = [r["whole"] - r["walks"] - r["density draws"] for r in runs]
        columns = {**{part: [r[part] for r in runs] for part in PARTS}, "rest": rest}
        medians[tree] = {part: statistics.median(values) for part, values in columns.items()}
        print(f"  {tree:<9} " + "; ".join(f"{part} {spread(values)}" for part, values in columns.items()))
    mine, theirs = medians["this tree"], medians["baseline"]
    drawn = mine["walks"] + mine["density draws"]
    room = theirs["whole"] - mine["rest"]
    print(
        f"  this tree / baseline, whole: {mine['whole'] / theirs['whole']:.2f}; with this tree's walks free: "
        f"{(mine['whole'] - mine['walks']) / theirs['whole']:.2f}; with its walks and density draws free: "
        f"{mine['rest'] / theirs['whole']:.2f}"
    )
    if room > 0:
        print(
            f"  for 1.0x the baseline's whole, this tree's walks and density draws ({drawn:.2f} CPU-s) would have to "
            f"take {room:.2f} CPU-s: {drawn / room:.1f} times faster"
        )
    else:
        print("  this tree's rest alone takes more than the baseline's whole: no speed of the two parts reaches 1.0x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
