"""The heterogeneity test of a row's common targets on planted worlds built like the public table: its false-alarm rate
when the references share one slope, and its power when one reference's slope is twice the others'.

**The planted world** (also the fixture of ``tests/trend/test_pooling.py``). Benchmark b has a canonical curve
S_b(x) = d_b + (1 − d_b)·σ(γ_b·(x − l_b)) of the effective size x = ln N̂ (MMLU and MATH-hard with the registry's
chance levels and item counts); a target released t days after 2023-02-24 (uniform over two years, sizes log-uniform
1B–70B) has ln ρ = A·t − 2 − u, u ~ Exponential(1), A a 3-month doubling time, so the 0.9 quantile of ln ρ given t is
a line of slope A; its score on b is Binomial(n_b, S_b(ln N + ln ρ))/n_b. A reference family of six sizes
(0.5B–100B) released on day t_f scores S_b(x_f(N)) with x_f(N) = ln 10¹⁰ + A·t_f − 2 + c_f + k_f·(ln N − ln 10¹⁰):
c_f its level, k_f its shape. A family with k_f = 1 has the targets' shape and measures slope A; one with k_f = 0.5
grows half as fast in ln N̂, and the densities it gives trend with about twice the slope.

**The measurement** is densing's: each family fitted per benchmark (:func:`densing.laws.family.fit_family`, the
planted shape, logistic in ln N), inverted jointly, the row's common targets and pooled trend (:mod:`densing.trend.pooling`). Printed: the
share of replicates whose Q rejects one common slope at 5%, with its binomial standard error, for three references
of the targets' shape (the false-alarm rate; nominal 0.05) and for two of that shape beside one of k_f = 0.5 (power).

    PYTHONPATH=. python studies/heterogeneity_level.py --replicates 40 > studies/heterogeneity_level.results.txt

``--sources`` (a diagnostic of the test's level): under one common slope, Q's false-alarm rate with Σ taken from the
paired draws of each set of sources alone (fit, score and models as shipped; fit and score with the models fixed; fit;
models), beside the spread over replicates of the point contrasts that Σ's contrasts should match:

    PYTHONPATH=. python studies/heterogeneity_level.py --replicates 30 --sources > studies/heterogeneity_level.sources.results.txt
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd

from densing.data.benchmarks import CHANCE_LEVELS, ITEM_COUNTS
from densing.laws.family import fit_family
from densing.laws.inversion import Joint

EPOCH = pd.Timestamp("2023-02-24")
SLOPE = math.log(2) / (3 * 365.25 / 12)  # a 3-month doubling time, per day
CURVES = {"mmlu": (0.8, 23.0), "math_hard": (0.8, 25.0)}
SIZES = np.array([5e8, 1.5e9, 4e9, 1.2e10, 3.5e10, 1e11])


def _score(rng, benchmark: str, x) -> np.ndarray:
    chance = CHANCE_LEVELS[benchmark]
    gamma, level = CURVES[benchmark]
    p = chance + (1 - chance) * 0.5 * (1 + np.tanh(0.5 * gamma * (np.asarray(x, float) - level)))
    n = ITEM_COUNTS[benchmark]
    return rng.binomial(n, p) / n


def _rows(model, family, params, day, benchmark, value) -> dict:
    return {
        "model": model,
        "family": family,
        "params": float(params),
        "train_tokens": 2e12,
        "release_date": (EPOCH + pd.Timedelta(days=int(day))).strftime("%Y-%m-%d"),
        "benchmark": benchmark,
        "metric": "score",
        "value": float(value),
    }


def planted(
    seed: int,
    *,
    count: int = 90,
    late_only: float | None = None,
    level_shift: float = 0.0,
    families: dict | None = None,
) -> pd.DataFrame:
    """A tidy table: ``count`` targets (their own families) and reference families {name: (day, offset c_f, k_f)}.

    ``late_only``: math_hard is scored only for targets released after that day, at a level ``level_shift`` above
    the reference families' (in ln N̂)."""
    rng = np.random.default_rng(seed)
    families = families or {"RefA": (200, 0.0, 1.0), "RefB": (350, 0.5, 1.0), "RefC": (500, -0.5, 1.0)}
    rows = []
    days = rng.integers(0, 730, count)
    log_n = rng.uniform(math.log(1e9), math.log(7e10), count)
    log_rho = SLOPE * days - 2.0 - rng.exponential(1.0, count)
    for i in range(count):
        x = log_n[i] + log_rho[i]
        rows.append(_rows(f"t{i}", f"T{i}", math.exp(log_n[i]), days[i], "mmlu", _score(rng, "mmlu", x)))
        if late_only is None or days[i] > late_only:
            shift = level_shift if late_only is not None else 0.0
            rows.append(
                _rows(f"t{i}", f"T{i}", math.exp(log_n[i]), days[i], "math_hard", _score(rng, "math_hard", x + shift))
            )
    for name, (day, offset, shape) in families.items():
        pivot = math.log(1e10)
        for size in SIZES:
            x = pivot + SLOPE * day - 2.0 + offset + shape * (math.log(size) - pivot)
            for b in CURVES:
                rows.append(_rows(f"{name}-{size:.0e}", name, size, day, b, _score(rng, b, x)))
    return pd.DataFrame(rows)


def _joint(table: pd.DataFrame, family: str, benchmarks=("mmlu", "math_hard")) -> Joint:
    return Joint(tuple(fit_family(table, family, b, n_boot=100, seed=0) for b in benchmarks))


def joint(table: pd.DataFrame, family: str, benchmarks=("mmlu", "math_hard"), n_boot: int = 100) -> Joint:
    """The family's joint reference over ``benchmarks``, each fitted by the law the world plants (a sigmoid in ln N:
    ``shape="logistic_ln_n"``), so that what is measured is the design, not a misspecified law."""
    return Joint(tuple(fit_family(table, family, b, n_boot=n_boot, seed=0, shape="logistic_ln_n") for b in benchmarks))


SAME = {"RefA": (200, 0.0, 1.0), "RefB": (350, 0.5, 1.0), "RefC": (500, -0.5, 1.0)}
STEEP = {"RefA": (200, 0.0, 1.0), "RefB": (350, 0.5, 1.0), "Steep": (500, 0.0, 0.5)}


def rejected(seed: int, families: dict, n_boot: int) -> tuple[bool, float]:
    """One replicate: (whether Q rejects at 5%, its p-value)."""
    from densing.trend import pooling, selection

    table = planted(seed, families=families)
    chosen = selection.common_targets(table, [joint(table, f) for f in families], since=None)
    result = pooling.pooled_trend(chosen, n_boot=n_boot, n_boot_share=0, seed=seed)
    return result.pooled.p_value < pooling.HETEROGENEITY_ALPHA, result.pooled.p_value


#: ``--sources``: the draw sources whose paired draws give Σ, each compared with the test as shipped (all three).
SOURCE_SETS = {
    "fit, score, models (shipped)": ("fit", "score", "models"),
    "fit, score (models fixed)": ("fit", "score"),
    "fit": ("fit",),
    "models": ("models",),
}


def by_sources(seed: int, families: dict, n_boot: int) -> dict:
    """One replicate's point slopes and, per :data:`SOURCE_SETS`, Q's p-value with Σ from those sources' paired draws
    alone (read as the shipped test reads it, :func:`densing.trend.random_effects.pool_slopes`) and the draws'
    standard deviation of each reference's contrast with the first."""
    from densing.trend import pooling, selection
    from studies._planted import frontier_line

    table = planted(seed, families=families)
    chosen = selection.common_targets(table, [joint(table, f) for f in families], since=None)
    data = pooling._prepared(chosen)
    y0, k0, _ = pooling._point(chosen, data)
    lines = [
        frontier_line("quantile", data["t"], y0[r, 0], k0[r, 0], data["labels"], 0.9) for r in range(len(families))
    ]
    points = np.array([line[0] for line in lines])
    rng = np.random.default_rng(seed)
    out = {"points": points}
    for name, sources in SOURCE_SETS.items():
        draws = pooling._slopes(
            "quantile", 0.9, chosen, data, pooling._random_draws(chosen, data, sources, n_boot, rng), lines
        )
        pooled = pooling.pool_slopes(points, draws)
        out[name] = (pooled.p_value, np.nanstd(draws[1:] - draws[:1], axis=1))
    return out


def sources_report(replicates: int, n_boot: int) -> list[str]:
    """``--sources``: under one common slope, the false-alarm rate with Σ from each source set, beside the spread of
    the point contrasts over the replicates (the sampling spread Σ's contrasts should match)."""
    found = [by_sources(1000 + r, SAME, n_boot) for r in range(replicates)]
    points = np.array([f["points"] for f in found])
    out = [
        "one common slope: sd over replicates of each reference's point slope less the first's "
        + ", ".join(f"{v:.3g}" for v in np.std(points[:, 1:] - points[:, :1], axis=0, ddof=1))
    ]
    for name in SOURCE_SETS:
        p = np.array([f[name][0] for f in found])
        sd = np.median([f[name][1] for f in found], axis=0)
        share = float(np.mean(p < 0.05))
        out.append(
            f"  Σ from {name}: Q rejects at 5% in {share:.3f} ± {math.sqrt(share * (1 - share) / len(p)):.3f}; "
            f"median p {np.median(p):.3g}; the draws' contrast sd (median) " + ", ".join(f"{v:.3g}" for v in sd)
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=40)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument(
        "--sources",
        action="store_true",
        help="Σ from each set of draw sources (a diagnostic of the test's level; the shipped test takes all three)",
    )
    args = parser.parse_args()
    start = time.perf_counter()
    if args.sources:
        print(
            f"# PYTHONPATH=. python studies/heterogeneity_level.py --replicates {args.replicates} --n-boot {args.n_boot} --sources"
        )
        print("\n".join(sources_report(args.replicates, args.n_boot)))
        print(f"{time.perf_counter() - start:.0f} s")
        return 0
    print(f"# PYTHONPATH=. python studies/heterogeneity_level.py --replicates {args.replicates} --n-boot {args.n_boot}")
    for name, families in (
        ("one common slope (three references of the targets' shape)", SAME),
        ("one reference at about twice the slope (shape 0.5)", STEEP),
    ):
        found = [rejected(1000 + r, families, args.n_boot) for r in range(args.replicates)]
        share = float(np.mean([f[0] for f in found]))
        se = math.sqrt(share * (1 - share) / len(found))
        p = np.array([f[1] for f in found])
        print(
            f"{name}: Q rejects at 5% in {share:.3f} ± {se:.3f} of {len(found)} replicates; "
            f"median p {np.median(p):.3g}, p-value quartiles {np.quantile(p, 0.25):.3g}–{np.quantile(p, 0.75):.3g}"
        )
    print(f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
