"""Readers that turn files into validated tidy results tables (:mod:`densing.data.schema`): a tidy CSV or Parquet
file, a wide one-row-per-model CSV, lm-evaluation-harness results JSON (0.3 or 0.4 format), the Pythia suite's
published evaluations. What they return has passed :func:`validate_results`, unless documented as a raw frame.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
from pathlib import Path

import pandas as pd

from densing import paths
from densing.data.names import score_columns, wide_columns
from densing.data.schema import FRACTION_METRICS, LAB_COLUMN, SOURCE_LINE, validate_results
from densing.data.wide import require_model_and_params, wide_to_tidy
from densing.errors import InputError, first_line
from densing.io import atomic_write_bytes, check_writable, frame_to_csv, parse_json_object, read_input_bytes
from densing.validation import Options, Text, as_path, first_repeated, validate_params

# ---------------------------------------------------------------------------------------------
# tidy tables

#: The count columns read as text, so that "7B" is parsed by the schema and a large count keeps its digits, and the
#: lab column, so that a lab's name is the file's text (never a number pandas made of it).
_COUNTS_AS_TEXT = {"params": "string", "train_tokens": "string", "active_params": "string", LAB_COLUMN: "string"}


def read_csv_file(path: Path, lines: bool = False, **options) -> pd.DataFrame:
    """pandas.read_csv of the file's bytes, read once (:func:`densing.io.read_input_bytes`: a named pipe too), with
    every failure as one InputError naming the file: a header that names a column twice or leaves one unnamed among
    them, named as the file spells it (:func:`check_header`), a row with fewer fields than the header (a file cut
    mid-row, which pandas would fill with empty cells: :func:`check_row_lengths`); ``lines``: each row's line in the
    file in the column :data:`~densing.data.schema.SOURCE_LINE` (:func:`csv_lines`), for the errors."""
    text = _csv_text(path, read_input_bytes(path, "CSV file"))
    try:
        frame = pd.read_csv(io.StringIO(text), **options)
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: the file is empty (no header row)") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise InputError(f"{path}: cannot read CSV: {first_line(exc)}") from None
    own_header = "header" not in options and "names" not in options
    records = csv_records(text) if own_header or lines else None
    if own_header:
        check_header(path, frame.columns, records)
        if options.get("nrows") != 0:
            check_row_lengths(path, records)
    if lines and (found := csv_lines(records, len(frame))) is not None:
        frame[SOURCE_LINE] = found
    return frame


def _csv_text(path: Path, raw: bytes) -> str:
    """The bytes of the CSV file ``path`` as UTF-8 text (a leading byte-order mark dropped, as pandas drops it)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
            "save the table as UTF-8 CSV"
        ) from None


def csv_records(text: str) -> list[tuple[int, list[str]]] | None:
    """(the line it starts on, its fields) of each record of the CSV ``text`` that pandas reads as a row or the header:
    blank lines skipped, a quoted cell over several lines one record (None where the csv module cannot read it)."""
    records, last = [], 0
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for record in reader:
            if len(record) > 1 or (record and record[0].strip()):
                records.append((last + 1, record))
            last = reader.line_num
    except csv.Error:
        return None
    return records


def csv_lines(records: list[tuple[int, list[str]]] | None, rows: int) -> list[int] | None:
    """The line on which each of the ``rows`` data rows of a CSV file starts, from its :func:`csv_records` (None where
    they could not be read or their count of rows differs from pandas')."""
    if records is None or len(records) != rows + 1:
        return None
    return [line for line, _ in records[1:]]


def check_row_lengths(path: Path, records: list[tuple[int, list[str]]] | None) -> None:
    """An InputError naming the file and line of the first row with fewer fields than the header: a file cut mid-row
    (pandas would read the missing cells as empty, without a word)."""
    if not records:
        return
    width = len(records[0][1])
    for line, fields in records[1:]:
        if len(fields) < width:
            raise InputError(
                f"{path}: line {line}: {len(fields)} field(s) where the header names {width} (the row is "
                "cut short: a file cut mid-row?); complete the row or remove it"
            )


def check_header(path: Path, columns, records: list[tuple[int, list[str]]] | None) -> None:
    """An InputError where the header of the CSV file ``path`` (the first of its :func:`csv_records`) names a column
    twice or leaves one unnamed, by the names and places the file has (pandas renames them ``MMLU.1`` and
    ``Unnamed: 3``); looked at only where pandas' names say it renamed one."""
    names = [str(c) for c in columns]
    renamed = [n for n in names if re.fullmatch(r"Unnamed: \d+", n) or re.sub(r"\.\d+$", "", n) in set(names) - {n}]
    if not renamed or not records:
        return
    header = records[0][1]
    if empty := [i + 1 for i, n in enumerate(header) if not n.strip()]:
        raise InputError(f"{path}: line 1 (the header): column {empty[0]} has no name; name it or remove the column")
    twice = first_repeated(header)
    if twice is not None:
        places = [str(i + 1) for i, n in enumerate(header) if n == twice]
        raise InputError(f"{path}: line 1 (the header): {twice!r} names columns {' and '.join(places)}; keep one")


def read_table(path: str | Path) -> pd.DataFrame:
    """A validated tidy results table (DataFrame) read from CSV or Parquet."""
    path = as_path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file{paths.shipped_hint(path)}")
    if (suffix := path.suffix.lower()) not in (".parquet", ".pq", ".csv", ".txt"):
        raise InputError(f"{path}: unknown table format '{suffix}' (expected .csv or .parquet)")
    try:
        parquet = suffix in (".parquet", ".pq")
        frame = pd.read_parquet(path) if parquet else read_csv_file(path, lines=True, dtype=_COUNTS_AS_TEXT)
    except InputError:
        raise
    except Exception as exc:  # any exception: pandas / pyarrow parse errors, each its own type
        raise InputError(f"{path}: cannot read table: {first_line(exc)}") from None
    return validate_results(frame, source=str(path))


def read_wide_csv(path: str | Path) -> pd.DataFrame:
    """A one-row-per-model CSV with score columns (the shipped target tables), melted and validated. Its columns are
    read by the names contract of scores files (:func:`densing.data.names.wide_columns`): a score column under any
    name of its benchmark, a column that is neither a tidy table's, a table's own nor a benchmark's refused, naming
    it and the closest names."""
    path = Path(path)
    raw = read_csv_file(path, lines=True, dtype=_COUNTS_AS_TEXT)
    require_model_and_params(raw, score_columns(raw.columns), str(path))  # first: a 'Model' column is no benchmark
    return validate_results(wide_to_tidy(raw, source=str(path), columns=wide_columns(raw, str(path))), source=str(path))


def is_wide_csv(path: str | Path) -> bool:
    """True for an existing CSV without a ``benchmark`` column but with a column that names a benchmark
    (:func:`densing.data.names.score_columns`)."""
    path = Path(path)
    if path.suffix.lower() != ".csv" or not path.exists():
        return False
    header = read_csv_file(path, nrows=0).columns
    return "benchmark" not in header and bool(score_columns(header))


def read_results_store(path: str | Path) -> pd.DataFrame:
    """Every Parquet part below a results-store directory, concatenated (each part validated on read)."""
    return pd.concat([read_table(p) for p in sorted(Path(path).rglob("*.parquet"))], ignore_index=True)


def write_table(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a tidy table as CSV or Parquet (by suffix), atomically, or as CSV to standard output for ``-``; rows
    sorted for stable diffs."""
    ordered = frame.sort_values(["model", "benchmark", "metric"], kind="stable").reset_index(drop=True)
    if str(path) == "-":
        sys.stdout.write(frame_to_csv(ordered))
        return Path(path)
    path = check_writable(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        return atomic_write_bytes(path, ordered.to_parquet(index=False))
    if path.suffix.lower() != ".csv":
        raise InputError(f"{path}: unknown table format '{path.suffix}' (expected .csv or .parquet)")
    return atomic_write_bytes(path, frame_to_csv(ordered).encode())


# ---------------------------------------------------------------------------------------------
# lm-evaluation-harness outputs

_LOSS_FROM_PERPLEXITY = ("ppl", "perplexity")


def _load_json(path: Path) -> dict:
    """The lm-eval results JSON object of ``path``, its bytes read once (a named pipe too), a key written twice in one
    object refused (orjson keeps the last of them without a word: :func:`_refuse_repeated_keys`)."""
    raw = read_input_bytes(path, "JSON file")
    data = parse_json_object(raw, path)
    _refuse_repeated_keys(raw, path)
    if not isinstance(data.get("results"), dict):
        raise InputError(f"{path}: field 'results': not an lm-eval results JSON (no 'results' mapping)")
    for field in ("config", "n-shot", "configs"):
        if data.get(field) is not None and not isinstance(data[field], dict):
            raise InputError(f"{path}: field '{field}': expected an object, got {type(data[field]).__name__}")
    return data


def _refuse_repeated_keys(raw: bytes, path: Path) -> None:
    """An InputError naming the first key that ``raw``, the JSON bytes of ``path``, writes twice in one object: each
    object's keys looked up in a set as they come (linear in the keys, for a file of 200,000 tasks too)."""

    def once(pairs: list) -> dict:
        twice = first_repeated(key for key, _ in pairs)
        if twice is not None:
            raise InputError(f"{path}: key {twice!r} appears twice in one object (two values; keep one)")
        return dict(pairs)

    json.loads(raw, object_pairs_hook=once)


@validate_params({"model": [Text(), None]})
def read_lm_eval_json(path: str | Path, *, model: str | None = None) -> pd.DataFrame:
    """:func:`read_lm_eval_results`' raw frame (not yet validated)."""
    return read_lm_eval_results(path, model=model)[0]


@validate_params({"model": [Text(), None]})
def read_lm_eval_results(path: str | Path, *, model: str | None = None) -> tuple[pd.DataFrame, dict]:
    """(a *raw* tidy frame, not yet validated; the file's JSON object) read from one lm-eval results JSON (0.3 or 0.4).

    One row per (task, metric); ``*_stderr`` entries become a ``stderr`` column. Where a task reports a perplexity
    (``ppl`` in 0.3, ``perplexity`` in 0.4, as LAMBADA does), its log, the mean conditional loss
    −log P(answer | context) (Xiao et al. 2024, §2.2), fills the ``loss`` column of the task's other rows.
    ``params`` is NaN (an lm-eval JSON has none) until the caller attaches it (:func:`attach_metadata`).
    """
    path = as_path(path)
    data = _load_json(path)
    config = data.get("config") or {}
    args = config.get("model_args")
    if isinstance(args, dict):
        args = {str(k): str(v) for k, v in args.items()}
    else:
        pairs = (part.partition("=") for part in str(args or "").split(","))
        args = {key.strip(): value.strip() for key, sep, value in pairs if sep}
    name = model or data.get("model_name") or args.get("pretrained") or path.stem
    rows = []
    for task, metrics in data["results"].items():
        if not isinstance(metrics, dict):
            raise InputError(f"{path}: field 'results.{task}': expected a mapping of metrics")
        values: dict[str, float] = {}
        errors: dict[str, float] = {}  # the standard errors, by metric
        for key, val in metrics.items():
            if key == "alias" or val is None or val == "N/A" or isinstance(val, (dict, list)):
                continue  # lm-eval writes N/A for a group's standard error it does not compute
            if not isinstance(val, (int, float)) or isinstance(val, bool):
                if "," not in key and key.partition("_stderr")[0] not in FRACTION_METRICS:
                    continue  # a field lm-eval writes beside the metrics (a name, a version)
                raise InputError(f"{path}: field 'results.{task}.{key}': expected a number, got {val!r}")
            metric, _, filt = key.partition(",")  # 0.4 keys carry a filter (acc,none); 0.3 keys none
            metric = f"{metric},{filt}" if filt and filt != "none" else metric
            if metric.endswith("_stderr") or "_stderr," in metric:
                errors[metric.replace("_stderr", "")] = float(val)
            else:
                values[metric] = float(val)
        loss = next((math.log(values[k]) for k in reversed(_LOSS_FROM_PERPLEXITY) if values.get(k, 0) > 0), math.nan)
        shot = (data.get("n-shot") or {}).get(task, config.get("num_fewshot"))
        for metric, val in values.items():
            if metric.partition(",")[0] in FRACTION_METRICS and not 0.0 <= val <= 1.0:
                percent = f" (a percentage? lm-eval writes {val / 100:g} for {val:g}%)" if 1.0 < val <= 100.0 else ""
                raise InputError(f"{path}: field 'results.{task}.{metric}': {val:g} is outside [0, 1]{percent}")
            rows.append(
                {
                    "model": name,
                    "benchmark": task,
                    "metric": metric,
                    "value": val,
                    "stderr": errors.get(metric, math.nan),
                    "n_shot": shot,
                    "loss": math.nan if metric in _LOSS_FROM_PERPLEXITY else loss,
                    "revision": args.get("revision"),
                    "source": str(path),
                }
            )
    if not rows:
        raise InputError(f"{path}: field 'results': no metrics found")
    frame = pd.DataFrame(rows)
    frame["params"] = math.nan
    return frame, data


def read_lm_eval(path: str | Path) -> pd.DataFrame:
    """One lm-eval results JSON, or every one below a folder (``samples_*`` left out), as a validated tidy table;
    lm-eval outputs carry no parameter counts, said once instead of 'row 1: params is empty'."""
    path = Path(path)
    files = sorted(p for p in path.rglob("*.json") if not p.name.startswith("samples_")) if path.is_dir() else [path]
    if not files:
        raise InputError(f"{path}: no lm-eval results JSON files found")
    frame = pd.concat([read_lm_eval_json(p) for p in files], ignore_index=True)
    if "params" not in frame.columns or frame["params"].isna().all():
        raise InputError(
            f"{path}: field 'params': lm-eval results carry no parameter counts; use a tidy CSV with a "
            "params column (model, benchmark, metric, value, params[, train_tokens]) or `densing eval "
            "ingest DIR --models FILE`"
        )
    return validate_results(frame, source=str(path))


def attach_metadata(frame: pd.DataFrame, metadata: pd.DataFrame, *, source: str = "<metadata>") -> pd.DataFrame:
    """Fill params / train_tokens / release_date / family from a per-model metadata table."""
    if "model" not in metadata.columns:
        raise InputError(f"{source}: metadata has no 'model' column")
    meta = metadata.drop_duplicates("model").set_index("model")
    out = frame.copy()
    for column in ("params", "train_tokens", "release_date", "family", "active_params"):
        if column in meta.columns:
            mapped = out["model"].map(meta[column])
            out[column] = out[column].where(out[column].notna(), mapped) if column in out.columns else mapped
    return out


# ---------------------------------------------------------------------------------------------
# the Pythia suite

#: Total parameter counts, embeddings included (Biderman et al. 2023, Pythia, Table 1 and the
#: model cards), as listed in ../shared/data/README.md.
PYTHIA_PARAMS: dict[str, int] = {
    "70m": 70_426_624,
    "160m": 162_322_944,
    "410m": 405_334_016,
    "1b": 1_011_781_632,
    "1.4b": 1_414_647_808,
    "2.8b": 2_775_208_960,
    "6.9b": 6_857_302_016,
    "12b": 11_846_072_320,
}
#: Tokens per optimizer step: 1024 sequences × 2048 tokens (Pythia paper, §2).
PYTHIA_TOKENS_PER_STEP = 2_097_152
#: Release of the Pythia suite's weights (arXiv 2304.01373, 2023-04-03; weights public on the Hub
#: from 2023-02-13 under the v0 names — we use the paper's date for the v1 suite).
PYTHIA_RELEASE_DATE = "2023-04-03"

PYTHIA_DIR = re.compile(r"^pythia-(70m|160m|410m|1b|1\.4b|2\.8b|6\.9b|12b)(-deduped)?$")
_STEP = re.compile(r"step(\d+)")


def is_pythia_evals(path: str | Path) -> bool:
    """True for the Pythia evaluations folder: a directory with ``pythia-<size>[-deduped]`` run folders."""
    path = Path(path)
    return path.is_dir() and any(PYTHIA_DIR.match(p.name) and p.is_dir() for p in path.iterdir())


def pythia_runs(root: str | Path, *, suite: str, shots: str) -> list[tuple[Path, str]]:
    """(run folder, size) of every run of ``suite`` whose ``shots`` folder holds a ``*step<N>.json`` (N > 0), by name."""
    runs = []
    for model_dir in sorted(Path(root).iterdir()):
        match = PYTHIA_DIR.match(model_dir.name)
        if not match or (match.group(2) is not None) != (suite == "deduped") or not (model_dir / shots).is_dir():
            continue
        steps = (_STEP.search(p.stem) for p in (model_dir / shots).glob("*.json"))
        if any(step and int(step.group(1)) for step in steps):
            runs.append((model_dir, match.group(1)))
    return runs


@validate_params(
    {
        "suite": [Options({"standard", "deduped"})],
        "shots": [Options({"zero-shot", "five-shot"})],
        "final_only": [Options({True, False})],
    }
)
def read_pythia_evals(
    root: str | Path, *, suite: str = "deduped", shots: str = "zero-shot", final_only: bool = False
) -> pd.DataFrame:
    """A validated tidy table of the Pythia suite's evaluations (0.3 format).

    ``suite``: ``"standard"`` (the standard 1b has no published evals here) or ``"deduped"``. Models are
    ``pythia-<size>[-deduped]@step<N>`` with that ``run``; D = step × 2,097,152 tokens (step 0, D = 0, is dropped:
    it has no place in a law with D^-β). Batch-size ablations and intervention runs are skipped.
    """
    root = as_path(root, "root")
    if not root.is_dir():
        raise InputError(f"{root}: not a directory of Pythia evaluations")
    frames = []
    for model_dir, size in pythia_runs(root, suite=suite, shots=shots):
        for path in sorted((model_dir / shots).glob("*.json")):
            found = _STEP.search(path.stem)
            step = int(found.group(1)) if found else 0
            if step == 0 or (final_only and step != 143000):  # no step, or step 0 (D = 0)
                continue
            frames.append(
                read_lm_eval_json(path, model=f"{model_dir.name}@step{step}").assign(
                    params=float(PYTHIA_PARAMS[size]),
                    train_tokens=float(step * PYTHIA_TOKENS_PER_STEP),
                    release_date=PYTHIA_RELEASE_DATE,
                    family="pythia-deduped" if suite == "deduped" else "pythia",
                    revision=f"step{step}",
                    run=model_dir.name,
                )
            )
    if not frames:
        raise InputError(f"{root}: no Pythia {suite} {shots} result files found")
    return validate_results(pd.concat(frames, ignore_index=True), source=str(root))


def read_text_table(path: Path, columns, what: str) -> pd.DataFrame:
    """The CSV at ``path`` as text cells; InputError when it is missing or lacks one of ``columns``."""
    if not path.is_file():
        raise InputError(f"{path}: no such file ({what})")
    raw = read_csv_file(path, dtype=str, keep_default_na=False)
    if missing := [c for c in columns if c not in raw.columns]:
        have = [str(c) for c in raw.columns]
        listed = ", ".join(have[:8]) + (f", … ({len(have)} in all)" if len(have) > 8 else "")
        raise InputError(f"{path}: missing column(s) {', '.join(missing)} (have: {listed})")
    return raw
