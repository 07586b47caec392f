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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from densing import paths
from densing.data.item_counts import binomial_stderr, item_counts
from densing.data.units import format_count
from densing.errors import DensingError, FitError, InputError
from densing.laws import references
from densing.laws.reference import ReferenceFit
from densing.numbers import format_number
from densing.results import Result
from densing.trend import checks, rules
from densing.trend.censored import EXACT
from densing.trend.constants import CHATGPT_RELEASE, DAYS_PER_MONTH, DEFAULT_EPOCH
from densing.trend.inversions import Joint, PerBenchmark, arrays, score_matrix
from densing.trend.lines import doubling_days, envelope_index
from densing.trend.scope import days_since, parse_epoch
from densing.trend.uncertainty import TrendUncertainty, carry_uncertainty

#: The paper's numbers (Xiao et al. 2024, §3 and Fig. 1/3), shown beside ours.
PAPER = {
    "doubling_time_months": 3.3,
    "slope_per_day": 0.0073,
    "r_squared": 0.91,
    "slope_before_chatgpt_per_day": 0.0048,
    "slope_after_chatgpt_per_day": 0.0073,
}
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
# targets


def with_stderr(targets: pd.DataFrame) -> pd.DataFrame:
    """Fill a missing score standard error with the binomial √(S(1 − S)/n), n the benchmark's item count."""
    if "stderr" in targets.columns and not targets["stderr"].isna().any():
        return targets  # nothing to fill (a table this function already filled, say): no copy
    out = targets.copy()
    if "stderr" not in out.columns:
        out["stderr"] = np.nan
    known = set(item_counts()["benchmark"])
    missing = out["stderr"].isna() & out["benchmark"].isin(known)
    for benchmark, rows in out[missing].groupby("benchmark"):
        out.loc[rows.index, "stderr"] = binomial_stderr(rows["value"].to_numpy(float), str(benchmark))
    return out


def reference_models(fit: ReferenceFit) -> set[str]:
    """The models whose points define ``fit`` and, for a family fit, every model of its family (never targets)."""
    names = {str(p[0]) for p in fit.points} | {str(p[0]) for p in (fit.loss_points or ())}
    names |= set(fit.provenance.get("members", ()))
    return names | {n.split("@")[0] for n in names}


def trend_targets(targets: pd.DataFrame, reference, *, since: str | None = DEFAULT_EPOCH,
                  until: str | None = None, epoch: str = DEFAULT_EPOCH) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per target model of an inversion (or a fit) and the left-out ones, with the reason.

    Rows: model, family, params, release_date, t and every benchmark's ``score:<b>``/``stderr:<b>``
    (plain ``score``/``stderr`` for one benchmark). The reference's own models — the points it
    was fitted on and, for a family reference, every model of the family — are never targets.
    """
    from densing.trend.uncertainty import as_inversion

    inversion = as_inversion(reference, None)
    rows = score_matrix(with_stderr(targets), inversion.benchmarks, inversion.fits[0].metric)
    if rows.empty:
        raise InputError(f"targets: no model has scores on {', '.join(inversion.benchmarks)} (metric {inversion.fits[0].metric!r})")
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
    no_error = np.column_stack([rows[f"stderr:{b}"].isna().to_numpy() for b in inversion.benchmarks]).any(axis=1)
    reasons[(reasons == "") & no_error] = "no standard error and no item count for its benchmark"
    kept = rows[reasons == ""].copy()
    kept["release_date"] = pd.to_datetime(kept["release_date"])
    kept["t"] = days_since(kept["release_date"].to_numpy("datetime64[ns]"), parse_epoch(epoch))
    left = rows[reasons != ""][["model"]].assign(reason=reasons[reasons != ""].to_numpy())
    return kept.reset_index(drop=True), left.reset_index(drop=True)


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


@dataclass(frozen=True)
class Segment(Result):
    """One side of the breakpoint: its slope with the full interval, or why it has none."""

    name: str
    n_models: int
    slope_per_day: float = math.nan
    intercept: float = math.nan
    slope_ci_low: float = math.nan
    slope_ci_high: float = math.nan
    note: str = ""
    same_as_headline: bool = False


@dataclass(frozen=True)
class Breakpoint(Result):
    """Slopes before and after ChatGPT's release (each its own full-uncertainty fit), beside the paper's."""

    date: str
    before: Segment
    after: Segment
    paper_before_per_day: float = 0.0048
    paper_after_per_day: float = 0.0073

    def line(self) -> str:
        def words(seg: Segment) -> str:
            if not math.isfinite(seg.slope_per_day):
                return f"not fitted ({seg.note})"
            same = ", the same models and interval as the headline" if seg.same_as_headline else ""
            return (f"{seg.slope_per_day:.4f}/day (95% CI {seg.slope_ci_low:.4f} to {seg.slope_ci_high:.4f}, "
                    f"{seg.n_models} models{same})")

        return (f"breakpoint {self.date}: slope before {words(self.before)}, after {words(self.after)} "
                f"(paper: {self.paper_before_per_day}/day → {self.paper_after_per_day}/day)")


@dataclass(frozen=True)
class InversionTrend:
    """One inversion of one reference: its trend (headline rule), checks, and targets."""

    name: str
    family: str
    kind: str               # joint | per-benchmark
    benchmarks: tuple[str, ...]
    d0: float
    result: TrendUncertainty | None
    error: str
    checks: tuple[checks.Check, ...]
    models: pd.DataFrame = field(repr=False)

    def row(self) -> dict:
        r = self.result
        out = {"reference": self.name, "family": self.family, "inversion": self.kind, "d0": self.d0,
               "months": r.doubling_time_months if r else math.nan,
               "ci_low": r.doubling_time_months_ci_low if r else math.nan,
               "ci_high": r.doubling_time_months_ci_high if r else math.nan,
               "slope_per_day": r.slope_per_day if r else math.nan, "n_models": r.n_models if r else len(self.models),
               "error": self.error}
        for c in self.checks:
            out[c.name] = c.status
        return out


@dataclass(frozen=True)
class TrendMeasurement:
    reference: str
    reference_rule: str
    d0: float
    headline_rule: str
    measurable: bool
    headline: str
    verdict: str
    why: str
    rules: dict[str, TrendUncertainty]
    rule_errors: dict[str, str]
    checks: tuple[checks.Check, ...]
    sensitivity: pd.DataFrame
    breakpoint: Breakpoint
    candidates: pd.DataFrame
    references: pd.DataFrame
    inversions: dict[str, InversionTrend] = field(repr=False)
    densities: pd.DataFrame = field(repr=False)
    models: pd.DataFrame = field(repr=False)
    left_out: pd.DataFrame = field(repr=False)
    fits: tuple[ReferenceFit, ...] = field(repr=False)
    inversion: object = field(repr=False)

    @property
    def selection(self) -> pd.DataFrame:
        """The candidate table (kept under its old name)."""
        return self.candidates

    @property
    def fit(self) -> ReferenceFit:
        """The headline reference's first fit (all of them: :attr:`fits`)."""
        return self.fits[0]

    def rows(self) -> list[dict]:
        """One JSON-ready row per frontier rule: the interval, its sources, bounds used, checks."""
        out = []
        for rule, result in self.rules.items():
            out.append({"frontier": rule, "headline": rule == self.headline_rule, "reference": self.reference, "d0": self.d0,
                        **result.to_dict(), "measurable": self.measurable,
                        "checks": [c.to_dict() for c in self.checks], "paper": PAPER})
        return out

    def table(self) -> pd.DataFrame:
        """The rules side by side, in months, for a terminal."""
        frame = pd.DataFrame([{k: getattr(r, k) for k in r.__dataclass_fields__ if k not in ("draws", "models")} for r in self.rules.values()])
        keep = ["rule", "doubling_time_months", "doubling_time_months_ci_low", "doubling_time_months_ci_high",
                "n_models", "n_lower_bounds", "n_upper_bounds", "share_fit", "share_score", "share_models"]
        return frame[keep].rename(columns={"doubling_time_months": "months", "doubling_time_months_ci_low": "ci_low",
                                           "doubling_time_months_ci_high": "ci_high", "n_lower_bounds": "lower_bounds",
                                           "n_upper_bounds": "upper_bounds"})

    def checks_table(self) -> pd.DataFrame:
        return pd.DataFrame([{"check": c.name, "result": c.status, "detail": c.detail} for c in self.checks])

    def __repr__(self) -> str:
        head = self.rules.get(self.headline_rule)
        months = "not measured" if not self.measurable or head is None else (
            f"{head.doubling_time_months:.3g} months [{head.doubling_time_months_ci_low:.3g}, {head.doubling_time_months_ci_high:.3g}]")
        return (f"TrendMeasurement(reference {self.reference!r}, D0 = {self.d0:.3g}, {self.headline_rule}: {months}, "
                f"{sum(c.passed for c in self.checks)}/{len(self.checks)} checks passed)")

    def _repr_html_(self) -> str:
        from html import escape

        from densing import _html

        rules_table = self.table()
        found = [(c.name, c.status, c.detail) for c in self.checks]
        return (f"<p>{escape(self.headline)}</p>"
                + _html.table(list(rules_table.columns), rules_table.itertuples(index=False),
                              caption=f"doubling time (months) by frontier rule; reference {self.reference}, D0 = {self.d0:.3g}")
                + _html.table(["check", "result", "detail"], found, caption="validity checks"))

    def json_rows(self) -> list[dict]:
        """:meth:`rows`, each with the references, sensitivity and breakpoint (``densing trend --format json``)."""
        rows = self.rows()
        for row in rows:
            row["verdict"] = self.verdict
            row["why"] = self.why
            row["sensitivity"] = _records(self.sensitivity)
            row["references"] = _records(self.references)
            row["breakpoint"] = self.breakpoint.to_dict()
        return rows

    def breakpoint_line(self) -> str:
        return self.breakpoint.line()


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in r.items()} for r in frame.to_dict("records")]


def _frontier(models: pd.DataFrame, y: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """Indices of the envelope's record-setters among the models with a value or a bound."""
    usable = np.flatnonzero(np.isfinite(y) & np.isfinite(kind))
    return usable[envelope_index(models["t"].to_numpy(float)[usable], y[usable], models["model"].astype(str).to_numpy()[usable])]


def point_densities(models: pd.DataFrame, inversion) -> tuple[np.ndarray, np.ndarray]:
    """ln ρ (or its bound) and its kind for every model under the inversion's point parameters."""
    scores, stderr = arrays(models, inversion.benchmarks)
    return inversion.point(scores, stderr, models["params"].to_numpy(float))


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


def plain_reason(check: checks.Check, sensitivity: pd.DataFrame) -> str:
    """One plain sentence for a failed check (the check's own ``detail`` keeps the numbers in full)."""
    if check.name == "size_dependence":
        return (f"Within a family, larger models come out denser (ln ρ rises {check.value:+.2f} per unit of ln N; the rule "
                f"needs a slope shown to lie within ±{checks.SIZE_SLOPE_MARGIN:g}), so the reference's shape in N does not "
                "match the targets' and density mixes size with release date.")
    if check.name == "sensitivity":
        values = sensitivity["doubling_time_months"].to_numpy(float)
        finite = values[np.isfinite(values)]
        spread = f"from {finite.min():.1f} to {finite.max():.1f} months" if finite.size else "none finite"
        return (f"The eligible references and inversions disagree: their doubling times run {spread}, more than the factor "
                f"{checks.MAX_SENSITIVITY_RATIO:g} the rule allows.")
    if check.name == "saturation":
        return "Frontier models score at the highest score the reference can express, so their densities are set by that cap."
    if check.name == "conditioning":
        return f"One standard error of a frontier model's score moves its density {checks._g(check.value)}-fold (the rule allows 2)."
    return f"{check.name}: {check.detail}."


def _start_side_jobs(jobs: list, targets: pd.DataFrame, args: dict):
    """The side inversions in one forked worker process while this one measures the headline (two
    cores: the report's wall time drops by their share); None where fork is missing, one core, or one job."""
    import os

    if len(jobs) < 2 or (os.cpu_count() or 1) < 2 or not hasattr(os, "fork") or os.environ.get("DENSING_SERIAL"):
        return None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
        return pool, pool.submit(_side_batch, jobs, targets, args)
    except (OSError, ValueError):
        return None


def _side_batch(jobs: list, targets: pd.DataFrame, args: dict) -> dict:
    return {name: _measure_inversion(name, other, targets, **args) for _, name, other in jobs}


def _finish_side_jobs(pending, jobs: list, targets: pd.DataFrame, args: dict) -> dict:
    """The side inversions' results: the worker's (the same seeds, so the same numbers), or computed here."""
    if pending is not None:
        pool, future = pending
        try:
            return future.result()
        except Exception:  # noqa: BLE001 — a worker that died (e.g. out of memory) costs time, not the result
            pass
        finally:
            pool.shutdown(wait=True)
    return _side_batch(jobs, targets, args)


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
    side_jobs = [(family, name, other) for family, fits in family_fits.items()
                 for name, other in inversions_of(fits, first_versions=True).items()
                 if not (fit is None and name == inversion.name)]
    side_args = dict(since=since, epoch=epoch, n_boot=n_boot_side, n_share=0, seed=seed)  # side shares: shown nowhere
    pending = _start_side_jobs(side_jobs, targets, side_args)
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
    computed = _finish_side_jobs(pending, side_jobs, targets, side_args)
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


def density_table(models: pd.DataFrame, inversion, *, seed: int = 0, level: float = 0.95, n_draws: int = 600) -> pd.DataFrame:
    """ρ of every target under the inversion with its interval (fit draws × score noise), and per benchmark beside it.

    For the joint inversion the score noise also carries the between-benchmark skill variance
    (sd √(σ² + S'(x̂)²·s²), :mod:`densing.laws.joint`; with ``skill="none"``, the first version: σ
    scaled by the model's Birge ratio where it exceeds 1), and the per-benchmark densities and the
    Birge ratio are columns.
    """
    scores, stderr = arrays(models, inversion.benchmarks)
    params = models["params"].to_numpy(float)
    y, kind = inversion.point(scores, stderr, params)
    rng = np.random.default_rng(seed)
    count = min(n_draws, inversion.n_draws)
    picks = rng.integers(inversion.n_draws, size=count)
    noise_sd = np.nan_to_num(stderr)
    extra = {}
    out = models[["model", "params", "release_date"] + [c for c in ("family",) if c in models.columns]].copy()
    if isinstance(inversion, Joint):
        solved = inversion.solve_point(scores, stderr)
        if inversion.skill == "none":
            scale = np.where(np.nan_to_num(solved.birge_ratio) > 1, np.nan_to_num(solved.birge_ratio), 1.0)
            noise_sd = noise_sd * scale[:, None]
        else:
            noise_sd = np.sqrt(np.square(noise_sd) + np.square(solved.slope) * solved.skill2)
        out["birge_ratio"] = solved.birge_ratio
        extra["weights"] = solved.weights  # the observed scores' weights, as the trend's draws use
        for fit in inversion.fits:
            out[f"density:{fit.benchmark}"] = fit.effective_params(models[f"score:{fit.benchmark}"].to_numpy(float)) / params
    noise = rng.standard_normal((count, *scores.shape)) * noise_sd[None]
    drawn_y, drawn_kind = inversion.draws(picks, scores[None] + noise, stderr, params, **extra)
    # a draw that lands on a bound says only "below" / "above" its value: it counts as −∞ / +∞, so an
    # interval end that falls among such draws is open (0 or ∞), never a NaN
    open_y = np.where(drawn_kind == EXACT, drawn_y, np.where(drawn_kind > 0, np.inf, -np.inf))
    low, high = np.quantile(open_y, [(1 - level) / 2, (1 + level) / 2], axis=0, method="inverted_cdf")
    out["density"] = np.exp(y)
    out["bound"] = np.where(kind == EXACT, "", np.where(kind > 0, "lower bound", np.where(kind < 0, "upper bound", "dropped")))
    out["density_ci_low"], out["density_ci_high"] = np.exp(low), np.exp(high)
    out["effective_params"] = np.exp(y) * params
    out["reference"] = inversion.name
    out["d0"] = inversion.d0
    return out.sort_values("density", ascending=False).reset_index(drop=True)


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
