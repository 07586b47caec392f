"""The inputs of the shipped public-models table (:mod:`tools.public_table.build`): their files, their columns, their readers.

Every reader checks that its file exists and holds its columns, and says which file is wrong when not.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from densing.errors import InputError
from densing.numbers import parse_date

BENCHMARK_FILE = "base_llm_benchmark_eval.csv"
LEADERBOARD_FILE = "base_llm_leaderboard_v2_eval.csv"
COMMIT_FILE = "SOURCE_COMMIT"

#: Scores of the main ObsScaling table, kept under the source's column names (fractions in [0, 1]).
BENCHMARK_COLUMNS: tuple[str, ...] = (
    "MMLU",
    "ARC-C",
    "HellaSwag",
    "Winograd",
    "TruthfulQA",
    "GSM8K",
    "XWinograd",
    "HumanEval",
)
#: Open LLM Leaderboard v2 scores, present for 72 of the models, under the source's column names.
LEADERBOARD_COLUMNS: tuple[str, ...] = (
    "leaderboard_bbh",
    "leaderboard_gpqa",
    "leaderboard_ifeval",
    "leaderboard_math_hard",
    "leaderboard_mmlu_pro",
    "leaderboard_musr",
)
SCORE_COLUMNS: tuple[str, ...] = BENCHMARK_COLUMNS + LEADERBOARD_COLUMNS
COUNT_COLUMNS: tuple[str, ...] = ("params", "active_params", "train_tokens")
OUTPUT_COLUMNS: tuple[str, ...] = (
    "model",
    "family",
    "params",
    "active_params",
    "train_tokens",
    "release_date",
    "date_confidence",
    "date_source",
    *SCORE_COLUMNS,
    "source",
)
ISSUE_COLUMNS: tuple[str, ...] = ("model", "field", "value", "expected", "reason")

DATE_COLUMNS: tuple[str, ...] = ("model", "release_date", "date_confidence", "date_source", "note")
CORRECTION_COLUMNS: tuple[str, ...] = (
    "model",
    "field",
    "source_value",
    "corrected_value",
    "reason",
    "evidence_url",
)
ACTIVE_PARAMS_COLUMNS: tuple[str, ...] = ("model", "active_params", "evidence_url", "note")
#: ``high``: date stated by an official source (announcement, model card, README news);
#: ``medium``: date of the first Hugging Face upload or of arXiv v1 of the tech report;
#: ``low``: inferred (e.g. only the month is known); ``none``: no sourced date, left empty.
CONFIDENCE_LEVELS: tuple[str, ...] = ("high", "medium", "low", "none")
CORRECTABLE_FIELDS: tuple[str, ...] = ("params", "train_tokens", "family")

#: Bounds of a plausible pretraining-tokens-per-parameter ratio. Chinchilla-optimal is ~20
#: (Hoffmann et al. 2022); the most over-trained open models reach a few thousand (e.g.
#: SmolLM-135M: 600e9 / 135e6 ≈ 4,400). Outside [1, 100,000] a count is almost surely in the


def _read_csv(path: Path, what: str, columns: tuple[str, ...], **options: object) -> pd.DataFrame:
    if not path.is_file():
        raise InputError(f"{path}: no such file ({what})")
    try:
        frame = pd.read_csv(path, **options)  # type: ignore[arg-type]
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise InputError(f"{path}: cannot read {what}: {error}") from None
    absent = [column for column in columns if column not in frame.columns]
    if absent:
        raise InputError(f"{path}: {what} lacks columns {absent} (has {list(frame.columns)})")
    return frame


def read_obsscaling(obsscaling_dir: str | Path) -> pd.DataFrame:
    """Read ObsScaling's base-model tables into one wide frame with densing's names and units.

    ``params = Model Size (B) × 1e9`` and ``train_tokens = Pretraining Data Size (T) × 1e12``
    (rounded to whole counts); scores keep the source's column names; ``source`` is
    ``obsscaling@<commit>``. ``FLOPs (1E21)`` is not carried: it is the source's 6·N·D and would
    go stale under corrections.
    """
    folder = Path(obsscaling_dir)
    base_columns = ("Model", "Model Family", "Model Size (B)", "Pretraining Data Size (T)", *BENCHMARK_COLUMNS)
    base = _read_csv(folder / BENCHMARK_FILE, "ObsScaling benchmark table", base_columns)
    board = _read_csv(folder / LEADERBOARD_FILE, "ObsScaling leaderboard-v2 table", ("Model", *LEADERBOARD_COLUMNS))
    commit_path = folder / COMMIT_FILE
    try:
        commit = commit_path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise InputError(f"{commit_path}: cannot read the source commit: {error}") from None
    if not re.fullmatch(r"[0-9a-f]{7,40}", commit):
        raise InputError(f"{commit_path}: expected a git commit hash, got {commit!r}")
    unknown = sorted(set(board["Model"]) - set(base["Model"]))
    if unknown:
        raise InputError(f"{folder / LEADERBOARD_FILE}: models absent from {BENCHMARK_FILE}: {unknown}")
    if board["Model"].duplicated().any():
        raise InputError(
            f"{folder / LEADERBOARD_FILE}: duplicated models {sorted(board.loc[board['Model'].duplicated(), 'Model'])}"
        )
    frame = base.merge(board[["Model", *LEADERBOARD_COLUMNS]], on="Model", how="left", validate="many_to_one")
    sizes = pd.to_numeric(frame["Model Size (B)"], errors="coerce")
    tokens = pd.to_numeric(frame["Pretraining Data Size (T)"], errors="coerce")
    result = pd.DataFrame(
        {
            "model": frame["Model"].astype(str),
            "family": frame["Model Family"].astype(str),
            "params": (sizes * 1e9).round().astype("Int64"),
            "active_params": pd.array([pd.NA] * len(frame), dtype="Int64"),
            "train_tokens": (tokens * 1e12).round().astype("Int64"),
        }
    )
    for column in SCORE_COLUMNS:
        result[column] = pd.to_numeric(frame[column], errors="coerce")
    result["source"] = f"obsscaling@{commit}"
    return result


def read_release_dates(path: str | Path) -> pd.DataFrame:
    """Read the release-dates file (:data:`DATE_COLUMNS`); dates stay ISO strings."""
    path = Path(path)
    frame = _read_csv(path, "release dates", DATE_COLUMNS, dtype=str, keep_default_na=False)
    duplicated = sorted(set(frame.loc[frame["model"].duplicated(), "model"]))
    if duplicated:
        raise InputError(f"{path}: duplicated models {duplicated}")
    for index, row in frame.iterrows():
        where = f"{path}: row {index + 2} ({row['model']})"
        if row["date_confidence"] not in CONFIDENCE_LEVELS:
            raise InputError(f"{where}: date_confidence {row['date_confidence']!r} not one of {CONFIDENCE_LEVELS}")
        if row["release_date"]:
            parsed = parse_date(row["release_date"], where=where)
            if parsed.strftime("%Y-%m-%d") != row["release_date"]:
                raise InputError(f"{where}: release_date {row['release_date']!r} is not YYYY-MM-DD")
    return frame


def read_corrections(path: str | Path) -> pd.DataFrame:
    """Read the corrections file (:data:`CORRECTION_COLUMNS`)."""
    path = Path(path)
    frame = _read_csv(path, "corrections", CORRECTION_COLUMNS, dtype=str, keep_default_na=False)
    for index, row in frame.iterrows():
        where = f"{path}: row {index + 2} ({row['model']})"
        if row["field"] not in CORRECTABLE_FIELDS:
            raise InputError(f"{where}: field {row['field']!r} not one of {CORRECTABLE_FIELDS}")
        if not row["reason"].strip() or not row["evidence_url"].startswith(("http://", "https://")):
            raise InputError(f"{where}: every correction needs a reason and an evidence URL")
    if frame.duplicated(["model", "field"]).any():
        raise InputError(f"{path}: more than one correction of the same model and field")
    return frame


def read_active_params(path: str | Path) -> pd.DataFrame:
    """Read the mixture-of-experts active-parameters file (:data:`ACTIVE_PARAMS_COLUMNS`)."""
    path = Path(path)
    frame = _read_csv(path, "active params", ACTIVE_PARAMS_COLUMNS, dtype=str, keep_default_na=False)
    if frame["model"].duplicated().any():
        raise InputError(f"{path}: duplicated models")
    for index, row in frame.iterrows():
        if not row["evidence_url"].startswith(("http://", "https://")):
            raise InputError(f"{path}: row {index + 2} ({row['model']}): active_params needs an evidence URL")
    return frame
