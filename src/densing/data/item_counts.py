"""Item counts of benchmark splits, for binomial standard errors of scores.

A score S measured on n independent items has the sampling standard error √(S(1 − S)/n) (the
binomial standard error of a proportion). Where a results table carries no ``stderr``, densing
uses this with n from ``item_counts.csv`` beside this module: one row per benchmark name, with the
split and the source of the count.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from densing.errors import InputError

TABLE = Path(__file__).with_name("item_counts.csv")


@lru_cache(maxsize=1)
def item_counts() -> pd.DataFrame:
    """The shipped table: benchmark, split, items, source."""
    return pd.read_csv(TABLE)


def item_count(benchmark: str) -> int:
    """Number of items of ``benchmark``'s evaluated split; InputError if the table lacks it."""
    table = item_counts()
    rows = table[table["benchmark"] == benchmark]
    if rows.empty:
        raise InputError(f"benchmark {benchmark!r}: no item count in {TABLE.name}; give a 'stderr' column instead")
    return int(rows["items"].iloc[0])


def binomial_stderr(score, benchmark: str) -> np.ndarray:
    """√(S(1 − S)/n) for scores S on ``benchmark`` (n from the item-count table)."""
    s = np.clip(np.asarray(score, float), 0.0, 1.0)
    return np.sqrt(s * (1.0 - s) / item_count(benchmark))


def with_stderr(targets: pd.DataFrame) -> pd.DataFrame:
    """Fill a missing score standard error with the binomial √(S(1 − S)/n), n the benchmark's item count."""
    known = set(item_counts()["benchmark"])
    if "stderr" in targets.columns and not (targets["stderr"].isna() & targets["benchmark"].isin(known)).any():
        return targets  # nothing to fill (a table this function already filled, say): no copy
    out = targets.copy()
    if "stderr" not in out.columns:
        out["stderr"] = np.nan
    missing = out["stderr"].isna() & out["benchmark"].isin(known)
    for benchmark, rows in out[missing].groupby("benchmark"):
        out.loc[rows.index, "stderr"] = binomial_stderr(rows["value"].to_numpy(float), str(benchmark))
    return out
