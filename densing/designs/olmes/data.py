"""Reader for AI2's published OLMES scores of open base models (``results/olmes/``): ``olmo2-32b.csv``, AI2's
comparison table from allenai/OLMo (``Model``, ``FLOPs``, ``Average`` and ten task columns in percent), copied
unchanged, and ``models.csv``, each model's parameter count, pretraining tokens and release date with a source URL
for each (:data:`MODEL_COLUMNS`).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from densing.data.readers import read_text_table
from densing.data.schema import is_missing, positive_count, validate_results
from densing.errors import InputError
from densing.numbers import parse_date

#: Upstream of ``olmo2-32b.csv`` (see results/olmes/README.md).
SOURCE = "allenai/OLMo@8cbfe6f9adce59c62a44ad41fda4478b5e4d19ad:olmo2-32b.csv"

#: AI2's task columns -> densing benchmark names: OLMES prompts and formats (ARC-C, HellaSwag, WinoGrande and MMLU in
#: the multiple-choice "MC" format), so none reuses a leaderboard name nor the OLMo ladder's ranked-classification
#: names: same data, other prompts, so trends compare across them, levels do not.
OLMES_BENCHMARKS: dict[str, str] = {
    "ARC Challenge": "olmes_arc_challenge_mc",
    "HSwag": "olmes_hellaswag_mc",
    "WinoG": "olmes_winogrande_mc",
    "MMLU": "olmes_mmlu_mc",
    "DROP": "olmes_drop",
    "NQ": "olmes_naturalqs",
    "AGIEval": "olmes_agieval",
    "GSM8k": "olmes_gsm8k",
    "MMLU Pro": "olmes_mmlu_pro",
    "TriviaQA": "olmes_triviaqa",
}
#: The table gives one number per task without naming its metric, so every score is ``score``.
OLMES_METRIC = "score"
SCORE_FILE_COLUMNS: tuple[str, ...] = ("Model", "FLOPs", "Average", *OLMES_BENCHMARKS)
MODEL_COLUMNS: tuple[str, ...] = (
    "model",
    "hf_id",
    "family",
    "params",
    "active_params",
    "train_tokens",
    "tokens_derivation",
    "release_date",
    "date_source",
    "params_source",
    "tokens_source",
    "note",
)
#: ``stated``: the developer states the count; ``flops/6N``: AI2's FLOPs / (6 · params); empty: neither.
TOKEN_DERIVATIONS: tuple[str, ...] = ("stated", "flops/6N", "")
#: Relative tolerance of a flops/6N token count against FLOPs / (6 · params): rounding only.
FLOPS_RTOL = 1e-3
PROVENANCE_COLUMNS: tuple[str, ...] = (
    "hf_id",
    "flops",
    "tokens_derivation",
    "params_source",
    "tokens_source",
    "date_source",
    "note",
)
_URL = re.compile(r"^https?://\S+$")


def read_olmes_scores(scores_path: str | Path) -> pd.DataFrame:
    """AI2's table from ``scores_path``, one row per model, ``FLOPs`` and the task columns as floats (NaN where
    empty); an InputError naming the file, row and field of a score not in [0, 100], a FLOPs that is not a positive
    number, an empty or repeated model name, a missing or unknown column."""
    path = Path(scores_path)
    raw = read_text_table(path, SCORE_FILE_COLUMNS, "AI2's OLMES score table")
    if unknown := [c for c in raw.columns if c not in SCORE_FILE_COLUMNS]:
        raise InputError(
            f"{path}: unknown column(s) {', '.join(map(str, unknown))}: add them to OLMES_BENCHMARKS with a benchmark name"
        )
    if raw.empty:
        raise InputError(f"{path}: the table has no rows")
    columns: dict[str, list] = {c: [] for c in SCORE_FILE_COLUMNS}
    seen: dict[str, int] = {}
    for i, rec in enumerate(raw.to_dict("records"), start=1):
        where = f"{path}: row {i}"
        model = str(rec["Model"]).strip()
        if not model:
            raise InputError(f"{where}: field 'Model' is empty")
        if model in seen:
            raise InputError(f"{where}: field 'Model': {model!r} repeats row {seen[model]}")
        seen[model] = i
        columns["Model"].append(model)
        flops = str(rec["FLOPs"]).strip()
        columns["FLOPs"].append(positive_count(flops, field="FLOPs", where=f"{where} ({model})") if flops else math.nan)
        for column in ("Average", *OLMES_BENCHMARKS):
            text = str(rec[column]).strip()
            if not text:
                columns[column].append(math.nan)
                continue
            try:
                score = float(text)
            except ValueError:
                raise InputError(
                    f"{where} ({model}): field '{column}': expected a score in percent, got {text!r}"
                ) from None
            if not (math.isfinite(score) and 0.0 <= score <= 100.0):
                raise InputError(
                    f"{where} ({model}): field '{column}': {text} is outside [0, 100] (scores are percentages)"
                )
            columns[column].append(score)
    return pd.DataFrame({c: pd.Series(v, dtype=object if c == "Model" else "float64") for c, v in columns.items()})


def read_olmes_models(models_path: str | Path, flops: dict[str, float] | None = None) -> pd.DataFrame:
    """``models.csv`` checked, counts as floats, dates as ISO strings: every non-empty params, train_tokens or
    release_date has a source URL; ``tokens_derivation`` is ``stated``, ``flops/6N`` (tokens = FLOPs / (6 · params),
    checked to rounding against ``flops``, model → AI2's FLOPs, where given) or empty (the note says why)."""
    path = Path(models_path)
    raw = read_text_table(path, MODEL_COLUMNS, "model metadata of the OLMES table")
    if raw.empty:
        raise InputError(f"{path}: the table has no rows")
    rows = []
    seen: dict[str, int] = {}
    for i, rec in enumerate(raw.to_dict("records"), start=1):
        rec = {str(k): str(v).strip() for k, v in rec.items()}
        model = rec["model"]
        where = f"{path}: row {i} ({model})" if model else f"{path}: row {i}"
        if not model:
            raise InputError(f"{where}: field 'model' is empty")
        if model in seen:
            raise InputError(f"{where}: field 'model': repeats row {seen[model]}")
        seen[model] = i
        for field in ("hf_id", "family"):
            if not rec[field]:
                raise InputError(f"{where}: field '{field}' is empty")
        if not rec["params"]:
            raise InputError(f"{where}: field 'params' is empty: every target needs its parameter count")
        params = positive_count(rec["params"], field="params", where=where, integer=True)
        active = (
            positive_count(rec["active_params"], field="active_params", where=where, integer=True)
            if rec["active_params"]
            else math.nan
        )
        if active > params:
            raise InputError(f"{where}: field 'active_params': {rec['active_params']} exceeds params {rec['params']}")
        tokens = (
            positive_count(rec["train_tokens"], field="train_tokens", where=where) if rec["train_tokens"] else math.nan
        )
        derivation = rec["tokens_derivation"]
        if derivation not in TOKEN_DERIVATIONS:
            raise InputError(
                f"{where}: field 'tokens_derivation': {derivation!r} is not one of stated, flops/6N or empty"
            )
        if math.isnan(tokens) != (derivation == ""):
            raise InputError(
                f"{where}: field 'tokens_derivation': {derivation or 'empty'!s} does not fit train_tokens "
                f"{rec['train_tokens'] or 'empty'} (a count needs 'stated' or 'flops/6N'; no count, none)"
            )
        if math.isnan(tokens) and not rec["note"]:
            raise InputError(f"{where}: field 'note': train_tokens is empty, so the note must say why")
        for value_field, source_field in (
            ("params", "params_source"),
            ("train_tokens", "tokens_source"),
            ("release_date", "date_source"),
        ):
            if rec[value_field] and not _URL.match(rec[source_field]):
                raise InputError(
                    f"{where}: field '{source_field}': {value_field} {rec[value_field]} needs a source URL, got {rec[source_field]!r}"
                )
        if not rec["release_date"] and not rec["note"]:
            raise InputError(f"{where}: field 'note': release_date is empty, so the note must say why")
        if rec["release_date"]:
            parsed = parse_date(rec["release_date"], where=f"{where}: field 'release_date'")
            if parsed.strftime("%Y-%m-%d") != rec["release_date"]:
                raise InputError(f"{where}: field 'release_date': {rec['release_date']!r} is not YYYY-MM-DD")
        if derivation == "flops/6N" and flops is not None:
            budget = flops.get(model, math.nan)
            if is_missing(budget):
                raise InputError(
                    f"{where}: field 'tokens_derivation': flops/6N, but the score table gives no FLOPs for {model!r}"
                )
            expected = budget / (6.0 * params)
            if not math.isclose(tokens, expected, rel_tol=FLOPS_RTOL):
                raise InputError(
                    f"{where}: field 'train_tokens': {rec['train_tokens']} is not FLOPs/(6·params) = "
                    f"{budget:g}/(6·{params:g}) = {expected:.6g}"
                )
        rows.append({**rec, "params": params, "active_params": active, "train_tokens": tokens})
    counts = dict.fromkeys(("params", "active_params", "train_tokens"), "float64")
    return pd.DataFrame(rows, columns=list(raw.columns)).astype(counts)


def read_olmes_targets(scores_path: str | Path, models_path: str | Path) -> pd.DataFrame:
    """The two files joined into densing's tidy table: one row per (model, task) with a score, ``value`` = percent /
    100, ``metric`` ``score``, ``source`` the upstream file and commit, ``models.csv``'s provenance and AI2's ``flops``
    on every row. An InputError for a model in one file and not the other, and everything the two readers check."""
    scores = read_olmes_scores(scores_path)
    flops = dict(zip(scores["Model"], scores["FLOPs"]))
    models = read_olmes_models(models_path, flops=flops)
    known = set(models["model"])
    for i, model in enumerate(scores["Model"], start=1):
        if model not in known:
            raise InputError(f"{scores_path}: row {i}: field 'Model': {model!r} has no row in {models_path}")
    if extra := sorted(known - set(scores["Model"])):
        raise InputError(f"{models_path}: field 'model': {', '.join(map(repr, extra))} not in {scores_path}")
    long = scores.drop(columns=["Average"]).melt(
        id_vars=["Model", "FLOPs"], value_vars=list(OLMES_BENCHMARKS), var_name="column", value_name="percent"
    )
    long = long[long["percent"].notna()].merge(
        models, left_on="Model", right_on="model", how="left", validate="many_to_one"
    )
    tidy = pd.DataFrame(
        {
            "model": long["Model"],
            "benchmark": long["column"].map(OLMES_BENCHMARKS),
            "metric": OLMES_METRIC,
            "value": long["percent"] / 100.0,
            **{c: long[c] for c in ("params", "train_tokens", "active_params")},
            "release_date": long["release_date"].replace("", None),
            "family": long["family"],
            "source": SOURCE,
            "flops": long["FLOPs"],
            **{c: long[c] for c in PROVENANCE_COLUMNS if c != "flops"},
        }
    )
    order = {name: k for k, name in enumerate(OLMES_BENCHMARKS.values())}
    model_order = {m: k for k, m in enumerate(scores["Model"])}
    tidy = tidy.sort_values(
        ["model", "benchmark"], kind="stable", key=lambda s: s.map(model_order if s.name == "model" else order)
    ).reset_index(drop=True)
    return validate_results(tidy, source=f"{scores_path} + {models_path}")
