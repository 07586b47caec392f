"""The density trend as a measurement by capability: references by written rules, one design per row, every
uncertainty carried, checks.

:func:`measure_trend` is what ``densing trend`` and the report show:

1. **The references** of a benchmark follow rule v3 of :mod:`densing.laws.eligibility` (date-blind, its thresholds
   written before any trend under it was computed): families of one recipe and one budget, fitted per benchmark as
   the paper's sigmoid of a power law at their own budget by binomial likelihood (:mod:`densing.laws.family`),
   eligible by R1, R2, R2s, R3, R4r, R4s, R5z. A set's references follow the set rule
   (:func:`densing.trend.design.set_references`).
2. **One design per row** (:mod:`densing.trend.design`): the targets are the models released since ``since`` with
   every score of the row, each score with its standard error; every reference inverts the same benchmarks for the
   same targets, its own family's models from the other references (leave-one-family-out).
3. **The rows** (:mod:`densing.trend.capability`): one per benchmark (the paper's inversion) and one per benchmark
   set (the joint inversion, :mod:`densing.laws.joint`); the headline is the paper-like set (MMLU, BBH, MATH-hard,
   HumanEval).
4. **The headline rule** is the censored 0.9 regression quantile (:mod:`densing.trend.rules`); the paper's envelope
   and the Tobit mean line are shown beside it. A row's references are pooled by a random-effects model over paired
   draws (fit, score noise, the sampling of models, the spread between references), with Cochran's Q as the test of
   whether they disagree (:mod:`densing.trend.uncertainty`).
5. **Checks** (:mod:`densing.trend.checks`) under every reference of the headline: saturation, conditioning, size
   confounding; the heterogeneity test; the sensitivity table (each reference, the other frontier rules, every
   reference at D0 = 1T, the family law logistic in ln N); the fixed-size time regression as a second estimator. The
   doubling time is "measured" when no check fails; otherwise the words say which failed.
"""
from __future__ import annotations

import math
from dataclasses import replace
from numbers import Integral, Real
from pathlib import Path

import pandas as pd

from densing.data.units import format_count
from densing.errors import DensingError, InputError
from densing.laws import eligibility
from densing.trend import capability
from densing.laws.eligibility import composed_fits
from densing.trend.capability import headline_set
from densing.laws.density import density_table
from densing.laws.inversion import PerBenchmark
from densing.laws.reference_fit import ReferenceFit, as_fit
from densing.data.schema import table_argument
from densing.numbers import format_months
from densing.validation import DRAWS, Date, ExistingPath, Interval, validate_params
from densing.trend import checks, rules, side_jobs, tables
from densing.trend.tables import TrendTable
from densing.trend.checks import plain_reason
from densing.trend.constants import CHATGPT_RELEASE, DEFAULT_EPOCH, DEFAULT_N_BOOT, DEFAULT_N_BOOT_SIDE, PAPER
from densing.trend.measurement import Breakpoint, Segment, TrendMeasurement
from densing.laws.table_cache import same_tables
from densing.trend.targets import with_stderr
from densing.trend.scope import check_window
from densing.trend.doubling import SCORE_COLUMNS
from densing.trend import design
from densing.trend.uncertainty import TrendUncertainty, from_design

__all__ = ["PAPER_ANCHORS", "CANDIDATES_FILE", "HEADLINE_RULE", "SENSITIVITY_D0", "headline_densities", "headline_verdict",
           "measure_trend"]

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


# ---------------------------------------------------------------------------------------------
# the measurement


#: The rows of the budget sensitivity: the paper-like benchmarks, GSM8K and the paper-like sets.
BUDGET_BENCHMARKS = tables.TABLES["public"].budget_benchmarks
BUDGET_SETS = tables.TABLES["public"].budget_sets
#: :func:`measure_trend`'s numeric options, checked before anything runs (a worker included).
TREND_CONSTRAINTS = {
    "n_boot": [DRAWS],
    "n_boot_side": [DRAWS],
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
        if job[0] == "fixed_size":  # the second estimator: no reference, the same table (densing.trend.fixed_size)
            from densing.trend.fixed_size import fixed_size_rows

            out["fixed_size"] = fixed_size_rows(targets, args["profile"], since=args["since"], epoch=args["epoch"],
                                                n_boot=args["n_boot"], seed=args["seed"])
        elif job[0] == "shape":  # the law-shape sensitivity: the same row, every family law logistic in ln N
            if "_logistic" not in out:
                out["_logistic"] = eligibility.candidate_table(targets, since=args["since"], composed=None,
                                                               rule=eligibility.DEFAULT_RULE, shape="logistic_ln_n",
                                                               benchmarks=args["candidate_benchmarks"])
            _, name, label, capability_name, benchmarks = job
            out[f"shape:{name}"] = capability.trend_row(
                name, f"{label}, family law logistic in ln N", capability_name, benchmarks, targets, out["_logistic"], {},
                since=args["since"], epoch=args["epoch"], n_boot=args["n_boot"], n_boot_share=0, seed=args["seed"])
        elif job[0] == "budget":
            if "_budget" not in out:
                wanted = {k: f for k, f in fits.items() if k[1] in args.get("budget_benchmarks", BUDGET_BENCHMARKS)}
                out["_budget"] = capability.budget_fits(targets, wanted, seed=args["seed"])
            _, name, label, capability_name, benchmarks = job
            out[f"budget:{name}"] = capability.trend_row(
                name, f"{label} at D0 = {format_count(capability.BUDGET_D0)}", capability_name, benchmarks, targets,
                candidates, out["_budget"][0], since=args["since"], epoch=args["epoch"], n_boot=args["n_boot"],
                n_boot_share=0, seed=args["seed"])
        else:
            _, name, label, capability_name, benchmarks = job
            out[name] = capability.trend_row(name, label, capability_name, benchmarks, targets, candidates, fits,
                                             since=args["since"], epoch=args["epoch"], n_boot=args["n_boot"],
                                             n_boot_share=0, seed=args["seed"])
    return out


def _headline_members(targets: pd.DataFrame, candidates: pd.DataFrame, fits: dict, profile: TrendTable, *,
                      since: str | None, epoch: str, seed: int) -> tuple[str, tuple[str, ...], list, design.Design]:
    """The headline's set and its common design: (label, benchmarks, the sets before it that have no reference, the
    design, the lead reference first) — one selection for :func:`measure_trend` and :func:`headline_densities`."""
    label, benchmarks, found, missing = headline_set(candidates, profile.sets)
    capability.row_fits(targets, candidates, fits, found, seed=seed)
    return label, benchmarks, missing, capability.row_design(targets, candidates, fits, found, since=since, epoch=epoch)


@validate_params({k: TREND_CONSTRAINTS[k] for k in ("seed", "since", "epoch")})
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
    profile = tables.get(table)
    targets = with_stderr(table_argument(targets, "targets", SCORE_COLUMNS))
    check_window(targets, since)  # a window that leaves no model is refused, naming the filter
    candidates = eligibility.candidate_table(targets, since=since, composed=composed_fits(None),
                                             rule=eligibility.DEFAULT_RULE, benchmarks=profile.candidates)
    fits = eligibility.eligible_fits(targets, candidates, seed=seed)
    label, _, missing, chosen = _headline_members(targets, candidates, fits, profile, since=since, epoch=epoch, seed=seed)
    inversion, models = chosen.members()[0]
    out = density_table(models, inversion, seed=seed, level=level)
    out.attrs.update(headline_set=label, missing=[lab for _, lab, _ in missing], table=profile.name)
    return out


@side_jobs.reaped  # an error, Ctrl-C or SIGTERM ends the side worker at once
@side_jobs.one_blas_thread  # two processes on small matrices: BLAS threads only oversubscribe the cores
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
    table: str | TrendTable = "public",
) -> TrendMeasurement:
    """A :class:`TrendMeasurement`: the Densing Law by capability on a tidy target table (module docstring): the headline on the paper-like set,
    one row per benchmark and per set, rule v1's verdict beside it. The defaults are the CLI's.

    ``n_boot``: the headline's draws; ``n_boot_side``: every other row's, at most ``n_boot``.
    ``table``: which registered target table ``targets`` is (:data:`densing.trend.tables.TABLES`: its candidate
    benchmarks, sets, budget rows, words; rules v1 and v2 only where the table keeps them).

    ``fit`` replaces the headline's references by one fit (inverted per benchmark at ``d0``, default its own D0);
    the rows per benchmark still use rule v3's references. It is a :class:`ReferenceFit`, a fit file or a shipped
    fit's short name (``"llama-3.1_mmlu"``, as the CLI's ``--fit``). ``fits_dir``: the folder of the composed fits
    (default the shipped ``reference_fits/``); one that does not exist is an input error. ``targets`` is checked as a
    table file is (counts written ``7B`` parsed; an impossible score or a missing column is an InputError naming
    ``targets``, the row and the field).
    """
    n_boot_side = min(n_boot_side, n_boot)  # no side row is drawn more often than the headline
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
    candidates = eligibility.candidate_table(targets, since=since, composed=composed, rule=eligibility.DEFAULT_RULE,
                                            benchmarks=profile.candidates)
    fits = eligibility.eligible_fits(targets, candidates, seed=seed)
    side_list = _side_list(targets, profile, headline_too=fit is not None)
    args = dict(since=since, epoch=epoch, n_boot=n_boot_side, seed=seed, budget_benchmarks=profile.budget_benchmarks,
                candidate_benchmarks=profile.candidates, profile=profile)
    # the rows per benchmark and the budget rows are measured in a worker while the headline and the sets are here
    here = [job for job in side_list if job[0] == "row" and len(job[4]) > 1]
    there = [job for job in side_list if job not in here]
    pending = side_jobs.start(_side_batch, there, targets, candidates, fits, args)
    try:
        label, benchmarks, missing, chosen, reference_rule = _headline_design(targets, candidates, fits, profile, fit, d0,
                                                                              since=since, epoch=epoch, seed=seed)
        found_rules, rule_errors = _by_rule(chosen, n_boot=n_boot, n_boot_side=n_boot_side, seed=seed, epoch=epoch)
    except DensingError:
        side_jobs.cancel(pending)
        raise
    head = found_rules[HEADLINE_RULE]
    members = chosen.members()
    found_checks = capability.headline_checks(members, head)
    lead_inversion, lead_models = members[0]
    breakpoint = _breakpoint(targets, chosen, head, epoch, n_boot_side, seed)
    densities = density_table(lead_models, lead_inversion, seed=seed)
    side = _side_batch(here, targets, candidates, fits, args)
    side |= side_jobs.finish(pending, _side_batch, there, targets, candidates, fits, args)
    rows = [side[job[1]] for job in side_list if job[0] == "row" and len(job[4]) == 1]
    sets = [side[job[1]] for job in side_list if job[0] == "row" and len(job[4]) > 1]
    budget = tuple(side[f"budget:{job[1]}"] for job in side_list if job[0] == "budget")
    sensitivity = _sensitivity(head, chosen, fit, targets, since=since, epoch=epoch, n_boot=n_boot_side, seed=seed)
    sensitivity = _with_variants(sensitivity, found_rules, side, profile.headline_set if fit is None else None)
    gates = [c for c in found_checks if c.status != checks.REPORTED]
    failed = [c for c in gates if c.failed]
    untestable = [c for c in gates if c.status == checks.UNTESTABLE]
    refs = ", ".join(name.split(":")[0] for name in head.reference_names)
    status = capability.row_status(head, capability.failed_gates(found_checks))
    head = found_rules[HEADLINE_RULE] = replace(head, status=status)
    head_row = capability.Row(profile.headline_set if fit is None and not missing else "given", label, "set",
                              tuple(lead_inversion.benchmarks) if fit is not None else benchmarks,
                              tuple(head.reference_names), head, members=tuple(members), status=status)
    if fit is None and not missing:
        sets = [head_row, *sets]
    verdict = headline_verdict(head, label, refs, status, table_words=profile.words, missing=missing)
    why = _why(head, failed, untestable, sensitivity, missing, since=since, refs=refs, reference_rule=reference_rule)
    return TrendMeasurement(
        reference=" | ".join(head.reference_names) + (" (given)" if fit is not None else ""), reference_rule=reference_rule,
        d0=lead_inversion.d0, headline_rule=HEADLINE_RULE, measurable=status == "measured" and not missing,
        headline=f"{verdict} {why}", verdict=verdict, why=why,
        status=status if not missing else f"not measured: the {missing[0][1]} has no reference",
        rules=found_rules, rule_errors=rule_errors, checks=found_checks, sensitivity=sensitivity, breakpoint=breakpoint,
        candidates=candidates, references=_reference_frame(members, head), inversions={}, densities=densities,
        models=_lead_points(chosen),
        left_out=chosen.left_out, fits=tuple(lead_inversion.fits), inversion=lead_inversion, headline_set=label,
        benchmark_rows=tuple(rows), set_rows=tuple(sets), budget_rows=budget,
        budget_notes=side.get("_budget", ({}, {}))[1], fixed_size=side.get("fixed_size"),
        order_breaks=_order_breaks(targets, [*rows, *sets]),
    )


def _order_breaks(targets: pd.DataFrame, rows: list) -> pd.DataFrame:
    """The members of the rows' reference families that break their family's order (:func:`densing.laws.order.order_breaks`),
    each with whether the family's fits keep it (a family law is fitted on every member with a size and a budget)."""
    from densing.laws.order import order_breaks

    families = {name.split(":")[0] for row in rows for name in row.references}
    if "family" not in targets.columns or not families:
        return pd.DataFrame()
    found = order_breaks(targets)
    found = found[found["family"].isin(families)].reset_index(drop=True)
    rows_of = targets.drop_duplicates("model").set_index("model")
    fitted = [("kept" if pd.notna(rows_of.loc[m, "train_tokens"]) and not ("active_params" in rows_of.columns
                                                                       and pd.notna(rows_of.loc[m, "active_params"]))
               else "left out") for m in found["model"]]
    return found.assign(in_fit=fitted)


def _lead_points(chosen: design.Design) -> pd.DataFrame:
    """Every target of the headline with its point ln ρ (``log_density``) and kind (``bound``) under the lead reference,
    the lead's own members from the others (the points its line is fitted on)."""
    y, kind = design.point_densities(chosen)
    return chosen.frame.assign(log_density=y[0], bound=kind[0])


def _side_list(targets: pd.DataFrame, profile: TrendTable, *, headline_too: bool) -> list:
    """The side rows' jobs: (kind, name, label, capability, benchmarks), kind "row" or "budget"."""
    present = set(targets["benchmark"].astype(str))
    out: list = [("row", b, b, capability.CAPABILITY[b], (b,)) for b in capability.row_benchmarks() if b in present]
    out += [("row", name, lab, "set", bench) for name, (lab, bench) in profile.sets.items()
            if headline_too or name != profile.headline_set]  # the headline's own row is the headline
    if not headline_too:  # the law-shape sensitivity of the headline row
        out += [("shape", profile.headline_set, *profile.sets[profile.headline_set][:1], "set",
                 profile.sets[profile.headline_set][1])]
    out += [("budget", b, b, capability.CAPABILITY[b], (b,)) for b in profile.budget_benchmarks if b in present]
    out += [("fixed_size", "fixed_size", "", "", ())]
    out += [("budget", name, profile.sets[name][0], "set", profile.sets[name][1]) for name in profile.budget_sets]
    return out


def _headline_design(targets, candidates, fits, profile: TrendTable, fit, d0, *, since, epoch: str, seed: int):
    """(label, benchmarks, sets passed over, the common design, the reference rule in words) of the headline: the
    user's ``fit`` alone, else the first set of the table that has references under the common design."""
    if fit is not None:
        inversion = PerBenchmark(fit, fit.d0 if d0 is None else float(d0))
        chosen = design.common_design(targets, [inversion], since=since, epoch=epoch)
        label = f"benchmark(s) of the given fit ({', '.join(inversion.benchmarks)})"
        return (label, tuple(inversion.benchmarks), [], chosen,
                "given by the user (--fit); the rows per benchmark have their own references")
    label, benchmarks, missing, chosen = _headline_members(targets, candidates, fits, profile, since=since, epoch=epoch,
                                                           seed=seed)
    rule = ("the common design: every family with a fit on each of " + ", ".join(benchmarks) + " that rises with size "
            "on each, reaches the frontier on one and predicts its largest member jointly within noise; every reference "
            "inverts the same benchmarks for the same targets, its own family's models from the others, pooled by a "
            "random-effects model over paired draws")
    return label, benchmarks, missing, chosen, rule


def _by_rule(chosen: design.Design, *, n_boot: int, n_boot_side: int, seed: int, epoch: str):
    """The headline's pooled trend under every frontier rule (the headline rule with ``n_boot`` draws and the shares)."""
    found: dict[str, TrendUncertainty] = {}
    errors: dict[str, str] = {}
    for rule in rules.RULES:
        head = rule == HEADLINE_RULE
        try:
            found[rule] = from_design(design.pooled_trend(chosen, rule=rule, n_boot=n_boot if head else n_boot_side,
                                                          n_boot_share=n_boot_side // 2 if head else 25, seed=seed),
                                      epoch=epoch)
        except DensingError as exc:
            if head:
                raise
            errors[rule] = str(exc)
    return found, errors


def _sensitivity(head: TrendUncertainty, chosen: design.Design, fit, targets, *, since, epoch: str, n_boot: int,
                 seed: int) -> pd.DataFrame:
    """Each reference's own doubling time with its interval over the paired draws; for a given fit with a data term,
    the same at other D0 (:data:`SENSITIVITY_D0`)."""
    rows = [{"reference": name, "inversion": inv.kind, "d0": inv.d0, "doubling_time_months": months,
             "ci_low": low, "ci_high": high}
            for inv, name, months, low, high in zip(chosen.inversions, head.reference_names,
                                                    head.reference_months.values(), head.reference_months_low,
                                                    head.reference_months_high)]
    if fit is not None and fit.has_data_term:
        for value in SENSITIVITY_D0:
            variant = design.common_design(targets, [PerBenchmark(fit, value)], since=since, epoch=epoch)
            r = from_design(design.pooled_trend(variant, n_boot=n_boot, n_boot_share=0, seed=seed), epoch=epoch)
            rows.append({"reference": variant.names[0], "inversion": f"D0 {format_count(value)}", "d0": value,
                         "doubling_time_months": r.doubling_time_months, "ci_low": r.doubling_time_months_ci_low,
                         "ci_high": r.doubling_time_months_ci_high})
    return pd.DataFrame(rows, columns=["reference", "inversion", "d0", "doubling_time_months", "ci_low", "ci_high"])


#: The columns of the one sensitivity table: what varies, its value, the doubling time and its interval.
SENSITIVITY_COLUMNS = ["variant", "reference", "inversion", "d0", "doubling_time_months", "ci_low", "ci_high", "status"]


def _with_variants(sensitivity: pd.DataFrame, found_rules: dict, side: dict, headline: str | None) -> pd.DataFrame:
    """The one sensitivity table of the headline (one engine for every row): each reference's own doubling time, the
    other frontier rules, the budget row (every reference at D0 = 1T) and the family law's other shape."""
    rows = [{**r, "variant": "reference" if not str(r["inversion"]).startswith("D0") else "D0 of the given fit",
             "status": ""} for r in sensitivity.to_dict("records")]
    for rule, result in found_rules.items():
        if rule != HEADLINE_RULE:
            rows.append({"variant": "frontier rule", "reference": rule, "inversion": "pooled", "d0": math.nan,
                         "doubling_time_months": result.doubling_time_months,
                         "ci_low": result.doubling_time_months_ci_low, "ci_high": result.doubling_time_months_ci_high,
                         "status": "the envelope's interval is optimistic" if rule == "envelope" else ""})
    for key, variant in ((f"budget:{headline}", "D0 budget (every reference at 1T tokens)"),
                         (f"shape:{headline}", "family law logistic in ln N")):
        row = side.get(key) if headline is not None else None
        if row is not None:
            r = row.result
            rows.append({"variant": variant, "reference": ", ".join(x.split(":")[0] for x in row.references),
                         "inversion": "pooled", "d0": math.nan,
                         "doubling_time_months": r.doubling_time_months if r else math.nan,
                         "ci_low": r.doubling_time_months_ci_low if r else math.nan,
                         "ci_high": r.doubling_time_months_ci_high if r else math.nan, "status": row.status})
    return pd.DataFrame(rows, columns=SENSITIVITY_COLUMNS)


def _why(head: TrendUncertainty, failed: list, untestable: list, sensitivity: pd.DataFrame, missing: list, *, since,
         refs: str, reference_rule: str) -> str:
    """The sentences after the verdict: why not measured (or every check passed), the targets, what the interval carries."""
    carried = ("the reference fit, each score's standard error, the sampling of models"
               + (f" and the spread among {head.n_references} references (τ)" if head.n_references > 1 else ""))
    why = (" ".join(plain_reason(c, sensitivity) for c in failed)
           + (f" Every check passed{' but ' + ', '.join(c.name for c in untestable) + ' (untestable)' if untestable else ''}."
              if not failed else "")
           + f" {head.n_models} models released since {since or 'any date'} with every score of the set, against {refs} "
             f"(each family at its own budget; {design.heterogeneity_words(head)}); the interval carries {carried}. "
             f"References by {reference_rule}.")
    if missing:
        why = " ".join(f"The {lab} has no reference: {reason}." for _, lab, reason in missing) + " " + why
    return why


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
    """Each reference of the headline: its benchmarks, pooling weight, own doubling time with its interval, targets."""
    return pd.DataFrame([{"reference": name, "benchmarks": ",".join(inv.benchmarks), "weight": weight,
                          "months": head.reference_months[name], "ci_low": low, "ci_high": high,
                          "n_models": len(models), "d0": inv.d0}
                         for (inv, models), name, weight, low, high in zip(members, head.reference_names,
                                                                          head.reference_weights, head.reference_months_low,
                                                                          head.reference_months_high)])


def _breakpoint(targets: pd.DataFrame, chosen: design.Design, head: TrendUncertainty, epoch: str, n_boot: int,
                seed: int) -> Breakpoint:
    """Slopes before and after ChatGPT, each segment the same common design on its own window."""
    segments = {}
    for name, lo, hi in (("before", None, CHATGPT_RELEASE), ("after", CHATGPT_RELEASE, None)):
        try:
            part = design.common_design(targets, chosen.inversions, since=lo, until=hi, epoch=epoch)
            if set(part.frame["model"].astype(str)) == set(head.models):
                segments[name] = Segment(name, head.n_models, head.slope_per_day, head.intercept, head.slope_ci_low,
                                         head.slope_ci_high, same_as_headline=True)
                continue
            r = from_design(design.pooled_trend(part, n_boot=n_boot, n_boot_share=0, seed=seed), epoch=epoch)
            segments[name] = Segment(name, r.n_models, r.slope_per_day, r.intercept, r.slope_ci_low, r.slope_ci_high)
        except DensingError as exc:
            segments[name] = Segment(name, 0, note=str(exc))
    return Breakpoint(CHATGPT_RELEASE, segments["before"], segments["after"],
                      PAPER["slope_before_chatgpt_per_day"], PAPER["slope_after_chatgpt_per_day"])
