"""The Densing Law by capability (docs/method.md, "The Densing Law by capability"): one doubling time per benchmark
(:data:`CAPABILITY`; each reference inverted per benchmark, the paper's eq. 4) and per benchmark set
(:attr:`densing.registry.TrendTable.sets`; a joint inversion, :mod:`densing.laws.joint`), the references those of
:func:`densing.trend.selection.set_references`; the headline set is the paper's (Xiao et al. 2024, §3) as far as the
table carries it.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from densing import registry as _tables

# CAPABILITY (the rows per benchmark) is public here too (`name as name` marks a re-export)
from densing.data.benchmarks import CAPABILITY as CAPABILITY, CHANCE_LEVELS
from densing.errors import DensingError, FitError
from densing.laws import eligibility
from densing.laws.bounds import EXACT
from densing.laws.family import fit_family
from densing.laws.forms import LOSS_LAWS, translate_members
from densing.laws.inversion import Joint, PerBenchmark, arrays
from densing.laws.reference_fit import ReferenceFit
from densing.runtime.memo import per_table
from densing.states import NoFamilyPasses, NoFamilyScored, ReferenceName, State
from densing.trend import checks, pooling
from densing.trend.rules import envelope_index
from densing.trend.selection import CommonTargets, common_targets, set_references
from densing.trend.uncertainty import TrendUncertainty, from_row_trend

#: The capability of a row over a benchmark set (a row over one benchmark has that benchmark's, :data:`CAPABILITY`).
SET = "set"


@dataclass(frozen=True)
class RowSpec:
    """What one row measures, wherever a row is declared (:class:`densing.trend.plan.RowJob`), computed
    (:func:`trend_row`) or held (:class:`Row`): ``name``, its key among a measurement's rows; ``label``, the set's
    registered label (:attr:`~densing.registry.TrendTable.sets`) or the benchmark's id; ``capability``, the benchmark's
    (:data:`CAPABILITY`) or :data:`SET`; ``benchmarks``, those it inverts; ``shape`` and ``d0``, the variant of its
    references' fits (:class:`densing.trend.plan.Variant`: the law's shape, the one budget every reference is brought
    to, None for each its own). The label a reader sees, with its variant, is
    :func:`densing.present.words.row_label`'s."""

    name: str
    label: str
    capability: str
    benchmarks: tuple[str, ...]
    shape: str = "power"
    d0: float | None = None

    @classmethod
    def of_benchmark(cls, benchmark: str) -> RowSpec:
        """The row of one benchmark: named and labelled by it, of its capability (:data:`CAPABILITY`)."""
        return cls(benchmark, benchmark, CAPABILITY[benchmark], (benchmark,))

    @classmethod
    def of_set(cls, name: str, label: str, benchmarks: tuple[str, ...]) -> RowSpec:
        """The row of the benchmark set ``name`` (a table's :attr:`~densing.registry.TrendTable.sets` entry)."""
        return cls(name, label, SET, benchmarks)


@dataclass(frozen=True)
class Row:
    """One benchmark's or one set's trend (``spec``, :class:`RowSpec`): its references, the interval over them, or why
    there is none."""

    spec: RowSpec
    references: tuple[ReferenceName, ...]
    result: TrendUncertainty | None
    #: why it has no trend: :class:`~densing.states.NoFamilyScored`, :class:`~densing.states.NoFamilyPasses`, or the
    #: error its fit raised; None where it has one
    reason: object = None
    members: tuple = field(default=(), repr=False)  # (inversion, targets) per reference

    @property
    def name(self) -> str:
        """The row's name (:attr:`RowSpec.name`)."""
        return self.spec.name

    @property
    def label(self) -> str:
        """The row's label (:attr:`RowSpec.label`)."""
        return self.spec.label

    @property
    def shape(self) -> str:
        """The law shape of the row's references' fits (:attr:`RowSpec.shape`)."""
        return self.spec.shape

    @property
    def d0(self) -> float | None:
        """The one budget the row's references are brought to, None for each its own (:attr:`RowSpec.d0`)."""
        return self.spec.d0

    @property
    def capability(self) -> str:
        """The row's capability (:attr:`RowSpec.capability`)."""
        return self.spec.capability

    @property
    def benchmarks(self) -> tuple[str, ...]:
        """The benchmarks the row inverts (:attr:`RowSpec.benchmarks`)."""
        return self.spec.benchmarks

    @property
    def state(self) -> State:
        """This row's :class:`~densing.states.State`: its trend's; a row without a judged trend has neither end
        determined (:meth:`~densing.states.State.from_ends`: not measured)."""
        if self.result is None or self.result.state is None:
            return State.from_ends(low_determined=False, high_determined=False)
        return self.result.state

    @property
    def chance(self) -> float:
        """The chance score of a one-benchmark row (NaN for a set)."""
        return CHANCE_LEVELS.get(self.benchmarks[0], math.nan) if len(self.benchmarks) == 1 else math.nan


def inversion_checks(models: pd.DataFrame, inversion) -> tuple[checks.Check, ...]:
    """Saturation and conditioning over the envelope's record-setters, size confounding, size dependence (a finding)."""
    all_scores, all_stderr = arrays(models, inversion.benchmarks)
    y, kind = inversion.point(all_scores, all_stderr, models["params"].to_numpy(float))  # point_densities' numbers
    usable = np.flatnonzero(np.isfinite(y) & np.isfinite(kind))  # the envelope's record-setters among them: ``at``
    at = usable[
        envelope_index(models["t"].to_numpy(float)[usable], y[usable], models["model"].astype(str).to_numpy()[usable])
    ]
    scores, stderr, names = all_scores[at], all_stderr[at], models["model"].iloc[at].tolist()
    top, top_err, cap, where = _nearest_caps(inversion, scores, stderr)
    kappa = inversion.conditioning(scores, stderr) if len(at) else np.empty(0)
    found = (checks.saturation(top, top_err, cap, names, benchmarks=where), checks.conditioning(kappa, names))
    sizes = models.assign(log_density=np.where(kind == EXACT, y, np.nan))[["family", "params", "log_density"]]
    slope = checks.size_dependence(sizes)
    finding = replace(
        slope,
        status=checks.REPORTED if slope.status != checks.UNTESTABLE else slope.status,
        finding=checks.SIZE_FINDING,
    )
    families = models["family"].to_numpy(object) if "family" in models.columns else None
    confounding = checks.size_confounding(
        models["t"].to_numpy(float), y, kind, models["params"].to_numpy(float), families=families
    )
    return (*found, confounding, finding)


def _nearest_caps(inversion, scores: np.ndarray, stderr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """Per frontier model, the score nearest its benchmark's cap in standard errors: score, error, cap, benchmark."""
    if not scores.size:
        return np.empty(0), np.empty(0), np.empty(0), []
    caps = pooling.reference_caps(inversion, scores.shape[1])
    sigma = np.nan_to_num(stderr)
    with np.errstate(divide="ignore", invalid="ignore"):
        margin = np.where(np.isnan(scores), -np.inf, (scores - caps) / np.where(sigma > 0, sigma, 1e-12))
    pick = margin.argmax(axis=1)
    rows = np.arange(scores.shape[0])
    names = (
        list(inversion.benchmarks) if inversion.kind == "joint" else [",".join(inversion.benchmarks)] * scores.shape[1]
    )
    return scores[rows, pick], stderr[rows, pick], caps[pick], [names[i] for i in pick]


def _why_none(candidates: pd.DataFrame, benchmarks: tuple[str, ...]):
    """Why no family is a reference of ``benchmarks``: none has three models scored on them, or none passes the
    reference rule (each failing clause's code and count, and the families eligible on one benchmark of a set only)."""
    rows = candidates[(candidates["kind"] == "family") & candidates["benchmark"].isin(benchmarks)]
    if rows.empty:
        return NoFamilyScored(tuple(benchmarks))
    passes = rows["eligible"].astype(bool)
    eligible, failing = rows[passes], rows[~passes]
    codes = failing["code"].fillna("").astype(str).replace("", "other").value_counts()
    return NoFamilyPasses(
        len(benchmarks),
        tuple((str(c), int(n)) for c, n in codes.items()),
        tuple(zip(eligible["family"].astype(str), eligible["benchmark"].astype(str))),
    )


def row_fits(
    targets: pd.DataFrame, candidates: pd.DataFrame, fits: dict, found: dict[str, tuple[str, ...]], *, seed: int
) -> dict:
    """``fits`` with every (family, benchmark) of ``found`` fitted in it: one fit per pair for every row."""
    # as many draws as the fits already there (a joint inversion draws its fits together)
    boot = len(next(iter(fits.values())).bootstrap) if fits else eligibility.FAMILY_BOOT
    for family, b in ((f, b) for f, benchmarks in found.items() for b in benchmarks if (f, b) not in fits):
        fits[(family, b)] = eligibility.fit_of(targets, candidates, family, b, boot, seed)
    return fits


def row_targets(
    targets: pd.DataFrame,
    candidates: pd.DataFrame,
    fits: dict,
    found: dict[str, tuple[str, ...]],
    *,
    since: str | None,
    epoch: str,
) -> CommonTargets:
    """The row's common targets, the lead reference first (the family of lowest mean held-out |z|)."""
    names = sorted(found, key=lambda f: (_held_out(candidates, f, found[f]), f))
    chosen = [tuple(fits[(family, b)] for b in found[family]) for family in names]
    inversions = [Joint(fit) if len(fit) > 1 else PerBenchmark(fit[0], fit[0].d0) for fit in chosen]
    return common_targets(targets, inversions, since=since, epoch=epoch)


def trend_row(
    spec: RowSpec,
    targets: pd.DataFrame,
    candidates: pd.DataFrame,
    fits: dict,
    *,
    since: str | None,
    epoch: str,
    n_boot: int,
    n_boot_share: int,
    seed: int,
    found: dict[str, tuple[str, ...]] | None = None,
    details: bool = True,
) -> Row:
    """The row ``spec``: its references (:func:`densing.trend.selection.set_references`, or ``found``), its pooled
    trend (``details``: with its slopes without each kind of bound, readings and leave-one-out tables,
    :func:`densing.trend.pooling.pooled_trend`)."""
    benchmarks = spec.benchmarks
    found = set_references(candidates, tuple(benchmarks)) if found is None else found
    if not found:
        return Row(spec, (), None, _why_none(candidates, benchmarks))
    try:
        row_fits(targets, candidates, fits, found, seed=seed)
        chosen = row_targets(targets, candidates, fits, found, since=since, epoch=epoch)
        result = from_row_trend(
            pooling.pooled_trend(
                chosen,
                n_boot=n_boot,
                n_boot_share=n_boot_share,
                seed=seed,
                draws_cap=pooling.DRAWS_CAP,
                details=details,
            ),
            epoch=epoch,
            judged=True,
        )
    except DensingError as exc:
        return Row(spec, tuple(map(ReferenceName, found)), None, exc)
    return Row(spec, chosen.names, result, members=tuple(chosen.members()))


def headline_checks(members: list, head: TrendUncertainty) -> tuple:
    """Each of :func:`inversion_checks` under every reference, and the references' heterogeneity."""
    per: dict[str, dict] = {}
    for inversion, models in members:
        for check in inversion_checks(models, inversion):
            per.setdefault(check.name, {})[inversion.name] = check
    return (*(checks.under_references(found) for found in per.values()), pooling.heterogeneity_check(head))


def calibrated(found) -> tuple:
    """The checks as run: all but the heterogeneity test (the one gate) are findings, ``reported``, never ``failed``."""
    return tuple(
        c
        if c.name == "heterogeneity" or c.status not in (checks.PASSED, checks.FAILED)
        else replace(c, status=checks.REPORTED, finding=checks.CALIBRATED, fired=c.failed)
        for c in found
    )


def _held_out(candidates: pd.DataFrame, family: str, benchmarks: tuple[str, ...]) -> float:
    """The family's mean held-out |z| over ``benchmarks``, or its relative error where there is no z (rules v1, v2)."""
    rows = _held_out_columns(candidates)
    at = sorted(i for b in dict.fromkeys(benchmarks) for i in rows["at"].get((family, b), ()))
    z = rows["held_out_z"]
    values = np.abs(z[at]) if z is not None and not np.isnan(z[at]).all() else rows["held_out_error"][at]
    with warnings.catch_warnings():  # np.nanmean: pandas' Series.mean without bottleneck, the same number
        warnings.simplefilter("ignore", RuntimeWarning)  # no value: the mean of an empty slice is NaN
        return float(np.nanmean(values)) if len(values) else math.nan


@per_table
def _held_out_columns(candidates: pd.DataFrame) -> dict:
    """The held-out columns and the rows of each (family, benchmark), once per table inside ``same_tables``."""
    at: dict = {}
    for i, key in enumerate(zip(candidates["family"].tolist(), candidates["benchmark"].tolist())):
        at.setdefault(key, []).append(i)
    z = candidates["held_out_z"].to_numpy(float) if "held_out_z" in candidates.columns else None
    return {"at": at, "held_out_z": z, "held_out_error": candidates["held_out_error"].to_numpy(float)}


#: The budget sensitivity (``densing trend --by benchmark``, the report): every reference brought to this D0.
BUDGET_D0 = 1e12


@dataclass(frozen=True)
class BudgetNote:
    """What :func:`budget_fits` left out of a reference, or why it dropped it, as values: each member with no size at
    D0 (:class:`densing.laws.forms.Unreachable`, from :func:`densing.laws.forms.translate_members`), whether fewer than
    :data:`densing.laws.eligibility.MIN_SIZES` sizes were left (dropped), and the refit's error message where it failed
    (None where it did not); in words, :func:`densing.present.words.budget_note`."""

    missing: tuple = ()
    dropped: bool = False
    refit_error: str | None = None


def budget_fits(
    targets: pd.DataFrame, fits: dict[tuple[str, str], ReferenceFit], *, d0: float = BUDGET_D0, seed: int = 0
) -> tuple[dict[tuple[str, str], ReferenceFit], dict[str, BudgetNote]]:
    """(fits keyed as ``fits``, {reference: :class:`BudgetNote`, what was left out or why it was dropped}): each
    reference fit refitted at one budget ``d0``: a member of N parameters on D tokens has the size N' with
    L(N', D0) = L(N, D) under a published law, L = E + A·N^-α + B·D^-β (:mod:`densing.laws.forms`: Hoffmann et al.
    2022), and the family law S(N') is refitted by likelihood (the same dispersion); a reference left with fewer than
    :data:`~densing.laws.eligibility.MIN_SIZES` sizes (the reference rule's R2: 3) is dropped."""
    law = LOSS_LAWS["hoffmann_2022"]
    out: dict[tuple[str, str], ReferenceFit] = {}
    notes: dict[str, BudgetNote] = {}
    for (family, benchmark), fit in fits.items():
        points = fit.points_frame()
        sizes, missing = translate_members(
            points["params"].to_numpy(float), points["train_tokens"].to_numpy(float), d0, law
        )
        name = f"{family}:{benchmark}"
        note = BudgetNote(missing=tuple(missing))
        if np.unique(sizes[np.isfinite(sizes)]).size < eligibility.MIN_SIZES:  # the reference rule's R2
            notes[name] = replace(note, dropped=True)
            continue
        try:
            out[(family, benchmark)] = fit_family(
                targets,
                family,
                benchmark,
                n_boot=len(fit.bootstrap),
                seed=seed,
                sizes=dict(zip(points["model"].astype(str), sizes)),
                d0=d0,
                dispersion_floor=float(fit.provenance.get("dispersion_floor", 1.0)),
                shape=str(fit.provenance.get("shape", "logistic_ln_n")),
                provenance={"budget_law": law.source, "budget_d0": d0},
            )
        except DensingError as exc:
            note = replace(note, refit_error=str(exc))
        if note != BudgetNote():
            notes[name] = note
    return out, notes


def headline_set(
    candidates: pd.DataFrame, sets: dict | None = None
) -> tuple[str, tuple[str, ...], dict[str, tuple[str, ...]], list[tuple[str, str, str]]]:
    """(label, benchmarks, references, the sets passed over with why) of the first set of ``sets`` with a reference."""
    missing: list[tuple[str, str, str]] = []
    for name, (label, benchmarks) in (_tables.leading_table().sets if sets is None else sets).items():
        found = set_references(candidates, tuple(benchmarks))
        if found:
            return label, benchmarks, found, missing
        missing.append((name, label, _why_none(candidates, benchmarks)))
    raise FitError(
        "no family passes the reference rule on two benchmarks of any benchmark set; the candidate table "
        "says why each fails"
    )
