"""The shipped table of public base models: ObsScaling's evaluations joined with release dates.

Inputs (all files, read only here):

- an ObsScaling folder (``base_llm_benchmark_eval.csv``, ``base_llm_leaderboard_v2_eval.csv``,
  ``SOURCE_COMMIT``; Ruan et al. 2024, "Observational Scaling Laws", github.com/ryoungj/ObsScaling):
  148 open base models evaluated with one harness configuration;
- a release-dates file: ``model, release_date, date_confidence, date_source, note``;
- a corrections file: ``model, field, source_value, corrected_value, reason, evidence_url``, one row
  per value of the source that is replaced, each with its reason and evidence;
- optionally an active-parameters file for mixture-of-experts models:
  ``model, active_params, evidence_url, note``.

:func:`build_public_models` joins them into one wide row per model (columns :data:`OUTPUT_COLUMNS`)
and validates it; what :func:`tools.public_table.checks.validate_public_models` still finds in the result is reported
beside the table (the command line prints it), never silently fixed. The inputs' readers and
columns are :mod:`tools.public_table.read`, the checks :mod:`tools.public_table.checks`; this
module joins, corrects and writes.

Regenerate the shipped table (byte-identical for the same inputs)::

    python tools/build_tables.py public --obsscaling results/obsscaling \\
        --dates results/release_dates.csv --corrections results/corrections.csv \\
        --active-params results/active_params.csv --out results/public_models.csv
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from densing.data.schema import is_missing
from densing.errors import InputError
from densing.numbers import parse_count
from tools.public_table.read import (
    COUNT_COLUMNS,
    OUTPUT_COLUMNS,
    read_active_params,
    read_corrections,
    read_obsscaling,
    read_release_dates,
)

# ---------------------------------------------------------------------------------------------
# corrections and build


def _same_count(current: object, written: str) -> bool:
    if written.strip() == "":
        return is_missing(current)
    if is_missing(current):
        return False
    return math.isclose(float(current), parse_count(written), rel_tol=1e-9)  # type: ignore[arg-type]


def apply_corrections(frame: pd.DataFrame, corrections: pd.DataFrame) -> pd.DataFrame:
    """Return a copy of ``frame`` with each correction applied.

    A correction names the value it replaces (``source_value``); if the source no longer holds
    that value the correction is stale and an :class:`InputError` is raised rather than
    overwriting a value nobody checked. An empty ``source_value`` of a count means "the source
    gives none": it fills a missing count and is stale once the source holds one. Counts may be
    written as ``7e9`` or ``7B``.
    """
    result = frame.copy()
    positions = {model: index for index, model in zip(result.index, result["model"])}
    for index, row in corrections.iterrows():
        where = f"correction row {index + 2} ({row['model']}, {row['field']})"
        if row["model"] not in positions:
            raise InputError(f"{where}: model not in the source table")
        position = positions[row["model"]]
        current = result.at[position, row["field"]]
        if row["field"] in COUNT_COLUMNS:
            if not _same_count(current, row["source_value"]):
                raise InputError(f"{where}: source holds {current!r}, correction expects {row['source_value']!r}")
            result.at[position, row["field"]] = round(
                parse_count(row["corrected_value"], field=row["field"], where=where)
            )
        else:
            if str(current) != row["source_value"]:
                raise InputError(f"{where}: source holds {current!r}, correction expects {row['source_value']!r}")
            result.at[position, row["field"]] = row["corrected_value"]
    return result


def build_public_models(
    obsscaling_dir: str | Path,
    dates_csv: str | Path,
    corrections_csv: str | Path,
    active_params_csv: str | Path | None = None,
) -> pd.DataFrame:
    """Join ObsScaling's models with release dates, apply corrections, validate again.

    Returns one row per model in :data:`OUTPUT_COLUMNS` order, sorted by model id. Models absent
    from the dates file get an empty date and confidence ``none``. The issues that remain after
    the corrections are :func:`tools.public_table.checks.validate_public_models` of the result; they are reported, not fixed.
    """
    source = read_obsscaling(obsscaling_dir)
    dates = read_release_dates(dates_csv)
    corrections = read_corrections(corrections_csv)
    unknown = sorted(set(dates["model"]) - set(source["model"]))
    if unknown:
        raise InputError(f"{dates_csv}: models absent from the source table: {unknown}")
    frame = apply_corrections(source, corrections)
    if active_params_csv is not None:
        active = read_active_params(active_params_csv)
        missing = sorted(set(active["model"]) - set(frame["model"]))
        if missing:
            raise InputError(f"{active_params_csv}: models absent from the source table: {missing}")
        values = {
            model: round(parse_count(value, field="active_params", where=f"{active_params_csv} ({model})"))
            for model, value in zip(active["model"], active["active_params"])
        }
        frame["active_params"] = pd.array([values.get(model, pd.NA) for model in frame["model"]], dtype="Int64")
    frame = frame.merge(dates.drop(columns=["note"]), on="model", how="left", validate="one_to_one")
    frame["release_date"] = frame["release_date"].fillna("")
    frame["date_source"] = frame["date_source"].fillna("")
    frame["date_confidence"] = frame["date_confidence"].fillna("none")
    frame = frame[list(OUTPUT_COLUMNS)].sort_values("model", kind="stable").reset_index(drop=True)
    return frame


def write_public_models(frame: pd.DataFrame, path: str | Path) -> None:
    """Write the table as CSV atomically (temporary file in the same folder, then ``os.replace``)."""
    from densing.io import atomic_write_text

    atomic_write_text(path, frame[list(OUTPUT_COLUMNS)].to_csv(index=False, lineterminator="\n"))
