"""The targets of a trend: every dated model with a score and its standard error, less the reference's own models.

Each score carries its standard error: the table's, else binomial from the benchmark's item
count (:func:`densing.data.item_counts.with_stderr`); a model without one is left out, with the reason.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from densing.data.item_counts import with_stderr
from densing.errors import InputError
from densing.laws.reference_fit import ReferenceFit
from densing.trend.constants import DEFAULT_EPOCH
from densing.laws.inversion import as_inversion, score_matrix
from densing.laws.table_cache import per_table
from densing.trend.scope import days_since, parse_epoch


def reference_models(fit: ReferenceFit) -> set[str]:
    """The models whose points define ``fit`` and, for a family fit, every model of its family (never targets)."""
    names = {str(p[0]) for p in fit.points} | {str(p[0]) for p in (fit.loss_points or ())}
    names |= set(fit.provenance.get("members", ()))
    return names | {n.split("@")[0] for n in names}


@per_table
def _filled(targets: pd.DataFrame) -> pd.DataFrame:
    """:func:`densing.data.item_counts.with_stderr` of the table, computed once per table inside
    :func:`densing.laws.table_cache.same_tables` (callers must not change it)."""
    return with_stderr(targets)


@per_table
def _score_matrix(targets: pd.DataFrame, benchmarks: tuple[str, ...], metric, require: str) -> pd.DataFrame:
    """:func:`densing.laws.inversion.score_matrix`, computed once per table and benchmark tuple inside
    :func:`densing.laws.table_cache.same_tables` (callers copy it before adding columns)."""
    return score_matrix(targets, benchmarks, metric, require=require)


@per_table
def _screened(targets: pd.DataFrame, benchmarks: tuple[str, ...], metric, require: str, since, until, epoch: str
              ) -> tuple[pd.DataFrame, np.ndarray]:
    """The score matrix with release dates parsed, ``t`` and each row's reason to leave it out other than being a
    reference's own model (no date, outside the window, no standard error; "" where none): computed once per table,
    benchmark tuple and window inside :func:`densing.laws.table_cache.same_tables` (callers must not change it)."""
    rows = _score_matrix(targets, benchmarks, metric, require)  # read only: the rows kept are a copy
    if rows.empty:
        raise InputError(f"targets: no model has {'a score' if require == 'any' else 'scores'} on "
                         f"{', '.join(benchmarks)} (metric {metric!r})")
    if "release_date" not in rows.columns:
        raise InputError("targets: no 'release_date' column; a trend needs release dates")
    reasons = np.full(len(rows), "", dtype=object)
    dates = pd.to_datetime(rows["release_date"])
    reasons[dates.isna().to_numpy()] = "no release date"
    if since is not None:
        reasons[(reasons == "") & (dates < pd.Timestamp(since)).to_numpy()] = f"released before {since}"
    if until is not None:
        reasons[(reasons == "") & (dates >= pd.Timestamp(until)).to_numpy()] = f"released on or after {until}"
    no_error = np.column_stack([(rows[f"score:{b}"].notna() & rows[f"stderr:{b}"].isna()).to_numpy()
                                for b in benchmarks]).any(axis=1)
    reasons[(reasons == "") & no_error] = "no standard error and no item count for its benchmark"
    dated = rows.copy()
    dated["release_date"] = dates
    dated["t"] = days_since(dates.to_numpy("datetime64[ns]"), parse_epoch(epoch))
    return dated, reasons


@per_table
def target_labels(dated: pd.DataFrame) -> np.ndarray:
    """The models of :func:`_screened`'s table as strings, once per table inside
    :func:`densing.laws.table_cache.same_tables` (callers must not change it)."""
    return dated["model"].astype(str).to_numpy()


def screened_targets(targets: pd.DataFrame, reference, *, since: str | None = DEFAULT_EPOCH, until: str | None = None,
                     epoch: str = DEFAULT_EPOCH) -> tuple[pd.DataFrame, np.ndarray]:
    """Every model with the reference's benchmarks under its metric (the score matrix, dated: ``t``) and each one's
    reason to leave it out other than being the reference's own ("" where none): what :func:`trend_targets` and a
    row's common design (:func:`densing.trend.design.common_design`) select from. Callers must not change them."""
    inversion = as_inversion(reference, None)
    return _screened(_filled(targets), tuple(inversion.benchmarks), inversion.fits[0].metric, inversion.require,
                     since, until, epoch)


def own_models(reference) -> set[str]:
    """The models of every fit of an inversion (or a fit) that are never its targets (:func:`reference_models`)."""
    return set().union(*(reference_models(f) for f in as_inversion(reference, None).fits))


def trend_targets(targets: pd.DataFrame, reference, *, since: str | None = DEFAULT_EPOCH,
                  until: str | None = None, epoch: str = DEFAULT_EPOCH) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per target model of an inversion (or a fit) and the left-out ones, with the reason.

    Rows: model, family, params, release_date, t and every benchmark's ``score:<b>``/``stderr:<b>``
    (plain ``score``/``stderr`` for one benchmark). The reference's own models — the points it
    was fitted on and, for a family reference, every model of the family — are never targets.
    """
    dated, screened = screened_targets(targets, reference, since=since, until=until, epoch=epoch)
    own = own_models(reference)
    labels = target_labels(dated)
    reasons = np.where(np.fromiter((m in own for m in labels), bool, len(labels)), "defines the reference", screened)
    keep = reasons == ""
    left = pd.DataFrame({"model": dated["model"].iloc[np.flatnonzero(~keep)].reset_index(drop=True),
                         "reason": reasons[~keep]})
    return dated[keep].reset_index(drop=True), left


def family_clusters(families) -> np.ndarray:
    """Each target's cluster of the family bootstrap: its family's code, a model with no family a cluster of its own."""
    labels = pd.Series(list(families), dtype=object)
    missing = labels.isna() | labels.astype(str).isin(["", "nan", "None", "<NA>"])
    own = pd.Series([f"\x00model {i}" for i in range(len(labels))], dtype=object)
    return pd.factorize(labels.astype(str).where(~missing, own))[0].astype(np.intp)
