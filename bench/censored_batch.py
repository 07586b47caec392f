"""Time the censored quantile line over a bootstrap's resamples: solved together vs one at a time.

Workload: the headline's points of ``densing trend`` on the shipped table (its lead reference's t, ln ρ and bound
kinds), resampled with replacement ``--draws`` times (seed 0): the problems the 0.9-quantile rule's bootstrap solves.
Two ways of the one solver (:func:`densing.trend.censored.censored_quantile_lines_weighted`), timed in the same run:
one problem at a time, its resampled points listed (the baseline), and every resample at once as counts of the points
(what the engine's bootstrap calls). The counted lines must equal the one-at-a-time lines to 1e-9 (checked). Prints the median and range of ``--repeats`` timings and the ratio of medians, one-at-a-time / way.

    python bench/censored_batch.py [--draws 300] [--repeats 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from densing.data import read_results
from densing.paths import RESULTS
from densing.trend import censored
from densing.trend.measure import measure_trend


def problems(draws: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(t, y, kind) of the headline's usable points and the resamples' indices (draws, n)."""
    models = measure_trend(read_results(RESULTS / "public_models.csv"), n_boot=40, n_boot_side=40).models
    t, y, kind = (models[c].to_numpy(float) for c in ("t", "log_density", "bound"))
    keep = np.isfinite(y) & np.isfinite(kind)
    t, y, kind = t[keep], y[keep], kind[keep].astype(int)
    rng = np.random.default_rng(0)
    return t, y, kind, np.stack([rng.integers(0, t.size, t.size) for _ in range(draws)])


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
    args = parser.parse_args()
    t, y, kind, picks = problems(args.draws)
    work = [(t[p], y[p], kind[p]) for p in picks]
    counts = np.stack([np.bincount(p, minlength=t.size) for p in picks])
    print(
        f"{len(work)} resamples of {t.size} points ({int((kind != 0).sum())} bounds); {args.repeats} repeats; "
        f"seconds: median [min, max]"
    )

    def one_at_a_time() -> np.ndarray:
        lines = [censored.censored_quantile_lines_weighted(tt, yy[None], kk, 1.0) for tt, yy, kk in work]
        return np.array([[line[0][0], line[1][0]] for line in lines], float)

    alone_s, alone = timed(one_at_a_time, args.repeats)
    print(f"one at a time        {np.median(alone_s):7.3f} [{min(alone_s):.3f}, {max(alone_s):.3f}]")
    counted_s, counted = timed(
        lambda: censored.censored_quantile_lines_weighted(t, y[None], kind, counts), args.repeats
    )
    close = np.allclose(np.stack(counted[:2], axis=1), alone, rtol=1e-9, atol=1e-12, equal_nan=True)
    print(
        f"as counts            {np.median(counted_s):7.3f} [{min(counted_s):.3f}, {max(counted_s):.3f}]  "
        f"ratio {np.median(alone_s) / np.median(counted_s):5.2f}  same lines (to 1e-9): {close}"
    )


if __name__ == "__main__":
    main()
