"""What a reader sees of a placement (:class:`~densing.placement.measure.MeasureResult`, ``densing measure`` and
``densing.place``): its summary, one paragraph per model, and its figure, registered with :func:`~.shown.summary` and
:func:`~.shown.figure`. A module of its own, loaded by :mod:`densing.present`'s public functions and display and by the
commands that place models, so that ``densing trend`` never loads the placement package."""

from __future__ import annotations

import pandas as pd

from densing.errors import InputError
from densing.numbers import format_number
from densing.placement.measure import MeasureResult
from densing.present.shown import figure, summary
from densing.present.summaries import Summary


def _items(count) -> str:
    """`` (n items)`` where the scores say how many items were scored, else nothing."""
    if count is None or pd.isna(count):
        return ""
    return f" ({int(count)} items)"


def protocol_words(result: MeasureResult) -> str:
    """The suite as evaluated, in words: its name and how many items per task (the name alone for scores given)."""
    if not result.evaluated:
        return result.suite
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
        lines.append(f"{r['model']}: {scores}. {r['words']}.")
    return Summary(lines[0], lines=tuple(lines[1:]))


def placement_figure(result: MeasureResult):
    """The report's density figure (a plotly ``Figure``) with the placed models drawn as labelled stars against the
    headline's frontier line (the measurement's density figure, :func:`~.shown.figure`)."""
    if result.measurement is None:
        raise InputError("measurement: this result keeps no headline measurement to draw against")
    return figure(result.measurement, "density", rule=result.frontier_rule, highlight=result.models)


summary.register(MeasureResult, placement_summary)
figure.register(MeasureResult, placement_figure)
