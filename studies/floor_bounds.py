"""The floor rule (:mod:`densing.trend.floors`) on planted worlds built like the real rows: how often it bounds a
target whose true score is above chance (false bounds), how often it bounds one truly at chance, and the rows'
coverage of the planted slope with and without floor bounds; prints a table, asserts nothing.

**The planted worlds** are ``studies/real_configuration.py``'s (its docstring states them): the real table's dated
models with their names, families, sizes, token counts and release dates, a score exactly where the real table has
one, each benchmark's canonical curve S_b(x) = c_b + (1 − c_b)·σ(γ_b·(u(x) − l_b)) with its floor at the registry's
chance level c_b, binomial scores at the registry's item counts. The real table's small and early models (Pythia,
SmolLM, AMD-Llama-135m, TinyLlama, …) keep their sizes, so, as on the real table, some targets score at chance: a
135M model of ln ρ ≈ 0 has a true MMLU-Pro score about 0.0017 above 0.10, within one standard error. ``--variant
v2`` is real_configuration's ``v2`` (the v2-native row of the Open LLM Leaderboard v2 table, its five references,
planted 4 months); ``public`` its ``public`` (the paper-like row of the public table, Qwen1.5 and Qwen2). Replicate
r draws its table from ``numpy.random.SeedSequence([seed, r])``, so replicate r is real_configuration's replicate r.

**The measurement** is real_configuration's (the CLI's path: the candidate table, the real references fitted with
1,000 draws, the common targets, :func:`densing.trend.pooling.pooled_trend` with 600 draws), made twice on the same
targets and draws: with the floor rule (the package) and without it (:func:`densing.trend.pooling.at_floor` set to
flag nothing, in the point fit and every draw).

**Recorded per replicate**: for every target, whether the rule flags it at the point (S_b ≤ c_b + 2σ_b on some b,
σ_b the table's binomial standard error of the observed score) and whether its *true* score p_b (the planted
probability, no binomial noise) is within the same margin, p_b ≤ c_b + 2·√(p_b(1 − p_b)/n_b), on some b (truly at
the floor), and its least true distance from chance in true standard errors, min_b (p_b − c_b)/√(p_b(1 − p_b)/n_b).
A **false bound** is a flagged target that is not truly at the floor; one that is "clearly above chance" is more than
4 true standard errors above chance on every benchmark. Also recorded: the number of floor bounds (target
inversions, over the references), the pooled point slope and 95% interval with and without the rule, and the state.

Run (resumable; one JSON line per replicate in ``STORE/<variant>.jsonl``)::

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/floor_bounds.py --variant v2 --replicates R --store STORE
    PYTHONPATH=. python studies/floor_bounds.py --summary --store STORE > studies/floor_bounds.results.txt
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from densing.constants import DEFAULT_N_BOOT, FLOOR_STDERRS
from densing.data.benchmarks import ITEM_COUNTS
from densing.errors import DensingError
from densing.laws import eligibility
from densing.laws.inversion import arrays
from densing.present.words import STATE_WORDS
from densing.trend import capability, pooling
from densing.trend.floors import at_floor, chance_levels
from densing.trend.uncertainty import from_row_trend
from studies import _planted, real_configuration as RC
from studies.replicates import read_store, run_replicates, variant_parser

EPOCH = RC.EPOCH
#: The variants: real_configuration's variants of the same name.
VARIANTS = ("v2", "public")
#: True standard errors above chance on every benchmark beyond which a target is "clearly above chance".
CLEARLY = 4.0


@contextmanager
def rule_off():
    """The floor rule switched off in :mod:`densing.trend.pooling` (no target flagged, point and draws alike)."""
    kept = pooling.at_floor
    pooling.at_floor = lambda scores, sigma, chance: np.zeros(np.shape(scores)[:-1], bool)
    try:
        yield
    finally:
        pooling.at_floor = kept


def true_distance(spec, frame, common) -> tuple[np.ndarray, np.ndarray]:
    """Per target of ``common``: whether its true scores are at the floor (p_b ≤ c_b + 2·σ(p_b) on some b) and its
    least distance from chance in true standard errors over the row's benchmarks (module docstring)."""
    truth = RC.tidy(spec, frame[frame["model"].isin(set(common.frame["model"]))], None)
    wide = truth.pivot_table(index="model", columns="benchmark", values="value").loc[common.frame["model"]]
    benchmarks = common.benchmarks
    p = wide[list(benchmarks)].to_numpy(float)
    n = np.array([ITEM_COUNTS[b] for b in benchmarks], float)
    sd = np.sqrt(p * (1 - p) / n)
    chance = chance_levels(benchmarks)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, (p - chance) / sd, np.where(p <= chance, 0.0, np.inf))
    return at_floor(p, sd, chance), np.min(z, axis=1)


def run_replicate(r: int, name: str, seed: int, n_boot: int) -> dict:
    variant = RC.VARIANTS[name]
    spec = variant.spec
    table, frame = RC.replicate_table(variant, r, seed)
    benchmarks = spec.benchmarks
    record: dict = {"replicate": r, "latent": variant.slope}
    try:
        candidates = eligibility.candidate_table(table, benchmarks=benchmarks)
    except DensingError as exc:
        return {**record, "error": f"candidate table: {exc}"}
    found = {f: benchmarks for f in spec.references}
    fits: dict = {}
    for family in list(found):  # as real_configuration: a reference whose planted law does not fit is left out
        try:
            capability.row_fits(table, candidates, fits, {family: found[family]}, seed=r)
        except DensingError:
            found = {f: b for f, b in found.items() if f != family}
    if not found:
        return {**record, "error": "no reference fits"}
    try:
        common = capability.row_targets(table, candidates, fits, found, since=EPOCH, epoch=EPOCH)
        trend = pooling.pooled_trend(common, n_boot=n_boot, n_boot_share=0, seed=r)
        with rule_off():
            bare = pooling.pooled_trend(common, n_boot=n_boot, n_boot_share=0, seed=r)
    except (DensingError, ValueError, FloatingPointError) as exc:
        return {**record, "error": f"{type(exc).__name__}: {exc}"}
    scores, sigma = arrays(common.frame, common.benchmarks)
    flagged = at_floor(scores, sigma, chance_levels(common.benchmarks))
    truly, z = true_distance(spec, frame, common)

    def state(t):
        return STATE_WORDS[from_row_trend(t, epoch=EPOCH, judged=True).state]

    record.update(
        {
            "n_targets": len(common.frame),
            "flagged": int(flagged.sum()),
            "truly": int(truly.sum()),
            "flagged_truly": int((flagged & truly).sum()),
            "false": int((flagged & ~truly).sum()),
            "clearly": int((z > CLEARLY).sum()),
            "flagged_clearly": int((flagged & (z > CLEARLY)).sum()),
            "flagged_models": [str(m) for m in common.frame["model"][flagged]],
            "false_z": [float(v) for v in z[flagged & ~truly]],
            "floor_bounds": int(sum(trend.floor_bounds)),
            "point": trend.slope_per_day,
            "low": trend.slope_ci_low,
            "high": trend.slope_ci_high,
            "state": state(trend),
            "without_floors": trend.slope_without_floors,
            "bare_point": bare.slope_per_day,
            "bare_low": bare.slope_ci_low,
            "bare_high": bare.slope_ci_high,
            "bare_state": state(bare),
            "references": list(found),
        }
    )
    return record


# ---------------------------------------------------------------------------------------------------------------
# the summary


def _share(hits) -> str:
    p, se = _planted.coverage(list(hits))
    return f"{p:.3f} ± {se:.3f}"


def _ratio(numerator: int, denominator: int, clusters: list[tuple[int, int]]) -> str:
    """numerator/denominator with its Monte Carlo standard error by the replicates as clusters (a ratio estimator:
    √(Σ (a_r − R·b_r)²)/Σ b_r over replicates r with a_r counted of b_r)."""
    if denominator == 0:
        return f"{numerator}/0"
    ratio = numerator / denominator
    se = math.sqrt(sum((a - ratio * b) ** 2 for a, b in clusters)) / denominator
    return f"{ratio:.4f} ± {se:.4f} ({numerator} of {denominator})"


def summary(name: str, records: list[dict]) -> list[str]:
    variant = RC.VARIANTS[name]
    good = [x for x in records if "error" not in x]
    bad = [x for x in records if "error" in x]
    latent = variant.slope
    out = [
        f"## {name}: {variant.words} (planted {variant.months:g} months; {len(records)} replicates, {len(bad)} "
        "without a row" + (": " + "; ".join(sorted({x["error"][:80] for x in bad})) if bad else "") + ")"
    ]
    if not good:
        return out
    flagged = sum(x["flagged"] for x in good)
    out.append(
        f"  targets per row {np.mean([x['n_targets'] for x in good]):.1f}; flagged at the floor per row "
        f"{np.mean([x['flagged'] for x in good]):.2f} (floor bounds, target inversions over the references, "
        f"{np.mean([x['floor_bounds'] for x in good]):.1f}); truly at the floor per row "
        f"{np.mean([x['truly'] for x in good]):.2f}"
    )
    out.append(
        "  false bounds (flagged, true scores beyond the margin on every benchmark), of the flagged: "
        + _ratio(sum(x["false"] for x in good), flagged, [(x["false"], x["flagged"]) for x in good])
    )
    not_truly = [(x["false"], x["n_targets"] - x["truly"]) for x in good]
    out.append(
        "  flagged among the targets not truly at the floor: "
        + _ratio(sum(a for a, _ in not_truly), sum(b for _, b in not_truly), not_truly)
    )
    clearly = [(x["flagged_clearly"], x["clearly"]) for x in good]
    out.append(
        f"  flagged among the targets clearly above chance (> {CLEARLY:g} true standard errors on every "
        "benchmark): " + _ratio(sum(a for a, _ in clearly), sum(b for _, b in clearly), clearly)
    )
    truly = [(x["flagged_truly"], x["truly"]) for x in good]
    out.append(
        "  flagged among the targets truly at the floor: "
        + _ratio(sum(a for a, _ in truly), sum(b for _, b in truly), truly)
    )
    false_z = np.concatenate([x["false_z"] for x in good]) if any(x["false_z"] for x in good) else np.array([])
    if false_z.size:
        out.append(
            f"  the false bounds' least true distance from chance (true standard errors): median "
            f"{np.median(false_z):.2f}, largest {np.max(false_z):.2f}"
        )
    names: dict[str, int] = {}
    for x in good:
        for m in x["flagged_models"]:
            names[m] = names.get(m, 0) + 1
    top = sorted(names.items(), key=lambda kv: -kv[1])[:8]
    out.append("  the models flagged most often (replicates): " + ", ".join(f"{m} {c}" for m, c in top))
    for label, point, low, high, state in (
        ("with floor bounds (the package)", "point", "low", "high", "state"),
        ("without floor bounds", "bare_point", "bare_low", "bare_high", "bare_state"),
    ):
        hits = [x[low] <= latent <= x[high] for x in good]
        states = [x[state] for x in good]
        out.append(
            f"  {label}: coverage of the planted slope {_share(hits)}; point "
            f"{RC._bias(np.array([x[point] for x in good]), latent)}; median doubling time "
            f"{_planted.months(float(np.median([x[point] for x in good])))} months; states: "
            + ", ".join(f"{w} {_share([s == w for s in states])}" for w in ("measured", "bounded", "not measured"))
        )
    change = np.array([100 * (x["point"] - x["bare_point"]) / latent for x in good])
    out.append(
        f"  paired, the point with floor bounds − without, in % of A: median {np.median(change):+.1f}% ± "
        f"{RC._median_se(change):.1f}, mean {np.mean(change):+.1f}% ± {np.std(change, ddof=1) / math.sqrt(change.size):.1f}"
    )
    return out


def report(store: Path) -> list[str]:
    out = [
        "# PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/floor_bounds.py --variant NAME --replicates R "
        "--store STORE   (each variant below, R as printed)",
        "# PYTHONPATH=. python studies/floor_bounds.py --summary --store STORE > studies/floor_bounds.results.txt",
        f"The rule: a target is at the floor when S_b ≤ c_b + {FLOOR_STDERRS:g}σ_b on some benchmark b of the row. "
        "Monte Carlo standard errors: √(p(1 − p)/R) for shares of replicates; for a share of targets pooled over "
        "replicates, the ratio estimator's with the replicates as clusters; the median's by resampling the "
        "replicates; bias in % of the planted slope A (positive: too steep).",
    ]
    for name in VARIANTS:
        path = store / f"{name}.jsonl"
        if path.exists():
            records = read_store(store / f"{name}.jsonl")
            if records:
                out.extend(summary(name, records))
    return out


def main() -> None:
    parser = variant_parser(__doc__.splitlines()[0], VARIANTS, 40, DEFAULT_N_BOOT)
    args = parser.parse_args()
    store = Path(args.store)
    if args.summary:
        print("\n".join(report(store)))
        return
    if args.variant is None:
        parser.error("--variant or --summary")
    store.mkdir(parents=True, exist_ok=True)
    config = f"floor_bounds {args.variant} seed={args.seed} n_boot={args.n_boot}"
    done, fresh, elapsed = run_replicates(
        args.replicates,
        lambda r: run_replicate(r, args.variant, args.seed, args.n_boot),
        config,
        str(store / f"{args.variant}.jsonl"),
    )
    print(f"{fresh} replicates run in {elapsed:.0f} s, {len(done) - fresh} read from the store")
    print("\n".join(summary(args.variant, done)))


if __name__ == "__main__":
    main()
