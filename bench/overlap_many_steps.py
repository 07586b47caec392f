"""``overlap analyze`` read whole against streamed on single-rank traces with many ProfilerSteps.

    python bench/overlap_many_steps.py [--steps 8000,32000,64000] [--repeats 3] [--scratch DIR]

For each step count a GPU trace is synthesised under ``--scratch`` (a temporary folder by default, never the
repository): per step one ``ProfilerStep#k`` annotation and three kernels on two streams, each launched from the CPU
inside its step (about 1 KB of JSON per step). The trace is analysed in this process by
:func:`densing.overlap.analyze` whole (``stream=False``, the in-memory path) and streamed (``stream=True``,
:mod:`densing.overlap.stream`: the baseline), ``--repeats`` times each, serial scheduler.

Prints per step count: the file's MB, the median and the spread (min–max) of the wall seconds of each path, and the
ratio whole / streamed of the medians. The per-rank answer builds no per-step rows, and ``analyze_steps``'s are found
with one sort of the kernels by step (:func:`densing.overlap.metrics.rank_step_rows`), so the whole path stays linear
in the steps and the ratio bounded as they grow.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import tempfile
import time
from pathlib import Path


def synthesise(path: Path, steps: int) -> Path:
    """A Kineto-shaped trace of ``steps`` steps (module docstring)."""
    events = []
    for k in range(steps):
        base = k * 100
        events.append(
            {
                "ph": "X",
                "cat": "user_annotation",
                "name": f"ProfilerStep#{k}",
                "pid": 1,
                "tid": 1,
                "ts": base,
                "dur": 100,
                "args": {},
            }
        )
        for j in range(3):
            corr = k * 3 + j
            events.append(
                {
                    "ph": "X",
                    "cat": "cuda_runtime",
                    "name": "cudaLaunchKernel",
                    "pid": 1,
                    "tid": 1,
                    "ts": base + j,
                    "dur": 1,
                    "args": {"correlation": corr},
                }
            )
            events.append(
                {
                    "ph": "X",
                    "cat": "kernel",
                    "name": "sgemm",
                    "pid": 0,
                    "tid": 7 + j % 2,
                    "ts": base + 10 + j * 20,
                    "dur": 15,
                    "args": {"device": 0, "stream": 7 + j % 2, "correlation": corr},
                }
            )
    doc = {
        "schemaVersion": 1,
        "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
        "traceEvents": events,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def timed(call, repeats: int) -> list[float]:
    took = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        took.append(time.perf_counter() - start)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="8000,32000,64000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scratch", default=None)
    args = parser.parse_args()
    from densing.overlap import analyze

    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
        warm = synthesise(Path(scratch) / "warm" / "rank0.json", 10)
        analyze(warm, stream=False, scheduler="serial"), analyze(warm, stream=True, scheduler="serial")
        print("steps  MB  whole s (median, min-max)  streamed s (median, min-max)  whole/streamed")
        for steps in (int(s) for s in args.steps.split(",")):
            path = synthesise(Path(scratch) / str(steps) / "rank0.json", steps)
            whole = timed(functools.partial(analyze, path, stream=False, scheduler="serial"), args.repeats)
            streamed = timed(functools.partial(analyze, path, stream=True, scheduler="serial"), args.repeats)
            w, s = statistics.median(whole), statistics.median(streamed)
            print(
                f"{steps:>6} {path.stat().st_size / 1e6:4.0f}  {w:6.2f} ({min(whole):.2f}-{max(whole):.2f})"
                f"            {s:6.2f} ({min(streamed):.2f}-{max(streamed):.2f})              {w / s:5.1f}"
            )
            path.unlink()


if __name__ == "__main__":
    main()
