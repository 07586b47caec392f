"""Scale of ``densing overlap analyze``: wall time and peak memory of the driver and of each
worker, per engine, at 256 and 1,024 synthetic ranks; HolisticTraceAnalysis 0.5.0 on a subset it
can handle as the baseline; and the projection to HTA issue #250's 200 GB of traces.

    python bench/overlap_scale.py DATA_DIR [--events 20000] [--big-events 100000] [--repeat 3]
        [--schedulers serial,processes,local] [--hta-ranks 8] [--hta-python bench/.hta-venv/bin/python]

Sets (made once under DATA_DIR with ``tools/overlap_synthetic.py``, fixed seeds): ``r1024`` (1,024
ranks of ``--events`` trace events each), ``r256`` (its first 256 files), ``r64`` (its first 64)
and ``r64_big`` (64 ranks of ``--big-events``: five times the events at the same rank count).

Each measurement is a fresh driver process (``python -c``: import, engine start-up, the analysis
of ``densing.overlap.analysis.set_rows``, shut-down) that reports its wall time, its own peak RSS
(``getrusage(RUSAGE_SELF)``) and its workers' peak RSS: ``RUSAGE_CHILDREN`` for local processes
(the largest child), ``Client.run(getrusage)`` on every Dask worker before the cluster closes.
Engines: ``serial`` (everything in the driver), ``processes`` (local processes, one per CPU)
and ``local`` (a Dask LocalCluster, one single-threaded worker process per CPU). Repeated
``--repeat`` times in turn (engine A, B, C, A, B, C …), median and min–max printed.

The baseline: HTA 0.5.0 (``TraceAnalysis(trace_dir).get_comm_comp_overlap()`` and
``get_temporal_breakdown()``) on the first ``--hta-ranks`` ranks, against densing's in-process
path on the same ranks, paired; HTA's per-rank memory and time give its projection too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from _timing import spread

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
HTA_200GB = 200e9  # HolisticTraceAnalysis issue #250: 200 GB of traces needed 950 GB of RAM

DRIVER = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from densing.overlap.analysis import set_rows
from densing.overlap.engine import make_engine
from densing.overlap.trace import trace_files
path, scheduler = sys.argv[1], sys.argv[2]
files = trace_files(path)
engine = make_engine(scheduler, files)
t1 = time.perf_counter()
rows, steps = set_rows(path, engine)
t2 = time.perf_counter()
workers = []
if hasattr(engine, "client"):
    peaks = engine.client.run(lambda: __import__("resource").getrusage(__import__("resource").RUSAGE_SELF).ru_maxrss)
    workers = [kib / 1024 for kib in peaks.values()]
engine.close()
if not workers:
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    workers = [children / 1024] if children else []
print(json.dumps({"wall_s": time.perf_counter() - t0, "startup_s": t1 - t0, "analysis_s": t2 - t1,
                  "driver_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "worker_mib": workers, "ranks": len(rows), "step_rows": len(steps)}))
"""

HTA = r"""
import json, logging, resource, sys, time
logging.disable(logging.WARNING)
t0 = time.perf_counter()
from hta.trace_analysis import TraceAnalysis
ta = TraceAnalysis(trace_dir=sys.argv[1])
ov = ta.get_comm_comp_overlap(visualize=False)
br = ta.get_temporal_breakdown(visualize=False)
print(json.dumps({"wall_s": time.perf_counter() - t0,
                  "driver_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "worker_mib": [resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024],
                  "ranks": len(ov)}))
"""


def make_sets(data: Path, events: int, big_events: int) -> dict[str, Path]:
    gen = [sys.executable, str(REPO / "tools" / "overlap_synthetic.py")]
    full = data / "r1024"
    if not (full / "rank-1023.json.gz").exists():
        subprocess.run(
            gen + [str(full), "--ranks", "1024", "--events", str(events), "--seed", "11"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    big = data / "r64_big"
    if not (big / "rank-63.json.gz").exists():
        subprocess.run(
            gen + [str(big), "--ranks", "64", "--events", str(big_events), "--seed", "12"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    sets = {}
    for n in (64, 256):
        sub = data / f"r{n}"
        sub.mkdir(exist_ok=True)
        for r in range(n):
            link = sub / f"rank-{r}.json.gz"
            if not link.exists():
                link.symlink_to(full / f"rank-{r}.json.gz")
        sets[f"r{n}"] = sub
    sets["r64_big"] = big
    sets["r1024"] = full
    return sets


def measure(cmd: list[str]) -> dict:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} … failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def set_bytes(path: Path) -> tuple[int, int]:
    """Compressed bytes and decompressed bytes (gzip trailers) of a set."""
    from densing.overlap.gzipio import expected_size

    files = sorted(path.iterdir())
    return sum(f.stat().st_size for f in files), sum(expected_size(f) for f in files)


def grid(args, sets: dict, schedulers: list[str]) -> dict:
    """Every set under every engine, ``--repeat`` times in turn: prints a row per (set, engine) and returns the runs'
    wall times, driver and worker memory by (set, engine)."""
    print(
        f"{'set':<8} {'ranks':>5} {'events/rank':>11} {'engine':<9} {'wall s':>20} {'driver MiB':>20} "
        f"{'worker MiB (max)':>20} {'driver KiB/rank':>15}"
    )
    results: dict = {}
    for name in args.sets.split(","):
        path = sets[name]
        ranks = len(list(path.iterdir()))
        events = args.big_events if name == "r64_big" else args.events
        runs = {s: [] for s in schedulers}
        for _ in range(args.repeat):
            for s in schedulers:
                runs[s].append(measure([sys.executable, "-c", DRIVER, str(path), s]))
        for s in schedulers:
            r = runs[s]
            assert all(x["ranks"] == ranks for x in r), (name, s)
            driver = [x["driver_mib"] for x in r]
            worker = [max(x["worker_mib"] or [0]) for x in r]
            results[(name, s)] = {
                "wall": [x["wall_s"] for x in r],
                "driver": driver,
                "worker": worker,
                "startup": [x["startup_s"] for x in r],
                "ranks": ranks,
                "events": events,
            }
            print(
                f"{name:<8} {ranks:>5} {events:>11} {s:<9} {spread([x['wall_s'] for x in r], '.2f'):>20} "
                f"{spread(driver, '.1f'):>20} {spread(worker, '.1f'):>20} {statistics.median(driver) * 1024 / ranks:>15.0f}"
            )
    return results


def memory_growth(args, results: dict, schedulers: list[str]) -> None:
    """The driver's memory against ranks (r256 → r1024) and against events (r64 → r64_big), medians."""
    print("\nDriver memory against ranks and events (medians):")
    for s in schedulers:
        d = {n: statistics.median(results[(n, s)]["driver"]) for n in args.sets.split(",") if (n, s) in results}
        if {"r256", "r1024"} <= d.keys():
            slope = (d["r1024"] - d["r256"]) / 768 * 1024
            print(f"  {s:<9} r256 {d['r256']:.1f} MiB → r1024 {d['r1024']:.1f} MiB: {slope:.1f} KiB per extra rank")
        if {"r64", "r64_big"} <= d.keys():
            print(f"  {s:<9} r64 {d['r64']:.1f} MiB → r64_big (5x events) {d['r64_big']:.1f} MiB")


def hta_baseline(args, sets: dict) -> dict:
    """HTA 0.5.0 against densing (serial) on the first ``--hta-ranks`` and half as many ranks of r1024, paired: by
    rank count, HTA's median wall seconds and driver MiB (empty without HTA's interpreter)."""
    hta = {}
    if not (args.hta_python.exists() and args.hta_ranks):
        return hta
    print(f"\nBaseline: HTA 0.5.0 and densing (serial) on the first ranks of r1024, paired, {args.repeat} runs:")
    for n in (args.hta_ranks // 2, args.hta_ranks):
        sub = args.data / f"hta_r{n}"
        sub.mkdir(exist_ok=True)
        for r in range(n):
            link = sub / f"rank-{r}.json.gz"
            if not link.exists():
                link.symlink_to(sets["r1024"] / f"rank-{r}.json.gz")
        pairs = []
        for _ in range(args.repeat):
            a = measure([sys.executable, "-c", DRIVER, str(sub), "serial"])
            b = measure([str(args.hta_python), "-c", HTA, str(sub)])
            pairs.append((a, b))
        ratio = [b["wall_s"] / a["wall_s"] for a, b in pairs]
        hta[n] = {
            "wall": statistics.median(b["wall_s"] for _, b in pairs),
            "mib": statistics.median(b["driver_mib"] for _, b in pairs),
        }
        print(
            f"  {n:>3} ranks: HTA {hta[n]['wall']:.2f} s, {hta[n]['mib']:.0f} MiB; densing "
            f"{statistics.median(a['wall_s'] for a, _ in pairs):.2f} s, "
            f"{statistics.median(a['driver_mib'] for a, _ in pairs):.0f} MiB; HTA/densing wall "
            f"{spread(ratio, '.1f')}x"
        )
    return hta


def projection(sets: dict, results: dict, schedulers: list[str], hta: dict) -> None:
    """Each engine's driver memory and time, and HTA's, projected to HTA #250's 200 GB from the per-rank figures of
    the largest measured set."""
    comp, raw = set_bytes(sets["r1024"])
    per_rank_raw = raw / 1024
    ranks_200 = HTA_200GB / per_rank_raw
    print(
        f"\nProjection to HTA #250's 200 GB (decompressed JSON), from r1024: {per_rank_raw / 1e6:.2f} MB "
        f"decompressed per rank ({comp / 1024 / 1e6:.2f} MB gzip) → {ranks_200:,.0f} ranks of this size"
    )
    for s in schedulers:
        if ("r1024", s) not in results or ("r256", s) not in results:
            continue
        r1024, r256 = results[("r1024", s)], results[("r256", s)]
        slope_mib = (statistics.median(r1024["driver"]) - statistics.median(r256["driver"])) / 768
        driver_200 = statistics.median(r256["driver"]) + slope_mib * (ranks_200 - 256)
        rate = raw / statistics.median(r1024["wall"])  # decompressed bytes per second, this machine
        print(
            f"  {s:<9} driver {slope_mib * 1024:.1f} KiB/rank → {driver_200 / 1024:.1f} GiB at 200 GB; worker peak "
            f"{statistics.median(r1024['worker']):.0f} MiB (per worker, whatever the set); "
            f"{rate / 1e6:.0f} MB/s here → {HTA_200GB / rate / 3600:.1f} h on {os.cpu_count()} CPUs, "
            f"÷ machines for a cluster"
        )
    if len(hta) == 2:
        small, large = sorted(hta)
        per_rank = (hta[large]["mib"] - hta[small]["mib"]) / (large - small)
        per_mb = per_rank / (per_rank_raw / 1e6)
        print(
            f"  HTA 0.5.0: {per_rank:.0f} MiB per extra rank = {per_mb:.1f} MiB per MB of trace → "
            f"{per_mb * HTA_200GB / 1e6 / 2**10:,.0f} GiB at 200 GB in one process (#250 reports 950 GB); "
            f"{(hta[large]['wall'] - hta[small]['wall']) / (large - small):.2f} s per rank"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--big-events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--schedulers", default="serial,processes,local")
    parser.add_argument("--sets", default="r64,r64_big,r256,r1024")
    parser.add_argument("--hta-ranks", type=int, default=8)
    parser.add_argument("--hta-python", type=Path, default=HERE / ".hta-venv" / "bin" / "python")
    args = parser.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    sets = make_sets(args.data, args.events, args.big_events)
    schedulers = args.schedulers.split(",")
    load = os.getloadavg()
    print(
        f"{os.cpu_count()} CPUs; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
        f"{args.repeat} runs per cell, engines in turn; median [min–max]"
    )
    results = grid(args, sets, schedulers)
    memory_growth(args, results, schedulers)
    projection(sets, results, schedulers, hta_baseline(args, sets))


if __name__ == "__main__":
    main()
