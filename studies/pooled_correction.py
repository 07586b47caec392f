"""The pooled law's bias correction planted at the figure it corrects, and its check on fresh replicates
(results/three_tables/DECLARATION.md, "The bias-corrected figure"); prints a table, asserts nothing.

**Why.** ``studies/three_tables.py`` finds the pooled slope of ``densing trend --table all`` biased by about +14%
in the world built like the real data, planted at 4 months: the frontier rule's estimand on this design is not the
planted slope. The declaration corrects the pooled figure by the parametric bootstrap (Efron & Tibshirani 1993,
§10.6, ratio form, :func:`densing.trend.bias.corrected_slopes`)::

    Ã = Â/(1 + b),   b = median_r (Â_r − A)/A   over replicates of the ``common`` world planted at A,

with A the figure being corrected, not 4 months: a bias that comes from which families hold the frontier when adds
to the slope per day, so its share of A depends on A.

**Rounds** (:func:`planted_months`): round 1 plants the ``common`` world of ``studies/three_tables.py`` (the real
rows' design, one family holding each table's late frontier) at the uncorrected pooled point P of ``densing trend
--table all`` (its default draws and seed); round k + 1 plants it at round k's corrected point P·(1 + b_k), since a
doubling time scales as 1/slope. :data:`ROUND_REPLICATES` replicates of :data:`DRAWS` draws each, seed 0. The rounds
stop (:func:`settled`) when two successive corrected points differ by less than the correction's Monte Carlo error,
the point times s_b/(1 + b) (s_b the Monte Carlo standard error of b, the sd of 2,000 bootstrap medians), and after
:data:`MAX_ROUNDS` rounds at most. The last round's b is the one applied.

**Beside it** (:data:`SENSITIVITY`): the ``no_late_frontier`` world (every family's gap drawn, none held on the
frontier) planted at the last round's point, seed 0: the correction the other choice of world gives.

**The check** (:data:`CHECKS`), on replicates not used for the correction (seed 1): in the ``common`` world planted
at the last round's point, and in the ``common`` world planted at 4 months (whether the correction carries to
another slope), each replicate's pooled slope and interval are corrected by the applied b and s_b as the CLI
corrects the real one; printed: the coverage of the planted slope by the corrected 95% interval (its Monte Carlo
error √(p(1 − p)/R)) and the corrected slope's median bias over A (its Monte Carlo error by a bootstrap over
replicates), beside the uncorrected estimator's. Added after the check was read (results/three_tables/DEVIATIONS.md,
item 9): the same replicates less the applied bias taken per day (:func:`additive_of`), which reads whether the bias
is a share of the slope or an amount per day, and so whether the correction carries to another slope.

``--summary --write`` writes results/three_tables/bias.json (:mod:`densing.trend.pooled_bias`): the applied world
and the sensitivity world, each with its b and s_b, the rounds, the check, and the pooled point it was written
beside.

Run (resumable; one JSON line per replicate in ``STORE/<run>.jsonl``; each step reads the rounds before it)::

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/pooled_correction.py --all --store STORE
    PYTHONPATH=. python studies/pooled_correction.py --summary --store STORE --write > studies/pooled_correction.results.txt
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from densing.trend import pooled_bias, pooled_tables
from densing.trend.bias import corrected_slopes
from studies import three_tables
from studies._planted import coverage
from studies.replicates import read_store, run_replicates

#: Replicates a round plants, draws of the pooled law each (as the calibration of ``studies/three_tables.py``).
ROUND_REPLICATES = 150
DRAWS = 200
#: The most rounds the declaration allows.
MAX_ROUNDS = 3
#: The seed of the rounds and of the sensitivity world; the check's fresh replicates use another.
SEED = 0
CHECK_SEED = 1
#: The world whose bias is applied, and the world beside it (``studies/three_tables.py``'s WORLDS).
APPLIED = "common"
SENSITIVITY = "no_late_frontier"
SENSITIVITY_REPLICATES = 100
#: The check's runs: name -> (world, where it is planted: "point" for the last round's point, or months).
CHECKS = {"check_at_point": (APPLIED, "point"), "check_at_4_months": (APPLIED, 4.0)}
CHECK_REPLICATES = 150
#: The command that prints the summary and writes results/three_tables/bias.json.
SUMMARY_COMMAND = (
    "PYTHONPATH=. python studies/pooled_correction.py --summary --store STORE --write "
    "> studies/pooled_correction.results.txt"
)
RUN_COMMAND = "PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/pooled_correction.py --all --store STORE"


@dataclass(frozen=True)
class Bias:
    """One run's bias of the pooled slope: b, the median of (Â_r − A)/A, its Monte Carlo standard error s_b, and the
    replicates it is read from (``failed`` refused by the estimator)."""

    months: float
    bias: float
    bias_se: float
    replicates: int
    failed: int

    def corrected_point(self, point_months: float) -> float:
        """The doubling time ``point_months`` corrected by this bias: P·(1 + b) (a doubling time scales as 1/slope)."""
        return point_months * (1 + self.bias)

    def error_months(self, point_months: float) -> float:
        """The corrected point's Monte Carlo error in months: the corrected point times s_b/(1 + b)."""
        return self.corrected_point(point_months) * self.bias_se / (1 + self.bias)


def uncorrected_point(pooled: dict | None = None) -> float:
    """P: the pooled doubling time of ``densing trend --table all`` at its default draws and seed, in months (of
    ``pooled``, the pooled law's ``"pooled"`` record, where it is given; else measured)."""
    if pooled is None:
        pooled = pooled_tables.measure_tables()["pooled"]
    return float(pooled["doubling_time_months"])


def config_of(run: str, months: float, seed: int) -> str:
    """The tag of a run's replicates in its store: the run, where it is planted, the seed and the draws."""
    return f"pooled_correction {run} months={months:.6g} seed={seed} n_boot={DRAWS}"


def records_of(store: Path, run: str, months: float, seed: int) -> list[dict]:
    """A run's stored replicates (none where it has not run at this planting)."""
    return read_store(store / f"{run}.jsonl", config_of(run, months, seed))


def bias_of(world: three_tables.World, records: list[dict]) -> Bias:
    """b and s_b over the replicates the estimator did not refuse (:func:`studies.three_tables.median_error`)."""
    done = [rec for rec in records if "error" not in rec]
    ratio = np.array([rec["slope"] for rec in done]) / world.slope - 1
    return Bias(
        world.months,
        float(np.median(ratio)),
        three_tables.median_error(ratio, SEED),
        len(done),
        len(records) - len(done),
    )


def settled(rounds: list[Bias], point: float) -> bool:
    """Whether the last two rounds' corrected points differ by less than the last correction's Monte Carlo error."""
    if len(rounds) < 2:
        return False
    last, before = rounds[-1], rounds[-2]
    return abs(last.corrected_point(point) - before.corrected_point(point)) < last.error_months(point)


def planted_months(rounds: list[Bias], point: float) -> float:
    """Where the next round plants the ``common`` world: the uncorrected point first, then the last corrected one."""
    return point if not rounds else rounds[-1].corrected_point(point)


def finished_rounds(store: Path, point: float) -> list[Bias]:
    """The rounds whose replicates are all in the store, in order, up to the one that settles them."""
    rounds = []
    while len(rounds) < MAX_ROUNDS and not settled(rounds, point):
        world = three_tables.WORLDS[APPLIED].at(planted_months(rounds, point))
        records = records_of(store, f"round{len(rounds) + 1}", world.months, SEED)
        if len(records) < ROUND_REPLICATES:
            break
        rounds.append(bias_of(world, records[:ROUND_REPLICATES]))
    return rounds


def rounds_done(rounds: list[Bias], point: float) -> bool:
    """Whether no further round is due."""
    return len(rounds) == MAX_ROUNDS or settled(rounds, point)


def run(store: Path, name: str, world: three_tables.World, count: int, seed: int) -> list[dict]:
    """Run (or finish) ``count`` replicates of ``world`` into ``STORE/<name>.jsonl``."""
    done, fresh, elapsed = run_replicates(
        count,
        lambda r: three_tables.run_replicate(r, world, seed, DRAWS),
        config_of(name, world.months, seed),
        str(store / f"{name}.jsonl"),
    )
    print(f"{name} at {world.months:.4g} months: {fresh} replicates run in {elapsed:.0f} s", flush=True)
    return done


def run_all(store: Path) -> None:
    """Every step the declaration asks for, in order: the rounds, then the sensitivity world and the check."""
    point = uncorrected_point()
    rounds = finished_rounds(store, point)
    while not rounds_done(rounds, point):
        world = three_tables.WORLDS[APPLIED].at(planted_months(rounds, point))
        run(store, f"round{len(rounds) + 1}", world, ROUND_REPLICATES, SEED)
        rounds = finished_rounds(store, point)
    final = rounds[-1].corrected_point(point)
    run(store, SENSITIVITY, three_tables.WORLDS[SENSITIVITY].at(final), SENSITIVITY_REPLICATES, SEED)
    for name, (world_name, where) in CHECKS.items():
        months = final if where == "point" else where
        run(store, name, three_tables.WORLDS[world_name].at(months), CHECK_REPLICATES, CHECK_SEED)


def corrected_replicates(world: three_tables.World, records: list[dict], applied: Bias) -> dict[str, np.ndarray]:
    """Each replicate's pooled slope and interval corrected by the applied bias, as the CLI corrects the real one
    (:func:`densing.trend.bias.corrected_slopes`), beside the uncorrected ones."""
    done = [rec for rec in records if "error" not in rec]
    fixed = [corrected_slopes(rec["slope"], rec["low"], rec["high"], applied.bias, applied.bias_se) for rec in done]
    return {
        "slope": np.array([rec["slope"] for rec in done]),
        "low": np.array([rec["low"] for rec in done]),
        "high": np.array([rec["high"] for rec in done]),
        "fixed": np.array([f[0] for f in fixed]),
        "fixed_low": np.array([f[1] for f in fixed]),
        "fixed_high": np.array([f[2] for f in fixed]),
    }


def check_of(world: three_tables.World, records: list[dict], applied: Bias) -> dict:
    """One check run: coverage and median bias of the corrected estimator and of the uncorrected one, each with its
    Monte Carlo error."""
    values = corrected_replicates(world, records, applied)
    truth = world.slope
    out = {
        "months": world.months,
        "replicates": int(values["slope"].size),
        "failed": len(records) - values["slope"].size,
    }
    for key, slope, low, high in (
        ("corrected", values["fixed"], values["fixed_low"], values["fixed_high"]),
        ("uncorrected", values["slope"], values["low"], values["high"]),
    ):
        share, share_se = coverage(list((low <= truth) & (truth <= high)))
        ratio = slope / truth - 1
        out[key] = {
            "coverage": share,
            "coverage_se": share_se,
            "bias": float(np.median(ratio)),
            "bias_se": three_tables.median_error(ratio, CHECK_SEED),
        }
    return out


def world_entry(world_name: str, role: str, found: Bias) -> dict:
    """One world of results/three_tables/bias.json (:class:`densing.trend.pooled_bias.WorldBias`'s fields)."""
    return {
        "world": world_name,
        "words": three_tables.WORLDS[world_name].words,
        "role": role,
        "draws": DRAWS,
        "planted_months": found.months,
        "replicates": found.replicates,
        "failed": found.failed,
        "bias": found.bias,
        "bias_se": found.bias_se,
    }


def additive_of(world: three_tables.World, records: list[dict], applied: Bias) -> dict:
    """Added after the declared check was read (results/three_tables/DEVIATIONS.md, item 9): each replicate's pooled
    slope less the applied bias taken per day, Â_r − b·A_b (A_b the slope the applied world is planted at), over the
    planted A: the median bias and its Monte Carlo error. At the planted point it is the declared correction's point;
    at another slope it reads whether the bias is a share of A or an amount per day."""
    done = [rec for rec in records if "error" not in rec]
    per_day = applied.bias * three_tables.WORLDS[APPLIED].at(applied.months).slope
    ratio = (np.array([rec["slope"] for rec in done]) - per_day) / world.slope - 1
    return {
        "per_day": per_day,
        "bias": float(np.median(ratio)),
        "bias_se": three_tables.median_error(ratio, CHECK_SEED),
    }


def bias_per_day(found: Bias) -> float:
    """A run's bias as an amount per day, b·A (A the slope it is planted at)."""
    return found.bias * three_tables.WORLDS[APPLIED].at(found.months).slope


def percent(share: float, error: float) -> str:
    return f"{100 * share:+.1f}% ± {100 * error:.1f}%"


def summary(store: Path) -> tuple[list[str], dict | None]:
    """The summary's lines and bias.json's content (None where the steps have not all run)."""
    pooled = pooled_tables.measure_tables()["pooled"]
    point = uncorrected_point(pooled)
    rounds = finished_rounds(store, point)
    lines = [f"# {RUN_COMMAND}", f"# {SUMMARY_COMMAND}", f"the uncorrected pooled point P: {point:.3f} months"]
    for k, found in enumerate(rounds, start=1):
        lines.append(
            f"round {k}: common world planted at {found.months:.3f} months, {found.replicates} replicates "
            f"({found.failed} refused); b = {percent(found.bias, found.bias_se)} (b·A = {bias_per_day(found):.2g}/day); "
            f"corrected point {found.corrected_point(point):.3f} ± {found.error_months(point):.3f} months"
        )
    if not rounds_done(rounds, point):
        lines.append(f"the rounds are not finished: run `{RUN_COMMAND}`")
        return lines, None
    applied = rounds[-1]
    final = applied.corrected_point(point)
    why = "settled" if settled(rounds, point) else f"stopped at the most rounds, {MAX_ROUNDS}"
    lines.append(f"the rounds: {why}; the applied b = {percent(applied.bias, applied.bias_se)}")
    side_world = three_tables.WORLDS[SENSITIVITY].at(final)
    side_records = records_of(store, SENSITIVITY, final, SEED)
    checks = {}
    for name, (world_name, where) in CHECKS.items():
        world = three_tables.WORLDS[world_name].at(final if where == "point" else where)
        records = records_of(store, name, world.months, CHECK_SEED)
        if len(records) >= CHECK_REPLICATES:
            checks[name] = check_of(world, records[:CHECK_REPLICATES], applied)
            checks[name]["per_day"] = additive_of(world, records[:CHECK_REPLICATES], applied)
    if len(side_records) < SENSITIVITY_REPLICATES or len(checks) < len(CHECKS):
        lines.append(f"the sensitivity world or the check has not all run: run `{RUN_COMMAND}`")
        return lines, None
    side = bias_of(side_world, side_records[:SENSITIVITY_REPLICATES])
    lines.append(
        f"beside it, {SENSITIVITY} planted at {final:.3f} months: b = {percent(side.bias, side.bias_se)}; "
        f"P corrected by it {side.corrected_point(point):.3f} months"
    )
    for name, found in checks.items():
        lines.append(
            f"{name} (seed {CHECK_SEED}, planted at {found['months']:.3f} months, {found['replicates']} replicates, "
            f"{found['failed']} refused):"
        )
        for key in ("corrected", "uncorrected"):
            item = found[key]
            lines.append(
                f"  {key}: coverage {item['coverage']:.3f} ± {item['coverage_se']:.3f}; median bias "
                f"{percent(item['bias'], item['bias_se'])}"
            )
        planted = three_tables.WORLDS[APPLIED].at(found["months"]).slope
        lines.append(f"  the uncorrected bias per day, b·A = {found['uncorrected']['bias'] * planted:.2g}/day")
        per_day = found["per_day"]
        lines.append(
            f"  the applied bias taken per day, Â − {per_day['per_day']:.3g}/day (added after this check was read): "
            f"median bias {percent(per_day['bias'], per_day['bias_se'])}"
        )
    document = {
        "study": pooled_bias.STUDY,
        "commands": [RUN_COMMAND, SUMMARY_COMMAND],
        "statistic": "median",
        "threshold": pooled_bias.THRESHOLD,
        "point_months": point,
        "ci_low": pooled["ci_low"],
        "ci_high": pooled["ci_high"],
        "slope_per_day": pooled["slope_per_day"],
        "slope_ci_low": pooled["slope_ci_low"],
        "slope_ci_high": pooled["slope_ci_high"],
        "n_boot": pooled["n_boot"],
        "worlds": [
            world_entry(APPLIED, pooled_bias.APPLIED, applied),
            world_entry(SENSITIVITY, pooled_bias.SENSITIVITY, side),
        ],
        "rounds": [vars(found) for found in rounds],
        "check": checks,
    }
    return lines, document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="a folder: one JSON-lines store per run (resumable)")
    parser.add_argument("--all", action="store_true", help="run every step still due (the rounds, then the check)")
    parser.add_argument("--summary", action="store_true", help="print the rounds and the check from the store")
    parser.add_argument("--write", action="store_true", help="with --summary: write results/three_tables/bias.json")
    args = parser.parse_args()
    store = Path(args.store)
    if args.all:
        store.mkdir(parents=True, exist_ok=True)
        run_all(store)
    if args.summary:
        lines, document = summary(store)
        print("\n".join(lines))
        if args.write and document is not None:
            pooled_bias.RECORD.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if not (args.all or args.summary):
        parser.error("--all or --summary")


if __name__ == "__main__":
    main()
