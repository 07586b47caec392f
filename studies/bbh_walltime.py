"""Compute time of the SmolLM2 BBH runs: wall time (the union of the runs' intervals) and process
time (the sum over runs; two one-thread processes ran at once for most of the split).

Reads ``results/smollm2/bbh_runs.csv`` (one row per run: ``run, kind, shard, threads, start_s,
duration_s, ended, requests_cached_after``; ``start_s`` in seconds from the first run's start).
The runs that generated BBH's strings (``kind`` = ``generation``) and the scoring runs from the
request cache (``kind`` = ``scoring``) are counted apart.

    python studies/bbh_walltime.py [results/smollm2/bbh_runs.csv]
"""

from __future__ import annotations

import csv
import sys


def intervals(path: str) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """``(compute, scoring)``: (start, end) in seconds of each generating run and of each scoring run."""
    compute, scoring = [], []
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            start = float(row["start_s"])
            span = (start, start + float(row["duration_s"]))
            (scoring if row["kind"] == "scoring" else compute).append(span)
    return compute, scoring


def union_seconds(spans: list[tuple[float, float]]) -> float:
    total, current = 0.0, None
    for a, b in sorted(spans):
        if current is None or a > current[1]:
            if current is not None:
                total += current[1] - current[0]
            current = [a, b]
        else:
            current[1] = max(current[1], b)
    if current is not None:
        total += current[1] - current[0]
    return total


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "results/smollm2/bbh_runs.csv"
    compute, scoring = intervals(path)
    process = sum(b - a for a, b in compute)
    span = max(b for _, b in compute) - min(a for a, _ in compute)
    print(
        f"{len(compute)} BBH runs computing requests over {span / 3600:.2f} h from the first start to the last end: "
        f"wall {union_seconds(compute) / 3600:.2f} h, process time {process / 3600:.2f} h; "
        f"{len(scoring)} scoring run(s) from the cache: " + ", ".join(f"{b - a:.0f} s" for a, b in scoring)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
