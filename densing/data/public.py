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
and validates it; what :func:`validate_public_models` still finds in the result is reported
beside the table (the command line prints it), never silently fixed.

Regenerate the shipped table (byte-identical for the same inputs)::

    python -m densing.data.public --obsscaling results/obsscaling \\
        --dates results/release_dates.csv --corrections results/corrections.csv \\
        --active-params results/active_params.csv --out results/public_models.csv
"""
from __future__ import annotations

import argparse
import math
import re
import sys
from datetime import date
from pathlib import Path

import pandas as pd

from densing.data.units import parse_count, parse_date
from densing.data.schema import is_missing
from densing.errors import DensingError, InputError

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
#: wrong unit (billions read as trillions or the reverse: a factor of 1000).
MIN_TOKENS_PER_PARAM = 1.0
MAX_TOKENS_PER_PARAM = 100_000.0
#: A model whose token count differs from its family's median by this factor or more is flagged
#: (a unit slip is 1000×; genuine spreads within a family stay within ~10×).
FAMILY_TOKEN_FACTOR = 100.0
#: Relative difference allowed between the source's params and the size written in the name
#: (names round: "7b" for 6.74e9, "gemma-7b" for 8.5e9).
NAME_PARAMS_TOLERANCE = 0.30
EARLIEST_RELEASE = pd.Timestamp("2018-01-01")

# A size token in a model name, bounded by start/end or - _ / so that versions ("Qwen1.5",
# "gemma-2", "phi-1_5") and context lengths ("200K", "8k") are not read as sizes.
_BOUNDARY_BEFORE = r"(?:^|(?<=[-_/]))"
_BOUNDARY_AFTER = r"(?=$|[-_/])"
_NUMBER = r"(\d+(?:[._]\d+)?)"
# "8x7B": experts × size of each expert.
_MOE_RE = re.compile(_BOUNDARY_BEFORE + r"(\d+)x" + _NUMBER + r"([bm])" + _BOUNDARY_AFTER)
# "57B-A14B": total and active sizes (Qwen2-57B-A14B).
_ACTIVE_RE = re.compile(_BOUNDARY_BEFORE + r"a" + _NUMBER + r"([bm])" + _BOUNDARY_AFTER)
# "7b", "1.1B", "350m", "1_6b" (=1.6B), and "1b5"/"7b1" (=1.5B/7.1B, RWKV and BLOOM style).
_SIZE_RE = re.compile(_BOUNDARY_BEFORE + _NUMBER + r"([bm])(\d+)?" + _BOUNDARY_AFTER)


# ---------------------------------------------------------------------------------------------
# sizes written in model names


def _count_from_name(number: str, suffix: str, fraction: str | None = None) -> float:
    text = number.replace("_", ".")
    if fraction:
        text = f"{text}.{fraction}"
    return parse_count(f"{text}{suffix}", field="params", where="model name")


def sizes_from_name(model: str) -> dict[str, float | int]:
    """Read the parameter count a model's name claims, e.g. ``Llama-2-7b-hf`` → 7e9.

    Returns a dict with ``params`` (the claimed size), and for mixture-of-experts names
    ``experts`` and ``expert_params`` (``Mixtral-8x7B`` → 8 × 7e9; its ``params`` is the nominal
    upper bound 56e9, the true total is smaller because attention is shared: 46.7e9) or
    ``active_params`` (``Qwen2-57B-A14B`` → 57e9 total, 14e9 active). An empty dict when the name
    states no size (``gpt2``, ``DeepSeek-V2``, ``starcoderbase``).
    """
    name = model.split("/")[-1].lower()
    moe = _MOE_RE.search(name)
    if moe:
        experts = int(moe.group(1))
        expert_params = _count_from_name(moe.group(2), moe.group(3))
        return {"params": experts * expert_params, "experts": experts, "expert_params": expert_params}
    found: dict[str, float | int] = {}
    size = _SIZE_RE.search(name)
    if size:
        found["params"] = _count_from_name(size.group(1), size.group(2), size.group(3))
        active = _ACTIVE_RE.search(name, size.end())
        if active:
            found["active_params"] = _count_from_name(active.group(1), active.group(2))
    return found


# ---------------------------------------------------------------------------------------------
# validation



def _issue(model: object, field: str, value: object, expected: str, reason: str) -> dict[str, object]:
    return {"model": model, "field": field, "value": value, "expected": expected, "reason": reason}


def _number(value: object) -> float | None:
    if is_missing(value):
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _check_tokens(frame: pd.DataFrame) -> list[dict[str, object]]:
    issues = []
    for row in frame.itertuples(index=False):
        params, tokens = _number(row.params), _number(row.train_tokens)
        if params is None or tokens is None or params <= 0:
            continue
        ratio = tokens / params
        if not MIN_TOKENS_PER_PARAM <= ratio <= MAX_TOKENS_PER_PARAM:
            issues.append(
                _issue(
                    row.model,
                    "train_tokens",
                    tokens,
                    f"{MIN_TOKENS_PER_PARAM:g} to {MAX_TOKENS_PER_PARAM:,.0f} tokens per parameter",
                    f"{ratio:,.3g} tokens per parameter: likely a unit slip (billions vs trillions, 1000x)",
                )
            )
    if "family" in frame.columns:
        for family, members in frame.groupby("family", sort=True):
            tokens = pd.to_numeric(members["train_tokens"], errors="coerce")
            known = tokens[tokens > 0]
            if len(known) < 3:
                continue
            median = float(known.median())
            for model, value in zip(members.loc[known.index, "model"], known):
                factor = max(value / median, median / value)
                if factor >= FAMILY_TOKEN_FACTOR:
                    issues.append(
                        _issue(
                            model,
                            "train_tokens",
                            float(value),
                            f"near the {family} family median {median:.3g}",
                            f"differs from its family by {factor:,.0f}x: likely a unit slip",
                        )
                    )
    return issues


def _check_params_against_name(frame: pd.DataFrame) -> list[dict[str, object]]:
    issues = []
    for row in frame.itertuples(index=False):
        params = _number(row.params)
        if params is None:
            issues.append(_issue(row.model, "params", row.params, "a positive count", "missing parameter count"))
            continue
        if params <= 0:
            issues.append(_issue(row.model, "params", params, "a positive count", "non-positive parameter count"))
            continue
        claimed = sizes_from_name(str(row.model))
        if "params" not in claimed:
            continue
        named = float(claimed["params"])
        if abs(params - named) / named > NAME_PARAMS_TOLERANCE:
            if "experts" in claimed:
                expected = (
                    f"about {named:.3g} ({claimed['experts']} experts x {claimed['expert_params']:.3g}; "
                    "the total of a mixture of experts is somewhat below this)"
                )
                reason = "total params disagree with the mixture-of-experts size in the name"
            else:
                expected = f"{named:.3g} (size in the name, within {NAME_PARAMS_TOLERANCE:.0%})"
                reason = "params disagree with the size in the model name"
            if "active_params" in claimed and abs(params - claimed["active_params"]) / claimed["active_params"] <= NAME_PARAMS_TOLERANCE:
                reason += " (matches the active size: active params listed as total?)"
            issues.append(_issue(row.model, "params", params, expected, reason))
        active = _number(getattr(row, "active_params", None))
        if "active_params" in claimed and active is not None:
            named_active = float(claimed["active_params"])
            if abs(active - named_active) / named_active > NAME_PARAMS_TOLERANCE:
                issues.append(
                    _issue(row.model, "active_params", active, f"{named_active:.3g}", "active params disagree with the name")
                )
    for row in frame.itertuples(index=False):
        params, active = _number(row.params), _number(getattr(row, "active_params", None))
        if params is not None and active is not None and not 0 < active <= params:
            issues.append(
                _issue(row.model, "active_params", active, f"in (0, params={params:.3g}]", "active params exceed total params")
            )
    return issues


def _check_scores(frame: pd.DataFrame) -> list[dict[str, object]]:
    issues = []
    for column in SCORE_COLUMNS:
        if column not in frame.columns:
            continue
        for model, value in zip(frame["model"], frame[column]):
            if is_missing(value):
                if column in BENCHMARK_COLUMNS:
                    issues.append(_issue(model, column, value, "a score in [0, 1]", "missing score"))
                continue
            number = _number(value)
            if number is None or not 0.0 <= number <= 1.0:
                issues.append(_issue(model, column, value, "a score in [0, 1]", "score outside [0, 1] or not a number"))
    return issues


def _check_dates(frame: pd.DataFrame, today: pd.Timestamp) -> list[dict[str, object]]:
    if "release_date" not in frame.columns:
        return []
    issues = []
    for row in frame.itertuples(index=False):
        confidence = getattr(row, "date_confidence", None)
        source = getattr(row, "date_source", None)
        if is_missing(row.release_date):
            if not is_missing(confidence) and confidence != "none":
                issues.append(_issue(row.model, "date_confidence", confidence, "none", "confidence given for a missing date"))
            continue
        try:
            when = parse_date(row.release_date, where=str(row.model))
        except InputError as error:
            issues.append(_issue(row.model, "release_date", row.release_date, "YYYY-MM-DD", str(error)))
            continue
        if when < EARLIEST_RELEASE or when > today:
            issues.append(
                _issue(
                    row.model,
                    "release_date",
                    row.release_date,
                    f"between {EARLIEST_RELEASE.date()} and {today.date()}",
                    "release date before 2018 or in the future",
                )
            )
        if confidence not in CONFIDENCE_LEVELS or confidence == "none":
            issues.append(
                _issue(row.model, "date_confidence", confidence, "one of high, medium, low", "dated row without a confidence mark")
            )
        if is_missing(source) or not str(source).startswith(("http://", "https://")):
            issues.append(_issue(row.model, "date_source", source, "an http(s) URL", "dated row without a source URL"))
    return issues


def validate_public_models(frame: pd.DataFrame, *, today: date | None = None) -> pd.DataFrame:
    """Find the defects of a public-models table; returns one row per issue (:data:`ISSUE_COLUMNS`).

    Pure: reads ``frame`` (columns as :data:`OUTPUT_COLUMNS`; release-date columns optional) and
    changes nothing. Detects

    1. token counts off by ~1000×: ``train_tokens / params`` outside
       [:data:`MIN_TOKENS_PER_PARAM`, :data:`MAX_TOKENS_PER_PARAM`], or a model whose tokens differ
       from its family's median by :data:`FAMILY_TOKEN_FACTOR`× or more;
    2. params that disagree with the size in the name (:func:`sizes_from_name`) by more than
       :data:`NAME_PARAMS_TOLERANCE`, for mixture-of-experts names against experts × expert size
       (and active params against ``-A14B``-style names); active params above total params;
    3. duplicated models, missing params, missing main-benchmark scores, scores outside [0, 1],
       unparseable release dates or dates before 2018 or after ``today``, dated rows without a
       confidence mark or source URL.
    """
    missing = [column for column in ("model", "params", "train_tokens") if column not in frame.columns]
    if missing:
        raise InputError(f"public models table: missing columns {missing}")
    today_stamp = pd.Timestamp(today or date.today()).normalize()
    issues: list[dict[str, object]] = []
    for model in frame.loc[frame["model"].duplicated(keep="first"), "model"]:
        issues.append(_issue(model, "model", model, "one row per model", "duplicated model"))
    issues += _check_tokens(frame)
    issues += _check_params_against_name(frame)
    issues += _check_scores(frame)
    issues += _check_dates(frame, today_stamp)
    result = pd.DataFrame(issues, columns=list(ISSUE_COLUMNS))
    return result.sort_values(["model", "field", "reason"], kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# readers


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
        raise InputError(f"{folder / LEADERBOARD_FILE}: duplicated models {sorted(board.loc[board['Model'].duplicated(), 'Model'])}")
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
    overwriting a value nobody checked. Counts may be written as ``7e9`` or ``7B``.
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
            result.at[position, row["field"]] = round(parse_count(row["corrected_value"], field=row["field"], where=where))
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
    the corrections are :func:`validate_public_models` of the result; they are reported, not fixed.
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
        frame["active_params"] = pd.array(
            [values.get(model, pd.NA) for model in frame["model"]], dtype="Int64"
        )
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


def main(argv: list[str] | None = None) -> int:
    """Command line: build, write, and print the remaining validation issues to stderr."""
    parser = argparse.ArgumentParser(prog="python -m densing.data.public", description=__doc__.splitlines()[0])
    parser.add_argument("--obsscaling", required=True, help="folder with the ObsScaling CSVs and SOURCE_COMMIT")
    parser.add_argument("--dates", required=True, help="release_dates.csv")
    parser.add_argument("--corrections", required=True, help="corrections.csv")
    parser.add_argument("--active-params", default=None, help="active_params.csv (mixture-of-experts models)")
    parser.add_argument("--out", required=True, help="output CSV (written atomically)")
    arguments = parser.parse_args(argv)
    try:
        frame = build_public_models(arguments.obsscaling, arguments.dates, arguments.corrections, arguments.active_params)
        write_public_models(frame, arguments.out)
    except DensingError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    issues = validate_public_models(frame)
    dated = int((frame["release_date"] != "").sum())
    print(f"wrote {arguments.out}: {len(frame)} models, {dated} dated, {len(issues)} validation issues", file=sys.stderr)
    for issue in issues.itertuples(index=False):
        print(f"  {issue.model} {issue.field}={issue.value}: {issue.reason} (expected {issue.expected})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
