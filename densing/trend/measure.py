"""The density trend as a measurement by capability: :func:`measure_trend` is what ``densing trend`` and the report
show: the headline (the paper-like set under the censored 0.9 regression quantile) with the other frontier rules, its
checks (:mod:`densing.trend.checks`), its sensitivity table, the rows per benchmark and set
(:mod:`densing.trend.capability`) and the fixed-size time regression (:mod:`densing.trend.fixed_size`), computed as
the jobs of :func:`densing.trend.plan.plan` for the sections the caller shows.
"""

from __future__ import annotations

import math
from dataclasses import replace
from numbers import Integral, Real
from pathlib import Path

import pandas as pd

from densing import registry
from densing.constants import DEFAULT_EPOCH, DEFAULT_N_BOOT, DEFAULT_N_BOOT_SIDE
from densing.data.schema import table_argument
from densing.errors import InputError
from densing.laws import eligibility
from densing.laws.density import density_table
from densing.laws.eligibility import composed_fits
from densing.laws.family_rows import reference_order_breaks
from densing.laws.reference_fit import ReferenceFit, as_fit
from densing.registry import TrendTable
from densing.runtime import executor
from densing.runtime.memo import same_tables
from densing.runtime.threads import one_blas_thread
from densing.states import JudgedInterval
from densing.trend import capability, plan, selection
from densing.trend.measurement import TrendMeasurement
from densing.trend.plan import HEADLINE_RULE, SENSITIVITY_D0, headline_members, reference_frame
from densing.trend.targets import SCORE_COLUMNS, check_window, with_stderr
from densing.validation import INTERVAL_DRAWS, Date, ExistingPath, Interval, Options, validate_params

__all__ = ["CANDIDATES_FILE", "HEADLINE_RULE", "PAPER_ANCHORS", "SENSITIVITY_D0", "headline_densities", "measure_trend"]

#: The paper's per-model anchors (Xiao et al. 2024, Fig. 1 and §3), shown beside ours.
PAPER_ANCHORS = {"google/gemma-2-9b": "≈ 3, denser than Gemma-2-27B", "huggyllama/llama-7b": "< 0.1 (Llama-1 models)"}
CANDIDATES_FILE = "trend_reference_candidates.csv"


#: :func:`measure_trend`'s numeric options, checked before anything runs (a worker included).
TREND_CONSTRAINTS = {
    "n_boot": [INTERVAL_DRAWS],
    "n_boot_side": [INTERVAL_DRAWS],
    "seed": [Interval(Integral, 0, None)],
    "d0": [Interval(Real, 0, None, closed="neither"), None],
    "since": [Date(), None],
    "epoch": [Date()],
    "fits_dir": [ExistingPath("folder"), None],
    "sections": [Options(("all",)), plan.Sections()],
}


@validate_params({k: TREND_CONSTRAINTS[k] for k in ("seed", "since", "epoch")})
@same_tables()
def headline_densities(
    targets: pd.DataFrame,
    *,
    since: str | None = DEFAULT_EPOCH,
    epoch: str = DEFAULT_EPOCH,
    seed: int = 0,
    level: float = 0.95,
    table: str | TrendTable | None = None,
) -> pd.DataFrame:
    """The headline's per-model densities without its trend (``densing density`` with no ``--fit``): the
    ``densities`` of :func:`measure_trend`; ``attrs`` hold the headline set, the sets passed over, the table and the
    lead ``reference``."""
    profile = registry.table(table)
    targets = with_stderr(table_argument(targets, "targets", SCORE_COLUMNS))
    check_window(targets, since)  # a window that leaves no model is refused, naming the filter
    candidates = eligibility.candidate_table(targets, composed=composed_fits(None), benchmarks=profile.candidates)
    fits = eligibility.eligible_fits(targets, candidates, seed=seed)
    label, _, missing, chosen = headline_members(
        targets, candidates, fits, profile, since=since, epoch=epoch, seed=seed
    )
    inversion, models = chosen.members()[0]
    out = density_table(models, inversion, seed=seed, level=level)
    out.attrs.update(
        headline_set=label, missing=[lab for _, lab, _ in missing], table=profile.name, reference=inversion.reference
    )
    return out


@one_blas_thread  # one process per core on small matrices: BLAS threads only oversubscribe the cores
@same_tables()  # each table's score matrix computed once per benchmark tuple within the call
@validate_params(TREND_CONSTRAINTS)  # before any worker starts
def measure_trend(
    targets: pd.DataFrame,
    *,
    fits_dir: str | Path | None = None,
    fit: ReferenceFit | None = None,
    d0: float | None = None,
    since: str | None = DEFAULT_EPOCH,
    epoch: str = DEFAULT_EPOCH,
    n_boot: int = DEFAULT_N_BOOT,
    n_boot_side: int = DEFAULT_N_BOOT_SIDE,
    seed: int = 0,
    table: str | TrendTable | None = None,
    sections="all",
) -> TrendMeasurement:
    """A :class:`TrendMeasurement`: the Densing Law by capability on a tidy target table (module docstring), the CLI's
    defaults. ``sections``: ``"all"`` or names of :data:`densing.trend.plan.SECTIONS` computed beside the headline (one
    not asked for: its table empty, its breakpoint or densities None). ``n_boot``: the headline's draws;
    ``n_boot_side``: every other row's, at most ``n_boot``; each ≥ 40 (:data:`densing.validation.INTERVAL_DRAWS`).
    ``table``: the registered table ``targets`` is (:data:`densing.registry.TABLES`; None: the leading table).
    ``fit`` replaces the headline's references by one fit (per benchmark at ``d0``, default its own D0): a
    :class:`ReferenceFit`, a fit file or a shipped fit's name (``"llama-3.1_mmlu"``); the rows per benchmark keep the
    reference rule's. ``fits_dir``: the composed fits' folder (default ``reference_fits/``). ``targets`` is checked as
    a table file is (:func:`densing.data.schema.table_argument`)."""
    fit = None if fit is None else as_fit(fit, "fit")
    if d0 is not None:  # never ignored in silence: D0 means something only for a given fit with a data term
        if fit is None:
            raise InputError(
                "--d0: the reference rule's references are families at their own budgets, which have no "
                "data term, so D0 has no meaning for them; give --fit with a two-step law to invert at D0, "
                "or read the budget rows (every reference brought to D0 = 1T) of densing trend --by "
                "benchmark"
            )
        fit._d0(float(d0))  # a fit without a data term refuses a D0 other than its own, in one line
    targets = with_stderr(table_argument(targets, "targets", SCORE_COLUMNS))  # once: no later step fills it again
    check_window(targets, since)  # a window that leaves no model is refused, naming the filter
    profile = registry.table(table)
    shown = plan.sections(sections)
    candidates = _candidate_table(targets, fits_dir, profile, shown)
    context = plan.Context(
        targets,
        candidates,
        eligibility.eligible_fits(targets, candidates, seed=seed),
        profile,
        since=since,
        epoch=epoch,
        seed=seed,
        n_boot=n_boot,
        n_boot_side=min(n_boot_side, n_boot),
        fit=fit,
        d0=d0,
        sections=shown,
    )
    jobs = plan.plan(context)
    return _measurement(context, jobs, executor.run(jobs, context))


def require_set_benchmarks(targets: pd.DataFrame, table: TrendTable, source: str | Path) -> None:
    """An InputError naming ``source``, the file ``targets`` were read from, and the benchmarks it lacks where every
    benchmark set of ``table`` needs one that ``targets`` holds no score of: the table is what is wrong, not the
    reference rule, which would otherwise find no family to pass it. Names the headline set's missing benchmarks, each
    with the columns a wide table holds it in."""
    from densing.data.benchmarks import BENCHMARKS

    held = set(targets["benchmark"].astype(str)) if "benchmark" in targets.columns else set()
    lacking = [[b for b in benchmarks if b not in held] for _, benchmarks in table.sets.values()]
    if not lacking or not all(lacking):
        return
    label = next(iter(table.sets.values()))[0]
    named = []
    for benchmark in lacking[0]:
        record = BENCHMARKS.get(benchmark)
        columns = " or ".join(record.columns) if record is not None and record.columns else benchmark
        named.append(f"{record.display if record is not None and record.display else benchmark} (column {columns})")
    others = "; each other set of the table lacks one too" if len(lacking) > 1 else ""
    raise InputError(f"{source}: no scores of {', '.join(named)}, which the {label} needs{others}")


def _candidate_table(targets: pd.DataFrame, fits_dir, profile: TrendTable, shown: frozenset) -> pd.DataFrame:
    """The reference rule's candidate table over the table's candidate benchmarks where a section shown reads them all,
    else over the headline set's (the same rows, bit for bit) where that set has a reference."""
    composed = composed_fits(fits_dir)
    every = profile.candidates
    if not {"candidates", "rows", "sensitivity"} & shown:
        first = profile.sets[profile.headline_set][1]
        few = eligibility.candidate_table(targets, composed=composed, benchmarks=tuple(b for b in every if b in first))
        if selection.set_references(few, tuple(first)):
            return few
    return eligibility.candidate_table(targets, composed=composed, benchmarks=every)


def _measurement(c: plan.Context, jobs: list, done: dict) -> TrendMeasurement:
    """The jobs' results as one :class:`TrendMeasurement`, the rows in the table's order."""
    h = done["headline"]
    rows = [done[j.key] for j in jobs if isinstance(j, plan.RowJob) and j.variant == plan.DEFAULT]
    singles = [r for r in rows if r.capability != capability.SET]
    sets = [r for r in rows if r.capability == capability.SET]
    budget = tuple(done[j.key] for j in jobs if isinstance(j, plan.RowJob) and j.variant == plan.BUDGET)
    members = h.common.members()
    head_set = c.profile.headline_set if c.fit is None else None
    found = (
        _with_variants(h.sensitivity, h.rules, done, head_set, c.n_boot)
        if h.sensitivity is not None
        else pd.DataFrame(columns=SENSITIVITY_COLUMNS)
    )
    head = h.rules[HEADLINE_RULE] = replace(h.result, judged=True)
    lead_inversion = members[0][0]
    if head_set is not None and not h.missing:
        sets = [
            capability.Row(
                capability.RowSpec.of_set(head_set, h.label, h.benchmarks),
                tuple(head.reference_names),
                head,
                members=tuple(members),
            ),
            *sets,
        ]
    return TrendMeasurement(
        reference=" | ".join(map(str, head.reference_names)),
        references_by=h.references_by,
        d0=lead_inversion.d0,
        headline_rule=HEADLINE_RULE,
        rules=h.rules,
        rule_errors=h.rule_errors,
        checks=h.checks,
        sensitivity=found,
        breakpoint=h.breakpoint,
        candidates=c.candidates,
        references=reference_frame(members, head),
        densities=h.densities,
        models=h.points,
        left_out=h.common.left_out,
        fits=tuple(lead_inversion.fits),
        inversion=lead_inversion,
        headline_set=h.label,
        benchmark_rows=tuple(singles),
        set_rows=tuple(sets),
        budget_rows=budget,
        budget_notes=done.get(plan.BUDGET.key, (None, {}, {}))[2],
        fixed_size=done.get("fixed_size"),
        order_breaks=reference_order_breaks(
            c.targets, {name.family for row in [*singles, *sets] for name in row.references}
        )
        if "order_breaks" in c.sections
        else None,
        table_name=c.profile.name,
        missing=tuple(h.missing),
        since=c.since,
        common=h.common,
    )


#: The column of the sensitivity table holding what each variant's state is judged from: the interval of one reference
#: (a :class:`~densing.states.JudgedInterval`), a frontier rule's trend or a side row (its status in words, in this
#: column's place: :func:`densing.present.records.sensitivity_frame`).
SENSITIVITY_JUDGED = "judged"
#: The columns of the one sensitivity table: what varies, its value, the doubling time, its interval and its judging.
SENSITIVITY_COLUMNS = [
    "variant",
    "reference",
    "inversion",
    "d0",
    "doubling_time_months",
    "ci_low",
    "ci_high",
    SENSITIVITY_JUDGED,
]
#: What a pooled sensitivity row of :func:`_with_variants` varies (its ``variant``, a code, beside
#: :data:`densing.trend.plan.REFERENCE_VARIANT` and :data:`~densing.trend.plan.D0_VARIANT`): another frontier rule, the
#: references at one budget D0 (:data:`densing.trend.plan.BUDGET`), the other law shape (:data:`~densing.trend.plan.
#: LOGISTIC`); each in words is :func:`densing.present.records.sensitivity_frame`'s.
RULE_VARIANT, BUDGET_VARIANT, SHAPE_VARIANT = "rule", "budget", "shape"
#: The frontier rules whose points are chosen on the response, so that their interval is optimistic.
OPTIMISTIC_RULES = ("envelope",)


def _with_variants(
    sensitivity: pd.DataFrame, found_rules: dict, side: dict, headline: str | None, n_draws: int
) -> pd.DataFrame:
    """The headline's sensitivity table: each reference, other rules, budget, shape; each with what its state is judged
    from (:data:`SENSITIVITY_JUDGED`)."""
    rows = [
        {**r, SENSITIVITY_JUDGED: JudgedInterval(r["ci_low"], r["ci_high"], n_draws)}
        for r in sensitivity.to_dict("records")
    ]
    rows += [
        _pooled(RULE_VARIANT, rule, result, result) for rule, result in found_rules.items() if rule != HEADLINE_RULE
    ]
    for which, variant in ((plan.BUDGET, BUDGET_VARIANT), (plan.LOGISTIC, SHAPE_VARIANT)):
        row = side.get(which.row_key(headline)) if headline is not None else None
        if row is not None:
            rows.append(_pooled(variant, ", ".join(x.family for x in row.references), row.result, row))
    return pd.DataFrame(rows, columns=SENSITIVITY_COLUMNS)


def _pooled(variant: str, reference: str, result, judged) -> dict:
    """A sensitivity row pooled over its references: ``result``'s doubling time and interval (NaN without one), its
    state judged from ``judged`` (the trend, or the row that holds it)."""
    months = (
        (result.doubling_time_months, result.doubling_time_months_ci_low, result.doubling_time_months_ci_high)
        if result is not None
        else (math.nan,) * 3
    )
    return {
        "variant": variant,
        "reference": reference,
        "inversion": "pooled",
        "d0": math.nan,
        **dict(zip(("doubling_time_months", "ci_low", "ci_high"), months)),
        SENSITIVITY_JUDGED: judged,
    }
