"""A family's members in a results table as plain arrays (what :func:`densing.laws.family.fit_family` fits and the
candidate table reads), and the members that break their family's order (docs/method.md, "Members that break their
family's order"; the rule written before it was run on any table): a dense member L breaks it against a smaller dense
member s of its family on a benchmark when

    S_s − S_L > 2·√(se_s² + se_L²)

(a missing standard error is the binomial one, :func:`densing.data.benchmarks.with_stderr`; a benchmark without either
is not compared), and is flagged against s when that holds on at least :data:`MIN_BENCHMARKS` benchmarks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from densing.data.benchmarks import CHANCE_LEVELS, with_stderr
from densing.data.schema import require_columns
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
    """The rows of ``family`` in ``table`` as plain arrays, and its members: cut from the whole table's arrays
    (:func:`_table_columns`, read once) inside :func:`~densing.runtime.memo.same_tables`, else read alone."""
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
    return {
        "model": rows["model"].astype(str).to_numpy(),
        "benchmark": rows["benchmark"].astype(object).to_numpy(),
        "metric": rows["metric"].astype(object).to_numpy(),
        "value": rows["value"].to_numpy(float),
        "params": rows["params"].to_numpy(float),
        "train_tokens": rows["train_tokens"].to_numpy(float),
        "active_params": (
            rows["active_params"].to_numpy(float) if "active_params" in rows.columns else np.full(len(rows), np.nan)
        ),
    }


def family_arrays(
    table: pd.DataFrame, family: str, benchmark: str, *, metric: str | None = None
) -> tuple[dict[str, np.ndarray], dict]:
    """The family's members usable for a fit of ``benchmark`` as plain arrays ``model``, ``params``, ``train_tokens``,
    ``score`` (by size, then name), and the dropped models: ``moe`` (an ``active_params`` value: not dense),
    ``no_tokens`` (unknown training budget), ``no_score``. A score at or below chance is kept (the likelihood weighs
    it)."""
    metric = metric if metric is not None else table_metric(table, benchmark)
    mine = family_columns(table, family)
    members = mine["members"]
    if not len(members):
        raise InputError(f"family {family!r}: no models of that family in the table")
    if benchmark not in CHANCE_LEVELS:
        raise InputError(
            f"benchmark {benchmark!r}: no chance level in the registry; a family reference needs its floor"
        )
    pick = (mine["benchmark"] == benchmark) & (mine["metric"] == metric)
    model, value, params, tokens, active = (
        mine[c][pick] for c in ("model", "value", "params", "train_tokens", "active_params")
    )
    moe = ~np.isnan(active)
    no_tokens = ~moe & np.isnan(tokens)
    dropped = {
        "moe": sorted(model[moe]),
        "no_tokens": sorted(model[no_tokens]),
        "no_score": sorted(set(members) - set(model)),
    }
    keep = ~(moe | no_tokens)
    order = np.lexsort((model[keep], params[keep]))
    return {
        "model": model[keep][order],
        "params": params[keep][order],
        "train_tokens": tokens[keep][order],
        "score": value[keep][order],
    }, dropped


# -- family members that break their family's order: a larger member scoring below a smaller one beyond noise ----------

MIN_BENCHMARKS = 2
STDERRS = 2.0
COLUMNS = ("family", "model", "params", "smaller_model", "smaller_params", "n_benchmarks", "benchmarks")


@per_table
def _table_arrays(rows: pd.DataFrame) -> dict[str, np.ndarray]:
    """The dense rows with a family, a score and a size as plain arrays; ``benchmark`` is ``benchmark:metric`` and
    ``stderr`` the table's or the binomial one (NaN where neither exists). Once per table inside
    :func:`densing.runtime.memo.same_tables` (each family's rows are its own rows of these)."""
    rows = with_stderr(rows)
    dense = rows["active_params"].isna() if "active_params" in rows.columns else pd.Series(True, index=rows.index)
    rows = rows[dense & rows["family"].notna() & rows["value"].notna() & (rows["params"] > 0)]
    return {
        "family": rows["family"].astype(str).to_numpy(),
        "model": rows["model"].astype(str).to_numpy(),
        "benchmark": (rows["benchmark"].astype(str) + ":" + rows["metric"].astype(str)).to_numpy(),
        "params": rows["params"].to_numpy(float),
        "score": rows["value"].to_numpy(float),
        "stderr": rows["stderr"].to_numpy(float),
    }


def _breaks(a: dict[str, np.ndarray]) -> list[tuple]:
    """(family, model, params, smaller_model, smaller_params, n, benchmarks) of one family's arrays (module rule)."""
    found: dict[tuple, list[str]] = {}
    for benchmark in np.unique(a["benchmark"]):
        on = np.flatnonzero((a["benchmark"] == benchmark) & np.isfinite(a["stderr"]))
        params, score, stderr = a["params"][on], a["score"][on], a["stderr"][on]
        gap = score[None, :] - score[:, None]  # [i, j]: member j's score above member i's
        broken = (params[:, None] > params[None, :]) & (gap > STDERRS * np.hypot(stderr[:, None], stderr[None, :]))
        for i, j in zip(*(on[k] for k in np.nonzero(broken))):  # the pairs in (i, j) order, as a loop over i, then j
            key = (a["family"][i], a["model"][i], a["params"][i], a["model"][j], a["params"][j])
            found.setdefault(key, []).append(str(benchmark))
    return [(*key, len(b), ", ".join(sorted(set(b)))) for key, b in found.items() if len(set(b)) >= MIN_BENCHMARKS]


def order_breaks(table: pd.DataFrame) -> pd.DataFrame:
    """Each (larger member, smaller member) pair of a family in which the larger scores below the smaller by more than
    :data:`STDERRS` standard errors of the difference on :data:`MIN_BENCHMARKS` or more benchmarks (module docstring).
    Columns: family, model (the larger), params, smaller_model, smaller_params, n_benchmarks, benchmarks (those that
    break the order, comma-separated ``benchmark:metric``), largest model first within a family."""
    require_columns(table, ("model", "benchmark", "metric", "value", "params", "family"), "order_breaks")
    a = _table_arrays(table)
    rows = [
        row for family in np.unique(a["family"]) for row in _breaks({k: v[a["family"] == family] for k, v in a.items()})
    ]
    found = pd.DataFrame(rows, columns=list(COLUMNS))
    return found.sort_values(["family", "params", "smaller_params"], ascending=[True, False, True]).reset_index(
        drop=True
    )


@per_table
def _flagged(table: pd.DataFrame, family: str) -> tuple[str, ...]:
    """The members of ``family`` that :func:`order_breaks` flags (once per table and family)."""
    if "family" not in table.columns:
        return ()
    a = _table_arrays(table)
    mine = a["family"] == str(family)
    return tuple(dict.fromkeys(row[1] for row in _breaks({k: v[mine] for k, v in a.items()})))


def family_order_note(table: pd.DataFrame, family: str, fitted) -> dict[str, str]:
    """For a family fit's provenance: each member of ``family`` that :func:`order_breaks` flags → ``"kept"`` if it is
    among the ``fitted`` models, else ``"left out"`` (empty when no member breaks the order)."""
    fitted = set(fitted)
    return {m: ("kept" if m in fitted else "left out") for m in _flagged(table, family)}


def reference_order_breaks(targets: pd.DataFrame, families: set) -> pd.DataFrame:
    """The members of the reference ``families`` that break their family's order (:func:`order_breaks`), each with
    whether the family's fits keep it (a family law is fitted on every member with a size and a budget)."""
    if "family" not in targets.columns or not families:
        return pd.DataFrame()
    found = order_breaks(targets)
    found = found[found["family"].isin(families)].reset_index(drop=True)
    rows_of = targets.drop_duplicates("model").set_index("model")
    fitted = [
        (
            "kept"
            if pd.notna(rows_of.loc[m, "train_tokens"])
            and not ("active_params" in rows_of.columns and pd.notna(rows_of.loc[m, "active_params"]))
            else "left out"
        )
        for m in found["model"]
    ]
    return found.assign(in_fit=fitted)
