"""Family members that break their family's order: a larger member scoring below a smaller one beyond noise.

A family law (:mod:`densing.laws.family`) assumes the score rises with size within one recipe. A member that scores
below a *smaller* member of its own family on several benchmarks is not that recipe at a larger size (a different
data mix, a broken release, a mislabelled size), and a law fitted through it bends where the family does not.

**The rule** (written before it was run on any table). A dense member L (no ``active_params``) breaks the order
against a smaller dense member s of the same family on a benchmark when

    S_s − S_L > 2·√(se_s² + se_L²)

(the difference beyond 2 standard errors; a missing standard error is the binomial one from the benchmark's item
count, :func:`densing.data.item_counts.with_stderr`; a benchmark without either is not compared). L is flagged against
s when that holds on at least :data:`MIN_BENCHMARKS` benchmarks. Example: on the Swallow table (2025-06) Qwen3-14B-Base
scores below Qwen3-8B-Base on BBH, MATH and GSM8K.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from densing.data.item_counts import with_stderr
from densing.data.schema import require_columns
from densing.runtime.memo import per_table

MIN_BENCHMARKS = 2
STDERRS = 2.0
COLUMNS = ("family", "model", "params", "smaller_model", "smaller_params", "n_benchmarks", "benchmarks")


def _arrays(rows: pd.DataFrame) -> dict[str, np.ndarray]:
    """The dense rows with a family, a score and a size as plain arrays; ``benchmark`` is ``benchmark:metric`` and
    ``stderr`` the table's or the binomial one (NaN where neither exists)."""
    rows = with_stderr(rows)
    dense = rows["active_params"].isna() if "active_params" in rows.columns else pd.Series(True, index=rows.index)
    rows = rows[dense & rows["family"].notna() & rows["value"].notna() & (rows["params"] > 0)]
    return {"family": rows["family"].astype(str).to_numpy(), "model": rows["model"].astype(str).to_numpy(),
            "benchmark": (rows["benchmark"].astype(str) + ":" + rows["metric"].astype(str)).to_numpy(),
            "params": rows["params"].to_numpy(float), "score": rows["value"].to_numpy(float),
            "stderr": rows["stderr"].to_numpy(float)}


def _breaks(a: dict[str, np.ndarray], min_benchmarks: int, stderrs: float) -> list[tuple]:
    """(family, model, params, smaller_model, smaller_params, n, benchmarks) of one family's arrays (module rule)."""
    found: dict[tuple, list[str]] = {}
    for benchmark in np.unique(a["benchmark"]):
        on = np.flatnonzero((a["benchmark"] == benchmark) & np.isfinite(a["stderr"]))
        for i in on:
            for j in on:
                gap = a["score"][j] - a["score"][i]
                if a["params"][i] > a["params"][j] and gap > stderrs * np.hypot(a["stderr"][i], a["stderr"][j]):
                    key = (a["family"][i], a["model"][i], a["params"][i], a["model"][j], a["params"][j])
                    found.setdefault(key, []).append(str(benchmark))
    return [(*key, len(b), ", ".join(sorted(set(b)))) for key, b in found.items() if len(set(b)) >= min_benchmarks]


def order_breaks(table: pd.DataFrame, *, min_benchmarks: int = MIN_BENCHMARKS, stderrs: float = STDERRS) -> pd.DataFrame:
    """Each (larger member, smaller member) pair of a family in which the larger scores below the smaller by more than
    ``stderrs`` standard errors of the difference on ``min_benchmarks`` or more benchmarks (module docstring).

    Columns: family, model (the larger), params, smaller_model, smaller_params, n_benchmarks, benchmarks (the
    benchmarks that break the order, comma-separated ``benchmark:metric``), largest model first within a family.
    """
    require_columns(table, ("model", "benchmark", "metric", "value", "params", "family"), "order_breaks")
    a = _table_arrays(table)
    rows = [row for family in np.unique(a["family"])
            for row in _breaks({k: v[a["family"] == family] for k, v in a.items()}, min_benchmarks, stderrs)]
    found = pd.DataFrame(rows, columns=list(COLUMNS))
    return (found.sort_values(["family", "params", "smaller_params"], ascending=[True, False, True])
            .reset_index(drop=True))


@per_table
def _flagged(table: pd.DataFrame, family: str) -> tuple[str, ...]:
    """The members of ``family`` that :func:`order_breaks` flags (once per table and family inside
    :func:`densing.runtime.memo.same_tables`)."""
    if "family" not in table.columns:
        return ()
    a = _table_arrays(table)
    mine = a["family"] == str(family)
    if not mine.any():
        return ()
    return tuple(dict.fromkeys(row[1] for row in _breaks({k: v[mine] for k, v in a.items()}, MIN_BENCHMARKS, STDERRS)))


@per_table
def _table_arrays(table: pd.DataFrame) -> dict[str, np.ndarray]:
    """:func:`_arrays` of the whole table, once per table inside :func:`densing.runtime.memo.same_tables` (each
    family's rows are its own rows of these: every step of :func:`_arrays` reads one row at a time)."""
    return _arrays(table)


def family_order_note(table: pd.DataFrame, family: str, fitted) -> dict[str, str]:
    """For a family fit's provenance: each member of ``family`` that :func:`order_breaks` flags → ``"kept"`` if it is
    among the ``fitted`` models, else ``"left out"`` (empty when no member breaks the order)."""
    fitted = set(fitted)
    return {m: ("kept" if m in fitted else "left out") for m in _flagged(table, family)}
