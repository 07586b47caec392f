"""The tidy results table every part of densing reads and writes.

One row per (model, benchmark, metric)::

    model, benchmark, metric, value, n_shot, params, train_tokens, release_date, source,
    [loss, loss_unit, stderr, active_params, family, revision, run]

``value`` is the benchmark score (accuracy in [0, 1] for the paper's benchmarks); ``loss`` is the
conditional loss −log P(answer | prompt) of the same model on the same benchmark, where known
(Xiao et al. 2024, §2.2), in the unit ``loss_unit`` names: ``nats`` (−ln P of the whole answer, the
default when the column is absent) or ``bpb`` (bits per byte of the correct answer, −log₂ P / bytes,
the unit of AI2's OLMo ladder). ``stderr`` is the score's standard error where known. ``run`` names
the training run a checkpoint row belongs to (one run, many checkpoints). ``params`` and ``train_tokens`` are plain counts (7e9, 2e12); strings
such as "7B" are parsed on the way in. ``active_params`` is set for mixture-of-experts models.
"""

from __future__ import annotations

import hashlib
import math
import weakref

import numpy as np
import pandas as pd

from densing.errors import InputError
from densing.impossible import MAX_PARAMS, MIN_PARAMS, check_impossible, check_params
from densing.numbers import parse_count, parse_date
from densing.validation import check_tokens

REQUIRED_COLUMNS: tuple[str, ...] = ("model", "benchmark", "metric", "value", "params")
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "n_shot",
    "train_tokens",
    "release_date",
    "source",
    "loss",
    "loss_unit",
    "stderr",
    "active_params",
    "family",
    "revision",
    "run",
)
LOSS_UNITS: tuple[str, ...] = ("nats", "bpb")
COLUMNS: tuple[str, ...] = REQUIRED_COLUMNS + OPTIONAL_COLUMNS
#: Metrics that are fractions: a value outside [0, 1] is impossible, not data.
FRACTION_METRICS: frozenset[str] = frozenset(
    {
        "acc",
        "acc_norm",
        "len_norm",
        "score",
        "exact_match",
        "pass@1",
        "pass_at_1",
        "f1",
        "mc1",
        "mc2",
        "accuracy",
        "prob",
        "prob_norm",
    }
)
#: Where a row stands in its file, carried so that an error names the file's place, not the long table's (none is kept
#: in the result): the line of a text table (the header is line 1; :func:`densing.data.readers.read_csv_file`), else
#: the row of a reshaped one (:func:`densing.data.wide.wide_to_tidy`; 1-based, the header not counted), and a wide
#: table's score column.
SOURCE_LINE, SOURCE_ROW, SOURCE_COLUMN = "_source_line", "_source_row", "_source_column"
#: The columns that identify one measurement; two rows with the same key are one measurement twice.
KEY_COLUMNS: tuple[str, ...] = ("model", "benchmark", "metric", "n_shot", "revision")


#: A table's optional column naming the lab that trained each model (text; an empty cell: its family's lab by
#: :mod:`densing.data.labs`), kept beside the tidy columns and carried to the trend's draws and pooling.
LAB_COLUMN = "lab"

#: The words of a table's optional ``derivation`` column: how a model was made from another (``results/swallow``'s
#: lineage; ``densing trend --without-continual`` drops ``continual_pretraining``).
DERIVATIONS: tuple[str, ...] = (
    "from_scratch",
    "continual_pretraining",
    "pruning_distillation",
    "depth_upscaling",
    "distillation",
    "not_stated",
)


def is_missing(value: object) -> bool:
    """True for None, NaN, NA, NaT and blank strings: a cell with no value."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, str):
        return value.strip() == ""
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def require_columns(frame: pd.DataFrame, columns, source: str) -> None:
    """Raise InputError naming ``source`` when ``frame`` lacks any of ``columns``, has a column twice, or has no rows."""
    twice = frame.columns[frame.columns.duplicated()]
    if len(twice):  # which of two ``model`` columns is meant cannot be known
        raise InputError(
            f"{source}: column {str(twice[0])!r} appears {int((frame.columns == twice[0]).sum())} times; "
            "a table names each column once"
        )
    if missing := [c for c in columns if c not in frame.columns]:
        raise InputError(
            f"{source}: missing required column(s) {', '.join(missing)} "
            f"(have: {', '.join(map(str, frame.columns)) or 'none'})"
        )
    if len(frame) == 0:
        raise InputError(f"{source}: the table has no rows")


def _float(value: object, *, field: str, where: str) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{where}: field '{field}': expected a number, got {value!r}") from None
    if not math.isfinite(number):
        raise InputError(f"{where}: field '{field}': expected a finite number, got {value!r}")
    return number


def validate_results(frame: pd.DataFrame, source: str = "<table>") -> pd.DataFrame:
    """Check and normalise a tidy results table; return a new DataFrame in canonical form.

    Raises :class:`InputError` naming ``source``, the row (a text table's line in its file, the header line 1; else its
    row, 1-based, the header not counted) and the field for a missing required column, an empty table, a cell outside
    its domain (docs/cli_reference.md's table of domains; :data:`densing.impossible.IMPOSSIBLE`) and two model names
    equal but for case with different scores for one measurement.
    """
    require_columns(frame, REQUIRED_COLUMNS, source)
    result = _validated(frame, source)
    for key in [k for k, (ref, _) in _VALIDATED.items() if ref() is None]:  # tables collected since
        del _VALIDATED[key]
    _VALIDATED[id(result)] = (weakref.ref(result), _fingerprint(result))
    return result


#: The tables :func:`validate_results` returned, by id: (a weak reference, the fingerprint of their contents), which
#: :func:`table_argument` passes on unchecked while unchanged.
_VALIDATED: dict[int, tuple] = {}


def _fingerprint(frame: pd.DataFrame) -> bytes | None:
    """A digest of the table's columns, dtypes, index and every value (None where a value cannot be hashed)."""
    try:
        rows = pd.util.hash_pandas_object(frame, index=True).to_numpy()
    except TypeError:
        return None
    digest = hashlib.blake2b(rows.tobytes(), digest_size=16)
    digest.update(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
    return digest.digest()


def _validated(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """:func:`validate_results`' checks a column at a time; where a cell fails, row by row to name the first."""
    word, places = "line" if SOURCE_LINE in frame.columns else "row", frame.get(SOURCE_LINE, frame.get(SOURCE_ROW))
    places = np.arange(1, len(frame) + 1) if places is None else places.to_numpy()  # where each row is in its file
    out = _by_columns(frame)
    if out is None:
        out = {c: [] for c in COLUMNS}
        for place, rec in zip(places, frame.to_dict("records")):
            where = f"{source}: {word} {place}"
            _read_row(rec, where, out, f"{where}, column {rec[SOURCE_COLUMN]!r}" if SOURCE_COLUMN in rec else where)
    result = pd.DataFrame(
        {
            column: (
                pd.to_datetime(pd.Series(out[column], dtype="object"))
                if dtype is None
                else pd.Series(out[column], dtype=dtype)
            )
            for column, dtype in _DTYPES.items()
        }
    )
    for c in [c for c in frame.columns if c not in COLUMNS and c not in (SOURCE_LINE, SOURCE_ROW, SOURCE_COLUMN)]:
        result[c] = frame[c].to_numpy()  # a column of the table's own, kept as it is

    def both(first: int, other: int) -> str:  # two rows of the result, by their places in the file
        one, two = places[first], places[other]
        return f"{word} {one}" if one == two else f"{word}s {one} and {two}"

    if LAB_COLUMN in frame.columns:
        result[LAB_COLUMN] = _lab_cells(frame[LAB_COLUMN], [f"{source}: {word} {place}" for place in places])
        _check_one_lab_a_family(result, source, both)
    return _check_name_case(_collapse_duplicates(result, source, both), source, both).reset_index(drop=True)


#: The canonical table's columns and their dtypes (None: datetime).
_DTYPES = {
    "model": "string",
    "benchmark": "string",
    "metric": "string",
    "value": "float64",
    "params": "float64",
    "n_shot": "Int64",
    "train_tokens": "float64",
    "release_date": None,
    "source": "string",
    "loss": "float64",
    "loss_unit": "string",
    "stderr": "float64",
    "active_params": "float64",
    "family": "string",
    "revision": "string",
    "run": "string",
}


def _lab_cells(cells: pd.Series, wheres: list[str]) -> pd.Series:
    """A table's ``lab`` column (:data:`LAB_COLUMN`) as text: each cell stripped, an empty one (None, NaN, blank) NA,
    so that its model's lab is the one :mod:`densing.data.labs` gives its family; a cell that is no text (a number, a
    truth value) is an InputError naming its row (``wheres``, one per cell)."""
    names = []
    for value, where in zip(cells.tolist(), wheres):
        if is_missing(value):
            names.append(pd.NA)
        elif isinstance(value, str):
            names.append(value.strip())
        else:
            raise InputError(
                f"{where}: field '{LAB_COLUMN}': expected the name of the lab that trained the model "
                f"(text), got {value!r}"
            )
    return pd.Series(names, index=cells.index, dtype="string")


def _check_one_lab_a_family(result: pd.DataFrame, source: str, both) -> None:
    """An InputError naming both rows where two rows of one family give it two labs: a family's recipe is one lab's
    (:mod:`densing.data.labs`), and which of the two is meant cannot be known."""
    if "family" not in result.columns:
        return
    named = result[result["family"].notna() & result[LAB_COLUMN].notna()]
    for family, rows in named.groupby("family", sort=False):
        labs = rows[LAB_COLUMN]
        if labs.nunique() > 1:
            other = labs.index[labs != labs.iloc[0]][0]
            raise InputError(
                f"{source}: {both(labs.index[0], other)}: field '{LAB_COLUMN}': family {family!r} is given "
                f"labs {labs.iloc[0]!r} and {labs[other]!r}; a family is one lab's, keep one"
            )


def _name(value: object, field: str, where: str) -> str:
    if is_missing(value):
        raise InputError(f"{where}: field '{field}' is empty")
    return str(value).strip()


def _number(value: object, field: str, where: str, metric: str = "", fraction: bool = False) -> float:
    """A ``value``, ``loss`` or ``stderr`` cell checked against :data:`densing.impossible.IMPOSSIBLE` (an empty loss or
    standard error: NaN)."""
    if field != "value" and is_missing(value):
        return np.nan
    return check_impossible(
        field, _float(value, field=field, where=where), where=where, metric=metric, fraction=fraction
    )


def _params(value: object, field: str, where: str) -> float:
    if is_missing(value):
        raise InputError(f"{where}: field 'params' is empty")
    return check_params(parse_count(value, field="params", where=where), where=where)


def _count(value: object, field: str, where: str) -> float:
    if is_missing(value):
        return np.nan
    count = parse_count(value, field=field, where=where)
    return (
        check_params(count, field=field, where=where)
        if field == "active_params"
        else check_tokens(count, field=field, where=where)
    )


def _loss_unit(value: object, field: str, where: str) -> str | None:
    if is_missing(value):
        return None
    if str(value).strip() not in LOSS_UNITS:
        raise InputError(f"{where}: field 'loss_unit': expected one of {', '.join(LOSS_UNITS)}, got {value!r}")
    return str(value).strip()


def _n_shot(value: object, field: str, where: str):
    if is_missing(value):
        return pd.NA
    n = _float(value, field="n_shot", where=where)
    if n < 0 or n != int(n):
        raise InputError(f"{where}: field 'n_shot': expected a non-negative integer, got {value!r}")
    return int(n)


def _date(value: object, field: str, where: str):
    return pd.NaT if is_missing(value) else parse_date(value, where=where)  # in the date domain


def _text(value: object, field: str, where: str) -> str | None:
    return None if is_missing(value) else str(value)


#: Each field in the order :func:`_read_row` reads it, the function that checks its cell, and whether it takes the
#: row's metric: the one definition of a cell's check for both readings.
_FIELDS = (
    ("model", _name, False),
    ("benchmark", _name, False),
    ("metric", _name, False),
    ("value", _number, True),
    ("params", _params, False),
    ("train_tokens", _count, False),
    ("active_params", _count, False),
    ("loss", _number, False),
    ("loss_unit", _loss_unit, False),
    ("stderr", _number, True),
    ("n_shot", _n_shot, False),
    ("release_date", _date, False),
    ("source", _text, False),
    ("family", _text, False),
    ("revision", _text, False),
    ("run", _text, False),
)


def _read_row(rec: dict, where: str, out: dict[str, list], score_where: str | None = None) -> None:
    """One record's fields checked (InputError naming ``where``, or for a score and its standard error
    ``score_where``: a wide table's row and column) and appended to their columns of ``out``."""
    metric, fraction = "", False
    for field, read, by_metric in _FIELDS:
        value = (
            read(rec.get(field), field, score_where or where, metric, fraction)
            if by_metric
            else read(rec.get(field), field, where)
        )
        out[field].append(value)
        if field == "metric":
            metric, fraction = value, value in FRACTION_METRICS


def _by_columns(frame: pd.DataFrame) -> dict[str, list] | None:
    """Every field of :data:`_FIELDS` read a column at a time by :func:`_read_row`'s functions, a distinct text cell
    once; None where any cell fails (:func:`_read_row` then names it)."""
    out: dict[str, list] = {}
    n = len(frame)
    try:
        for field, read, by_metric in _FIELDS:
            cells = frame[field].tolist() if field in frame.columns else [None] * n
            if by_metric:
                out[field] = [read(v, field, "", m, m in FRACTION_METRICS) for v, m in zip(cells, out["metric"])]
                continue
            # each distinct text read once (text cells only: 1 and 1.0 are equal keys, not equal texts)
            texts = {v: read(v, field, "") for v in dict.fromkeys(v for v in cells if type(v) is str)}
            out[field] = [texts[v] if type(v) is str else read(v, field, "") for v in cells]
    except InputError:
        return None
    return out


def table_argument(frame: object, name: str, columns=REQUIRED_COLUMNS, *, reference: bool = False) -> pd.DataFrame:
    """A tidy table given to the API as argument ``name``, checked as a table file is: InputError naming ``name`` (and
    the row and field) when it is not a DataFrame, lacks one of ``columns`` or fails :func:`validate_results`. A table
    of scores is always validated; a reference table (``reference=True``: often thousands of checkpoints a reader has
    checked) only where a count or score column holds something other than possible numbers."""
    if not isinstance(frame, pd.DataFrame):
        raise InputError(
            f"{name}: expected a pandas DataFrame (a tidy table, such as densing.read_results(path)), "
            f"got {type(frame).__name__}"
        )
    require_columns(frame, columns, name)
    kept = _VALIDATED.get(id(frame))  # read by densing's readers and unchanged since: checked already
    if kept is not None and kept[0]() is frame and kept[1] is not None and kept[1] == _fingerprint(frame):
        return frame
    numeric = ("value", "params", "train_tokens", "loss", "stderr", "active_params")
    if reference and all(pd.api.types.is_numeric_dtype(frame[c]) for c in numeric if c in frame.columns):
        value = frame["value"].to_numpy(float)
        params = frame["params"].to_numpy(float)
        fraction = frame["metric"].astype(str).isin(FRACTION_METRICS).to_numpy()
        with np.errstate(invalid="ignore"):
            suspect = (
                ~np.isfinite(value)
                | fraction & ((value < 0) | (value > 1))
                | ~(params >= MIN_PARAMS)
                | ~(params <= MAX_PARAMS)
            )
        if not suspect.any():
            return frame  # numbers only, none impossible: as its reader checked it
    checked = validate_results(frame, source=name)
    dates = frame.get("release_date")
    if dates is not None and pd.api.types.is_datetime64_any_dtype(dates) and len(checked) == len(frame):
        if isinstance(dates.dtype, pd.DatetimeTZDtype):  # a zone: the same instants in UTC, without the zone
            dates = dates.dt.tz_convert("UTC").dt.tz_localize(None)
        checked["release_date"] = dates.to_numpy()  # a notebook's timestamps kept to the second, not cut to the day
    return checked


def _check_name_case(result: pd.DataFrame, source: str, both) -> pd.DataFrame:
    """Refuse two spellings of one (case-insensitive) Hub id with different scores for one measurement."""
    lower = result["model"].str.lower()
    spelled = result.assign(_lower=lower).groupby("_lower", sort=False)["model"].nunique()
    clashing = set(spelled.index[spelled > 1])
    if not clashing:
        return result
    rows = result[lower.isin(clashing)]
    key = [lower[rows.index]] + [rows[c].astype("string").fillna("<NA>") for c in KEY_COLUMNS[1:]]
    for _, group in rows.groupby(key, sort=False):
        if group["model"].nunique() < 2:
            continue
        for index, field, first, other in _differing(group[["value", "loss", "stderr"]]):
            if group.at[index, "model"] != group["model"].iloc[0]:
                raise InputError(
                    f"{source}: {both(group.index[0], index)}: field 'model': {group['model'].iloc[0]!r} and "
                    f"{group.at[index, 'model']!r} differ only by case (one model on the Hub) but give different '{field}' "
                    f"on ({group['benchmark'].iloc[0]}, {group['metric'].iloc[0]}): {float(first[field])!r} vs "
                    f"{float(other[field])!r}; keep one"
                )
    return result


def _differing(rows: pd.DataFrame):
    """(index, first differing column, first row, this row) of each later row whose numbers differ (NaN equals NaN)."""
    values = rows.astype("float64")
    first = values.iloc[0]
    for index, other in values.iloc[1:].iterrows():
        same = (other == first) | (other.isna() & first.isna())
        differs = ~same
        if differs.any():
            yield index, differs.idxmax(), first, other


def _collapse_duplicates(result: pd.DataFrame, source: str, both) -> pd.DataFrame:
    """Identical repeats of one measurement collapse to one row (the index kept); conflicting ones are an error naming
    both rows (``both``: their places in the file)."""
    key = result[list(KEY_COLUMNS)].astype("string").fillna("<NA>")
    repeated = key.duplicated(keep=False)
    if not repeated.any():
        return result
    data_columns = [c for c in ("value", "loss", "stderr", "params", "train_tokens") if c in result.columns]
    for _, rows in result[repeated].groupby([key.loc[repeated, c] for c in KEY_COLUMNS], sort=False):
        for index, field, first, other in _differing(rows[data_columns]):
            raise InputError(
                f"{source}: {both(rows.index[0], index)}: the same measurement "
                f"({rows['model'].iloc[0]}, {rows['benchmark'].iloc[0]}, {rows['metric'].iloc[0]}) twice with "
                f"different '{field}' ({float(first[field])!r} vs {float(other[field])!r}); keep one"
            )
    return result[~key.duplicated(keep="first")]


def positive_count(value: str, *, field: str, where: str, integer: bool = False) -> float:
    """``value`` as a positive number (``integer``: a whole one); InputError naming ``where`` and ``field`` otherwise."""
    try:
        number = float(value)
    except ValueError:
        raise InputError(f"{where}: field '{field}': expected a plain number, got {value!r}") from None
    if not math.isfinite(number) or number <= 0:
        raise InputError(f"{where}: field '{field}': expected a positive number, got {value!r}")
    if integer and number != int(number):
        raise InputError(f"{where}: field '{field}': expected an integer count, got {value!r}")
    return number
