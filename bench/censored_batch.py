"""Time the censored quantile line over a bootstrap's resamples: solved together in batches vs one at a time.

Workload: the headline's points of ``densing trend`` on the shipped table (its lead reference's t, ln ρ and bound
kinds), resampled with replacement ``--draws`` times (seed 0): the problems the 0.9-quantile rule's bootstrap solves.
:func:`densing.trend.censored.censored_quantile_lines` solves them together, answering their requests in chunks of
:data:`densing.trend.censored.CHUNK` problems; the baseline, measured in the same run, solves each alone
(:func:`densing.trend.censored.censored_quantile_line`, a batch of one). Each chunk size in ``--chunks`` is timed
too. Every variant must give the same lines, bit for bit (checked). Prints the median and range of ``--repeats``
timings and the ratio of medians, one-at-a-time / batched.

    PYTHONPATH=src python bench/censored_batch.py [--draws 300] [--repeats 5] [--chunks 1 4 16 64 100000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from densing.data import read_results
from densing.paths import RESULTS
from densing.trend import censored
from densing.trend.measure import measure_trend


def problems(draws: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    models = measure_trend(read_results(RESULTS / "public_models.csv"), n_boot=5, n_boot_side=5).models
    t, y, kind = (models[c].to_numpy(float) for c in ("t", "log_density", "bound"))
    keep = np.isfinite(y) & np.isfinite(kind)
    t, y, kind = t[keep], y[keep], kind[keep].astype(int)
    rng = np.random.default_rng(0)
    picks = [rng.integers(0, t.size, t.size) for _ in range(draws)]
    return [(t[p], y[p], kind[p]) for p in picks]


def timed(solve, repeats: int) -> tuple[list[float], list]:
    seconds, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = solve()
        seconds.append(time.perf_counter() - start)
    return seconds, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--chunks", type=int, nargs="+", default=[1, 4, 16, 64, 100000])
    args = parser.parse_args()
    work = problems(args.draws)
    print(f"{len(work)} resamples of {work[0][0].size} points ({int((work[0][2] != 0).sum())} bounds in the first); "
          f"{args.repeats} repeats; seconds: median [min, max]")
    alone_s, alone = timed(lambda: [censored.censored_quantile_line(*p) for p in work], args.repeats)
    print(f"one at a time        {np.median(alone_s):7.3f} [{min(alone_s):.3f}, {max(alone_s):.3f}]")
    default = censored.CHUNK
    for chunk in args.chunks:
        censored.CHUNK = chunk
        batched_s, batched = timed(lambda: censored.censored_quantile_lines(work), args.repeats)
        same = all(np.array_equal(np.array(a, float), np.array(b, float), equal_nan=True) for a, b in zip(alone, batched))
        mark = " (CHUNK)" if chunk == default else ""
        print(f"batched, chunk {chunk:<6}{np.median(batched_s):7.3f} [{min(batched_s):.3f}, {max(batched_s):.3f}]  "
              f"ratio one-at-a-time / batched {np.median(alone_s) / np.median(batched_s):5.2f}  "
              f"same lines: {same}{mark}")
    censored.CHUNK = default


if __name__ == "__main__":
    main()
