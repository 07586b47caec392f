"""The headline's words, from its result's numbers, state and reasons (:mod:`densing.states`): the verdict and the
sentences after it, the closing line, the JSON's ``headline``, the breakpoint's line and ``summary()``."""

from __future__ import annotations

import math

import numpy as np

from densing import registry
from densing.constants import (
    CEILING_STDERRS,
    FLOOR_STDERRS,
    MAX_SENSITIVITY_RATIO,
    PAPER,
    REPORTED,
    SIZE_SLOPE_MARGIN,
    UNTESTABLE,
)
from densing.display import name_text
from densing.numbers import counted_noun, format_count, format_months, format_number, frame_records, json_number, signed
from densing.present.findings import check_detail
from densing.present.summaries import Summary, Table
from densing.present.words import (
    FOLD_LEGEND,
    STATE_WORDS,
    as_range,
    determined_words,
    end_form,
    fold_of,
    heterogeneity_words,
    interval_after,
    monte_carlo_range_words,
    not_measured,
    open_end,
    open_why,
    reasons_text,
    record_as_range,
    record_end,
    result_end,
    result_interval,
    row_reason,
    state_words,
    status_parts,
    status_words,
)
from densing.states import State, stated_state


def measurement_why(m) -> str:
    """The sentences after a :class:`densing.trend.measurement.TrendMeasurement`'s verdict: why not measured (or every
    check passed), the targets, what the interval carries."""
    head, sensitivity = m.rules[m.headline_rule], m.sensitivity
    gates = [x for x in m.checks if x.status != REPORTED]
    failed, untestable = [x for x in gates if x.failed], [x for x in gates if x.status == UNTESTABLE]
    labs = len(dict.fromkeys(head.reference_labs)) or head.n_references
    carried = (
        "the reference fit, each score's standard error, the sampling of labs and of families within them "
        "(a two-stage cluster bootstrap)"
        + (f" and the spread among the references' {labs} labs (τ)" if labs > 1 else "")
    )
    # the findings that fire (densing.trend.capability.calibrated); saturation's effect on the estimate: saturation_words
    fired = [c for c in m.checks if c.status == REPORTED and c.fired]
    parts = [" ".join(plain_reason(c, sensitivity) for c in failed)]
    if not failed:
        parts.append(gate_words(head, untestable))
    if fired:
        parts.append(
            " Findings beside the number, not gates (they fire in more than 10% of planted worlds where the "
            "estimate is right): " + " ".join(plain_reason(c, sensitivity) for c in fired)
        )
    parts += [saturation_words(head, "ceiling"), saturation_words(head, "floor"), open_end_words(head)]
    parts.append(
        f" {counted_noun(head.n_models, 'model')} released since {m.since or 'any date'} with every score of the "
        f"set, against {_families(head.reference_names)} (each family at its own budget; "
        f"{heterogeneity_words(head)}); the interval carries {carried}. References by "
        f"{references_words(m.references_by)}."
    )
    why = "".join(parts)
    if m.missing:
        why = " ".join(f"The {lab} has no reference: {row_reason(reason)}." for _, lab, reason in m.missing) + " " + why
    return why.strip()


def gate_words(head, untestable: list) -> str:
    """The gate's sentence where no check failed: the labs' agreement untestable (why), or passed, with any other
    check that could not be tested named."""
    if any(c.name == "heterogeneity" for c in untestable):
        return " The gate (whether the references' labs agree) is not testable: " + heterogeneity_words(head) + "."
    others = f" but {', '.join(c.name for c in untestable)} (untestable)" if untestable else ""
    return f" The gate (the agreement of the references' labs) passed{others}."


def open_end_words(head) -> str:
    """What opens the upper end: the draws with no rising line and the families most of them lack and hold."""
    if not head.open_families:
        return ""
    n_open, n_draws, (lacked, lack_open, lack_all), (held, hold_open, hold_all) = head.open_families
    return (
        f" What opens the upper end: {n_open} of {n_draws} draws ({100 * n_open / n_draws:.1f}%) have no rising "
        f"line; {100 * lack_open:.0f}% of them lack {lacked} (of all draws {100 * lack_all:.0f}%) and "
        f"{100 * hold_open:.0f}% hold {held} (of all draws {100 * hold_all:.0f}%)."
    )


#: Each kind of bound saturation makes (its counts, the estimate without it, the noise, what a target is near, the bound).
_SATURATION = {
    "ceiling": ("ceiling_bounds", "months_without_ceilings", CEILING_STDERRS, "a reference's ceiling", "lower"),
    "floor": ("floor_bounds", "months_without_floors", FLOOR_STDERRS, "a benchmark's chance level", "upper"),
}


def saturation_words(head, kind: str) -> str:
    """A saturation finding, ``kind`` "ceiling" or "floor" (:mod:`densing.trend.floors`): the targets near a reference's
    ceiling (lower bounds) or a benchmark's chance level (upper bounds), and the estimate without them."""
    counts, without, stderrs, near, side = _SATURATION[kind]
    bounds = sum(getattr(head, counts))
    if not bounds:
        return ""
    each = ", ".join(f"{name.family} {count}" for name, count in zip(head.reference_names, getattr(head, counts)))
    article = "an" if side == "upper" else "a"
    sit, enter, them = (
        ("sits", f"enters the frontier fit as {article} {side} bound", "it")
        if bounds == 1
        else ("sit", f"enter the frontier fit as {side} bounds", "them")
    )
    return (
        f" {counted_noun(bounds, 'target inversion')} {sit} within {stderrs:g} standard errors of {near} ({each}) "
        f"and {enter}: {format_months(head.doubling_time_months)} months with {them}, "
        f"{format_months(getattr(head, without))} months without."
    )


def headline_set_words(m) -> str:
    """The headline's benchmarks in words: its set's registered label, or a given fit's benchmarks
    (:attr:`~densing.trend.measurement.TrendMeasurement.references_by`)."""
    by = m.references_by
    if by.given and not m.headline_set:
        return f"benchmark(s) of the given fit ({', '.join(by.benchmarks)})"
    return m.headline_set


def reference_words(m) -> str:
    """The headline's references as a reader sees them: their names (:attr:`~densing.trend.measurement.TrendMeasurement.
    reference`, ``family:benchmark`` joined by `` | ``), with " (given)" after a given fit's (``--fit``:
    :attr:`densing.states.ReferencesBy.given`)."""
    return m.reference + (" (given)" if m.references_by.given else "")


def table_words(m) -> str:
    """The measured table in words: its registered words (:attr:`densing.registry.TrendTable.words`, "the public
    table") looked up by :attr:`~densing.trend.measurement.TrendMeasurement.table_name`, "" for a table not
    registered."""
    found = registry.tables().get(m.table_name, None)
    return "" if found is None else found.words


def measurement_verdict(m) -> str:
    """A measurement's first sentence, one a researcher can cite, by its headline row's state: the estimate and its
    determined ends, the benchmarks, table and references, the most influential family where it matters, the paper's."""
    head, label, table, missing = m.rules[m.headline_rule], headline_set_words(m), table_words(m), m.missing
    refs, paper = _families(head.reference_names), PAPER["doubling_time_months"]
    est = format_months(head.doubling_time_months)
    low, high = head.doubling_time_months_ci_low, head.doubling_time_months_ci_high
    interval = result_interval(head, brackets="()", level="95% CI ")
    where = f"on the {label} of {table}, against {refs}"
    legend = f"; {note}" if (note := ranges_note(head)) else ""
    state = head.state
    if missing:
        return (
            f"Doubling time not measured on the {missing[0][1]}: {row_reason(missing[0][2])}. On the {label} of {table}, "
            f"against {refs}: {est} months{interval}, {status_words(head)}; the paper reports {paper} months."
        )
    if state is State.MEASURED:
        inside = "inside" if low <= paper <= high else "outside"
        measured = result_interval(head, brackets="()", level="95% CI ", more=f", {fold_of(head)}{legend}")
        after = (
            "," if as_range(head, "low") or as_range(head, "high") else ""
        )  # the ranged form has no bracket to close
        return (
            f"Capacity density doubles every {est} months{measured}{after} {where}; the paper's {paper} months lies "
            f"{inside} the interval." + _influence_words(head, always=False)
        )
    if state is State.BOUNDED:
        if head.low_determined:
            end = open_end(head, "high")
            beyond = end.beyond_months
            upper = "the upper end is not determined" + (
                f" (beyond {format_months(beyond)} months; {open_why(end)})"
                if math.isfinite(beyond)
                else " (the draws reach a zero slope)"
            )
            ends = f"at least {result_end(head, 'low')} months at 95%{legend}; {upper}"
        else:
            ends = f"at most {result_end(head, 'high')} months at 95%{legend}; the lower end is not determined"
        return (
            f"Capacity density doubles every {est} months {where}: {ends}."
            + _influence_words(head, always=True)
            + f" The paper reports {paper} months."
        )
    return (
        f"Doubling time not measured {where}: {reasons_text(head)}. The estimate, {est} months"
        f"{interval}, is not a measurement; the paper reports {paper} months." + _influence_words(head, always=False)
    )


def ranges_note(head) -> str:
    """What the headline's end in parentheses is ("the upper end in parentheses is its 95% Monte Carlo range, which
    2,400 draws do not narrow to within 25% of it"); "" where no end is printed so."""
    ends = [name for end, name in (("low", "lower"), ("high", "upper")) if as_range(head, end)]
    if not ends:
        return ""
    which = " and ".join(ends) + (
        " ends in parentheses are their " if len(ends) == 2 else " end in parentheses is its "
    )
    return f"the {which}{monte_carlo_range_words(head.n_boot)}"


def _influence_words(head, *, always: bool) -> str:
    """The family whose removal moves the estimate most, where that moves it beyond the interval (or ``always``)."""
    top = head.largest_influence()
    months = math.nan if top is None else float(top.doubling_time_months)
    beyond = top is not None and not (head.doubling_time_months_ci_low <= months <= head.doubling_time_months_ci_high)
    if top is None or not (beyond or always):
        return _model_words(head)
    shown = (
        f"the estimate is {format_months(months)} months"
        if math.isfinite(months)
        else "the frontier line no longer rises (no doubling time)"
    )
    words = ", beyond the interval" if beyond else ", the largest move of any family"
    return (
        f" Leave one family out: without {name_text(top.family)} ({counted_noun(top.n_models, 'model')}) {shown}{words}."
        + _model_words(head)
    )


def _model_words(head) -> str:
    """The one target whose removal moves the estimate beyond the interval; "" where no single model does."""
    months, model = head.months_without_model, head.most_influential_model
    low, high = head.doubling_time_months_ci_low, head.doubling_time_months_ci_high
    if not model or low <= months <= high:
        return ""
    shown = f"{format_months(months)} months" if math.isfinite(months) else "no rising line"
    return f" One model carries the line: without {model} the estimate is {shown}, beyond the interval."


def plain_reason(check, sensitivity) -> str:
    """One plain sentence for a failed check (the check's own ``detail`` keeps the numbers in full)."""
    if check.name == "size_dependence":
        return (
            f"Within a family, larger models come out denser (ln ρ rises {signed(check.value)} per unit of ln N; the rule "
            f"needs a slope shown to lie within ±{SIZE_SLOPE_MARGIN:g}), so the reference's shape in N does not "
            "match the targets' and density mixes size with release date."
        )
    if check.name == "sensitivity":
        values = sensitivity["doubling_time_months"].to_numpy(float)
        finite = values[np.isfinite(values)]
        spread = (
            f"from {format_months(finite.min())} to {format_months(finite.max())} months"
            if finite.size
            else "none finite"
        )
        return (
            f"The eligible references and inversions disagree: their doubling times run {spread}, more than the factor "
            f"{MAX_SENSITIVITY_RATIO:g} the rule allows."
        )
    if check.name == "heterogeneity":
        return (
            f"The references' own doubling times differ beyond their shared uncertainty on the same targets and "
            f"benchmarks ({check_detail(check)}), so the row has no one doubling time."
        )
    if check.name == "size_confounding":
        return (
            f"At a fixed release date, ln ρ changes {signed(check.value)} per unit of ln N, beyond noise and beyond the "
            f"±{SIZE_SLOPE_MARGIN:g} the rule allows, so the targets' size mix confounds the trend."
        )
    if check.name == "saturation":
        return "Frontier models score at the highest score the reference can express, so their densities are set by that cap."
    if check.name == "conditioning":
        return f"One standard error of a frontier model's score moves its density {format_number(check.value, '.3g')}-fold (the rule allows 2)."
    return f"{check.name}: {check_detail(check)}."


def segment_note(segment) -> str:
    """Why a side of the breakpoint (:class:`densing.trend.measurement.Segment`) has no fit: its error's message ("" where
    it has a fit)."""
    if segment.error is None:
        return ""
    return str(segment.error)


def breakpoint_words(bp) -> str:
    """A :class:`densing.trend.measurement.Breakpoint` in one line: each side's slope beside the paper's."""

    def words(seg) -> str:
        if not math.isfinite(seg.slope_per_day):
            return f"not fitted ({segment_note(seg)})"
        same = ", the same models and interval as the headline" if seg.same_as_headline else ""
        return (
            f"{format_number(seg.slope_per_day)}/day (95% CI {format_number(seg.slope_ci_low)} to "
            f"{format_number(seg.slope_ci_high)}, {counted_noun(seg.n_models, 'model')}{same})"
        )

    return (
        f"breakpoint {bp.date}: slope before {words(bp.before)}, after {words(bp.after)} "
        f"(paper: {bp.paper_before_per_day}/day → {bp.paper_after_per_day}/day)"
    )


def _families(names) -> str:
    return ", ".join(name.family for name in names)


def measurement_status(m) -> str:
    """A :class:`densing.trend.measurement.TrendMeasurement`'s status: its headline row's, or why it has none."""
    if m.missing:
        return not_measured(f"the {m.missing[0][1]} has no reference")
    head = m.rules.get(m.headline_rule)
    return status_words(head) if head is not None else state_words(m.state)


def months_phrase(
    months: float,
    low: str,
    high: str,
    state: State,
    head: str,
    *,
    low_determined: bool,
    high_determined: bool,
    ranged: bool = False,
) -> str:
    """A row's doubling time as one clause by its state (its interval, or where bounded its determined end), then its
    status's ``head`` ("measured, 2.3-fold"); ``low``, ``high``: its ends as printed (:func:`~.words.end_words`),
    ``ranged`` where one is printed as its range (the interval then by :func:`~.words.interval_after`)."""
    if state is State.BOUNDED and low_determined:
        phrase = f"{format_months(months)} months, at least {low} at 95%"
    elif state is State.BOUNDED and high_determined:
        phrase = f"{format_months(months)} months, at most {high} at 95%"
    elif math.isfinite(months):
        phrase = f"{format_months(months)} months{interval_after(low, high, ranged, brackets='()', level='95% CI ')}"
    else:
        phrase = "no estimate"
    return f"{phrase}, {head}"


def closing_words(m) -> str:
    """The first clause of ``densing trend``'s last line: the headline's :func:`months_phrase` (an end in parentheses
    is its Monte Carlo range: the legend under the table above says so, and the last line stays one line)."""
    head = m.rules.get(m.headline_rule)
    state = m.state
    if head is None:
        return f"Doubling time: no estimate ({state_words(state)}; the verdict above says why)"
    shown = status_parts(head)[0] if state is State.MEASURED else state_words(state)
    return "Doubling time: " + months_phrase(
        head.doubling_time_months,
        result_end(head, "low"),
        result_end(head, "high"),
        state,
        shown,
        low_determined=head.low_determined,
        high_determined=head.high_determined,
        ranged=as_range(head, "low") or as_range(head, "high"),
    )


def record_phrase(row: dict) -> str:
    """A stored row (a trend record's ``rows``) as :func:`months_phrase`, each end by its ``record_end``."""
    state = stated_state(row.get("state"), f"stored row {row.get('row', '?')!r}")
    months = row["months"] if row.get("months") is not None else math.inf
    head = row["status"] if state is State.MEASURED else STATE_WORDS[state]
    return months_phrase(
        months,
        record_end(row, "low"),
        record_end(row, "high"),
        state,
        head,
        low_determined=bool(row.get("low_determined")),
        high_determined=bool(row.get("high_determined")),
        ranged=record_as_range(row, "low") or record_as_range(row, "high"),
    )


def measurement_headline(m) -> str:
    """The verdict and why, in one paragraph (:func:`measurement_verdict`, :func:`measurement_why`)."""
    return f"{measurement_verdict(m)} {measurement_why(m)}"


def references_words(by) -> str:
    """How a headline's references were chosen (:class:`densing.states.ReferencesBy`), in words."""
    if by.given:
        return "given by the user (--fit); the rows per benchmark have their own references"
    return (
        "the set rule: every family with a fit on each of " + ", ".join(by.benchmarks) + " that rises with size "
        "on each, reaches the frontier on one and predicts its largest member jointly within noise; every reference "
        "inverts the same benchmarks for the same targets, its own family's models from the others, pooled by a "
        "random-effects model over paired draws"
    )


def measurement_repr(m) -> str:
    head = m.rules.get(m.headline_rule)
    status = measurement_status(m)
    shown = f"{status}; {determined_words(head)}" if head is not None else status
    families = ", ".join(dict.fromkeys(name.family for name in head.reference_names)) if head is not None else ""
    return f"TrendMeasurement({headline_set_words(m)}: {shown}; references {families})"


def headline_summary(m) -> dict:
    """``densing trend --format json``'s ``headline``: the state, the estimate, each end with its Monte Carlo range,
    whether it is determined and its form (:func:`~.words.end_form`: "range" where every surface prints the range in
    place of ``months``, and ``printed``, the text they print), the ceiling bounds' effect, the leave-one-family-out
    table, and ``fold``, what "-fold" in ``status`` is (:data:`~.words.FOLD_LEGEND`)."""
    head = m.rules.get(m.headline_rule)
    if head is None:
        return {"state": state_words(State.NOT_MEASURED)}

    def end(name: str) -> dict:
        return {
            "months": json_number(getattr(head, f"doubling_time_months_ci_{name}")),
            "determined": getattr(head, f"{name}_determined"),
            "undecided": getattr(head, f"{name}_undecided"),
            "precise": getattr(head, f"{name}_precise") if getattr(head, f"{name}_determined") else None,
            "monte_carlo_range": [
                json_number(getattr(head, f"months_{name}_mc_low")),
                json_number(getattr(head, f"months_{name}_mc_high")),
            ],
            "form": end_form(as_range(head, name)),
            "printed": result_end(head, name),
        }

    months = json_number(head.doubling_time_months)
    return {
        "state": state_words(m.state),
        "status": measurement_status(m),
        "fold": FOLD_LEGEND,
        "months": months,
        "n_draws": head.n_boot,
        "low": end("low"),
        "high": end("high"),
        **{
            kind: {
                "bounds": getattr(head, f"n_{kind}_bounds"),
                "months_with_bounds": months,
                "months_without_bounds": json_number(getattr(head, f"months_without_{kind}s")),
            }
            for kind in ("ceiling", "floor")
        },
        "region": {
            "bounds": head.n_region_bounds,
            "months_with_bounds": months,
            "months_without_bounds": json_number(head.months_without_region),
        },
        "leave_one_family_out": frame_records(head.influence_frame()),
        "most_influential_target": influential_target_record(head),
        "labs": head.labs_record(),
        "targets": readings_records(head.readings),
    }


def _target_move(head) -> float:
    """The doubling time without the most influential target less the estimate (months; NaN where either is not
    finite: the line rises without it in neither, or no longer rises)."""
    with np.errstate(invalid="ignore"):
        return float(head.months_without_model - head.doubling_time_months)


def influential_target_record(head) -> dict:
    """The single target whose removal moves the headline's point most (leave one model out,
    :func:`densing.trend.influence.most_influential_model`; the references and their weights kept), as values:
    ``model`` (null where no target was left out), ``months_without`` (the doubling time without it; null where the
    line no longer rises) and ``move_months`` (that less the estimate)."""
    return {
        "model": head.most_influential_model or None,
        "months_without": json_number(head.months_without_model),
        "move_months": json_number(_target_move(head)),
    }


def influential_target_words(head) -> str:
    """``densing trend --detail``'s line on the single most influential target, printed whether or not its move leaves
    the interval: "leave one target out: without M the estimate is 4.12 months (+0.37 months), the largest move of
    any single target …"; "" where no target was left out."""
    model, months = head.most_influential_model, head.months_without_model
    if not model:
        return ""
    move = _target_move(head)
    shown = (
        f"the estimate is {format_months(months)} months ({signed(move)} months)"
        if math.isfinite(move)
        else "the frontier line no longer rises (no doubling time)"
    )
    return (
        f"leave one target out: without {model} {shown}, the largest move of any single target (the references "
        'and their weights kept); one target moved across a censoring boundary: docs/method.md, "The '
        'knife-edge"'
    )


def readings_records(readings) -> list[dict]:
    """Every target's reading under every reference (:func:`densing.trend.pooling.point_readings`) as JSON records:
    kind ``exact``/``lower``/``upper``, the reason in words, the benchmark that decided it and ln ρ (the value or the
    bound's; null for an own family's model)."""
    from densing.laws.region import REASON_WORDS, Reason

    return [
        {
            "model": model,
            "reference": family,
            "kind": kind,
            "reason": "its own family's model, from the other references"
            if reason is None
            else REASON_WORDS[Reason(reason)],
            "benchmark": benchmark,
            "log_density": json_number(log_density),
        }
        for model, family, kind, reason, benchmark, log_density in readings
    ]


def measurement_summary(m) -> Summary:
    """A :class:`densing.trend.measurement.TrendMeasurement` as a reader sees it (its ``summary()``)."""
    head = m.rules.get(m.headline_rule)
    items = [
        ("benchmark set", headline_set_words(m)),
        ("status", measurement_status(m)),
        ("verdict", measurement_verdict(m)),
        ("reference", reference_words(m)),
        ("d0", m.d0),
        ("frontier rule", m.headline_rule),
    ]
    if head is not None:
        items += [
            ("what is determined", determined_words(head)),
            ("doubling time (months)", head.doubling_time_months),
            (f"{head.level:.0%} interval (months)", f"from {result_end(head, 'low')} to {result_end(head, 'high')}"),
            (
                "slope A (per day)",
                f"{format_number(head.slope_per_day)} ({head.level:.0%} interval "
                f"{format_number(head.slope_ci_low)} to {format_number(head.slope_ci_high)})",
            ),
            ("models", head.n_models),
        ]
    checks = [(c.name, c.status, check_detail(c)) for c in m.checks]
    return Summary(
        "TrendMeasurement",
        lines=(measurement_headline(m),),
        items=tuple(items),
        tables=(
            Table.of(
                m.table(),
                f"doubling time (months) by frontier rule; reference {reference_words(m)}, D0 = {format_count(m.d0)} tokens",
            ),
            Table("validity checks", ("check", "result", "detail"), tuple(checks)),
        ),
    )


def rests_on_words(head) -> str:
    """What a headline rests on, one sentence each: its labs and their weights, the late frontier family (whose removal
    moves the estimate most) and the targets at chance that enter as upper bounds ("" for None)."""
    if head is None:
        return ""
    labs = head.labs
    if len(labs) == 1:
        first = (
            f"Labs: its {head.n_references} references are one lab's ({labs[0]}), so whether labs agree cannot "
            f"be tested."
            if head.n_references > 1
            else f"Labs: its one reference is {labs[0]}'s."
        )
    else:
        weights = ", ".join(
            f"{lab} {format_number(w)}" for lab, w in sorted(zip(labs, head.lab_weights), key=lambda item: -item[1])
        )
        first = f"Labs: its references come from {len(labs)} labs, weighted {weights}."
    top = head.largest_influence()
    second = (
        ""
        if top is None
        else f" The late frontier family: without {name_text(top.family)} ({counted_noun(top.n_models, 'model')}) the "
        f"estimate is {format_months(top.doubling_time_months)} months, the largest move of any family."
    )
    bounds = int(getattr(head, "n_floor_bounds", 0))
    enter, them = ("enters as an upper bound", "it") if bounds == 1 else ("enter as upper bounds", "them")
    third = (
        f" Floor bounds: {counted_noun(bounds, 'target inversion')} at a benchmark's chance level {enter} "
        f"({format_months(head.doubling_time_months)} months with {them}, "
        f"{format_months(head.months_without_floors)} without)."
        if bounds
        else " Floor bounds: no target sits at a benchmark's chance level."
    )
    return "What the headline rests on. " + first + second + third
