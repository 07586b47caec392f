"""Coverage of densing's capability-trend intervals (the headline set and each benchmark's row) under the common
design (:mod:`densing.trend.pooling`) on planted data; prints a table, asserts nothing.

**The worlds** (``--world``):

- ``power`` (the default, :mod:`studies._power_world`): the public table's shape — its dated models with their
  families, sizes, token counts, release dates and exactly its pattern of which model has which benchmark (BBH and
  MATH-hard for the leaderboard-v2 models only) — with planted scores: every family follows the paper's law (a
  sigmoid of a power law of N, the shape densing fits by default), targets and members are binomial at the
  benchmark's item count, families sit at every distance from the frontier with their own skill per benchmark, a
  family released over several dates is not one curve, and the latest families are references whose members are
  the frontier's targets. The module's docstring states the world.
- ``logistic_ln_n`` (:mod:`studies._logistic_world`): the study's earlier world, kept so that its misspecification
  result stays reproducible: targets drawn by a stated design, seven planted families whose true curves are
  sigmoids in ln N (an over-trained one with k_f = 0.75, one on the floor of the reasoning benchmarks, a kinked one,
  one over-trained through Hoffmann et al.'s loss law), the budget rows (MMLU, HumanEval at D0 = 10¹²). Under
  densing's default power law every one of its references is fitted by a law of another shape.

**The measurement** is densing's own engine, as ``densing trend --by benchmark`` and :func:`densing.measure_trend`
run it with their defaults: the reference rule's candidate table and fits (:func:`densing.laws.eligibility.candidate_table`,
:func:`~densing.laws.eligibility.eligible_fits`, ``--ref-boot`` draws, default 1,000 as shipped), then
:func:`densing.trend.capability.trend_row` for the headline set (600 draws and 100 draws per source for the shares,
as the headline) and for each benchmark (200 draws, as the side rows): the common targets' complete-case targets,
every reference inverting them all (its own family's models from the others), paired draws, random-effects pooling.

**What counts as covered** (written before the power world was run). For each row and replicate the 95% interval
[low, high] of the pooled slope of ln ρ over t (per day) is checked against:

- *latent* — the planted slope A of the row: ``power``, A_b of the row's benchmark (the headline's four benchmarks
  share one A, so the set has a planted slope); every quantile of ln ρ given the date, the 0.9 one the frontier
  line estimates, has slope A in the planted population. ``logistic_ln_n``: A_b, and for the set the population
  slope under the canonical curves (its benchmarks' A_b differ). Covered when low ≤ A ≤ high.
- *claimed* — what the interval claims to cover: the pooled weights' mean Σ_r w_r·A_r of the row's references'
  **population slopes** A_r: the slope of the censored 0.9 frontier line of ln ρ under the reference's true law
  (:func:`densing.laws.family.fit_family` in the world's shape on its members' noise-free scores), inverted (per
  benchmark, or jointly on a set) from the noise-free scores of ``--population`` targets of the same design, mean
  over blocks of 2,000 (its standard error printed). ``power``: the true law of a reference is its family's with
  gap, skill and member departures zero — a shift common to a family's members moves its law along ln N and leaves
  A_r unchanged where the members share one date; where they were released on several dates the noise-free fit is
  a power law through members that are not on one, and A_r can depart from A. Covered when low ≤ Σ w_r·A_r ≤ high.
- *each reference* — the interval holds every one of the row's references' A_r.

Coverage is the share of the replicates in which the row was measured (an interval came back) with the binomial
Monte Carlo standard error √(p(1 − p)/R); a row with no interval is counted with its reason. Below the table: the
bias and spread of the point slope against the claimed estimand, the median bootstrap sd, the variance shares, the
references used, and each planted candidate's verdict under the rule. Replicate r draws from
``numpy.random.SeedSequence([seed, r])``; ``--store`` keeps one JSON line per replicate and a rerun skips those there.

    PYTHONPATH=. OMP_NUM_THREADS=1 python studies/capability_coverage.py --replicates 40 --population 6000 --store STORE
    PYTHONPATH=. OMP_NUM_THREADS=1 python studies/capability_coverage.py --world logistic_ln_n --replicates 40 --store STORE2

``--no-limits`` prints the table from a store at once (it skips the limits from binomial scores, which recompute every
reference's population slope).
"""

from __future__ import annotations

import argparse
import math
from functools import cache, lru_cache

import numpy as np
import pandas as pd

from densing.constants import DEFAULT_EPOCH, DEFAULT_N_BOOT, DEFAULT_N_BOOT_SIDE
from densing.errors import DensingError
from densing.laws import eligibility
from densing.laws.family import fit_family
from densing.laws.inversion import Joint, PerBenchmark
from densing.present.shown import row_error, status
from densing.trend import capability
from densing.trend.targets import with_stderr
from studies import _logistic_world, _power_world
from studies._planted import coverage as _coverage, family_of as _family_of, months as _months, population_slope
from studies.replicates import run_replicates

EPOCH = DEFAULT_EPOCH
WORLDS = {"power": _power_world, "logistic_ln_n": _logistic_world}
W = _power_world  # the world of this run (``--world``; :func:`use_world` sets it)

# ---------------------------------------------------------------------------------------------------------------
# the estimands


@cache
def true_fit(name: str, benchmark: str, budget: bool = False):
    """The family's true law as densing's family law: fit_family in the world's shape on its members' noise-free scores
    (``budget``: over its members' sizes at D0, as :func:`densing.trend.capability.budget_fits` refits it)."""
    rows = W.true_rows(name)
    fit = fit_family(rows, name, benchmark, n_boot=0, shape=W.SHAPE)
    if budget:
        found, notes = capability.budget_fits(rows, {(name, benchmark): fit})
        if (name, benchmark) not in found:
            raise DensingError(f"{name}:{benchmark} at D0: {notes.get(f'{name}:{benchmark}', 'no fit')}")
        fit = found[(name, benchmark)]
    return fit


@lru_cache(maxsize=4)
def population(seed: int, count: int, noisy: bool = False) -> pd.DataFrame:
    """``count`` targets of the world's design with noise-free scores (``noisy``: the same targets' binomial scores)
    and binomial standard errors at them."""
    frame = W.population_frame(np.random.default_rng(np.random.SeedSequence([seed, 2**31 - 1])), count)
    table = W.target_rows(frame, np.random.default_rng(np.random.SeedSequence([seed, 2**31 - 1, 1])) if noisy else None)
    table["stderr"] = np.nan
    return with_stderr(table)


_SLOPES: dict = {}


def reference_slope(
    family: str,
    benchmarks: tuple[str, ...],
    joint: bool,
    seed: int,
    count: int,
    noisy: bool = False,
    budget: bool = False,
) -> tuple[float, float]:
    """A reference's population slope (cached): its true curves, inverted per benchmark or jointly; ``noisy``: from
    binomial scores, the limit of the point estimator itself (a diagnostic, not an estimand); ``budget``: its true
    curves refitted over its members' sizes at D0 (the budget rows' estimand)."""
    key = (family, benchmarks, joint, seed, count, noisy, budget)
    if key not in _SLOPES:
        fits = tuple(true_fit(family, b, budget) for b in benchmarks)
        inversion = Joint(fits) if joint else PerBenchmark(fits[0], fits[0].d0)
        _SLOPES[key] = population_slope(inversion, population(seed, count, noisy))
    return _SLOPES[key]


def use_world(name: str) -> None:
    """Plant ``name`` (:data:`WORLDS`) from here on; the estimands' caches are emptied (they are the world's)."""
    global W
    W = WORLDS[name]
    true_fit.cache_clear()
    population.cache_clear()
    _SLOPES.clear()


def noisy_claimed(row: dict, args) -> float:
    """The claimed estimand's counterpart from binomial scores: the equal-weight mean of the references' noisy limits."""
    slopes = []
    for ref in row["references"]:
        family, benchmarks = ref.split(":")
        found = tuple(benchmarks.split(","))
        slopes.append(
            reference_slope(
                family, found, len(found) > 1, args.seed, args.population, noisy=True, budget=row.get("budget", False)
            )[0]
        )
    return float(np.mean(slopes))


# ---------------------------------------------------------------------------------------------------------------
# one replicate


def rows_measured() -> list[tuple[str, tuple[str, ...]]]:
    """(row name, benchmarks): the headline set, one row per benchmark, then the budget rows (``budget:<b>``)."""
    return (
        [("headline", W.HEADLINE_SET)]
        + [(b, (b,)) for b in W.BENCHMARKS]
        + [(f"budget:{b}", (b,)) for b in W.BUDGET_ROWS]
    )


def _candidate_record(candidates: pd.DataFrame) -> dict:
    """Each planted (family, benchmark) candidate's verdict: eligible, reach share, and the rule's first failed code."""
    out = {}
    for row in candidates[candidates["kind"] == "family"].itertuples(index=False):
        code = str(row.code) if not row.eligible else ""
        out[f"{row.family}:{row.benchmark}"] = {
            "eligible": bool(row.eligible),
            "code": code,
            "reach": float(getattr(row, "reach_share", math.nan)),
        }
    return out


def run_replicate(r: int, args) -> dict:
    """One replicate: the planted table, the reference rule's candidates, every row measured; a JSON-able record per
    row."""
    rng = np.random.default_rng(np.random.SeedSequence([args.seed, r]))
    table, frame = W.replicate_table(rng, args.targets)
    record = {
        "replicate": r,
        "rows": {},
        "missing_share": W.missing_share(frame),
        "targets": int((frame["t"] >= 0).sum()),
    }
    try:
        candidates = eligibility.candidate_table(table)
        fits = eligibility.eligible_fits(table, candidates, seed=r, family_boot=args.ref_boot)
    except DensingError as exc:
        record["error"] = f"candidate table: {exc}"
        return record
    record["eligible"] = sorted(f"{f}:{b}" for f, b in fits)
    record["candidates"] = _candidate_record(candidates)
    budget_fits: dict = {}
    if any(name.startswith("budget:") for name, _ in rows_measured()):
        wanted = {k: f for k, f in fits.items() if k[1] in W.BUDGET_ROWS}
        budget_fits, _ = capability.budget_fits(table, wanted, seed=r)
    for name, benchmarks in rows_measured():
        budget = name.startswith("budget:")
        try:
            row = capability.trend_row(
                capability.RowSpec(name, name, "planted", benchmarks),
                table,
                candidates,
                budget_fits if budget else fits,
                since=EPOCH,
                epoch=EPOCH,
                n_boot=args.n_boot if name == "headline" else args.n_side,
                n_boot_share=args.n_share if name == "headline" else 0,
                seed=r,
            )
        except (DensingError, ValueError, FloatingPointError) as exc:  # counted with its reason, never hidden
            record["rows"][name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        if row.result is None:
            record["rows"][name] = {"error": row_error(row) or "not measured", "no_reference": not row.references}
            continue
        res = row.result
        joint = len(benchmarks) > 1
        own = [(_family_of(inv), tuple(inv.benchmarks)) for inv, _ in row.members]
        pop = [reference_slope(f, bs, joint, args.seed, args.population, budget=budget) for f, bs in own]
        weights = np.asarray(res.reference_weights, float)
        claimed = float(weights @ np.array([p[0] for p in pop]))
        claimed_se = float(math.sqrt(float(np.sum(np.square(weights * np.array([p[1] for p in pop]))))))
        latent = W.latent(benchmarks)
        if latent is None:  # the logistic world's set: the population slope under the canonical curves
            latent = reference_slope("canonical", benchmarks, True, args.seed, args.population)[0]
        record["rows"][name] = {
            "references": [f"{f}:{','.join(bs)}" for f, bs in own],
            "point": res.slope_per_day,
            "low": res.slope_ci_low,
            "high": res.slope_ci_high,
            "claimed": claimed,
            "claimed_se": claimed_se,
            "reference_slopes": [p[0] for p in pop],
            "latent": latent,
            "n_models": res.n_models,
            "failed_draws": res.failed_draws,
            "sd_all": res.slope_sd_all,
            "sd": {s: getattr(res, f"slope_sd_{s}") for s in ("fit", "score", "models", "reference")},
            "share": {s: getattr(res, f"share_{s}") for s in ("fit", "score", "models", "reference")},
            "n_lower": res.n_lower_bounds,
            "n_upper": res.n_upper_bounds,
            "n_dropped": res.n_dropped,
            "budget": budget,
            "status": status(row),
            "low_determined": res.low_determined,
            "high_determined": res.high_determined,
            "ceiling_bounds": res.n_ceiling_bounds,
            "checks": {c.name: [c.status, c.value] for c in capability.headline_checks(list(row.members), res)},
        }
    return record


# ---------------------------------------------------------------------------------------------------------------
# the table


def _mean_finite(values) -> float:
    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    return float(values.mean()) if values.size else math.nan


def state_of(row: dict) -> str:
    """A recorded row's state under the package's rule (densing.trend.pooling, step 6): not measured where the
    heterogeneity gate fails or neither end is determined, measured where both are, bounded otherwise."""
    checks = row.get("checks", {})
    if checks.get("heterogeneity", ["", None])[0] == "failed":
        return "not measured"
    low, high = row.get("low_determined"), row.get("high_determined")
    return "measured" if low and high else "bounded" if (low or high) else "not measured"


def states_table(records: list[dict]) -> list[str]:
    """Each row's states over the replicates that fitted it, and the latent slope's coverage within each state
    (replicates recorded before the states existed are left out)."""
    out = ["the rows' states (densing.trend.pooling, step 6) and the latent coverage within each (± MC SE):"]
    for name, _ in rows_measured():
        good = [
            r["rows"][name]
            for r in records
            if "rows" in r
            and name in r["rows"]
            and "error" not in r["rows"][name]
            and "low_determined" in r["rows"][name]
        ]
        if not good:
            continue
        cells = []
        for state in ("measured", "bounded", "not measured"):
            chosen = [x for x in good if state_of(x) == state]
            p, se = _coverage([x["low"] <= x["latent"] <= x["high"] for x in chosen])
            cells.append(f"{state} {len(chosen)}" + (f" (cover {p:.2f} ± {se:.2f})" if chosen else ""))
        out.append(f"  {name:<10} " + ", ".join(cells))
    return out


def summarise(records: list[dict], args) -> list[str]:
    out = []
    total = len(records)
    whole = [r for r in records if "error" in r]
    out.append(
        f"{total} replicates ({len(whole)} with no candidate table: "
        + ("; ".join(sorted({r["error"] for r in whole})) if whole else "none")
        + "); "
        f"world {args.world}, {np.mean([r['targets'] for r in records]):.0f} targets each, MATH-hard missing for {np.mean([r['missing_share'] for r in records]):.2f} "
        f"of them (mean), n_boot {args.n_boot} (headline) and {args.n_side} (rows), shares from {args.n_share} draws per source, "
        f"reference bootstrap {args.ref_boot}, population {args.population}"
    )
    head = (
        f"{'row':<10} {'planted':>7} {'fitted':>6} {'failed':>6}  {'cover claimed':>13} {'± MC SE':>7}  "
        f"{'cover latent':>12} {'± MC SE':>7}  {'cover each ref':>14} {'± MC SE':>7}  {'median width':>12}  "
        f"{'claimed (mo)':>12} {'latent (mo)':>11}"
    )
    out.append("coverage at nominal 0.95 (slopes per day; doubling times in months)")
    out.append(head)
    diagnostics = []
    reasons_out = []
    for name, benchmarks in rows_measured():
        rows = [r["rows"][name] for r in records if "rows" in r and name in r["rows"]]
        good = [x for x in rows if "error" not in x]
        bad = [x for x in rows if "error" in x]
        cover_c = [x["low"] <= x["claimed"] <= x["high"] for x in good]
        cover_l = [x["low"] <= x["latent"] <= x["high"] for x in good]
        cover_a = [x["low"] <= min(x["reference_slopes"]) and max(x["reference_slopes"]) <= x["high"] for x in good]
        pc, sc = _coverage(cover_c)
        pl, sl = _coverage(cover_l)
        pa, sa = _coverage(cover_a)
        width = float(np.median([x["high"] - x["low"] for x in good])) if good else math.nan
        claimed = float(np.median([x["claimed"] for x in good])) if good else math.nan
        latent = float(np.median([x["latent"] for x in good])) if good else math.nan
        planted = (
            "joint"
            if len(set(W.BENCHMARKS[b].months for b in benchmarks)) > 1
            else f"{W.BENCHMARKS[benchmarks[0]].months:g} mo"
        )
        out.append(
            f"{name:<10} {planted:>7} {len(good):>6} {len(bad) + total - len(rows):>6}  {pc:>13.3f} {sc:>7.3f}  "
            f"{pl:>12.3f} {sl:>7.3f}  {pa:>14.3f} {sa:>7.3f}  {width:>12.5f}  {_months(claimed):>12} {_months(latent):>11}"
        )
        if bad:
            counts = pd.Series(
                [
                    x["error"].split(":")[0] if not x.get("no_reference") else "no reference passes the reference rule"
                    for x in bad
                ]
            ).value_counts()
            reasons_out.append(f"  {name}: " + ", ".join(f"{n} × {why}" for why, n in counts.items()))
        if good:
            point = np.array([x["point"] for x in good])
            target = np.array([x["claimed"] for x in good])
            noise_bias = (
                np.array([noisy_claimed(x, args) for x in good]) - target
                if args.limits
                else np.full(len(good), math.nan)
            )
            refs = pd.Series([len(x["references"]) for x in good]).value_counts().sort_index()
            uses = pd.Series([ref.split(":")[0] for x in good for ref in x["references"]]).value_counts()
            shares = {s: _mean_finite([x["share"][s] for x in good]) for s in ("fit", "score", "models", "reference")}
            diagnostics.append(
                f"{name:<10} bias {np.mean(point - target):+.5f}  sd(point − claimed) "
                f"{np.std(point - target, ddof=1) if len(good) > 1 else math.nan:.5f}"
                f"  median bootstrap sd {np.median([x['sd_all'] for x in good]):.5f}"
                f"  estimand se {np.median([x['claimed_se'] for x in good]):.6f}"
                f"  score-noise bias {np.mean(noise_bias):+.5f}"
                f"  shares fit {shares['fit']:.2f} score {shares['score']:.2f} models {shares['models']:.2f}"
                f" reference {shares['reference']:.2f}"
            )
            diagnostics.append(
                f"{'':<10} references per replicate "
                + ", ".join(f"{k}: {v}" for k, v in refs.items())
                + "; used "
                + ", ".join(f"{k} {v}" for k, v in uses.items())
                + f"; bounds per replicate (lead reference) lower {np.mean([x['n_lower'] for x in good]):.1f}"
                f" upper {np.mean([x['n_upper'] for x in good]):.1f}"
            )
    out.append(
        "claimed: the pooled weights' mean of the row's references' population slopes; latent: the planted A of the row "
        "(logistic world's set: its population slope under the canonical curves); each ref: the interval holds every one of the row's "
        "references' population slopes; failed: not measured"
    )
    if reasons_out:
        out.append("not measured, and why:")
        out.extend(reasons_out)
    out.append(
        "where the interval's width comes from (mean over fitted replicates; bias and sd of the point slope"
        " against the claimed estimand):"
    )
    out.extend(diagnostics)
    out.extend(states_table(records))
    out.extend(acceptance(records))
    out.extend(limits_table(args) if args.limits else stored_slopes(records))
    return out


def limits_table(args) -> list[str]:
    """Every population slope computed in this run, from noise-free scores (the estimand) and from binomial scores
    (the point estimator's limit)."""
    out: list[str] = []
    pops = sorted({k[:3] for k in _SLOPES if not k[5] and not k[6]})
    if pops:
        out.append(
            "population slopes (per day; doubling months) under each true reference curve, from noise-free scores "
            "(the estimand) and, beside it, from binomial scores (the point estimator's limit):"
        )
        for family, benchmarks, joint in pops:
            kind = "joint" if joint else "per-benchmark"
            slope, se = reference_slope(family, benchmarks, joint, args.seed, args.population)
            noisy, noisy_se = reference_slope(family, benchmarks, joint, args.seed, args.population, noisy=True)
            out.append(
                f"  {family:<11} {kind:<13} {','.join(benchmarks):<25} {slope:.5f} ± {se:.5f} ({_months(slope):>5} mo)"
                f"   binomial scores {noisy:.5f} ± {noisy_se:.5f} ({_months(noisy):>5} mo)"
            )
    return out


def stored_slopes(records: list[dict]) -> list[str]:
    """The references' population slopes as the records hold them (``--no-limits``: no recomputation, and so no limit
    from binomial scores)."""
    found: dict[tuple[str, str], float] = {}
    for rec in records:
        for name, row in rec.get("rows", {}).items():
            for ref, slope in zip(row.get("references", []), row.get("reference_slopes", [])):
                found[(ref, "budget" if name.startswith("budget:") else "own budget")] = slope
    out = [
        "population slopes (per day; doubling months) under each true reference curve, from noise-free scores (the "
        "estimand; as the replicates' records hold them; the limits from binomial scores not computed: --no-limits):"
    ]
    out += [
        f"  {ref:<40} {kind:<10} {slope:.5f} ({_months(slope):>5} mo)" for (ref, kind), slope in sorted(found.items())
    ]
    return out


def acceptance(records: list[dict]) -> list[str]:
    """The rule's verdict on each planted candidate: how often it is eligible, its median reach share, and the
    commonest reason it is refused."""
    found: dict[str, list[dict]] = {}
    for rec in records:
        for name, verdict in rec.get("candidates", {}).items():
            found.setdefault(name, []).append(verdict)
    if not found:
        return []
    out = [
        "the rule's verdict on each planted candidate (share of replicates eligible ± MC SE; median reach share, the "
        "best member's way from chance to the top decile; commonest refusal)"
    ]
    for family in W.FAMILY_NAMES:
        cells = []
        for bench in W.BENCHMARKS:
            verdicts = found.get(f"{family}:{bench}", [])
            if not verdicts:
                continue
            p, se = _coverage([v["eligible"] for v in verdicts])
            codes = pd.Series([v["code"] for v in verdicts if v["code"]])
            why = codes.value_counts().index[0] if len(codes) else "—"
            cells.append(f"{bench} {p:.2f}±{se:.2f} reach {np.nanmedian([v['reach'] for v in verdicts]):.2f} {why}")
        out.append(f"  {family:<16} " + "; ".join(cells))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", choices=tuple(WORLDS), default="power", help="the planted world (module docstring)")
    parser.add_argument("--replicates", type=int, default=40)
    parser.add_argument(
        "--targets",
        type=int,
        default=120,
        help="targets per replicate (the logistic world's; the power world has the public table's models)",
    )
    parser.add_argument(
        "--n-boot", type=int, default=DEFAULT_N_BOOT, help="draws of the headline's interval (shipped: 600)"
    )
    parser.add_argument(
        "--n-side", type=int, default=DEFAULT_N_BOOT_SIDE, help="draws of every other row's (shipped: 200)"
    )
    parser.add_argument(
        "--n-share",
        type=int,
        default=DEFAULT_N_BOOT_SIDE // 2,
        help="draws of each source alone for the headline's variance shares (shipped: 100)",
    )
    parser.add_argument("--ref-boot", type=int, default=1000, help="bootstrap draws of each family fit")
    parser.add_argument("--population", type=int, default=20000, help="targets of the population slopes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-limits",
        dest="limits",
        action="store_false",
        help="skip the limits from binomial scores (the score-noise bias and its column of population "
        "slopes), which recompute every reference's population slope; list the stored slopes instead",
    )
    parser.add_argument(
        "--store", default=None, help="JSON lines, one per replicate: a rerun skips those already there"
    )
    parser.add_argument(
        "--shard",
        default="0/1",
        help="I/K: run only the replicates r with r mod K = I (K processes, "
        "each with its own store; concatenate the stores and summarise with --no-limits)",
    )
    args = parser.parse_args()
    use_world(args.world)
    shard = tuple(int(v) for v in args.shard.split("/"))
    chosen, fresh, elapsed = run_replicates(
        args.replicates, lambda r: run_replicate(r, args), _config(args), args.store, shard=shard
    )
    for name, benchmarks in rows_measured() if args.limits else ():  # every population slope the table lists
        for rec in chosen:
            for ref in rec.get("rows", {}).get(name, {}).get("references", []):
                family, bs = ref.split(":")
                reference_slope(
                    family,
                    tuple(bs.split(",")),
                    len(benchmarks) > 1,
                    args.seed,
                    args.population,
                    budget=name.startswith("budget:"),
                )
    print(f"{fresh} replicates run in {elapsed:.0f} s, {len(chosen) - fresh} read from the store")
    print("\n".join(summarise(chosen, args)))


def _config(args) -> str:
    return (
        f"world={args.world} seed={args.seed} targets={args.targets} n_boot={args.n_boot} n_side={args.n_side} "
        f"n_share={args.n_share} ref_boot={args.ref_boot} population={args.population} "
        f"families={','.join(W.FAMILY_NAMES)}"
    )


if __name__ == "__main__":
    main()
