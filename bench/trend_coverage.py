"""Coverage of densing.trend's doubling-time intervals on planted data; prints ratios, asserts nothing.

Each replicate draws models with ln ρ = ln2/100·t − 1 − u, u ~ Exponential(gap), fits each
frontier, and records whether the bootstrap and analytic intervals cover the planted 100 days.

    PYTHONPATH=. python bench/trend_coverage.py --replicates 200 --n-models 120
"""
from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from densing.trend import FRONTIERS, trend

TRUE_DOUBLING_DAYS = 100.0


def planted(n_models: int, gap: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    days = np.sort(rng.uniform(-300, 500, n_models))
    log_density = math.log(2) / TRUE_DOUBLING_DAYS * days - 1.0 - rng.exponential(gap, n_models)
    return pd.DataFrame({"model": [f"m{i}" for i in range(n_models)],
                         "release_date": pd.Timestamp("2023-02-24") + pd.to_timedelta(days, unit="D"),
                         "density": np.exp(log_density)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--n-models", type=int, default=120)
    parser.add_argument("--gap", type=float, default=0.2)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--frontiers", nargs="+", default=list(FRONTIERS))
    args = parser.parse_args()
    print("frontier  mean_days  sd_days  bootstrap_coverage  analytic_coverage  (nominal 0.95)")
    for frontier in args.frontiers:
        estimates, boot, analytic = [], 0, 0
        for rep in range(args.replicates):
            fit = trend(planted(args.n_models, args.gap, 1000 + rep), frontier=frontier,
                        n_boot=args.n_boot, seed=rep)
            estimates.append(fit.doubling_time_days)
            boot += fit.doubling_time_days_ci_low <= TRUE_DOUBLING_DAYS <= fit.doubling_time_days_ci_high
            analytic += fit.analytic_ci_low_days <= TRUE_DOUBLING_DAYS <= fit.analytic_ci_high_days
        print(f"{frontier:9s} {np.mean(estimates):9.2f} {np.std(estimates):8.2f} "
              f"{boot / args.replicates:19.3f} {analytic / args.replicates:18.3f}")


if __name__ == "__main__":
    main()
