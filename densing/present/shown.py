"""What a reader sees of each result: its summary, its status and other words, its figures and the JSON record with
its words in place. Every surface (the CLI, the report, the notebook, the JSON) asks here.

The results (:mod:`densing.results` and every type under densing/trend, densing/laws and densing/placement) hold values
and state codes only and import nothing of this layer: the seam runs one way. Each function below takes a result and
makes what is shown of it; where the words depend on the result's type, the function is a
:func:`functools.singledispatch` registered here, for the types this module imports (the placed models' are registered
by :mod:`densing.present.placement`, so that ``densing trend`` never loads the placement package). A notebook's cell
and a result's text repr reach :func:`summary` and :func:`text` through the one display :mod:`densing.present`
installs (:func:`densing.results.install_display`). The figures load plotly only when one is drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import singledispatch
from importlib import import_module
from numbers import Real

import pandas as pd

from densing.constants import PAPER
from densing.laws.reference_fit import ReferenceFit
from densing.numbers import counted_noun, format_count, format_number
from densing.present import findings, pooled, verdict, words
from densing.present.summaries import Summary, Table
from densing.results import Result
from densing.states import JudgedInterval
from densing.trend.capability import Row
from densing.trend.checks import Check
from densing.trend.corollaries import CostHalvingFit
from densing.trend.fixed_size import FixedSizeFit
from densing.trend.forecast import ForecastCutoff, ForecastWindows
from densing.trend.measurement import Segment, TrendMeasurement
from densing.trend.pooled_trend import PooledTrend
from densing.trend.uncertainty import TrendUncertainty
from densing.validation import Interval, validate_params

# -- a result's status, verdict and the other words of one value -----------------------------------------------------


@singledispatch
def status(result) -> str:
    """A result's state and reasons in words, the one status every surface shows for it."""
    raise TypeError(f"{type(result).__name__} has no status")


def judged_interval_status(result: JudgedInterval) -> str:
    """An interval judged by the one state rule from its ends (:func:`densing.present.words.status_words`)."""
    return words.status_words(result)


status.register(JudgedInterval, judged_interval_status)


def trend_uncertainty_status(result: TrendUncertainty) -> str:
    """A trend's status; a rule beside the headline's, whose ends carry no Monte Carlo range and no state, judged by
    the one state rule from its ends (:class:`~densing.states.JudgedInterval`)."""
    if result.state is None:
        result = JudgedInterval(result.doubling_time_months_ci_low, result.doubling_time_months_ci_high, result.n_boot)
    return words.status_words(result)


status.register(TrendUncertainty, trend_uncertainty_status)


def fixed_size_fit_status(result: FixedSizeFit) -> str:
    """A fixed-size fit's state and reason (:func:`densing.present.findings.fixed_size_status`)."""
    return findings.fixed_size_status(result)


status.register(FixedSizeFit, fixed_size_fit_status)


def row_status(row: Row) -> str:
    """A row's one status wherever it is shown (:func:`densing.present.words.row_status`)."""
    return words.row_status(row)


status.register(Row, row_status)


def trend_measurement_status(m: TrendMeasurement) -> str:
    """The headline's state and reasons (:func:`densing.present.verdict.measurement_status`)."""
    return verdict.measurement_status(m)


status.register(TrendMeasurement, trend_measurement_status)


@singledispatch
def verdict_of(result) -> str:
    """The first sentence a reader can cite of a result."""
    raise TypeError(f"{type(result).__name__} has no verdict")


def trend_measurement_verdict_of(m: TrendMeasurement) -> str:
    """The headline's verdict (:func:`densing.present.verdict.measurement_verdict`)."""
    return verdict.measurement_verdict(m)


verdict_of.register(TrendMeasurement, trend_measurement_verdict_of)


def forecast_cutoff_verdict_of(cutoff: ForecastCutoff) -> str:
    """A cutoff's outcome in a sentence, or why there is none (:func:`densing.present.findings.forecast_verdict`)."""
    return findings.forecast_verdict(cutoff)


verdict_of.register(ForecastCutoff, forecast_cutoff_verdict_of)


def why(m: TrendMeasurement) -> str:
    """The sentences after the headline's verdict (:func:`densing.present.verdict.measurement_why`)."""
    return verdict.measurement_why(m)


def headline(m: TrendMeasurement) -> str:
    """The verdict and why, in one paragraph."""
    return verdict.measurement_headline(m)


def reference_rule(m: TrendMeasurement) -> str:
    """How the headline's references were chosen (:func:`densing.present.verdict.references_words`)."""
    return verdict.references_words(m.references_by)


def table_words(m: TrendMeasurement) -> str:
    """The measured table in words (:func:`densing.present.verdict.table_words`)."""
    return verdict.table_words(m)


def rests_on(m: TrendMeasurement) -> str:
    """What the headline rests on, one sentence each (:func:`densing.present.verdict.rests_on_words`)."""
    return verdict.rests_on_words(m.rules.get(m.headline_rule))


def row_error(row: Row) -> str:
    """Why a row has no trend (:func:`densing.present.words.row_reason`); "" where it has one."""
    return words.row_reason(row.reason)


def outcome(cutoff: ForecastCutoff) -> str:
    """A cutoff's outcome's name: "ahead", "holds", "behind" or "no verdict" (:data:`~.findings.OUTCOME_NAMES`)."""
    return findings.OUTCOME_NAMES[cutoff.state]


def note(segment: Segment) -> str:
    """Why a side of the breakpoint has no fit (:func:`densing.present.verdict.segment_note`)."""
    return verdict.segment_note(segment)


def threshold(check: Check) -> str:
    """What a check tests against (:func:`densing.present.findings.check_threshold`)."""
    return findings.check_threshold(check)


def detail(check: Check) -> str:
    """What a check found (:func:`densing.present.findings.check_detail`)."""
    return findings.check_detail(check)


#: The fields of a result type a reader sees in words, each in its field's place: field → (the name shown, its words).
#: The record (:func:`record`) and the default summary (:func:`summary`) show these, never the value behind them.
IN_WORDS: dict[type, dict[str, tuple[str, Callable]]] = {
    TrendUncertainty: {"judged": ("status", status)},
    FixedSizeFit: {"state": ("status", status)},
    ForecastCutoff: {"state": ("outcome", outcome), "reason": ("verdict", verdict_of)},
    TrendMeasurement: {
        "references_by": ("reference_rule", reference_rule),
        "headline_set": ("headline_set", verdict.headline_set_words),
        "table_name": ("table_words", table_words),
    },
    Segment: {"error": ("note", note)},
}


def shown_items(result: Result) -> list[tuple[str, object]]:
    """A result's (name, value) pairs as a reader sees them: its ``_summary_items()``, each field of :data:`IN_WORDS`
    replaced by its words under the name shown."""
    in_words = IN_WORDS.get(type(result), {})
    items = []
    for name, value in result._summary_items():
        if name in in_words:
            shown_as, said = in_words[name]
            items.append((shown_as, said(result)))
        else:
            items.append((name, value))
    return items


# -- summaries -------------------------------------------------------------------------------------------------------


@singledispatch
def summary(result) -> Summary:
    """A result as a reader sees it (``print`` it for the terminal's text; a notebook shows its HTML): by default its
    type's name, then its (name, value) pairs with the words of :data:`IN_WORDS` in place."""
    return Summary(type(result).__name__, items=tuple(shown_items(result)))


def trend_uncertainty_summary(result: TrendUncertainty) -> Summary:
    """A trend's summary: the state and what is determined first (:func:`densing.present.words.summary_items`),
    then the fields (the leave-one-family-out items left to :meth:`TrendUncertainty.influence_frame`)."""
    items = words.summary_items(result) + [(n, v) for n, v in shown_items(result) if n != "influence"]
    return Summary(type(result).__name__, items=tuple(items))


summary.register(TrendUncertainty, trend_uncertainty_summary)


def reference_fit_summary(fit: ReferenceFit) -> Summary:
    """A reference fit as a reader sees it: its title, bootstrap, parameters with intervals, stages' diagnostics."""
    title = f"{fit.kind} reference fit · {fit.benchmark} ({fit.metric}) · D0 = {format_count(fit.d0)} tokens"
    stages = pd.DataFrame(
        [(s.law, s.n_points, s.r_squared, s.rmse, s.converged) for s in fit.stages],
        columns=["stage", "points", "R²", "RMSE", "converged"],
    )
    lines = (f"bootstrap: {len(fit.bootstrap)} resamples (seed {fit.provenance.get('seed')})",) if fit.bootstrap else ()
    return Summary(
        title, lines=lines, tables=(Table.of(fit.parameter_ci(), "parameters"), Table.of(stages, "diagnostics"))
    )


summary.register(ReferenceFit, reference_fit_summary)


def cost_halving_fit_summary(fit: CostHalvingFit) -> Summary:
    """The inference price trend: the line, its fit and the halving time with its interval."""
    return Summary(
        f"Inference price trend  ln price(t) = A·t + B   frontier: {fit.frontier}",
        lines=(
            f"A = {fit.slope_per_day:.6g} /day  B = {fit.intercept:.4g}  R² = {fit.r_squared:.3f}  points {fit.n_points}",
            (
                f"halving time {format_number(fit.halving_time_days)} days = {format_number(fit.halving_time_months)} "
                f"months, {fit.ci:.0%} bootstrap CI [{format_number(fit.halving_time_days_ci_low)}, "
                f"{format_number(fit.halving_time_days_ci_high)}] days"
            ),
        ),
    )


summary.register(CostHalvingFit, cost_halving_fit_summary)


def forecast_windows_summary(windows: ForecastWindows) -> Summary:
    """The forecast check: the declared cutoff's verdict first (where the table declares one), then the rule's grid."""
    lines = tuple(f"  {findings.cutoff_words(c)}" for c in windows.cutoffs)
    cutoffs = counted_noun(len(windows.cutoffs), "cutoff")
    if windows.declared is None:
        return Summary(f"Forecast windows of {windows.row}: {cutoffs}", lines=lines)
    head = f"Forecast check of {windows.row} at its declared cutoff {findings.cutoff_words(windows.declared)}"
    more = (f"  the rule's grid, not declared ({cutoffs}):",) + lines if lines else ()
    return Summary(head, lines=more)


summary.register(ForecastWindows, forecast_windows_summary)


summary.register(PooledTrend, pooled.pooled_summary)
summary.register(TrendMeasurement, verdict.measurement_summary)


# -- a result's text repr (the display's ``text``) ---------------------------------------------------------------------


@singledispatch
def text(result) -> str:
    """A result in one line for a terminal's repr: by default its summary's text."""
    return str(summary(result))


text.register(TrendUncertainty, words.uncertainty_repr)
text.register(TrendMeasurement, verdict.measurement_repr)


# -- figures ---------------------------------------------------------------------------------------------------------


def _figures():
    """:mod:`densing.present.figures`, loaded (and plotly with it) on the first figure."""
    return import_module("densing.present.figures")


@singledispatch
def figure(result, *args, **options):
    """A result's figure (a plotly ``Figure``), as the report draws it."""
    raise TypeError(f"{type(result).__name__} has no figure")


@validate_params({"paper_months": [Interval(Real, 0, None, closed="neither"), None]})
def uncertainty_figure(result: TrendUncertainty, *, paper_months: float | None = None, title: str | None = None):
    """The doubling time, interval and shares, beside each reference's own and the paper's 3.3 months (or
    ``paper_months``) (:func:`densing.present.figures.uncertainty_figure`)."""
    shown = PAPER["doubling_time_months"] if paper_months is None else paper_months
    return _figures().uncertainty_figure(result, shown, title=title)


figure.register(TrendUncertainty, uncertainty_figure)


def trend_measurement_figure(
    m: TrendMeasurement, kind: str = "density", *, rule: str | None = None, highlight: pd.DataFrame | None = None
):
    """The report's own figure for a notebook: ``kind`` ``"density"`` (Xiao et al. 2024, eq. 5: the line of ``rule``,
    its band, ``highlight`` a user's models as stars), ``"size"`` (ρ against N) or ``"benchmarks"`` (a forest plot of
    the rows beside the paper's 3.3 months) (:func:`densing.present.figures.measurement_figure`)."""
    return _figures().measurement_figure(m, kind, rule=rule, highlight=highlight)


figure.register(TrendMeasurement, trend_measurement_figure)


figure.register(PooledTrend, pooled.pooled_figure)
