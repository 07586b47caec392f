"""Rendering DataFrames for the terminal (rich table), JSON (a list of row objects) or CSV.

JSON holds no NaN or infinity: such values become ``null``; a censored effective size (N̂ = +inf)
is therefore ``null`` with its reason in the ``censored`` field.
"""
from __future__ import annotations

import io
import math
from datetime import date, datetime

import numpy as np
import orjson
import pandas as pd

FORMATS = ("table", "json", "csv")


def _plain(value):
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (pd.Timestamp, datetime, date)):
        return value.strftime("%Y-%m-%d")
    return value


def records(frame: pd.DataFrame) -> list[dict]:
    """JSON-ready list of dicts (NaN/inf → None, timestamps → YYYY-MM-DD)."""
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


def to_json(frame: pd.DataFrame) -> str:
    return orjson.dumps(records(frame), option=orjson.OPT_INDENT_2).decode()


def to_csv(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_datetime64_any_dtype(out[column]):
            out[column] = out[column].dt.strftime("%Y-%m-%d")
    out.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()


def _cell(value) -> str:
    value = _plain(value) if not (isinstance(value, float) and math.isinf(value)) else value
    if value is None:
        return "—"
    if isinstance(value, float):
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        return f"{value:.4g}"
    return str(value)


def print_frame(frame: pd.DataFrame, fmt: str = "table", *, title: str | None = None) -> None:
    """Print ``frame`` to stdout in ``fmt`` (table|json|csv)."""
    import sys

    if fmt == "json":
        sys.stdout.write(to_json(frame) + "\n")
    elif fmt == "csv":
        sys.stdout.write(to_csv(frame))
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, show_lines=False)
        for column in frame.columns:
            table.add_column(str(column), overflow="fold")
        for row in frame.itertuples(index=False, name=None):
            table.add_row(*(_cell(v) for v in row), style=None)
        # model names are user data: rich markup in them must print literally
        Console(markup=False, highlight=False).print(table)
