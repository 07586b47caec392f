"""CPU seconds of one row's pooled trend along each of its sizes alone: references, targets, and both together.

``bench/table_size.py`` grows a whole table; in its ``new`` shape a row's references and its targets grow together,
so its cost is their product. This script separates the axes on one row: the headline row of the shipped public
table (the row :func:`densing.fit_trend` measures), recorded as :func:`densing.trend.pooling.pooled_trend` receives
it (its common targets), then grown ``m`` times (``--sizes``) along

- ``references``: every reference comes ``m`` times (copy c named ``<name>~c``, the same fit and the same own
  models: a family whose law is the original's), the targets unchanged;
- ``targets``: every target comes ``m`` times (copy c named ``<model>~c``, released c days later, in the same family:
  the family bootstrap draws the same number of families), the references unchanged;
- ``both``: both at once (``bench/table_size.py``'s ``new`` shape, on one row).

Each size's pooled trend runs ``--repeats`` times in this process (600 draws, 300 for the variance shares, no
doubling of the draws: the same work at every repeat), in CPU seconds (``time.process_time``), alternating the sizes.
The script prints per axis and size the median and range, the ratio to the 1× median, the least-squares exponent b of
cost ∝ m^b over the sizes, and the share of one run spent pooling the references' slopes
(:func:`densing.trend.uncertainty.pool_slopes`, the step whose size is the number of references alone). It asserts
nothing.

    python bench/reference_axes.py [--sizes 1 3 7 15] [--repeats 5] [--axes references targets both]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from _timing import exponent, spread

AXES = ("references", "targets", "both")
N_BOOT, N_BOOT_SHARE = 600, 300


class Renamed:
    """A reference under another name: every attribute but ``name`` is the original's."""

    def __init__(self, inversion, name: str) -> None:
        self._inversion, self.name = inversion, name

    def __getattr__(self, attribute: str):
        return getattr(self._inversion, attribute)


def headline_row():
    """The common targets of the headline row of ``densing.fit_trend`` on the shipped public table."""
    import densing
    from densing import paths
    from densing.data import read_results
    from densing.trend import pooling

    seen = []
    pooled = pooling.pooled_trend

    def record(common, **kwargs):
        seen.append(common)
        return pooled(common, **kwargs)

    pooling.pooled_trend = record
    try:
        densing.fit_trend(read_results(str(paths.RESULTS / "public_models.csv")), n_boot=60, n_boot_share=0)
    finally:
        pooling.pooled_trend = pooled
    return seen[0]


def grown(common, m: int, axis: str):
    """``common`` grown ``m`` times along ``axis`` (module docstring)."""
    inversions, frame, own = common.inversions, common.frame, common.own
    if axis in ("references", "both") and m > 1:
        inversions = inversions + tuple(
            Renamed(inv, f"{inv.name}~{c}") for c in range(1, m) for inv in common.inversions
        )
        own = np.concatenate([own] * m, axis=0)
    if axis in ("targets", "both") and m > 1:
        copies = []
        for c in range(m):
            copy = frame.copy()
            if c:
                copy["model"] = copy["model"].astype(str) + f"~{c}"
                copy["t"] = copy["t"] + c
            copies.append(copy)
        frame = pd.concat(copies, ignore_index=True)
        own = np.concatenate([own] * m, axis=1)
    return dataclasses.replace(common, inversions=inversions, frame=frame, own=own)


def timed(common) -> tuple[float, float]:
    """(CPU seconds of one pooled trend, of which pooling the slopes)."""
    from densing.trend import pooling

    spent = [0.0]
    pool = pooling.pool_slopes

    def counted(*args, **kwargs):
        start = time.process_time()
        try:
            return pool(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - start

    pooling.pool_slopes = counted
    try:
        start = time.process_time()
        pooling.pooled_trend(common, n_boot=N_BOOT, n_boot_share=N_BOOT_SHARE, seed=0)
        return time.process_time() - start, spent[0]
    finally:
        pooling.pool_slopes = pool


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 3, 7, 15])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--axes", nargs="+", choices=AXES, default=list(AXES))
    args = parser.parse_args(argv)
    base = headline_row()
    print(
        f"# python bench/reference_axes.py --sizes {' '.join(map(str, args.sizes))} --repeats {args.repeats} "
        f"--axes {' '.join(args.axes)}"
    )
    print(
        f"headline row of the public table: {len(base.inversions)} references, {len(base.frame)} targets; "
        f"{N_BOOT} draws; CPU seconds of one pooled trend, median [min–max] of {args.repeats}"
    )
    for axis in args.axes:
        rows = {m: grown(base, m, axis) for m in args.sizes}
        timed(rows[args.sizes[0]])  # warm-up
        cpu = {m: [] for m in args.sizes}
        pooling = {m: [] for m in args.sizes}
        for _ in range(args.repeats):
            for m in args.sizes:
                total, pooled = timed(rows[m])
                cpu[m].append(total)
                pooling[m].append(pooled)
        first = statistics.median(cpu[args.sizes[0]])
        for m in args.sizes:
            median = statistics.median(cpu[m])
            print(
                f"{axis:>10} {m:>3}x ({len(rows[m].inversions):>3} references, {len(rows[m].frame):>5} targets)  "
                f"CPU {spread(cpu[m])}  / 1x {median / first:6.2f}  pooling the slopes "
                f"{statistics.median(pooling[m]):.4f} s"
            )
        b = exponent(args.sizes, [statistics.median(cpu[m]) for m in args.sizes])
        print(f"{axis:>10} exponent over {len(args.sizes)} sizes: {b:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
