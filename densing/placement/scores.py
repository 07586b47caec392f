"""``densing measure``'s third step: a suite's scores in the store as rows of the public table, each with the binomial
standard error of the items actually scored."""
from __future__ import annotations

import datetime as _datetime
from typing import Sequence

import numpy as np
import pandas as pd

from densing.errors import EvalError


def binomial_items_stderr(score, items) -> np.ndarray:
    """√(p(1 − p)/n) with p the score held within [0.5/n, 1 − 0.5/n] (docs/measure.md, step 3): a score of 0 or 1 keeps
    an error of half an item."""
    n = np.asarray(items, float)
    p = np.clip(np.asarray(score, float), 0.5 / n, 1 - 0.5 / n)
    return np.sqrt(p * (1 - p) / n)


def public_scores(rows: pd.DataFrame, specs: Sequence, *, today: str | None = None) -> pd.DataFrame:
    """The store's rows of a suite as the public table's: ``model, benchmark, metric, value, stderr, items, params,
    release_date, release_date_source, family, suite_benchmark`` (one row per model × suite benchmark)."""
    from densing.eval.benchmarks import KNOWN_BENCHMARKS, PUBLIC_TABLE_BENCHMARKS

    today = today or _datetime.date.today().isoformat()
    by_name = {s.name: s for s in specs}
    out = []
    for (model, bench), group in rows.groupby(["model", "benchmark"], sort=False):
        if bench not in PUBLIC_TABLE_BENCHMARKS:
            continue
        metric = KNOWN_BENCHMARKS[bench].metric
        chosen = group[group["metric"] == metric]
        if chosen.empty:
            raise EvalError(f"{model} / {bench}: the store has no {metric!r} row (metrics: {', '.join(group['metric'])})")
        row = chosen.iloc[0]
        spec = by_name.get(model)
        dated = spec is not None and spec.release_date is not None
        items = float(row["items"])
        out.append({
            "model": model, "benchmark": PUBLIC_TABLE_BENCHMARKS[bench], "metric": "score", "value": float(row["value"]),
            "stderr": float(binomial_items_stderr(row["value"], items)), "items": int(items),
            "params": float(row["params"]), "release_date": spec.release_date if dated else today,
            "release_date_source": "models file" if dated else "today (no release_date in the models file)",
            "family": (spec.family if spec is not None and spec.family else model), "suite_benchmark": bench,
        })
    return pd.DataFrame(out)
