"""The pooled law of the three tables (``densing trend --table all``, :func:`densing.trend.pooled_tables.pooled_law`)
on planted worlds: coverage and bias of the pooled slope, and the common-slope test's false-alarm rate and power
(results/three_tables/DECLARATION.md, "Calibration, before the number is read"); prints a table, asserts nothing.

**Planted at the level of the rows' points.** The pooled estimator reads each table's row as points (t, y, kind,
noise) (:class:`densing.trend.table_rows.TableRow`); this study plants those points directly, not benchmark scores
inverted through fitted references as ``studies/floor_region.py`` does, which is much cheaper and keeps every other
step of the estimator as the CLI runs it. The design is the real one: the three real headline rows (``table_row``
of ``public``, ``openllm_v2`` and ``swallow``, as ``densing trend --table all`` builds them) give every point's model,
release date t, family, lab, kind (exact, upper or lower bound under the identified-region rule) and noise σ_i (the
spread of its ln ρ over its row's draws). So the worlds share models between tables as the real tables do (166 models,
50 of them in two rows and 12 in all three; 233 points, 43 models in two tables' points, as seven of Swallow's
Qwen2.5 targets get no ln ρ on its row and the pooled law leaves them out, as it does here), labs are shared across
tables, and the floor region enters where the real rows
have it: the tiny models below the references' smallest members and the models at chance are upper bounds, the
models beyond the largest members or at a ceiling lower bounds.

**The world.** Model m of family f and lab l, a point of table T released t days after the epoch, has on the public
(common) scale

    y*_{m,T} = A_T·(t − t_ref) + B − g_f + c_l + ε_m + h_{m,T},

t_ref = 2024-02-05, B = 0.5, g_f ~ Exponential(mean 1) the family's gap below the frontier (0 for the late frontier
family of each table: Qwen2 on the public table, Qwen2.5 on the second, Falcon3 on Swallow's; so one lab, Alibaba or
TII, holds each table's late frontier), c_l ~ N(0, 0.3²) the lab's offset, ε_m ~ N(0, 0.15²) the model's own
departure, shared by every table that holds m, and h_{m,T} ~ N(0, 0.1²) the harness's departure for that model (a
family and a lab are one draw in every table). On its own table's scale the point is

    z_{m,T} = k_T·y*_{m,T} + o_T,   that is   y_public = a_T + s_T·z_T  with  a_T = −o_T/k_T,  s_T = 1/k_T,

public k = 1, o = 0; openllm_v2 k = 1.0, o = −0.9 (a_T = 0.9, s_T = 1.0, as the real mapping's 0.93 and 1.04);
swallow k = 0.7, o = −0.7 (its differences compressed to 0.7 of the public table's, offset −0.7: a_T = 1.0,
s_T = 1/0.7 = 1.43). An exact point is read as y = z + σ_i·ξ, ξ ~ N(0, 1); an upper bound as y = z + d and a lower
bound as y = z − d, d ~ Exponential(mean 0.5) (a bound never excludes the planted value), each with its real σ_i as
its noise. **Worlds** (:data:`WORLDS`): ``common``, one slope A_T = A (4 months) in every table; ``steeper_v2`` and
``steeper_swallow``, that table's slope 1.5·A (the test's power), and ``steeper_v2_2x`` at 2·A; ``no_late_frontier``,
one slope with every family's gap drawn, no family held on the frontier (what the late frontier families add to the
bias).

**The measurement** is the package's, unchanged: :func:`densing.trend.pooled_tables.pooled_law` on the planted rows
with 200 draws (doubled as the state rule asks, to at most 800) and seed r, the scales refitted by Deming regression
in every draw; the CLI starts at 600 draws, reduced here to 200 to keep the study within half an hour of CPU on a
shared machine; the common world is run at the CLI's 600 as well (``--n-boot 600``). Recorded per replicate: the
pooled slope, its 95% interval and state, the common-slope test (Cochran's Q on 2 df, rejected at 0.05), each table's
a_T and s_T, and the *oracle*: the censored 0.9-quantile line through every point's planted y* (exact, no noise, no
bound), what the estimator would give if every point were read exactly on the common scale. Coverage is the share
of replicates whose interval holds A, with its Monte Carlo standard error √(p(1 − p)/R); the bias is the pooled
slope over A, its median (Monte Carlo error by a bootstrap over replicates) and mean (error sd/√R).

**Where the bias comes from** (:func:`stage_slopes`): between the oracle and the estimator's point each replicate
records the pooled line with one more of the estimator's steps: ``bounds``, every point with its real kind and a
bound at its gap but an exact point at its planted value, put on the common scale by the *planted* a_T and s_T;
``read``, the points as the estimator reads them (noise and bounds), by the planted scales; the estimator's point,
by its fitted scales. The summary prints each stage's median over A and each step's median paired change, so the
frontier rule's own bias (the oracle), the bounds', the noise's and the fitted scales' are separate; and *each
table's own oracle* (:func:`table_oracles`, the frontier rule on one table's planted y* alone), the frontier rule's
bias on each table's targets without the pooling. **Why the test sees what it sees**: each table's own slope on the
common scale over its planted slope (the estimator's point and its oracle: a steeper table's fitted scale absorbs
part of its slope), and the smallest slope ratio the test detects at 80% power from the replicate's own draws
(:func:`densing.trend.slope_test.detectable_differences`, the most detectable table's). **The declared point,
corrected**: first.json's point slope divided by each one-slope world's median bias, Â/(1 + b), printed as a
range over the worlds (the estimator itself is not changed; :func:`corrected_lines`). The correction the package
applies is measured by ``studies/pooled_correction.py``, which plants the ``common`` world of this module at the
pooled figure it corrects (results/three_tables/DECLARATION.md, "The bias-corrected figure") and writes
results/three_tables/bias.json.

Run (resumable; one JSON line per replicate in ``STORE/<world>.jsonl``)::

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/three_tables.py --world common --replicates 150 --store STORE
    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/three_tables.py --world steeper_v2 --replicates 150 --store STORE
    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/three_tables.py --world steeper_swallow --replicates 100 --store STORE
    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/three_tables.py --world no_late_frontier --replicates 100 --store STORE
    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/three_tables.py --world steeper_v2_2x --replicates 100 --store STORE
    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/three_tables.py --world common --replicates 100 --n-boot 600 --store STORE
    PYTHONPATH=. python studies/three_tables.py --summary --store STORE > studies/three_tables.results.txt
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from densing.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, LN2
from densing.errors import DensingError
from densing.laws.bounds import EXACT, LOWER, UPPER
from densing.trend import pooled_tables
from densing.trend.table_rows import TableRow, table_row
from densing.trend.targets import dates_as_days, parse_epoch
from studies._planted import coverage, frontier_line, months as months_words
from studies.replicates import read_store, run_replicates

#: t_ref: the day the frontier line passes B (Qwen1.5's release).
T_REF = "2024-02-05"
#: The late frontier family of each table (its gap g_f is 0).
FRONTIER_FAMILIES = {"public": "Qwen2", "openllm_v2": "Qwen2.5", "swallow": "Falcon3"}
#: Each table's own scale z_T = k_T·y* + o_T: (k_T, o_T) (module docstring).
TABLE_SCALES = {"public": (1.0, 0.0), "openllm_v2": (1.0, -0.9), "swallow": (0.7, -0.7)}


@dataclass(frozen=True)
class World:
    """One planted world (module docstring): the planted doubling time, each table's slope over A, and the spreads."""

    words: str
    months: float = 4.0
    ratios: dict = field(default_factory=dict)
    frontier: float = 0.5
    gap_mean: float = 1.0
    lab_sd: float = 0.3
    model_sd: float = 0.15
    harness_sd: float = 0.1
    bound_gap: float = 0.5
    late_frontier: bool = True

    @property
    def slope(self) -> float:
        """A, per day: ln 2 over the planted doubling time."""
        return LN2 / (self.months * DAYS_PER_MONTH)

    def table_slope(self, table: str) -> float:
        """A_T: the table's planted slope, A times its ratio (1 unless the world says otherwise)."""
        return self.slope * self.ratios.get(table, 1.0)

    def at(self, months: float) -> World:
        """This world planted at another doubling time (``studies/pooled_correction.py`` plants the worlds at the
        pooled figure they correct)."""
        return replace(self, months=months)


WORLDS = {
    "common": World("one slope in every table"),
    "steeper_v2": World("openllm_v2's slope 1.5·A, the others A", ratios={"openllm_v2": 1.5}),
    "steeper_swallow": World("swallow's slope 1.5·A, the others A", ratios={"swallow": 1.5}),
    "no_late_frontier": World("one slope, no family held at gap 0 (every gap drawn)", late_frontier=False),
    "steeper_v2_2x": World("openllm_v2's slope 2·A, the others A", ratios={"openllm_v2": 2.0}),
}

#: The shipped runs (the module docstring's commands): the draws a replicate, and each world's replicates at them.
RUNS = (
    (200, {"common": 150, "steeper_v2": 150, "steeper_swallow": 100, "no_late_frontier": 100, "steeper_v2_2x": 100}),
    (600, {"common": 100}),
)
#: The command that prints the summary.
SUMMARY_COMMAND = (
    "PYTHONPATH=. python studies/three_tables.py --summary --store STORE > studies/three_tables.results.txt"
)


def run_command(world_name: str, count: int, draws: int) -> str:
    """The command that runs ``count`` replicates of a world at ``draws`` draws into the store."""
    return (
        f"PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/three_tables.py --world {world_name} "
        f"--replicates {count} --n-boot {draws} --store STORE"
    )


@lru_cache(maxsize=1)
def real_rows(n_boot: int) -> tuple[TableRow, ...]:
    """The three real headline rows as ``densing trend --table all`` builds them (their points' noise from ``n_boot``
    draws, seed 0)."""
    return tuple(table_row(name, n_boot=n_boot, seed=0) for name in pooled_tables.TABLES)


def usable(row: TableRow) -> pd.DataFrame:
    """The row's points the pooled law reads (a finite ln ρ and kind), with ``cluster``: the family, else the model."""
    points = row.points
    keep = np.isfinite(points["y"].to_numpy(float)) & np.isfinite(points["kind"].to_numpy(float))
    points = points[keep].reset_index(drop=True)
    family = points["family"].where(points["family"].notna() & (points["family"].astype(str) != ""), points["model"])
    return points.assign(cluster=family.astype(str))


def effects(rows: list[TableRow], world: World, rng: np.random.Generator) -> dict[str, dict[str, float]]:
    """The shared draws of every table's points, in sorted order of the names: each family's gap g_f (0 for the late
    frontier families, unless the world draws
    every gap), each lab's offset c_l and each model's departure ε_m (module docstring)."""
    frames = [usable(row) for row in rows]
    families = sorted(set().union(*(frame["cluster"] for frame in frames)))
    labs = sorted(set().union(*(frame["lab"].astype(str) for frame in frames)))
    models = sorted(set().union(*(frame["model"].astype(str) for frame in frames)))
    gaps = dict(zip(families, rng.exponential(world.gap_mean, len(families))))
    held = FRONTIER_FAMILIES.values() if world.late_frontier else ()
    for family in held:
        if family in gaps:
            gaps[family] = 0.0
    return {
        "gap": gaps,
        "lab": dict(zip(labs, world.lab_sd * rng.standard_normal(len(labs)))),
        "model": dict(zip(models, world.model_sd * rng.standard_normal(len(models)))),
    }


def common_values(
    points: pd.DataFrame, table: str, world: World, drawn: dict, rng: np.random.Generator, t_ref: float
) -> np.ndarray:
    """y*_{m,T} of a table's points (module docstring): the planted line, the family's gap, the lab's offset, the
    model's departure and a fresh harness departure."""
    t = points["t"].to_numpy(float)
    shared = np.array(
        [
            drawn["lab"][str(lab)] + drawn["model"][str(model)] - drawn["gap"][cluster]
            for lab, model, cluster in zip(points["lab"], points["model"], points["cluster"])
        ]
    )
    harness = world.harness_sd * rng.standard_normal(len(points))
    return world.table_slope(table) * (t - t_ref) + world.frontier + shared + harness


def read_points(
    z: np.ndarray, kind: np.ndarray, noise: np.ndarray, world: World, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The row's y from the table-scale planted values ``z``: an exact point with its noise, an upper bound a gap
    d ~ Exponential(``world.bound_gap``) above, a lower bound d below; and the same reading with no noise (an exact
    point at z, each bound at its own gap), which the stages of the bias read (:func:`stage_slopes`)."""
    reading = rng.standard_normal(len(z)) * noise
    gap = rng.exponential(world.bound_gap, len(z))
    bounded = np.where(kind == UPPER, z + gap, np.where(kind == LOWER, z - gap, z))
    return np.where(kind == EXACT, z + reading, bounded), bounded


@dataclass(frozen=True)
class Planted:
    """One replicate's planted rows (``rows``, what the estimator reads) and, in the pooled points' order, every
    point's y* on the common scale (``truth``) and its reading with no noise on its table's scale (``bounded``: an
    exact point at its planted value, a bound at its gap)."""

    rows: list[TableRow]
    truth: np.ndarray
    bounded: np.ndarray


def planted_rows(rows: list[TableRow], world: World, rng: np.random.Generator, epoch: str = DEFAULT_EPOCH) -> Planted:
    """One replicate's rows: every usable point of ``rows`` with its planted y (module docstring) and its real kind,
    noise, model, family, lab and date (:class:`Planted`)."""
    t_ref = float(dates_as_days([T_REF], parse_epoch(epoch))[0])
    drawn = effects(rows, world, rng)
    planted, truth, bounded = [], [], []
    for row in rows:
        points = usable(row)
        common = common_values(points, row.table, world, drawn, rng, t_ref)
        compression, offset = TABLE_SCALES[row.table]
        kind = points["kind"].to_numpy(float)
        y, quiet = read_points(compression * common + offset, kind, points["noise"].to_numpy(float), world, rng)
        planted.append(replace(row, points=points.drop(columns="cluster").assign(y=y)))
        truth.append(common)
        bounded.append(quiet)
    return Planted(planted, np.concatenate(truth), np.concatenate(bounded))


def oracle_slope(rows: list[TableRow], truth: np.ndarray) -> float:
    """The censored 0.9-quantile line's slope through every point's planted y* (exact, no noise, no bound)."""
    frame = pd.concat([usable(row) for row in rows], ignore_index=True)
    labels = np.array([f"{i}" for i in range(len(frame))])
    slope, _ = frontier_line("quantile", frame["t"].to_numpy(float), truth, np.full(len(truth), EXACT), labels)
    return slope


def table_oracles(rows: list[TableRow], truth: np.ndarray) -> dict[str, float]:
    """Each table's own oracle: the censored 0.9-quantile line's slope through that table's points' planted y* alone
    (exact, no noise, no bound), the frontier rule on one table's targets."""
    frame = pd.concat([usable(row).assign(table=row.table) for row in rows], ignore_index=True)
    labels = np.array([f"{i}" for i in range(len(frame))])
    t, tables = frame["t"].to_numpy(float), frame["table"].to_numpy(object)
    return {
        row.table: frontier_line(
            "quantile",
            t[tables == row.table],
            truth[tables == row.table],
            np.full(int((tables == row.table).sum()), EXACT),
            labels[tables == row.table],
        )[0]
        for row in rows
    }


def planted_scale(points: pooled_tables.Points, values: np.ndarray) -> np.ndarray:
    """``values`` (n,) on their tables' own scales put on the common scale by the planted mapping, y* = (z − o_T)/k_T
    (module docstring), not a fitted one."""
    compression = np.array([TABLE_SCALES[str(table)][0] for table in points.tables])
    offset = np.array([TABLE_SCALES[str(table)][1] for table in points.tables])
    return (values - offset) / compression


def stage_slopes(planted: Planted) -> dict[str, float]:
    """The pooled frontier line's slope at the stages between the oracle and the estimator (the scales the planted
    ones, no draws; :func:`densing.trend.pooled_tables.line_through`): ``bounds``, every point read as the estimator
    reads it (its kind, a bound at its gap) but an exact point at its planted value, no noise; ``read``, the points as
    the estimator reads them, noise and bounds. The estimator's point line differs from ``read`` only by its fitted
    scales; ``bounds`` from the oracle only by the bounds; ``read`` from ``bounds`` only by the points' noise."""
    points = pooled_tables.pooled_points(planted.rows)
    every = np.ones((1, len(points)))
    return {
        "bounds": pooled_tables.line_through(points, planted_scale(points, planted.bounded)[None], every)[0],
        "read": pooled_tables.line_through(points, planted_scale(points, points.y)[None], every)[0],
    }


def run_replicate(r: int, world: World | str, seed: int, n_boot: int) -> dict:
    """One replicate: the planted rows, the package's pooled law on them, the oracles and the stages between;
    ``world`` a :class:`World` or the name of one of :data:`WORLDS`."""
    if isinstance(world, str):
        world = WORLDS[world]
    rows = list(real_rows(n_boot))
    planted = planted_rows(rows, world, np.random.default_rng([seed, r]))
    record = {
        "replicate": r,
        "oracle": oracle_slope(planted.rows, planted.truth),
        "oracle_tables": table_oracles(planted.rows, planted.truth),
        **stage_slopes(planted),
    }
    try:
        found = pooled_tables.pooled_law(planted.rows, n_boot=n_boot, seed=r)
    except DensingError as error:
        return {**record, "error": str(error)}
    pooled, test = found["pooled"], found["common_slope"]
    return {
        **record,
        "slope": pooled["slope_per_day"],
        "low": pooled["slope_ci_low"],
        "high": pooled["slope_ci_high"],
        "state": pooled["state"],
        "draws": pooled["n_boot"],
        "p_value": test["p_value"],
        "rejected": test["rejected"],
        "q": test["q"],
        "detectable": dict(zip(pooled_tables.TABLES, test["detectable_per_day"])),
        "tables": {
            item["table"]: [item["slope_per_day"], item["slope_ci_low"], item["slope_ci_high"]]
            for item in found["tables"]
        },
        "scales": {item["table"]: [item["a"], item["s"]] for item in found["scales"]},
    }


def median_error(values: np.ndarray, seed: int) -> float:
    """The Monte Carlo standard error of the median of ``values``: the sd of 2,000 bootstrap medians."""
    rng = np.random.default_rng([seed, 7])
    picks = rng.integers(0, values.size, (2000, values.size))
    return float(np.std(np.median(values[picks], axis=1), ddof=1))


def percent(share: float) -> str:
    return f"{100 * share:+.1f}%"


def share_words(hits) -> str:
    """A share of replicates with its Monte Carlo standard error."""
    p, error = coverage(list(hits))
    return f"{p:.3f} ± {error:.3f}"


def summary(world_name: str, records: list[dict], seed: int, world: World | None = None) -> list[str]:
    """One world's lines: coverage and bias of the pooled slope, the oracle's, the test's rejection rate, the scales;
    ``world`` the world as planted where it is not :data:`WORLDS`' own (planted at another doubling time)."""
    if world is None:
        world = WORLDS[world_name]
    truth = world.slope
    done = [rec for rec in records if "error" not in rec]
    out = [
        f"{world_name}: {world.words}; planted A = {truth:.4g}/day ({world.months:g} months); "
        f"{len(records)} replicates, {len(records) - len(done)} refused by the estimator"
    ]
    if not done:
        return out
    slope = np.array([rec["slope"] for rec in done])
    low, high = np.array([rec["low"] for rec in done]), np.array([rec["high"] for rec in done])
    ratio = slope / truth - 1
    oracle = np.array([rec["oracle"] for rec in done]) / truth - 1
    states = pd.Series([rec["state"] for rec in done]).value_counts().to_dict()
    out.append(
        f"  pooled slope: coverage of A by the 95% interval {share_words((low <= truth) & (truth <= high))} "
        f"(misses with A above the interval {np.mean(high < truth):.3f}, below it {np.mean(low > truth):.3f}); "
        f"median width {np.median(high - low):.3g}/day (median ends {months_words(np.median(high))}–"
        f"{months_words(np.median(low))} months); median draws {np.median([rec['draws'] for rec in done]):.0f}"
    )
    out.append(
        f"  spread: the pooled slope's sd over the replicates {np.std(slope, ddof=1):.3g}/day, the intervals' "
        f"median width over 2·1.96 {np.median(high - low) / 3.92:.3g}/day (the draws resample which families "
        f"and labs there are; the world keeps the real design fixed)"
    )
    out.append(
        f"  bias of the pooled slope over A: median {percent(np.median(ratio))} ± "
        f"{100 * median_error(ratio, seed):.1f}%, mean {percent(np.mean(ratio))} ± "
        f"{100 * np.std(ratio, ddof=1) / math.sqrt(ratio.size):.1f}%; median doubling time "
        f"{LN2 / np.median(slope) / DAYS_PER_MONTH:.2f} months; states {states}"
    )
    out.append(
        f"  oracle (the 0.9-quantile line through every point's planted y*): median "
        f"{percent(np.median(oracle))}, mean {percent(np.mean(oracle))} of A"
    )
    if all("read" in rec for rec in done):
        out += stage_lines(world, done, seed)
    out.append(
        f"  common-slope test rejected at 0.05: {share_words([rec['rejected'] for rec in done])}; median p "
        f"{np.median([rec['p_value'] for rec in done]):.2f}"
    )
    if all("detectable" in rec for rec in done):
        out += power_lines(world, done)
    for table in pooled_tables.TABLES[1:]:
        compression, offset = TABLE_SCALES[table]
        a = np.array([rec["scales"][table][0] for rec in done])
        s = np.array([rec["scales"][table][1] for rec in done])
        out.append(
            f"  {table}: a_T median {np.nanmedian(a):.2f} (planted {-offset / compression:.2f}), s_T median "
            f"{np.nanmedian(s):.2f} (planted {1 / compression:.2f})"
        )
    return out


def with_error(values: np.ndarray, seed: int) -> str:
    """A median of ratios over A as a percentage with its Monte Carlo standard error (:func:`median_error`)."""
    return f"{percent(np.median(values))} ± {100 * median_error(values, seed):.1f}%"


def stage_lines(world: World, done: list[dict], seed: int) -> list[str]:
    """Where the bias comes from (:func:`stage_slopes`): each stage's slope over A (median, Monte Carlo error), each
    step's paired change, and each table's own oracle."""
    truth = world.slope
    stages = [
        ("the frontier rule on the pooled targets (oracle)", "oracle"),
        ("+ the bounds (the kinds and gaps read, the planted scales, no noise)", "bounds"),
        ("+ the points' noise (the estimator's reading, the planted scales)", "read"),
        ("+ the fitted scales (the estimator's point)", "slope"),
    ]
    values = {key: np.array([rec[key] for rec in done]) / truth - 1 for _, key in stages}
    out = [
        "  where the bias comes from, each stage's pooled slope over A (median) and its step from the one before "
        "(the median of the paired differences):"
    ]
    before = None
    for words, key in stages:
        step = "" if before is None else f"; step {with_error(values[key] - values[before], seed)}"
        out.append(f"    {words}: {with_error(values[key], seed)}{step}")
        before = key
    own = {
        table: np.array([rec["oracle_tables"][table] for rec in done]) / world.table_slope(table) - 1
        for table in pooled_tables.TABLES
    }
    out.append(
        "    each table's own oracle (its targets alone, over its planted slope): "
        + ", ".join(f"{table} {with_error(values, seed)}" for table, values in own.items())
    )
    return out


def power_lines(world: World, done: list[dict]) -> list[str]:
    """Why the test sees what it sees: each table's own slope on the common scale over its planted slope (the
    estimator's and the oracle's medians), and the smallest ratio the test detects at 80% power (the draws')."""
    own = ", ".join(
        f"{table} {np.median([rec['tables'][table][0] for rec in done]) / world.table_slope(table):.2f} "
        f"(oracle {np.median([rec['oracle_tables'][table] for rec in done]) / world.table_slope(table):.2f})"
        for table in pooled_tables.TABLES
    )
    ratios = np.array(
        [1 + min(rec["detectable"].values()) / rec["slope"] if rec["slope"] > 0 else math.nan for rec in done]
    )
    low, high = np.nanquantile(ratios, [0.1, 0.9])
    return [
        f"  each table's own slope on the common scale over its planted slope, median: {own}",
        f"  the smallest slope ratio the test detects at 80% power (its most detectable table, from the draws): "
        f"median {np.nanmedian(ratios):.2f}× (10–90%: {low:.2f}–{high:.2f}×)",
    ]


def stored_runs(store: Path, seed: int) -> dict[tuple[str, int], list[dict]]:
    """Every shipped run's replicates (:data:`RUNS`) read from the stores, by (world, draws); a run with none left
    out."""
    read = {}
    for draws, worlds in RUNS:
        for name in worlds:
            records = read_store(store / f"{name}.jsonl", config_of(name, seed, draws))
            if records:
                read[(name, draws)] = records
    return read


def report(read: dict[tuple[str, int], list[dict]], seed: int) -> list[str]:
    """Every shipped run's summary (:data:`RUNS`) from its replicates ``read`` (:func:`stored_runs`), the commands
    first."""
    lines = [f"# {run_command(name, count, draws)}" for draws, worlds in RUNS for name, count in worlds.items()]
    lines.append(f"# {SUMMARY_COMMAND}")
    lines.append("The pooled law of the three tables on planted worlds (module docstring), on the real rows' design:")
    lines += design_lines(list(real_rows(RUNS[0][0])))
    for draws, worlds in RUNS:
        lines.append(f"{draws} draws a replicate (the CLI starts at 600), doubled as the state rule asks:")
        for name in worlds:
            if (name, draws) in read:
                lines += summary(name, read[(name, draws)], seed)
    return lines + corrected_lines(read)


#: The first pooled result (results/three_tables/first.json), read, never written.
FIRST = Path(__file__).resolve().parents[1] / "results" / "three_tables" / "first.json"


def corrected_lines(read: dict) -> list[str]:
    """The declared estimator's point in ``FIRST`` beside itself divided by each one-slope world's median bias,
    Â/(1 + b) (b the median of Â_r/A − 1 over the world's replicates; as ``studies/headline_bias.py`` corrects a
    headline row): which world is nearer the data is a choice of the worlds, so the corrections are a range."""
    first = json.loads(FIRST.read_text())["pooled"]
    slope = first["slope_per_day"]
    out = [
        f"the declared estimator's point ({FIRST.parent.name}/{FIRST.name}): {first['doubling_time_months']:.2f} "
        f"months; divided by each one-slope world's median bias:"
    ]
    for (name, draws), records in read.items():
        if WORLDS[name].ratios:
            continue
        done = [rec for rec in records if "error" not in rec]
        bias = float(np.median([rec["slope"] for rec in done])) / WORLDS[name].slope - 1
        out.append(f"  {name} at {draws} draws (bias {percent(bias)}): {months_words(slope / (1 + bias))} months")
    return out


def design_lines(rows: list[TableRow]) -> list[str]:
    """The planted design: each real row's points by kind, and the models several tables hold."""
    frames = [usable(row) for row in rows]
    out = []
    for row, frame in zip(rows, frames):
        kind = frame["kind"].to_numpy(float)
        out.append(
            f"  {row.table}: {len(frame)} points, {int((kind == EXACT).sum())} exact, "
            f"{int((kind == UPPER).sum())} upper bounds, {int((kind == LOWER).sum())} lower bounds"
        )
    held = pd.Series(np.concatenate([frame["model"].astype(str).unique() for frame in frames])).value_counts()
    out.append(
        f"  {held.size} models, {int((held == 2).sum())} in two tables' points, {int((held == 3).sum())} in all "
        f"three; {len(set(np.concatenate([frame['lab'].astype(str) for frame in frames])))} labs"
    )
    return out


def config_of(world_name: str, seed: int, n_boot: int) -> str:
    """The tag of a world's replicates in its store."""
    return f"three_tables {world_name} seed={seed} n_boot={n_boot}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", choices=tuple(WORLDS), help="the world to run (module docstring)")
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=200, help="draws of the pooled law (the CLI's: 600)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--store", required=True, help="a folder: one JSON-lines store per world (resumable)")
    parser.add_argument("--summary", action="store_true", help="print every world's summary from the stores")
    parser.add_argument("--minutes", type=float, default=None, help="start no replicate after this many minutes")
    args = parser.parse_args()
    store = Path(args.store)
    if args.summary:
        read = stored_runs(store, args.seed)
        print("\n".join(report(read, args.seed)))
        return
    if args.world is None:
        parser.error("--world or --summary")
    store.mkdir(parents=True, exist_ok=True)

    def run(r: int) -> dict:
        """Replicate r of the chosen world."""
        return run_replicate(r, args.world, args.seed, args.n_boot)

    seconds = None if args.minutes is None else 60 * args.minutes
    done, fresh, elapsed = run_replicates(
        args.replicates,
        run,
        config_of(args.world, args.seed, args.n_boot),
        str(store / f"{args.world}.jsonl"),
        seconds=seconds,
    )
    print(f"{fresh} replicates run in {elapsed:.0f} s, {len(done) - fresh} read from the store")
    print("\n".join(summary(args.world, done, args.seed)))


if __name__ == "__main__":
    main()
