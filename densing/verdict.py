"""The trend's words, in one place: a row's status, what its draws determine, the verdict a researcher can cite and
the sentences after it, each check's reason in plain words, and the summaries of the trend's results. Every function
reads a result's numbers and states (:class:`densing.trend.uncertainty.TrendUncertainty`,
:class:`densing.trend.measurement.TrendMeasurement`, a :class:`densing.trend.checks.Check`) and writes words; nothing
here computes a number the result does not hold."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from densing.constants import (
    BOUNDED,
    CEILING_STDERRS,
    END_STABILITY,
    HETEROGENEITY_ALPHA,
    MAX_SENSITIVITY_RATIO,
    MEASURED,
    NOT_MEASURED,
    PAPER,
    REPORTED,
    SIZE_SLOPE_MARGIN,
)
from densing.numbers import format_count, format_months, format_number

if TYPE_CHECKING:
    from densing.present.summary import Summary


def heterogeneity_words(result) -> str:
    """The heterogeneity test of a :class:`~densing.trend.uncertainty.TrendUncertainty` in one clause: Q, its degrees of
    freedom and p-value, I², and τ as a factor on the doubling time's slope per year."""
    if result.heterogeneity_df == 0:
        return "one reference: heterogeneity not testable"
    tau = math.sqrt(max(result.tau_squared, 0.0)) * 365.25
    return (f"Q = {format_number(result.heterogeneity_q)} on {result.heterogeneity_df} df, "
            f"p = {format_number(result.heterogeneity_p)}, "
            f"I² = {result.i_squared:.0%}, τ = {format_number(tau)} in ln ρ per year")


def row_state(result) -> str:
    """A row's state (:mod:`densing.trend.pooling`, step 6) from its numbers: *not measured* when the heterogeneity
    test rejects one common slope or neither end of the interval is determined, *measured* when both are, *bounded*
    when one is."""
    if result.heterogeneity_df > 0 and result.heterogeneity_p < HETEROGENEITY_ALPHA:
        return NOT_MEASURED
    low, high = result.low_determined, result.high_determined
    return MEASURED if low and high else BOUNDED if low or high else NOT_MEASURED


def fold(ratio: float) -> str:
    """How wide a measured interval is, from its ratio high/low (months high over months low): "2.3-fold"."""
    return f"{format_number(ratio, '.2g') if ratio < 100 else format_number(ratio, '.0f')}-fold"


def _fold_of(result) -> str:
    return fold(result.doubling_time_months_ci_high / result.doubling_time_months_ci_low)


def _open_why(result, end: str) -> str:
    """Why an end is not determined (step 5): undecided at the draws used, or its interval reaches a zero slope."""
    if getattr(result, f"{end}_undecided", False):
        return f"undecided at {result.n_boot:,} draws"
    return "its interval reaches a zero slope"


def status_words(result) -> str:
    """A row's one status (module docstring, step 6) from its :class:`~densing.trend.uncertainty.TrendUncertainty`:
    "measured, 2.3-fold" (both ends of the interval determined, and the interval's ratio high/low), "bounded: " and
    which end is not determined and why (its interval reaches a zero slope, or undecided at the draws used), or
    "not measured: " and every reason — the heterogeneity test (the one gate: saturation, conditioning and size
    confounding fire in more than 10% of the planted worlds where the estimate is right,
    studies/gate_calibration.results.txt, so they are findings shown beside the number) rejects one common slope, or
    neither end of the interval is determined."""
    reasons = []
    if result.heterogeneity_df > 0 and result.heterogeneity_p < HETEROGENEITY_ALPHA:
        own = ", ".join(f"{name.split(':')[0]} {_m(m)}" for name, m in result.reference_months.items())
        reasons.append(f"its references disagree beyond their shared uncertainty (Q = {format_number(result.heterogeneity_q)} "
                       f"on {result.heterogeneity_df} df, p = {format_number(result.heterogeneity_p)}; {own} months)")
    low, high = result.low_determined, result.high_determined
    if not (low or high):
        reasons.append(f"neither end of its interval is determined ({_open_why(result, 'low' if result.low_undecided else 'high')})")
    if reasons:
        return f"{NOT_MEASURED}: " + "; ".join(reasons)
    if low and high:
        return f"{MEASURED}, {_fold_of(result)}"
    if low:
        return f"{BOUNDED}: the upper end is not determined ({_open_why(result, 'high')})"
    return f"{BOUNDED}: the lower end is not determined ({_open_why(result, 'low')})"


def _m(months: float) -> str:
    return format_months(months) if math.isfinite(months) else "∞"


def precision_words(result, end: str) -> str:
    """A determined end's Monte Carlo range where it spans more than :data:`~densing.constants.END_STABILITY` of the
    end (step 5: a precision, never hidden), " (Monte Carlo range 9.2–16.8)"; "" otherwise."""
    value = result.doubling_time_months_ci_low if end == "low" else result.doubling_time_months_ci_high
    a, b = getattr(result, f"months_{end}_mc_low"), getattr(result, f"months_{end}_mc_high")
    if not getattr(result, f"{end}_determined") or not b - a > END_STABILITY * value:
        return ""
    return f" (Monte Carlo range {_m(a)}–{_m(b)})"


def ranges_words(result) -> str:
    """Every determined end's wide Monte Carlo range (:func:`precision_words`) named by its end: "the upper end's
    Monte Carlo range 18.8–31.6 months"; "" where none is wide."""
    return "; ".join(f"the {'lower' if end == 'low' else 'upper'} end's Monte Carlo range"
                     f"{precision_words(result, end)[len(' (Monte Carlo range'):-1]} months"
                     for end in ("low", "high") if precision_words(result, end))


def determined_words(result) -> str:
    """What the draws determine, in words: "3.61 months [95% CI 2.59–5.1]" (both ends), "3.61 months, at least 2.59
    at 95%; the upper end not determined" (one), or the estimate and its interval, "neither end determined"; a
    determined end with a wide Monte Carlo range carries it (:func:`precision_words`)."""
    est, low, high = result.doubling_time_months, result.doubling_time_months_ci_low, result.doubling_time_months_ci_high
    level = f"{result.level:.0%}"
    lo, hi = precision_words(result, "low"), precision_words(result, "high")
    if result.low_determined and result.high_determined:
        return f"{_m(est)} months [{level} CI {_m(low)}{lo}–{_m(high)}{hi}]"
    if result.low_determined:
        return f"{_m(est)} months, at least {_m(low)}{lo} at {level}; the upper end not determined"
    if result.high_determined:
        return f"{_m(est)} months, at most {_m(high)}{hi} at {level}; the lower end not determined"
    return f"{_m(est)} months [{level} CI {_m(low)}–{_m(high)}]; neither end determined"


def summary_items(result) -> list[tuple[str, object]]:
    """The first lines of a result's ``summary()``: its state, what is determined, the largest leave-one-family-out
    move (every family: ``influence_frame()``)."""
    items = [("state", result.state or "not judged"), ("doubling time", determined_words(result))]
    top = result.largest_influence()
    if top is not None:
        items.append(("leave one family out", f"without {top.family} ({int(top.n_models)} models): "
                      f"{float(top.doubling_time_months):.3g} months (the largest move; every family: influence_frame())"))
    return items


def why_words(head, failed: list, untestable: list, sensitivity, missing: list, *, since,
         refs: str, reference_rule: str, gates_and_findings: tuple = ()) -> str:
    """The sentences after the verdict: why not measured (or every check passed), the targets, what the interval carries."""
    carried = ("the reference fit, each score's standard error, the sampling of families (a family-cluster bootstrap)"
               + (f" and the spread among {head.n_references} references (τ)" if head.n_references > 1 else ""))
    # the findings that fire (densing.trend.capability.calibrated); saturation's effect on the estimate: ceiling_words
    fired = [c for c in gates_and_findings if c.status == REPORTED and c.detail.startswith("fires: ")]
    why = (" ".join(plain_reason(c, sensitivity) for c in failed)
           + (f" The gate (the references' heterogeneity) passed{' but ' + ', '.join(c.name for c in untestable) + ' (untestable)' if untestable else ''}."
              if not failed else "")
           + (" Findings beside the number, not gates (they fire in more than 10% of planted worlds where the "
              "estimate is right): " + " ".join(plain_reason(c, sensitivity) for c in fired) if fired else "")
           + ceiling_words(head) + open_end_words(head)
           + f" {head.n_models} models released since {since or 'any date'} with every score of the set, against {refs} "
             f"(each family at its own budget; {heterogeneity_words(head)}); the interval carries {carried}. "
             f"References by {reference_rule}.")
    if missing:
        why = " ".join(f"The {lab} has no reference: {reason}." for _, lab, reason in missing) + " " + why
    return why.strip()


def open_end_words(head) -> str:
    """What opens the upper end, with its numbers: the draws with no rising line, the family all or most of them
    lack and the family most of them hold, each beside its share of all draws (the family-cluster resample)."""
    if not head.open_families:
        return ""
    n_open, n_draws, (lacked, lack_open, lack_all), (held, hold_open, hold_all) = head.open_families
    return (f" What opens the upper end: {n_open} of {n_draws} draws ({100 * n_open / n_draws:.1f}%) have no rising "
            f"line; {100 * lack_open:.0f}% of them lack {lacked} (of all draws {100 * lack_all:.0f}%) and "
            f"{100 * hold_open:.0f}% hold {held} (of all draws {100 * hold_all:.0f}%).")


def ceiling_words(head) -> str:
    """The ceiling finding as its effect on the estimate: how many targets enter the frontier fit as lower bounds
    under each reference (a score within 2 standard errors of the reference's ceiling), and the estimate without
    them."""
    bounds = sum(head.ceiling_bounds)
    if not bounds:
        return ""
    each = ", ".join(f"{name.split(':')[0]} {count}" for name, count in zip(head.reference_names, head.ceiling_bounds))
    return (f" {bounds} target inversions sit within {CEILING_STDERRS:g} standard errors of a reference's ceiling "
            f"({each}) and enter the frontier fit as lower bounds: {format_months(head.doubling_time_months)} months "
            f"with them, {format_months(head.months_without_ceilings)} months without.")


def headline_verdict(head, label: str, refs: str, status: str, *, table_words: str,
                     missing: list | None = None) -> str:
    """The first sentence a researcher can cite, by the row's state (:func:`status_words`): the
    estimate and its determined ends first — *measured* (a two-sided interval), *bounded* (one determined end: "at
    least 2.6 months at 95%; the upper end is not determined"), *not measured* (why, the estimate labelled) — then
    the benchmarks, table and references, the family whose removal moves the estimate most where it matters, and the
    paper's figure."""
    paper = PAPER["doubling_time_months"]
    est = format_months(head.doubling_time_months)
    low, high = head.doubling_time_months_ci_low, head.doubling_time_months_ci_high
    interval = f"95% CI {format_months(low)}–{format_months(high)}"
    where = f"on the {label} of {table_words}, against {refs}"
    state = row_state(head)
    if missing:
        return (f"Doubling time not measured on the {missing[0][1]}: {missing[0][2]}. On the {label} of {table_words}, "
                f"against {refs}: {est} months ({interval}), {status}; the paper reports {paper} months.")
    if state == MEASURED:
        inside = "inside" if low <= paper <= high else "outside"
        ranges = ranges_words(head)
        return (f"Capacity density doubles every {est} months ({interval}, {_fold_of(head)}"
                f"{'; ' + ranges if ranges else ''}) {where}; the paper's {paper} months lies {inside} the interval."
                + _influence_words(head, always=False))
    if state == BOUNDED:
        if head.low_determined:
            beyond = head.months_high_mc_low
            open_end = ("the upper end is not determined"
                        + (f" (beyond {format_months(beyond)} months; {_open_why(head, 'high')})" if math.isfinite(beyond)
                           else " (the draws reach a zero slope)"))
            ends = f"at least {format_months(low)}{precision_words(head, 'low')} months at 95%; {open_end}"
        else:
            ends = (f"at most {format_months(high)}{precision_words(head, 'high')} months at 95%; the lower end is not "
                    "determined")
        return (f"Capacity density doubles every {est} months {where}: {ends}." + _influence_words(head, always=True)
                + f" The paper reports {paper} months.")
    return (f"Doubling time not measured {where}: {status.removeprefix('not measured: ')}. The estimate, {est} months "
            f"({interval}), is not a measurement; the paper reports {paper} months." + _influence_words(head, always=False))


def _influence_words(head, *, always: bool) -> str:
    """The family whose removal moves the estimate most: named when that moves it beyond an end of the interval, or
    (``always``) as the reason an end is open."""
    top = head.largest_influence()
    if top is None:
        return _model_words(head)
    months = float(top.doubling_time_months)
    low, high = head.doubling_time_months_ci_low, head.doubling_time_months_ci_high
    beyond = not (low <= months <= high)
    if not (beyond or always):
        return _model_words(head)
    shown = (f"the estimate is {format_months(months)} months" if math.isfinite(months) else
             "the frontier line no longer rises (no doubling time)")
    words = ", beyond the interval" if beyond else ", the largest move of any family"
    return (f" Leave one family out: without {top.family} ({int(top.n_models)} models) {shown}{words} "
            "(every family: --format json)." + _model_words(head))


def _model_words(head) -> str:
    """The one target whose removal moves the estimate beyond the interval (a date or a score that carries the line
    alone), named; "" where no single model does."""
    months, model = head.months_without_model, head.most_influential_model
    low, high = head.doubling_time_months_ci_low, head.doubling_time_months_ci_high
    if not model or low <= months <= high:
        return ""
    shown = f"{format_months(months)} months" if math.isfinite(months) else "no rising line"
    return f" One model carries the line: without {model} the estimate is {shown}, beyond the interval."


def plain_reason(check, sensitivity) -> str:
    """One plain sentence for a failed check (the check's own ``detail`` keeps the numbers in full)."""
    if check.name == "size_dependence":
        return (f"Within a family, larger models come out denser (ln ρ rises {check.value:+.2f} per unit of ln N; the rule "
                f"needs a slope shown to lie within ±{SIZE_SLOPE_MARGIN:g}), so the reference's shape in N does not "
                "match the targets' and density mixes size with release date.")
    if check.name == "sensitivity":
        values = sensitivity["doubling_time_months"].to_numpy(float)
        finite = values[np.isfinite(values)]
        spread = f"from {finite.min():.1f} to {finite.max():.1f} months" if finite.size else "none finite"
        return (f"The eligible references and inversions disagree: their doubling times run {spread}, more than the factor "
                f"{MAX_SENSITIVITY_RATIO:g} the rule allows.")
    if check.name == "heterogeneity":
        return (f"The references' own doubling times differ beyond their shared uncertainty on the same targets and "
                f"benchmarks ({check.detail}), so the row has no one doubling time.")
    if check.name == "size_confounding":
        return (f"At a fixed release date, ln ρ changes {check.value:+.2f} per unit of ln N, beyond noise and beyond the "
                f"±{SIZE_SLOPE_MARGIN:g} the rule allows, so the targets' size mix confounds the trend.")
    if check.name == "saturation":
        return "Frontier models score at the highest score the reference can express, so their densities are set by that cap."
    if check.name == "conditioning":
        return f"One standard error of a frontier model's score moves its density {format_number(check.value, '.3g')}-fold (the rule allows 2)."
    return f"{check.name}: {check.detail}."


def breakpoint_words(bp) -> str:
    """A :class:`densing.trend.measurement.Breakpoint` in one line: each side's slope with its interval (or why it has
    none) beside the paper's."""
    def words(seg) -> str:
        if not math.isfinite(seg.slope_per_day):
            return f"not fitted ({seg.note})"
        same = ", the same models and interval as the headline" if seg.same_as_headline else ""
        return (f"{format_number(seg.slope_per_day)}/day (95% CI {format_number(seg.slope_ci_low)} to "
                f"{format_number(seg.slope_ci_high)}, {seg.n_models} models{same})")

    return (f"breakpoint {bp.date}: slope before {words(bp.before)}, after {words(bp.after)} "
            f"(paper: {bp.paper_before_per_day}/day → {bp.paper_after_per_day}/day)")


def measurement_summary(m) -> Summary:
    """A :class:`densing.trend.measurement.TrendMeasurement` as a reader sees it: the set, status, verdict, reference,
    D0 and rule, the headline rule's doubling time and interval, then the frontier rules side by side and the checks."""
    head = m.rules.get(m.headline_rule)
    items = [("benchmark set", m.headline_set), ("status", m.status), ("verdict", m.verdict),
             ("reference", m.reference), ("d0", m.d0), ("frontier rule", m.headline_rule)]
    if head is not None:
        items += [("what is determined", determined_words(head)), ("doubling time (months)", head.doubling_time_months),
                  (f"{head.level:.0%} interval (months)",
                   f"{format_number(head.doubling_time_months_ci_low)} to {format_number(head.doubling_time_months_ci_high)}"),
                  ("slope A (per day)", f"{format_number(head.slope_per_day)} ({head.level:.0%} interval "
                                        f"{format_number(head.slope_ci_low)} to {format_number(head.slope_ci_high)})"),
                  ("models", head.n_models)]
    checks = [(c.name, c.status, c.detail) for c in m.checks]
    from densing.present.summary import Summary, Table

    return Summary("TrendMeasurement", lines=(m.headline,), items=tuple(items),
                   tables=(Table.of(m.table(), f"doubling time (months) by frontier rule; reference {m.reference}, "
                                               f"D0 = {format_count(m.d0)} tokens"),
                           Table("validity checks", ("check", "result", "detail"), tuple(checks))))


def row_record(row) -> dict:
    """One row of the rows' table (``densing trend --by benchmark``, its CSV and JSON): a
    :class:`densing.trend.capability.Row`'s numbers, state and status, its heterogeneity test and each reference's
    doubling time in words, the family whose removal moves it most."""
    r = row.result
    own = r.reference_months if r is not None else {}
    top = r.largest_influence() if r is not None else None  # the family whose removal moves the estimate most

    def of(name: str, default=math.nan):
        return default if r is None else getattr(r, name)

    return {
        "row": row.name, "label": row.label, "capability": row.capability, "status": row.status,
        "benchmarks": ",".join(row.benchmarks), "chance": row.chance,
        "references": ", ".join(row.references), "n_references": len(row.references),
        "months": of("doubling_time_months"), "ci_low": of("doubling_time_months_ci_low"),
        "ci_high": of("doubling_time_months_ci_high"), "slope_per_day": of("slope_per_day"),
        "slope_ci_low": of("slope_ci_low"), "slope_ci_high": of("slope_ci_high"), "n_models": of("n_models", 0),
        "heterogeneity": heterogeneity_words(r) if r is not None else "",
        **{name: of(name) for name in ("heterogeneity_q", "heterogeneity_p", "i_squared", "share_fit", "share_score",
                                       "share_models", "share_reference")},
        "each_reference_months": "; ".join(
            f"{k.split(':')[0]} {_m(v)} [{_m(lo)}–{_m(hi)}]"
            for (k, v), lo, hi in zip(own.items(), r.reference_months_low or [math.nan] * len(own),
                                      r.reference_months_high or [math.nan] * len(own))) if r is not None else "",
        "state": r.state if r is not None and r.state else NOT_MEASURED,
        "low_determined": of("low_determined", False), "high_determined": of("high_determined", False),
        "ci_high_beyond": of("months_high_mc_low"), "n_draws": of("n_boot", 0),
        "precision": ranges_words(r) if r is not None else "",
        "n_ceiling_bounds": of("n_ceiling_bounds", 0),
        "months_without_ceilings": of("months_without_ceilings"),
        "most_influential_family": str(top.family) if top is not None else "",
        "months_without_it": float(top.doubling_time_months) if top is not None else math.nan,
        "error": row.error,
    }


def rows_frame(rows: list):
    """The rows as a table (``densing trend --by benchmark``): :func:`row_record` of each."""
    return pd.DataFrame([row_record(r) for r in rows])
