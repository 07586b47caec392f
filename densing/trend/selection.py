"""Who measures a row and what: the set rule that picks a row's reference families (:func:`set_references`), and the
row's common targets (:mod:`densing.trend.pooling`, steps 1 and 2): the complete cases, dated, with standard errors,
each inverted by every reference but its own family's (:func:`own_from_others`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import gammaincinv  # χ²'s quantile 2·P⁻¹(B/2, p) (what scipy.stats.chi2.ppf computes)

from densing.constants import DEFAULT_EPOCH
from densing.data.labs import table_labs
from densing.data.schema import LAB_COLUMN
from densing.errors import InputError
from densing.laws.bounds import EXACT
from densing.runtime.memo import per_table
from densing.states import LeftOut, ReferenceName
from densing.trend.targets import own_models, screened_targets, target_labels, window_edges

#: The least number of targets two references must both invert exactly to estimate their offset.
MIN_SHARED = 3


@dataclass(frozen=True)
class CommonTargets:
    """A row's common targets: the complete-case targets and, per reference, which of them are its own."""

    inversions: tuple
    frame: pd.DataFrame = field(repr=False)
    own: np.ndarray = field(repr=False)  # (references, targets) bool
    #: the models left out: ``model, reason, detail`` (a :class:`densing.states.LeftOut` code and the window's edge;
    #: in words, :func:`densing.present.words.left_out_frame`)
    left_out: pd.DataFrame = field(repr=False)
    #: family → the lab the whole table's own ``lab`` column gives it (:func:`densing.data.labs.table_labs`; empty
    #: without that column): the labs of the references' families and of the targets' (step 3 and 4 of pooling).
    family_labs: dict = field(repr=False, default_factory=dict)

    @property
    def names(self) -> tuple[ReferenceName, ...]:
        return tuple(inv.reference for inv in self.inversions)

    @property
    def benchmarks(self) -> tuple[str, ...]:
        return tuple(self.inversions[0].benchmarks)

    def members(self) -> list[tuple[object, pd.DataFrame]]:
        """(inversion, the targets it inverts itself) per reference: the row's checks read these."""
        return [(inv, self.frame[~self.own[r]].reset_index(drop=True)) for r, inv in enumerate(self.inversions)]


def common_targets(
    targets: pd.DataFrame, inversions, *, since: str | None, epoch: str = DEFAULT_EPOCH, until: str | None = None
) -> CommonTargets:
    """The row's targets (complete cases on its benchmarks, dated, with standard errors) and each reference's own
    models; every inversion must invert the same benchmarks (an InputError otherwise)."""
    inversions = tuple(inversions)
    if not inversions:
        raise InputError("references: a row needs at least one reference")
    benchmarks = tuple(inversions[0].benchmarks)
    for inv in inversions[1:]:
        if tuple(inv.benchmarks) != benchmarks:
            raise InputError(
                f"references: {inv.name} inverts {', '.join(inv.benchmarks)}, the row "
                f"{', '.join(benchmarks)}; the common targets of a row need the same benchmarks"
            )
    keys = {(inv.fits[0].metric, inv.require) for inv in inversions}
    if len(keys) > 1:
        raise InputError(
            f"references: {', '.join(inv.name for inv in inversions)} read {', '.join(benchmarks)} under "
            "different metrics or completeness rules; the common targets of a row need one"
        )
    dated, screened = screened_targets(targets, inversions[0], since=since, until=until, epoch=epoch)
    labels = target_labels(dated)
    owns = np.array([[m in own for m in labels] for own in map(own_models, inversions)], bool).reshape(
        len(inversions), -1
    )
    # a model left out only as a reference's own model is a target of the row (inverted by the others); each model
    # comes in the order in which the references' targets list it: by the first reference that does not own it
    # (every reference owns it: last), then by the table's order
    first = np.where(owns.all(axis=0), len(inversions), np.argmin(owns, axis=0))
    passing = np.flatnonzero(screened == "")
    rows = passing[np.argsort(first[passing], kind="stable")]  # the table's rows of the targets, in that order
    complete = _complete(dated, benchmarks)[rows]
    kept = rows[complete]
    final = kept[np.lexsort((labels[kept], dated["t"].to_numpy(float)[kept]))]  # by date, then name
    failing = np.flatnonzero((screened != "") & (first < len(inversions)))  # a screened-out model no reference owns
    failing = failing[np.argsort(first[failing], kind="stable")]
    names = labels[np.concatenate([rows[~complete], failing])]  # the models left out, the incomplete ones first
    missing = np.full(names.size - failing.size, LeftOut.INCOMPLETE, dtype=object)
    reasons = np.concatenate([missing, np.asarray(screened[failing], dtype=object)])
    at = np.sort(np.unique(names.astype(str), return_index=True)[1])  # each once, with its first reason, in order
    return CommonTargets(
        inversions,
        dated.iloc[final].reset_index(drop=True),
        owns[:, final],
        pd.DataFrame({"model": names[at], "reason": reasons[at], "detail": window_edges(reasons[at], since, until)}),
        _table_labs(targets),
    )


@per_table
def _table_labs(targets: pd.DataFrame) -> dict[str, str]:
    """family → the lab the table's own ``lab`` column gives its rows (:func:`densing.data.labs.table_labs`), {}
    where the table has no ``lab`` or no ``family`` column; once per table inside ``same_tables``."""
    if LAB_COLUMN not in targets.columns or "family" not in targets.columns:
        return {}
    return table_labs(targets["family"].tolist(), targets[LAB_COLUMN].tolist())


@per_table
def _complete(dated: pd.DataFrame, benchmarks: tuple[str, ...]) -> np.ndarray:
    """Whether each model has a score on every one of ``benchmarks``, once per table inside ``same_tables``."""
    return dated[[f"score:{b}" for b in benchmarks]].notna().all(axis=1).to_numpy()


def row_medians(values: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """Each row's median over its ``counted`` finite values (the rest NaN), ``np.nanmedian(values, axis=1)``'s number
    ((a + b)/2 of the two middle values) without its masked-array pass per call; NaN for a row with none."""
    ordered = np.sort(values, axis=1)  # NaNs last
    rows, high = np.arange(len(values)), counted // 2
    low = np.where(counted % 2 == 1, high, high - 1)  # a row with none: its last value and its first, both NaN
    return (ordered[rows, low] + ordered[rows, high]) / 2


def own_from_others(y: np.ndarray, kind: np.ndarray, own: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every reference's ln ρ for every target (step 2), (R, K, n), its own members from the others on its scale, and
    the offsets δ (R, K); only the own members' elements of the caller's new arrays ``y`` and ``kind`` are written."""
    count, draws, _ = y.shape
    mine = np.broadcast_to(own[:, None, :], y.shape)  # each reference's own members
    y[mine], kind[mine] = np.nan, np.nan
    exact = (kind == EXACT) & np.isfinite(y)
    delta = np.zeros((count, draws))
    for r in range(1, count):
        shared = exact[r] & exact[0]
        diff = np.where(shared, y[r] - y[0], np.nan)
        counted = shared.sum(axis=1)
        delta[r] = np.where(counted >= MIN_SHARED, row_medians(diff, counted), 0.0)
    columns = np.flatnonzero(own.any(axis=0))  # the targets some reference takes from the others: theirs alone
    fill, fill_kind = _from_others(y[:, :, columns], kind[:, :, columns], exact[:, :, columns], delta)
    reference, target = np.nonzero(own)  # each own member (r, i), its column in the fill
    at = np.searchsorted(columns, target)
    y[reference, :, target] = fill[:, at].T + delta[reference]
    kind[reference, :, target] = fill_kind[:, at].T
    return y, kind, delta


def _from_others(
    y: np.ndarray, kind: np.ndarray, exact: np.ndarray, delta: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(fill, kind) (K, m) of :func:`own_from_others` for m targets, on the lead's scale: the mean of the references
    that invert a target exactly, y_r − δ_r, else the first reference (lead order) with any value or bound. Each
    target's numbers are its own arithmetic: the same for any set of targets given."""
    on_lead = y - delta[:, :, None]  # every reference's values on the lead's scale
    exact_lead = np.where(exact, on_lead, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", RuntimeWarning
        )  # a target no other reference inverts exactly: NaN, filled below
        mean_exact = np.nanmean(exact_lead, axis=0)  # (K, m): over references that invert it exactly
    first = np.full(y.shape[1:], np.nan)
    first_kind = np.full(y.shape[1:], np.nan)
    for r in range(len(y) - 1, -1, -1):  # the first reference (lead order) with any value or bound
        has = np.isfinite(on_lead[r]) & np.isfinite(kind[r])
        first = np.where(has, on_lead[r], first)
        first_kind = np.where(has, kind[r], first_kind)
    fill = np.where(np.isfinite(mean_exact), mean_exact, first)
    return fill, np.where(np.isfinite(mean_exact), EXACT, first_kind)


def reference_targets(inversion, frame: pd.DataFrame) -> CommonTargets:
    """One reference's common targets as given (``model``, ``params``, ``t``, scores), none of them its own."""
    frame = frame.reset_index(drop=True)
    return CommonTargets(
        (inversion,), frame, np.zeros((1, len(frame)), bool), pd.DataFrame(columns=["model", "reason", "detail"])
    )


def set_references(
    candidates: pd.DataFrame, benchmarks: tuple[str, ...], *, strict: bool = False
) -> dict[str, tuple[str, ...]]:
    """The reference families of a row under the common targets: family → the row's benchmarks (all of them). One
    benchmark: the families the reference rule makes eligible on it. A set of B benchmarks (docs/method.md, "A set's
    references"): a family that passes R1, R2, R3 and R2s on **every** benchmark, R4r and R4s on **at least one**, and
    whose largest member the refits without it predict within noise jointly, Σ_b z_b² ≤ χ²(B) at 0.95 (R5z over the
    set); ``strict=True``: the reference rule on every benchmark of the set (a labelled variant)."""
    columns = _rule_columns(candidates)
    chosen = np.flatnonzero(columns["family_row"] & np.isin(columns["benchmark"], list(benchmarks)))
    out: dict[str, tuple[str, ...]] = {}
    eligible, benchmark, code = (columns[k][chosen] for k in ("eligible", "benchmark", "code"))
    z_all = columns["held_out_z"][chosen] if len(benchmarks) > 1 and not strict else None
    bound = float(2 * gammaincinv(len(benchmarks) / 2, 0.95))
    groups: dict = {}
    for i, family in enumerate(columns["family"][chosen]):
        groups.setdefault(family, []).append(i)
    for family, at in sorted(groups.items()):
        at = np.asarray(at)
        if set(benchmark[at]) != set(benchmarks):
            continue
        if len(benchmarks) == 1 or strict:
            passes = eligible[at].all()
        else:  # R1, R2, R3, R2s on every benchmark; R4r and R4s on at least one; R5z over the set
            z = z_all[at]
            passes = (
                not np.isin(code[at], ["R1", "R2", "R3", "R2s"]).any()
                and np.isin(code[at], ["", "R5z"]).any()
                and np.all(np.isfinite(z))
                and float(np.sum(z**2)) <= bound
            )
        if passes:
            out[str(family)] = tuple(benchmarks)
    return out


@per_table
def _rule_columns(candidates: pd.DataFrame) -> dict[str, np.ndarray]:
    """What :func:`set_references` reads of a candidate table as arrays, once per table inside ``same_tables``."""
    eligible = candidates["eligible"].astype(bool).to_numpy()
    code = candidates["code"].fillna("").astype(str).to_numpy(object)
    code[eligible] = ""
    return {
        "family_row": (candidates["kind"] == "family").to_numpy(bool),
        "family": candidates["family"].to_numpy(object),
        "benchmark": candidates["benchmark"].to_numpy(object),
        "eligible": eligible,
        "code": code,
        "held_out_z": candidates["held_out_z"].to_numpy(float)
        if "held_out_z" in candidates.columns
        else np.full(len(candidates), np.nan),
    }
