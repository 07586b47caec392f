"""A family's members in a results table as plain arrays: what :func:`densing.laws.family.family_points` frames and
rule v3's candidate table (:mod:`densing.laws.candidates_v3`) reads for every family × benchmark without a frame.

Inside :func:`densing.runtime.memo.same_tables` a table's columns are read once (:func:`_table_columns`) and
each family's rows cut from them; outside, each call selects the family's rows alone.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from densing.data.benchmarks import CHANCE_LEVELS
from densing.errors import InputError
from densing.runtime.memo import keeping, per_table


def metric_for(table: pd.DataFrame, benchmark: str, metric: str | None) -> str:
    """``metric``, or the one metric the table has for ``benchmark``."""
    if metric is not None:
        return metric
    found = sorted(table.loc[table["benchmark"] == benchmark, "metric"].astype(str).unique())
    if not found:
        raise InputError(f"benchmark {benchmark!r}: no rows in the table")
    if len(found) != 1:
        raise InputError(f"benchmark {benchmark!r}: metrics {', '.join(found)} in the table; name one (metric=...)")
    return found[0]


@per_table
def table_metric(table: pd.DataFrame, benchmark: str) -> str:
    """:func:`metric_for` with no metric named: the one metric the table has for ``benchmark``."""
    return metric_for(table, benchmark, None)


@per_table
def family_columns(table: pd.DataFrame, family: str) -> dict[str, np.ndarray]:
    """The rows of ``family`` in ``table`` as plain arrays (what :func:`family_arrays` reads), and its members: cut
    from the whole table's arrays (:func:`_table_columns`, read once) inside :func:`~densing.runtime.memo.same_tables`, else read alone."""
    if not keeping():
        mine = _columns(table[table["family"].astype(object) == family])
    else:
        whole = _table_columns(table)
        rows = np.asarray(whole["rows_of"].get(family, ()), dtype=np.intp)
        mine = {name: column[rows] for name, column in whole.items() if name != "rows_of"}
    return {"members": np.unique(mine["model"]), **mine}


@per_table
def _table_columns(table: pd.DataFrame) -> dict:
    """Every row of ``table`` as :func:`_columns`' arrays, and ``rows_of``: each family → its row positions."""
    rows_of: dict = {}
    for i, family in enumerate(table["family"].astype(object).to_numpy()):
        rows_of.setdefault(family, []).append(i)
    return {**_columns(table), "rows_of": rows_of}


def _columns(rows: pd.DataFrame) -> dict[str, np.ndarray]:
    """``rows``' columns as plain arrays: model names as text, benchmark and metric as objects, the numbers as floats."""
    return {"model": rows["model"].astype(str).to_numpy(), "benchmark": rows["benchmark"].astype(object).to_numpy(),
            "metric": rows["metric"].astype(object).to_numpy(), "value": rows["value"].to_numpy(float),
            "params": rows["params"].to_numpy(float), "train_tokens": rows["train_tokens"].to_numpy(float),
            "active_params": (rows["active_params"].to_numpy(float) if "active_params" in rows.columns
                              else np.full(len(rows), np.nan))}


def family_arrays(table: pd.DataFrame, family: str, benchmark: str, *, metric: str | None = None,
                  keep_floor: bool = False) -> tuple[dict[str, np.ndarray], dict]:
    """:func:`densing.laws.family.family_points` as plain arrays ``model``, ``params``, ``train_tokens``, ``score`` (by size, then name),
    without building a frame (rule v3's candidate table reads every family × benchmark), and the dropped lists."""
    metric = metric if metric is not None else table_metric(table, benchmark)
    mine = family_columns(table, family)
    members = mine["members"]
    if not len(members):
        raise InputError(f"family {family!r}: no models of that family in the table")
    chance = CHANCE_LEVELS.get(benchmark)
    if chance is None:
        raise InputError(f"benchmark {benchmark!r}: no chance level in the registry; a family reference needs its floor")
    pick = (mine["benchmark"] == benchmark) & (mine["metric"] == metric)
    model, value, params, tokens, active = (mine[c][pick] for c in ("model", "value", "params", "train_tokens", "active_params"))
    moe = ~np.isnan(active)
    no_tokens = ~moe & np.isnan(tokens)
    at_chance = ~moe & ~no_tokens & (value <= chance) & (not keep_floor)
    dropped = {"moe": sorted(model[moe]), "no_tokens": sorted(model[no_tokens]), "no_score": sorted(set(members) - set(model)),
               "at_chance": sorted(model[at_chance])}
    keep = ~(moe | no_tokens | at_chance)
    order = np.lexsort((model[keep], params[keep]))
    return {"model": model[keep][order], "params": params[keep][order], "train_tokens": tokens[keep][order],
            "score": value[keep][order]}, dropped
