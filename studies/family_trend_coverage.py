"""Coverage of the joint inversion's per-model intervals and of the trend's interval, on planted data
built like the shipped table; prints coverage, asserts nothing.

Each replicate plants the whole pipeline the way the real measurement runs:

1. **A reference family** of ``--ref-sizes`` members (default 8B, 70B, 405B at one budget, as
   Llama-3.1) on three benchmarks whose true family laws are the shipped Llama-3.1 fits
   (S_b(N) = d_b + (1 − d_b)·σ(γ_b(ln N − l_b))). Each member's score is its true score plus a
   member deviation N(0, ``--member-sd``) (a real family is not on a smooth curve: the shipped
   fits' RMSE is 0.005–0.011) plus binomial noise on the benchmark's item count (MMLU 14,042,
   HellaSwag 10,042, WinoGrande 1,267). The family laws are fitted on these with their bootstrap.
2. **Targets** built like the table: ``--n-models`` models released uniformly over 520 days
   (Feb 2023 – Jul 2024), N log-uniform in 0.5B–70B, ln ρ = A·t + B − u with u ~ Exponential
   (``--gap``) (so the 0.9 quantile line has slope A; A plants a doubling of ``--months``). Their
   law differs from the reference's by a stated amount: each (model, benchmark) score is the true
   law at ln N̂ + δ, δ ~ N(0, ``--skill-sd``) in ln N (a model stronger at one benchmark than
   another), then binomial noise. ``--target-families each`` (the default): no family structure, each target a
   family of its own, as the trend's family bootstrap reads a model without a family; ``one``: every target in one
   family, which leaves that bootstrap no families to resample (the interval then carries fit and score only).
   ``--shape`` (default ``logistic_ln_n``, the planted laws' shape): the shape of the family law fitted to the
   references; ``power`` (the package's default shape, :mod:`densing.laws.family`) fits the other shape to these
   logistic laws, a departure of the truth from the fitted model.
3. The measurement's own code: :class:`densing.laws.inversion.Joint` over the fitted laws,
   :func:`densing.laws.density.density_table` (per-model intervals: fit draws × score noise
   scaled by the Birge ratio) and :func:`densing.trend.uncertainty.trend_uncertainty` (the
   trend's interval, quantile rule).

Reported: how often each model's 95% interval covers its planted ρ (ln ρ without δ: the joint
size is the model's size across benchmarks), how often the trend's interval covers A, and, beside
it, the interval from resampling models only.

    PYTHONPATH=. python studies/family_trend_coverage.py --replicates 100 --n-boot 300 [--skill none]
        [--target-families one]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd

from densing.laws import forms
from densing.laws.density import density_table
from densing.laws.family import fit_family
from densing.laws.inversion import Joint
from densing.trend.uncertainty import trend_uncertainty

#: The shipped Llama-3.1 family laws (reference_fits/family_llama-3.1_*.json), rounded: (chance, γ, l, items).
LAWS = {
    "mmlu": (0.25, 0.305, 22.11, 14042),
    "hellaswag": (0.25, 0.193, 16.77, 10042),
    "winogrande": (0.5, 0.180, 20.95, 1267),
}


def law(benchmark: str, log_n):
    d, g, level, _ = LAWS[benchmark]
    return forms.performance_law(log_n, 1 - d, g, level, d)


def reference_table(rng, sizes, member_sd: float) -> pd.DataFrame:
    rows = []
    for b, (_, _, _, items) in LAWS.items():
        p = np.clip(law(b, np.log(sizes)) + member_sd * rng.standard_normal(len(sizes)), 1e-4, 1 - 1e-4)
        for i, (n, s) in enumerate(zip(sizes, rng.binomial(items, p) / items)):
            rows.append(
                {
                    "model": f"ref{i}",
                    "family": "R",
                    "benchmark": b,
                    "metric": "acc",
                    "value": s,
                    "params": n,
                    "train_tokens": 15e12,
                    "active_params": np.nan,
                }
            )
    return pd.DataFrame(rows)


def targets(
    rng, n_models: int, slope: float, gap: float, skill_sd: float, families: str = "each"
) -> tuple[pd.DataFrame, np.ndarray]:
    t = np.sort(rng.uniform(0, 520, n_models))
    n = np.exp(rng.uniform(math.log(5e8), math.log(7e10), n_models))
    log_rho = slope * t - 0.5 - rng.exponential(gap, n_models)
    names = [f"m{i}" for i in range(n_models)]
    frame = pd.DataFrame(
        {
            "model": names,
            "params": n,
            "t": t,
            "family": "T" if families == "one" else names,
            "release_date": pd.Timestamp("2023-02-24") + pd.to_timedelta(t, unit="D"),
        }
    )
    for b, (_, _, _, items) in LAWS.items():
        p = np.clip(law(b, np.log(n) + log_rho + skill_sd * rng.standard_normal(n_models)), 1e-4, 1 - 1e-4)
        s = rng.binomial(items, p) / items
        frame[f"score:{b}"] = s
        frame[f"stderr:{b}"] = np.sqrt(np.clip(s * (1 - s), 1e-6, None) / items)
    return frame, log_rho


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=60)
    parser.add_argument("--n-models", type=int, default=106)
    parser.add_argument("--ref-sizes", default="8e9,70e9,405e9")
    parser.add_argument("--member-sd", type=float, default=0.01)
    parser.add_argument("--skill-sd", type=float, default=0.3)
    parser.add_argument("--gap", type=float, default=1.0)
    parser.add_argument("--months", type=float, default=3.5)
    parser.add_argument("--n-boot", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--shape",
        choices=("logistic_ln_n", "power"),
        default="logistic_ln_n",
        help="the family law's shape fitted to the references (the planted laws are logistic in ln N)",
    )
    parser.add_argument(
        "--target-families",
        choices=("each", "one"),
        default="each",
        help="each target a family of its own, or every target in one family (step 2)",
    )
    parser.add_argument(
        "--skill",
        choices=("pooled", "none"),
        default="pooled",
        help="the joint inversion's between-benchmark variance (densing.laws.joint); 'none': no skill variance",
    )
    args = parser.parse_args()
    slope = math.log(2) / (args.months * 365.25 / 12)
    sizes = np.array([float(v) for v in args.ref_sizes.split(",")])
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    per_model, trend_full, trend_models, widths = [], [], [], []
    for r in range(args.replicates):
        ref = reference_table(rng, sizes, args.member_sd)
        try:
            fits = tuple(fit_family(ref, "R", b, n_boot=1000, seed=r, shape=args.shape) for b in LAWS)
        except Exception as exc:  # any exception: a replicate whose family cannot be fitted is counted, not hidden
            print(f"replicate {r}: reference not fitted ({exc})")
            continue
        joint = Joint(fits, skill=args.skill)
        models, log_rho = targets(rng, args.n_models, slope, args.gap, args.skill_sd, args.target_families)
        table = density_table(models, joint, seed=r, n_draws=400)
        truth = pd.Series(np.exp(log_rho), index=models["model"]).loc[table["model"]].to_numpy()
        finite = np.isfinite(table["density_ci_low"]) & np.isfinite(table["density_ci_high"])
        per_model.append(
            float(
                np.mean(
                    (table["density_ci_low"][finite] <= truth[finite])
                    & (truth[finite] <= table["density_ci_high"][finite])
                )
            )
        )
        result = trend_uncertainty(models, joint, rule="quantile", n_boot=args.n_boot, n_boot_share=60, seed=r)
        trend_full.append(result.slope_ci_low <= slope <= result.slope_ci_high)
        widths.append(result.slope_ci_high - result.slope_ci_low)
        sd = result.slope_sd_models
        trend_models.append(result.slope_per_day - 1.96 * sd <= slope <= result.slope_per_day + 1.96 * sd)
    done = len(trend_full)
    print(
        f"{done} replicates in {time.perf_counter() - start:.0f} s; reference sizes {args.ref_sizes}, member sd {args.member_sd}, "
        f"skill sd {args.skill_sd} (ln N), {args.n_models} targets ({args.target_families} family), planted doubling "
        f"{args.months} months; joint skill={args.skill}; fitted shape {args.shape}"
    )
    print(
        f"per-model 95% interval of the joint density covers the planted ρ: {np.mean(per_model):.3f} "
        f"(median over replicates {np.median(per_model):.3f}, range {min(per_model):.3f}–{max(per_model):.3f})"
    )
    print(
        f"trend 95% interval (fit + score + models) covers the planted slope: {np.mean(trend_full):.3f} "
        f"({sum(trend_full)} of {done}); median width {np.median(widths):.4f}/day"
    )
    print(f"beside it, ±1.96 sd of resampling models only: {np.mean(trend_models):.3f}")


if __name__ == "__main__":
    main()
