"""Coverage of the full-uncertainty doubling-time interval on planted data; prints coverage, asserts nothing.

Each replicate plants the whole pipeline:

1. a reference family (composed law, Xiao et al. 2024 eqs. 2–3, parameters ``LAW``): ``--n-ref``
   models with N in 1e8–2e10 and D in 2e10–6e11 (a token span ≥ 3×), scores with binomial noise
   on ``--items`` items; the law is fitted on them with its bootstrap (the reference's own
   uncertainty is real, not planted);
2. ``--n-models`` targets with ln ρ = A·t + B − u, u ~ Exponential(``--gap``) (the frontier,
   the 0.9 quantile line, has slope A), released over 800 days, each with a score from the *true*
   law at N̂ = ρ·N plus binomial noise;
3. :func:`densing.trend.uncertainty.trend_uncertainty` on the targets under the *fitted* law.

It records whether the interval from all three sources covers the planted A, and, beside it,
the interval from resampling models only (what densing reported before) — so the run shows what
carrying the fit and score uncertainty buys.

    PYTHONPATH=. python studies/trend_full_coverage.py --replicates 40
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd

from densing.laws import forms
from densing.laws.reference import fit_reference
from densing.trend.uncertainty import trend_uncertainty

LAW = {"a": 400.0, "alpha": 0.3, "b": 400.0, "beta": 0.3, "c": 0.75, "gamma": -1.0, "l": 2.5, "d": 0.25}
TRUE_SLOPE = math.log(2) / 150.0  # doubling every 150 days
D0 = 1e12


def true_score(n, d):
    loss = forms.loss_law(n, d, LAW["a"], LAW["alpha"], LAW["b"], LAW["beta"])
    return forms.performance_law(loss, LAW["c"], LAW["gamma"], LAW["l"], LAW["d"])


def reference_table(rng, n_ref: int, items: int) -> pd.DataFrame:
    n = 10 ** rng.uniform(8, 10.3, n_ref)
    d = 10 ** rng.uniform(10.3, 11.8, n_ref)
    score = rng.binomial(items, true_score(n, d)) / items
    return pd.DataFrame(
        {
            "model": [f"ref{i}" for i in range(n_ref)],
            "benchmark": "toy",
            "metric": "acc",
            "value": score,
            "params": n,
            "train_tokens": d,
            "loss": np.nan,
            "run": None,
        }
    )


def targets(rng, n_models: int, gap: float, items: int) -> pd.DataFrame:
    t = np.sort(rng.uniform(0, 800, n_models))
    n = 10 ** rng.uniform(9, 10.5, n_models)
    log_rho = TRUE_SLOPE * t - 2.5 - rng.exponential(gap, n_models)
    p = true_score(n * np.exp(log_rho), D0)
    score = rng.binomial(items, p) / items
    return pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(n_models)],
            "params": n,
            "t": t,
            "score": score,
            "stderr": np.sqrt(np.clip(score * (1 - score), 1e-6, None) / items),
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=40)
    parser.add_argument("--n-ref", type=int, default=19)
    parser.add_argument("--n-models", type=int, default=90)
    parser.add_argument("--gap", type=float, default=0.5)
    parser.add_argument("--items", type=int, default=1200)
    parser.add_argument("--n-boot", type=int, default=300)
    parser.add_argument("--ref-boot", type=int, default=100)
    parser.add_argument("--rule", default="quantile")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    covered_full = covered_models = done = 0
    widths_full, widths_models, shares = [], [], []
    start = time.perf_counter()
    for r in range(args.replicates):
        ref = reference_table(rng, args.n_ref, args.items)
        fit = fit_reference(
            ref,
            "toy",
            law="composed",
            chance=LAW["d"],
            ceiling=LAW["c"] + LAW["d"],
            n_boot=args.ref_boot,
            seed=r,
            d0=D0,
        )
        models = targets(rng, args.n_models, args.gap, args.items)
        try:
            result = trend_uncertainty(
                models, fit, d0=D0, rule=args.rule, n_boot=args.n_boot, n_boot_share=args.n_boot, seed=r
            )
        except Exception as exc:  # a replicate the pipeline cannot fit counts as not covered, and is said
            print(f"replicate {r}: {exc}")
            continue
        done += 1
        covered_full += result.slope_ci_low <= TRUE_SLOPE <= result.slope_ci_high
        # models-only interval: the point law, observed scores, resampled models (its own draws)
        sd = result.slope_sd_models
        low, high = result.slope_per_day - 1.96 * sd, result.slope_per_day + 1.96 * sd
        covered_models += low <= TRUE_SLOPE <= high
        widths_full.append(result.slope_ci_high - result.slope_ci_low)
        widths_models.append(high - low)
        shares.append((result.share_fit, result.share_score, result.share_models))
    elapsed = time.perf_counter() - start
    mean_shares = np.nanmean(np.asarray(shares), axis=0) if shares else [math.nan] * 3
    print(
        f"rule {args.rule}, planted slope {TRUE_SLOPE:.5f}/day, {done} of {args.replicates} replicates fitted, "
        f"{elapsed:.0f} s"
    )
    print("interval                          coverage (nominal 0.95)  median width (per day)")
    print(
        f"fit + score + models (percentile)  {covered_full / max(done, 1):.3f}                    {np.median(widths_full):.5f}"
    )
    print(
        f"models only (normal, ±1.96 sd)     {covered_models / max(done, 1):.3f}                    {np.median(widths_models):.5f}"
    )
    print(f"mean variance shares: fit {mean_shares[0]:.2f}, score {mean_shares[1]:.2f}, models {mean_shares[2]:.2f}")


if __name__ == "__main__":
    main()
