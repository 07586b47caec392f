"""Coverage, point bias and the agreement test's power on planted worlds built like a real row, where the frontier
family is itself a reference; prints a table, asserts nothing.

**The real configurations.** ``openllm_v2``: the v2-native row (MMLU-Pro, BBH, MATH-hard) of
``results/openllm_v2/openllm_v2_2025-03.csv``, which ``densing trend --table openllm_v2 --by benchmark`` measures
against five references chosen by the set rule (Qwen2, Qwen2.5, Qwen1.5, Llama-2, StableLM); its late frontier,
Qwen2.5, is one of them. ``public``: the paper-like row (MMLU, BBH, MATH-hard, HumanEval) of
``results/public_models.csv`` against its two references, Qwen1.5 and Qwen2; Qwen2 is its late frontier and a
reference.

**The planted world** (:class:`Spec`; :mod:`studies._power_world`'s law and constants, :mod:`studies._planted`'s
scores). The table's dated models keep their names, families, sizes (``params``; a mixture of experts its
``active_params`` too), token counts and release dates, and a score on a benchmark exactly where the real table has
one. Model m of family f, released t_m days after t_ref = 2024-02-05, has on benchmark b

    ln ρ_{m,b} = A·(t_m − t_ref) + B − g_f + δ_{f,b} + ε_{m,b},

B = 0.5, g_f ~ Exponential(mean 1) (:data:`studies._power_world.GAP_MEAN`), δ_{f,b} ~ N(0, 0.3²), ε ~ N(0, 0.15²),
one planted A on every benchmark of the row (``--months``: 4.0, and 5.58, the real row's point). Its score is
Binomial(n_b, S_b(ln N_m + ln ρ_{m,b}))/n_b at the registry's item count n_b, S_b the power world's canonical curve
(a sigmoid of u = −(N̂/10⁹)^−0.34) with (γ_b, l_b) rounded from Qwen1.5's power fits on the row's own table
(:data:`CURVES`). **The frontier family is a reference and sits on the frontier**: its gap g_f is 0 (``--gap
drawn``: drawn like every other family's), so its members are the late frontier, as Qwen2.5's are on the v2 table.

**Steeper frontier reference** (``--ratio k``, the agreement test's power): the frontier family's members have
effective sizes c_f + k·(ln N − c_f) + ln ρ (c_f the mean ln N of its members), so its law rises k times as fast in
ln N as the targets' and the densities it gives trend about 1/k as fast. The printed ratio is the reference's
population slope over the planted A: the censored 0.9 frontier line of ln ρ under its true law (``fit_family`` on
its members' noise-free scores), inverted jointly from the noise-free scores of :data:`POPULATION` targets drawn from
the table's targets, each a family of its own with a fresh gap and skill (:func:`studies._planted.population_slope`).

**The measurement** is the CLI's: the reference rule's candidate table on the planted table, the row's references fitted by
:func:`densing.laws.eligibility.fit_of` (1,000 draws), their common targets in the lead order
(:func:`densing.trend.capability.row_targets`) and :func:`densing.trend.pooling.pooled_trend` with 600 draws, the
state by :func:`densing.trend.uncertainty.from_row_trend`. The references are the real row's (``--references real``);
``rule``: those the set rule admits on the planted table (the exact CLI path); ``no-frontier``: the real ones less
the frontier family (its members stay targets, inverted by every other reference). ``--own-law``: the frontier
family's members are also inverted by their own family's law (their targets renamed, so no reference owns them):
the row without the leave-own-family-out.

**Recorded per replicate**: the pooled point slope and its 95% interval, the state, Q's p-value, each reference's
point slope, the point slope with no ceiling bound (``slope_without_ceilings``), the estimate without the frontier
family (leave-one-family-out), the references the set rule admits, and the *oracle* slope: the censored 0.9
quantile line of the planted ln ρ itself (the mean over the row's benchmarks) over the row's targets, what the
estimator would give with no inversion at all. Replicate r draws from ``numpy.random.SeedSequence([seed, r])`` with
the same order of draws in every variant, so the variants are paired by replicate.

Run (resumable; one JSON line per replicate in ``STORE/<variant>.jsonl``; :data:`VARIANTS` names each)::

    PYTHONPATH=. OMP_NUM_THREADS=1 python studies/real_configuration.py --variant v2 --replicates 200 --store STORE
    PYTHONPATH=. python studies/real_configuration.py --summary --store STORE > studies/real_configuration.results.txt
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

from densing.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, DEFAULT_N_BOOT, LN2
from densing.data.benchmarks import CHANCE_LEVELS
from densing.errors import DensingError
from densing.laws import eligibility
from densing.laws.bounds import EXACT
from densing.laws.family import fit_family
from densing.laws.inversion import Joint
from densing.paths import RESULTS
from densing.present.words import STATE_WORDS
from densing.trend import capability, pooling, rules, selection
from densing.trend.targets import with_stderr
from densing.trend.uncertainty import from_row_trend
from studies import _planted, _power_world as W
from studies.replicates import read_store, run_replicates, variant_parser

EPOCH = DEFAULT_EPOCH
POPULATION = 6000


@dataclass(frozen=True)
class Spec:
    """A real row's configuration: its table, benchmarks (name → the table's column), canonical curves
    (name → (γ_b, l_b)), references in the real row, and the frontier family (one of them)."""

    path: Path
    columns: dict
    curves: dict
    references: tuple[str, ...]
    frontier: str

    @property
    def benchmarks(self) -> tuple[str, ...]:
        return tuple(self.columns)


#: (γ_b, l_b): Qwen1.5's power-shape fits (``fit_family(..., shape="power")``) on each table, rounded.
CURVES = {
    "openllm_v2": {"mmlu_pro": (3.5, -0.16), "leaderboard_bbh": (3.8, -0.19), "math_hard": (5.0, -0.11)},
    "public": {name: (W.BENCHMARKS[name].gamma, W.BENCHMARKS[name].level) for name in W.HEADLINE_SET},
}
SPECS = {
    "openllm_v2": Spec(
        RESULTS / "openllm_v2" / "openllm_v2_2025-03.csv",
        {
            "mmlu_pro": "leaderboard_mmlu_pro",
            "leaderboard_bbh": "leaderboard_bbh",
            "math_hard": "leaderboard_math_hard",
        },
        CURVES["openllm_v2"],
        ("Qwen2", "Qwen2.5", "Qwen1.5", "Llama-2", "StableLM"),
        "Qwen2.5",
    ),
    "public": Spec(
        RESULTS / "public_models.csv",
        {name: W.BENCHMARKS[name].column for name in W.HEADLINE_SET},
        CURVES["public"],
        ("Qwen1.5", "Qwen2"),
        "Qwen2",
    ),
}


@dataclass(frozen=True)
class Variant:
    """One planted world and measurement (module docstring): table, planted months, frontier gap, slope ratio k of the
    frontier reference, which references, whether the frontier family's own law inverts its members too."""

    table: str = "openllm_v2"
    months: float = 4.0
    gap: str = "zero"
    ratio: float = 1.0
    references: str = "real"
    own_law: bool = False
    words: str = field(default="", compare=False)

    @property
    def slope(self) -> float:
        return LN2 / (self.months * DAYS_PER_MONTH)

    @property
    def spec(self) -> Spec:
        return SPECS[self.table]


#: The variants this study runs: name → variant.
VARIANTS = {
    "v2": Variant(words="the v2-native row as it is: five references, the frontier family Qwen2.5 one of them, gap 0"),
    "v2_558": Variant(months=5.58, words="the same, planted at the real row's 5.58 months"),
    "v2_drawn": Variant(gap="drawn", words="the frontier family's gap drawn like every other family's"),
    "v2_no_frontier": Variant(references="no-frontier", words="the frontier family not a reference (four references)"),
    "v2_own_law": Variant(own_law=True, words="the frontier family's members inverted by its own law too"),
    "v2_rule": Variant(references="rule", words="the references the set rule admits on the planted table"),
    "v2_steep15": Variant(ratio=0.615, words="the frontier reference's law at k = 0.615 (1.5× the others' slope)"),
    "v2_steep2": Variant(ratio=0.46, words="the frontier reference's law at k = 0.46 (2× the others' slope)"),
    "public": Variant(
        table="public",
        words="the paper-like row of the public table: Qwen1.5 and Qwen2, Qwen2 the late frontier at gap 0",
    ),
    "public_drawn": Variant(table="public", gap="drawn", words="the same, Qwen2's gap drawn"),
    "public_no_frontier": Variant(
        table="public", references="no-frontier", words="the same, Qwen1.5 the one reference"
    ),
    "public_own_law": Variant(
        table="public", own_law=True, words="the same, Qwen2's members inverted by its own law too"
    ),
}


# ---------------------------------------------------------------------------------------------------------------
# the world


@cache
def table_frame(table: str) -> pd.DataFrame:
    """The table's dated models: model, family, params, active_params, train_tokens, release_date, t (days since the
    epoch), t_ref (days since t_ref) and ``present:b`` where the table has a score on b."""
    spec = SPECS[table]
    wide = pd.read_csv(spec.path)
    wide = wide[wide["release_date"].notna()].reset_index(drop=True)
    date = pd.to_datetime(wide["release_date"])
    active = wide["active_params"].astype(float) if "active_params" in wide.columns else np.nan
    frame = pd.DataFrame(
        {
            "model": wide["model"].astype(str),
            "family": wide["family"].astype(str),
            "params": wide["params"].astype(float),
            "active_params": active,
            "train_tokens": wide["train_tokens"].astype(float),
            "release_date": date,
            "t": (date - pd.Timestamp(EPOCH)).dt.days.astype(float),
            "t_ref": (date - pd.Timestamp(W.T_REF)).dt.days.astype(float),
        }
    )
    for name, column in spec.columns.items():
        frame[f"present:{name}"] = wide[column].notna().to_numpy()
    return frame


def curve_of(spec: Spec):
    """S_b(x) = d_b + (1 − d_b)·σ(γ_b·(u(x) − l_b)) of x = ln N̂ (:func:`studies._power_world.curve` with the spec's
    (γ_b, l_b))."""

    def curve(benchmark: str, x) -> np.ndarray:
        gamma, level = spec.curves[benchmark]
        d = CHANCE_LEVELS[benchmark]
        return d + (1.0 - d) * expit(gamma * (W.power_u(x) - level))

    return curve


def world_of(spec: Spec) -> _planted.World:
    return _planted.World(spec.benchmarks, {}, curve_of(spec), None, EPOCH, W.MEMBER_SD)


def densities(frame: pd.DataFrame, variant: Variant, rng: np.random.Generator) -> pd.DataFrame:
    """``frame`` with ``log_rho:b`` drawn (module docstring): gaps, then each benchmark's skills and member
    departures, in that order whatever the variant; the frontier family's gap 0 unless ``gap="drawn"``, its members
    tilted by k = ``ratio``."""
    spec = variant.spec
    out = frame.copy()
    codes, names = pd.factorize(out["family"])
    gaps = rng.exponential(W.GAP_MEAN, len(names))
    if variant.gap == "zero":
        gaps[list(names).index(spec.frontier)] = 0.0
    gap = gaps[codes]
    mine = (out["family"] == spec.frontier).to_numpy()
    log_n = np.log(out["params"].to_numpy(float))
    tilt = np.where(mine, (variant.ratio - 1.0) * (log_n - log_n[mine].mean()), 0.0)
    for name in spec.benchmarks:
        skill = W.SKILL_SD * rng.standard_normal(len(names))[codes]
        out[f"log_rho:{name}"] = (
            variant.slope * out["t_ref"].to_numpy(float)
            + W.FRONTIER
            - gap
            + skill
            + W.MEMBER_SD * rng.standard_normal(len(out))
            + tilt
        )
    return out


def tidy(spec: Spec, frame: pd.DataFrame, rng: np.random.Generator | None) -> pd.DataFrame:
    """The planted tidy table (binomial scores at the item counts; ``rng=None`` noise-free), ``active_params`` and
    stderr filled as the real table's reader fills them."""
    rows = _planted.target_rows(world_of(spec), frame, rng)
    rows["active_params"] = rows["model"].map(dict(zip(frame["model"], frame["active_params"])))
    rows["stderr"] = np.nan
    return with_stderr(rows)


def replicate_table(variant: Variant, r: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(np.random.SeedSequence([seed, r]))
    frame = densities(table_frame(variant.table), variant, rng)
    return tidy(variant.spec, frame, rng), frame


# ---------------------------------------------------------------------------------------------------------------
# the frontier reference's population slope (the ratio the power rows plant)


@cache
def population_ratio(table: str, ratio: float) -> tuple[float, float]:
    """(population slope of the frontier reference at k = ``ratio`` over the planted A, its standard error over
    blocks): its true law fitted on its members' noise-free scores (gap, skill and departures 0), inverted jointly
    from :data:`POPULATION` targets drawn from the table's targets, each its own family (module docstring)."""
    variant = Variant(table=table, ratio=ratio)
    spec = variant.spec
    frame = table_frame(table)
    members = frame[frame["family"] == spec.frontier].copy()
    log_n = np.log(members["params"].to_numpy(float))
    for name in spec.benchmarks:
        members[f"log_rho:{name}"] = (
            variant.slope * members["t_ref"].to_numpy(float) + W.FRONTIER + (ratio - 1.0) * (log_n - log_n.mean())
        )
        members[f"present:{name}"] = True
    rows = tidy(spec, members, None)
    fits = tuple(fit_family(rows, spec.frontier, b, n_boot=0, shape="power") for b in spec.benchmarks)
    rng = np.random.default_rng(np.random.SeedSequence([0, 2**31 - 1]))
    window = frame[(frame["t"] >= 0) & frame[[f"present:{b}" for b in spec.benchmarks]].all(axis=1)].reset_index(
        drop=True
    )
    picked = window.iloc[rng.integers(len(window), size=POPULATION)].reset_index(drop=True)
    picked["model"] = [f"p{i}" for i in range(POPULATION)]
    picked["family"] = picked["model"]
    population = tidy(spec, densities(picked, replace(variant, gap="drawn", ratio=1.0), rng), None)
    slope, se = _planted.population_slope(Joint(fits), population)
    return slope / variant.slope, se / variant.slope


# ---------------------------------------------------------------------------------------------------------------
# one replicate


def oracle_slope(frame: pd.DataFrame, models: pd.Series, benchmarks: tuple[str, ...]) -> float:
    """The censored 0.9 quantile line's slope (per day) of the planted ln ρ (mean over ``benchmarks``) of ``models``."""
    chosen = frame.set_index("model").loc[list(models)]
    y = chosen[[f"log_rho:{b}" for b in benchmarks]].to_numpy(float).mean(axis=1)
    t = chosen["t"].to_numpy(float)
    return _planted.frontier_line("quantile", t, y, np.full(len(y), EXACT), np.asarray(list(models), str))[0]


def family_weighted(t, y, kind, labels, families) -> np.ndarray:
    """Each row of ``y`` (problems, n)'s censored 0.9 quantile slope with every target weighted 1/(its family's count
    among the targets), so that each family counts once (a variant of the frontier line, not the package's)."""
    codes, _ = pd.factorize(pd.Series(families, dtype=object))
    weight = 1.0 / np.bincount(codes)[codes]
    lines = rules.frontier_lines_weighted("quantile", t, y, kind, np.broadcast_to(weight, y.shape), labels, 0.9)
    return lines[:, 0]


def residuals(t, y, kind, labels, families, frontier: str) -> tuple[float, float]:
    """(the frontier family's mean ln ρ residual from each reference's own point line, averaged over the references;
    the largest such mean of any other family of two or more targets): how far the frontier family stands out."""
    lines = rules.frontier_lines_weighted("quantile", t, y, kind, np.ones(y.shape), labels, 0.9)
    resid = np.nanmean(np.where(kind == EXACT, y - (lines[:, :1] * t + lines[:, 1:]), np.nan), axis=0)
    means = pd.Series(resid).groupby(pd.Series(families, dtype=object)).agg(["mean", "size"])
    others = means[(means.index != frontier) & (means["size"] >= 2)]["mean"]
    return float(means["mean"].get(frontier, math.nan)), float(others.max()) if len(others) else math.nan


def _own_law_targets(table: pd.DataFrame, family: str) -> pd.DataFrame:
    """The table with the frontier family's rows repeated under new model and family names: targets that no reference
    owns, so the family's own law inverts them too; its original rows are left as reference members only (undated)."""
    mine = table["family"] == family
    copy = table[mine].copy()
    copy["model"] = copy["model"] + "·target"
    copy["family"] = family + "·target"
    original = table[mine].copy()
    original["release_date"] = pd.NaT
    return pd.concat([table[~mine], original, copy], ignore_index=True)


def run_replicate(r: int, variant: Variant, seed: int, n_boot: int) -> dict:
    spec = variant.spec
    table, frame = replicate_table(variant, r, seed)
    benchmarks = spec.benchmarks
    record: dict = {"replicate": r, "latent": variant.slope}
    try:
        candidates = eligibility.candidate_table(table, benchmarks=benchmarks)
    except DensingError as exc:
        record["error"] = f"candidate table: {exc}"
        return record
    admitted = selection.set_references(candidates, benchmarks)
    record["admitted"] = sorted(admitted)
    if variant.references == "rule":
        found = admitted
    else:
        chosen = [f for f in spec.references if variant.references == "real" or f != spec.frontier]
        found = {f: benchmarks for f in chosen}
    if not found:
        record["error"] = "no reference"
        return record
    fits: dict = {}
    for family in list(found):  # a real reference whose law the planted scores do not determine is left out, as the
        try:  # set rule would leave it (R2s), and named
            capability.row_fits(table, candidates, fits, {family: found[family]}, seed=r)
        except DensingError:
            record.setdefault("dropped", []).append(family)
            found = {f: b for f, b in found.items() if f != family}
    if not found:
        record["error"] = "no reference fits"
        return record
    targets = _own_law_targets(table, spec.frontier) if variant.own_law else table
    try:
        common = capability.row_targets(targets, candidates, fits, found, since=EPOCH, epoch=EPOCH)
        trend = pooling.pooled_trend(common, n_boot=n_boot, n_boot_share=0, seed=r)
    except (DensingError, ValueError, FloatingPointError) as exc:
        record["error"] = f"{type(exc).__name__}: {exc}"
        return record
    result = from_row_trend(trend, epoch=EPOCH, judged=True)
    models = common.frame["model"].astype(str).str.replace("·target", "", regex=False)
    influence = trend.influence.set_index("family")["slope_per_day"]
    frontier_name = spec.frontier + ("·target" if variant.own_law else "")
    t, labels = common.frame["t"].to_numpy(float), common.frame["model"].astype(str).to_numpy()
    families = common.frame["family"].astype(str).str.replace("·target", "", regex=False).to_numpy(object)
    weighted = float(np.asarray(trend.weights) @ family_weighted(t, trend.y0, trend.kind0, labels, families))
    chosen = frame.set_index("model").loc[list(models)]
    truth = chosen[[f"log_rho:{b}" for b in benchmarks]].to_numpy(float).mean(axis=1)
    oracle_weighted = float(family_weighted(t, truth[None], np.zeros((1, len(t))), labels, families)[0])
    record.update(
        {
            "family_weighted": weighted,
            "oracle_family_weighted": oracle_weighted,
            "residuals": residuals(t, trend.y0, trend.kind0, labels, families, spec.frontier),
            "references": [name.family for name in common.names],
            "point": trend.slope_per_day,
            "low": trend.slope_ci_low,
            "high": trend.slope_ci_high,
            "state": STATE_WORDS[result.state],
            "p": trend.pooled.p_value,
            "reference_slopes": list(trend.reference_slopes),
            "weights": list(trend.weights),
            "without_ceilings": trend.slope_without_ceilings,
            "ceiling_bounds": int(sum(trend.ceiling_bounds)),
            "without_frontier": float(influence.get(frontier_name, math.nan)),
            "n_models": len(common.frame),
            "oracle": oracle_slope(frame, models, benchmarks),
        }
    )
    return record


# ---------------------------------------------------------------------------------------------------------------
# the summary


def _share(hits) -> str:
    p, se = _planted.coverage(list(hits))
    return f"{p:.3f} ± {se:.3f}"


def _median_se(values: np.ndarray, seed: int = 0, count: int = 2000) -> float:
    """The standard error of the median of ``values`` over replicates, by resampling the replicates (seeded)."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(values.size, size=(count, values.size))
    return float(np.std(np.median(values[picks], axis=1), ddof=1))


def _bias(values: np.ndarray, latent: float) -> str:
    """Median and mean of (value − A)/A in %, each ± its Monte Carlo standard error."""
    rel = 100 * (values - latent) / latent
    rel = rel[np.isfinite(rel)]
    if not rel.size:
        return "—"
    return (
        f"median {np.median(rel):+.1f}% ± {_median_se(rel):.1f}, mean {np.mean(rel):+.1f}% ± "
        f"{np.std(rel, ddof=1) / math.sqrt(rel.size):.1f}"
    )


def _months(slope: float) -> str:
    return _planted.months(slope)


def summary(name: str, records: list[dict]) -> list[str]:
    variant = VARIANTS[name]
    good = [x for x in records if "error" not in x]
    bad = [x for x in records if "error" in x]
    out = [
        f"## {name}: {variant.words} (planted {variant.months:g} months; {len(records)} replicates, "
        f"{len(bad)} without a row" + (": " + "; ".join(sorted({x["error"][:80] for x in bad})) if bad else "") + ")"
    ]
    if not good:
        return out
    latent = variant.slope
    point = np.array([x["point"] for x in good])
    out.append(
        f"  coverage of the planted slope by the 95% interval: {_share(x['low'] <= latent <= x['high'] for x in good)}"
    )
    out.append(f"  point slope: {_bias(point, latent)}; median doubling time {_months(float(np.median(point)))} months")
    out.append(f"  oracle (the planted ln ρ, no inversion): {_bias(np.array([x['oracle'] for x in good]), latent)}")
    out.append(
        f"  family-weighted frontier line (each family once; not the package's): point "
        f"{_bias(np.array([x['family_weighted'] for x in good]), latent)}; oracle "
        f"{_bias(np.array([x['oracle_family_weighted'] for x in good]), latent)}"
    )
    out.append(
        f"  point slope with no ceiling bound: {_bias(np.array([x['without_ceilings'] for x in good]), latent)}; "
        f"ceiling bounds per replicate {np.mean([x['ceiling_bounds'] for x in good]):.1f}"
    )
    out.append(
        f"  without the frontier family (leave one family out): "
        f"{_bias(np.array([x['without_frontier'] for x in good]), latent)}"
    )
    resid = np.array([x["residuals"] for x in good], float)
    out.append(
        f"  the frontier family's mean ln ρ residual from the references' lines: median {np.nanmedian(resid[:, 0]):+.2f} "
        f"(the best other family of two or more targets: {np.nanmedian(resid[:, 1]):+.2f})"
    )
    dropped = pd.Series([f for x in good for f in x.get("dropped", [])]).value_counts()
    out.append(
        "  real references left out because their planted law does not fit (share of replicates): "
        + (", ".join(f"{f} {n / len(good):.2f}" for f, n in dropped.items()) if len(dropped) else "none")
    )
    states = pd.Series([x["state"] for x in good])
    out.append("  states: " + ", ".join(f"{s} {_share(states == s)}" for s in ("measured", "bounded", "not measured")))
    p = np.array([x["p"] for x in good])
    if np.isfinite(p).any():
        out.append(
            f"  Q rejects one common slope at 5%: {_share(p < pooling.HETEROGENEITY_ALPHA)} "
            f"(median p {np.nanmedian(p):.3g})"
        )
    slopes: dict[str, list[float]] = {}
    weights: dict[str, list[float]] = {}
    for x in good:
        for ref, slope, weight in zip(x["references"], x["reference_slopes"], x["weights"]):
            slopes.setdefault(ref, []).append(100 * (slope - latent) / latent)
            weights.setdefault(ref, []).append(weight)
    out.append(
        "  each reference's point slope, median bias (mean weight): "
        + "; ".join(f"{ref} {np.median(v):+.1f}% ({np.mean(weights[ref]):.2f})" for ref, v in slopes.items())
    )
    admitted = pd.Series([a for x in good for a in x["admitted"]]).value_counts()
    real = set(variant.spec.references)
    exact = np.mean([set(x["admitted"]) == real for x in good])
    out.append(
        f"  the set rule on the planted table admits the real references exactly in {exact:.2f}; each family "
        "admitted in: " + ", ".join(f"{f} {n / len(good):.2f}" for f, n in admitted.items())
    )
    return out


def paired(base: list[dict], other: list[dict], latent: float) -> str:
    """The median paired difference of the point slopes (other − base) in % of A over the replicates both hold."""
    one = {x["replicate"]: x["point"] for x in base if "error" not in x}
    two = {x["replicate"]: x["point"] for x in other if "error" not in x}
    both = sorted(set(one) & set(two))
    if not both:
        return "—"
    diff = 100 * np.array([two[r] - one[r] for r in both]) / latent
    return f"{np.median(diff):+.1f}% ± {_median_se(diff):.1f} (mean {np.mean(diff):+.1f}%, {len(both)} pairs)"


@cache
def real_row(table: str, seed: int = 0, n_boot: int = DEFAULT_N_BOOT) -> dict:
    """The real table's row measured as a replicate is (its real references, the same path), for comparison."""
    from densing.data.readers import read_wide_csv

    spec = SPECS[table]
    real = with_stderr(read_wide_csv(spec.path))
    benchmarks = spec.benchmarks
    candidates = eligibility.candidate_table(real, benchmarks=benchmarks)
    found = {f: benchmarks for f in spec.references}
    fits = capability.row_fits(real, candidates, {}, found, seed=seed)
    common = capability.row_targets(real, candidates, fits, found, since=EPOCH, epoch=EPOCH)
    trend = pooling.pooled_trend(common, n_boot=n_boot, n_boot_share=0, seed=seed)
    t, labels = common.frame["t"].to_numpy(float), common.frame["model"].astype(str).to_numpy()
    families = common.frame["family"].astype(str).to_numpy(object)
    influence = trend.influence.set_index("family")["slope_per_day"]
    return {
        "point": trend.slope_per_day,
        "low": trend.slope_ci_low,
        "high": trend.slope_ci_high,
        "residuals": residuals(t, trend.y0, trend.kind0, labels, families, spec.frontier),
        "without_frontier": float(influence.get(spec.frontier, math.nan)),
        "family_weighted": float(
            np.asarray(trend.weights) @ family_weighted(t, trend.y0, trend.kind0, labels, families)
        ),
        "references": [name.family for name in common.names],
    }


def real_words(table: str) -> str:
    row = real_row(table)
    return (
        f"the real row ({table}, references {', '.join(row['references'])}; draws as the CLI's, seed 0): "
        f"{_months(row['point'])} months [{_months(row['high'])}–{_months(row['low'])}]; without "
        f"{SPECS[table].frontier} {_months(row['without_frontier'])}; family-weighted line "
        f"{_months(row['family_weighted'])}; {SPECS[table].frontier}'s mean residual {row['residuals'][0]:+.2f} "
        f"(the best other family of two or more targets: {row['residuals'][1]:+.2f})"
    )


def main() -> None:
    parser = variant_parser(__doc__.splitlines()[0], VARIANTS, 200, DEFAULT_N_BOOT)
    args = parser.parse_args()
    store = Path(args.store)
    if args.summary:
        print("\n".join(report(store, args)))
        return
    if args.variant is None:
        parser.error("--variant or --summary")
    store.mkdir(parents=True, exist_ok=True)
    variant = VARIANTS[args.variant]
    config = f"{variant!r} seed={args.seed} n_boot={args.n_boot}"
    done, fresh, elapsed = run_replicates(
        args.replicates,
        lambda r: run_replicate(r, variant, args.seed, args.n_boot),
        config,
        str(store / f"{args.variant}.jsonl"),
    )
    print(f"{fresh} replicates run in {elapsed:.0f} s, {len(done) - fresh} read from the store")
    print("\n".join(summary(args.variant, done)))


def report(store: Path, args) -> list[str]:
    out = [
        "# PYTHONPATH=. OMP_NUM_THREADS=1 python studies/real_configuration.py --variant NAME --replicates R "
        "--store STORE   (each variant below, R as printed)",
        "# PYTHONPATH=. python studies/real_configuration.py --summary --store STORE "
        "> studies/real_configuration.results.txt",
        "Monte Carlo standard errors: √(p(1 − p)/R) for shares; the median's by resampling the replicates; bias in % "
        "of the planted slope A (positive: too steep, a doubling time too short).",
    ]
    out += [real_words(table) for table in SPECS]
    found = {name: read_store(store / f"{name}.jsonl") for name in VARIANTS}
    for name, records in found.items():
        if records:
            out.extend(summary(name, records))
    out.append("paired by replicate (the same draws), the point slope's change from the base variant in % of A:")
    for base, others in (
        ("v2", ("v2_drawn", "v2_no_frontier", "v2_own_law", "v2_rule")),
        ("public", ("public_drawn", "public_no_frontier", "public_own_law")),
    ):
        for other in others:
            if found.get(base) and found.get(other):
                out.append(f"  {other} − {base}: {paired(found[base], found[other], VARIANTS[base].slope)}")
    for name in ("v2_steep15", "v2_steep2"):
        if found.get(name):
            ratio, se = population_ratio(VARIANTS[name].table, VARIANTS[name].ratio)
            base, _ = population_ratio(VARIANTS[name].table, 1.0)
            out.append(
                f"{name}: the frontier reference's population slope is {ratio:.2f} ± {se:.2f} × the planted A "
                f"(at k = 1: {base:.2f}); {ratio / base:.2f}× the others'"
            )
    return out


if __name__ == "__main__":
    main()
