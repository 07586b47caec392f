"""How much of a row's pooled work a cap on its references would leave, on tables of new families: counted, not timed.

A row's pooled trend inverts every target under every reference in every paired draw, so its work is references ×
targets × draws (docs/method.md, "What a row costs"; ``bench/reference_axes.py`` times each axis alone). This script
measures the shipped public table (``densing trend --by benchmark``'s rows: benchmarks, sets and the rows at one
budget), reads each row's references r and targets n, and counts the work of the same rows on a table grown ``m``
times by new families (``bench/table_size.py``'s ``new`` shape: every family that passes the reference rule comes
``m`` times, and so does every target), with each row's references capped at K:

    work(m, K) / work(1, no cap) = Σ_rows min(m·r, K)·m·n / Σ_rows r·n

A cap below a row's r in the shipped table would drop references from a shipped row and move its numbers, so the
smallest cap that leaves every shipped number as it is is the largest r of the shipped rows. It asserts nothing.

    python bench/reference_cap.py [--sizes 1 3 7 15]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def shipped_rows() -> list[tuple[str, int, int]]:
    """(row, references, targets) of every measured row of the shipped public table."""
    from densing import paths
    from densing.data import read_results
    from densing.trend.measure import measure_trend

    measured = measure_trend(read_results(paths.RESULTS / "public_models.csv"))
    groups = [("", measured.benchmark_rows), ("", measured.set_rows), (" (one budget)", measured.budget_rows)]
    return [
        (f"{row.name}{tag}", len(row.references), int(row.result.n_models))
        for tag, rows in groups
        for row in rows
        if row.result is not None and row.references
    ]


def work(rows, m: int, cap: int | None) -> float:
    """Σ min(m·r, cap)·m·n over ``rows`` (no cap: m·r)."""
    return sum((m * r if cap is None else min(m * r, cap)) * m * n for _, r, n in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 3, 7, 15])
    args = parser.parse_args(argv)
    rows = shipped_rows()
    largest = max(r for _, r, _ in rows)
    print(f"# python bench/reference_cap.py --sizes {' '.join(map(str, args.sizes))}")
    print(f"{len(rows)} measured rows of the shipped public table; references per row (targets):")
    print("  " + ", ".join(f"{name} {r} ({n})" for name, r, n in rows))
    print(f"the largest row pools {largest} references: the smallest cap that leaves every shipped number as it is")
    base = work(rows, 1, None)
    caps = [None, largest, 2 * largest]
    print("pooled work of the m× table of new families / the shipped table's, per cap K on a row's references:")
    print("   m   " + "  ".join(f"{'no cap' if k is None else f'K = {k}':>9}" for k in caps) + "  (m, linear)")
    for m in args.sizes:
        print(f"{m:>4}   " + "  ".join(f"{work(rows, m, k) / base:9.1f}" for k in caps) + f"  {m:>11}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
