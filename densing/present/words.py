"""The trend's words, in one place: a state's words, a row's status and reasons, what its draws determine, the rows'
table. Every function reads a result's numbers, :class:`~densing.states.State` and reasons and writes words; nothing
here computes a number the result does not hold, and nothing anywhere reads a state back out of these words."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from densing.constants import END_STABILITY
from densing.display import name_text
from densing.numbers import NumberText, counted_noun, format_count, format_months, format_number
from densing.states import EndOpen, LeftOut, NoFamilyPasses, NoFamilyScored, ReferencesDisagree, State


def heterogeneity_words(result) -> str:
    """A :class:`~densing.trend.uncertainty.TrendUncertainty`'s heterogeneity test in one clause: Q, df, p, I², τ."""
    return heterogeneity_text(
        result.heterogeneity_q,
        result.heterogeneity_df,
        result.heterogeneity_p,
        result.i_squared,
        result.tau_squared,
        result.heterogeneity_draws,
        tuple(dict.fromkeys(result.reference_labs)),
        result.n_references,
    )


def q_words(q: float, df: int, p: float, draws: int = 0) -> str:
    """Q, its degrees of freedom and p-value, read by Hotelling's T² over ``draws`` paired draws
    (:func:`densing.trend.random_effects.pool_slopes`; 0: Q, its df and p alone)."""
    read = f", Hotelling's T² over {draws} draws:" if draws else ","
    return f"Q = {format_number(q)} on {df} df{read} p = {format_number(p)}"


def heterogeneity_text(
    q: float,
    df: int,
    p: float,
    i_squared: float,
    tau_squared: float,
    draws: int = 0,
    labs: tuple[str, ...] = (),
    references: int = 1,
) -> str:
    """The agreement test in one clause: Q compares the references' labs (:func:`densing.trend.random_effects.pool_by_lab`),
    so with one lab it is not testable however many references it holds."""
    if df == 0:
        if len(labs) == 1 and references > 1:
            return f"the {references} references are one lab's ({labs[0]}): agreement across labs not testable"
        return "one reference: heterogeneity not testable"
    tau = math.sqrt(max(tau_squared, 0.0)) * 365.25
    across = f" across {len(labs)} labs" if labs and len(labs) < references else ""
    return (
        f"{q_words(q, df, p, draws)}{across}, "
        f"I² = {i_squared:.0%}, τ = {format_number(tau)} in ln ρ per year{' between labs' if across else ''}"
    )


#: The words of each state: the only place they are written.
STATE_WORDS = {State.MEASURED: "measured", State.BOUNDED: "bounded", State.NOT_MEASURED: "not measured"}
#: What a row with no judged state reads.
NOT_JUDGED = "not judged"
#: What each state adds where the report shows a number: in a card, after a stored record's cell, beside the paper's
#: figure, after the density chart's checks line and in its caption.
CARD_LABELS = {State.MEASURED: "", State.BOUNDED: " (one end determined)", State.NOT_MEASURED: " (an estimate)"}
CELL_MARKS = {State.MEASURED: "", State.BOUNDED: " (bounded)", State.NOT_MEASURED: " (not measured)"}
PAPER_MARKS = {
    State.MEASURED: "",
    State.BOUNDED: " — bounded: one end of the interval is determined",
    State.NOT_MEASURED: " — not a measurement",
}
LINE_NOTES = {
    State.MEASURED: "",
    State.BOUNDED: " — one end of the slope's interval is determined (bounded)",
    State.NOT_MEASURED: " — the line is an estimate, not a measurement",
}
CAPTION_CLAUSES = {
    State.MEASURED: "",
    State.BOUNDED: ", and the doubling time is bounded (one end of its interval is determined)",
    State.NOT_MEASURED: ", and the doubling time is not measured",
}


def record_mark(state: State) -> str:
    """What follows a stored record's months by its state (:data:`CELL_MARKS`)."""
    return CELL_MARKS[state]


def state_words(state: State | None) -> str:
    """A state's words ("measured", "bounded", "not measured"); "" for no state (a trend whose state is not judged)."""
    return STATE_WORDS[state] if state is not None else ""


def not_measured(why: str = "") -> str:
    """ "not measured: why" (or "not measured" with no reason): the status of a row with no doubling time."""
    return f"{STATE_WORDS[State.NOT_MEASURED]}: {why}" if why else STATE_WORDS[State.NOT_MEASURED]


#: What "-fold" is, said under every table and beside every sentence that prints one (:func:`fold_of`).
FOLD_LEGEND = (
    "n-fold: the 95% interval's upper end over its lower end, as printed; a–b-fold, a range of ratios, "
    "where an end is printed as its Monte Carlo range (a–b): each end of that range over the other end"
)


def printed_span(result, end: str) -> tuple[float, float]:
    """An end of a result's interval as printed (:func:`result_end`): its Monte Carlo range (a, b) where it is printed
    so (:func:`as_range`), else its months twice (a number is a range of one value)."""
    if as_range(result, end):
        return getattr(result, f"months_{end}_mc_low"), getattr(result, f"months_{end}_mc_high")
    value = result.doubling_time_months_ci_low if end == "low" else result.doubling_time_months_ci_high
    return value, value


def _fold_number(ratio: float) -> str:
    """A ratio as "-fold" prints it: two figures below 100, whole above."""
    return format_number(ratio, ".2g") if ratio < 100 else format_number(ratio, ".0f")


def fold_of(result) -> str:
    """How wide a measured interval is, the ratio of its printed ends (:data:`FOLD_LEGEND`): high / low, "2.3-fold";
    where an end is printed as its Monte Carlo range, the ratios of the printed numbers' extremes,

        (high_a / low_b) to (high_b / low_a)  ("11–80-fold", a range: 33.2 / 2.96 to 237 / 2.96),

    so that the fold is never a ratio of a number no table shows."""
    low_a, low_b = printed_span(result, "low")
    high_a, high_b = printed_span(result, "high")
    least, most = _fold_number(high_a / low_b), _fold_number(high_b / low_a)
    return f"{least}-fold" if least == most else f"{least}–{most}-fold"


def fold_legend(results) -> str:
    """:data:`FOLD_LEGEND` where one of ``results`` (trends or rows' results; None skipped) is measured (its status
    says "-fold"); "" else."""
    return FOLD_LEGEND if any(r is not None and r.state is State.MEASURED for r in results) else ""


def open_why(reason: EndOpen) -> str:
    """Why an end is not determined (step 5): undecided at the draws used, or its interval reaches a zero slope."""
    return f"undecided at {reason.n_draws:,} draws" if reason.undecided else "its interval reaches a zero slope"


def open_end(result, end: str) -> EndOpen:
    return next(r for r in result.reasons if isinstance(r, EndOpen) and r.end == end)


def reason_words(reason, reasons: tuple = ()) -> str:
    """One reason in words (``reasons``: every reason of the row, so that two open ends read as "neither end")."""
    if isinstance(reason, ReferencesDisagree):
        own = ", ".join(f"{family} {months_text(m)}" for family, m in reason.reference_months)
        test = q_words(reason.q, reason.df, reason.p, reason.draws)
        return f"its references disagree beyond their shared uncertainty ({test}; {own} months)"
    ends = [r for r in reasons if isinstance(r, EndOpen)] or [reason]
    if len(ends) == 2:
        low, high = ends
        return f"neither end of its interval is determined ({open_why(low if low.undecided else high)})"
    return f"the {'lower' if reason.end == 'low' else 'upper'} end is not determined ({open_why(reason)})"


def status_words(result) -> str:
    """A row's one status (:func:`status_parts` joined): "measured, 2.3-fold", "bounded: " and which end is open and
    why, or "not measured: " and every reason; "" where no state is judged."""
    return joined(*status_parts(result))


def joined(head: str, reasons: tuple[str, ...]) -> str:
    """A status from its parts: ``head`` alone, or ``"head: reason; reason"``."""
    return f"{head}: {'; '.join(reasons)}" if reasons else head


def status_parts(result) -> tuple[str, tuple[str, ...]]:
    """A status as (head, reasons in words): ("measured, 2.3-fold", ()), ("bounded", (why,)), ("", ()) unjudged."""
    state = result.state
    if state is None:
        return "", ()
    if state is State.MEASURED:
        return f"{STATE_WORDS[state]}, {fold_of(result)}", ()
    return STATE_WORDS[state], _reason_list(result)


def reasons_text(result) -> str:
    """The reasons of a bounded or not-measured row in words, as :func:`status_words` gives them after its state."""
    return "; ".join(_reason_list(result))


def _reason_list(result) -> tuple[str, ...]:
    state, reasons = result.state, result.reasons
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


def months_text(months: float) -> str:
    return format_months(months) if math.isfinite(months) else "∞"


def end_words(months: float, mc_low: float, mc_high: float, as_range: bool) -> str:
    """An end of an interval as every table and sentence prints it: its months ("18.4", "∞") or, ``as_range`` (the
    draws fix it no closer than :data:`~densing.constants.END_STABILITY`), its Monte Carlo range "(12.8–150)"."""
    if as_range:
        return f"({months_text(mc_low)}–{months_text(mc_high)})"
    return format_months(months) if math.isnan(months) else months_text(months)


#: How an end is printed (:func:`end_form`): the number of the record's ``ci_{end}``, or its Monte Carlo range.
END_FORMS = {False: "number", True: "range"}


def end_form(ranged: bool) -> str:
    """An end's form in a record: "range" where every surface prints its Monte Carlo range ``ci_{end}_mc_low``–
    ``ci_{end}_mc_high`` in place of its months (:func:`as_range`), "number" where it prints ``ci_{end}``."""
    return END_FORMS[bool(ranged)]


def as_range(result, end: str) -> bool:
    """Whether a result's ``end`` ("low" or "high") is printed as its Monte Carlo range: determined and not precise."""
    return bool(getattr(result, f"{end}_determined", False)) and not getattr(result, f"{end}_precise", True)


def result_end(result, end: str) -> str:
    """A :class:`~densing.trend.uncertainty.TrendUncertainty`'s ``end`` ("low" or "high") by :func:`end_words`."""
    value = result.doubling_time_months_ci_low if end == "low" else result.doubling_time_months_ci_high
    return end_words(
        value,
        getattr(result, f"months_{end}_mc_low", math.nan),
        getattr(result, f"months_{end}_mc_high", math.nan),
        as_range(result, end),
    )


def interval_after(low: str, high: str, ranged: bool, *, brackets: str = "[]", level: str = "", more: str = "") -> str:
    """An interval as it follows its number, one notation on every surface: " [2.96–17.1]" (in ``brackets``, after
    ``level`` words such as "95% CI ", before ``more`` such as ", 5.7-fold"), or, where an end is printed as its Monte
    Carlo range (``ranged``), ", 95% CI from 2.96 to (33.2–237)" and ``more``: a range's parentheses never sit inside
    an interval's brackets, and no dash joins a range to the other end."""
    if ranged:
        return f", 95% CI from {low} to {high}{more}"
    return f" {brackets[0]}{level}{low}–{high}{more}{brackets[1]}"


def result_interval(result, *, brackets: str = "[]", level: str = "", more: str = "") -> str:
    """A result's interval after its number by :func:`interval_after`, each end by :func:`result_end`."""
    ranged = as_range(result, "low") or as_range(result, "high")
    return interval_after(
        result_end(result, "low"), result_end(result, "high"), ranged, brackets=brackets, level=level, more=more
    )


def record_interval(row, *, brackets: str = "[]", level: str = "") -> str:
    """A row record's interval after its number by :func:`interval_after`, each end by :func:`record_end`."""
    ranged = record_as_range(row, "low") or record_as_range(row, "high")
    return interval_after(record_end(row, "low"), record_end(row, "high"), ranged, brackets=brackets, level=level)


def range_legend(draws) -> str:
    """What an end in parentheses is, said once beside every table or sentence that prints one; ``draws``: the draws
    of the rows or rules an end of which is printed so (one count, or several: their range)."""
    return f"an end in parentheses (a–b) is its {monte_carlo_range_words(draws)}"


def monte_carlo_range_words(draws) -> str:
    """What an end's Monte Carlo range is ("95% Monte Carlo range, which 2,400 draws do not narrow to within 25% of
    it"), after the words that name the end (:func:`range_legend`, the verdict's note); ``draws``: as there."""
    counts = sorted({int(n) for n in ([draws] if isinstance(draws, (int, np.integer)) else draws)})
    said = f"{counts[0]:,} draws do" if len(counts) == 1 else f"their draws ({counts[0]:,}–{counts[-1]:,}) do"
    return f"95% Monte Carlo range, which {said} not narrow to within {END_STABILITY:.0%} of it"


def ranges_words(result) -> str:
    """Every end printed as its range (:func:`as_range`) named by its end: "the upper end's Monte Carlo range
    18.8–31.6 months" (the rows' ``precision``); "" where none is."""
    return "; ".join(
        f"the {'lower' if end == 'low' else 'upper'} end's Monte Carlo range "
        f"{months_text(getattr(result, f'months_{end}_mc_low'))}–"
        f"{months_text(getattr(result, f'months_{end}_mc_high'))} months"
        for end in ("low", "high")
        if as_range(result, end)
    )


def determined_words(result) -> str:
    """What the draws determine: "3.61 months [95% CI 2.59–5.1]" (both ends; :func:`result_interval`), "3.61 months,
    at least 2.59 at 95%; the upper end not determined" (one), or the interval and "neither end determined"."""
    est, level = months_text(result.doubling_time_months), f"{result.level:.0%}"
    lo, hi = result_end(result, "low"), result_end(result, "high")
    interval = result_interval(result, level=f"{level} CI ")
    return {
        (True, True): f"{est} months{interval}",
        (True, False): f"{est} months, at least {lo} at {level}; the upper end not determined",
        (False, True): f"{est} months, at most {hi} at {level}; the lower end not determined",
        (False, False): f"{est} months{interval}; neither end determined",
    }[(bool(result.low_determined), bool(result.high_determined))]


def uncertainty_repr(result) -> str:
    """A :class:`~densing.trend.uncertainty.TrendUncertainty`'s ``repr``."""
    reasons = reasons_text(result) if result.state not in (None, State.MEASURED) else ""
    return (
        f"TrendUncertainty({result.rule}, {state_words(result.state) or 'state not judged'}: doubling time "
        f"{determined_words(result)}, A = {result.slope_per_day:.3g}/day [{result.slope_ci_low:.3g}, "
        f"{result.slope_ci_high:.3g}], {counted_noun(result.n_models, 'model')}, "
        f"{counted_noun(result.n_references, 'reference')}"
        + (f"; Q p = {result.heterogeneity_p:.2g}, I² = {result.i_squared:.0%}" if result.heterogeneity_df else "")
        + (f"; {status_words(result)}" if reasons else "")
        + ")"
    )


def summary_items(result) -> list[tuple[str, object]]:
    """The first lines of a result's ``summary()``: its state, what is determined, the largest family move."""
    items = [("state", state_words(result.state) or NOT_JUDGED), ("doubling time", determined_words(result))]
    if (top := result.largest_influence()) is not None:
        items.append(
            (
                "leave one family out",
                f"without {name_text(top.family)} ({counted_noun(top.n_models, 'model')}): "
                f"{float(top.doubling_time_months):.3g} months (the largest move; every family: influence_frame())",
            )
        )
    return items


def row_parts(row) -> tuple[str, tuple[str, ...]]:
    """A :class:`densing.trend.capability.Row`'s status as (head, reasons) (:func:`status_parts`)."""
    if row.result is not None:
        return status_parts(row.result)
    error = row_reason(row.reason)
    return STATE_WORDS[State.NOT_MEASURED], (error,) if error else ()


def row_status(row) -> str:
    """A :class:`densing.trend.capability.Row`'s one status wherever it is shown: :func:`row_parts`, joined."""
    return joined(*row_parts(row))


#: The words of each reason a row is left out of a trend that needs no number (:class:`densing.states.LeftOut`).
LEFT_OUT_WORDS = {
    LeftOut.NO_DATE: "no release date",
    LeftOut.NO_STDERR: "no standard error and no item count for its benchmark",
    LeftOut.OWN: "defines the reference",
    LeftOut.INCOMPLETE: "a score missing on the row's benchmarks",
}


def left_out_reason(code: str, detail=None, *, date_column: str = "release_date", value_column: str = "density") -> str:
    """Why a row is left out of a trend (a :class:`densing.states.LeftOut` code and its ``detail``), in words: "released
    before 2023-02-24", "censored: no finite N̂", "non-positive density (0.0)", …; ``date_column`` and ``value_column``:
    the frame's (:func:`densing.trend.targets.prepare`)."""
    if code in LEFT_OUT_WORDS:
        return LEFT_OUT_WORDS[code]
    if code == LeftOut.BEFORE:
        return f"released before {detail}"
    if code == LeftOut.ON_OR_AFTER:
        return f"released on or after {detail}"
    if code == LeftOut.CENSORED:
        return f"censored: {detail}"
    if code == LeftOut.MISSING_DATE:
        return f"missing {date_column}"
    if code == LeftOut.NON_FINITE:
        return f"non-finite {value_column} ({detail!r})"
    if code == LeftOut.NON_POSITIVE:
        return f"non-positive {value_column} ({float(detail)!r})"
    return str(code)


def left_out_frame(left: pd.DataFrame) -> pd.DataFrame:
    """The targets left out of a trend (:func:`densing.trend.targets.trend_targets`' ``model, reason, detail``, a row's
    :attr:`densing.trend.selection.CommonTargets.left_out`) as a reader sees them: ``model`` and ``reason`` in words
    (:func:`left_out_reason`), the other columns as they are, less ``detail``."""
    said = [left_out_reason(code, detail) for code, detail in zip(left["reason"].tolist(), _details(left))]
    return left.drop(columns="detail", errors="ignore").assign(reason=pd.Series(said, index=left.index, dtype=object))


def excluded_reasons(excluded: pd.DataFrame) -> list[str]:
    """Each row of :func:`densing.trend.targets.prepare`'s ``excluded`` frame (``row``, the label, the date and the
    value columns, ``reason``, ``detail``) left out, in words (:func:`left_out_reason`, naming its date and value
    columns)."""
    date_column, value_column = excluded.columns[2], excluded.columns[3]
    return [
        left_out_reason(code, detail, date_column=date_column, value_column=value_column)
        for code, detail in zip(excluded["reason"].tolist(), _details(excluded))
    ]


def compression_frame(pairs: pd.DataFrame) -> pd.DataFrame:
    """:func:`densing.trend.corollaries.compression_density`'s pairs as a reader sees them: a ``note`` ("no density for
    compressed model 'x' (censored: …)"; None where both have a density) in place of ``compressed_left_out`` and
    ``parent_left_out``."""
    notes = []
    for child, parent, *left in pairs[
        ["compressed_model", "parent_model", "compressed_left_out", "parent_left_out"]
    ].itertuples(index=False):
        said = [
            f"no density for {role} model {name!r}"
            + ("" if why[0] == LeftOut.ABSENT else f" ({left_out_reason(*why, date_column='release_date')})")
            for role, name, why in zip(("compressed", "parent"), (child, parent), left)
            if why is not None
        ]
        notes.append("; ".join(said) or None)
    return pairs.drop(columns=["compressed_left_out", "parent_left_out"]).assign(
        note=pd.Series(notes, index=pairs.index, dtype=object)
    )


def _details(frame: pd.DataFrame) -> list:
    """A frame's ``detail`` cells as they were given (None for each where it has none)."""
    return frame["detail"].astype(object).tolist() if "detail" in frame.columns else [None] * len(frame)


def unreachable_words(u) -> str:
    """A member with no size at D0 (:class:`densing.laws.forms.Unreachable`, made in densing.present.words so that the
    budget notes need not load :mod:`densing.present.laws`) as a sentence: its N and D, its loss and
    the floor every size stays above at D0."""
    return (
        f"member {u.member} (N = {format_count(u.params)}, D = {format_count(u.tokens)}): its loss "
        f"{format_number(u.loss, digits=4)} is below what any size reaches at D0 = {format_count(u.d0)} "
        f"(every size stays above {format_number(u.floor, digits=4)})"
    )


def budget_note(note) -> str:
    """What the budget sensitivity left out of a reference, or why it dropped it
    (:class:`densing.trend.capability.BudgetNote`), in words: each member with no size at D0, then "fewer than 3 sizes at
    D0: dropped" (the reference rule's :data:`~densing.laws.eligibility.MIN_SIZES`) or "refit at D0 fails: " and the refit's error (each member's sentence:
    :func:`unreachable_words`)."""
    from densing.laws.eligibility import MIN_SIZES  # loaded with the budget rows that made the note

    parts = [unreachable_words(u) for u in note.missing]
    if note.dropped:
        parts.append(f"fewer than {MIN_SIZES} sizes at D0: dropped")
    if note.refit_error is not None:
        parts.append(f"refit at D0 fails: {note.refit_error}")
    return "; ".join(parts)


def budget_notes(m) -> dict[str, str]:
    """A measurement's budget notes (:attr:`densing.trend.measurement.TrendMeasurement.budget_notes`), reference →
    :func:`budget_note`."""
    return {name: budget_note(note) for name, note in m.budget_notes.items()}


def row_reason(reason) -> str:
    """Why a :class:`densing.trend.capability.Row` has no trend, in words; "" for None."""
    if reason is None:
        return ""
    if isinstance(reason, NoFamilyScored):
        return f"no family of the table has three models scored on {', '.join(reason.benchmarks)}"
    if isinstance(reason, NoFamilyPasses):
        passing = (
            "; eligible on one only: " + ", ".join(f"{f} ({b})" for f, b in reason.eligible_on_one)
            if reason.eligible_on_one
            else ""
        )
        count = reason.n_benchmarks
        if count == 1:
            them = "it"
        elif count == 2:
            them = "two of them"
        else:
            them = f"the {count} of them"
        return (
            f"no family passes the reference rule on {them} ("
            + ", ".join(f"{count} fail {code}" for code, count in reason.failures)
            + passing
            + "; the candidate table says which)"
        )
    return str(reason)


def row_label(row) -> str:
    """A :class:`densing.trend.capability.Row`'s label as a reader sees it: its label, with the variant of its
    references' fits where it is not the default (:class:`densing.trend.plan.Variant`: at one budget D0, or the law
    logistic in ln N)."""
    d0, shape = getattr(row, "d0", None), getattr(row, "shape", "power")  # a stored row's record holds neither
    if d0 is not None:
        return f"{row.label} at D0 = {format_count(d0)}"
    if shape != "power":
        return f"{row.label}, family law logistic in ln N"
    return row.label


def row_record(row) -> dict:
    """A :class:`densing.trend.capability.Row` as one row of ``densing trend --by benchmark``'s table."""
    r = row.result
    own = r.reference_months if r is not None else {}
    top = r.largest_influence() if r is not None else None  # the family whose removal moves the estimate most

    def of(name: str, default=math.nan):
        return default if r is None else getattr(r, name)

    return {
        "row": row.name,
        "label": row_label(row),
        "capability": row.capability,
        "status": row_status(row),
        "benchmarks": ",".join(row.benchmarks),
        "chance": row.chance,
        "references": ", ".join(map(str, row.references)),
        "n_references": len(row.references),
        "months": of("doubling_time_months"),
        "ci_low": of("doubling_time_months_ci_low"),
        "ci_high": of("doubling_time_months_ci_high"),
        "slope_per_day": of("slope_per_day"),
        "slope_ci_low": of("slope_ci_low"),
        "slope_ci_high": of("slope_ci_high"),
        "n_models": of("n_models", 0),
        "heterogeneity": heterogeneity_words(r) if r is not None else "",
        **{
            name: of(name)
            for name in (
                "heterogeneity_q",
                "heterogeneity_p",
                "i_squared",
                "share_fit",
                "share_score",
                "share_models",
                "share_reference",
            )
        },
        "each_reference_months": "; ".join(
            f"{name_text(k.family)} {months_text(v)} [{months_text(lo)}–{months_text(hi)}]"
            for (k, v), lo, hi in zip(
                own.items(),
                r.reference_months_low or [math.nan] * len(own),
                r.reference_months_high or [math.nan] * len(own),
            )
        )
        if r is not None
        else "",
        "state": row.state.value,
        "low_determined": of("low_determined", False),
        "high_determined": of("high_determined", False),
        "ci_high_beyond": of("months_high_mc_low"),
        "n_draws": of("n_boot", 0),
        **{f"ci_{end}_{edge}": of(f"months_{end}_{edge}") for end in ("low", "high") for edge in ("mc_low", "mc_high")},
        **{
            f"ci_{end}_precise": (not as_range(r, end) if of(f"{end}_determined", False) else None)
            for end in ("low", "high")
        },
        **ends_printed(r),
        "precision": ranges_words(r) if r is not None else "",
        "n_ceiling_bounds": of("n_ceiling_bounds", 0),
        "months_without_ceilings": of("months_without_ceilings"),
        "n_floor_bounds": of("n_floor_bounds", 0),
        "months_without_floors": of("months_without_floors"),
        "n_region_bounds": of("n_region_bounds", 0),
        "months_without_region": of("months_without_region"),
        "most_influential_family": str(top.family) if top is not None else "",
        "months_without_it": float(top.doubling_time_months) if top is not None else math.nan,
        "error": row_reason(row.reason),
    }


def ends_printed(result) -> dict:
    """A row record's ends as every surface prints them: ``ci_{end}_form`` (:func:`end_form`: "range", where the end is
    its Monte Carlo range ``ci_{end}_mc_low``–``ci_{end}_mc_high`` and not ``ci_{end}``) and ``ci_{end}_printed``, the
    text the terminal, the report and the JSON give ("2.96", "(33.2–237)", "∞"; "—" for a row not measured)."""
    shown = result is not None and result.state is not State.NOT_MEASURED
    return {
        **{f"ci_{end}_form": end_form(shown and as_range(result, end)) for end in ("low", "high")},
        **{f"ci_{end}_printed": result_end(result, end) if shown else "—" for end in ("low", "high")},
    }


def rows_frame(rows: list):
    """The rows as a table (``densing trend --by benchmark``): :func:`row_record` of each."""
    return pd.DataFrame([row_record(r) for r in rows])


def record_as_range(row, end: str) -> bool:
    """Whether a row record's (:func:`row_record`, a stored record's row) ``end`` is printed as its Monte Carlo range:
    its ``ci_{end}_precise`` is False (None or absent: a number)."""
    flag = row.get(f"ci_{end}_precise")
    return flag is not None and not pd.isna(flag) and not bool(flag)


def record_end(row, end: str) -> str:
    """A row record's ``end`` ("low" or "high") by :func:`end_words`; an end stored as None is ∞."""
    value = row.get(f"ci_{end}")
    value = math.inf if value is None else float(value)
    return end_words(
        value, row.get(f"ci_{end}_mc_low", math.nan), row.get(f"ci_{end}_mc_high", math.nan), record_as_range(row, end)
    )


#: The columns of a row record (:func:`row_record`) that say each end's precision: its Monte Carlo range, its flag,
#: its form and its printed text (:func:`ends_printed`).
PRECISION_COLUMNS = tuple(
    f"ci_{end}_{what}" for end in ("low", "high") for what in ("mc_low", "mc_high", "precise", "form", "printed")
)


def ends_shown(frame: pd.DataFrame, *, keep: bool = False) -> pd.DataFrame:
    """``frame`` (rows of :func:`row_record`) as a person reads it: an end printed as its range "(14.5–20.8)"
    (:func:`record_as_range`), "—" for a row not measured, the precision columns left out unless ``keep``."""
    if "state" in frame.columns and (frame["state"] == State.NOT_MEASURED.value).any():
        gone = frame["state"] == State.NOT_MEASURED.value
        frame = frame.astype({c: object for c in ("months", "ci_low", "ci_high") if c in frame.columns})
        frame.loc[gone, [c for c in ("months", "ci_low", "ci_high") if c in frame.columns]] = NumberText("—")
    if not {"ci_low_precise", "ci_high_precise"} <= set(frame.columns):
        return frame
    out = _ranges_written(frame, frame.to_dict("records"), record_as_range, record_end)
    return out if keep else out.drop(columns=[c for c in PRECISION_COLUMNS if c in out.columns])


def _ranges_written(table: pd.DataFrame, items: list, is_range, end_text) -> pd.DataFrame:
    """``table`` with each end of ``items`` (its rows' records or results) that ``is_range`` written as ``end_text``."""
    out = table.copy()
    for end in ("low", "high"):
        if any(is_range(r, end) for r in items):
            out[f"ci_{end}"] = [
                NumberText(end_text(r, end)) if is_range(r, end) else v for r, v in zip(items, table[f"ci_{end}"])
            ]
    return out


def rule_ends_shown(table: pd.DataFrame, results) -> pd.DataFrame:
    """A measurement's rules table (:meth:`densing.trend.measurement.TrendMeasurement.table`, one row per rule in the
    order of ``results``, its rules' trends) with each end printed as its range written so (:func:`result_end`)."""
    return _ranges_written(table, list(results), as_range, result_end)


def rules_legend(results) -> str:
    """:func:`range_legend` where an end of ``results`` is printed as its range (with their draws); "" else."""
    draws = [int(r.n_boot) for r in results if as_range(r, "low") or as_range(r, "high")]
    return range_legend(draws) if draws else ""


def frame_fold_legend(frame: pd.DataFrame) -> str:
    """:data:`FOLD_LEGEND` where a row of ``frame`` (rows of :func:`row_record`) is measured (its status says
    "-fold"); "" else."""
    measured = "state" in frame.columns and (frame["state"] == State.MEASURED.value).any()
    return FOLD_LEGEND if measured else ""


def shown_legend(frame: pd.DataFrame) -> str:
    """:func:`range_legend` of the rows an end of which :func:`ends_shown` writes as a range; "" where none is."""
    if not len(frame) or not {"ci_low_precise", "ci_high_precise"} <= set(frame.columns):
        return ""
    records = frame.to_dict("records")
    draws = [int(r.get("n_draws", 0)) for r in records if record_as_range(r, "low") or record_as_range(r, "high")]
    return range_legend(draws) if draws else ""
