"""A row's knife edges (:class:`densing.trend.knife_edge.KnifeEdges`) in words and as JSON: how many targets lie within
±0.5 standard errors of a censoring boundary, and the largest moves of the point when one crosses one
(``densing trend --detail``, ``--format json``'s ``headline.knife_edges``, ``studies/knife_edge.py``)."""

from __future__ import annotations

import math

from densing.laws.region import REASON_WORDS, Reason
from densing.numbers import counted_noun, format_number, json_number
from densing.trend.knife_edge import CROSS, SHOWN_MOVES, SHOWN_SHARE, WINDOW, Boundary

#: Each boundary's name in words.
BOUNDARY_WORDS = {
    Boundary.FLOOR: "chance floor",
    Boundary.CEILING: "ceiling",
    Boundary.BOTTOM_EDGE: "bottom edge",
    Boundary.TOP_EDGE: "top edge",
}
#: Where the method is told, named after every knife-edge line.
METHOD = 'docs/method.md, "The knife-edge"'


def months_words(value: float) -> str:
    """A point doubling time of a crossing, to the thousandth of a month its moves need ("3.755"; "no rise" where the
    line no longer rises)."""
    return format_number(value, ".3f") if math.isfinite(value) else "no rise"


def move_words(value: float) -> str:
    """A move of the point, signed, to the thousandth of a month ("−0.034"; "no rise" where the line stops rising)."""
    return format_number(value, "+.3f") if math.isfinite(value) else "no rise"


def kind_words(reading) -> str:
    """A :class:`~densing.trend.knife_edge.Reading`'s kind and, for a bound, its reason: "lower (at the ceiling on
    humaneval)", "exact"."""
    if reading.reason == Reason.EXACT:
        return reading.kind
    why = REASON_WORDS[Reason(reading.reason)] + (f" on {reading.benchmark}" if reading.benchmark else "")
    return f"{reading.kind} ({why})"


def reading_words(reading) -> str:
    """One :class:`~densing.trend.knife_edge.Reading` under its reference: "Qwen1.5: lower (at the ceiling on
    humaneval)", "Qwen2: exact"."""
    return f"{reading.reference}: {kind_words(reading)}"


def reading_change_words(move) -> str:
    """What a crossing changed in the target's readings: "Qwen1.5: lower (at the ceiling on humaneval) → exact" per
    reference whose reading changed, or "readings unchanged"."""
    changed = [
        f"{reading_words(before)} → {kind_words(after)}"
        for before, after in zip(move.readings_before, move.readings_after)
        if before != after
    ]
    return "; ".join(changed) if changed else "readings unchanged"


def crossing_words(crossing) -> str:
    """Which boundary a target crosses: "microsoft/phi-2 across the ceiling under Qwen1.5 on humaneval"."""
    under = f" under {crossing.reference}" if crossing.reference else ""
    return f"{crossing.model} across the {BOUNDARY_WORDS[crossing.boundary]}{under} on {','.join(crossing.benchmarks)}"


def moved_words(move) -> str:
    """A crossing and its move of the point: "… across the ceiling under Qwen1.5 on humaneval: 3.755 → 3.720 months
    (−0.034); Qwen1.5: lower (at the ceiling on humaneval) → exact"."""
    return (
        f"{crossing_words(move.crossing)}: {months_words(move.months_before)} → {months_words(move.months_after)} "
        f"months ({move_words(move.move)}); {reading_change_words(move)}"
    )


def knife_edge_words(edges) -> str:
    """``densing trend --detail``'s lines on the headline row's knife edges: how many targets lie within ±0.5 SE of a
    boundary (and how many crossings), then one line per move named
    (:meth:`~densing.trend.knife_edge.KnifeEdges.largest`), the largest first; "" for None (no headline row)."""
    if edges is None:
        return ""
    head = (
        f"knife edges: {counted_noun(edges.n_targets, 'target')} within ±{WINDOW:g} standard errors of a "
        f"censoring boundary ({counted_noun(len(edges.moves), 'crossing')})"
    )
    if not edges.moves:
        return f"{head}; {METHOD}"
    largest = edges.largest()
    if not largest:
        return f"{head}; no crossing moves the point; {METHOD}"
    which = "the largest move" if len(largest) == 1 else f"the {len(largest)} largest moves"
    lines = [
        f"{head}; {which} of the point when one target crosses one boundary ({CROSS:g} SE past it, the row's "
        f"weights kept; at most {SHOWN_MOVES} moves, each at least {SHOWN_SHARE:.0%} of the largest; {METHOD}):"
    ]
    lines += [f"  {rank}. {moved_words(m)}" for rank, m in enumerate(largest, 1)]
    return "\n".join(lines)


def reading_record(reading) -> dict:
    """A :class:`~densing.trend.knife_edge.Reading` as JSON (``reference``, ``kind``, ``reason`` in words,
    ``benchmark``)."""
    return {
        "reference": reading.reference,
        "kind": reading.kind,
        "reason": REASON_WORDS[Reason(reading.reason)],
        "benchmark": reading.benchmark,
    }


def move_record(move) -> dict:
    """A :class:`~densing.trend.knife_edge.Move` as JSON: the target, the boundary (kind, reference, benchmarks), its
    distance in standard errors before the move, the point before and after and the move (months), the readings."""
    c = move.crossing
    return {
        "model": c.model,
        "boundary": c.boundary.value,
        "reference": c.reference or None,
        "benchmarks": list(c.benchmarks),
        "distance_stderrs": json_number(c.distance),
        "months_before": json_number(move.months_before),
        "months_after": json_number(move.months_after),
        "move_months": json_number(move.move),
        "readings_before": [reading_record(r) for r in move.readings_before],
        "readings_after": [reading_record(r) for r in move.readings_after],
    }


def knife_edges_record(edges) -> dict | None:
    """``--format json``'s ``headline.knife_edges``: the window and the crossing's step (SE), the targets within reach,
    the crossings, the rule of the moves named and the moves it names, the largest first (None for None)."""
    if edges is None:
        return None
    return {
        "window_stderrs": WINDOW,
        "cross_stderrs": CROSS,
        "n_targets": edges.n_targets,
        "n_crossings": len(edges.moves),
        "months": json_number(edges.months),
        "largest_rule": f"the largest moves by |move_months|, at most {SHOWN_MOVES}, each at least "
        f"{SHOWN_SHARE:g} of the largest; none where no crossing moves the point",
        "largest": [move_record(m) for m in edges.largest()],
    }
