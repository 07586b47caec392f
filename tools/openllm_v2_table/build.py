"""The Open LLM Leaderboard v2's official pretrained base models as one target table.

Inputs (read only here):

- the leaderboard's contents table (Hugging Face dataset ``open-llm-leaderboard/contents``) as kept in
  ``fboulnois/llm-leaderboard-csv``, file ``csv/huggingface_v2.csv`` at commit :data:`SOURCE_COMMIT`; the project ships
  its official-provider rows unchanged (:data:`EXTRACT`, made by :func:`extract` from the whole file, whose SHA-256
  is :data:`RAW_SHA256`);
- ``curated.csv`` beside the table: per model, a refusal with its reason, or the family, size, active size, token
  count and release date the contents table lacks or gets wrong, each with its source;
- the public table (``results/public_models.csv``), whose family, token count, active size and release date a model
  it holds keeps (the house's dates: ``results/release_dates.csv``).

The rule, fixed in ``results/openllm_v2/DECLARATION.md`` before the table existed: a row is kept when the contents
table marks it an official provider's and types it ``pretrained``, its name marks no post-training
(:data:`POST_TRAINING`), ``curated.csv`` gives no refusal (a model card that describes an instruction-tuned model, an
alias), and it is its model's kept precision (``bfloat16``, else ``float16``, else the first). Every official row is
listed in ``models.csv`` with its decision and reason. A kept model's date is the public table's, else the curated
one (a provider's release note or card), else its upload date unless that date is implausible
(:data:`IMPLAUSIBLE_UPLOADS`: the Hub's migration day), when it is undated. Mixture-of-experts is what ``curated.csv``
or the public table says (an ``active_params`` value), never the contents table's ``features_is_moe``.
A derived model (a ``parent`` in ``curated.csv``: pruned and distilled, depth-upscaled, or trained further) has the
count of the derived-token rule (:func:`derived_tokens`): its parent's count plus its derivation's own tokens, empty
where either is unknown, for every derived model alike (``results/openllm_v2/README.md``, "The rule").

``overlap.csv`` sets the kept rows' scores beside ObsScaling's extract of the same leaderboard
(``results/obsscaling/base_llm_leaderboard_v2_eval.csv``) for every model both hold.

Regenerate the shipped files (byte-identical for the same inputs)::

    python tools/build_tables.py openllm-v2 --out results/openllm_v2
"""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path

import pandas as pd

from densing.data.readers import read_csv_file, read_text_table
from densing.data.schema import is_missing, positive_count
from densing.errors import InputError
from densing.numbers import parse_date

SOURCE_REPOSITORY = "fboulnois/llm-leaderboard-csv"
SOURCE_COMMIT = "0f4e5c69c6fb6515afa31ae61f4d699649bc9503"
SOURCE_FILE = "csv/huggingface_v2.csv"
#: SHA-256 of the whole contents file at :data:`SOURCE_COMMIT` (4,576 rows).
RAW_SHA256 = "47b36fd5731d66e431b8c5bc2f099d46c849e790a4ad380bb6618889d07a43de"
EXTRACT = "source/huggingface_v2_official.csv"
TABLE = "openllm_v2_2025-03.csv"
#: The contents table's score columns (the raw ``_value``, a fraction) -> the table's columns (the public table's names).
SCORE_FIELDS: dict[str, str] = {
    "evaluations_bbh_value": "leaderboard_bbh",
    "evaluations_gpqa_value": "leaderboard_gpqa",
    "evaluations_ifeval_value": "leaderboard_ifeval",
    "evaluations_math_value": "leaderboard_math_hard",
    "evaluations_mmlu_pro_value": "leaderboard_mmlu_pro",
    "evaluations_musr_value": "leaderboard_musr",
}
OUTPUT_COLUMNS: tuple[str, ...] = (
    "model",
    "family",
    "params",
    "active_params",
    "train_tokens",
    "release_date",
    "date_confidence",
    "date_source",
    *SCORE_FIELDS.values(),
    "precision",
    "upload_date",
    "tokens_source",
    "parent",
    "derivation",
    "parent_tokens",
    "derivation_tokens",
    "source",
)
CURATED_COLUMNS: tuple[str, ...] = (
    "model",
    "refuse",
    "family",
    "params",
    "active_params",
    "train_tokens",
    "release_date",
    "parent",
    "derivation",
    "parent_tokens",
    "derivation_tokens",
    "public_name",
    "source_url",
    "note",
)
MODELS_COLUMNS: tuple[str, ...] = ("model", "precision", "model_type", "upload_date", "decision", "reason")
OVERLAP_COLUMNS: tuple[str, ...] = ("model", "benchmark", "contents", "obsscaling", "difference")
#: A name that marks post-training (the Swallow table's patterns, lower case).
POST_TRAINING = re.compile(r"instruct|chat|-it\b|-it-|-dpo|-sft")
#: How a model derives from its parent (the Swallow tables' vocabulary, :data:`densing.data.schema.DERIVATIONS`).
DERIVED: tuple[str, ...] = ("continual_pretraining", "pruning_distillation", "depth_upscaling")
#: Upload dates that are no release dates: the day the Hub migrated its older repositories.
IMPLAUSIBLE_UPLOADS = ("2022-03-02",)
PRECISION_ORDER = ("bfloat16", "float16")
FRACTION_TOLERANCE = 1e-9


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def extract(raw: str | Path, out: str | Path) -> int:
    """Write the official-provider rows of the whole contents file ``raw`` (checked against :data:`RAW_SHA256`) to
    ``out``, each line unchanged; returns the number of rows written."""
    from densing.io import atomic_write_text

    raw = Path(raw)
    if (found := _sha256(raw)) != RAW_SHA256:
        raise InputError(f"{raw}: SHA-256 {found} is not the one of {SOURCE_FILE} at {SOURCE_COMMIT} ({RAW_SHA256})")
    lines = raw.read_text(encoding="utf-8").splitlines(keepends=True)
    frame = pd.read_csv(raw, dtype=str, keep_default_na=False)
    official = frame["features_is_official_provider"].str.upper() == "TRUE"
    if len(frame) != len(lines) - 1:
        raise InputError(f"{raw}: a quoted field spans lines; the extract keeps lines unchanged and cannot cut it")
    kept = [lines[0]] + [line for line, keep in zip(lines[1:], official) if keep]
    atomic_write_text(out, "".join(kept))
    return len(kept) - 1


def read_curated(path: str | Path) -> pd.DataFrame:
    """``curated.csv``: one row per model; a refusal is a reason and nothing else; every filled value has a source."""
    path = Path(path)
    frame = read_text_table(path, CURATED_COLUMNS, "curated fields per model")
    for row, record in enumerate(frame.to_dict("records"), start=2):
        where = f"{path}: row {row} ({record['model']})"
        if record["model"] in set(frame["model"][: row - 2]):
            raise InputError(f"{where}: field 'model' appears twice")
        filled = [c for c in CURATED_COLUMNS[2:-2] if not is_missing(record[c])]
        if not is_missing(record["refuse"]) and filled:
            raise InputError(f"{where}: a refused model has no other field, got {', '.join(filled)}")
        if is_missing(record["refuse"]) and is_missing(record["source_url"]):
            raise InputError(f"{where}: field 'source_url' is empty")
        for column in ("params", "active_params", "train_tokens", "parent_tokens", "derivation_tokens"):
            if not is_missing(record[column]):
                positive_count(record[column], field=column, where=where)
        _check_derivation(record, where)
        if not is_missing(record["release_date"]):
            parse_date(record["release_date"], field="release_date", where=where)
    return frame


def _check_derivation(record: dict, where: str) -> None:
    """A derived model (a ``parent``) names how it derives (:data:`DERIVED`) and no ``train_tokens`` of its own: the
    derived-token rule (:func:`derived_tokens`) makes its count; a model with no parent has no derivation fields."""
    derivation_fields = [c for c in ("derivation", "parent_tokens", "derivation_tokens") if not is_missing(record[c])]
    if is_missing(record["parent"]):
        if derivation_fields:
            raise InputError(f"{where}: {', '.join(derivation_fields)} given for a model with no 'parent'")
        return
    if record["derivation"] not in DERIVED:
        raise InputError(
            f"{where}: field 'derivation': expected one of {', '.join(DERIVED)}, got {record['derivation']!r}"
        )
    if not is_missing(record["train_tokens"]):
        raise InputError(
            f"{where}: field 'train_tokens': a derived model's count is its parent's plus its "
            f"derivation's (parent_tokens, derivation_tokens), not typed"
        )


def derived_tokens(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every derived model's ``train_tokens`` by the derived-token rule: D = D_parent + D_derivation,
    where D_parent is the parent's ``train_tokens`` in ``table`` when the parent is a model of it (so a derivation of a
    derivation adds both stages) and the stated ``parent_tokens`` otherwise; empty where either term is unknown.
    ``parent_tokens`` is set to the D_parent used. A parent chain that returns to a model is an error."""
    out = table.copy()
    index = {model: i for i, model in enumerate(out["model"])}
    counts = dict(zip(out["model"], out["train_tokens"].map(_count)))
    resolved: dict[str, float] = {}

    def resolve(model: str, seen: tuple[str, ...]) -> float:
        if model in resolved:
            return resolved[model]
        row = out.iloc[index[model]]
        if is_missing(row["parent"]):
            return counts[model]
        if model in seen:
            raise InputError(f"parent chain {' -> '.join((*seen, model))} returns to a model")
        parent = row["parent"]
        above = resolve(parent, (*seen, model)) if parent in index else _count(row["parent_tokens"])
        own = _count(row["derivation_tokens"])
        resolved[model] = above + own if math.isfinite(above) and math.isfinite(own) else math.nan
        out.iat[index[model], out.columns.get_loc("parent_tokens")] = above
        return resolved[model]

    for model in out["model"]:
        if not is_missing(out.iloc[index[model]]["parent"]):
            out.iat[index[model], out.columns.get_loc("train_tokens")] = resolve(model, ())
    return out


def _decide(rows: pd.DataFrame, curated: dict) -> pd.DataFrame:
    """Every official row with ``decision`` (kept / refused) and ``reason`` (module docstring)."""
    out = []
    kept_precision: dict[str, str] = {}
    ranked = rows.assign(_rank=rows["model_precision"].map({p: i for i, p in enumerate(PRECISION_ORDER)}).fillna(9))
    for model, group in ranked.groupby("model_name", sort=True):
        kept_precision[model] = group.sort_values("_rank", kind="stable")["model_precision"].iloc[0]
    for record in rows.to_dict("records"):
        model, reason = record["model_name"], ""
        if record["model_type"] != "pretrained":
            reason = f"typed {record['model_type']!r}, not pretrained"
        elif POST_TRAINING.search(model.lower()):
            reason = "post-trained: the name marks it"
        elif not is_missing(curated.get(model, {}).get("refuse", "")):
            reason = curated[model]["refuse"]
        elif record["model_precision"] != kept_precision[model]:
            reason = f"another precision of the model ({kept_precision[model]} kept)"
        out.append(
            {
                "model": model,
                "precision": record["model_precision"],
                "model_type": record["model_type"],
                "upload_date": record["metadata_upload_date"],
                "decision": "refused" if reason else "kept",
                "reason": reason,
            }
        )
    return pd.DataFrame(out, columns=list(MODELS_COLUMNS)).sort_values(["model", "precision"], kind="stable")


def _count(value) -> float:
    return math.nan if is_missing(value) or (isinstance(value, float) and math.isnan(value)) else float(value)


def _score(record: dict, field: str, where: str) -> float:
    value = record[field]
    if is_missing(value):
        return math.nan
    try:
        score = float(value)
    except ValueError:
        raise InputError(f"{where}: field {field!r}: expected a fraction in [0, 1], got {value!r}") from None
    if not 0.0 <= score <= 1.0:
        raise InputError(f"{where}: field {field!r}: expected a fraction in [0, 1], got {value!r}")
    return score


#: The contents table's columns the build reads.
CONTENTS_COLUMNS: tuple[str, ...] = (
    "model_name",
    "model_precision",
    "model_type",
    "features_is_official_provider",
    "metadata_upload_date",
    "metadata_params_billions",
    *SCORE_FIELDS,
)


#: The public table's columns a kept model's row takes (the house's names, dates and counts).
PUBLIC_COLUMNS: tuple[str, ...] = (
    "model",
    "family",
    "active_params",
    "train_tokens",
    "release_date",
    "date_confidence",
    "date_source",
)


def read_contents(source: Path) -> pd.DataFrame:
    """The extract of the contents table as text cells: an InputError in one line naming what is damaged (a column
    missing, a row with fewer or more fields than the header, by its line; a model at one precision twice)."""
    import csv

    rows = read_text_table(source, CONTENTS_COLUMNS, "the contents table's official rows")
    with source.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        width = len(next(reader, []))
        for record in reader:
            if record and len(record) != width:
                raise InputError(
                    f"{source}: line {reader.line_num}: {len(record)} fields where the header has "
                    f"{width} (a damaged row)"
                )
    twice = rows[rows.duplicated(["model_name", "model_precision"], keep=False)]
    if len(twice):
        first = twice.iloc[0]
        lines = ", ".join(str(i + 2) for i in twice.index[:4])
        raise InputError(
            f"{source}: model {first['model_name']} ({first['model_precision']}) appears on more than one "
            f"row (lines {lines}); keep one"
        )
    return rows


def check_table(frame: pd.DataFrame, source: Path) -> None:
    """``frame``, the table about to be written, read as the package reads it (:func:`densing.data.names.wide_columns`,
    :func:`densing.data.wide.wide_to_tidy`, :func:`densing.data.schema.validate_results`): a table the package would
    refuse is not written (an InputError naming the model)."""
    from densing.data.names import wide_columns
    from densing.data.schema import validate_results
    from densing.data.wide import wide_to_tidy

    shown = f"{source}: the table built from it"
    validate_results(wide_to_tidy(frame, source=shown, columns=wide_columns(frame, shown)), source=shown)


def _picked(cure: dict, house: dict | None, column: str):
    """A kept model's ``column``: the curated row's where it gives one, else the public table's row's, else ""."""
    if not is_missing(cure.get(column, "")):
        return cure[column]
    return house[column] if house is not None else ""


def build_openllm_v2(
    source: str | Path, curated_csv: str | Path, public_csv: str | Path, obsscaling_v2: str | Path
) -> dict[str, pd.DataFrame]:
    """Every output of the build: the table (:data:`TABLE` without its suffix), ``models`` and ``overlap``.

    A kept model must be in the public table or in ``curated.csv``; a curated row of no official model is an error
    (a stale row)."""
    source = Path(source)
    rows = read_contents(source)
    official = rows["features_is_official_provider"].str.upper() == "TRUE"
    if not official.all():
        raise InputError(f"{source}: {int((~official).sum())} row(s) not marked official: not the shipped extract")
    curated_frame = read_curated(curated_csv)
    curated = {r["model"]: r for r in curated_frame.to_dict("records")}
    stale = sorted(set(curated) - set(rows["model_name"]))
    if stale:
        raise InputError(f"{curated_csv}: rows for models the contents table does not hold: {stale}")
    public = read_text_table(Path(public_csv), PUBLIC_COLUMNS, "the public table").set_index("model")
    decided = _decide(rows, curated)
    kept = decided[decided["decision"] == "kept"]
    by_key = {(r["model_name"], r["model_precision"]): r for r in rows.to_dict("records")}
    table = []
    for model, precision in zip(kept["model"], kept["precision"]):
        record, where = by_key[(model, precision)], f"{source}: model {model} ({precision})"
        cure = curated.get(model, {})
        name = cure.get("public_name") or model
        house = public.loc[name].to_dict() if name in public.index else None
        if house is None and not cure:
            raise InputError(
                f"{public_csv}: no row for kept model {model!r}, nor has {curated_csv} (one of them names "
                "its family, size and date)"
            )
        params = (
            _count(cure.get("params"))
            if not is_missing(cure.get("params", ""))
            else positive_count(record["metadata_params_billions"], field="metadata_params_billions", where=where) * 1e9
        )
        upload = record["metadata_upload_date"]
        parse_date(upload, field="metadata_upload_date", where=where)  # a date of no day, or after today: refused
        if not is_missing(cure.get("release_date", "")):
            date, confidence, date_source = cure["release_date"], "high", cure["source_url"]
        elif house is not None and not is_missing(house["release_date"]):
            date, confidence, date_source = house["release_date"], house["date_confidence"], house["date_source"]
        elif upload in IMPLAUSIBLE_UPLOADS:
            date, confidence, date_source = "", "", f"undated: the upload date {upload} is the Hub's migration"
        else:
            date, confidence, date_source = upload, "low", "the contents table's upload date"
        derived = not is_missing(cure.get("parent", ""))
        tokens = "" if derived else _picked(cure, house, "train_tokens")
        tokens_source = (
            cure["source_url"]
            if derived or not is_missing(cure.get("train_tokens", ""))
            else "the public table"
            if not is_missing(tokens)
            else ""
        )
        table.append(
            {
                "model": model,
                "family": _picked(cure, house, "family") or model.split("/")[-1],
                "params": round(params),
                "active_params": _count(_picked(cure, house, "active_params")),
                "train_tokens": _count(tokens),
                "release_date": date,
                "date_confidence": confidence,
                "date_source": date_source,
                **{column: _score(record, field, where) for field, column in SCORE_FIELDS.items()},
                "precision": precision,
                "upload_date": upload,
                "tokens_source": tokens_source,
                **{c: cure.get(c, "") if derived else "" for c in ("parent", "derivation")},
                **{c: _count(cure.get(c, "")) if derived else math.nan for c in ("parent_tokens", "derivation_tokens")},
                "source": f"{SOURCE_REPOSITORY}@{SOURCE_COMMIT}",
            }
        )
    frame = derived_tokens(pd.DataFrame(table, columns=list(OUTPUT_COLUMNS)))
    for column in ("active_params", "train_tokens", "parent_tokens", "derivation_tokens"):
        frame[column] = frame[column].round().astype("Int64")
    frame = frame.sort_values("model", kind="stable").reset_index(drop=True)
    check_table(frame, source)
    return {
        TABLE.removesuffix(".csv"): frame,
        "models": decided.reset_index(drop=True),
        "overlap": _overlap(frame, curated, obsscaling_v2),
    }


def _overlap(frame: pd.DataFrame, curated: dict, obsscaling_v2: str | Path) -> pd.DataFrame:
    """Each score of every kept model that ObsScaling's extract also holds, both values and their difference."""
    theirs = read_csv_file(Path(obsscaling_v2))
    missing = [column for column in ("Model", *SCORE_FIELDS.values()) if column not in theirs.columns]
    if missing:
        raise InputError(
            f"{obsscaling_v2}: missing column(s) {', '.join(missing)} (ObsScaling's leaderboard-v2 "
            "extract: Model and the six scores)"
        )
    theirs = theirs.set_index("Model")
    rows = []
    for record in frame.to_dict("records"):
        name = curated.get(record["model"], {}).get("public_name") or record["model"]
        if name not in theirs.index:
            continue
        for column in SCORE_FIELDS.values():
            mine, other = record[column], float(theirs.loc[name, column])
            rows.append(
                {
                    "model": record["model"],
                    "benchmark": column,
                    "contents": mine,
                    "obsscaling": other,
                    "difference": mine - other,
                }
            )
    return pd.DataFrame(rows, columns=list(OVERLAP_COLUMNS))


def write_openllm_v2(outputs: dict[str, pd.DataFrame], out_dir: str | Path) -> list[Path]:
    """Write each output as ``<name>.csv`` in ``out_dir`` as a set (:func:`densing.io.write_file_set`)."""
    from densing.io import write_file_set

    texts = {f"{name}.csv": frame.to_csv(index=False, lineterminator="\n") for name, frame in outputs.items()}
    return write_file_set(out_dir, texts)
