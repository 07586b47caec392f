"""The Swallow LLM Leaderboard as target tables: one wide table per protocol of pre-trained models.

Inputs (read only here):

- the leaderboard's two model files (github.com/swallow-llm/leaderboard ``_data/model.yml``; CC-BY 4.0,
  "Swallow LLM Leaderboard, Swallow LLM team"), each its own protocol (:data:`PROTOCOLS`): ``model_2025-06.yml``
  (leaderboard v1, ``en_basic`` scores) and ``model_2026-05.yml`` (leaderboard v2, ``en_pre`` scores);
- curated files beside the tables, one row per kept model: ``lineage.csv`` (family, parent, derivation),
  ``params.csv`` (params, active_params, basis, source_url) and ``tokens.csv`` (train_tokens, source_url);
- the house's ``results/release_dates.csv``, whose dates replace the leaderboard's where it has the model.

The rule (:mod:`tools.swallow_table.rule`): an entry is kept exactly when it is not flagged ``is_post: true``,
names no ``base_model``, has no post-training name pattern (``-Instruct``, ``-chat``, ``-it``, …) and has a
Hub id; every entry of both files is listed with its decision and reason. The two protocols are never
pooled: :func:`build_swallow` returns one table per file in the wide shape of ``results/public_models.csv``
(:data:`OUTPUT_COLUMNS`), scores under the benchmark names of :data:`SCORE_FIELDS`, each its
benchmark record's column (:mod:`densing.data.benchmarks`).

Regenerate the shipped files (byte-identical for the same inputs)::

    python tools/build_tables.py swallow --source ../shared/data/swallow --curated results/swallow \\
        --dates results/release_dates.csv --out results/swallow
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from densing.data.benchmarks import WIDE_COLUMNS
from densing.data.readers import read_text_table
from densing.data.schema import DERIVATIONS, is_missing, positive_count
from densing.errors import InputError
from densing.numbers import parse_date
from tools.swallow_table.rule import decisions, read_model_file

#: protocol label -> (model file, its commit in swallow-llm/leaderboard, the results group of English pre-training scores).
PROTOCOLS: dict[str, tuple[str, str, str]] = {
    "2025-06": ("model_2025-06.yml", "7b515e636dbbf755471f17a97e85baf413fceaf0", "en_basic"),
    "2026-05": ("model_2026-05.yml", "be9013b46b7384b7d9e317472d8448729e11b4e2", "en_pre"),
}
#: The leaderboard's score names (in the results group) -> the table's columns.
SCORE_FIELDS: dict[str, str] = {
    "MMLU": "swallow_mmlu",
    "BBH": "swallow_bbh",
    "MATH": "swallow_math",
    "GSM8K": "swallow_gsm8k",
    "HumanEval": "swallow_humaneval",
}
assert all(WIDE_COLUMNS.get(column) == column for column in SCORE_FIELDS.values())
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
    "parent",
    "derivation",
    "params_basis",
    "source",
)
LINEAGE_COLUMNS: tuple[str, ...] = ("model", "family", "parent", "derivation", "source_url", "note")
PARAMS_COLUMNS: tuple[str, ...] = ("model", "params", "active_params", "basis", "source_url", "note")
PARAMS_BASES: tuple[str, ...] = ("exact", "nominal", "parent", "rounded")
TOKENS_COLUMNS: tuple[str, ...] = ("model", "train_tokens", "source_url", "note")
DATE_CHECK_COLUMNS: tuple[str, ...] = ("model", "files", "leaderboard_date", "house_date", "days_apart", "house_source")
LEADERBOARD_URL = "https://github.com/swallow-llm/leaderboard/blob/{commit}/_data/model.yml"


def _read_curated(path: Path, columns: tuple[str, ...], what: str) -> pd.DataFrame:
    """A curated CSV as text cells, its columns checked and one row per model."""
    frame = read_text_table(path, columns, what)
    repeated = sorted(frame["model"][frame["model"].duplicated()])
    if repeated:
        raise InputError(f"{path}: field 'model': {repeated[0]!r} appears twice")
    return frame


def _count(value: str, *, field: str, where: str) -> float:
    """A positive plain number (``7.61e9``, the OLMES reader's rule); NaN for an empty cell."""
    return math.nan if is_missing(value) else positive_count(value, field=field, where=where)


def _rows(path: Path, frame: pd.DataFrame):
    """(where, record) of each row of a curated file: ``where`` names the file, its line (the header is line 1) and the
    row's model, as every refusal of the file does."""
    for row, record in enumerate(frame.to_dict("records"), start=2):
        yield f"{path}: row {row} ({record['model']})", record


def read_lineage(path: str | Path) -> pd.DataFrame:
    """``lineage.csv``: a family per model; a parent exactly when the derivation is not ``from_scratch``."""
    path = Path(path)
    frame = _read_curated(path, LINEAGE_COLUMNS, "family and parent per model")
    for where, record in _rows(path, frame):
        if record["derivation"] not in DERIVATIONS:
            raise InputError(
                f"{where}: field 'derivation': expected one of {', '.join(DERIVATIONS)}, got {record['derivation']!r}"
            )
        if is_missing(record["family"]) or is_missing(record["source_url"]):
            raise InputError(f"{where}: fields 'family' and 'source_url' must be filled")
        derived = record["derivation"] not in ("from_scratch", "not_stated")
        if derived == is_missing(record["parent"]):
            raise InputError(
                f"{where}: field 'parent': required exactly for a derived model (derivation {record['derivation']})"
            )
    return frame


def read_params(path: str | Path) -> pd.DataFrame:
    """``params.csv``: params (and active_params for a mixture of experts) with a basis and a source URL each."""
    path = Path(path)
    frame = _read_curated(path, PARAMS_COLUMNS, "parameter counts")
    for where, record in _rows(path, frame):
        params = _count(record["params"], field="params", where=where)
        active = _count(record["active_params"], field="active_params", where=where)
        if math.isnan(params):
            raise InputError(f"{where}: field 'params' is empty")
        if active > params:
            raise InputError(f"{where}: field 'active_params': {active:g} exceeds params {params:g}")
        if record["basis"] not in PARAMS_BASES:
            raise InputError(
                f"{where}: field 'basis': expected one of {', '.join(PARAMS_BASES)}, got {record['basis']!r}"
            )
        if is_missing(record["source_url"]):
            raise InputError(f"{where}: field 'source_url' is empty")
    return frame


def read_tokens(path: str | Path) -> pd.DataFrame:
    """``tokens.csv``: train_tokens with a source URL, or empty with a note that says why."""
    path = Path(path)
    frame = _read_curated(path, TOKENS_COLUMNS, "training tokens")
    for where, record in _rows(path, frame):
        tokens = _count(record["train_tokens"], field="train_tokens", where=where)
        if not math.isnan(tokens) and is_missing(record["source_url"]):
            raise InputError(f"{where}: field 'source_url': a token count needs its source")
        if math.isnan(tokens) and is_missing(record["note"]):
            raise InputError(f"{where}: field 'note': an empty token count needs the reason")
    return frame


def read_house_dates(path: str | Path) -> pd.DataFrame:
    """The house's ``release_dates.csv`` (model, release_date, date_confidence, date_source, note)."""
    path = Path(path)
    frame = _read_curated(path, ("model", "release_date", "date_confidence", "date_source"), "release dates")
    for row, value in enumerate(frame["release_date"], start=1):
        if not is_missing(value):
            parse_date(value, where=f"{path}: row {row}")  # a date in the domain, or one line naming the row
    return frame


def _scores(entry: dict, group: str, where: str) -> dict[str, float]:
    results = entry.get("results") or {}
    scores = results.get(group)
    if not isinstance(scores, dict):
        raise InputError(f"{where}: field 'results.{group}': missing for a pre-trained model")
    out = {}
    for field, column in SCORE_FIELDS.items():
        value = scores.get(field)
        if value is None:
            out[column] = math.nan
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
            raise InputError(f"{where}: field 'results.{group}.{field}': expected a score in [0, 1], got {value!r}")
        out[column] = float(value)
    return out


def _lookup(frame: pd.DataFrame, model: str, path_hint: str) -> dict:
    rows = frame[frame["model"] == model]
    if rows.empty:
        raise InputError(f"{path_hint}: no row for kept model {model!r}")
    return rows.iloc[0].to_dict()


def build_swallow(source_dir: str | Path, curated_dir: str | Path, dates_csv: str | Path) -> dict[str, pd.DataFrame]:
    """Every output of the build: ``swallow_<protocol>`` tables, ``models`` (every entry's decision), ``date_check``.

    A kept model must have a row in each curated file; a curated row of no kept model is an error too
    (a stale row). Release date, confidence and source come from ``dates_csv`` where it has the model,
    else from the leaderboard (``date_confidence`` ``low``: a third party's date, not re-checked).
    """
    source_dir, curated_dir = Path(source_dir), Path(curated_dir)
    lineage = read_lineage(curated_dir / "lineage.csv")
    params = read_params(curated_dir / "params.csv")
    tokens = read_tokens(curated_dir / "tokens.csv")
    house = read_house_dates(dates_csv)
    house_by_model = {r["model"]: r for r in house.to_dict("records")}
    outputs: dict[str, pd.DataFrame] = {}
    listed, kept_all, checks = [], set(), {}
    for label, (file_name, commit, group) in PROTOCOLS.items():
        path = source_dir / file_name
        entries = read_model_file(path)
        decided = decisions(entries, label)
        listed.append(decided)
        kept = set(decided.loc[decided["decision"] == "kept", "model"])
        kept_all |= kept
        rows = []
        for entry in entries:
            model = str(entry["id"])
            if model not in kept:
                continue
            where = f"{path}: entry {model}"
            line = _lookup(lineage, model, str(curated_dir / "lineage.csv"))
            size = _lookup(params, model, str(curated_dir / "params.csv"))
            count = _lookup(tokens, model, str(curated_dir / "tokens.csv"))
            board_date = parse_date(entry["date"], field="date", where=where).strftime("%Y-%m-%d")  # in the domain
            if model in house_by_model:
                h = house_by_model[model]
                date, confidence, date_source = h["release_date"], h["date_confidence"], h["date_source"]
                check = checks.setdefault(
                    model,
                    {
                        "model": model,
                        "files": [],
                        "leaderboard_date": board_date,
                        "house_date": h["release_date"],
                        "house_source": h["date_source"],
                    },
                )
                check["files"].append(label)
            else:
                date, confidence, date_source = board_date, "low", LEADERBOARD_URL.format(commit=commit)
            rows.append(
                {
                    "model": model,
                    "family": line["family"],
                    "params": round(float(size["params"])),
                    "active_params": round(float(size["active_params"]))
                    if not is_missing(size["active_params"])
                    else pd.NA,
                    "train_tokens": round(float(count["train_tokens"]))
                    if not is_missing(count["train_tokens"])
                    else pd.NA,
                    "release_date": date,
                    "date_confidence": confidence,
                    "date_source": date_source,
                    **_scores(entry, group, where),
                    "parent": line["parent"],
                    "derivation": line["derivation"],
                    "params_basis": size["basis"],
                    "source": f"swallow-llm/leaderboard@{commit}",
                }
            )
        table = pd.DataFrame(rows, columns=list(OUTPUT_COLUMNS))
        for column in ("params", "active_params", "train_tokens"):
            table[column] = table[column].astype("Int64")
        outputs[f"swallow_{label}"] = table.sort_values("model", kind="stable").reset_index(drop=True)
    for frame, name in ((lineage, "lineage.csv"), (params, "params.csv"), (tokens, "tokens.csv")):
        stale = sorted(set(frame["model"]) - kept_all)
        if stale:
            raise InputError(f"{curated_dir / name}: rows for models no file keeps: {stale}")
    outputs["models"] = pd.concat(listed, ignore_index=True)
    outputs["date_check"] = _date_check(list(checks.values()))
    return outputs


def _date_check(checks: list[dict]) -> pd.DataFrame:
    """The leaderboard's date beside the house's for every kept model both carry."""
    rows = []
    for check in sorted(checks, key=lambda c: c["model"]):
        apart = (
            (pd.Timestamp(check["house_date"]) - pd.Timestamp(check["leaderboard_date"])).days
            if check["house_date"]
            else pd.NA
        )
        rows.append({**check, "files": " ".join(check["files"]), "days_apart": apart})
    return pd.DataFrame(rows, columns=list(DATE_CHECK_COLUMNS))


def write_swallow(outputs: dict[str, pd.DataFrame], out_dir: str | Path) -> list[Path]:
    """Write each output as ``<name>.csv`` in ``out_dir``, as a set (:func:`densing.io.write_file_set`: every file to a
    temporary folder, then all moved into place; a failure leaves none); ``out_dir`` '' is refused."""
    from densing.io import write_file_set

    texts = {f"{name}.csv": frame.to_csv(index=False, lineterminator="\n") for name, frame in outputs.items()}
    return write_file_set(out_dir, texts)
