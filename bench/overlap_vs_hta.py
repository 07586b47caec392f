"""Whole-process time, memory and parity of ``densing overlap analyze`` against HolisticTraceAnalysis 0.5.0 and
traceinsight 0.6.1 (HTA's successor on PyPI) on the same traces.

    python bench/overlap_vs_hta.py [SET_DIR ...] [--repeat 7] [--no-default-sets]

Baselines, each a fresh process running a plain script that loads the set and computes the same two results
(``get_comm_comp_overlap`` and ``get_temporal_breakdown``) and prints them as JSON:

* HolisticTraceAnalysis 0.5.0 in its own environment, made on first use
  (``python3 -m venv bench/.hta-venv && bench/.hta-venv/bin/pip install HolisticTraceAnalysis==0.5.0``;
  ``--hta-python`` points elsewhere);
* traceinsight 0.6.1 in this environment (``pip install -e '.[bench]'``; ``--traceinsight-python`` elsewhere).
  Both install the module ``hta``, hence two environments.

densing runs as ``python cli.py overlap analyze SET --format json`` of this tree, once with ``--kernel-rules hta``
(paired with 0.5.0) and once with ``--kernel-rules traceinsight`` (paired with 0.6.1): what a user waits for,
interpreter start and imports included for every side. ``compileall`` runs over ``densing`` first (a regular
``pip install`` compiles the bytecode; where ``PYTHONDONTWRITEBYTECODE`` is set an uncompiled tree is recompiled on
every run). Per repeat the four processes run in turn (densing, HTA, densing, traceinsight), after one warm-up
round (file cache), and each ratio baseline/densing is taken pair by pair, so drift in the machine's speed cancels.
CPU seconds (user + system of a process and the children it waited for: HTA's worker pool, densing's forked parts)
are taken from the same runs; on a machine shared with other work they vary less than wall time does. Peak memory
is the largest sum of RSS over a process and its children, polled every 20 ms in one extra run per tool and set
(the timed runs are not polled).

Prints per set the median wall seconds of each tool, the median paired wall ratio with its spread (min–max over
the pairs), the median paired CPU ratio, peak MiB, and the largest difference in percentage points between densing and each baseline over every
rank and the four numbers (overlap %, idle %, compute %, non-compute %; HTA rounds its overlap % to 2 decimals,
so up to 0.005 pp is its rounding); then the geometric mean of the median ratios over the HTA test sets.
A synthesised set whose kernels the two rules classify differently (``ncclDev*``, ``hccl*``, ``hip*``;
tests/overlap/overlap_tracegen.py ``rules_trace``) is checked for parity too, outside the geometric mean.
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_SETS = Path(os.environ.get("DENSING_SHARED_DATA", REPO.parent / "shared" / "data")) / "traces" / "hta"
sys.path.insert(0, str(REPO))
from tests.overlap.overlap_tracegen import rules_trace
from tools.overlap_baselines import HTA_CODE, METRICS, tree_rss_bytes


def peak_rss(cmd: list[str]) -> int:
    """The largest RSS of the process tree of ``cmd``, polled every 20 ms."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss_bytes(proc.pid))
        time.sleep(0.02)
    if proc.wait() != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.read()[-2000:]}")
    return peak


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds of the whole process, CPU seconds (user + system) of it and the children it waited for, stdout."""
    cpu, start = _cpu_seconds(), time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed, cpu, done.stdout


def densing_rows(out: str) -> dict:
    return {str(r["rank"]): {k: float(r[k]) for k in METRICS} for r in json.loads(out)}


def hta_rows(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def max_diff(a: dict, b: dict) -> float:
    if set(a) != set(b):
        raise SystemExit(f"the tools report different ranks: {sorted(a)} vs {sorted(b)}")
    return max(abs(a[r][k] - b[r][k]) for r in a for k in METRICS)


def ensure_hta(python: Path) -> Path:
    if python.exists():
        return python
    venv = HERE / ".hta-venv"
    print(f"creating {venv} with HolisticTraceAnalysis==0.5.0 ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "HolisticTraceAnalysis==0.5.0"], check=True)
    return venv / "bin" / "python"


def commands(trace_set: Path, args) -> dict[str, list[str]]:
    densing = [str(args.densing_python), str(REPO / "cli.py"), "overlap", "analyze", str(trace_set), "--format", "json"]
    return {
        "densing_hta": densing + ["--kernel-rules", "hta"],
        "hta": [str(args.hta_python), "-c", HTA_CODE, str(trace_set)],
        "densing_ti": densing + ["--kernel-rules", "traceinsight"],
        "traceinsight": [str(args.traceinsight_python), "-c", HTA_CODE, str(trace_set)],
    }


def measure_set(trace_set: Path, args, repeat: int) -> dict:
    cmds = commands(trace_set, args)
    outputs = {name: timed(cmd)[2] for name, cmd in cmds.items()}  # warm-up round; its outputs give parity
    times: dict[str, list[float]] = {name: [] for name in cmds}
    cpus: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(repeat):
        for name, cmd in cmds.items():
            wall, cpu, _ = timed(cmd)
            times[name].append(wall)
            cpus[name].append(cpu)
    peaks = {name: peak_rss(cmd) for name, cmd in cmds.items()} if repeat else {}
    return {
        "times": times,
        "cpus": cpus,
        "peaks": peaks,
        "diff_hta": max_diff(densing_rows(outputs["densing_hta"]), hta_rows(outputs["hta"])),
        "diff_ti": max_diff(densing_rows(outputs["densing_ti"]), hta_rows(outputs["traceinsight"])),
    }


def _ratios(times: dict, base: str, ours: str) -> list[float]:
    return [b / d for b, d in zip(times[base], times[ours])]


def _shown(python: Path) -> str:
    """An interpreter's path as printed: relative to the repository (a venv of this checkout or beside it)."""
    for root in (REPO, REPO.parent):
        try:
            return str(Path(python).absolute().relative_to(root))
        except ValueError:
            pass
    return Path(python).name


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", type=Path)
    parser.add_argument("--no-default-sets", action="store_true", help="run only the SET_DIRs given")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--hta-python", type=Path, default=HERE / ".hta-venv" / "bin" / "python")
    parser.add_argument("--traceinsight-python", type=Path, default=Path(sys.executable))
    parser.add_argument("--densing-python", type=Path, default=Path(sys.executable))
    args = parser.parse_args()
    args.hta_python = ensure_hta(args.hta_python)
    compileall.compile_dir(str(REPO / "densing"), quiet=1)
    sets = [] if args.no_default_sets else sorted(p for p in DEFAULT_SETS.iterdir() if p.is_dir())
    sets += args.sets

    print(
        f"densing: cli.py ({_shown(args.densing_python)}); baselines: HolisticTraceAnalysis 0.5.0 "
        f"({_shown(args.hta_python)}), traceinsight 0.6.1 ({_shown(args.traceinsight_python)}); {args.repeat} paired rounds after "
        f"one warm-up; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(
        f"{'set':<18}{'densing s':>10}{'HTA0.5 s':>10}{'TI0.6.1 s':>10}{'HTA0.5/densing':>22}"
        f"{'TI0.6.1/densing':>22}{'CPU HTA0.5/d':>14}{'CPU TI/d':>10}{'MiB d/HTA/TI':>16}{'|Δ| pp HTA':>12}"
        f"{'|Δ| pp TI':>11}"
    )
    medians = {"hta": [], "traceinsight": []}
    cpu_medians = {"hta": [], "traceinsight": []}
    for trace_set in sets:
        r = measure_set(trace_set, args, args.repeat)
        t, c, p = r["times"], r["cpus"], r["peaks"]
        cells = []
        for base, ours in (("hta", "densing_hta"), ("traceinsight", "densing_ti")):
            ratios = _ratios(t, base, ours)
            medians[base].append(statistics.median(ratios))
            cpu_medians[base].append(statistics.median(_ratios(c, base, ours)))
            cells.append(f"{statistics.median(ratios):.1f}x ({min(ratios):.1f}-{max(ratios):.1f})")
        mib = f"{p['densing_hta'] / 2**20:.0f}/{p['hta'] / 2**20:.0f}/{p['traceinsight'] / 2**20:.0f}"
        print(
            f"{trace_set.name:<18}{statistics.median(t['densing_hta']):>10.3f}{statistics.median(t['hta']):>10.3f}"
            f"{statistics.median(t['traceinsight']):>10.3f}{cells[0]:>22}{cells[1]:>22}"
            f"{cpu_medians['hta'][-1]:>13.1f}x{cpu_medians['traceinsight'][-1]:>9.1f}x{mib:>16}"
            f"{r['diff_hta']:>12.2g}{r['diff_ti']:>11.2g}"
        )
    if medians["hta"]:
        print(
            f"geometric mean of the median paired ratios over {len(medians['hta'])} sets: wall "
            f"{_geomean(medians['hta']):.1f}x vs HTA 0.5.0, {_geomean(medians['traceinsight']):.1f}x vs traceinsight "
            f"0.6.1; CPU {_geomean(cpu_medians['hta']):.1f}x vs HTA 0.5.0, "
            f"{_geomean(cpu_medians['traceinsight']):.1f}x vs traceinsight 0.6.1"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        rules_trace(Path(tmp) / "rank0.json")
        r = measure_set(Path(tmp), args, 0)
        print(
            f"parity on the synthesised ncclDev/hccl/hip set (tests/overlap/overlap_tracegen.py rules_trace): "
            f"max |Δ| {r['diff_hta']:.2g} pp vs HTA 0.5.0 (--kernel-rules hta), "
            f"{r['diff_ti']:.2g} pp vs traceinsight 0.6.1 (--kernel-rules traceinsight)"
        )


if __name__ == "__main__":
    main()
