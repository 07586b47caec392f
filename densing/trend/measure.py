"""The density trend as a measurement by capability: references by a date-blind rule, every uncertainty carried, checks.

:func:`measure_trend` is what ``densing trend`` and the report show:

1. **The references** follow rule v2 of :mod:`densing.trend.references` (date-blind, written
   before any trend under it was computed): families of one recipe and one budget, fitted per
   benchmark as S(N) at their own budget (:mod:`densing.laws.family`), eligible by R1–R3, R4s,
   R4c, R5. Every eligible reference of a row enters its bootstrap (equal weights).
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
   which failed. Rule v1's verdict (its reach rule and its size-slope equivalence test) is kept
   beside it as a labelled variant.
"""
from __future__ import annotations

import argparse
import glob
import math
import sys
from numbers import Integral, Real
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from densing import paths
from densing.data.units import format_count
from densing.errors import DensingError, FitError
from densing.trend import capability, references
from densing.laws.density import density_table, point_densities
from densing.laws.inversion import Joint, PerBenchmark, arrays
from densing.laws.reference_fit import ReferenceFit
from densing.numbers import format_number
from densing.validation import Interval, validate
from densing.trend import checks, rules, side_jobs
from densing.trend.checks import plain_reason
from densing.trend.censored import EXACT
from densing.trend.constants import CHATGPT_RELEASE, DAYS_PER_MONTH, DEFAULT_EPOCH, NAMED_MODELS
from densing.trend.lines import doubling_days, envelope_index
from densing.trend.measurement import PAPER, Breakpoint, InversionTrend, Segment, TrendMeasurement
from densing.trend.targets import reference_models, trend_targets, with_stderr
from densing.trend.uncertainty import TrendUncertainty, carry_over_references, carry_uncertainty

__all__ = [  # the measurement's parts, importable from here as before the split
    "PAPER", "Breakpoint", "InversionTrend", "Segment", "TrendMeasurement", "plain_reason",
    "reference_models", "trend_targets", "with_stderr",
    "PAPER_ANCHORS", "COMPOSED_FITS", "CANDIDATES_FILE", "HEADLINE_RULE", "SENSITIVITY_D0", "NAMED_MODELS",
    "composed_fits", "headline_set", "inversions_of", "inversion_checks", "measure_trend", "main",
]

#: The paper's per-model anchors (Xiao et al. 2024, Fig. 1 and §3), shown beside ours.
PAPER_ANCHORS = {
    "google/gemma-2-9b": "≈ 3, denser than Gemma-2-27B",
    "huggyllama/llama-7b": "< 0.1 (Llama-1 models)",
}
#: Shipped multi-family composed fits, listed among the candidates (judged by the reach rule R4).
COMPOSED_FITS = ("pile_*_composed.json", "cerebras_*_composed.json")
CANDIDATES_FILE = "trend_reference_candidates.csv"
HEADLINE_RULE = "quantile"
#: D0 values of the sensitivity table, for a reference that identifies a data term (``--fit`` a composed fit).
SENSITIVITY_D0 = (3e11, 1e12, 3e12)


# ---------------------------------------------------------------------------------------------
# the references


def composed_fits(folder: str | Path | None = None) -> dict[str, ReferenceFit]:
    """The shipped multi-family composed fits (candidates judged by the reach rule), by file name."""
    folder = Path(folder) if folder else paths.REFERENCE_FITS
    found = sorted({p for pattern in COMPOSED_FITS for p in glob.glob(str(folder / pattern))})
    return {Path(p).name: ReferenceFit.load(p) for p in found}


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


def _frontier(models: pd.DataFrame, y: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """Indices of the envelope's record-setters among the models with a value or a bound."""
    usable = np.flatnonzero(np.isfinite(y) & np.isfinite(kind))
    return usable[envelope_index(models["t"].to_numpy(float)[usable], y[usable], models["model"].astype(str).to_numpy()[usable])]


def inversion_checks(models: pd.DataFrame, inversion, *, size: str = "confounding") -> tuple[checks.Check, ...]:
    """Saturation and conditioning over the envelope's record-setters; size dependence over every exact density
    (a gate under rule v1, ``size="dependence"``, a finding under v2) and, under v2, size confounding."""
    y, kind = point_densities(models, inversion)
    front = models.iloc[_frontier(models, y, kind)]
    scores, stderr = arrays(front, inversion.benchmarks)
    cap = inversion.cap()
    filled = np.where(np.isnan(scores), -np.inf, scores)  # a missing score is never the top one
    top = filled.max(axis=1) if scores.size else np.empty(0)
    top_err = np.take_along_axis(stderr, filled.argmax(axis=1)[:, None], axis=1)[:, 0] if scores.size else np.empty(0)
    kappa = inversion.conditioning(scores, stderr) if len(front) else np.empty(0)
    sizes = models.assign(log_density=np.where(kind == EXACT, y, np.nan))[["family", "params", "log_density"]]
    found = (checks.saturation(top, top_err, cap, front["model"].tolist()), checks.conditioning(kappa, front["model"].tolist()))
    slope = checks.size_dependence(sizes)
    if size == "dependence":
        return (*found, slope)
    finding = replace(slope, status=checks.REPORTED if slope.status != checks.UNTESTABLE else slope.status,
                      threshold="a finding under rule v2 (not a gate)")
    confounding = checks.size_confounding(models["t"].to_numpy(float), y, kind, models["params"].to_numpy(float))
    return (*found, confounding, finding)


def _months(value: float) -> str:
    """Months for the headline's words: 1 decimal, ∞ for an infinity (a slope interval reaching 0), — for NaN."""
    return format_number(value, ".1f")


#: Draws of the headline (``densing trend``, ``densing report`` and the API share these defaults).
DEFAULT_N_BOOT = 600
DEFAULT_N_BOOT_SIDE = 200
#: :func:`measure_trend`'s numeric options, checked before anything runs (a worker included).
TREND_CONSTRAINTS = {
    "n_boot": [Interval(Integral, 1, None)],
    "n_boot_side": [Interval(Integral, 1, None)],
    "seed": [Interval(Integral, 0, None)],
    "d0": [Interval(Real, 0, None, closed="neither"), None],
}


def _side_batch(jobs: list, targets: pd.DataFrame, candidates: pd.DataFrame, fits: dict, args: dict) -> dict:
    """The side rows (per benchmark, the other sets, rule v1), by name: :mod:`densing.trend.side_jobs` runs this
    in its worker while the headline is measured here."""
    out = {}
    for job in jobs:
        if job[0] == "v1":
            out["v1"] = _rule_v1(targets, args["v1_composed"], since=args["since"], epoch=args["epoch"],
                                 n_boot=args["n_boot"], seed=args["seed"])
        else:
            _, name, label, capability_name, benchmarks = job
            out[name] = capability.trend_row(name, label, capability_name, benchmarks, targets, candidates, fits,
                                             since=args["since"], epoch=args["epoch"], n_boot=args["n_boot"],
                                             n_boot_share=0, seed=args["seed"])
    return out


def _rule_v1(targets: pd.DataFrame, composed: dict, *, since, epoch, n_boot: int, seed: int) -> dict:
    """Rule v1's verdict, kept as a labelled variant: its reference's joint trend and its four checks, as first written."""
    candidates = references.candidate_table(targets, since=since, composed=composed, rule="v1")
    eligible = references.eligible_families(candidates)
    if not len(eligible):
        return {"verdict": "Rule v1: no candidate reference passes R1–R5.", "candidates": candidates}
    family = str(eligible["family"].iloc[0])
    fits = references.family_references(targets, candidates, seed=seed)[family]
    inversion = next(iter(inversions_of(fits).values()))
    models, _ = trend_targets(targets, inversion, since=since, epoch=epoch)
    head = carry_uncertainty(models, inversion, n_boot=n_boot, n_boot_share=0, seed=seed)
    variants = []
    for name, other in inversions_of(fits).items():
        rows, _ = trend_targets(targets, other, since=since, epoch=epoch)
        y, kind = point_densities(rows, other)
        slope = rules.frontier_line(HEADLINE_RULE, rows["t"].to_numpy(float), y, kind, rows["model"].astype(str).to_numpy())[0]
        variants.append((name, doubling_days(slope) / DAYS_PER_MONTH))
    found = (*inversion_checks(models, inversion, size="dependence"),
             checks.sensitivity([v for _, v in variants], [n for n, _ in variants]))
    failed = [c for c in found if c.failed]
    words = (f"{_months(head.doubling_time_months)} months (95% CI {_months(head.doubling_time_months_ci_low)}–"
             f"{_months(head.doubling_time_months_ci_high)}) against {inversion.name} at {format_count(inversion.d0)} tokens")
    verdict = (f"Rule v1 (reach by the targets' 90th percentile, within-family size slope as an equivalence test): "
               + (f"not measured, {len(failed)} of {len(found)} checks fail ({', '.join(c.name for c in failed)}); estimate "
                  if failed else "measured: ") + words + ".")
    return {"verdict": verdict, "result": head, "checks": found, "reference": inversion.name, "candidates": candidates,
            "variants": variants}


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


def headline_set(candidates: pd.DataFrame) -> tuple[str, tuple[str, ...], dict[str, tuple[str, ...]], list[tuple[str, str, str]]]:
    """The benchmark set the headline measures: (its label, its benchmarks, its references — family → the benchmarks
    rule v2 makes it eligible on —, the sets passed over with why).

    The headline set is the paper-like one; where rule v2 gives it no reference, the next set that has one is
    measured in its place and the words say why (never silently). FitError when no set has a reference.
    """
    missing: list[tuple[str, str, str]] = []
    for name, (label, benchmarks) in capability.SETS.items():
        found = references.references_of(candidates, benchmarks, references.MIN_SET_BENCHMARKS)
        if found:
            return label, benchmarks, found, missing
        missing.append((name, label, capability._why_none(candidates, benchmarks)))
    raise FitError("no family passes rule v2 on two benchmarks of any benchmark set; the candidate table "
                   "(rule='v2') says why each fails")


@side_jobs.reaped  # an error, Ctrl-C or SIGTERM ends the side worker at once
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
) -> TrendMeasurement:
    """A :class:`TrendMeasurement`: the Densing Law by capability on a tidy target table (module docstring): the headline on the paper-like set,
    one row per benchmark and per set, rule v1's verdict beside it. The defaults are the CLI's.

    ``fit`` replaces the headline's references by one fit (inverted per benchmark at ``d0``, default its own D0);
    the rows per benchmark still use rule v2's references.
    """
    validate(TREND_CONSTRAINTS, n_boot=n_boot, n_boot_side=n_boot_side, seed=seed, d0=d0)  # before any worker starts
    targets = with_stderr(targets)  # once: every trend_targets call below then finds nothing to fill
    composed = composed_fits(fits_dir)
    candidates = references.candidate_table(targets, since=since, composed=composed, rule="v2")
    fits = references.eligible_fits(targets, candidates, seed=seed)
    label, benchmarks = capability.SETS[capability.HEADLINE_SET]
    missing: list[tuple[str, str, str]] = []  # sets before the measured one that rule v2 gives no reference
    side_list: list = [("row", b, b, capability.CAPABILITY[b], (b,)) for b in capability.ROW_BENCHMARKS
                       if b in set(targets["benchmark"].astype(str))]
    side_list += [("row", name, lab, "set", bench) for name, (lab, bench) in capability.SETS.items()]
    side_list.append(("v1",))
    args = dict(since=since, epoch=epoch, n_boot=n_boot_side, seed=seed, v1_composed=composed)
    pending = side_jobs.start(_side_batch, side_list, targets, candidates, fits, args)
    if fit is not None:
        inversion = PerBenchmark(fit, fit.d0 if d0 is None else float(d0))
        rows, _ = trend_targets(targets, inversion, since=since, epoch=epoch)
        members = [(inversion, rows)]
        reference_rule = "given by the user (--fit); rule v2's references are in the rows per benchmark"
        label = f"benchmark(s) of the given fit ({', '.join(inversion.benchmarks)})"
    else:
        try:
            label, benchmarks, found, missing = headline_set(candidates)
        except FitError:
            side_jobs.cancel(pending)
            raise
        members = capability.ordered_members(targets, candidates, fits, found, since=since, epoch=epoch, joint=True)
        reference_rule = (f"rule v2 (date-blind): every family eligible on at least {references.MIN_SET_BENCHMARKS} of "
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
                raise
            rule_errors[rule] = str(exc)
    head = found_rules[HEADLINE_RULE]
    found_checks = _member_checks(members, found_rules)
    side = side_jobs.finish(pending, _side_batch, side_list, targets, candidates, fits, args)
    lead_inversion, lead_models = members[0]
    rows = [side[job[1]] for job in side_list if job[0] == "row" and len(job[4]) == 1]
    sets = [side[job[1]] for job in side_list if job[0] == "row" and len(job[4]) > 1]
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
            rows_d0, _ = trend_targets(targets, variant, since=since, epoch=epoch)
            y, kind = point_densities(rows_d0, variant)
            slope = rules.frontier_line(HEADLINE_RULE, rows_d0["t"].to_numpy(float), y, kind, rows_d0["model"].astype(str).to_numpy())[0]
            extra.append({"reference": variant.name, "inversion": f"D0 {format_count(value)}", "d0": value,
                          "doubling_time_months": doubling_days(slope) / DAYS_PER_MONTH, "ci_low": math.nan, "ci_high": math.nan})
        sensitivity = pd.concat([sensitivity, pd.DataFrame(extra)], ignore_index=True)
        found_checks = tuple(c for c in found_checks if c.name != "sensitivity") + (
            checks.sensitivity(sensitivity["doubling_time_months"], sensitivity["reference"]),)
    breakpoint = _breakpoint(targets, members, head, epoch, n_boot_side, seed)
    gates = [c for c in found_checks if c.status != checks.REPORTED]
    failed = [c for c in gates if c.failed]
    untestable = [c for c in gates if c.status == checks.UNTESTABLE]
    level = f"{head.level:.0%}"
    refs = ", ".join(name.split(":")[0] for name in head.reference_names)
    carried = ("the reference fit, each score's standard error, the sampling of models"
               + (f" and the choice among {len(members)} references" if len(members) > 1 else ""))
    if missing:
        name, missing_label, reason = missing[0]
        shown = (f"{_months(head.doubling_time_months)} months, {level} CI {_months(head.doubling_time_months_ci_low)}–"
                 f"{_months(head.doubling_time_months_ci_high)}, " + ("every check passed" if not failed else
                 f"not a measurement either: {', '.join(c.name for c in failed)} fail{'s' if len(failed) == 1 else ''}"))
        verdict = (f"Doubling time not measured on the {missing_label}: {reason}. On the {label}: {shown}; "
                   f"the paper reports {PAPER['doubling_time_months']} months.")
        why = (" ".join(plain_reason(c, sensitivity) for c in failed)
               + f" The {label} uses {head.n_models} models released since {since or 'any date'} against {refs}; the "
                 "per-benchmark rows below give each benchmark's own doubling time.")
        failed = failed or [None]  # the headline set itself is not measured
    elif failed:
        verdict = (f"Doubling time not measured on the {label}: {len(failed)} of {len(gates)} validity checks fail "
                   f"(estimate {_months(head.doubling_time_months)} months, {level} CI {_months(head.doubling_time_months_ci_low)}–"
                   f"{_months(head.doubling_time_months_ci_high)}; the paper reports {PAPER['doubling_time_months']} months).")
        why = (" ".join(plain_reason(c, sensitivity) for c in failed)
               + f" The estimate uses {head.n_models} models released since {since or 'any date'} against {refs}; "
                 "it is shown, labelled, and is not a measurement.")
    else:
        verdict = (f"Capacity density doubles every {_months(head.doubling_time_months)} months on the {label} "
                   f"({level} CI {_months(head.doubling_time_months_ci_low)}–{_months(head.doubling_time_months_ci_high)}); "
                   f"the paper reports {PAPER['doubling_time_months']} months.")
        why = (f"Every check passed{' but ' + ', '.join(c.name for c in untestable) + ' (untestable)' if untestable else ''}: "
               f"{head.n_models} models released since {since or 'any date'}, against {refs} "
               f"(each family at its own budget); the interval carries {carried}.")
    densities = density_table(lead_models, lead_inversion, seed=seed)
    return TrendMeasurement(
        reference=" | ".join(head.reference_names) + (" (given)" if fit is not None else ""), reference_rule=reference_rule, d0=lead_inversion.d0,
        headline_rule=HEADLINE_RULE, measurable=not failed, headline=f"{verdict} {why}", verdict=verdict, why=why,
        rules=found_rules, rule_errors=rule_errors, checks=found_checks, sensitivity=sensitivity, breakpoint=breakpoint,
        candidates=candidates, references=_reference_frame(members, head), inversions={},
        densities=densities,
        models=lead_models.assign(**dict(zip(("log_density", "bound"), point_densities(lead_models, lead_inversion)))),
        left_out=trend_targets(targets, lead_inversion, since=since, epoch=epoch)[1], fits=tuple(lead_inversion.fits),
        inversion=lead_inversion, headline_set=label, benchmark_rows=tuple(rows), set_rows=tuple(sets),
        rule_v1=v1["verdict"], rule_v1_detail=v1,
    )


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


def main(argv: list[str] | None = None) -> int:
    """Regenerate the shipped candidate table, rule v2 and rule v1 (step 1 of the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m densing.trend.measure", description=main.__doc__)
    parser.add_argument("--results", default=str(paths.RESULTS / "public_models.csv"))
    parser.add_argument("--fits-dir", default=str(paths.REFERENCE_FITS))
    parser.add_argument("--since", default=DEFAULT_EPOCH)
    args = parser.parse_args(argv)
    from densing.data import read_results
    from densing.io import atomic_write_text

    try:
        targets, composed = with_stderr(read_results(args.results)), composed_fits(args.fits_dir)
        # rule v2 (the references of every row) first, rule v1 (the labelled variant) after it; the rule column says which
        table = pd.concat([references.candidate_table(targets, since=args.since, composed=composed, rule=rule)
                           for rule in ("v2", "v1")], ignore_index=True)
    except DensingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.fits_dir) / CANDIDATES_FILE
    atomic_write_text(out, table.to_csv(index=False, float_format="%.6g"))
    print(references.eligible_families(table[table["rule"] == "v2"]).drop(columns="headline").to_string(index=False))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
