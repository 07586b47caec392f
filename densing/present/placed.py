"""What a reader sees of a placement (:class:`~densing.placement.measure.MeasureResult`, ``densing measure`` and
``densing.place``): its summary, one paragraph per model, and its figure, registered with :func:`~.shown.summary` and
:func:`~.shown.figure`. A module of its own, loaded by :mod:`densing.present`'s public functions and display and by the
commands that place models, so that ``densing trend`` never loads the placement package. The placed models hold
values and codes (:func:`densing.placement.place.place_models`); their words (the ``words`` and ``frontier_note``
columns, :func:`placed_frame`) are made here."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from densing.display import (
    CHANCE_STDERRS,
    INTERVAL_REACHES,
    LOWER_BOUND,
    NEAR_CHANCE,
    NO_READING,
    UPPER_BOUND,
    density_reading,
)
from densing.errors import InputError
from densing.numbers import format_count, format_number
from densing.placement.measure import MeasureResult
from densing.placement.place import (
    AFTER,
    NO_SCORE,
    SPAN_VALUES,
    UNDETERMINED,
    VERDICT_VALUES,
    DateSource,
)
from densing.present.shown import figure, summary
from densing.present.summaries import Summary
from densing.present.words import left_out_reason


def _listed(names: str) -> str:
    """A column's comma-joined benchmarks (``inverted``, ``missing``) as a reader's list."""
    return names.replace(",", ", ")


def frontier_note(r: Mapping) -> str:
    """How far outside the frontier line's dates a placed model's date lies (the line is extrapolated there), from its
    ``frontier_outside`` and ``frontier_months_outside`` (:func:`densing.placement.place.frontier_at`); "" within."""
    outside = r.get("frontier_outside") or ""
    if not outside:
        return ""
    where = (
        f"after the line's last model ({r['frontier_last_date']})"
        if outside == AFTER
        else f"before the line's first model ({r['frontier_first_date']})"
    )
    return (
        f"{r['release_date']} is {format_number(r['frontier_months_outside'])} months {where}: the line is extrapolated"
    )


def chance_words(r: Mapping) -> str:
    """A placed model's inverted scores within :data:`~densing.display.CHANCE_STDERRS` standard errors of chance
    (``chance_scores``) and, where every one is, how many items would make the density a number (``chance_items``:
    :func:`densing.placement.place._chance_scores`), in words; "" where none is near chance."""
    notes = [
        f"{benchmark} {format_number(value)} is within {CHANCE_STDERRS:g} standard errors ({format_number(stderr)}) "
        f"of chance ({chance:g})"
        for benchmark, value, stderr, chance in r.get("chance_scores") or ()
    ]
    items = r.get("chance_items")
    if notes and items is not None and not (isinstance(items, float) and math.isnan(items)):
        benchmark, now, needed = items
        clear = math.isfinite(needed) and math.isfinite(now) and now > 0
        notes.append(
            f"too few items for a number: {benchmark}'s standard error is that of about {now:,.0f} "
            f"items, and about {math.ceil(needed):,} would take its score {CHANCE_STDERRS:g} standard "
            "errors clear of chance"
            if clear
            else "more items cannot make it a number: no score is above chance"
        )
    return "; ".join(notes)


def _density_words(reading: str, stated: float, why: str, r: Mapping, chance: str) -> str:
    """The density in words, as the rule reads it (:func:`densing.display.density_reading`)."""
    g = format_number
    sign = "≤" if reading == UPPER_BOUND else "≥"
    if reading == UPPER_BOUND and r.get("below_members"):
        smallest = r.get("smallest_member", math.nan)
        size = f" ({format_count(smallest)} parameters)" if math.isfinite(smallest) else ""
        return (
            f"ρ ≤ {g(stated)}: its scores lie below the reference's smallest member{size}, where the law "
            "identifies no size, so the density is a bound, not a number"
        )
    if why == NEAR_CHANCE:
        return (
            f"ρ ≤ {g(stated)} (the 95% interval's upper end; {chance or why}, so the density is a bound, not a number)"
        )
    if why == "censored":
        side = "at or below" if reading == UPPER_BOUND else "beyond"
        return f"ρ {sign} {g(stated)} (a {reading}: the score is {side} what the reference can resolve)"
    if reading in (UPPER_BOUND, LOWER_BOUND):
        end = "upper" if reading == UPPER_BOUND else "lower"
        reaches = INTERVAL_REACHES[reading]
        return f"ρ {sign} {g(stated)} (the 95% interval's {end} end; its {reaches}, so the density is a bound, not a number)"
    if reading == NO_READING:
        return f"ρ undetermined ({why})"
    return f"ρ = {g(r['density'])} (95% CI {g(r['density_ci_low'])}–{g(r['density_ci_high'])})"


def placed_words(r: Mapping) -> str:
    """One placed model (a row of :func:`densing.placement.place.place_models`) in words: its density as the rule
    reads it, its side of the frontier line at its date (the line's band and dates, a date outside them), the scores
    near chance, its place against the band and the benchmarks it has no score on; or why it is not inverted."""
    g = format_number
    if r.get("not_inverted"):
        why = r["not_inverted"]
        if why == NO_SCORE:
            return f"not inverted: no score on {_listed(r['missing'])}"
        return f"not inverted: {left_out_reason(why, r.get('not_inverted_detail'))}"
    reading, value, why = density_reading(
        r["density"], r["bound"], r["density_ci_low"], r["density_ci_high"], bool(r.get("near_chance", False))
    )
    line, side = r["frontier_density"], r["frontier"]
    date = f"{r['release_date']}" + (
        " (today: no release_date given)" if r.get("release_date_source") == DateSource.TODAY.value else ""
    )
    low = r.get("frontier_density_ci_low", math.nan)
    band = f" (its slope's 95% band {g(low)}–{g(r['frontier_density_ci_high'])})" if math.isfinite(low) else ""
    against = f"the frontier line's ρmax {g(line)}{band} at {date}"
    if side == UNDETERMINED:
        verdict = f"undetermined against {against} (" + (
            "no reading)" if reading == NO_READING else "a bound on the line's far side)"
        )
    elif r.get("interval_includes_line"):
        verdict = f"{side} {against}, though the 95% interval includes the line"
    else:
        verdict = f"{side} {against}"
    note = frontier_note(r)
    span = (
        f"; the line spans {r['frontier_first_date']} to {r['frontier_last_date']}" + (f" ({note})" if note else "")
        if r.get("frontier_first_date")
        else ""
    )
    chance = chance_words(r)
    noted = f"; {chance}" if chance and why != NEAR_CHANCE else ""
    placed = r.get("band", UNDETERMINED)
    words = f"{_density_words(reading, value, why, r, chance)}; {verdict}{span}{noted}" + (
        f"; {placed} the band" if placed != UNDETERMINED else ""
    )
    if r.get("missing"):
        words += f"; no score on {_listed(r['missing'])}, which the reference inverts with {_listed(r['inverted'])}"
    return words


#: The columns a reader sees in place of a placed model's values: each shown column and the values it stands for.
SHOWN_IN_PLACE = {"frontier_note": SPAN_VALUES, "words": VERDICT_VALUES}


def placed_frame(placed) -> pd.DataFrame:
    """The placed models as a reader sees them (the CSV of ``densing measure --csv``, the report's and the figure's
    rows): :func:`densing.placement.place.place_models`' values (``placed``: a :class:`MeasureResult` or its
    ``to_frame()``) with ``frontier_note`` (:func:`frontier_note`) and ``words`` (:func:`placed_words`) in place of
    the values they say (:data:`SHOWN_IN_PLACE`)."""
    frame = placed.to_frame() if isinstance(placed, MeasureResult) else placed
    records = frame.to_dict("records")
    said = {"frontier_note": [frontier_note(r) for r in records], "words": [placed_words(r) for r in records]}
    shown = {}
    for column in frame.columns:
        for name, values in SHOWN_IN_PLACE.items():
            if column == values[0]:
                shown[name] = said[name]
        if not any(column in values for values in SHOWN_IN_PLACE.values()):
            shown[column] = frame[column]
    return pd.DataFrame(shown, index=frame.index)


def _items(count) -> str:
    """`` (n items)`` where the scores say how many items were scored, else nothing."""
    if count is None or pd.isna(count):
        return ""
    return f" ({int(count)} items)"


def protocol_words(result: MeasureResult) -> str:
    """The suite as evaluated, in words: its name and how many items per task; for scores given, the file they come
    from (:func:`densing.placement.own_scores.scores_suite`)."""
    if not result.evaluated:
        return f"scores from {result.suite or 'a table'}"
    if result.limit is None:
        return f"{result.suite} on the full splits"
    return f"{result.suite} on at most {result.limit:g} items per task (--limit)"


def placement_summary(result: MeasureResult) -> Summary:
    """A placement in words, one paragraph per model."""
    lines = [
        f"{protocol_words(result)}; inverted on {', '.join(result.inverted_benchmarks)} through {result.reference}, "
        f"the headline's reference; frontier: the {result.frontier_rule} line ln ρmax = A·t + B."
    ]
    if result.left_out:
        lines.append(f"Left out (no local split): {', '.join(result.left_out)}.")
    for r in result.models.to_dict("records"):
        scores = ", ".join(
            f"{k.removeprefix('score:')} {format_number(v)}{_items(r.get('items:' + k.removeprefix('score:')))}"
            for k, v in r.items()
            if k.startswith("score:") and not pd.isna(v)
        )
        lines.append(f"{r['model']}: {scores}. {placed_words(r)}.")
    return Summary(lines[0], lines=tuple(lines[1:]))


def placement_figure(result: MeasureResult):
    """The report's density figure (a plotly ``Figure``) with the placed models drawn as labelled stars against the
    headline's frontier line (the measurement's density figure, :func:`~.shown.figure`)."""
    if result.measurement is None:
        raise InputError("measurement: this result keeps no headline measurement to draw against")
    return figure(result.measurement, "density", rule=result.frontier_rule, highlight=placed_frame(result))


summary.register(MeasureResult, placement_summary)
figure.register(MeasureResult, placement_figure)
