"""A wide results table (one row per model, a column of scores per benchmark) as tidy rows: :func:`wide_to_tidy`,
which :func:`densing.data.readers.read_wide_csv` and the names contract of scores files
(:func:`densing.data.names.scores_table`) both melt with.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from densing.data.benchmarks import WIDE_COLUMNS, WIDE_SHOTS
from densing.data.schema import SOURCE_COLUMN, SOURCE_LINE, SOURCE_ROW
from densing.errors import InputError

WIDE_METRIC = "score"


def wide_to_tidy(frame: pd.DataFrame, source: str = "<table>", columns: dict | None = None) -> pd.DataFrame:
    """Melt a one-row-per-model table with score columns (``columns``: {column: benchmark}, by default
    :data:`densing.data.benchmarks.WIDE_COLUMNS`) into tidy rows, the per-model columns repeated on each row and empty
    scores skipped. A table without ``n_shot`` gets :data:`densing.data.benchmarks.WIDE_SHOTS` where they are set."""
    columns, shots = dict(WIDE_COLUMNS) if columns is None else columns, dict(WIDE_SHOTS)
    scores = [c for c in frame.columns if c in columns]
    if not scores:
        raise InputError(
            f"{source}: neither a tidy table (model, benchmark, metric, value, params) nor a wide one with score columns"
        )
    require_model_and_params(frame, scores, source)
    if SOURCE_LINE not in frame.columns:  # the file's row, for the errors (a text file's reader kept its lines)
        frame = frame.assign(**{SOURCE_ROW: np.arange(1, len(frame) + 1)})
    keep = [c for c in frame.columns if c not in scores]
    long = frame.melt(id_vars=keep, value_vars=scores, var_name="benchmark", value_name="value")
    long = long[long["value"].notna()].copy()
    long[SOURCE_COLUMN] = long["benchmark"]
    long["benchmark"] = long["benchmark"].map(columns)
    long["metric"] = WIDE_METRIC
    if "n_shot" not in long.columns and long["benchmark"].isin(list(shots)).any():
        long["n_shot"] = long["benchmark"].map(shots).astype("Int64")
    return long.reset_index(drop=True)


def require_model_and_params(frame: pd.DataFrame, scores: list, source: str) -> None:
    """An InputError naming ``source`` where a wide table with the score columns ``scores`` lacks ``model`` or
    ``params``, with the column that looks like it."""
    looks_like = {
        "model": (lambda c: c.strip().lower() == "model", "names are lower case"),
        "params": (lambda c: "size" in c.lower() or "param" in c.lower(), "give plain counts, 7e9 for 7B"),
    }
    for needed, (like, why) in looks_like.items():
        if needed not in frame.columns:
            near = [str(c) for c in frame.columns if like(str(c))]
            hint = f" (found {near[0]!r}: {why})" if near else ""
            raise InputError(
                f"{source}: a wide table with score columns ({', '.join(scores[:3])}, …) needs a column "
                f"'{needed}'{hint}; the shipped results/public_models.csv is this table in that form"
            )
