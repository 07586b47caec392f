"""The point's bias of each headline row in planted worlds built from that row itself, and the bias-corrected figure
where it exceeds 5% of the slope; prints a table, asserts nothing; ``--write`` stores ``results/headline_bias.json``.

**The rows** (:data:`WORLDS`): the headline set of each table ``densing trend --table NAME`` measures — ``public``
(the paper-like set, ``densing trend``), ``openllm_v2`` (the v2-native set) and ``swallow`` (the paper-like set).

**The real row**, computed on the package as it stands at each run: the set rule's references on the real table
(:func:`densing.trend.selection.set_references`) and the row as the CLI computes it
(:func:`densing.trend.capability.trend_row`, seed 0, 600 draws: the numbers ``densing trend --table NAME`` prints);
its point slope Â; its *frontier family*, the family whose leaving out moves the point most (the CLI's "largest
move of any family": Qwen2, Qwen2.5 and Qwen3 on the shipped tables).

**The planted world.** The real table's tidy rows on the row's benchmarks (:func:`densing.data.read_results`), its
dated models (the undated ones are no target and no member of these rows' references), every column as the real
table has it (so a column a later estimator reads travels) but the score. Model m of family f, released t_m days
after t_ref, has on benchmark b

    ln ρ_{m,b} = Â·(t_m − t_ref) + B − g_f + δ_{f,b} + ε_{m,b},

B = 0.5, g_f ~ Exponential(mean 1) with **g = 0 for the frontier family** (its members at the top, as in the data),
δ_{f,b} ~ N(0, 0.3²), ε_{m,b} ~ N(0, 0.15²) (:mod:`studies._power_world`'s constants), the planted slope the real
row's own point Â (a parametric bootstrap: Efron & Tibshirani 1993, §10.2). Its score is Binomial(n_b, S_b(ln N_m
+ ln ρ_{m,b}))/n_b at the registry's item count n_b, its standard error from the same count; S_b the power world's
canonical curve (a sigmoid of u = −(N̂/10⁹)^−0.34 above the chance level) with (γ_b, l_b) rounded from the
calibration family's power fits on the row's own table (:data:`WORLDS`): Qwen1.5, t_ref its release 2024-02-05, on
the public and v2 tables (``studies/real_configuration.py``'s curves), Qwen2.5, t_ref 2024-09-19, on the Swallow
table.

**The measurement** is the package's row estimator as the CLI runs it: the reference rule's candidate table on the
planted table over the row's benchmarks, :func:`densing.trend.capability.trend_row` with the real row's references
held fixed (``found``), seed r, 600 draws (more where an end asks, up to the cap, as on the CLI). A real reference
whose planted law the fit refuses is left out and named, as the set rule would leave it; one whose fit stops on a
covariance that is not positive definite (numpy's LinAlgError from the fit's draws, not yet a FitError of the
package's) is left out too and named with it.

**Recorded per replicate**: the point slope, its 95% interval, the state, the references used and left out, and
the *oracle*: the censored 0.9 quantile line of the planted ln ρ itself (mean over the row's benchmarks) over the
row's targets (what the estimator would give with no inversion). Replicate r draws from
``numpy.random.SeedSequence([seed, r])``.

**The summary** per row: the relative bias (â_r − A)/A, its mean b with Monte Carlo error sd/√R and its median
with the error of resampled replicates; the 95% interval's coverage of A, ± √(p(1 − p)/R); the oracle's bias; the
states. Where |b| > 5% (:data:`densing.trend.bias.THRESHOLD`): the real row's corrected point and interval
(:func:`densing.trend.bias.corrected_slopes`) and that interval's coverage of A on the replicates, each corrected
by the bias of the others (leave one out).

**A sensitivity** (``--gap drawn``, its own store ``STORE/<row>_drawn.jsonl``, the same draws replicate by
replicate): the frontier family's gap drawn like every other family's, the world in which its place at the top is
chance. The record is the study's world's (gap 0) alone.

Run (resumable: one JSON line per replicate in ``STORE/<row>.jsonl``; ``--minutes`` starts no replicate after that
time, and a rerun goes on)::

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/headline_bias.py --row public --replicates 3000 --minutes 14 --store STORE
    (the same for --row openllm_v2 and --row swallow; --gap drawn for the sensitivity)
    PYTHONPATH=. python studies/headline_bias.py --summary --store STORE --write > studies/headline_bias.results.txt
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

from densing import registry
from densing.constants import DEFAULT_EPOCH, DEFAULT_N_BOOT
from densing.data import read_results
from densing.data.benchmarks import CHANCE_LEVELS
from densing.errors import DensingError
from densing.laws import eligibility
from densing.laws.bounds import EXACT
from densing.numbers import format_months, json_value
from densing.present.shown import row_error
from densing.trend import bias as bias_record, capability, selection
from densing.trend.rules import doubling_months
from densing.trend.targets import with_stderr
from studies import _planted, _power_world as W
from studies.replicates import read_store, run_replicates

EPOCH = DEFAULT_EPOCH
LEVEL = 0.95
ROW_COMMAND = (
    "PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/headline_bias.py --row {row} --replicates {count} "
    "--minutes 14 --store STORE"
)
SUMMARY_COMMAND = (
    "PYTHONPATH=. python studies/headline_bias.py --summary --store STORE --write > studies/headline_bias.results.txt"
)


@dataclass(frozen=True)
class World:
    """A row's planted world: its table, the calibration family, t_ref (its release) and the canonical curves
    (benchmark → (γ_b, l_b), rounded from that family's power fits on the table)."""

    table: str
    calibration: str
    t_ref: str
    curves: dict


WORLDS = {
    "public": World(
        "public",
        "Qwen1.5",
        W.T_REF,
        {name: (W.BENCHMARKS[name].gamma, W.BENCHMARKS[name].level) for name in W.HEADLINE_SET},
    ),
    "openllm_v2": World(
        "openllm_v2",
        "Qwen1.5",
        W.T_REF,
        {"mmlu_pro": (3.5, -0.16), "leaderboard_bbh": (3.8, -0.19), "math_hard": (5.0, -0.11)},
    ),
    "swallow": World(
        "swallow",
        "Qwen2.5",
        "2024-09-19",
        {
            "swallow_mmlu": (2.2, -0.83),
            "swallow_bbh": (2.0, -0.70),
            "swallow_math": (2.1, -0.50),
            "swallow_humaneval": (1.2, -0.46),
        },
    ),
}


# ---------------------------------------------------------------------------------------------------------------
# the real row


@dataclass(frozen=True)
class Real:
    """The real row: its set (``spec``: name, label, benchmarks), references (family → benchmarks), frontier family,
    point and interval."""

    table: str
    spec: capability.RowSpec
    found: dict
    frontier: str
    slope: float
    low: float
    high: float
    frame: pd.DataFrame  # the real tidy rows on the row's benchmarks, dated models


def _trend_row(spec: capability.RowSpec, table: pd.DataFrame, seed: int, n_boot: int, found=None):
    candidates = eligibility.candidate_table(table, benchmarks=spec.benchmarks)
    fits: dict = {}
    if found is not None:  # a real reference whose planted law the fit refuses is left out (and named)
        dropped = []
        for family in list(found):
            try:
                capability.row_fits(table, candidates, fits, {family: found[family]}, seed=seed)
            except DensingError:
                dropped.append(family)
            except np.linalg.LinAlgError:  # the fit's covariance not positive definite: a refusal the package
                dropped.append(f"{family} (LinAlgError)")  # does not yet raise as a FitError; named apart
        found = {f: b for f, b in found.items() if f not in dropped and f"{f} (LinAlgError)" not in dropped}
        if not found:
            return None, dropped
    else:
        dropped = []
    result = capability.trend_row(
        spec,
        table,
        candidates,
        fits,
        since=EPOCH,
        epoch=EPOCH,
        n_boot=n_boot,
        n_boot_share=0,
        seed=seed,
        found=found,
    )
    return result, dropped


@cache
def real_row(table: str, n_boot: int = DEFAULT_N_BOOT) -> Real:
    profile = registry.table(table)
    label, benchmarks = profile.sets[profile.headline_set]
    spec = capability.RowSpec.of_set(profile.headline_set, label, tuple(benchmarks))
    tidy = with_stderr(read_results(profile.path))
    found = selection.set_references(eligibility.candidate_table(tidy, benchmarks=spec.benchmarks), spec.benchmarks)
    measured, _ = _trend_row(spec, tidy, 0, n_boot)
    result = measured.result
    frame = tidy[tidy["benchmark"].isin(spec.benchmarks) & tidy["release_date"].notna()].reset_index(drop=True)
    return Real(
        table,
        spec,
        dict(found),
        result.largest_influence().family,
        result.slope_per_day,
        result.slope_ci_low,
        result.slope_ci_high,
        frame,
    )


# ---------------------------------------------------------------------------------------------------------------
# the planted world and one replicate


def planted_table(
    real: Real, world: World, rng: np.random.Generator, gap: str = "zero"
) -> tuple[pd.DataFrame, pd.Series]:
    """(the planted tidy table, each model's planted ln ρ averaged over the row's benchmarks): gaps, then each
    benchmark's skills and member departures, then the scores, in that order; the frontier family's gap 0 (``gap``
    ``"zero"``) or drawn like every other family's (``"drawn"``)."""
    frame = real.frame
    models = frame.drop_duplicates("model").set_index("model")
    families = models["family"].astype(str)
    names = pd.Index(sorted(families.unique()))
    gaps = pd.Series(rng.exponential(W.GAP_MEAN, len(names)), index=names)
    if gap == "zero":
        gaps[real.frontier] = 0.0
    days = (pd.to_datetime(models["release_date"]) - pd.Timestamp(world.t_ref)).dt.days.to_numpy(float)
    base = real.slope * days + W.FRONTIER - gaps[families].to_numpy()
    log_rho = {}
    for b in real.spec.benchmarks:
        skill = pd.Series(W.SKILL_SD * rng.standard_normal(len(names)), index=names)
        log_rho[b] = pd.Series(
            base + skill[families].to_numpy() + W.MEMBER_SD * rng.standard_normal(len(models)), index=models.index
        )
    out = frame.copy()
    values = np.empty(len(out))
    for b in real.spec.benchmarks:
        at = (out["benchmark"] == b).to_numpy()
        sub = out[at]
        x = np.log(sub["params"].to_numpy(float)) + log_rho[b].loc[sub["model"]].to_numpy()
        gamma, level = world.curves[b]
        chance = CHANCE_LEVELS[b]
        p = chance + (1.0 - chance) * expit(gamma * (W.power_u(x) - level))
        values[at] = _planted.score(rng, b, p)
    out["value"] = values
    out["stderr"] = np.nan
    return with_stderr(out), pd.DataFrame(log_rho).mean(axis=1)


def oracle_slope(truth: pd.Series, real: Real, models) -> float:
    """The censored 0.9 quantile line's slope (per day) of the planted mean ln ρ of the row's targets ``models``."""
    names = list(models)
    dates = real.frame.drop_duplicates("model").set_index("model").loc[names, "release_date"]
    t = (pd.to_datetime(dates) - pd.Timestamp(EPOCH)).dt.days.to_numpy(float)
    y = truth.loc[names].to_numpy(float)
    return _planted.frontier_line("quantile", t, y, np.full(len(y), EXACT), np.asarray(names, str))[0]


def run_replicate(r: int, table: str, seed: int, n_boot: int, gap: str = "zero") -> dict:
    real, world = real_row(table), WORLDS[table]
    rng = np.random.default_rng(np.random.SeedSequence([seed, r]))
    planted, truth = planted_table(real, world, rng, gap)
    record: dict = {"replicate": r, "latent": real.slope}
    try:
        row, dropped = _trend_row(real.spec, planted, r, n_boot, found=real.found)
    except DensingError as exc:
        record["error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
        return record
    record["dropped"] = dropped
    if row is None or row.result is None:
        record["error"] = "no reference fits" if row is None else f"no trend: {row_error(row)[:200]}"
        return record
    result = row.result
    record.update(
        {
            "point": result.slope_per_day,
            "low": result.slope_ci_low,
            "high": result.slope_ci_high,
            "state": result.state.name,
            "n_models": result.n_models,
            "references": [name.family for name in row.references],
            "oracle": oracle_slope(truth, real, result.models),
        }
    )
    return record


def config_of(table: str, seed: int, n_boot: int, gap: str = "zero") -> str:
    """What a stored replicate must match to be reused: the world, the real row's references, frontier and point."""
    real, world = real_row(table), WORLDS[table]
    return (
        f"{world!r} references={sorted((f, tuple(b)) for f, b in real.found.items())} frontier={real.frontier} "
        f"slope={real.slope:.12g} seed={seed} n_boot={n_boot}" + ("" if gap == "zero" else f" gap={gap}")
    )


def store_of(store: Path, table: str, gap: str = "zero") -> Path:
    """A row's store: ``STORE/<table>.jsonl``, ``STORE/<table>_drawn.jsonl`` for the frontier family's gap drawn."""
    return store / (f"{table}.jsonl" if gap == "zero" else f"{table}_{gap}.jsonl")


# ---------------------------------------------------------------------------------------------------------------
# the summary


def _median_se(values: np.ndarray, seed: int = 0, count: int = 2000) -> float:
    """The standard error of the median of ``values`` over replicates, by resampling the replicates (seeded)."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(values.size, size=(count, values.size))
    return float(np.std(np.median(values[picks], axis=1), ddof=1))


def _pct(value: float, se: float) -> str:
    return f"{100 * value:+.1f}% ± {100 * se:.1f}"


def measured(records: list[dict], latent: float) -> dict:
    """The bias, coverage and corrected coverage of a row's replicates (module docstring)."""
    good = [x for x in records if "error" not in x]
    rel = np.array([(x["point"] - latent) / latent for x in good])
    count = rel.size
    out = {"replicates": count, "failed": len(records) - count}
    if count < 2:
        return out
    out.update(
        bias=float(rel.mean()),
        bias_se=float(rel.std(ddof=1) / math.sqrt(count)),
        median_bias=float(np.median(rel)),
        median_bias_se=_median_se(rel),
    )
    hits = [x["low"] <= latent <= x["high"] for x in good]
    out["coverage"], out["coverage_se"] = _planted.coverage(hits)
    oracle = np.array([(x["oracle"] - latent) / latent for x in good])
    out["oracle"] = (float(oracle.mean()), float(oracle.std(ddof=1) / math.sqrt(count)))
    others = (rel.sum() - rel) / (count - 1)  # each replicate's leave-one-out bias and its Monte Carlo error
    spread = (
        np.sqrt(((rel**2).sum() - rel**2 - (count - 1) * others**2) / (count - 2) / (count - 1))
        if count > 2
        else np.full(count, out["bias_se"])
    )
    fixed = [
        bias_record.corrected_slopes(x["point"], x["low"], x["high"], b, s, LEVEL)
        for x, b, s in zip(good, others, spread)
    ]
    out["corrected_coverage"], out["corrected_coverage_se"] = _planted.coverage(
        [lo <= latent <= hi for _, lo, hi in fixed]
    )
    out["states"] = pd.Series([x["state"] for x in good]).value_counts().to_dict()
    dropped = pd.Series([f for x in good for f in x.get("dropped", [])], dtype=object).value_counts()
    out["dropped"] = {f: n / count for f, n in dropped.items()}
    return out


def row_record(real: Real, found: dict, count_run: int) -> dict:
    """The record's row (:class:`densing.trend.bias.BiasRow`'s fields)."""
    months = doubling_months(real.slope)
    base = {
        "table": real.table,
        "row": real.spec.name,
        "label": real.spec.label,
        "frontier": real.frontier,
        "references": sorted(real.found),
        "planted_months": months,
        "point_months": months,
        "replicates": found["replicates"],
        "failed": found["failed"],
        "bias": found["bias"],
        "bias_se": found["bias_se"],
        "median_bias": found["median_bias"],
        "median_bias_se": found["median_bias_se"],
        "coverage": found["coverage"],
        "coverage_se": found["coverage_se"],
    }
    fixed = bias_record.row_from(
        real.slope, real.low, real.high, bias=found["bias"], bias_se=found["bias_se"], level=LEVEL
    )
    shown = fixed["corrected"]
    return {
        **base,
        **fixed,
        "corrected_coverage": found["corrected_coverage"] if shown else math.nan,
        "corrected_coverage_se": found["corrected_coverage_se"] if shown else math.nan,
    }


def score_quantiles(real: Real, seed: int) -> str:
    """Each benchmark's score quantiles 0.1, 0.5, 0.9 on the real table and on replicate 0's planted table: how near
    the planted world's scores lie to the real ones."""
    planted, _ = planted_table(real, WORLDS[real.table], np.random.default_rng(np.random.SeedSequence([seed, 0])))
    said = []
    for b in real.spec.benchmarks:
        one, two = (
            frame.loc[frame["benchmark"] == b, "value"].quantile([0.1, 0.5, 0.9]) for frame in (real.frame, planted)
        )
        said.append(f"{b} {'/'.join(f'{v:.2f}' for v in one)} vs {'/'.join(f'{v:.2f}' for v in two)}")
    return "; ".join(said)


def summary(store: Path, seed: int, n_boot: int) -> tuple[list[str], list[dict]]:
    out = [
        "# " + ROW_COMMAND.format(row="NAME", count="R") + "   (each row below, R as printed)",
        "# " + SUMMARY_COMMAND,
        "Bias: (point − A)/A over the replicates, A the planted slope (the real row's own point); positive: too "
        "steep, a doubling time too short. Monte Carlo standard errors: sd/√R for the mean, resampled replicates "
        "for the median, √(p(1 − p)/R) for a share. A row whose |mean bias| exceeds "
        f"{100 * bias_record.THRESHOLD:g}% shows the corrected figure (densing.trend.bias).",
    ]
    rows = []
    for table in WORLDS:
        real = real_row(table)
        records = read_store(store_of(store, table), config_of(table, seed, n_boot))
        months = doubling_months(real.slope)
        out.append(
            f"## {table}: {real.spec.label}, references {', '.join(real.found)}, frontier family {real.frontier} "
            f"at the top (gap 0); the real row {format_months(months)} months [{format_months(doubling_months(real.high))}–"
            f"{format_months(doubling_months(real.low))}], planted at the same slope"
        )
        out.append(
            "  scores, real vs planted (replicate 0's draw), quantiles 0.1 / 0.5 / 0.9: " + score_quantiles(real, seed)
        )
        if not records:
            out.append("  no replicate in the store")
            continue
        found = measured(records, real.slope)
        errors = sorted({x["error"][:100] for x in records if "error" in x})
        out.append(
            f"  {found['replicates']} replicates with a row, {found['failed']} without"
            + (": " + "; ".join(errors) if errors else "")
        )
        if found["replicates"] < 2:
            continue
        out.append(
            f"  point slope's bias: mean {_pct(found['bias'], found['bias_se'])}, median "
            f"{_pct(found['median_bias'], found['median_bias_se'])}"
        )
        out.append(f"  oracle (the planted ln ρ, no inversion): mean {_pct(*found['oracle'])}")
        out.append(
            f"  coverage of the planted slope by the 95% interval: {found['coverage']:.3f} ± {found['coverage_se']:.3f}"
        )
        out.append(
            "  states: "
            + ", ".join(
                f"{k.lower().replace('_', ' ')} {v / found['replicates']:.3f}" for k, v in found["states"].items()
            )
        )
        out.append(
            "  real references left out because their planted law does not fit (share of replicates): "
            + (", ".join(f"{f} {v:.3f}" for f, v in found["dropped"].items()) or "none")
        )
        record = row_record(real, found, len(records))
        out.append(
            f"  corrected interval (each replicate by the others' bias) covers the planted slope: "
            f"{found['corrected_coverage']:.3f} ± {found['corrected_coverage_se']:.3f}"
        )
        if record["corrected"]:
            out.append(
                f"  |bias| > {100 * bias_record.THRESHOLD:g}%: corrected {format_months(months)} → "
                f"{format_months(record['corrected_months'])} months "
                f"[{format_months(record['corrected_months_low'])}–{format_months(record['corrected_months_high'])}]"
            )
        else:
            out.append(f"  |bias| ≤ {100 * bias_record.THRESHOLD:g}%: no correction")
        drawn = read_store(store_of(store, table, "drawn"), config_of(table, seed, n_boot, "drawn"))
        if len(drawn) > 2:
            other = measured(drawn, real.slope)
            months_drawn = bias_record.corrected_months(
                real.slope, real.low, real.high, bias=other["bias"], bias_se=other["bias_se"], level=LEVEL
            )
            record.update(
                bias_drawn=other["bias"],
                bias_drawn_se=other["bias_se"],
                replicates_drawn=other["replicates"],
                corrected_months_drawn=months_drawn[0],
                corrected_months_drawn_low=months_drawn[1],
                corrected_months_drawn_high=months_drawn[2],
            )
            out.append(
                f"  sensitivity, the frontier family's gap drawn like every other family's ({other['replicates']} "
                f"replicates): mean bias {_pct(other['bias'], other['bias_se'])}, median "
                f"{_pct(other['median_bias'], other['median_bias_se'])}, coverage {other['coverage']:.3f} ± "
                f"{other['coverage_se']:.3f}; corrected by it {format_months(months_drawn[0])} months "
                f"[{format_months(months_drawn[1])}–{format_months(months_drawn[2])}]"
            )
        commands = [ROW_COMMAND.format(row=table, count=len(records))]
        if len(drawn) > 2:  # the sensitivity world's own run
            commands.append(ROW_COMMAND.format(row=table, count=len(drawn)) + " --gap drawn")
        rows.append({**record, "commands": commands})
    return out, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row", choices=tuple(WORLDS), help="the table whose headline row to run")
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--minutes", type=float, default=None, help="start no replicate after this many minutes")
    parser.add_argument("--n-boot", type=int, default=DEFAULT_N_BOOT, help="draws of the row (the CLI's: 600)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--gap",
        choices=("zero", "drawn"),
        default="zero",
        help="the frontier family's gap: 0 (the study's world) or drawn (a sensitivity)",
    )
    parser.add_argument("--store", required=True, help="a folder: one JSON-lines store per row (resumable)")
    parser.add_argument("--summary", action="store_true", help="print every row's summary from the stores")
    parser.add_argument("--write", action="store_true", help="with --summary: write results/headline_bias.json")
    args = parser.parse_args()
    store = Path(args.store)
    if args.summary:
        lines, rows = summary(store, args.seed, args.n_boot)
        print("\n".join(lines))
        if args.write:
            commands = [line for r in rows for line in r.pop("commands")]
            document = {
                "study": "studies/headline_bias.py",
                "commands": commands + [SUMMARY_COMMAND],
                "rows": [{k: json_value(v) for k, v in r.items()} for r in rows],
            }
            bias_record.RECORD.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    if args.row is None:
        parser.error("--row or --summary")
    store.mkdir(parents=True, exist_ok=True)
    done, fresh, elapsed = run_replicates(
        args.replicates,
        lambda r: run_replicate(r, args.row, args.seed, args.n_boot, args.gap),
        config_of(args.row, args.seed, args.n_boot, args.gap),
        str(store_of(store, args.row, args.gap)),
        seconds=None if args.minutes is None else 60 * args.minutes,
    )
    print(f"{fresh} replicates run in {elapsed:.0f} s, {len(done) - fresh} read from the store")


if __name__ == "__main__":
    main()
