"""Whole-process time of ``densing overlap analyze`` against a HolisticTraceAnalysis 0.5.0 script.

    python bench/overlap_whole_process.py [--repeat 7] [--hta-python bench/.hta-venv/bin/python]

What a user waits for: each side is a fresh process, interpreter start and imports included.
A runs ``densing overlap analyze SET --format json`` (the console script of this environment);
B runs a plain HTA script that loads the same traces and computes the same two results
(``get_comm_comp_overlap`` and ``get_temporal_breakdown``) and prints them as JSON. The two run in
turn, A B A B …, after one warm-up each (file cache), and the ratio B/A is taken pair by pair, so
drift in the machine's speed cancels. Prints per set the medians, the median of the paired
ratios, and the geometric mean over the sets. The HTA environment is made as in
``bench/overlap_vs_hta.py`` (``python3 -m venv bench/.hta-venv && bench/.hta-venv/bin/pip install
HolisticTraceAnalysis==0.5.0``).

Both sides run from compiled bytecode: pip compiles HTA's modules to ``.pyc`` when it installs
them, but an editable install of densing leaves its modules as sources, and where
``PYTHONDONTWRITEBYTECODE`` is set (as on this project's machines) Python recompiles them on
every run (about 50 ms of densing's start-up). The script therefore runs ``compileall`` over the
``densing`` package first, which is what a regular ``pip install`` does.
"""

from __future__ import annotations

import argparse
import compileall
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_SETS = Path(os.environ.get("DENSING_SHARED_DATA", REPO.parent / "shared" / "data")) / "traces" / "hta"

HTA_SCRIPT = r"""
import json, logging, sys
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
ta = TraceAnalysis(trace_dir=sys.argv[1])
ov = ta.get_comm_comp_overlap(visualize=False)
br = ta.get_temporal_breakdown(visualize=False)
print(ov.to_json(orient="records"))
print(br.to_json(orient="records"))
"""


def _wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--hta-python", type=Path, default=HERE / ".hta-venv" / "bin" / "python")
    parser.add_argument("--densing", default=shutil.which("densing") or str(Path(sys.executable).with_name("densing")))
    args = parser.parse_args()
    sets = args.sets or sorted(p for p in DEFAULT_SETS.iterdir() if p.is_dir())
    if not args.hta_python.exists():
        raise SystemExit(f"{args.hta_python}: no HTA environment (see the module docstring)")
    import densing

    compileall.compile_dir(Path(densing.__file__).parent, quiet=1)  # what a regular pip install does
    load = os.getloadavg()
    print(
        f"densing: {args.densing}; baseline: HolisticTraceAnalysis 0.5.0 script ({args.hta_python.relative_to(REPO) if args.hta_python.is_relative_to(REPO) else args.hta_python}); "
        f"{args.repeat} paired runs after one warm-up; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"{'set':<18} {'densing s':>10} {'HTA s':>8} {'HTA/densing (paired median)':>28}")
    ratios = []
    for trace_set in sets:
        densing_cmd = [args.densing, "overlap", "analyze", str(trace_set), "--format", "json"]
        hta_cmd = [str(args.hta_python), "-c", HTA_SCRIPT, str(trace_set)]
        _wall(densing_cmd), _wall(hta_cmd)  # warm-up: file cache, .pyc
        a, b = [], []
        for _ in range(args.repeat):
            a.append(_wall(densing_cmd))
            b.append(_wall(hta_cmd))
        paired = statistics.median(y / x for x, y in zip(a, b))
        ratios.append(paired)
        print(f"{trace_set.name:<18} {statistics.median(a):>10.3f} {statistics.median(b):>8.3f} {paired:>27.1f}x")
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean of the paired ratios: {geomean:.1f}x (goal >= 8x)")


if __name__ == "__main__":
    main()
