"""Time 1000 bootstrap resamples of a composed fit plus densities for 150 models × 5 benchmarks.

Workload: the composed law on the Pythia suite's arc_easy checkpoints (182 reference points,
../shared/data/pythia_evals), bootstrapped 1000 times over training runs, then effective sizes,
densities and 95% intervals for 150 synthetic target models on 5 benchmarks (the five fits share
the arc_easy parameters under five names: inversion costs the same for any parameters) with the
geometric-mean aggregate. Goal: ≤ 10 s on the project machine (2 cores).

Baseline, measured in the same run: a naive bootstrap that refits every resample from the 18 cold
starts of the point fit (on 20 resamples, scaled per resample). Prints times and the ratio.

    python bench/bootstrap_density.py [--n-boot 1000] [--jobs 2] [--benchmark arc_easy]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from densing.data import read_pythia_evals
from densing.data.benchmarks import CHANCE_LEVELS
from densing.laws import fit as lawfit, problems
from densing.laws.density import compute_density
from densing.laws.fit_schema import select_points
from densing.laws.reference import fit_reference

PYTHIA = (
    Path(os.environ.get("DENSING_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
    / "pythia_evals"
    / "pythia-v1"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--benchmark", default="arc_easy")
    parser.add_argument("--models", type=int, default=150)
    args = parser.parse_args()

    frame = read_pythia_evals(PYTHIA, suite="standard")
    chance = CHANCE_LEVELS[args.benchmark]

    start = time.perf_counter()
    fit = fit_reference(
        frame, args.benchmark, law="composed", chance=chance, n_boot=args.n_boot, seed=0, jobs=args.jobs
    )
    fit_seconds = time.perf_counter() - start

    rng = np.random.default_rng(0)
    names = [f"bench{i}" for i in range(5)]
    fits = [dataclasses.replace(fit, benchmark=b, provenance={**fit.provenance, "benchmarks": [b]}) for b in names]
    low, high = fit.params["d"] + 0.02, fit.params["d"] + fit.params["c"] - 0.02
    targets = pd.DataFrame(
        [
            {
                "model": f"m{m}",
                "benchmark": b,
                "metric": "acc",
                "value": rng.uniform(low, high),
                "params": 10 ** rng.uniform(8, 11),
                "stderr": 0.01,
            }
            for m in range(args.models)
            for b in names
        ]
    )
    start = time.perf_counter()
    table = compute_density(targets, fits)
    density_seconds = time.perf_counter() - start
    total = fit_seconds + density_seconds

    # baseline: cold multi-start refits of the same resamples
    _, points = select_points(frame, args.benchmark)
    n, t, s = (points[c].to_numpy(float) for c in ("params", "train_tokens", "score"))
    series = points["model"].str.split("@").str[0].to_numpy()
    groups = [np.flatnonzero(series == g) for g in dict.fromkeys(series)]
    baseline_resamples = 20
    start = time.perf_counter()
    for _ in range(baseline_resamples):
        idx = np.concatenate([groups[g] for g in rng.integers(0, len(groups), len(groups))])
        lawfit.fit_stage(problems.composed_problem(n[idx], t[idx], s[idx], chance=chance), f_scale=0.02)
    baseline_per_resample = (time.perf_counter() - start) / baseline_resamples
    ours_per_resample = fit_seconds / max(args.n_boot, 1)

    print(
        f"workload: composed fit on Pythia {args.benchmark} ({len(points)} points), {args.n_boot} resamples, jobs={args.jobs}"
    )
    print(
        f"  bootstrap fit           {fit_seconds:7.2f} s   ({len(fit.bootstrap)} draws kept, {fit.provenance['n_boot_failed']} failed)"
    )
    print(f"  densities {args.models}×5 + CI    {density_seconds:7.2f} s   ({len(table)} rows)")
    print(f"  total                   {total:7.2f} s   goal ≤ 10 s: {'met' if total <= 10 else 'NOT met'}")
    print(
        f"baseline (cold 18-start refit per resample, {baseline_resamples} resamples): {baseline_per_resample * 1000:.1f} ms/resample"
    )
    print(f"densing warm-start refit: {ours_per_resample * 1000:.1f} ms/resample (wall, {args.jobs} jobs)")
    print(f"ratio baseline/densing per resample: {baseline_per_resample / ours_per_resample:.1f}x")


if __name__ == "__main__":
    main()
