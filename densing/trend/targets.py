"""The targets of a trend: every dated model with a score and its standard error, less the reference's own models.

Each score carries its standard error: the table's, else binomial from the benchmark's item
count (:func:`with_stderr`); a model without one is left out, with the reason.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from densing.data.item_counts import binomial_stderr, item_counts
from densing.errors import InputError
from densing.laws.reference_fit import ReferenceFit
from densing.trend.constants import DEFAULT_EPOCH
from densing.laws.inversion import as_inversion, score_matrix
from densing.table_cache import derived
from densing.trend.scope import days_since, parse_epoch


def with_stderr(targets: pd.DataFrame) -> pd.DataFrame:
    """Fill a missing score standard error with the binomial √(S(1 − S)/n), n the benchmark's item count."""
    known = set(item_counts()["benchmark"])
    if "stderr" in targets.columns and not (targets["stderr"].isna() & targets["benchmark"].isin(known)).any():
        return targets  # nothing to fill (a table this function already filled, say): no copy
    out = targets.copy()
    if "stderr" not in out.columns:
        out["stderr"] = np.nan
    missing = out["stderr"].isna() & out["benchmark"].isin(known)
    for benchmark, rows in out[missing].groupby("benchmark"):
        out.loc[rows.index, "stderr"] = binomial_stderr(rows["value"].to_numpy(float), str(benchmark))
    return out


def reference_models(fit: ReferenceFit) -> set[str]:
    """The models whose points define ``fit`` and, for a family fit, every model of its family (never targets)."""
    names = {str(p[0]) for p in fit.points} | {str(p[0]) for p in (fit.loss_points or ())}
    names |= set(fit.provenance.get("members", ()))
    return names | {n.split("@")[0] for n in names}


def _score_matrix(targets: pd.DataFrame, benchmarks: tuple[str, ...], metric, require: str) -> pd.DataFrame:
    """:func:`densing.laws.inversion.score_matrix`, computed once per table and benchmark tuple inside
    :func:`densing.table_cache.same_tables` (a copy returned: callers add columns)."""
    rows = derived(targets, ("score_matrix", tuple(benchmarks), metric, require),
                   lambda: score_matrix(targets, benchmarks, metric, require=require))
    return rows.copy()


def trend_targets(targets: pd.DataFrame, reference, *, since: str | None = DEFAULT_EPOCH,
                  until: str | None = None, epoch: str = DEFAULT_EPOCH) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per target model of an inversion (or a fit) and the left-out ones, with the reason.

    Rows: model, family, params, release_date, t and every benchmark's ``score:<b>``/``stderr:<b>``
    (plain ``score``/``stderr`` for one benchmark). The reference's own models — the points it
    was fitted on and, for a family reference, every model of the family — are never targets.
    """
    inversion = as_inversion(reference, None)
    rows = _score_matrix(with_stderr(targets), inversion.benchmarks, inversion.fits[0].metric, inversion.require)
    if rows.empty:
        raise InputError(f"targets: no model has {'a score' if inversion.require == 'any' else 'scores'} on "
                         f"{', '.join(inversion.benchmarks)} (metric {inversion.fits[0].metric!r})")
    reasons = pd.Series("", index=rows.index, dtype=object)
    own = set().union(*(reference_models(f) for f in inversion.fits))
    reasons[rows["model"].astype(str).isin(own)] = "defines the reference"
    if "release_date" not in rows.columns:
        raise InputError("targets: no 'release_date' column; a trend needs release dates")
    dates = pd.to_datetime(rows["release_date"])
    reasons[(reasons == "") & dates.isna()] = "no release date"
    if since is not None:
        reasons[(reasons == "") & (dates < pd.Timestamp(since))] = f"released before {since}"
    if until is not None:
        reasons[(reasons == "") & (dates >= pd.Timestamp(until))] = f"released on or after {until}"
    no_error = np.column_stack([(rows[f"score:{b}"].notna() & rows[f"stderr:{b}"].isna()).to_numpy()
                                for b in inversion.benchmarks]).any(axis=1)
    reasons[(reasons == "") & no_error] = "no standard error and no item count for its benchmark"
    kept = rows[reasons == ""].copy()
    kept["release_date"] = pd.to_datetime(kept["release_date"])
    kept["t"] = days_since(kept["release_date"].to_numpy("datetime64[ns]"), parse_epoch(epoch))
    left = rows[reasons != ""][["model"]].assign(reason=reasons[reasons != ""].to_numpy())
    return kept.reset_index(drop=True), left.reset_index(drop=True)

