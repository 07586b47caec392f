"""What a reader sees of a result, and the one place words are made: the summary (:mod:`.summaries`), a row's words
(:mod:`.words`), the headline's (:mod:`.verdict`), the findings' (:mod:`.findings`), the trend's figures
(:mod:`.figures`, :mod:`.forest`), and for each result type its summary, status and figure (:mod:`.shown`, a placement's
in :mod:`.placed`) and its JSON record and tables with their words in place (:mod:`.records`).

The seam between values and words runs one way: the results (:mod:`densing.results`, densing/trend, densing/laws,
densing/placement) hold values and state codes and import none of this layer; this layer imports them. Every surface
asks here: the CLI and the report import the modules they need, a notebook calls the functions this package lends by
name (``densing.present.summary(result)``, ``densing.present.figure(result)``, ``status``, ``record``, …, loaded with
every type's rendering on first use), and a notebook's cell shows a result through the one display this package
installs as it loads (:func:`densing.results.install_display`), so that ``_repr_html_`` is a thin hook with no registry
of words behind it. Loading this package loads none of the result types: ``densing trend`` imports the word modules it
prints and never the placement package.
"""

from __future__ import annotations

import sys
from importlib import import_module

from densing import results as _results

#: The functions lent by name (``densing.present.NAME``): each one's module, loaded on first use with
#: :mod:`.placed`, so that every result type's rendering is registered before a notebook asks.
PUBLIC = {
    "summary": "densing.present.shown",
    "figure": "densing.present.shown",
    "status": "densing.present.shown",
    "verdict_of": "densing.present.shown",
    "why": "densing.present.shown",
    "headline": "densing.present.shown",
    "reference_rule": "densing.present.shown",
    "rests_on": "densing.present.shown",
    "row_error": "densing.present.shown",
    "outcome": "densing.present.shown",
    "threshold": "densing.present.shown",
    "detail": "densing.present.shown",
    "text": "densing.present.shown",
    "record": "densing.present.records",
    "document": "densing.present.records",
    "by_benchmark": "densing.present.records",
    "by_benchmark_at_budget": "densing.present.records",
    "cross_check": "densing.present.records",
    "checks_table": "densing.present.records",
    "measurement_frame": "densing.present.records",
    "windows_frame": "densing.present.records",
    "headline_summary": "densing.present.records",
    "breakpoint_line": "densing.present.records",
    "sensitivity_frame": "densing.present.records",
    "references_frame": "densing.present.records",
    "fixed_size_frame": "densing.present.records",
    "forecast_record": "densing.present.records",
    "table_record": "densing.present.records",
    "placed_frame": "densing.present.placed",
    "left_out_frame": "densing.present.words",
    "compression_frame": "densing.present.words",
    "excluded_reasons": "densing.present.words",
}


def _every_rendering() -> None:
    """Load the modules that register a rendering for each result type (:mod:`.shown`, :mod:`.records`,
    :mod:`.placed`, :mod:`.laws`; :mod:`.olmes` once the OLMES design is loaded)."""
    for module in (
        "densing.present.shown",
        "densing.present.records",
        "densing.present.placed",
        "densing.present.laws",
    ):
        import_module(module)
    if "densing.designs.olmes.trend" in sys.modules:  # the OLMES design's summary (its result type is loaded)
        import_module("densing.present.olmes")


def _renderings_of_what_is_loaded() -> None:
    """Load the renderings of the result types a process has loaded: those of the trend and the laws, and a
    placement's once its module is loaded (a placed result exists only then; ``densing trend`` never loads it)."""
    import_module("densing.present.shown")
    if "densing.placement.measure" in sys.modules:
        import_module("densing.present.placed")
    if "densing.laws.olmo.check" in sys.modules:  # the ladder check's summary, with its findings
        import_module("densing.present.laws")
    if "densing.designs.olmes.trend" in sys.modules:  # the OLMES design's summary, with its rows' words
        import_module("densing.present.olmes")


def __getattr__(name: str):
    if name not in PUBLIC:
        raise AttributeError(f"module 'densing.present' has no attribute {name!r}")
    _every_rendering()
    return getattr(import_module(PUBLIC[name]), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *PUBLIC])


class _Display:
    """How a result shows itself: a notebook's cell (its summary's HTML) and a terminal's repr (:func:`.shown.text`),
    every rendering loaded on the first result shown."""

    def html(self, result) -> str:
        _renderings_of_what_is_loaded()
        return import_module("densing.present.shown").summary(result).as_html()

    def text(self, result) -> str:
        _renderings_of_what_is_loaded()
        return import_module("densing.present.shown").text(result)


_results.install_display(_Display())
