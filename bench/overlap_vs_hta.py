"""Time and memory of ``densing overlap`` against HolisticTraceAnalysis 0.5.0 on the same traces.

    python bench/overlap_vs_hta.py [SET_DIR ...] [--repeat 5] [--budget-seconds 120] [--no-default-sets]

Baseline: HTA 0.5.0 from PyPI in its own environment, created on first use:
    python3 -m venv bench/.hta-venv && bench/.hta-venv/bin/pip install HolisticTraceAnalysis==0.5.0
(``--hta-python`` points elsewhere). Each tool runs in a fresh subprocess per set and repeat and
times itself from before parsing to after overlap + temporal breakdown (interpreter start and
imports excluded for both). Ratios are given of the median and of the best run (the run least
disturbed by other load on the machine). Peak memory is the largest sum of RSS over the subprocess and its
children (HTA parses ranks in a multiprocessing pool), sampled every 20 ms in one extra run per
tool and set: the timed runs are not sampled, because reading /proc/PID/statm takes the child's
memory-map lock and slows it.
Sets: the HTA test traces in ../shared/data/traces/hta/, plus any SET_DIR given (e.g. one
made by tools/overlap_synthetic.py). Prints per-set median times,
the ratio HTA/densing, its geometric mean, peak memories, and the largest difference in
percentage points between the two tools' overlap/breakdown numbers (HTA's overlap % is rounded
to 2 decimals by HTA itself, so up to 0.005 pp of it is HTA's rounding).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_SETS = Path(os.environ.get("DENSING_SHARED_DATA", REPO.parent / "shared" / "data")) / "traces" / "hta"

HTA_CODE = r"""
import json, logging, sys, time
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
t0 = time.perf_counter()
ta = TraceAnalysis(trace_dir=sys.argv[1])
ov = ta.get_comm_comp_overlap(visualize=False)
br = ta.get_temporal_breakdown(visualize=False)
t1 = time.perf_counter()
rows = {str(r): {"comm_comp_overlap_pct": float(o)} for r, o in zip(ov["rank"], ov["comp_comm_overlap_pctg"])}
for _, b in br.iterrows():  # HTA returns rounded percentages; recompute them from its µs columns
    k = float(b["kernel_time(us)"])
    rows[str(int(b["rank"]))].update(idle_pct=100 * float(b["idle_time(us)"]) / k, compute_pct=100 * float(b["compute_time(us)"]) / k,
                                non_compute_pct=100 * float(b["non_compute_time(us)"]) / k)
print(json.dumps({"seconds": t1 - t0, "rows": rows}))
"""

DENSING_CODE = r"""
import json, sys, time
from densing.overlap import analyze, read_traces
t0 = time.perf_counter()
frame = analyze(read_traces(sys.argv[1]))
t1 = time.perf_counter()
rows = {str(int(r["rank"])): {k: float(r[k]) for k in ("comm_comp_overlap_pct", "idle_pct", "compute_pct", "non_compute_pct")}
        for _, r in frame.iterrows()}
print(json.dumps({"seconds": t1 - t0, "rows": rows}))
"""


def _tree_rss_bytes(root: int) -> int:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/statm") as fh:
                total += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            pass
    return total


def run_measured(cmd: list[str], env: dict) -> tuple[dict, int]:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss_bytes(proc.pid))
        time.sleep(0.02)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed on {cmd[-1]}:\n{err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1]), peak


SETTLE_SECONDS = 1.0


def run_timed(cmd: list[str], env: dict) -> dict:
    """Run without the memory poller: reading /proc/PID/statm takes the child's memory-map lock,
    which slows an allocation-heavy child, so times and peak memory come from separate runs."""
    done = subprocess.run(cmd, capture_output=True, env=env, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed on {cmd[-1]}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ensure_hta(python: Path) -> Path:
    if python.exists():
        return python
    venv = HERE / ".hta-venv"
    print(f"creating {venv} with HolisticTraceAnalysis==0.5.0 ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "HolisticTraceAnalysis==0.5.0"], check=True)
    return venv / "bin" / "python"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", type=Path)
    parser.add_argument("--no-default-sets", action="store_true",
                        help="run only the SET_DIRs given, not the HTA test traces")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--budget-seconds", type=float, default=120.0,
                        help="stop repeating a set once its runs took this long (at least one run)")
    parser.add_argument("--hta-python", type=Path, default=HERE / ".hta-venv" / "bin" / "python")
    parser.add_argument("--densing-python", type=Path, default=Path(sys.executable))
    args = parser.parse_args()
    sets = [] if args.no_default_sets else sorted(p for p in DEFAULT_SETS.iterdir() if p.is_dir())
    sets += args.sets
    hta_python = ensure_hta(args.hta_python)
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))

    print(f"baseline: HolisticTraceAnalysis 0.5.0 ({hta_python}); repeats: {args.repeat}; median seconds")
    print(f"{'set':<22}{'runs':>5}{'events':>10}{'HTA s':>10}{'densing s':>11}{'ratio':>8}{'best-of ratio':>14}{'HTA MiB':>10}{'densing MiB':>13}{'mem ratio':>11}{'max |Δ| pp':>12}")
    ratios, best_ratios = [], []
    for trace_set in sets:
        hta_t, den_t, hta_m, den_m = [], [], [], []
        set_start = time.perf_counter()
        hta_cmd = [str(hta_python), "-c", HTA_CODE, str(trace_set)]
        den_cmd = [str(args.densing_python), "-c", DENSING_CODE, str(trace_set)]
        for _ in range(args.repeat):
            if hta_t and time.perf_counter() - set_start > args.budget_seconds:
                break
            # a pause before each timed run lets the machine settle after the previous process
            # (HTA's worker pool and freed memory are still being torn down when it returns)
            time.sleep(SETTLE_SECONDS)
            h = run_timed(hta_cmd, env)
            time.sleep(SETTLE_SECONDS)
            d = run_timed(den_cmd, env)
            hta_t.append(h["seconds"]); den_t.append(d["seconds"])
        # one more run of each, polled every 20 ms for the peak RSS of its process tree
        hta_m.append(run_measured(hta_cmd, env)[1])
        den_m.append(run_measured(den_cmd, env)[1])
        diff = max(abs(h["rows"][r][k] - d["rows"][r][k]) for r in h["rows"] for k in h["rows"][r])
        events = _count_events(trace_set)
        ratio = statistics.median(hta_t) / statistics.median(den_t)
        best_ratio = min(hta_t) / min(den_t)
        ratios.append(ratio)
        best_ratios.append(best_ratio)
        print(f"{trace_set.name:<22}{len(hta_t):>5}{events:>10}{statistics.median(hta_t):>10.3f}{statistics.median(den_t):>11.3f}"
              f"{ratio:>7.1f}x{best_ratio:>13.1f}x{max(hta_m) / 2**20:>10.0f}{max(den_m) / 2**20:>13.0f}"
              f"{max(den_m) / max(hta_m):>11.2f}{diff:>12.2g}")
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    best_geomean = math.exp(sum(math.log(r) for r in best_ratios) / len(best_ratios))
    print(f"geomean speedup (HTA time / densing time) over {len(ratios)} sets: {geomean:.1f}x of medians, "
          f"{best_geomean:.1f}x of best runs")


def _count_events(trace_set: Path) -> int:
    import gzip
    total = 0
    for f in sorted(trace_set.iterdir()):
        if f.name.endswith(".json.gz") or f.name.endswith(".json"):
            opener = gzip.open if f.name.endswith(".gz") else open
            with opener(f, "rb") as fh:
                total += fh.read().count(b'"ph"')
    return total


if __name__ == "__main__":
    main()
