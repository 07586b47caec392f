"""How far one target crossing one censoring boundary moves each shipped row's point doubling time, beside the
point's own Monte Carlo error; prints a table, asserts nothing.

**The rows** (:data:`ROWS`): the headline set of each table as ``densing trend --table NAME`` measures it — ``public``
(the paper-like set, ``densing trend``; references Qwen1.5 and Qwen2), ``openllm_v2`` (the v2-native set, the
second table's declared row) and ``swallow`` (the paper-like set) — rebuilt as the CLI builds them: the set rule's
references on the table's candidate table (:func:`densing.trend.selection.set_references`), their fits at seed S,
the common targets (:func:`densing.trend.capability.row_targets`) and the pooled trend
(:func:`densing.trend.pooling.pooled_trend`, 600 draws doubled up to the cap where an end asks, seed S): at S = 0
the number ``densing trend --table NAME`` prints.

**The crossings** (:mod:`densing.trend.knife_edge`, the method in its docstring, the one ``densing trend --detail``
names the largest moves by): each target within ±0.5 standard errors of a censoring boundary (a benchmark's chance
floor, a reference's ceiling, the identified region's bottom and top edges) moved 0.01 SE across it, one target and
one boundary at a time, and the row's point recomputed with the row's own pooling weights; the move in months and the
target's readings before and after.

**The Monte Carlo error of the point**: the sample standard deviation of the row's point doubling time over
:data:`SEEDS` seeds (``densing trend --table NAME --seed S --format json``'s ``headline.months``, S = 0 … 4, each at
the draws the CLI makes for it), computed in process on the same path. The largest move is *below* it when its
absolute size is smaller than that standard deviation.

Run (about 20 CPU-s, 75 s on a shared host; no store is needed)::

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/knife_edge.py > studies/knife_edge.results.txt
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd

from densing import registry
from densing.constants import DEFAULT_EPOCH, DEFAULT_N_BOOT
from densing.data import read_results
from densing.laws import eligibility
from densing.present.knife_edge import BOUNDARY_WORDS, crossing_words, reading_change_words
from densing.trend import capability, pooling, selection
from densing.trend.knife_edge import CROSS, WINDOW, Move, knife_edges
from densing.trend.rules import doubling_months
from densing.trend.targets import with_stderr

#: The shipped rows: table → (the command that prints it, its words).
ROWS = {
    "public": ("densing trend", "the public table's headline (paper-like set)"),
    "openllm_v2": ("densing trend --table openllm_v2", "the second table's declared row (v2-native set)"),
    "swallow": ("densing trend --table swallow", "Swallow's paper-like row"),
}
#: Seeds of the Monte Carlo error of the point.
SEEDS = 5
COMMAND = "PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/knife_edge.py > studies/knife_edge.results.txt"


# ---------------------------------------------------------------------------------------------------------------
# the row


def row_of(table: str, seed: int = 0) -> tuple[selection.CommonTargets, pooling.RowTrend]:
    """``table``'s headline row as ``densing trend --table NAME --seed SEED`` computes it: (its common targets, its
    pooled trend)."""
    profile = registry.table(table)
    benchmarks = tuple(profile.sets[profile.headline_set][1])
    tidy = with_stderr(read_results(profile.path))
    candidates = eligibility.candidate_table(tidy, benchmarks=benchmarks)
    found = selection.set_references(candidates, benchmarks)
    fits: dict = {}
    capability.row_fits(tidy, candidates, fits, found, seed=seed)
    common = capability.row_targets(tidy, candidates, fits, found, since=DEFAULT_EPOCH, epoch=DEFAULT_EPOCH)
    trend = pooling.pooled_trend(common, n_boot=DEFAULT_N_BOOT, n_boot_share=0, seed=seed, draws_cap=pooling.DRAWS_CAP)
    return common, trend


# ---------------------------------------------------------------------------------------------------------------
# the Monte Carlo error and the printed table


def seed_points(table: str, seeds: int) -> list[tuple[int, float, int]]:
    """(seed, the row's point doubling time in months, its draws) for seeds 0 … ``seeds`` − 1."""
    found = []
    for seed in range(seeds):
        _, trend = row_of(table, seed)
        found.append((seed, doubling_months(trend.slope_per_day), int(trend.n_boot)))
    return found


def _months(value: float) -> str:
    return f"{value:.3f}" if math.isfinite(value) else "no rise"


def _move_words(move: Move) -> str:
    """A crossing, its distance z and its move, to the thousandth of a month, with what it changed in the readings."""
    return (
        f"{crossing_words(move.crossing)} (z = {move.crossing.distance:+.3f}): {_months(move.months_before)} → "
        f"{_months(move.months_after)} months ({move.move:+.3f}); {reading_change_words(move)}"
    )


def row_lines(table: str, seeds: int, shown: int) -> list[str]:
    """The printed lines of one row."""
    command, words = ROWS[table]
    common, trend = row_of(table)
    edges = knife_edges(common, trend.weights, trend.rule)
    moves = edges.moves
    points = seed_points(table, seeds)
    months = np.array([m for _, m, _ in points])
    error = float(np.std(months, ddof=1)) if len(months) > 1 else math.nan
    by_boundary = pd.Series([BOUNDARY_WORDS[m.crossing.boundary] for m in moves]).value_counts()
    ranked = edges.ranked()
    out = [
        f"## {table}: {words}, `{command}`; references {', '.join(n.family for n in common.names)} "
        f"(weights {', '.join(f'{w:.3f}' for w in trend.weights)}); {len(common.frame)} targets; point "
        f"{_months(doubling_months(trend.slope_per_day))} months at {trend.n_boot} draws",
        f"  targets within ±{WINDOW:g} SE of a boundary: {edges.n_targets} ({len(moves)} crossings: "
        + ", ".join(f"{name} {count}" for name, count in by_boundary.items())
        + ")",
        f"  the point over seeds 0–{seeds - 1} (`{command} --seed S --format json`): "
        + ", ".join(f"{m:.3f} ({k} draws)" for _, m, k in points)
        + f"; Monte Carlo error (sd) {error:.3f} months",
    ]
    if not ranked:
        out.append("  no target within reach of a boundary")
        return out
    top = ranked[0]
    below = "below" if top.size < error else "not below"
    out.append(
        f"  largest move: {_move_words(top)}; |move| {top.size:.3f} is {below} the Monte Carlo error {error:.3f}"
    )
    named = ", ".join(f"{m.crossing.model} ({m.move:+.3f})" for m in edges.largest())
    out.append(f"  `{command} --detail` names the largest moves (densing.trend.knife_edge.KnifeEdges.largest): {named}")
    changed = sum(1 for m in moves if m.changes_reading)  # the others move through s² alone
    out.append(
        f"  crossings that change the target's reading: {changed} of {len(moves)}; moves above the Monte "
        f"Carlo error: {sum(1 for m in moves if m.size >= error)}"
    )
    out += [f"  {rank}. {_move_words(m)}" for rank, m in enumerate(ranked[:shown], 1)]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="*", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--seeds", type=int, default=SEEDS, help="seeds of the point's Monte Carlo error")
    parser.add_argument("--shown", type=int, default=5, help="the largest moves listed per row")
    args = parser.parse_args()
    start = time.process_time()
    print(f"# {COMMAND}")
    print(
        f"A crossing sets one target's score {CROSS:g} SE past a boundary it lies within ±{WINDOW:g} SE of (an "
        "edge: all its scores moved by the same fraction of their σ); the row's point recomputed with its own "
        "pooling weights; z: the signed distance before the move, in SE (floor: at it for z ≤ 0; ceiling: at it "
        "for z ≥ 0; edge: the joint move s* that reaches the edge, negated)."
    )
    for table in args.rows:
        print("\n".join(row_lines(table, args.seeds, args.shown)))
    print(f"{time.process_time() - start:.0f} CPU-s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
