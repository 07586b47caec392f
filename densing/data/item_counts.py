"""Item counts of benchmark splits, for binomial standard errors of scores.

A score S measured on n independent items has the sampling standard error √(S(1 − S)/n) (the
binomial standard error of a proportion). Where a results table carries no ``stderr``, densing
uses this with n the item count of the benchmark's record (:data:`densing.data.benchmarks.BENCHMARKS`: the count,
its split and its source).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from densing.data.benchmarks import BENCHMARKS, ITEM_COUNTS
from densing.errors import InputError


def item_counts() -> pd.DataFrame:
    """The registered item counts as a table: benchmark, split, items, source (one row per record with a count)."""
    rows = [(name, BENCHMARKS[name].split, items, BENCHMARKS[name].items_source) for name, items in ITEM_COUNTS.items()]
    return pd.DataFrame(rows, columns=["benchmark", "split", "items", "source"])


def item_count(benchmark: str) -> int:
    """Number of items of ``benchmark``'s evaluated split; InputError if its record has none."""
    if benchmark not in ITEM_COUNTS:
        raise InputError(f"benchmark {benchmark!r}: no item count in the benchmark registry; give a 'stderr' column "
                         "instead")
    return int(ITEM_COUNTS[benchmark])


def binomial_stderr(score, benchmark: str) -> np.ndarray:
    """√(S(1 − S)/n) for scores S on ``benchmark`` (n from the item-count table)."""
    s = np.clip(np.asarray(score, float), 0.0, 1.0)
    return np.sqrt(s * (1.0 - s) / item_count(benchmark))


def with_stderr(targets: pd.DataFrame) -> pd.DataFrame:
    """Fill a missing score standard error with the binomial √(S(1 − S)/n), n the benchmark's item count."""
    known = set(ITEM_COUNTS)
    if "stderr" in targets.columns and not (targets["stderr"].isna() & targets["benchmark"].isin(known)).any():
        return targets  # nothing to fill (a table this function already filled, say): no copy
    out = targets.copy()
    if "stderr" not in out.columns:
        out["stderr"] = np.nan
    missing = (out["stderr"].isna() & out["benchmark"].isin(known)).to_numpy()
    stderr = out["stderr"].to_numpy(float).copy()
    values, names = out["value"].to_numpy(float), out["benchmark"].astype(str).to_numpy()
    for benchmark in np.unique(names[missing]):  # by position: a table's index need not be unique
        rows = missing & (names == benchmark)
        stderr[rows] = binomial_stderr(values[rows], str(benchmark))
    out["stderr"] = stderr
    return out
