"""The density trend as a measurement: family references chosen by rule, every uncertainty carried, checks.

:func:`measure_trend` is what ``densing trend`` and the report show:

1. **The references** follow the rule of :mod:`densing.laws.references` (written before any
   trend on them was computed): one family of one recipe that reaches the frontier, fitted per
   benchmark as S(N) at its own budget (:mod:`densing.laws.family`), eligible by R1–R5; the
   headline reference is the eligible family of lowest held-out error.
2. **The targets** are every dated model released since ``since`` except the reference family's
   own models; each score carries its standard error (the table's, else binomial from the
   benchmark's item count).
3. **The inversions**: per benchmark (the paper's) and joint over the family's eligible
   benchmarks (:mod:`densing.laws.joint`); the headline is the joint one.
4. **The headline rule** is the censored 0.9 regression quantile (:mod:`densing.trend.rules`); the
   paper's envelope and the Tobit mean line are shown beside it. Intervals carry fit, score and
   model-sampling uncertainty (:mod:`densing.trend.uncertainty`).
5. **Checks** (:mod:`densing.trend.checks`) per inversion: saturation, conditioning, size
   dependence; and sensitivity across every eligible reference's inversions. The doubling time is
   reported when no check of the headline inversion fails; otherwise the words say which failed.
"""
from __future__ import annotations

import argparse
import glob
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from densing import paths
from densing.data.units import format_count
from densing.errors import DensingError, FitError
from densing.laws import references
from densing.laws.reference import ReferenceFit
from densing.numbers import format_number
from densing.trend import checks, rules, side_jobs
from densing.trend.checks import plain_reason
from densing.trend.censored import EXACT
from densing.trend.constants import CHATGPT_RELEASE, DAYS_PER_MONTH, DEFAULT_EPOCH
from densing.trend.densities import density_table, point_densities
from densing.trend.inversions import Joint, PerBenchmark, arrays
from densing.trend.lines import doubling_days, envelope_index
from densing.trend.measurement import PAPER, Breakpoint, InversionTrend, Segment, TrendMeasurement
from densing.trend.targets import reference_models, trend_targets, with_stderr
from densing.trend.uncertainty import TrendUncertainty, carry_uncertainty

__all__ = [  # the measurement's parts, importable from here as before the split
    "PAPER", "Breakpoint", "InversionTrend", "Segment", "TrendMeasurement", "density_table", "plain_reason",
    "point_densities", "reference_models", "trend_targets", "with_stderr",
    "PAPER_ANCHORS", "COMPOSED_FITS", "CANDIDATES_FILE", "HEADLINE_RULE", "SENSITIVITY_D0", "NAMED_MODELS",
    "composed_fits", "inversions_of", "inversion_checks", "measure_trend", "main",
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
#: Models whose densities the measurement lists (the issue's and the paper's anchors).
NAMED_MODELS = (
    "huggyllama/llama-7b", "meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-13b-hf", "meta-llama/Llama-2-70b-hf",
    "mistralai/Mistral-7B-v0.1", "google/gemma-2-2b", "google/gemma-2-9b", "google/gemma-2-27b", "Qwen/Qwen2-7B",
    "meta-llama/Meta-Llama-3.1-8B", "meta-llama/Meta-Llama-3.1-70B", "meta-llama/Meta-Llama-3.1-405B-FP8",
)


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


def inversion_checks(models: pd.DataFrame, inversion) -> tuple[checks.Check, ...]:
    """Saturation and conditioning over the envelope's record-setters, and size dependence over every exact density."""
    y, kind = point_densities(models, inversion)
    front = models.iloc[_frontier(models, y, kind)]
    scores, stderr = arrays(front, inversion.benchmarks)
    cap = inversion.cap()
    top = scores.max(axis=1) if scores.size else np.empty(0)
    top_err = np.take_along_axis(stderr, scores.argmax(axis=1)[:, None], axis=1)[:, 0] if scores.size else np.empty(0)
    kappa = inversion.conditioning(scores, stderr) if len(front) else np.empty(0)
    sizes = models.assign(log_density=np.where(kind == EXACT, y, np.nan))[["family", "params", "log_density"]]
    return (
        checks.saturation(top, top_err, cap, front["model"].tolist()),
        checks.conditioning(kappa, front["model"].tolist()),
        checks.size_dependence(sizes),
    )


def _measure_inversion(name: str, inversion, targets: pd.DataFrame, *, since, epoch, n_boot: int, n_share: int,
                       seed: int, rule: str = HEADLINE_RULE) -> InversionTrend:
    models, _ = trend_targets(targets, inversion, since=since, epoch=epoch)
    family = str(inversion.fits[0].provenance.get("family", inversion.fits[0].provenance.get("families", "")))
    try:
        result, error = carry_uncertainty(models, inversion, rule=rule, n_boot=n_boot, n_boot_share=n_share, seed=seed), ""
    except DensingError as exc:
        result, error = None, str(exc)
    return InversionTrend(name=name, family=family, kind=inversion.kind, benchmarks=tuple(inversion.benchmarks),
                          d0=inversion.d0, result=result, error=error, checks=inversion_checks(models, inversion), models=models)


def _side_batch(jobs: list, targets: pd.DataFrame, args: dict) -> dict:
    """The side inversions' trends, by name (:mod:`densing.trend.side_jobs` runs this in its worker)."""
    return {name: _measure_inversion(name, other, targets, **args) for _, name, other in jobs}


def _months(value: float) -> str:
    """Months for the headline's words: 1 decimal, ∞ for an infinity (a slope interval reaching 0), — for NaN."""
    return format_number(value, ".1f")


def measure_trend(
    targets: pd.DataFrame,
    *,
    fits_dir: str | Path | None = None,
    fit: ReferenceFit | None = None,
    d0: float | None = None,
    since: str | None = DEFAULT_EPOCH,
    epoch: str = DEFAULT_EPOCH,
    n_boot: int = 1000,
    n_boot_side: int = 200,
    seed: int = 0,
) -> TrendMeasurement:
    """Steps 1–5 of the module docstring on a tidy target table.

    ``fit`` replaces the rule's headline reference by one fit (inverted per benchmark at ``d0``,
    default its own D0); the eligible references are still measured for the sensitivity check.
    """
    targets = with_stderr(targets)  # once: every trend_targets call below then finds nothing to fill
    candidates = references.candidate_table(targets, since=since, composed=composed_fits(fits_dir))
    eligible = references.eligible_families(candidates)
    family_fits = references.family_references(targets, candidates, seed=seed)
    if fit is not None:
        inversion = PerBenchmark(fit, fit.d0 if d0 is None else float(d0))
        reference_rule = "given by the user (--fit); the rule's references are in the candidate and sensitivity tables"
        head_fits = (fit,)
    elif len(eligible):
        family = str(eligible["family"].iloc[0])
        head_fits = family_fits[family]
        inversion = next(iter(inversions_of(head_fits).values()))
        reference_rule = ("chosen by the rule: the eligible family of lowest mean held-out error "
                          f"({eligible['mean_held_out_error'].iloc[0]:.1%} over {', '.join(eligible['benchmarks'].iloc[0])})")
    else:
        raise FitError("no candidate reference passes the eligibility rule (R1–R5 of densing.laws.references); "
                       "the candidate table says why each fails")
    models, left_out = trend_targets(targets, inversion, since=since, epoch=epoch)
    side_job_list = [(family, name, other) for family, fits in family_fits.items()
                 for name, other in inversions_of(fits, first_versions=True).items()
                 if not (fit is None and name == inversion.name)]
    side_args = dict(since=since, epoch=epoch, n_boot=n_boot_side, n_share=0, seed=seed)  # side shares: shown nowhere
    pending = side_jobs.start(_side_batch, side_job_list, targets, side_args)
    found_rules: dict[str, TrendUncertainty] = {}
    rule_errors: dict[str, str] = {}
    for rule in rules.RULES:
        try:
            found_rules[rule] = carry_uncertainty(
                models, inversion, rule=rule, n_boot=n_boot if rule == HEADLINE_RULE else n_boot_side,
                n_boot_share=n_boot_side // 2 if rule == HEADLINE_RULE else 25, seed=seed)
        except DensingError as exc:
            if rule == HEADLINE_RULE:
                raise
            rule_errors[rule] = str(exc)
    head = found_rules[HEADLINE_RULE]
    own = inversion_checks(models, inversion)
    computed = side_jobs.finish(pending, _side_batch, side_job_list, targets, side_args)
    side: dict[str, InversionTrend] = {}
    for family, fits in family_fits.items():
        for name, other in inversions_of(fits, first_versions=True).items():
            if fit is None and name == inversion.name:  # the headline itself: one computation, one interval
                side[name] = InversionTrend(name=name, family=family, kind=other.kind, benchmarks=tuple(other.benchmarks),
                                            d0=other.d0, result=head, error="", checks=own, models=models)
            else:
                side[name] = computed[name]
    sens_rows = [{"reference": t.name, "inversion": t.kind, "d0": t.d0,
                  "doubling_time_months": t.result.doubling_time_months if t.result else math.nan,
                  "ci_low": t.result.doubling_time_months_ci_low if t.result else math.nan,
                  "ci_high": t.result.doubling_time_months_ci_high if t.result else math.nan} for t in side.values()]
    if fit is not None and fit.has_data_term:
        for value in SENSITIVITY_D0:
            variant = PerBenchmark(fit, value)
            rows, _ = trend_targets(targets, variant, since=since, epoch=epoch)
            y, kind = point_densities(rows, variant)
            slope = rules.frontier_line(HEADLINE_RULE, rows["t"].to_numpy(float), y, kind, rows["model"].astype(str).to_numpy())[0]
            sens_rows.append({"reference": variant.name, "inversion": f"D0 {format_count(value)}", "d0": value,
                              "doubling_time_months": doubling_days(slope) / DAYS_PER_MONTH, "ci_low": math.nan, "ci_high": math.nan})
    sensitivity = pd.DataFrame(sens_rows, columns=["reference", "inversion", "d0", "doubling_time_months", "ci_low", "ci_high"])
    sens_check = checks.sensitivity(sensitivity["doubling_time_months"], sensitivity["reference"])
    found = (*own, sens_check)
    breakpoint = _breakpoint(targets, inversion, head, models, epoch, n_boot_side, seed)
    failed = [c for c in found if c.failed]
    untestable = [c for c in found if c.status == checks.UNTESTABLE]
    reference = inversion.name + ("" if fit is None else " (given)")
    level = f"{head.level:.0%}"
    if failed:
        verdict = (f"Doubling time not measured: {len(failed)} of {len(found)} validity checks fail "
                   f"(estimate {_months(head.doubling_time_months)} months, {level} CI {_months(head.doubling_time_months_ci_low)}–"
                   f"{_months(head.doubling_time_months_ci_high)}; the paper reports {PAPER['doubling_time_months']} months).")
        why = (" ".join(plain_reason(c, sensitivity) for c in failed)
               + f" The estimate uses {head.n_models} models released since {since or 'any date'} against {reference} at its "
                 f"own budget ({format_count(inversion.d0)} tokens); it is shown, labelled, and is not a measurement.")
    else:
        verdict = (f"Capacity density doubles every {_months(head.doubling_time_months)} months "
                   f"({level} CI {_months(head.doubling_time_months_ci_low)}–{_months(head.doubling_time_months_ci_high)}); "
                   f"the paper reports {PAPER['doubling_time_months']} months.")
        why = (f"Every check passed{' but ' + ', '.join(c.name for c in untestable) + ' (untestable)' if untestable else ''}: "
               f"{head.n_models} models released since {since or 'any date'}, measured against {reference} "
               f"at its own budget ({format_count(inversion.d0)} tokens); the interval carries the reference fit, each score's "
               f"standard error and the sampling of models.")
    densities = density_table(models, inversion, seed=seed)
    return TrendMeasurement(
        reference=reference, reference_rule=reference_rule, d0=inversion.d0, headline_rule=HEADLINE_RULE,
        measurable=not failed, headline=f"{verdict} {why}", verdict=verdict, why=why, rules=found_rules, rule_errors=rule_errors,
        checks=found, sensitivity=sensitivity, breakpoint=breakpoint, candidates=candidates,
        references=pd.DataFrame([t.row() for t in side.values()]), inversions=side, densities=densities,
        models=models.assign(**dict(zip(("log_density", "bound"), point_densities(models, inversion)))),
        left_out=left_out, fits=tuple(head_fits), inversion=inversion,
    )


def _breakpoint(targets: pd.DataFrame, inversion, head: TrendUncertainty, models: pd.DataFrame, epoch: str,
                n_boot: int, seed: int) -> Breakpoint:
    """Slopes before and after ChatGPT (each segment its own full-uncertainty fit); a segment whose models
    are the headline's shares the headline's computation (one interval per quantity)."""
    segments = {}
    for name, lo, hi in (("before", None, CHATGPT_RELEASE), ("after", CHATGPT_RELEASE, None)):
        rows, _ = trend_targets(targets, inversion, since=lo, until=hi, epoch=epoch)
        if set(rows["model"].astype(str)) == set(models["model"].astype(str)):
            segments[name] = Segment(name, head.n_models, head.slope_per_day, head.intercept, head.slope_ci_low,
                                     head.slope_ci_high, same_as_headline=True)
            continue
        try:
            r = carry_uncertainty(rows, inversion, rule=HEADLINE_RULE, n_boot=n_boot, n_boot_share=max(n_boot // 4, 25), seed=seed)
            segments[name] = Segment(name, r.n_models, r.slope_per_day, r.intercept, r.slope_ci_low, r.slope_ci_high)
        except DensingError as exc:
            segments[name] = Segment(name, len(rows), note=str(exc))
    return Breakpoint(CHATGPT_RELEASE, segments["before"], segments["after"],
                      PAPER["slope_before_chatgpt_per_day"], PAPER["slope_after_chatgpt_per_day"])


def main(argv: list[str] | None = None) -> int:
    """Regenerate the shipped candidate table (step 1 of the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m densing.trend.measure", description=main.__doc__)
    parser.add_argument("--results", default=str(paths.RESULTS / "public_models.csv"))
    parser.add_argument("--fits-dir", default=str(paths.REFERENCE_FITS))
    parser.add_argument("--since", default=DEFAULT_EPOCH)
    args = parser.parse_args(argv)
    from densing.data import read_results
    from densing.io import atomic_write_text

    try:
        table = references.candidate_table(with_stderr(read_results(args.results)), since=args.since,
                                           composed=composed_fits(args.fits_dir))
    except DensingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.fits_dir) / CANDIDATES_FILE
    atomic_write_text(out, table.to_csv(index=False, float_format="%.6g"))
    print(references.eligible_families(table).to_string(index=False))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
