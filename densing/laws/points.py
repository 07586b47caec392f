"""The points a reference fit is made on: which rows of a tidy table, averaged how, cut where.

:func:`select_points` turns a tidy table into (model, params, train_tokens, score, loss, run) for
one benchmark or the per-model mean of several; :func:`final_points` and :func:`past_run_fraction`
are the cuts by training progress; :func:`reference_subset` the cuts by size and family;
:func:`point_tuples` the points as a fit file stores them; :func:`data_hash` the hash a fit records of them.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from densing.errors import InputError

#: The columns of a reference point (a fit file stores its points in this order).
POINT_COLUMNS = ("model", "params", "train_tokens", "score", "loss", "run")


def select_points(
    frame: pd.DataFrame,
    benchmark: str | list[str],
    *,
    metric: str = "acc",
    n_shot: int | None = None,
    need_loss: bool = False,
) -> tuple[str, pd.DataFrame]:
    """Reference points (model, params, train_tokens, score, loss, run) for a benchmark.

    A list of benchmarks gives their per-model average (models with all of them), as the paper
    fits the average score across benchmarks; its name is ``mean(b1,b2,…)``. ``run`` is the
    table's ``run`` column where set (checkpoints of one training run), else the model.
    """
    names = [benchmark] if isinstance(benchmark, str) else list(benchmark)
    rows = frame[frame["benchmark"].isin(names) & (frame["metric"] == metric)]
    if n_shot is not None:
        rows = rows[rows["n_shot"] == n_shot]
    if rows.empty:
        have = ", ".join(sorted(frame["benchmark"].unique())[:12])
        raise InputError(f"benchmark {'/'.join(names)!r} with metric {metric!r}: no rows in the data (benchmarks: {have})")
    missing_tokens = rows[rows["train_tokens"].isna()]
    if len(missing_tokens):
        raise InputError(
            f"model {missing_tokens['model'].iloc[0]!r}: field 'train_tokens' is empty; "
            "reference points need both params and train_tokens"
        )
    if need_loss and rows["loss"].isna().any():
        bad = rows[rows["loss"].isna()]["model"].iloc[0]
        raise InputError(f"model {bad!r}: field 'loss' is empty; the two-step law needs conditional losses (use --law composed)")
    if "loss_unit" in rows.columns and rows["loss"].notna().any():
        units = set(rows.loc[rows["loss"].notna(), "loss_unit"].fillna("nats"))
        if len(units) > 1:
            raise InputError(f"benchmark {'/'.join(names)!r}: losses in several units ({', '.join(sorted(units))}); fit one unit at a time")
    rows = rows.copy()
    run = rows["run"] if "run" in rows.columns else pd.Series(pd.NA, index=rows.index)
    rows["run"] = run.astype("string").fillna(rows["model"].astype("string"))
    grouped = rows.groupby("model", sort=True).agg(
        params=("params", "first"),
        train_tokens=("train_tokens", "first"),
        score=("value", "mean"),
        loss=("loss", "mean"),
        run=("run", "first"),
        n=("benchmark", "nunique"),
    )
    grouped = grouped[grouped["n"] == len(names)].drop(columns="n").reset_index()
    label = names[0] if len(names) == 1 else f"mean({','.join(names)})"
    return label, grouped[list(POINT_COLUMNS)]


def final_points(points: pd.DataFrame, last: int = 5) -> pd.DataFrame:
    """One point per run: the mean score and loss of its last ``last`` checkpoints, at the last D.

    A run's intermediate checkpoints sit inside its learning-rate schedule, so the loss law is
    fitted on each run's end (AI2 fits its ladder's step 1 on the final checkpoints, smoothed by a
    moving average of 5: allenai/OLMo-ladder ``src/scripts/paper/README.md``, ``--moving_avg 5``).
    """
    if last < 1:
        raise InputError(f"final checkpoints: expected a positive count, got {last!r}")
    out = []
    for run, group in points.groupby("run", sort=True):
        tail = group.sort_values("train_tokens").tail(last)
        row = tail.iloc[-1].to_dict()
        row["score"] = float(tail["score"].mean())
        row["loss"] = float(tail["loss"].mean()) if tail["loss"].notna().all() else np.nan
        out.append(row)
    return pd.DataFrame(out, columns=list(POINT_COLUMNS))


def past_run_fraction(points: pd.DataFrame, fraction: float) -> pd.DataFrame:
    """Checkpoints at or past ``fraction`` of their run's final token count.

    AI2 skips the first 10% of each ladder run in its step 2 (``--skip_perc 0.1``): early
    checkpoints are far from the trained models the law is used for.
    """
    if not 0.0 <= fraction < 1.0:
        raise InputError(f"run fraction: expected a number in [0, 1), got {fraction!r}")
    final = points.groupby("run")["train_tokens"].transform("max")
    return points[points["train_tokens"] >= fraction * final].reset_index(drop=True)


def point_tuples(points: pd.DataFrame) -> tuple[tuple, ...]:
    return tuple(
        (str(r.model), float(r.params), float(r.train_tokens), float(r.score), None if pd.isna(r.loss) else float(r.loss), str(r.run))
        for r in points.itertuples(index=False)
    )


def reference_subset(
    frame: pd.DataFrame,
    *,
    max_params: float | None = None,
    families: list[str] | None = None,
    source: str = "<data>",
) -> pd.DataFrame:
    """The rows of ``frame`` to fit on: models below ``max_params`` and of the given ``families``.

    An unknown family is an :class:`InputError` naming ``source``.
    """
    if max_params is not None:
        frame = frame[frame["params"] < max_params]
    if families is not None:
        unknown = sorted(set(families) - set(frame["family"].dropna().unique()))
        if unknown:
            raise InputError(f"{source}: field 'family': no models of family {', '.join(unknown)}")
        frame = frame[frame["family"].isin(families)]
    return frame


def _as_text(column: pd.Series) -> list[str]:
    """A column's cells as pandas' ``astype("string")`` writes them, missing ones as ``<NA>``: ``str`` of each Python
    value for 64-bit floats and integers, booleans and strings (the same text, without pandas' string arrays), pandas
    itself for any other dtype."""
    kind = column.dtype.kind
    if kind in "fiub" and column.dtype.itemsize in (1, 8) or kind in "OUT" or str(column.dtype) in ("str", "string"):
        return ["<NA>" if v is None or v is pd.NA or (isinstance(v, float) and v != v) else str(v) for v in column.tolist()]
    return column.astype("string").fillna("<NA>").tolist()


def data_hash(frame, columns: list[str] | None = None) -> str:
    """The ``data_hash`` a fit records of the points it was made on: SHA-256 (first 16 hex digits)
    of the given columns' values, row order independent. ``frame``: a DataFrame, or columns by name as arrays of
    64-bit floats or text (the same text, so the same hash, as their frame's)."""
    cols = columns or [c for c in frame.columns]
    rows = sorted("\x1f".join(r) for r in zip(*(_as_text(frame[c]) for c in cols)))
    digest = hashlib.sha256("\x1e".join(rows).encode()).hexdigest()
    return digest[:16]
