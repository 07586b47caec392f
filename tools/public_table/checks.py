"""What :func:`validate_public_models` finds wrong in a public-models table: counts in the wrong unit, sizes that
disagree with the model's name, scores outside [0, 1], implausible or unsourced release dates.

Pure: it reads the table and reports, one row per issue; it changes nothing.
"""

from __future__ import annotations

import math
import re
from datetime import date

import pandas as pd

from densing.data.schema import is_missing
from densing.errors import InputError
from densing.impossible import EARLIEST_DATE
from densing.numbers import parse_count, parse_date
from tools.public_table.read import BENCHMARK_COLUMNS, CONFIDENCE_LEVELS, ISSUE_COLUMNS, SCORE_COLUMNS

#: wrong unit (billions read as trillions or the reverse: a factor of 1000).
MIN_TOKENS_PER_PARAM = 1.0
MAX_TOKENS_PER_PARAM = 100_000.0
#: A model whose token count differs from its family's median by this factor or more is flagged
#: (a unit slip is 1000×; genuine spreads within a family stay within ~10×).
FAMILY_TOKEN_FACTOR = 100.0
#: Relative difference allowed between the source's params and the size written in the name
#: (names round: "7b" for 6.74e9, "gemma-7b" for 8.5e9).
NAME_PARAMS_TOLERANCE = 0.30

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
            if (
                "active_params" in claimed
                and abs(params - claimed["active_params"]) / claimed["active_params"] <= NAME_PARAMS_TOLERANCE
            ):
                reason += " (matches the active size: active params listed as total?)"
            issues.append(_issue(row.model, "params", params, expected, reason))
        active = _number(getattr(row, "active_params", None))
        if "active_params" in claimed and active is not None:
            named_active = float(claimed["active_params"])
            if abs(active - named_active) / named_active > NAME_PARAMS_TOLERANCE:
                issues.append(
                    _issue(
                        row.model,
                        "active_params",
                        active,
                        f"{named_active:.3g}",
                        "active params disagree with the name",
                    )
                )
    for row in frame.itertuples(index=False):
        params, active = _number(row.params), _number(getattr(row, "active_params", None))
        if params is not None and active is not None and not 0 < active <= params:
            issues.append(
                _issue(
                    row.model,
                    "active_params",
                    active,
                    f"in (0, params={params:.3g}]",
                    "active params exceed total params",
                )
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
                issues.append(
                    _issue(row.model, "date_confidence", confidence, "none", "confidence given for a missing date")
                )
            continue
        try:
            when = parse_date(row.release_date, where=str(row.model), in_domain=False)  # the range is a finding below
        except InputError as error:
            issues.append(_issue(row.model, "release_date", row.release_date, "YYYY-MM-DD", str(error)))
            continue
        if when < pd.Timestamp(EARLIEST_DATE) or when > today:
            issues.append(
                _issue(
                    row.model,
                    "release_date",
                    row.release_date,
                    f"between {EARLIEST_DATE} and {today.date()}",
                    f"release date before {EARLIEST_DATE} (GPT-1) or in the future",
                )
            )
        if confidence not in CONFIDENCE_LEVELS or confidence == "none":
            issues.append(
                _issue(
                    row.model,
                    "date_confidence",
                    confidence,
                    "one of high, medium, low",
                    "dated row without a confidence mark",
                )
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
