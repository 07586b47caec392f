"""The jobs of one trend measurement, declared: what each computes, from what, under which variant of the fits.

Every row of ``densing trend`` (each benchmark, each set, and the headline set's sensitivity rows) is one
:class:`RowJob` on one :class:`Variant` of the references' fits, which a :class:`FitsJob` makes where it is not the
default; the headline (:func:`measure_headline`) and the fixed-size estimator are each a :class:`ContextJob`.
:func:`plan` lists the jobs of a :class:`Context`; :func:`densing.runtime.executor.run` computes them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pandas as pd

from densing.constants import CHATGPT_RELEASE, PAPER
from densing.errors import DensingError
from densing.laws import eligibility
from densing.laws.density import density_table
from densing.laws.inversion import PerBenchmark
from densing.registry import TrendTable
from densing.states import ReferencesBy
from densing.trend import capability, pooling, rules, selection
from densing.trend.fixed_size import fixed_size_rows
from densing.trend.measurement import Breakpoint, Segment
from densing.trend.uncertainty import TrendUncertainty, from_row_trend


@dataclass(frozen=True)
class Variant:
    """Which family fits a row's references use: the law's shape (``power`` or ``logistic_ln_n``) and the budget ``d0``
    every reference is brought to (None: each its own; :func:`densing.trend.capability.budget_fits`). A row holds its
    variant as these values (:attr:`densing.trend.capability.RowSpec.shape`, ``d0``); its label in words is
    :func:`densing.present.words.row_label`'s."""

    shape: str = "power"
    d0: float | None = None

    @property
    def key(self) -> str:
        """The key of the :class:`FitsJob` that fits this variant ("" for the default: the context's fits)."""
        return "" if self == DEFAULT else "fits:" + ("shape" if self.d0 is None else f"budget@{self.d0:g}")

    def row_key(self, name: str) -> str:
        """A row's key under this variant (its name for the default)."""
        return name if self == DEFAULT else ("budget:" if self.d0 is not None else "shape:") + name


DEFAULT = Variant()
LOGISTIC = Variant(shape="logistic_ln_n")
BUDGET = Variant(d0=capability.BUDGET_D0)

#: The sections of a measurement beside its headline (its every frontier rule, checks and verdict), each computed only
#: where the caller shows it: ``sensitivity`` (each reference, the other rules, the other law shape, one budget),
#: ``breakpoint`` (before and after ChatGPT), ``densities``, ``rows`` (every benchmark and set, the fixed-size
#: estimator, and the notes of the rows at one budget), ``budget`` (with ``rows``: those rows at one budget),
#: ``order_breaks``, ``candidates`` (the candidate table over every candidate benchmark), ``row_details`` (with
#: ``rows``: each row's slopes without each kind of bound, its targets' readings and its leave-one-out tables).
SECTIONS = ("sensitivity", "breakpoint", "densities", "rows", "budget", "order_breaks", "candidates", "row_details")


class Sections:
    """What a ``sections`` argument may be: a list, tuple or set of names of :data:`SECTIONS`."""

    def matches(self, value) -> bool:
        return isinstance(value, (list, tuple, set, frozenset)) and all(
            isinstance(v, str) and v in SECTIONS for v in value
        )

    def __str__(self) -> str:
        return "a list of sections from " + ", ".join(repr(v) for v in SECTIONS)


def sections(value) -> frozenset:
    """A ``sections`` argument (``"all"`` or names of :data:`SECTIONS`, checked by :class:`Sections`) as a set."""
    return frozenset(SECTIONS if value == "all" else value)


@dataclass
class Context:
    """What every job reads: the checked table, the candidates and eligible fits, the options; ``fits`` grows as rows
    fit a set's references (one fit per family and benchmark), ``eligible`` keeps them as they were (the budget's)."""

    targets: pd.DataFrame
    candidates: pd.DataFrame
    fits: dict
    profile: TrendTable
    since: str | None
    epoch: str
    seed: int
    n_boot: int
    n_boot_side: int
    fit: object = None  # the user's ReferenceFit (--fit), None for the reference rule's references
    d0: float | None = None  # the D0 of the user's fit
    #: the sections the caller shows beside the headline (:data:`SECTIONS`); :func:`plan` makes their jobs only
    sections: frozenset = frozenset(SECTIONS)
    eligible: dict = field(init=False)

    def __post_init__(self) -> None:
        self.eligible = dict(self.fits)


@dataclass(frozen=True)
class FitsJob:
    """The candidates, fits and notes of one :class:`Variant`: another shape's candidates, or the budget's refits."""

    variant: Variant
    benchmarks: tuple[str, ...] = ()
    needs: tuple = ()

    @property
    def key(self) -> str:
        return self.variant.key

    def run(self, c: Context, needed: dict) -> tuple[pd.DataFrame, dict, dict]:
        if self.variant.d0 is not None:
            wanted = {k: f for k, f in c.eligible.items() if k[1] in c.profile.budget_benchmarks}
            fits, notes = capability.budget_fits(c.targets, wanted, d0=self.variant.d0, seed=c.seed)
            return c.candidates, fits, notes
        candidates = eligibility.candidate_table(
            c.targets, composed=None, shape=self.variant.shape, benchmarks=self.benchmarks
        )
        return candidates, {}, {}


@dataclass(frozen=True)
class RowJob:
    """One row, a benchmark or a set (``spec``), under ``variant`` (:func:`densing.trend.capability.trend_row`)."""

    spec: capability.RowSpec
    variant: Variant = DEFAULT

    @property
    def key(self) -> str:
        return self.variant.row_key(self.spec.name)

    @property
    def needs(self) -> tuple[str, ...]:
        return (self.variant.key,) if self.variant.key else ()

    def run(self, c: Context, needed: dict) -> capability.Row:
        candidates, fits = (c.candidates, c.fits) if not self.needs else needed[self.variant.key][:2]
        return capability.trend_row(
            replace(self.spec, shape=self.variant.shape, d0=self.variant.d0),  # the row holds its variant
            c.targets,
            candidates,
            fits,
            since=c.since,
            epoch=c.epoch,
            n_boot=c.n_boot,
            n_boot_share=0,
            seed=c.seed,
            details="row_details" in c.sections,
        )


@dataclass(frozen=True)
class ContextJob:
    """A job that reads the context alone: :func:`measure_headline` or :func:`fixed_size_estimate`."""

    key: str
    compute: Callable[[Context], object]
    needs: tuple = ()

    def run(self, c: Context, needed: dict):
        return self.compute(c)


def fixed_size_estimate(c: Context) -> pd.DataFrame:
    """The fixed-size time regression on the same table (:mod:`densing.trend.fixed_size`)."""
    return fixed_size_rows(c.targets, c.profile, since=c.since, epoch=c.epoch, n_boot=c.n_boot_side, seed=c.seed)


def set_row(profile: TrendTable, name: str) -> capability.RowSpec:
    """The row of ``profile``'s benchmark set ``name`` (its label and benchmarks, :attr:`TrendTable.sets`)."""
    label, benchmarks = profile.sets[name]
    return capability.RowSpec.of_set(name, label, benchmarks)


def plan(c: Context) -> list:
    """The jobs of the sections in ``c.sections``, the longest first (an executor starts them in this order): the
    headline, the variants' fits, the fixed-size estimator, the sets, the benchmarks, the sensitivity rows."""
    present = set(c.targets["benchmark"].astype(str))
    headline = c.profile.headline_set if c.fit is None else None  # a given fit: the table's headline set is a row
    rows, side = "rows" in c.sections, "sensitivity" in c.sections
    sets = [RowJob(set_row(c.profile, name)) for name in c.profile.sets if name != headline] if rows else []
    singles = (
        [RowJob(capability.RowSpec.of_benchmark(b)) for b in capability.CAPABILITY if b in present] if rows else []
    )
    budget = [RowJob(capability.RowSpec.of_benchmark(b), BUDGET) for b in c.profile.budget_benchmarks if b in present]
    budget += [RowJob(set_row(c.profile, name), BUDGET) for name in c.profile.budget_sets]
    budget = [job for job in budget if rows or (side and job.spec.name == headline)]
    noted = bool(budget)  # the budget's fits: their notes (members with no size at D0) stand beside the rows
    budget = [job for job in budget if "budget" in c.sections or (side and job.spec.name == headline)]
    shape = [] if headline is None or not side else [RowJob(set_row(c.profile, headline), LOGISTIC)]
    read = {b for job in shape for b in job.spec.benchmarks}  # what the other shape's candidate table is needed for
    fits = (
        [FitsJob(LOGISTIC, tuple(b for b in c.profile.candidates if b in read) or c.profile.candidates)]
        if shape
        else []
    )
    fits += [FitsJob(BUDGET)] if noted else []
    return [
        ContextJob("headline", measure_headline),
        *fits,
        *([ContextJob("fixed_size", fixed_size_estimate)] if rows else []),
        *sets,
        *singles,
        *shape,
        *budget,
    ]


#: The frontier rule of the headline number; the others are its sensitivity rows.
HEADLINE_RULE = "quantile"
#: D0 values of the sensitivity table, for a reference that identifies a data term (``--fit`` a composed fit).
SENSITIVITY_D0 = (3e11, 1e12, 3e12)


@dataclass(frozen=True)
class Headline:
    """What :func:`measure_headline` computes (a section the context does not ask for: None)."""

    label: str
    benchmarks: tuple[str, ...]
    missing: list  # the sets passed over before it, (name, label, why)
    common: selection.CommonTargets
    references_by: ReferencesBy  # how the references were chosen (densing.states.ReferencesBy)
    rules: dict  # rule → TrendUncertainty
    rule_errors: dict  # rule → why it has no trend
    checks: tuple
    breakpoint: Breakpoint | None  # None where the caller does not ask for it (Context.sections), as the two below
    densities: pd.DataFrame | None
    points: pd.DataFrame  # every target with its point ln ρ under the lead reference
    sensitivity: pd.DataFrame | None

    @property
    def result(self) -> TrendUncertainty:
        return self.rules[HEADLINE_RULE]


def headline_members(
    targets: pd.DataFrame, candidates: pd.DataFrame, fits: dict, profile, *, since: str | None, epoch: str, seed: int
) -> tuple[str, tuple[str, ...], list, selection.CommonTargets]:
    """(label, benchmarks, sets passed over, common targets) of the headline set, as :func:`measure_headline` picks."""
    label, benchmarks, found, missing = capability.headline_set(candidates, profile.sets)
    capability.row_fits(targets, candidates, fits, found, seed=seed)
    return (
        label,
        benchmarks,
        missing,
        capability.row_targets(targets, candidates, fits, found, since=since, epoch=epoch),
    )


def measure_headline(c: Context) -> Headline:
    """The headline row of a :class:`Context`: every frontier rule, checks, and what ``c.sections`` asks for."""
    if c.fit is not None:  # the given fit's benchmarks, inverted at its D0 (or --d0)
        inversion = PerBenchmark(c.fit, c.fit.d0 if c.d0 is None else float(c.d0))
        chosen = selection.common_targets(c.targets, [inversion], since=c.since, epoch=c.epoch)
        benchmarks, missing = tuple(inversion.benchmarks), []
        label = ""  # no registered set: the given fit's benchmarks (references_by; in words, densing.present.verdict)
    else:
        label, benchmarks, missing, chosen = headline_members(
            c.targets, c.candidates, c.fits, c.profile, since=c.since, epoch=c.epoch, seed=c.seed
        )
    references_by = ReferencesBy(c.fit is not None, tuple(benchmarks))
    found, errors = by_rule(chosen, n_boot=c.n_boot, n_boot_side=c.n_boot_side, seed=c.seed, epoch=c.epoch)
    head = found[HEADLINE_RULE]
    members = chosen.members()
    lead_inversion, lead_models = members[0]
    y, kind = pooling.point_densities(
        chosen
    )  # the lead's points its line is fitted on, its own members from the others
    return Headline(
        label,
        benchmarks,
        missing,
        chosen,
        references_by,
        found,
        errors,
        capability.calibrated(capability.headline_checks(members, head)),
        breakpoint(chosen, head, c) if "breakpoint" in c.sections else None,
        density_table(lead_models, lead_inversion, seed=c.seed) if "densities" in c.sections else None,
        chosen.frame.assign(log_density=y[0], bound=kind[0]),
        sensitivity(head, chosen, c) if "sensitivity" in c.sections else None,
    )


#: The draws of each source alone behind another rule's shares (at most the headline's).
SIDE_SHARE_DRAWS = 25


def by_rule(chosen: selection.CommonTargets, *, n_boot: int, n_boot_side: int, seed: int, epoch: str):
    """The headline's pooled trend under every frontier rule, the others on the first ``n_boot_side`` of the same paired
    draws and :data:`SIDE_SHARE_DRAWS` of each source's: rules differ by their lines, not their draws."""
    found, errors = {}, {}  # rule → TrendUncertainty, rule → why it has no trend
    head_share = n_boot_side // 2
    draws = pooling.paired_draws(chosen, n_boot=n_boot, n_boot_share=head_share, seed=seed)
    for rule in rules.RULES:
        head = rule == HEADLINE_RULE
        try:
            found[rule] = from_row_trend(
                pooling.pooled_trend(
                    chosen,
                    rule=rule,
                    n_boot=n_boot if head else n_boot_side,
                    seed=seed,
                    draws=draws,
                    n_boot_share=head_share if head else min(SIDE_SHARE_DRAWS, head_share),
                    draws_cap=pooling.DRAWS_CAP if head else None,
                ),
                epoch=epoch,
            )
        except DensingError as exc:
            if head:
                raise
            errors[rule] = str(exc)
    return found, errors


#: What a sensitivity row of :func:`sensitivity` varies (its ``variant``, a code): one reference alone, or the given
#: fit at another D0 (its ``d0``); each in words, and the D0 in the ``inversion`` column, is
#: :func:`densing.present.records.sensitivity_frame`'s.
REFERENCE_VARIANT, D0_VARIANT = "reference", "d0"


def sensitivity(head: TrendUncertainty, chosen: selection.CommonTargets, c: Context) -> pd.DataFrame:
    """Each reference's own doubling time and interval; a given fit with a data term at :data:`SENSITIVITY_D0`."""
    rows = [
        {
            "variant": REFERENCE_VARIANT,
            "reference": str(name),
            "inversion": inv.kind,
            "d0": inv.d0,
            "doubling_time_months": months,
            "ci_low": low,
            "ci_high": high,
        }
        for inv, name, months, low, high in zip(
            chosen.inversions,
            head.reference_names,
            head.reference_months.values(),
            head.reference_months_low,
            head.reference_months_high,
        )
    ]
    if c.fit is not None and c.fit.has_data_term:
        for value in SENSITIVITY_D0:
            variant = selection.common_targets(c.targets, [PerBenchmark(c.fit, value)], since=c.since, epoch=c.epoch)
            r = from_row_trend(
                pooling.pooled_trend(variant, n_boot=c.n_boot_side, n_boot_share=0, seed=c.seed), epoch=c.epoch
            )
            rows.append(
                {
                    "variant": D0_VARIANT,
                    "reference": str(variant.names[0]),
                    "inversion": variant.inversions[0].kind,
                    "d0": value,
                    "doubling_time_months": r.doubling_time_months,
                    "ci_low": r.doubling_time_months_ci_low,
                    "ci_high": r.doubling_time_months_ci_high,
                }
            )
    return pd.DataFrame(
        rows, columns=["variant", "reference", "inversion", "d0", "doubling_time_months", "ci_low", "ci_high"]
    )


def breakpoint(chosen: selection.CommonTargets, head: TrendUncertainty, c: Context) -> Breakpoint:
    """Slopes before and after ChatGPT, each segment the same common targets on its own window."""
    segments = {}
    for name, lo, hi in (("before", None, CHATGPT_RELEASE), ("after", CHATGPT_RELEASE, None)):
        try:
            part = selection.common_targets(c.targets, chosen.inversions, since=lo, until=hi, epoch=c.epoch)
            same = set(part.frame["model"].astype(str)) == set(head.models)
            r = (
                head
                if same
                else from_row_trend(
                    pooling.pooled_trend(part, n_boot=c.n_boot_side, n_boot_share=0, seed=c.seed), epoch=c.epoch
                )
            )
            segments[name] = Segment(
                name, r.n_models, r.slope_per_day, r.intercept, r.slope_ci_low, r.slope_ci_high, same_as_headline=same
            )
        except DensingError as exc:
            segments[name] = Segment(name, 0, error=exc)
    return Breakpoint(
        CHATGPT_RELEASE,
        segments["before"],
        segments["after"],
        PAPER["slope_before_chatgpt_per_day"],
        PAPER["slope_after_chatgpt_per_day"],
    )


def reference_frame(members: list, head: TrendUncertainty) -> pd.DataFrame:
    """Each reference of the headline: benchmarks, weight, own doubling time and interval, targets, lab (with the
    interval's status: :func:`densing.present.records.references_frame`)."""
    lab_weight = dict(zip(head.labs, head.lab_weights))
    labs = head.reference_labs or ("",) * len(head.reference_names)
    return pd.DataFrame(
        [
            {
                "reference": str(name),
                "benchmarks": ",".join(inv.benchmarks),
                "weight": weight,
                "months": head.reference_months[name],
                "ci_low": low,
                "ci_high": high,
                "n_models": len(models),
                "d0": inv.d0,
                "lab": lab,
                "lab_weight": lab_weight.get(lab, math.nan),
            }
            for (inv, models), name, weight, low, high, lab in zip(
                members,
                head.reference_names,
                head.reference_weights,
                head.reference_months_low,
                head.reference_months_high,
                labs,
            )
        ]
    )
