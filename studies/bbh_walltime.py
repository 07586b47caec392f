"""Compute time of the SmolLM2 BBH runs from their run log: wall time (the union of the runs'
intervals) and process time (the sum over runs; two one-thread processes ran at once).

Reads ``results/smollm2/runs.txt`` (``NAME start HH:MM:SS …`` / ``NAME end HH:MM:SS …`` lines as the
drivers wrote them, the killed runs' ends appended from their logs' last write). BBH's runs all
fall on 2026-11-24 (UTC); the scoring runs (``bbh_final*``, from the request cache) are counted
apart.

    python studies/bbh_walltime.py [results/smollm2/runs.txt]
"""
from __future__ import annotations

import re
import sys
from datetime import datetime


def intervals(path: str) -> tuple[list[tuple[datetime, datetime]], list[tuple[datetime, datetime]]]:
    """``(compute, scoring)``: (start, end) of each BBH run that computed requests, and of each scoring run."""
    starts: dict[str, datetime] = {}
    compute, scoring = [], []
    for line in open(path, encoding="utf-8"):
        m = re.match(r"(bbh\S*) (start|end) (\d\d:\d\d:\d\d)", line)
        if not m:
            continue
        t = datetime.strptime("2026-11-24 " + m.group(3), "%Y-%m-%d %H:%M:%S")
        if m.group(2) == "start":
            starts[m.group(1)] = t
        elif m.group(1) in starts:
            (scoring if m.group(1).startswith("bbh_final") else compute).append((starts.pop(m.group(1)), t))
    if starts:
        raise SystemExit(f"{path}: runs without an end: {', '.join(sorted(starts))}")
    return compute, scoring


def union_seconds(spans: list[tuple[datetime, datetime]]) -> float:
    total, current = 0.0, None
    for a, b in sorted(spans):
        if current is None or a > current[1]:
            if current is not None:
                total += (current[1] - current[0]).total_seconds()
            current = [a, b]
        else:
            current[1] = max(current[1], b)
    if current is not None:
        total += (current[1] - current[0]).total_seconds()
    return total


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "results/smollm2/runs.txt"
    compute, scoring = intervals(path)
    process = sum((b - a).total_seconds() for a, b in compute)
    print(f"{len(compute)} BBH runs computing requests, {min(a for a, _ in compute):%H:%M}–{max(b for _, b in compute):%H:%M} UTC: "
          f"wall {union_seconds(compute) / 3600:.2f} h, process time {process / 3600:.2f} h; "
          f"{len(scoring)} scoring run(s) from the cache: " + ", ".join(f"{(b - a).total_seconds():.0f} s" for a, b in scoring))
    return 0


if __name__ == "__main__":
    sys.exit(main())
