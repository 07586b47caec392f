"""CPU seconds of a row's leave-one-out tables (every family, every model), by update against by refit, per table size.

Workload: the headline row of ``densing.fit_trend`` on the public table replicated to ``--sizes`` times its models in
``--shapes`` (``bench/table_size.py``'s copies: the same families, unlabeled, new families), under every frontier rule.
The tables' inputs are recorded as :func:`densing.trend.pooling.pooled_trend` passes them (each reference's point
densities and line); each is then computed ``--repeats`` times in this process, alternating: by update
(:func:`densing.trend.influence.left_out_slopes`) and by refit (one solve per reference and group over the whole row,
the baseline), both in CPU seconds (``time.process_time``). The script prints per shape, size and rule the row's
models, families and references, the median and range of each, the ratio of the medians, whether the two give the
same slopes to the bit, and per shape the least-squares exponent of each over the sizes. It asserts nothing.

    python bench/leave_one_out.py [--sizes 1 3 7 15] [--shapes same unlabeled] [--repeats 5]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from _timing import exponent, spread
from table_size import SHAPES, replicated


def recorded(table: Path) -> list[tuple]:
    """The inputs of every leave-one-out table the headline's pooled trends compute on ``table``, under every rule."""
    import densing
    from densing.data import read_results
    from densing.trend import pooling, rules

    seen = []
    update = pooling.family_influence

    def record(rule, quantile, data, y, kind, w, starts, *, by="family"):
        seen.append((rule, quantile, data, y, kind, np.asarray(starts, float), by))
        return update(rule, quantile, data, y, kind, w, starts, by=by)

    pooling.family_influence = record
    try:
        frame = read_results(str(table))
        for rule in rules.RULES:
            densing.fit_trend(frame, rule=rule, n_boot=60, n_boot_share=0)
    finally:
        pooling.family_influence = update
    return seen


def refit(rule, quantile, data, y, kind, clusters, starts) -> np.ndarray:
    """One solve per reference and group over the whole row (the baseline)."""
    from densing.trend.influence import frontier_slopes

    groups = int(clusters.max()) + 1
    weight = (clusters[None, :] != np.arange(groups)[:, None]).astype(float)
    shape = (len(y), groups, y.shape[1])
    return frontier_slopes(
        rule, quantile, data, np.broadcast_to(y[:, None], shape), np.broadcast_to(kind[:, None], shape), weight, starts
    )


def cpu(call) -> tuple[float, object]:
    start = time.process_time()
    out = call()
    return time.process_time() - start, out


def update_and_refit(rule, quantile, data, y, kind, starts, tables) -> tuple[float, float, bool]:
    """CPU seconds of the leave-one-out tables of each clustering in ``tables``, by update and by refit, and whether
    the two give the same slopes."""
    from densing.trend.influence import left_out_slopes

    update_took, new = cpu(
        lambda: [left_out_slopes(rule, quantile, data, y, kind, c, int(c.max()) + 1, starts) for c in tables]
    )
    refit_took, old = cpu(lambda: [refit(rule, quantile, data, y, kind, c, starts) for c in tables])
    return update_took, refit_took, all(np.array_equal(a, b, equal_nan=True) for a, b in zip(new, old))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 3, 7, 15])
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=["same", "unlabeled"])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(
        f"{args.repeats} runs each, alternating update and refit; CPU seconds of the families' and the models' tables "
        "together, median [min–max]"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            totals: dict[str, list[tuple[float, float]]] = {}
            for k in args.sizes:
                for rule, quantile, data, y, kind, starts, by in recorded(replicated(k, shape, Path(tmp))):
                    if by != "family":
                        continue  # the model table is timed with its row's family table below
                    tables = [data["clusters"], np.arange(data["n"])]
                    updates, refits, same = [], [], True
                    for _ in range(args.repeats):
                        update_took, refit_took, agree = update_and_refit(rule, quantile, data, y, kind, starts, tables)
                        updates.append(update_took)
                        refits.append(refit_took)
                        same &= agree
                    up, re = statistics.median(updates), statistics.median(refits)
                    totals.setdefault(rule, []).append((up, re))
                    print(
                        f"{shape:>9} {k:>2}x {rule:>8}: {data['n']:>5} models, {int(data['clusters'].max()) + 1:>4} "
                        f"families, {len(y)} references  update {spread(updates, '.3f')}  refit "
                        f"{spread(refits, '.3f')}  refit / update {re / up if up > 0 else math.inf:6.1f}  "
                        f"same to the bit: {same}",
                        flush=True,
                    )
            for rule, pairs in totals.items():
                if len(pairs) == len(args.sizes):
                    print(
                        f"{shape:>9} {rule:>8}: exponent over {len(args.sizes)} sizes: update "
                        f"{exponent(args.sizes, [u for u, _ in pairs]):.2f}, refit "
                        f"{exponent(args.sizes, [r for _, r in pairs]):.2f}"
                    )


if __name__ == "__main__":
    main()
