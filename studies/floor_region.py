"""The identified-region rule (:mod:`densing.laws.region`, :mod:`densing.trend.floors`) and the rule it replaces, on
planted worlds whose true curves depart from the references' laws below the references' smallest members; prints a
table, asserts nothing.

**The rows.** ``v2``: the v2-native row (MMLU-Pro, BBH, MATH-hard) of ``results/openllm_v2/openllm_v2_2025-03.csv``
against the six references of ``densing trend --table openllm_v2`` (Falcon3, Qwen2, Qwen2.5, Qwen1.5, Llama-2,
StableLM; smallest members 1.67, 0.49, 0.50, 0.62, 6.74 and 1.64 B), Qwen2.5 the late frontier. ``public``: the
paper-like row (MMLU, BBH, MATH-hard, HumanEval) of ``results/public_models.csv`` against Qwen1.5 and Qwen2 (smallest
members 0.5 B), Qwen2 the late frontier. Both keep the real tables' dated models, their names, families, sizes, token
counts and release dates, and a score exactly where the real table has one: the tiny models below every reference's
smallest member (SmolLM-135M, SmolLM2-135M, AMD-Llama-135m, the SmolLM-360Ms) and the early near-chance ones (Pythia,
TinyLlama, OPT, BLOOM, phi-1, …) are targets as on the real rows.

**The planted world** is ``studies/real_configuration.py``'s (its docstring states it) in everything but the curve's
floor. Model m of family f released t_m days after t_ref = 2024-02-05 has on benchmark b

    ln ρ_{m,b} = A·(t_m − t_ref) + B − g_f + δ_{f,b} + ε_{m,b}

(B = 0.5, g_f ~ Exponential(mean 1) with the frontier family's g = 0, δ_{f,b} ~ N(0, 0.3²), ε ~ N(0, 0.15²), A of
4 months), effective size x = ln N_m + ln ρ_{m,b}, and the score Binomial(n_b, p_{m,b})/n_b at the registry's item
count n_b (:data:`densing.data.benchmarks.ITEM_COUNTS`), with

    p_{m,b} = c_b + (1 − c_b)·σ(γ_b·(u_f(x) − l_b)),    u(x) = −(e^x / 10⁹)^−0.34,
    u_f(x) = u(x)                               for x ≥ x_k,
    u_f(x) = u(x_k) + κ_f·(u(x) − u(x_k))       for x < x_k,         x_k = ln(0.5·10⁹),   κ_f ~ Uniform(0.3, 1),

c_b the registry's chance level, (γ_b, l_b) real_configuration's :data:`~studies.real_configuration.CURVES`. Above
the knee x_k (an effective size of 0.5 B, the smallest reference member's size on both tables) every family follows
the canonical curve, as in real_configuration; below it each family has its own steepness κ_f·γ_b in u, at most the
canonical one: its scores approach chance more slowly than the canonical sigmoid, by an amount of its own. A reference
fitted on its members (most of them above the knee) extrapolates the canonical curve below its smallest member, so a
target below the knee scores above what that law gives at its true effective size and inverts too dense. κ_f is drawn
once per family from its own stream (``SeedSequence([seed, r, 1])``), so replicate r's planted ln ρ are
real_configuration's replicate r's.

**Two worlds.** ``v2`` and ``public`` (the slow approach to chance) are the world above. On them the canonical curve
of an exact-match benchmark (MATH-hard, c_b = 0) leaves every model under an effective 0.5 B with about 0–4 of 1,324
items right, at chance by the 2-SE margin, so there the 2-SE rule bounds each tiny target through MATH-hard, where on
the real v2 table SmolLM-135M (0.014), SmolLM2-135M (0.012) and AMD-Llama-135m (0.008) are above chance on every
benchmark and invert where the fitted curves flatten. ``v2_floor`` and ``public_floor`` add that
departure, the second the real tables show: the curves approach an effective floor e_b above the registered chance,

    p_{m,b} = e_b + (1 − e_b)·σ(γ_b·(u_f(x) − l_b)),    e_b = c_b + max(0, median_b − c_b),

median_b the median score on b of the real table's dated models smaller than 0.5 B (:func:`effective_floors`; v2:
MMLU-Pro +0.016, BBH +0.016, MATH-hard +0.011; public: MMLU +0.010, BBH +0.013, MATH-hard +0.004, HumanEval 0).
The references are fitted with the registry's chance level as their floor, as the package fits them.

**The measurement** is real_configuration's (the candidate table, each reference fitted by
:func:`densing.trend.capability.row_fits` with 1,000 draws, a reference whose law does not fit left out and named,
the common targets, :func:`densing.trend.pooling.pooled_trend`, the state by
:func:`densing.trend.uncertainty.from_row_trend`), made twice on the same targets and the same draws (paired):

- **the new rule**, the package as it is: the identified region, the direction of a set's chance scores;
- **the 2-SE rule** (the floor rule without the region, docs/method.md "Floors as bounds"): no region (pooling's
  ``within_members`` given the whole line, so it changes nothing), no score left out of a joint inversion
  (``floor_plan`` all False), and a target with any benchmark at chance an upper bound at its value (``_floored`` =
  ``floor_scores(...).any(-1)``).

**Recorded per replicate**: each rule's pooled point slope, 95% interval and state; the new rule's region bounds and
its point without the region; the targets below every reference's smallest member; and, under the 2-SE rule, the
mean error of the exact point readings (inverted ln ρ − planted ln ρ, mean over the row's benchmarks) of the targets
whose planted effective size lies below the knee on every benchmark, and of the others. The summary adds the
*oracle*, real_configuration's: the censored 0.9 quantile line of the planted ln ρ over the row's targets, with no
inversion, what either rule would give if every density were read exactly.

Run (resumable; one JSON line per replicate in ``STORE/<variant>.jsonl``; :data:`ROWS` names the variants)::

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/floor_region.py --variant v2_floor --replicates R --store STORE
    PYTHONPATH=. python studies/floor_region.py --summary --store STORE > studies/floor_region.results.txt
"""

from __future__ import annotations

import json
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

from densing.constants import DAYS_PER_MONTH, DEFAULT_N_BOOT, LN2
from densing.data.benchmarks import CHANCE_LEVELS
from densing.errors import DensingError
from densing.laws import eligibility
from densing.laws.bounds import EXACT
from densing.present.words import STATE_WORDS
from densing.trend import capability, pooling
from densing.trend.floors import chance_levels, floor_scores
from densing.trend.targets import with_stderr
from densing.trend.uncertainty import from_row_trend
from studies import _planted, _power_world as W, real_configuration as RC
from studies.replicates import read_store, run_replicates, variant_parser

EPOCH = RC.EPOCH
#: x_k: the effective size (ln N̂) below which each family's curve has its own steepness (module docstring).
KNEE = math.log(0.5e9)
#: κ_f ~ Uniform(KAPPA_LOW, KAPPA_HIGH): a family's steepness below the knee over the canonical one.
KAPPA_LOW, KAPPA_HIGH = 0.3, 1.0
#: Models smaller than this (parameters) set a table's effective floors (:func:`effective_floors`).
SMALL_PARAMS = 0.5e9
#: The v2-native row's references as ``densing trend --table openllm_v2`` measures it (``results/openllm_v2/trend.json``).
V2_REFERENCES = ("Falcon3", "Qwen2", "Qwen2.5", "Qwen1.5", "Llama-2", "StableLM")


@dataclass(frozen=True)
class Row:
    """One real row's planted world: its configuration (:class:`studies.real_configuration.Spec`), its table's name in
    :func:`studies.real_configuration.table_frame` and planted months;
    ``gap`` and ``ratio`` as :func:`studies.real_configuration.densities` reads them (the frontier at gap 0, untilted);
    ``floor``: the curves approach the real table's effective floors e_b (:func:`effective_floors`), not c_b."""

    spec: RC.Spec
    table: str
    months: float = 4.0
    gap: str = "zero"
    ratio: float = 1.0
    floor: bool = False
    words: str = field(default="", compare=False)

    @property
    def slope(self) -> float:
        return LN2 / (self.months * DAYS_PER_MONTH)


_V2 = RC.Spec(
    RC.SPECS["openllm_v2"].path, RC.SPECS["openllm_v2"].columns, RC.SPECS["openllm_v2"].curves, V2_REFERENCES, "Qwen2.5"
)
_V2_WORDS = "the v2-native row: six references (Falcon3, Qwen2, Qwen2.5, Qwen1.5, Llama-2, StableLM), Qwen2.5 the late "
_PUBLIC_WORDS = "the public table's paper-like row: Qwen1.5 and Qwen2, Qwen2 the late "
ROWS = {
    "v2": Row(_V2, "openllm_v2", words=_V2_WORDS + "frontier at gap 0; the slow approach to chance"),
    "public": Row(RC.SPECS["public"], "public", words=_PUBLIC_WORDS + "frontier at gap 0; the slow approach to chance"),
    "v2_floor": Row(
        _V2,
        "openllm_v2",
        floor=True,
        words=_V2_WORDS + "frontier at gap 0; the slow approach to the real table's effective floors",
    ),
    "public_floor": Row(
        RC.SPECS["public"],
        "public",
        floor=True,
        words=_PUBLIC_WORDS + "frontier at gap 0; the slow approach to the real table's effective floors",
    ),
}


# ---------------------------------------------------------------------------------------------------------------
# the world


def log_size_of_u(u: np.ndarray) -> np.ndarray:
    """The inverse of u(x) = −(e^x / 10⁹)^−α: x = ln 10⁹ − ln(−u)/α (α = 0.34,
    :func:`studies._power_world.power_u`)."""
    return math.log(W.POWER_N_UNIT) - np.log(-np.asarray(u, float)) / W.POWER_ALPHA


def scored_log_size(x: np.ndarray, kappa: np.ndarray) -> np.ndarray:
    """The effective size x' whose canonical score is family f's true score at x: u(x') = u_f(x), u_f(x) = u(x_k) +
    κ_f·(u(x) − u(x_k)) below the knee x_k and u(x) above it (module docstring)."""
    x = np.asarray(x, float)
    u, knee = W.power_u(x), W.power_u(KNEE)
    departed = knee + np.asarray(kappa, float) * (u - knee)
    return np.where(x < KNEE, log_size_of_u(departed), x)


def family_kappas(frame: pd.DataFrame, r: int, seed: int) -> np.ndarray:
    """κ_f ~ Uniform(0.3, 1) of each row's family, drawn once per family (in order of first appearance) from
    ``SeedSequence([seed, r, 1])``."""
    codes, names = pd.factorize(frame["family"])
    rng = np.random.default_rng(np.random.SeedSequence([seed, r, 1]))
    return rng.uniform(KAPPA_LOW, KAPPA_HIGH, len(names))[codes]


@cache
def effective_floors(table: str, benchmarks: tuple[str, ...]) -> tuple[float, ...]:
    """e_b = c_b + max(0, median S_b − c_b) over the real table's dated models smaller than 0.5 B that have a score on
    b: the level the real table's tiny models score at (module docstring)."""
    spec = RC.SPECS[table]
    wide = pd.read_csv(spec.path)
    tiny = wide[(wide["params"] < SMALL_PARAMS) & wide["release_date"].notna()]
    found = []
    for name in benchmarks:
        chance = CHANCE_LEVELS[name]
        found.append(chance + max(0.0, float(np.nanmedian(tiny[spec.columns[name]])) - chance))
    return tuple(found)


def curve_with_floors(spec: RC.Spec, floors: dict):
    """S_b(x) = e_b + (1 − e_b)·σ(γ_b·(u(x) − l_b)), e_b from ``floors`` (benchmark → e_b)."""

    def curve(benchmark: str, x) -> np.ndarray:
        gamma, level = spec.curves[benchmark]
        low = floors[benchmark]
        return low + (1.0 - low) * expit(gamma * (W.power_u(x) - level))

    return curve


def tidy(row: Row, frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """The planted tidy table as :func:`studies.real_configuration.tidy` makes it, on the row's curves (with the
    effective floors where ``row.floor``)."""
    if not row.floor:
        return RC.tidy(row.spec, frame, rng)
    floors = dict(zip(row.spec.benchmarks, effective_floors(row.table, row.spec.benchmarks)))
    world = _planted.World(row.spec.benchmarks, {}, curve_with_floors(row.spec, floors), None, EPOCH, W.MEMBER_SD)
    rows = _planted.target_rows(world, frame, rng)
    rows["active_params"] = rows["model"].map(dict(zip(frame["model"], frame["active_params"])))
    rows["stderr"] = np.nan
    return with_stderr(rows)


def replicate_table(row: Row, r: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Replicate r's tidy table (binomial scores of the departed curves) and its frame of planted ln ρ (the truth):
    real_configuration's densities, each target's score taken at its family's x' (:func:`scored_log_size`)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, r]))
    frame = RC.densities(RC.table_frame(row.table), row, rng)
    kappa = family_kappas(frame, r, seed)
    log_n = np.log(frame["params"].to_numpy(float))
    scored = frame.copy()
    for name in row.spec.benchmarks:
        x = log_n + frame[f"log_rho:{name}"].to_numpy(float)
        scored[f"log_rho:{name}"] = scored_log_size(x, kappa) - log_n
    return tidy(row, scored, rng), frame


# ---------------------------------------------------------------------------------------------------------------
# the 2-SE rule


def _whole_line(y, kind, log_params, region):
    """``within_members`` with the region the whole line: no density becomes a bound (the 2-SE rule has no region)."""
    return _WITHIN_MEMBERS(y, kind, log_params, (-np.inf, np.inf))


def _any_benchmark(scores, sigma, benchmarks, data) -> np.ndarray:
    """The 2-SE rule's floor: a target with any benchmark at chance (S_b ≤ c_b + 2σ_b) is an upper bound at its
    value."""
    return floor_scores(scores, sigma, chance_levels(benchmarks)).any(axis=-1)


def _none_left_out(scores, sigma, chance, joint) -> np.ndarray:
    """The 2-SE rule's joint inversion: every score stays in it (no score leaves for being at chance)."""
    return np.zeros(np.shape(scores), bool)


_WITHIN_MEMBERS = pooling.within_members


@contextmanager
def two_se_rule():
    """:mod:`densing.trend.pooling` under the rule the identified region replaces (module docstring), restored after."""
    kept = (pooling.within_members, pooling._floored, pooling.floor_plan)
    pooling.within_members, pooling._floored, pooling.floor_plan = _whole_line, _any_benchmark, _none_left_out
    try:
        yield
    finally:
        pooling.within_members, pooling._floored, pooling.floor_plan = kept


# ---------------------------------------------------------------------------------------------------------------
# one replicate


def reading_errors(trend, common, frame: pd.DataFrame, benchmarks) -> tuple[float, float, int]:
    """(mean error of the exact point readings, inverted ln ρ − planted ln ρ (mean over ``benchmarks``), of the
    targets whose planted effective size lies below the knee on every benchmark; the same of the others; the count of
    the former)."""
    chosen = frame.set_index("model").loc[list(common.frame["model"].astype(str))]
    log_rho = chosen[[f"log_rho:{b}" for b in benchmarks]].to_numpy(float)
    below = np.all(np.log(chosen["params"].to_numpy(float))[:, None] + log_rho < KNEE, axis=1)
    error = np.where(trend.kind0 == EXACT, trend.y0 - log_rho.mean(axis=1), np.nan)
    tiny = error[:, below]
    rest = error[:, ~below]
    mean_tiny = float(np.nanmean(tiny)) if np.isfinite(tiny).any() else math.nan
    mean_rest = float(np.nanmean(rest)) if np.isfinite(rest).any() else math.nan
    return mean_tiny, mean_rest, int(below.sum())


def _fitted(table, candidates, found: dict, r: int) -> tuple[dict, dict, list[str]]:
    """The references' fits (1,000 draws each), a reference whose planted law does not fit left out and named."""
    fits: dict = {}
    dropped = []
    for family in list(found):
        try:
            capability.row_fits(table, candidates, fits, {family: found[family]}, seed=r)
        except DensingError:
            dropped.append(family)
            found = {f: b for f, b in found.items() if f != family}
    return fits, found, dropped


def _row_record(prefix: str, trend) -> dict:
    state = STATE_WORDS[from_row_trend(trend, epoch=EPOCH, judged=True).state]
    return {
        f"{prefix}point": trend.slope_per_day,
        f"{prefix}low": trend.slope_ci_low,
        f"{prefix}high": trend.slope_ci_high,
        f"{prefix}state": state,
    }


def run_replicate(r: int, name: str, seed: int, n_boot: int) -> dict:
    row = ROWS[name]
    benchmarks = row.spec.benchmarks
    table, frame = replicate_table(row, r, seed)
    record: dict = {"replicate": r, "latent": row.slope}
    try:
        candidates = eligibility.candidate_table(table, benchmarks=benchmarks)
    except DensingError as exc:
        return {**record, "error": f"candidate table: {exc}"}
    fits, found, dropped = _fitted(table, candidates, {f: benchmarks for f in row.spec.references}, r)
    if not found:
        return {**record, "error": "no reference fits"}
    try:
        common = capability.row_targets(table, candidates, fits, found, since=EPOCH, epoch=EPOCH)
        new = pooling.pooled_trend(common, n_boot=n_boot, n_boot_share=0, seed=r)
        with two_se_rule():
            two_se = pooling.pooled_trend(common, n_boot=n_boot, n_boot_share=0, seed=r)
    except (DensingError, ValueError, FloatingPointError) as exc:
        return {**record, "error": f"{type(exc).__name__}: {exc}"}
    smallest = min(float(np.min(table.loc[table["family"] == f, "params"])) for f in found)
    tiny_error, rest_error, below_knee = reading_errors(two_se, common, frame, benchmarks)
    record.update(
        {
            **_row_record("", new),
            **_row_record("two_se_", two_se),
            "dropped": dropped,
            "references": list(found),
            "n_targets": len(common.frame),
            "region_bounds": int(sum(new.region_bounds)),
            "without_region": new.slope_without_region,
            "below_every_reference": int((common.frame["params"].to_numpy(float) < smallest).sum()),
            "below_knee": below_knee,
            "two_se_error_below_knee": tiny_error,
            "two_se_error_others": rest_error,
        }
    )
    return record


def row_models(row: Row) -> pd.Series:
    """The row's targets: the table's models dated on or after the epoch with a score on every benchmark of the row
    (the common targets of every replicate: every planted score is there where the real one is)."""
    frame = RC.table_frame(row.table)
    scored = frame[[f"present:{b}" for b in row.spec.benchmarks]].all(axis=1)
    return frame.loc[(frame["t"] >= 0) & scored, "model"]


def oracle_of(record: dict, row: Row, seed: int) -> float:
    """The record's oracle slope (:func:`studies.real_configuration.oracle_slope`: the censored 0.9 quantile line of
    the planted ln ρ over the row's targets, no inversion), from replicate r's planted densities drawn again (the
    same stream as :func:`replicate_table`'s)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, record["replicate"]]))
    frame = RC.densities(RC.table_frame(row.table), row, rng)
    return RC.oracle_slope(frame, row_models(row), row.spec.benchmarks)


# ---------------------------------------------------------------------------------------------------------------
# the summary


def _share(hits) -> str:
    p, se = _planted.coverage(list(hits))
    return f"{p:.3f} ± {se:.3f}"


def _mean_error(values: list[float]) -> str:
    """The mean of the replicates' finite values ± its standard error, or why there is none."""
    found = np.array(values, float)
    found = found[np.isfinite(found)]
    if found.size < 2:
        return "no exact reading"
    return f"{np.mean(found):+.2f} ± {np.std(found, ddof=1) / math.sqrt(found.size):.2f} ({found.size} replicates)"


def _rule_lines(label: str, prefix: str, good: list[dict], latent: float) -> tuple[list[str], bool]:
    """One rule's coverage, bias and states, and whether it meets the done-when (coverage ≥ 0.90, |median and mean
    bias| ≤ 5%)."""
    hits = [x[f"{prefix}low"] <= latent <= x[f"{prefix}high"] for x in good]
    point = np.array([x[f"{prefix}point"] for x in good])
    rel = 100 * (point - latent) / latent
    states = [x[f"{prefix}state"] for x in good]
    lines = [
        f"  {label}: coverage of the planted slope {_share(hits)}; point {RC._bias(point, latent)}; median "
        f"doubling time {_planted.months(float(np.median(point)))} months; states: "
        + ", ".join(f"{w} {_share([s == w for s in states])}" for w in ("measured", "bounded", "not measured"))
    ]
    met = bool(np.mean(hits) >= 0.90 and abs(np.median(rel)) <= 5 and abs(np.mean(rel)) <= 5)
    return lines, met


def _bias_record(table: str) -> dict | None:
    """The headline-bias record's row of ``table`` (results/headline_bias.json), or None where it has none."""
    from densing.trend.bias import RECORD

    rows = json.loads(RECORD.read_text(encoding="utf-8"))["rows"]
    return next((r for r in rows if r["table"] == table), None)


def corrected_lines(row: Row, good: list[dict], latent: float) -> list[str]:
    """The package's point divided as the row's printed correction divides it, Ã = Â/(1 + b) (densing.trend.bias), b
    the headline-bias study's for this row's table: its world with the late frontier's place fixed at the top (as this
    world plants it) and, where recorded, its world with that place drawn. The Monte Carlo error adds b's own s_b in
    quadrature to the replicates'. A row the bias study leaves uncorrected (|b| ≤ 5%) prints why."""
    record = _bias_record(row.table)
    if record is None:
        return [f"  the row's printed correction: none (the headline-bias study has no row of {row.table})"]
    if not record["corrected"]:
        return [
            f"  the row's printed correction: none (the headline-bias study's b = {100 * record['bias']:+.1f}% ± "
            f"{100 * record['bias_se']:.1f}, within 5%)"
        ]
    point = np.array([x["point"] for x in good])
    out = []
    for world, key in (("the frontier's place fixed", "bias"), ("the frontier's place drawn", "bias_drawn")):
        if record.get(key) is None:
            continue
        b, b_se = record[key], record[f"{key}_se"]
        rel = 100 * ((point / (1 + b)) - latent) / latent
        spread = (1 + rel / 100) * 100 * b_se / (1 + b)  # the move of Ã/A − 1 from b's own error
        median_se = math.hypot(RC._median_se(rel), float(np.median(spread)))
        mean_se = math.hypot(np.std(rel, ddof=1) / math.sqrt(rel.size), float(np.mean(spread)))
        met = abs(np.median(rel)) <= 5 and abs(np.mean(rel)) <= 5
        out.append(
            f"  the new rule's point with the row's printed correction (÷ (1 + b), b = {100 * b:+.1f}% ± "
            f"{100 * b_se:.1f} from the headline-bias world with {world}): median {np.median(rel):+.1f}% ± "
            f"{median_se:.1f}, mean {np.mean(rel):+.1f}% ± {mean_se:.1f}; |median and mean bias| ≤ 5%: "
            f"{'yes' if met else 'no'}"
        )
    return out


def summary(name: str, records: list[dict], seed: int = 0) -> list[str]:
    row = ROWS[name]
    good = [x for x in records if "error" not in x]
    bad = [x for x in records if "error" in x]
    out = [
        f"## {name}: {row.words} (planted {row.months:g} months; {len(records)} replicates, {len(bad)} without a "
        "row" + (": " + "; ".join(sorted({x["error"][:80] for x in bad})) if bad else "") + ")"
    ]
    if not good:
        return out
    latent = row.slope
    dropped = pd.Series([f for x in good for f in x["dropped"]]).value_counts()
    out.append(
        f"  targets per row {np.mean([x['n_targets'] for x in good]):.1f}; below every reference's smallest "
        f"member {np.mean([x['below_every_reference'] for x in good]):.1f}; planted effective size below the "
        f"knee on every benchmark {np.mean([x['below_knee'] for x in good]):.1f}; references left out (their "
        "planted law does not fit), share of replicates: "
        + (", ".join(f"{f} {n / len(good):.2f}" for f, n in dropped.items()) if len(dropped) else "none")
    )
    tiny = _mean_error([x["two_se_error_below_knee"] for x in good])
    rest = _mean_error([x["two_se_error_others"] for x in good])
    out.append(
        f"  the 2-SE rule, exact point readings' error (inverted − planted ln ρ), mean over replicates: below "
        f"the knee {tiny}, the others {rest}"
    )
    new_lines, new_met = _rule_lines("the new rule (the package)", "", good, latent)
    two_se_lines, two_se_met = _rule_lines(
        "the 2-SE rule (no region, any benchmark at chance an upper bound)", "two_se_", good, latent
    )
    out += new_lines + two_se_lines
    out.append(
        f"  the oracle (the planted ln ρ's own frontier line over the row's targets, no inversion): "
        f"{RC._bias(np.array([oracle_of(x, row, seed) for x in good]), latent)}"
    )
    out.append(
        f"  the new rule's region bounds per row (target inversions over the references) "
        f"{np.mean([x['region_bounds'] for x in good]):.1f}; its point without the region "
        f"{RC._bias(np.array([x['without_region'] for x in good]), latent)}"
    )
    change = np.array([100 * (x["point"] - x["two_se_point"]) / latent for x in good])
    out.append(
        f"  paired, the new rule's point − the 2-SE rule's, in % of A: median {np.median(change):+.1f}% ± "
        f"{RC._median_se(change):.1f}, mean {np.mean(change):+.1f}% ± "
        f"{np.std(change, ddof=1) / math.sqrt(change.size):.1f}"
    )
    out.extend(corrected_lines(row, good, latent))
    out.append(
        f"  done-when (coverage ≥ 0.90, |median and mean bias| ≤ 5%): the new rule "
        f"{'meets it' if new_met else 'does not meet it'}; the 2-SE rule {'meets it' if two_se_met else 'does not'}"
    )
    return out


def report(store: Path, seed: int = 0) -> list[str]:
    out = [
        "# PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/floor_region.py --variant NAME --replicates R "
        "--store STORE   (each variant below, R as printed; 600 draws a row, the CLI's)",
        "# PYTHONPATH=. python studies/floor_region.py --summary --store STORE > studies/floor_region.results.txt",
        f"The world's departure: below an effective size of 0.5 B each family's curve has its own steepness "
        f"κ_f·γ_b in u, κ_f ~ Uniform({KAPPA_LOW:g}, {KAPPA_HIGH:g}); the *_floor variants' curves approach the "
        "real table's effective floors e_b (the median score of its dated models under 0.5 B) in place of chance. "
        "Monte Carlo standard errors: √(p(1 − p)/R) "
        "for shares; the median's by resampling the replicates; bias in % of the planted slope A (positive: too "
        "steep). Both rules on the same replicates and draws.",
    ]
    for name in ROWS:
        records = read_store(store / f"{name}.jsonl")
        if records:
            out.extend(summary(name, records, seed))
    return out


def main() -> None:
    parser = variant_parser(__doc__.splitlines()[0], ROWS, 40, DEFAULT_N_BOOT)
    parser.add_argument("--minutes", type=float, default=None, help="start no replicate after this many minutes")
    args = parser.parse_args()
    store = Path(args.store)
    if args.summary:
        print("\n".join(report(store, args.seed)))
        return
    if args.variant is None:
        parser.error("--variant or --summary")
    store.mkdir(parents=True, exist_ok=True)
    config = f"floor_region {args.variant} seed={args.seed} n_boot={args.n_boot}"
    seconds = None if args.minutes is None else 60 * args.minutes
    done, fresh, elapsed = run_replicates(
        args.replicates,
        lambda r: run_replicate(r, args.variant, args.seed, args.n_boot),
        config,
        str(store / f"{args.variant}.jsonl"),
        seconds=seconds,
    )
    print(f"{fresh} replicates run in {elapsed:.0f} s, {len(done) - fresh} read from the store")
    print("\n".join(summary(args.variant, done, args.seed)))


if __name__ == "__main__":
    main()
