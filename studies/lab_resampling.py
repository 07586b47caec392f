"""Labs as the unit of independence: the trend's interval when families' slopes correlate within a lab.

A planted world built like a real row: the targets of the row (``--table``, its headline set; every target's release
date, family and lab as the table has them) get planted log densities

    ln ρ_i = A·t_i + c_f + (u_l + e_f)·(t_i − t̄) + ε_i,

with f the target's family, l its lab (``densing.data.labs``), u_l ~ N(0, s_lab²) a lab's slope, e_f ~ N(0, s_fam²)
a family's own, c_f ~ N(0, s_off²) a family's offset and ε_i ~ N(0, s_model²) a model's. Two families of one lab
have slopes that correlate s_lab²/(s_lab² + s_fam²) (0.8 by default), as one lab's recipes do. A replicate draws
u, e, c and ε; the one engine (``densing.trend.uncertainty.observed_trend``, the values as observed: no law, so the
draws are the resampling alone) gives the 0.9-quantile line's slope and its 95% interval twice:

- **labs**: the package's two-stage draws (labs, then families within each drawn lab);
- **families**: each family a lab of its own (the one-stage family bootstrap the package used before).

The estimand is the super-population's 0.9-quantile slope: the line fitted on the pooled planted densities of
``--population`` independent replicates of the same world (every lab's and family's draw averaged out), computed once.
Coverage is the share of replicates whose interval holds it, with its Monte Carlo standard error √(p(1 − p)/R).

    PYTHONPATH=. python studies/lab_resampling.py --replicates 300 > studies/lab_resampling.results.txt
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd

from densing import registry
from densing.constants import DAYS_PER_MONTH, LN2
from densing.data import read_results
from densing.data.labs import labs_of
from densing.trend import rules
from densing.trend.targets import days_since, parse_epoch
from densing.trend.uncertainty import observed_trend

EPOCH = "2023-02-24"


def row_targets(table: str) -> pd.DataFrame:
    """The table's headline row's targets: model, t (days since the epoch), family, lab."""
    import densing

    profile = registry.table(table)
    frame = read_results(profile.path)
    head = densing.measure_trend(frame, table=profile, sections=()).rules["quantile"]
    wide = pd.read_csv(profile.path)
    wide = wide.set_index("model").loc[list(head.models)].reset_index()
    dates = pd.to_datetime(wide["release_date"]).to_numpy("datetime64[ns]")
    family = wide["family"].where(wide["family"].notna(), wide["model"]).astype(str).to_numpy(object)
    return pd.DataFrame(
        {
            "model": wide["model"].astype(str),
            "t": days_since(dates, parse_epoch(EPOCH)),
            "family": family,
            "lab": labs_of(family),
        }
    )


def planted(targets: pd.DataFrame, rng: np.random.Generator, args) -> np.ndarray:
    """One replicate's planted ln ρ (module docstring)."""
    t = targets["t"].to_numpy(float)
    centre = float(np.mean(t))
    families, fam = np.unique(targets["family"], return_inverse=True)
    labs, lab = np.unique(targets["lab"], return_inverse=True)
    slope = args.slope_per_day
    u = rng.standard_normal(labs.size) * args.lab_sd * slope
    e = rng.standard_normal(families.size) * args.family_sd * slope
    c = rng.standard_normal(families.size) * args.offset_sd
    return slope * t + c[fam] + (u[lab] + e[fam]) * (t - centre) + rng.standard_normal(t.size) * args.model_sd


def population_slope(targets: pd.DataFrame, args) -> float:
    """The 0.9-quantile line's slope on the pooled planted densities of ``args.population`` replicates."""
    rng = np.random.default_rng([args.seed, 999])
    t = np.tile(targets["t"].to_numpy(float), args.population)
    y = np.concatenate([planted(targets, rng, args) for _ in range(args.population)])
    labels = np.arange(t.size).astype(str)
    line = rules.frontier_lines_weighted(
        "quantile", t, y[None], np.zeros((1, t.size)), np.ones((1, t.size)), labels, 0.9
    )
    return float(line[0, 0])


def replicate(targets: pd.DataFrame, r: int, args) -> dict:
    rng = np.random.default_rng([args.seed, r])
    y = planted(targets, rng, args)
    t, labels = targets["t"].to_numpy(float), targets["model"].to_numpy()
    kind = np.zeros(t.size)
    out = {}
    for unit, labs in (("labs", targets["lab"].to_numpy(object)), ("families", targets["family"].to_numpy(object))):
        found = observed_trend(
            t,
            y,
            kind,
            labels,
            families=targets["family"].to_numpy(object),
            labs=labs,
            n_boot=args.n_boot,
            seed=r,
            epoch=EPOCH,
        )
        out[unit] = (found.slope_per_day, found.slope_ci_low, found.slope_ci_high)
    return out


def _share(hits: np.ndarray) -> str:
    p = float(np.mean(hits))
    return f"{p:.3f} ± {math.sqrt(p * (1 - p) / hits.size):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", default="openllm_v2")
    parser.add_argument("--replicates", type=int, default=300)
    parser.add_argument("--population", type=int, default=400)
    parser.add_argument("--n-boot", type=int, default=400)
    parser.add_argument("--months", type=float, default=5.0, help="planted doubling time")
    parser.add_argument("--lab-sd", type=float, default=0.4, help="sd of a lab's slope, as a share of A")
    parser.add_argument("--family-sd", type=float, default=0.2, help="sd of a family's own slope, as a share of A")
    parser.add_argument("--offset-sd", type=float, default=0.5, help="sd of a family's offset (ln ρ)")
    parser.add_argument("--model-sd", type=float, default=0.25, help="sd of a model's deviation (ln ρ)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.slope_per_day = LN2 / (args.months * DAYS_PER_MONTH)
    start = time.perf_counter()
    targets = row_targets(args.table)
    truth = population_slope(targets, args)
    found = [replicate(targets, r, args) for r in range(args.replicates)]
    within = args.lab_sd**2 / (args.lab_sd**2 + args.family_sd**2)
    print(
        f"# PYTHONPATH=. python studies/lab_resampling.py --table {args.table} --replicates {args.replicates} "
        f"--lab-sd {args.lab_sd:g} --family-sd {args.family_sd:g}"
    )
    print(
        f"{args.replicates} replicates in {time.perf_counter() - start:.0f} s; the {args.table} headline row's "
        f"{len(targets)} targets, {targets['family'].nunique()} families in {targets['lab'].nunique()} labs; planted "
        f"A = {args.slope_per_day:.3g}/day ({args.months:g} months); lab slope sd {args.lab_sd:g}·A, family slope sd "
        f"{args.family_sd:g}·A (families' slopes correlate {within:.2f} within a lab), offset sd {args.offset_sd:g}, "
        f"model sd {args.model_sd:g}; {args.n_boot} draws a replicate"
    )
    print(
        f"super-population 0.9-quantile slope over {args.population} pooled replicates: {truth:.4g}/day "
        f"({LN2 / truth / DAYS_PER_MONTH:.3g} months)"
    )
    for unit in ("labs", "families"):
        point = np.array([f[unit][0] for f in found])
        low = np.array([f[unit][1] for f in found])
        high = np.array([f[unit][2] for f in found])
        hits = (low <= truth) & (truth <= high)
        print(
            f"resampling {unit}: coverage of the 95% interval {_share(hits)}; median width "
            f"{np.median(high - low):.3g}/day; point median {100 * (np.median(point) / truth - 1):+.1f}% of the "
            f"estimand; misses below {np.mean(high < truth):.3f}, above {np.mean(low > truth):.3f}"
        )


if __name__ == "__main__":
    main()
