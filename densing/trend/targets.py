"""The targets of a trend: every dated model with a score and its standard error (the table's, else binomial from the
item count: :func:`densing.data.benchmarks.with_stderr`), less the reference's own models; the dates of a trend as
days since the epoch; the usable points of a frame of values, with the rows left out and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

from densing.constants import DEFAULT_EPOCH
from densing.data.benchmarks import with_stderr
from densing.data.schema import is_missing, require_columns
from densing.errors import InputError
from densing.laws.inversion import as_inversion, score_matrix
from densing.laws.reference_fit import ReferenceFit
from densing.numbers import counted_noun, parse_date
from densing.runtime.memo import per_table
from densing.states import LeftOut

#: The columns a score table needs (one row per model × benchmark × metric).
SCORE_COLUMNS = ("model", "benchmark", "metric", "value", "params", "release_date")


def reference_models(fit: ReferenceFit) -> set[str]:
    """The models whose points define ``fit`` and, for a family fit, every model of its family (never targets)."""
    names = {str(p[0]) for p in fit.points} | {str(p[0]) for p in (fit.loss_points or ())}
    names |= set(fit.provenance.get("members", ()))
    return names | {n.split("@")[0] for n in names}


#: :func:`densing.data.benchmarks.with_stderr` and :func:`densing.laws.inversion.score_matrix` (``targets``,
#: ``benchmarks``, ``metric``, ``require``), once per table and arguments inside ``same_tables`` (not to be changed)
_filled, _score_matrix = per_table(with_stderr), per_table(score_matrix)


@per_table
def _screened(
    targets: pd.DataFrame, benchmarks: tuple[str, ...], metric, require: str, since, until, epoch: str
) -> tuple[pd.DataFrame, np.ndarray]:
    """The score matrix dated (``t``) and each row's reason to leave it out (a :class:`densing.states.LeftOut` code,
    "" where none), once per table, benchmarks and window inside ``same_tables``."""
    rows = _score_matrix(targets, benchmarks, metric, require)  # read only: the rows kept are a copy
    if rows.empty:
        raise InputError(
            f"targets: no model has {'a score' if require == 'any' else 'scores'} on "
            f"{', '.join(benchmarks)} (metric {metric!r})"
        )
    if "release_date" not in rows.columns:
        raise InputError("targets: no 'release_date' column; a trend needs release dates")
    reasons = np.full(len(rows), "", dtype=object)
    dates = pd.to_datetime(rows["release_date"])
    reasons[dates.isna().to_numpy()] = LeftOut.NO_DATE
    if since is not None:
        reasons[(reasons == "") & (dates < pd.Timestamp(since)).to_numpy()] = LeftOut.BEFORE
    if until is not None:
        reasons[(reasons == "") & (dates >= pd.Timestamp(until)).to_numpy()] = LeftOut.ON_OR_AFTER
    no_error = np.column_stack(
        [(rows[f"score:{b}"].notna() & rows[f"stderr:{b}"].isna()).to_numpy() for b in benchmarks]
    ).any(axis=1)
    reasons[(reasons == "") & no_error] = LeftOut.NO_STDERR
    dated = rows.copy()
    dated["release_date"] = dates
    dated["t"] = days_since(dates.to_numpy("datetime64[ns]"), parse_epoch(epoch))
    return dated, reasons


@per_table
def target_labels(dated: pd.DataFrame) -> np.ndarray:
    """The models of :func:`_screened`'s table as strings, once per table inside ``same_tables`` (shared)."""
    return dated["model"].astype(str).to_numpy()


def screened_targets(
    targets: pd.DataFrame,
    reference,
    *,
    since: str | None = DEFAULT_EPOCH,
    until: str | None = None,
    epoch: str = DEFAULT_EPOCH,
) -> tuple[pd.DataFrame, np.ndarray]:
    """:func:`_screened` of the reference's benchmarks under its metric (callers must not change them)."""
    inversion = as_inversion(reference, None)
    return _screened(
        _filled(targets), tuple(inversion.benchmarks), inversion.fits[0].metric, inversion.require, since, until, epoch
    )


def own_models(reference) -> set[str]:
    """The models of every fit of an inversion (or a fit) that are never its targets (:func:`reference_models`)."""
    return set().union(*(reference_models(f) for f in as_inversion(reference, None).fits))


def trend_targets(
    targets: pd.DataFrame,
    reference,
    *,
    since: str | None = DEFAULT_EPOCH,
    until: str | None = None,
    epoch: str = DEFAULT_EPOCH,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per target model of an inversion (or a fit), never its own, and the left-out ones with the reason: a
    ``model, reason, detail`` frame (a :class:`densing.states.LeftOut` code and the window's edge,
    :func:`window_edges`; in words, :func:`densing.present.words.left_out_frame`)."""
    dated, screened = screened_targets(targets, reference, since=since, until=until, epoch=epoch)
    own = own_models(reference)
    labels = target_labels(dated)
    reasons = np.where(np.fromiter((m in own for m in labels), bool, len(labels)), LeftOut.OWN, screened)
    keep = reasons == ""
    left = pd.DataFrame(
        {
            "model": dated["model"].iloc[np.flatnonzero(~keep)].reset_index(drop=True),
            "reason": reasons[~keep],
            "detail": window_edges(reasons[~keep], since, until),
        }
    )
    return dated[keep].reset_index(drop=True), left


def window_edges(reasons: np.ndarray, since, until) -> np.ndarray:
    """The ``detail`` of each left-out target's reason (:class:`densing.states.LeftOut`): the window's edge it fell
    outside (``since`` for :attr:`~densing.states.LeftOut.BEFORE`, ``until`` for
    :attr:`~densing.states.LeftOut.ON_OR_AFTER`, as given), None for every other reason."""
    edges = np.full(len(reasons), None, dtype=object)
    reasons = np.asarray(reasons, dtype=object)
    edges[reasons == LeftOut.BEFORE] = since
    edges[reasons == LeftOut.ON_OR_AFTER] = until
    return edges


def family_clusters(families) -> np.ndarray:
    """Each target's cluster of the family bootstrap: its family's code in order of first appearance (as
    :func:`pandas.factorize` numbers them); a model with no family (:data:`_NO_FAMILY`, or missing) is its own."""
    names = [
        f"\x00model {i}"
        if str(family) in _NO_FAMILY or (not isinstance(family, str) and is_missing(family))
        else str(family)
        for i, family in enumerate(families)
    ]  # a blank text is a name
    return pd.factorize(np.array(names, dtype=object))[0].astype(np.intp)


#: Family cells that name no family: a model with one of these is a cluster of its own.
_NO_FAMILY = frozenset({"", "nan", "None", "<NA>"})


def to_timestamp(value: object, *, field: str, where: str) -> pd.Timestamp:
    if isinstance(value, (pd.Timestamp, datetime, date, np.datetime64)):
        stamp = pd.Timestamp(value)
    else:
        try:
            return parse_date(value, field=field, where=where, in_domain=False)  # a time coordinate: any date
        except InputError:  # parse_date takes dates only; also accept ISO 8601 date-times ("2023-02-24T12:00")
            try:
                stamp = pd.to_datetime(str(value).strip(), format="ISO8601")
            except (TypeError, ValueError):
                raise InputError(
                    f"{where}: field '{field}': cannot parse {value!r} as a date "
                    "(expected YYYY-MM-DD or an ISO 8601 date-time)"
                ) from None
    return stamp.tz_convert(None) if stamp.tzinfo is not None else stamp


def dates_as_days(dates: object, epoch: pd.Timestamp, *, name: str = "dates") -> np.ndarray:
    """Days since ``epoch`` of one date or a sequence of them; an InputError naming ``name`` and the item otherwise."""
    scalar = isinstance(dates, (str, pd.Timestamp, datetime, date, np.datetime64))
    if not scalar and (dates is None or isinstance(dates, (bytes, dict)) or not hasattr(dates, "__iter__")):
        raise InputError(f"{name}: expected a date or a sequence of dates, got {dates!r}")
    items = [dates] if scalar else list(dates)
    stamps = [to_timestamp(d, field=name, where=f"{name}: item {i}") for i, d in enumerate(items, start=1)]
    return days_since(np.asarray(pd.DatetimeIndex(stamps), dtype="datetime64[ns]"), epoch)


def parse_epoch(epoch: object) -> pd.Timestamp:
    if is_missing(epoch):
        raise InputError("field 'epoch': expected a date such as 2023-02-24, got nothing")
    return to_timestamp(epoch, field="epoch", where="trend")


@dataclass(frozen=True, eq=False)
class Points:
    """Usable rows: labels, release dates, values and the fitted response y with its kind."""

    labels: np.ndarray  # object array of str
    dates: np.ndarray  # datetime64[ns]
    values: np.ndarray  # the raw positive value (density or price)
    y: np.ndarray  # ln density, or −ln price for costs (so "higher is better" in both)
    kind: np.ndarray  # 0 exact, +1 a lower bound, −1 an upper bound (a ``bound`` column; all exact without one)


#: Words and numbers a ``bound`` column may hold, and the kind each means (densing.trend.censored).
BOUND_KINDS = {
    "": 0,
    "exact": 0,
    "0": 0,
    "lower bound": 1,
    "lower": 1,
    "1": 1,
    "upper bound": -1,
    "upper": -1,
    "-1": -1,
}


def _bound_kind(raw: object, where: str) -> int:
    """A ``bound`` cell's kind (:data:`BOUND_KINDS`); an InputError for any other word."""
    key = "" if is_missing(raw) else str(int(raw) if isinstance(raw, (int, float)) else raw).strip().lower()
    if key not in BOUND_KINDS:
        raise InputError(f"{where}: field 'bound': expected '', 'lower bound' or 'upper bound', got {raw!r}")
    return BOUND_KINDS[key]


def prepare(
    frame: pd.DataFrame,
    *,
    value_column: str,
    date_column: str,
    label_column: str | None,
    source: str,
    unique_labels: bool,
    sign: float,
) -> tuple[Points, pd.DataFrame]:
    """Validate a frame and split it into usable points and an ``excluded`` frame, ``row``, the label, the date and value
    columns as given, ``reason`` and ``detail``, per row left out (a :class:`densing.states.LeftOut` code: a
    ``censored`` cell, a missing date, a non-finite or non-positive value; in words,
    :func:`densing.present.words.excluded_reasons`); an InputError, naming the row (1-based) and the field, for a
    non-frame, missing columns, an empty table, an unparseable date or a non-numeric value."""
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"{source}: expected a pandas DataFrame, got {type(frame).__name__}")
    require_columns(frame, [c for c in (label_column, date_column, value_column) if c is not None], source)
    has_censored, has_bound = "censored" in frame.columns, "bound" in frame.columns
    kept: list[tuple] = []  # (label, date, value, kind) of each usable row
    excluded: list[dict[str, Any]] = []
    named = "label" if label_column is None else label_column
    seen: dict[str, int] = {}
    for i, rec in enumerate(frame.to_dict("records"), start=1):
        where = f"{source}: row {i}"
        if label_column is not None and is_missing(rec[label_column]):
            raise InputError(f"{where}: field '{label_column}': expected a name, got nothing")
        label = f"row {i}" if label_column is None else str(rec[label_column])
        if unique_labels and label in seen:
            raise InputError(
                f"{where}: field '{label_column}': model {label!r} already appears in row {seen[label]}; "
                "the trend needs one density per model (pass the per-model geometric-mean frame, or one "
                "benchmark at a time)"
            )
        seen.setdefault(label, i)
        raw_date, raw_value = rec[date_column], rec[value_column]
        stamp = None if is_missing(raw_date) else to_timestamp(raw_date, field=date_column, where=where)
        try:
            number = math.nan if is_missing(raw_value) else float(raw_value)
        except (TypeError, ValueError):
            raise InputError(f"{where}: field '{value_column}': expected a number, got {raw_value!r}") from None
        if has_censored and not is_missing(rec["censored"]):
            reason, detail = LeftOut.CENSORED, rec["censored"]
        elif stamp is None:
            reason, detail = LeftOut.MISSING_DATE, None
        elif not math.isfinite(number):
            reason, detail = LeftOut.NON_FINITE, raw_value
        elif number <= 0:
            reason, detail = LeftOut.NON_POSITIVE, number
        else:
            reason = None
        if reason is not None:
            excluded.append(
                {
                    "row": i,
                    named: label,
                    date_column: raw_date,
                    value_column: raw_value,
                    "reason": reason,
                    "detail": detail,
                }
            )
            continue
        kept.append((label, stamp, number, _bound_kind(rec["bound"], where) if has_bound else 0))
    labels, dates, values, kinds = zip(*kept) if kept else ((), (), (), ())
    values = np.asarray(values, dtype=float)
    return (
        Points(
            np.asarray(labels, dtype=object),
            np.asarray(pd.DatetimeIndex(dates), dtype="datetime64[ns]"),
            values,
            sign * np.log(values),
            np.asarray(kinds, int),
        ),
        pd.DataFrame(excluded, columns=["row", named, date_column, value_column, "reason", "detail"]).assign(
            detail=pd.Series([e["detail"] for e in excluded], dtype=object)  # each cell as given (None, not NaN)
        ),
    )


def density_points(frame: pd.DataFrame) -> tuple[Points, pd.DataFrame]:
    """The finite densities of a ``model, density`` frame (a censored or non-positive one left out, with why)."""
    return prepare(
        frame,
        value_column="density",
        date_column="release_date",
        label_column="model",
        source="densities",
        unique_labels=True,
        sign=1.0,
    )


def days_since(dates: np.ndarray, epoch: pd.Timestamp) -> np.ndarray:
    return (dates - np.datetime64(epoch.to_datetime64(), "ns")) / np.timedelta64(1, "D")


def check_window(targets: pd.DataFrame, since, *, name: str = "targets") -> None:
    """An InputError naming the filter and the models it removed where no model of ``name`` is left in the window."""
    models = targets.groupby(targets["model"].astype(str), sort=False)
    dates = pd.to_datetime(models["release_date"].max()) if "release_date" in targets.columns else None
    if dates is None or dates.notna().sum() == 0:
        raise InputError(
            f"{name}: no release date on any of its {counted_noun(models.ngroups, 'model')} (no "
            f"'release_date' column, or "
            f"every cell empty); a trend keeps dated models only, so that filter removes all "
            f"{models.ngroups}"
        )
    if since is None:
        return
    start = pd.Timestamp(since)
    before = int((dates < start).sum())
    if before == int(dates.notna().sum()):
        undated = int(dates.isna().sum())
        raise InputError(
            f"since: {start.date()} removes every dated model ({before} of {models.ngroups}, the latest "
            f"released {dates.max().date()}{f'; {undated} more have no release date' if undated else ''})"
            "; nothing is left to measure"
        )
