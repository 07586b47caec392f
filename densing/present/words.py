"""The trend's words, in one place: a state's words, a row's status, what its draws determine, the verdict a
researcher can cite and the sentences after it, each check's reason in plain words, and the summaries of the trend's
results. Every function reads a result's numbers, its :class:`~densing.states.State` and its reasons
(:mod:`densing.states`; :class:`densing.trend.uncertainty.TrendUncertainty`,
:class:`densing.trend.measurement.TrendMeasurement`, a :class:`densing.trend.checks.Check`) and writes words; nothing
here computes a number the result does not hold, and nothing anywhere reads a state back out of these words."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from densing.constants import (
    CEILING_STDERRS,
    END_STABILITY,
    MAX_SENSITIVITY_RATIO,
    PAPER,
    REPORTED,
    SIZE_SLOPE_MARGIN,
    UNTESTABLE,
)
from densing.numbers import format_count, format_months, format_number, frame_records, json_number
from densing.states import (
    EndOpen,
    NoFamilyPasses,
    NoFamilyScored,
    ReferencesDisagree,
    State,
    family_of,
    reasons_of,
    state_of,
)

if TYPE_CHECKING:
    from densing.present.summary import Summary


def heterogeneity_words(result) -> str:
    """The heterogeneity test of a :class:`~densing.trend.uncertainty.TrendUncertainty` in one clause: Q, its degrees of
    freedom and p-value, I², and τ as a factor on the doubling time's slope per year."""
    return heterogeneity_text(result.heterogeneity_q, result.heterogeneity_df, result.heterogeneity_p, result.i_squared,
                          result.tau_squared)


def heterogeneity_text(q: float, df: int, p: float, i_squared: float, tau_squared: float) -> str:
    if df == 0:
        return "one reference: heterogeneity not testable"
    tau = math.sqrt(max(tau_squared, 0.0)) * 365.25
    return (f"Q = {format_number(q)} on {df} df, p = {format_number(p)}, "
            f"I² = {i_squared:.0%}, τ = {format_number(tau)} in ln ρ per year")


#: The words of each state: the only place they are written.
STATE_WORDS = {State.MEASURED: "measured", State.BOUNDED: "bounded", State.NOT_MEASURED: "not measured"}
#: What a row with no judged state reads.
NOT_JUDGED = "not judged"
#: A state's words → the state (a table's or a stored record's ``state`` value).
STATE_OF_WORDS = {words: state for state, words in STATE_WORDS.items()}
#: What each state adds where the report shows a number: beside a doubling time and its interval in a card, after a
#: stored record's cell, after the headline in the table beside the paper's, at the end of the density chart's checks
#: line, and in the density chart's caption.
CARD_LABELS = {State.MEASURED: "", State.BOUNDED: " (one end determined)", State.NOT_MEASURED: " (an estimate)"}
CELL_MARKS = {State.MEASURED: "", State.BOUNDED: " (bounded)", State.NOT_MEASURED: " (estimate)"}
PAPER_MARKS = {State.MEASURED: "", State.BOUNDED: " — bounded: one end of the interval is determined",
               State.NOT_MEASURED: " — not a measurement"}
LINE_NOTES = {State.MEASURED: "", State.BOUNDED: " — one end of the slope's interval is determined (bounded)",
              State.NOT_MEASURED: " — the line is an estimate, not a measurement"}
CAPTION_CLAUSES = {State.MEASURED: "",
                   State.BOUNDED: ", and the doubling time is bounded (one end of its interval is determined)",
                   State.NOT_MEASURED: ", and the doubling time is not measured"}


def state_words(state: State | None) -> str:
    """A state's words ("measured", "bounded", "not measured"); "" for no state (a trend whose state is not judged)."""
    return STATE_WORDS[state] if state is not None else ""


def not_measured(why: str = "") -> str:
    """"not measured: why" (or "not measured" with no reason): the status of a row with no doubling time."""
    return f"{STATE_WORDS[State.NOT_MEASURED]}: {why}" if why else STATE_WORDS[State.NOT_MEASURED]


def fold(ratio: float) -> str:
    """How wide a measured interval is, from its ratio high/low (months high over months low): "2.3-fold"."""
    return f"{format_number(ratio, '.2g') if ratio < 100 else format_number(ratio, '.0f')}-fold"


def _fold_of(result) -> str:
    return fold(result.doubling_time_months_ci_high / result.doubling_time_months_ci_low)


def _open_why(reason: EndOpen) -> str:
    """Why an end is not determined (step 5): undecided at the draws used, or its interval reaches a zero slope."""
    if reason.undecided:
        return f"undecided at {reason.n_draws:,} draws"
    return "its interval reaches a zero slope"


def _open_end(result, end: str) -> EndOpen:
    return next(r for r in reasons_of(result) if isinstance(r, EndOpen) and r.end == end)


def reason_words(reason, reasons: tuple = ()) -> str:
    """One reason (:mod:`densing.states`) in words: the references' disagreement with Q, its p-value and each
    reference's doubling time, or which end is not determined and why (``reasons``: every reason of the row, so that
    two open ends read as "neither end")."""
    if isinstance(reason, ReferencesDisagree):
        own = ", ".join(f"{family} {_m(m)}" for family, m in reason.reference_months)
        return (f"its references disagree beyond their shared uncertainty (Q = {format_number(reason.q)} "
                f"on {reason.df} df, p = {format_number(reason.p)}; {own} months)")
    ends = [r for r in reasons if isinstance(r, EndOpen)] or [reason]
    if len(ends) == 2:
        low, high = ends
        return f"neither end of its interval is determined ({_open_why(low if low.undecided else high)})"
    return f"the {'lower' if reason.end == 'low' else 'upper'} end is not determined ({_open_why(reason)})"


def status_words(result) -> str:
    """A row's one status (module docstring, step 6) from its state and reasons (:mod:`densing.states`):
    "measured, 2.3-fold" (both ends of the interval determined, and the interval's ratio high/low), "bounded: " and
    which end is not determined and why (its interval reaches a zero slope, or undecided at the draws used), or
    "not measured: " and every reason — the heterogeneity test (the one gate: saturation, conditioning and size
    confounding fire in more than 10% of the planted worlds where the estimate is right,
    studies/gate_calibration.results.txt, so they are findings shown beside the number) rejects one common slope, or
    neither end of the interval is determined; "" where no state is judged."""
    return joined(*status_parts(result))


def joined(head: str, reasons: tuple[str, ...]) -> str:
    """A status from its parts: ``head`` alone, or ``"head: reason; reason"``."""
    return f"{head}: {'; '.join(reasons)}" if reasons else head


def status_parts(result) -> tuple[str, tuple[str, ...]]:
    """A status as (head, reasons in words): ("measured, 2.3-fold", ()), ("bounded", (why,)), ("not measured",
    (why, …)); ("", ()) where no state is judged. The terminal numbers the reasons (:func:`short_statuses`)."""
    state = result.state
    if state is None:
        return "", ()
    if state is State.MEASURED:
        return f"{STATE_WORDS[state]}, {_fold_of(result)}", ()
    return STATE_WORDS[state], _reason_list(result)


def reasons_text(result) -> str:
    """The reasons of a bounded or not-measured row in words (:func:`status_words` after its state): the
    references' disagreement, then the open end or ends."""
    return "; ".join(_reason_list(result))


def _reason_list(result) -> tuple[str, ...]:
    state, reasons = state_of(result), reasons_of(result)
    shown = [r for r in reasons if isinstance(r, ReferencesDisagree)]
    ends = [r for r in reasons if isinstance(r, EndOpen)]
    if state is State.NOT_MEASURED and len(ends) == 2 or state is State.BOUNDED:
        shown += ends[:1]
    return tuple(reason_words(r, tuple(ends)) for r in shown)


def short_statuses(parts) -> tuple[list[str], list[str]]:
    """Each status's parts (head, reasons) as ``"head [1,2]"``, the reasons numbered in order of first use → (the
    short cells, the reasons' lines ``"[1] reason"``). A status without reasons is its head."""
    numbers: dict[str, int] = {}
    cells = []
    for head, reasons in parts:
        own = [numbers.setdefault(reason, len(numbers) + 1) for reason in reasons if reason]
        cells.append(f"{head} [{','.join(map(str, own))}]" if own else head)
    return cells, [f"[{n}] {reason}" for reason, n in numbers.items()]


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


def uncertainty_repr(result) -> str:
    """A :class:`~densing.trend.uncertainty.TrendUncertainty`'s ``repr``: rule, state, what is determined, the slope,
    the models and references, the heterogeneity test and the reasons of a row that is not measured."""
    reasons = reasons_text(result) if result.state not in (None, State.MEASURED) else ""
    return (f"TrendUncertainty({result.rule}, {state_words(result.state) or 'state not judged'}: doubling time "
            f"{determined_words(result)}, A = {result.slope_per_day:.3g}/day [{result.slope_ci_low:.3g}, "
            f"{result.slope_ci_high:.3g}], {result.n_models} models, {result.n_references} reference(s)"
            + (f"; Q p = {result.heterogeneity_p:.2g}, I² = {result.i_squared:.0%}" if result.heterogeneity_df else "")
            + (f"; {status_words(result)}" if reasons else "") + ")")


def summary_items(result) -> list[tuple[str, object]]:
    """The first lines of a result's ``summary()``: its state, what is determined, the largest leave-one-family-out
    move (every family: ``influence_frame()``)."""
    items = [("state", state_words(result.state) or NOT_JUDGED), ("doubling time", determined_words(result))]
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
    fired = [c for c in gates_and_findings if c.status == REPORTED and c.fired]
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
    each = ", ".join(f"{family_of(name)} {count}" for name, count in zip(head.reference_names, head.ceiling_bounds))
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
    state = state_of(head)
    if missing:
        return (f"Doubling time not measured on the {missing[0][1]}: {missing[0][2]}. On the {label} of {table_words}, "
                f"against {refs}: {est} months ({interval}), {status}; the paper reports {paper} months.")
    if state is State.MEASURED:
        inside = "inside" if low <= paper <= high else "outside"
        ranges = ranges_words(head)
        return (f"Capacity density doubles every {est} months ({interval}, {_fold_of(head)}"
                f"{'; ' + ranges if ranges else ''}) {where}; the paper's {paper} months lies {inside} the interval."
                + _influence_words(head, always=False))
    if state is State.BOUNDED:
        if head.low_determined:
            end = _open_end(head, "high")
            beyond = end.beyond_months
            open_end = ("the upper end is not determined"
                        + (f" (beyond {format_months(beyond)} months; {_open_why(end)})" if math.isfinite(beyond)
                           else " (the draws reach a zero slope)"))
            ends = f"at least {format_months(low)}{precision_words(head, 'low')} months at 95%; {open_end}"
        else:
            ends = (f"at most {format_months(high)}{precision_words(head, 'high')} months at 95%; the lower end is not "
                    "determined")
        return (f"Capacity density doubles every {est} months {where}: {ends}." + _influence_words(head, always=True)
                + f" The paper reports {paper} months.")
    return (f"Doubling time not measured {where}: {reasons_text(head)}. The estimate, {est} months "
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


def _families(names) -> str:
    return ", ".join(family_of(name) for name in names)


def measurement_status(m) -> str:
    """A :class:`densing.trend.measurement.TrendMeasurement`'s status: its headline row's (:func:`status_words`), or
    "not measured: " and the set that has no reference."""
    if m.missing:
        return not_measured(f"the {m.missing[0][1]} has no reference")
    head = m.rules.get(m.headline_rule)
    return status_words(head) if head is not None else state_words(State.NOT_MEASURED)


def measurement_verdict(m) -> str:
    """The measurement's first sentence (:func:`headline_verdict` of its headline row)."""
    head = m.rules[m.headline_rule]
    return headline_verdict(head, m.headline_set, _families(head.reference_names), status_words(head),
                            table_words=m.table_words, missing=list(m.missing))


def measurement_why(m) -> str:
    """The sentences after the measurement's verdict (:func:`why_words`)."""
    head = m.rules[m.headline_rule]
    gates = [x for x in m.checks if x.status != REPORTED]
    return why_words(head, [x for x in gates if x.failed], [x for x in gates if x.status == UNTESTABLE],
                     m.sensitivity, list(m.missing), since=m.since, refs=_families(head.reference_names),
                     reference_rule=references_words(m.references_by), gates_and_findings=m.checks)


def closing_words(m) -> str:
    """The first clause of ``densing trend``'s last line: the headline's doubling time with its interval, or its one
    determined end, and its state ("measured, 2.3-fold" with the interval's ratio)."""
    head = m.rules.get(m.headline_rule)
    state = m.state
    if head is None:
        return f"Doubling time: no estimate ({state_words(state)}; the verdict above says why)"
    est, low, high = head.doubling_time_months, head.doubling_time_months_ci_low, head.doubling_time_months_ci_high
    if state is State.BOUNDED and head.low_determined:  # the one determined end, and the state that says the other is open
        phrase = f"{format_months(est)} months, at least {format_months(low)} at 95%"
    elif state is State.BOUNDED and head.high_determined:
        phrase = f"{format_months(est)} months, at most {format_months(high)} at 95%"
    elif math.isfinite(est):
        phrase = f"{format_months(est)} months (95% CI {format_months(low)}–{format_months(high)})"
    else:
        phrase = "no estimate"
    shown = status_parts(head)[0] if state is State.MEASURED else state_words(state)
    return f"Doubling time: {phrase}, {shown}"


def references_words(by) -> str:
    """How a headline's references were chosen (:class:`densing.states.ReferencesBy`), in words."""
    if by.given:
        return "given by the user (--fit); the rows per benchmark have their own references"
    return ("the set rule: every family with a fit on each of " + ", ".join(by.benchmarks) + " that rises with size "
            "on each, reaches the frontier on one and predicts its largest member jointly within noise; every reference "
            "inverts the same benchmarks for the same targets, its own family's models from the others, pooled by a "
            "random-effects model over paired draws")


def measurement_repr(m) -> str:
    head = m.rules.get(m.headline_rule)
    shown = f"{m.status}; {determined_words(head)}" if head is not None else m.status
    families = ", ".join(dict.fromkeys(family_of(name) for name in m.reference.split(" | ")))
    return f"TrendMeasurement({m.headline_set}: {shown}; references {families})"


def headline_summary(m) -> dict:
    """What the data determine about the headline (``densing trend --format json``'s ``headline``): its state
    (measured, bounded, not measured), the estimate, each end of the interval with its 95% Monte Carlo range and
    whether it is determined, the ceiling bounds' effect, and the leave-one-family-out table (largest move first)."""
    head = m.rules.get(m.headline_rule)
    if head is None:
        return {"state": state_words(State.NOT_MEASURED)}

    def end(name: str) -> dict:
        return {"months": json_number(getattr(head, f"doubling_time_months_ci_{name}")),
                "determined": getattr(head, f"{name}_determined"), "undecided": getattr(head, f"{name}_undecided"),
                "monte_carlo_range": [json_number(getattr(head, f"months_{name}_mc_low")),
                                      json_number(getattr(head, f"months_{name}_mc_high"))]}

    return {"state": state_words(m.state), "status": m.status,
            "months": json_number(head.doubling_time_months), "n_draws": head.n_boot, "low": end("low"),
            "high": end("high"),
            "ceiling": {"bounds": head.n_ceiling_bounds, "months_with_bounds": json_number(head.doubling_time_months),
                        "months_without_bounds": json_number(head.months_without_ceilings)},
            "leave_one_family_out": frame_records(head.influence_frame())}


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


def row_status(row) -> str:
    """A :class:`densing.trend.capability.Row`'s one status wherever it is shown: its trend's
    (:func:`status_words`), or "not measured: " and why it has none."""
    return joined(*row_parts(row))


def row_parts(row) -> tuple[str, tuple[str, ...]]:
    """A :class:`densing.trend.capability.Row`'s status as (head, reasons) (:func:`status_parts`)."""
    if row.result is not None:
        return status_parts(row.result)
    return STATE_WORDS[State.NOT_MEASURED], (row.error,) if row.error else ()


def row_reason(reason) -> str:
    """Why a :class:`densing.trend.capability.Row` has no trend, in words: no family scored, no family passing the
    reference rule (each failing clause counted), or its fit's error; "" for None."""
    if reason is None:
        return ""
    if isinstance(reason, NoFamilyScored):
        return f"no family of the table has three models scored on {', '.join(reason.benchmarks)}"
    if isinstance(reason, NoFamilyPasses):
        passing = ("; eligible on one only: " + ", ".join(f"{f} ({b})" for f, b in reason.eligible_on_one)
                   if reason.eligible_on_one else "")
        return (f"no family passes the reference rule on {'it' if reason.n_benchmarks == 1 else 'two of them'} ("
                + ", ".join(f"{count} fail {code}" for code, count in reason.failures) + passing
                + "; the candidate table says which)")
    return str(reason)


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
            f"{family_of(k)} {_m(v)} [{_m(lo)}–{_m(hi)}]"
            for (k, v), lo, hi in zip(own.items(), r.reference_months_low or [math.nan] * len(own),
                                      r.reference_months_high or [math.nan] * len(own))) if r is not None else "",
        "state": state_words(r.state if r is not None and r.state is not None else State.NOT_MEASURED),
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
