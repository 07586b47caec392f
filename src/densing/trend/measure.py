"""The density trend as a measurement by capability: references by a date-blind rule, every uncertainty carried, checks.

:func:`measure_trend` is what ``densing trend`` and the report show:

1. **The references** follow rule v3 of :mod:`densing.laws.eligibility` (date-blind, its
   thresholds written before any trend under it was computed): families of one recipe and one
   budget, fitted per benchmark as S(N) at their own budget by binomial likelihood
   (:mod:`densing.laws.family`), eligible by R1, R2, R2s, R3, R4r, R4s, R5z. Every eligible
   reference of a row enters its bootstrap (equal weights).
2. **The targets** of a reference are every dated model released since ``since`` except that
   family's own models; each score carries its standard error (the table's, else binomial from
   the benchmark's item count).
3. **The rows** (:mod:`densing.trend.capability`): one per benchmark (the paper's inversion) and
   one per benchmark set (the joint inversion, :mod:`densing.laws.joint`, missing scores allowed);
   the headline is the paper-like set (MMLU, BBH, MATH-hard, HumanEval).
4. **The headline rule** is the censored 0.9 regression quantile (:mod:`densing.trend.rules`); the
   paper's envelope and the Tobit mean line are shown beside it. Intervals carry fit, score,
   model-sampling and reference-choice uncertainty (:mod:`densing.trend.uncertainty`).
5. **Checks** (:mod:`densing.trend.checks`) under every reference of the headline: saturation,
   conditioning, size confounding; sensitivity across the references; the within-family size
   slope as a finding. The doubling time is reported when no check fails; otherwise the words say
   which failed. Rule v2's and rule v1's verdicts (least-squares fits, a relative held-out
   tolerance) are kept beside it as labelled variants.
"""
from __future__ import annotations

import math
from numbers import Integral, Real
from pathlib import Path

import pandas as pd

from densing.data.units import format_count
from densing.errors import DensingError, FitError, InputError
from densing.laws import eligibility
from densing.trend import capability
from densing.laws.eligibility import composed_fits
from densing.trend.capability import headline_set, inversion_checks
from densing.laws.density import density_table, point_densities
from densing.laws.inversion import Joint, PerBenchmark
from densing.laws.reference_fit import ReferenceFit, as_fit
from densing.data.schema import table_argument
from densing.numbers import format_months
from densing.validation import Date, ExistingPath, Interval, validate
from densing.trend import checks, rules, side_jobs, tables
from densing.trend.tables import TrendTable
from densing.trend.checks import plain_reason
from densing.trend.constants import CHATGPT_RELEASE, DEFAULT_EPOCH, DEFAULT_N_BOOT, DEFAULT_N_BOOT_SIDE, PAPER
from densing.trend.measurement import Breakpoint, Segment, TrendMeasurement
from densing.laws.table_cache import same_tables
from densing.trend.targets import trend_targets, with_stderr
from densing.trend.scope import check_window
from densing.trend.doubling import SCORE_COLUMNS
from densing.trend.uncertainty import TrendUncertainty, carry_over_references, carry_uncertainty, point_months

__all__ = ["PAPER_ANCHORS", "CANDIDATES_FILE", "HEADLINE_RULE", "SENSITIVITY_D0", "headline_densities", "headline_verdict",
           "inversions_of", "measure_trend"]

#: The paper's per-model anchors (Xiao et al. 2024, Fig. 1 and §3), shown beside ours.
PAPER_ANCHORS = {
    "google/gemma-2-9b": "≈ 3, denser than Gemma-2-27B",
    "huggyllama/llama-7b": "< 0.1 (Llama-1 models)",
}
CANDIDATES_FILE = "trend_reference_candidates.csv"
HEADLINE_RULE = "quantile"
#: D0 values of the sensitivity table, for a reference that identifies a data term (``--fit`` a composed fit).
SENSITIVITY_D0 = (3e11, 1e12, 3e12)


# ---------------------------------------------------------------------------------------------
# the references


def inversions_of(fits: tuple[ReferenceFit, ...], *, first_versions: bool = False) -> dict[str, object]:
    """Per-benchmark inversions of each fit and the joint one, by name (joint first).

    ``first_versions`` adds the joint inversion as first written (no skill variance,
    :mod:`densing.laws.joint`), kept beside the default since the default changed after a coverage run.
    """
    out: dict[str, object] = {}
    if len(fits) > 1:
        joint = Joint(fits)
        out[joint.name] = joint
        if first_versions:
            first = Joint(fits, skill="none")
            out[first.name] = first
    for fit in fits:
        one = PerBenchmark(fit, fit.d0)
        out[one.name] = one
    return out



# ---------------------------------------------------------------------------------------------
# the measurement


#: The rows of the budget sensitivity: the paper-like benchmarks, GSM8K and the paper-like sets.
BUDGET_BENCHMARKS = tables.TABLES["public"].budget_benchmarks
BUDGET_SETS = tables.TABLES["public"].budget_sets
#: :func:`measure_trend`'s numeric options, checked before anything runs (a worker included).
TREND_CONSTRAINTS = {
    "n_boot": [Interval(Integral, 1, None)],
    "n_boot_side": [Interval(Integral, 1, None)],
    "seed": [Interval(Integral, 0, None)],
    "d0": [Interval(Real, 0, None, closed="neither"), None],
    "since": [Date(), None],
    "epoch": [Date()],
    "fits_dir": [ExistingPath("folder"), None],
}


def _side_batch(jobs: list, targets: pd.DataFrame, candidates: pd.DataFrame, fits: dict, args: dict) -> dict:
    """The side rows (per benchmark, the other sets, rule v1), by name: :mod:`densing.trend.side_jobs` runs this
    in its worker while the headline is measured here."""
    with same_tables():
        return _side_jobs(jobs, targets, candidates, fits, args)


def _side_jobs(jobs: list, targets: pd.DataFrame, candidates: pd.DataFrame, fits: dict, args: dict) -> dict:
    """:func:`_side_batch`'s jobs, one by one."""
    out = {}
    for job in jobs:
        if job[0] == "v1":
            out["v1"] = _rule_v1(targets, args["v1_composed"], since=args["since"], epoch=args["epoch"],
                                 n_boot=args["n_boot"], seed=args["seed"])
        elif job[0] == "budget":
            if "_budget" not in out:
                wanted = {k: f for k, f in fits.items() if k[1] in args.get("budget_benchmarks", BUDGET_BENCHMARKS)}
                out["_budget"] = capability.budget_fits(targets, wanted, seed=args["seed"])
            _, name, label, capability_name, benchmarks = job
            out[f"budget:{name}"] = capability.trend_row(
                name, f"{label} at D0 = {format_count(capability.BUDGET_D0)}", capability_name, benchmarks, targets,
                candidates, out["_budget"][0], since=args["since"], epoch=args["epoch"], n_boot=args["n_boot"],
                n_boot_share=0, seed=args["seed"])
        elif job[0] == "v2":
            out["v2"] = _rule_v2(targets, args["v1_composed"], since=args["since"], epoch=args["epoch"],
                                 n_boot=args["n_boot"], seed=args["seed"])
        else:
            _, name, label, capability_name, benchmarks = job
            out[name] = capability.trend_row(name, label, capability_name, benchmarks, targets, candidates, fits,
                                             since=args["since"], epoch=args["epoch"], n_boot=args["n_boot"],
                                             n_boot_share=0, seed=args["seed"])
    return out


def _rule_v1(targets: pd.DataFrame, composed: dict, *, since, epoch, n_boot: int, seed: int) -> dict:
    """Rule v1's verdict, kept as a labelled variant: its reference's joint trend and its four checks, as first written."""
    candidates = eligibility.candidate_table(targets, since=since, composed=composed, rule="v1")
    eligible = eligibility.eligible_families(candidates)
    if not len(eligible):
        return {"verdict": "Rule v1: no candidate reference passes R1–R5.", "candidates": candidates}
    family = str(eligible["family"].iloc[0])
    fits = eligibility.family_references(targets, candidates, seed=seed)[family]
    inversion = next(iter(inversions_of(fits).values()))
    models, _ = trend_targets(targets, inversion, since=since, epoch=epoch)
    head = carry_uncertainty(models, inversion, n_boot=n_boot, n_boot_share=0, seed=seed)
    variants = []
    for name, other in inversions_of(fits).items():
        variants.append((name, point_months(trend_targets(targets, other, since=since, epoch=epoch)[0], other, HEADLINE_RULE)))
    found = (*inversion_checks(models, inversion, size="dependence"),
             checks.sensitivity([v for _, v in variants], [n for n, _ in variants]))
    failed = [c for c in found if c.failed]
    words = (f"{format_months(head.doubling_time_months)} months (95% CI {format_months(head.doubling_time_months_ci_low)}–"
             f"{format_months(head.doubling_time_months_ci_high)}) against {inversion.name} at {format_count(inversion.d0)} tokens")
    verdict = ("Rule v1 (reach by the targets' 90th percentile, within-family size slope as an equivalence test): "
               + (f"not measured, {len(failed)} of {len(found)} checks fail ({', '.join(c.name for c in failed)}); estimate "
                  if failed else "measured: ") + words + ".")
    return {"verdict": verdict, "result": head, "checks": found, "reference": inversion.name, "candidates": candidates,
            "variants": variants}


def _rule_v2(targets: pd.DataFrame, composed: dict, *, since, epoch, n_boot: int, seed: int) -> dict:
    """Rule v2's verdict, kept as a labelled variant: its headline set's trend under its references (least-squares
    fits; R4s, R4c and the 5% held-out tolerance), with the same engine as the headline."""
    candidates = eligibility.candidate_table(targets, since=since, composed=composed, rule="v2")
    try:
        label, _, found, missing = headline_set(candidates)
    except FitError:
        return {"verdict": "Rule v2: no family passes it on two benchmarks of any set.", "candidates": candidates}
    fits = eligibility.eligible_fits(targets, candidates, seed=seed)
    members = capability.ordered_members(targets, candidates, fits, found, since=since, epoch=epoch, joint=True)
    head = carry_over_references(members, rule=HEADLINE_RULE, n_boot=n_boot, n_boot_share=0, seed=seed, epoch=epoch)
    passed = f"; the {missing[0][1]} has no v2 reference" if missing else ""
    verdict = (f"Rule v2 (least-squares family fits, a 5% relative held-out tolerance): {format_months(head.doubling_time_months)} "
               f"months (95% CI {format_months(head.doubling_time_months_ci_low)}–{format_months(head.doubling_time_months_ci_high)}) "
               f"on the {label} against {', '.join(n.split(':')[0] for n in head.reference_names)}{passed}.")
    return {"verdict": verdict, "result": head, "candidates": candidates, "label": label}


def _member_checks(members: list, found_rules: dict) -> tuple[checks.Check, ...]:
    """Saturation, conditioning and size confounding under every candidate reference (failed if failed under any),
    sensitivity across them, and the within-family size slope as a finding."""
    per: dict[str, dict[str, checks.Check]] = {}
    for inversion, models in members:
        for check in inversion_checks(models, inversion, size="confounding"):
            per.setdefault(check.name, {})[inversion.name] = check
    combined = [checks.under_references(found) for found in per.values()]
    head = found_rules[HEADLINE_RULE]
    own = head.reference_months
    combined.append(checks.sensitivity(list(own.values()), list(own)))
    return tuple(combined)


def _headline_members(targets: pd.DataFrame, candidates: pd.DataFrame, fits: dict, profile: TrendTable, *,
                      since: str | None, epoch: str) -> tuple[str, tuple[str, ...], list, list]:
    """The headline's set and its references: (label, benchmarks, the sets before it that have no reference, the
    members (inversion, targets), the lead reference first) — one selection for :func:`measure_trend` and
    :func:`headline_densities`."""
    label, benchmarks, found, missing = headline_set(candidates, profile.sets)
    members = capability.ordered_members(targets, candidates, fits, found, since=since, epoch=epoch, joint=True)
    return label, benchmarks, missing, members


@same_tables()
def headline_densities(targets: pd.DataFrame, *, since: str | None = DEFAULT_EPOCH, epoch: str = DEFAULT_EPOCH,
                       seed: int = 0, level: float = 0.95, table: str | TrendTable = "public") -> pd.DataFrame:
    """The headline's per-model densities without its trend: the rows of :func:`measure_trend`'s ``densities`` (the
    report's "Per-model densities") for the same ``targets``, ``since``, ``epoch`` and ``seed`` — rule v3's references
    chosen on the table, the headline set's lead reference (a family at its own budget, inverted jointly), every target
    released since ``since`` but the family's own models. Seconds: no trend, no bootstrap of the line.

    Columns: those of :func:`densing.laws.density.density_table` (``density`` holds a bound where ``bound`` says so).
    ``densing density`` with no ``--fit`` prints these rows.
    """
    validate({k: TREND_CONSTRAINTS[k] for k in ("seed", "since", "epoch")}, seed=seed, since=since, epoch=epoch)
    profile = tables.get(table)
    targets = with_stderr(table_argument(targets, "targets", SCORE_COLUMNS))
    check_window(targets, since)  # a window that leaves no model is refused, naming the filter
    candidates = eligibility.candidate_table(targets, since=since, composed=composed_fits(None),
                                             rule=eligibility.DEFAULT_RULE, benchmarks=profile.candidates)
    fits = eligibility.eligible_fits(targets, candidates, seed=seed)
    label, _, missing, members = _headline_members(targets, candidates, fits, profile, since=since, epoch=epoch)
    inversion, models = members[0]
    out = density_table(models, inversion, seed=seed, level=level)
    out.attrs.update(headline_set=label, missing=[lab for _, lab, _ in missing], table=profile.name)
    return out


@side_jobs.reaped  # an error, Ctrl-C or SIGTERM ends the side worker at once
@side_jobs.one_blas_thread  # two processes on small matrices: BLAS threads only oversubscribe the cores
@same_tables()  # each table's score matrix computed once per benchmark tuple within the call
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
    table: str | TrendTable = "public",
) -> TrendMeasurement:
    """A :class:`TrendMeasurement`: the Densing Law by capability on a tidy target table (module docstring): the headline on the paper-like set,
    one row per benchmark and per set, rule v1's verdict beside it. The defaults are the CLI's.

    ``table``: which registered target table ``targets`` is (:data:`densing.trend.tables.TABLES`: its candidate
    benchmarks, sets, budget rows, words; rules v1 and v2 only where the table keeps them).

    ``fit`` replaces the headline's references by one fit (inverted per benchmark at ``d0``, default its own D0);
    the rows per benchmark still use rule v3's references. It is a :class:`ReferenceFit`, a fit file or a shipped
    fit's short name (``"llama-3.1_mmlu"``, as the CLI's ``--fit``). ``fits_dir``: the folder of the composed fits
    (default the shipped ``reference_fits/``); one that does not exist is an input error. ``targets`` is checked as a
    table file is (counts written ``7B`` parsed; an impossible score or a missing column is an InputError naming
    ``targets``, the row and the field).
    """
    validate(TREND_CONSTRAINTS, n_boot=n_boot, n_boot_side=n_boot_side, seed=seed, d0=d0, since=since, epoch=epoch,
             fits_dir=fits_dir)  # before any worker starts
    fit = None if fit is None else as_fit(fit, "fit")
    targets = table_argument(targets, "targets", SCORE_COLUMNS)
    check_window(targets, since)  # a window that leaves no model is refused, naming the filter
    if d0 is not None:  # never ignored in silence: D0 means something only for a given fit with a data term
        if fit is None:
            raise InputError("--d0: rule v3's references are families at their own budgets, which have no data term, so "
                             "D0 has no meaning for them; give --fit with a two-step law to invert at D0, or read the "
                             "budget rows (every reference brought to D0 = 1T) of densing trend --by benchmark")
        fit._d0(float(d0))  # a fit without a data term refuses a D0 other than its own, in one line
    profile = tables.get(table)
    targets = with_stderr(targets)  # once: every trend_targets call below then finds nothing to fill
    composed = composed_fits(fits_dir)
    # rules v2 and v1 choose their own references: a worker measures them while rule v3's candidates are fitted here
    variants = [("v2",), ("v1",)] if profile.variants else []
    variant_args = dict(since=since, epoch=epoch, n_boot=n_boot_side, seed=seed, v1_composed=composed)
    pending_variants = side_jobs.start(_side_batch, variants, targets, None, None, variant_args)
    candidates = eligibility.candidate_table(targets, since=since, composed=composed, rule=eligibility.DEFAULT_RULE,
                                            benchmarks=profile.candidates)
    fits = eligibility.eligible_fits(targets, candidates, seed=seed)
    label, benchmarks = profile.sets[profile.headline_set]
    missing: list[tuple[str, str, str]] = []  # sets before the measured one that rule v2 gives no reference
    side_list: list = [("row", b, b, capability.CAPABILITY[b], (b,)) for b in capability.row_benchmarks()
                       if b in set(targets["benchmark"].astype(str))]
    side_list += [("row", name, lab, "set", bench) for name, (lab, bench) in profile.sets.items()
                  if fit is not None or name != profile.headline_set]  # the headline's own row is the headline
    side_list += [("budget", b, b, capability.CAPABILITY[b], (b,)) for b in profile.budget_benchmarks
                  if b in set(targets["benchmark"].astype(str))]
    side_list += [("budget", name, profile.sets[name][0], "set", profile.sets[name][1]) for name in profile.budget_sets]
    args = dict(since=since, epoch=epoch, n_boot=n_boot_side, seed=seed, v1_composed=composed,
                budget_benchmarks=profile.budget_benchmarks)
    # the other benchmark sets are measured here after the headline, the rest in the worker: the two halves then take
    # about as long (every job has its own seed, so the numbers do not depend on where it runs)
    here = [job for job in side_list if job[0] == "row" and len(job[4]) > 1]
    there = [job for job in side_list if job not in here]
    pending = side_jobs.start(_side_batch, there, targets, candidates, fits, args)
    if fit is not None:
        inversion = PerBenchmark(fit, fit.d0 if d0 is None else float(d0))
        rows, _ = trend_targets(targets, inversion, since=since, epoch=epoch)
        members = [(inversion, rows)]
        reference_rule = "given by the user (--fit); rule v3's references are in the rows per benchmark"
        label = f"benchmark(s) of the given fit ({', '.join(inversion.benchmarks)})"
    else:
        try:
            label, benchmarks, missing, members = _headline_members(targets, candidates, fits, profile, since=since,
                                                                    epoch=epoch)
        except FitError:
            side_jobs.cancel(pending)
            side_jobs.cancel(pending_variants)
            raise
        reference_rule = (f"rule v3 (date-blind): every family eligible on at least {eligibility.MIN_SET_BENCHMARKS} of "
                          f"{', '.join(benchmarks)}, drawn with equal weight in each bootstrap draw")
    found_rules: dict[str, TrendUncertainty] = {}
    rule_errors: dict[str, str] = {}
    for rule in rules.RULES:
        try:
            found_rules[rule] = carry_over_references(
                members, rule=rule, n_boot=n_boot if rule == HEADLINE_RULE else n_boot_side,
                n_boot_share=n_boot_side // 2 if rule == HEADLINE_RULE else 25, seed=seed, epoch=epoch)
        except DensingError as exc:
            if rule == HEADLINE_RULE:
                side_jobs.cancel(pending)
                side_jobs.cancel(pending_variants)
                raise
            rule_errors[rule] = str(exc)
    head = found_rules[HEADLINE_RULE]
    found_checks = _member_checks(members, found_rules)
    lead_inversion, lead_models = members[0]
    # what needs only the headline is computed before the side rows are gathered: the worker is still busy
    breakpoint = _breakpoint(targets, members, head, epoch, n_boot_side, seed)
    densities = density_table(lead_models, lead_inversion, seed=seed)
    side = _side_batch(here, targets, candidates, fits, args)
    side |= side_jobs.finish(pending, _side_batch, there, targets, candidates, fits, args)
    side |= (side_jobs.finish(pending_variants, _side_batch, variants, targets, None, None, variant_args) if variants
             else {name: {"verdict": f"Rule {name}: the public table's earlier rule, not applied to {profile.words}."}
                   for name in ("v1", "v2")})
    rows = [side[job[1]] for job in side_list if job[0] == "row" and len(job[4]) == 1]
    sets = [side[job[1]] for job in side_list if job[0] == "row" and len(job[4]) > 1]
    budget = tuple(side[f"budget:{job[1]}"] for job in side_list if job[0] == "budget")
    budget_notes = side.get("_budget", ({}, {}))[1]
    v1 = side["v1"]
    sensitivity = pd.DataFrame([{"reference": name, "inversion": "joint" if len(members[0][0].benchmarks) > 1 else "per-benchmark",
                                 "d0": inv.d0, "doubling_time_months": head.reference_months.get(name, math.nan),
                                 "ci_low": math.nan, "ci_high": math.nan}
                                for (inv, _), name in zip(members, head.reference_names)],
                               columns=["reference", "inversion", "d0", "doubling_time_months", "ci_low", "ci_high"])
    if fit is not None and fit.has_data_term:
        extra = []
        for value in SENSITIVITY_D0:
            variant = PerBenchmark(fit, value)
            months = point_months(trend_targets(targets, variant, since=since, epoch=epoch)[0], variant, HEADLINE_RULE)
            extra.append({"reference": variant.name, "inversion": f"D0 {format_count(value)}", "d0": value,
                          "doubling_time_months": months, "ci_low": math.nan, "ci_high": math.nan})
        sensitivity = pd.concat([sensitivity, pd.DataFrame(extra)], ignore_index=True)
        found_checks = tuple(c for c in found_checks if c.name != "sensitivity") + (
            checks.sensitivity(sensitivity["doubling_time_months"], sensitivity["reference"]),)
    gates = [c for c in found_checks if c.status != checks.REPORTED]
    failed = [c for c in gates if c.failed]
    untestable = [c for c in gates if c.status == checks.UNTESTABLE]
    refs = ", ".join(name.split(":")[0] for name in head.reference_names)
    carried = ("the reference fit, each score's standard error, the sampling of models"
               + (f" and the choice among {len(members)} references" if len(members) > 1 else ""))
    status = capability.row_status(head, tuple(failed))
    head_row = capability.Row(profile.headline_set if fit is None and not missing else "given",
                              label, "set", tuple(lead_inversion.benchmarks) if fit is not None else benchmarks,
                              tuple(head.reference_names), head, members=tuple(members), status=status)
    if fit is None:
        sets = [head_row if not missing else None, *sets]
        sets = [r for r in sets if r is not None]
    verdict = headline_verdict(head, label, refs, status, table_words=profile.words, missing=missing)
    why = (" ".join(plain_reason(c, sensitivity) for c in failed)
           + (f" Every check passed{' but ' + ', '.join(c.name for c in untestable) + ' (untestable)' if untestable else ''}."
              if not failed else "")
           + f" {head.n_models} models released since {since or 'any date'}, against {refs} (each family at its own "
             f"budget); the interval carries {carried}. References by {reference_rule}.")
    if missing:
        why = " ".join(f"The {lab} has no reference: {reason}." for _, lab, reason in missing) + " " + why
        failed = failed or [None]  # the headline set itself is not measured
    return TrendMeasurement(
        reference=" | ".join(head.reference_names) + (" (given)" if fit is not None else ""), reference_rule=reference_rule, d0=lead_inversion.d0,
        headline_rule=HEADLINE_RULE, measurable=not failed and status == "measured", headline=f"{verdict} {why}",
        verdict=verdict, why=why, status=status if not missing else f"not measured: the {missing[0][1]} has no reference",
        rules=found_rules, rule_errors=rule_errors, checks=found_checks, sensitivity=sensitivity, breakpoint=breakpoint,
        candidates=candidates, references=_reference_frame(members, head), inversions={},
        densities=densities,
        models=lead_models.assign(**dict(zip(("log_density", "bound"), point_densities(lead_models, lead_inversion)))),
        left_out=trend_targets(targets, lead_inversion, since=since, epoch=epoch)[1], fits=tuple(lead_inversion.fits),
        inversion=lead_inversion, headline_set=label, benchmark_rows=tuple(rows), set_rows=tuple(sets),
        budget_rows=budget, budget_notes=budget_notes,
        rule_v1=v1["verdict"], rule_v1_detail=v1, rule_v2=side["v2"]["verdict"], rule_v2_detail=side["v2"],
    )


def headline_verdict(head: TrendUncertainty, label: str, refs: str, status: str, *, table_words: str,
                     missing: list | None = None) -> str:
    """The first sentence a researcher can cite: the number, its interval, the benchmarks and table, the references,
    and whether the paper's figure lies inside — or, not measured, which check fails and the estimate labelled."""
    paper = PAPER["doubling_time_months"]
    low, high = head.doubling_time_months_ci_low, head.doubling_time_months_ci_high
    interval = f"95% CI {format_months(low)}–{format_months(high)}"
    inside = "inside" if low <= paper <= high else "outside"
    if missing:
        return (f"Doubling time not measured on the {missing[0][1]}: {missing[0][2]}. On the {label} of {table_words}, "
                f"against {refs}: {format_months(head.doubling_time_months)} months ({interval}), "
                + ("measured" if status == "measured" else status.replace("not measured: ", "not a measurement either: "))
                + f"; the paper reports {paper} months.")
    if status == "measured":
        return (f"Capacity density doubles every {format_months(head.doubling_time_months)} months ({interval}) on the {label} of "
                f"{table_words}, against {refs}; the paper's {paper} months lies {inside} the interval.")
    return (f"Doubling time not measured on the {label} of {table_words}: {status.removeprefix('not measured: ')}. The "
            f"estimate, {format_months(head.doubling_time_months)} months ({interval}) against {refs}, is not a measurement; "
            f"the paper reports {paper} months.")


def _reference_frame(members: list, head: TrendUncertainty) -> pd.DataFrame:
    """Each candidate reference of the headline: its benchmarks, weight, own point doubling time and targets."""
    return pd.DataFrame([{"reference": name, "benchmarks": ",".join(inv.benchmarks), "weight": weight,
                          "months": head.reference_months[name], "n_models": len(models), "d0": inv.d0}
                         for (inv, models), name, weight in zip(members, head.reference_names, head.reference_weights)])


def _breakpoint(targets: pd.DataFrame, members: list, head: TrendUncertainty, epoch: str, n_boot: int, seed: int) -> Breakpoint:
    """Slopes before and after ChatGPT (each segment its own full-uncertainty fit over the same references); a segment
    whose models are the headline's shares the headline's computation (one interval per quantity)."""
    segments = {}
    for name, lo, hi in (("before", None, CHATGPT_RELEASE), ("after", CHATGPT_RELEASE, None)):
        parts = [(inv, trend_targets(targets, inv, since=lo, until=hi, epoch=epoch)[0]) for inv, _ in members]
        if all(set(p["model"].astype(str)) == set(m["model"].astype(str)) for (_, p), (_, m) in zip(parts, members)):
            segments[name] = Segment(name, head.n_models, head.slope_per_day, head.intercept, head.slope_ci_low,
                                     head.slope_ci_high, same_as_headline=True)
            continue
        try:
            r = carry_over_references(parts, rule=HEADLINE_RULE, n_boot=n_boot, n_boot_share=0, seed=seed)
            segments[name] = Segment(name, r.n_models, r.slope_per_day, r.intercept, r.slope_ci_low, r.slope_ci_high)
        except DensingError as exc:
            segments[name] = Segment(name, max(len(p) for _, p in parts), note=str(exc))
    return Breakpoint(CHATGPT_RELEASE, segments["before"], segments["after"],
                      PAPER["slope_before_chatgpt_per_day"], PAPER["slope_after_chatgpt_per_day"])
