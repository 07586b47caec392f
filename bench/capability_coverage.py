"""Coverage of the capability trend's intervals on planted data built like the public table; prints, asserts nothing.

Each replicate plants a table shaped like ``results/public_models.csv`` and runs densing's own pipeline on it —
rule v2's candidate table, the eligible families' fits with their bootstrap, and
:func:`densing.trend.capability.trend_row` (every reference drawn in each bootstrap draw) — for one row per
benchmark and one joint set row.

**The planted world.** Three benchmarks with the registry's chance levels d_b and item counts n_b, each with a
canonical curve over a latent log size x (Xiao et al. 2024, eq. 3 with L := x, as ``densing.laws.family``)::

    S_b(x) = d_b + (1 − d_b)·σ(γ_b·(x − l_b))

and its own doubling time: MMLU 3 months, HellaSwag 10 months, leaderboard BBH 2 months (benchmark-specific
slopes A_b = ln 2 / T_b per day).

*Targets* (``--targets``, default 120): release t ~ U(0, 800) days after 2023-02-24, ln N ~ U(ln 5e8, ln 7e10),
latent log density per benchmark ``ln ρ*_b = A_b·t + B − u − s_b`` with a frontier gap u ~ Exponential(mean 1)
shared by a model's benchmarks and a skill term s_b ~ N(0, 0.5²) per model and benchmark (a model stronger at one
benchmark than another: the real table's between-benchmark disagreement); x_b = ln N + ln ρ*_b. The score is
Binomial(n_b, S_b(x_b)) / n_b. **Missing scores**: half of the targets have no BBH score (the public table has
leaderboard-v2 scores for about half its models).

*Reference families* (``--families``): 8 sizes log-uniform over 5e8–7e10, one token budget, each member scoring
S_b(δ_f + ln N + κ_f·(ln N − ln 7e9) + e) with e ~ N(0, 0.15²) per member and benchmark, plus binomial noise.
``Plain`` (κ = 0, δ = 0) has the targets' shape; ``Overtrained`` (κ = −0.25, δ = +1: small members relatively
strong, as Llama-3.1's 15T-token family) and ``Late`` (κ = +0.15, δ = −0.5) do not. Which of them are references
of a row is decided per replicate by rule v2 (R5 can fail a family on a replicate's noise, as on real data).

**Estimands.** Inverting through family f maps x to ln N̂_f = (x − δ_f + κ_f·m)/(1 + κ_f), so each reference has
its own population slope. densing's point estimate is the equal-weight mean of its references' slopes, so the
estimand of a row is the *equal-weight mean over the row's references of each reference's population slope*: the
same estimator (point inversion, censored 0.9 quantile) on ``--population`` noise-free targets drawn like the
targets, through the family's true curve (its fit on noise-free members, exact). Each row's coverage of that
estimand is printed, and for the per-benchmark rows also the coverage of the latent A_b, which shows what a
reference whose shape in N differs from the targets' costs.

    PYTHONPATH=. python bench/capability_coverage.py --replicates 40 --n-boot 200

Results beside this file (``capability_coverage.results.txt``): the command and its output. Monte Carlo standard
error of a coverage p over R replicates: √(p(1 − p)/R).
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd

from densing.data.benchmarks import CHANCE_LEVELS
from densing.data.item_counts import item_count
from densing.laws.family import fit_family
from densing.trend import references, rules
from densing.trend.capability import trend_row
from densing.trend.constants import DAYS_PER_MONTH
from densing.laws.inversion import Joint, PerBenchmark, arrays
from densing.trend.targets import with_stderr

EPOCH = pd.Timestamp("2023-02-24")
#: benchmark → (doubling time in months, γ per ln N, l = ln N at the curve's midpoint)
BENCHMARKS = {
    "mmlu": (3.0, 0.9, math.log(2e10)),
    "hellaswag": (10.0, 1.1, math.log(1.5e9)),
    "leaderboard_bbh": (2.0, 0.7, math.log(5e10)),
}
SET = ("mmlu", "hellaswag", "leaderboard_bbh")
MISSING = {"leaderboard_bbh": 0.5}
#: family → (κ: slope of its effective size in ln N minus 1, δ: its offset in ln N)
FAMILIES = {"Plain": (0.0, 0.0), "Overtrained": (-0.25, 1.0), "Late": (0.15, -0.5)}
PIVOT = math.log(7e9)
INTERCEPT = math.log(0.3)
GAP_MEAN, SKILL_SD, MEMBER_SD = 1.0, 0.5, 0.15
TOKENS = 2e12


def slope(benchmark: str) -> float:
    return math.log(2) / (BENCHMARKS[benchmark][0] * DAYS_PER_MONTH)


def curve(benchmark: str, x: np.ndarray) -> np.ndarray:
    _, gamma, level = BENCHMARKS[benchmark]
    d = CHANCE_LEVELS[benchmark]
    return d + (1 - d) / (1 + np.exp(-gamma * (x - level)))


def _scores(rng, benchmark: str, x: np.ndarray, noisy: bool) -> np.ndarray:
    p = curve(benchmark, x)
    return rng.binomial(item_count(benchmark), p) / item_count(benchmark) if noisy else p


def family_rows(rng, family: str, *, noisy: bool = True, sizes: int = 8) -> list[dict]:
    kappa, delta = FAMILIES[family]
    log_n = np.sort(rng.uniform(math.log(5e8), math.log(7e10), sizes))
    rows = []
    for i, ln in enumerate(log_n):
        for b in BENCHMARKS:
            e = rng.normal(0, MEMBER_SD) if noisy else 0.0
            x = np.array([delta + ln + kappa * (ln - PIVOT) + e])
            rows.append({"model": f"{family}-{i}", "family": family, "benchmark": b, "metric": "score",
                         "value": float(_scores(rng, b, x, noisy)[0]), "params": float(math.exp(ln)),
                         "train_tokens": TOKENS, "release_date": "2024-01-01"})
    return rows


def target_frame(rng, count: int, *, noisy: bool = True, prefix: str = "m") -> pd.DataFrame:
    """One row per (target, benchmark) in the tidy form, release dates as dates."""
    t = rng.uniform(0, 800, count)
    log_n = rng.uniform(math.log(5e8), math.log(7e10), count)
    gap = rng.exponential(GAP_MEAN, count)
    rows = []
    for b in BENCHMARKS:
        skill = rng.normal(0, SKILL_SD, count)
        x = log_n + slope(b) * t + INTERCEPT - gap - skill
        score = _scores(rng, b, x, noisy)
        keep = rng.uniform(size=count) >= MISSING.get(b, 0.0)
        for i in np.flatnonzero(keep):
            rows.append({"model": f"{prefix}{i}", "family": f"T{i}", "benchmark": b, "metric": "score",
                         "value": float(score[i]), "params": float(math.exp(log_n[i])), "train_tokens": np.nan,
                         "release_date": (EPOCH + pd.Timedelta(days=float(t[i]))).strftime("%Y-%m-%d")})
    return pd.DataFrame(rows)


def planted_table(rng, targets: int) -> pd.DataFrame:
    fam = [r for f in FAMILIES for r in family_rows(rng, f)]
    return pd.concat([pd.DataFrame(fam), target_frame(rng, targets)], ignore_index=True)


def population_slope(family: str, benchmarks: tuple[str, ...], population: pd.DataFrame, true_fits: dict) -> float:
    """The estimator's value on noise-free targets through the family's true curve (its exact fit)."""
    fits = tuple(true_fits[(family, b)] for b in benchmarks)
    inversion = Joint(fits) if len(fits) > 1 else PerBenchmark(fits[0], fits[0].d0)
    wide = population.pivot_table(index=["model", "params", "t"], columns="benchmark", values=["value", "stderr"])
    frame = pd.DataFrame({"model": wide.index.get_level_values(0), "params": wide.index.get_level_values(1),
                          "t": wide.index.get_level_values(2)})
    for b in benchmarks:
        frame[f"score:{b}"] = wide[("value", b)].to_numpy() if ("value", b) in wide.columns else np.nan
        frame[f"stderr:{b}"] = wide[("stderr", b)].to_numpy() if ("stderr", b) in wide.columns else np.nan
    frame = frame[frame[[f"score:{b}" for b in benchmarks]].notna().any(axis=1)]
    if len(benchmarks) == 1:
        frame = frame[frame[f"score:{benchmarks[0]}"].notna()]
    scores, sigma = arrays(frame, benchmarks)
    y, kind = inversion.point(scores, sigma, frame["params"].to_numpy(float))
    return rules.frontier_line("quantile", frame["t"].to_numpy(float), y, kind, frame["model"].to_numpy(), 0.9)[0]


def true_family_fits(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    table = pd.DataFrame([r for f in FAMILIES for r in family_rows(rng, f, noisy=False)])
    return {(f, b): fit_family(table, f, b, n_boot=2, seed=0) for f in FAMILIES for b in BENCHMARKS}


def population(seed: int, count: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = with_stderr(target_frame(rng, count, noisy=False, prefix="p"))
    frame["t"] = (pd.to_datetime(frame["release_date"]) - EPOCH).dt.days.astype(float)
    return frame


def replicate(seed: int, args, true_fits: dict, pop: pd.DataFrame, estimands: dict) -> list[dict]:
    rng = np.random.default_rng(seed)
    table = with_stderr(planted_table(rng, args.targets))
    candidates = references.candidate_table(table, since=None, rule="v2")
    fits = references.eligible_fits(table, candidates, seed=seed, family_boot=args.family_boot)
    rows = [(b, (b,)) for b in BENCHMARKS] + [("set", SET)]
    out = []
    for name, benchmarks in rows:
        joint = len(benchmarks) > 1
        found = references.references_of(candidates, benchmarks, references.MIN_SET_BENCHMARKS if joint else 1)
        record = {"seed": seed, "row": name, "references": ",".join(found), "n_references": len(found)}
        if not found:
            out.append({**record, "fitted": False, "why": "no reference passes rule v2"})
            continue
        row = trend_row(name, name, "set" if joint else "row", benchmarks, table, candidates, fits, since="2023-02-24",
                        epoch="2023-02-24", n_boot=args.n_boot, n_boot_share=0, seed=seed)
        if row.result is None:
            out.append({**record, "fitted": False, "why": row.error})
            continue
        for family, bench in found.items():
            key = (family, bench)
            if key not in estimands:
                estimands[key] = population_slope(family, bench, pop, true_fits)
        target = float(np.mean([estimands[(f, b)] for f, b in found.items()]))
        r = row.result
        latent = slope(name) if not joint else math.nan
        out.append({**record, "fitted": True, "why": "", "estimand": target, "latent": latent,
                    "point": r.slope_per_day, "low": r.slope_ci_low, "high": r.slope_ci_high,
                    "covers": r.slope_ci_low <= target <= r.slope_ci_high,
                    "covers_latent": (r.slope_ci_low <= latent <= r.slope_ci_high) if not joint else math.nan})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=40)
    parser.add_argument("--targets", type=int, default=120)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--family-boot", type=int, default=200)
    parser.add_argument("--population", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="CSV of every replicate's rows (appended as it runs)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    true_fits = true_family_fits(args.seed + 10_000)
    pop = population(args.seed + 20_000, args.population)
    estimands: dict = {}
    records = []
    for k in range(args.replicates):
        records += replicate(args.seed + k, args, true_fits, pop, estimands)
        if args.out:
            pd.DataFrame(records).to_csv(args.out, index=False)
    frame = pd.DataFrame(records)
    print(f"{args.replicates} replicates × {len(BENCHMARKS) + 1} rows, {args.targets} targets, {args.n_boot} draws a row, "
          f"family fits {args.family_boot} draws, population {args.population}; {time.perf_counter() - start:.0f} s")
    print("population slope of each (reference, benchmarks) beside the latent A_b (per day):")
    for (family, bench), value in sorted(estimands.items()):
        latent = ", ".join(f"{slope(b):.5f}" for b in bench)
        print(f"  {family:12s} {','.join(bench):32s} {value:.5f}   latent {latent}")
    print(f"{'row':16s} {'fitted':>7s} {'refs/row':>8s} {'coverage':>9s} {'± MC SE':>8s} {'of latent':>9s} {'± MC SE':>8s} "
          f"{'median width':>12s}")
    for name in list(BENCHMARKS) + ["set"]:
        rows = frame[(frame["row"] == name)]
        fitted = rows[rows["fitted"].astype(bool)]
        n = len(fitted)
        if n == 0:
            print(f"{name:16s} {0:7d}   no replicate fitted ({rows['why'].iloc[0] if len(rows) else ''})")
            continue
        p = float(fitted["covers"].astype(bool).mean())
        se = math.sqrt(p * (1 - p) / n)
        if name == "set":
            latent_words = f"{'—':>9s} {'':>8s}"
        else:
            q = float(fitted["covers_latent"].astype(bool).mean())
            latent_words = f"{q:9.3f} {math.sqrt(q * (1 - q) / n):8.3f}"
        width = float((fitted["high"] - fitted["low"]).median())
        print(f"{name:16s} {n:4d}/{len(rows):<2d} {fitted['n_references'].mean():8.2f} {p:9.3f} {se:8.3f} {latent_words} "
              f"{width:12.5f}")
    unfit = frame[~frame["fitted"].astype(bool)]
    if len(unfit):
        print("rows without a result:", "; ".join(f"{r} ×{c}" for r, c in unfit.groupby("row").size().items()))
    shares = frame[frame["fitted"].astype(bool)].groupby("row")["references"].agg(lambda s: s.value_counts().to_dict())
    print("references chosen by rule v2 (per row, replicates):")
    for row, counts in shares.items():
        print(f"  {row}: {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
