"""Every result's words, summary and figures, registered for the type it renders (:func:`densing.results.register`;
a result's thin method asks by name through :func:`densing.results.presented`, which loads this module on first use).
This module imports the result types, none of them imports it; the figures load plotly only when one is drawn.
"""

from __future__ import annotations

from importlib import import_module

import pandas as pd

from densing.laws.reference_fit import ReferenceFit
from densing.numbers import counted_noun, format_count, format_number
from densing.placement.measure import MeasureResult
from densing.present import findings, knife_edge, pooled, verdict, words
from densing.present.summary import Summary, Table
from densing.results import Result, register
from densing.states import JudgedInterval
from densing.trend.capability import Row
from densing.trend.checks import Check
from densing.trend.corollaries import CostHalvingFit
from densing.trend.fixed_size import FixedSizeFit
from densing.trend.forecast import ForecastCutoff, ForecastWindows
from densing.trend.measurement import TrendMeasurement
from densing.trend.pooled_trend import PooledTrend
from densing.trend.uncertainty import TrendUncertainty


def result_summary(result: Result) -> Summary:
    """A result's default summary: its type's name, then the (name, value) pairs of its ``_summary_items()``."""
    return Summary(type(result).__name__, items=tuple(result._summary_items()))


def uncertainty_summary(result: TrendUncertainty) -> Summary:
    """A trend's summary: the state and what is determined first (:func:`densing.present.words.summary_items`),
    then the fields (the leave-one-family-out items left to :meth:`TrendUncertainty.influence_frame`)."""
    items = words.summary_items(result) + [(n, v) for n, v in result._summary_items() if n != "influence"]
    return Summary(type(result).__name__, items=tuple(items))


def fit_summary(fit: ReferenceFit) -> Summary:
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


def halving_summary(fit: CostHalvingFit) -> Summary:
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


def windows_summary(windows: ForecastWindows) -> Summary:
    """The forecast check: the declared cutoff's verdict first (where the table declares one), then the rule's grid."""
    lines = tuple(f"  {findings.cutoff_words(c)}" for c in windows.cutoffs)
    cutoffs = counted_noun(len(windows.cutoffs), "cutoff")
    if windows.declared is None:
        return Summary(f"Forecast windows of {windows.row}: {cutoffs}", lines=lines)
    head = f"Forecast check of {windows.row} at its declared cutoff {findings.cutoff_words(windows.declared)}"
    more = (f"  the rule's grid, not declared ({cutoffs}):",) + lines if lines else ()
    return Summary(head, lines=more)


def _items(count) -> str:
    """`` (n items)`` where the scores say how many items were scored, else nothing."""
    return "" if count is None or pd.isna(count) else f" ({int(count)} items)"


def placement_summary(result: MeasureResult) -> Summary:
    """A placement in words, one paragraph per model."""
    lines = [
        f"{result.protocol()}; inverted on {', '.join(result.inverted_benchmarks)} through {result.reference}, "
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


def cross_check(m: TrendMeasurement) -> pd.DataFrame:
    """The two estimators of each row side by side (:meth:`TrendMeasurement.cross_check`)."""
    rows = m.by_benchmark().set_index("row")
    shown = rows[["months", "ci_low", "ci_high", "status", *(c for c in words.PRECISION_COLUMNS if c in rows.columns)]]
    return pd.DataFrame(
        [
            {
                "row": r.row,
                **shown.loc[r.row].to_dict(),
                "fixed_size_months": r.doubling_time_months,
                "fixed_size_ci_low": r.doubling_time_months_ci_low,
                "fixed_size_ci_high": r.doubling_time_months_ci_high,
                "fixed_size_status": r.status,
            }
            for r in m.fixed_size.itertuples(index=False)
            if r.row in shown.index
        ]
    )


def _figure(drawn):
    """A ``plot`` rendering: the function ``drawn(figures)`` picks from :mod:`densing.present.figures`, loaded (and
    plotly with it) on the first figure."""
    return lambda *args, **options: drawn(import_module("densing.present.figures"))(*args, **options)


register(Result, summary=result_summary)
register(ReferenceFit, summary=fit_summary)
register(MeasureResult, summary=placement_summary)
register(CostHalvingFit, summary=halving_summary)
register(PooledTrend, summary=pooled.pooled_summary, plot=pooled.pooled_figure)
register(ForecastWindows, summary=windows_summary)
register(ForecastCutoff, outcome=lambda c: findings.OUTCOME_NAMES[c.state], verdict=findings.forecast_verdict)
register(FixedSizeFit, status=findings.fixed_size_status)
register(JudgedInterval, status=words.status_words)
register(Check, threshold=findings.check_threshold, detail=findings.check_detail)
register(Row, error=lambda row: words.row_reason(row.reason), status=lambda row: words.joined(*words.row_parts(row)))


def _judged_status(result) -> str:
    """A trend's status; a rule beside the headline's, whose ends carry no Monte Carlo range and no state, judged by
    the one state rule from its ends (:class:`~densing.states.JudgedInterval`)."""
    if result.state is None:
        result = JudgedInterval(result.doubling_time_months_ci_low, result.doubling_time_months_ci_high, result.n_boot)
    return words.status_words(result)


register(
    TrendUncertainty,
    status=_judged_status,
    summary=uncertainty_summary,
    repr=words.uncertainty_repr,
    plot=_figure(lambda figures: figures.uncertainty_figure),
)
register(
    TrendMeasurement,
    reference_rule=lambda m: verdict.references_words(m.references_by),
    status=verdict.measurement_status,
    verdict=verdict.measurement_verdict,
    why=verdict.measurement_why,
    summary=verdict.measurement_summary,
    repr=verdict.measurement_repr,
    headline_summary=verdict.headline_summary,
    rests_on=lambda m: verdict.rests_on_words(m.rules.get(m.headline_rule)),
    by_benchmark=lambda m: words.rows_frame([*m.benchmark_rows, *m.set_rows]),
    by_benchmark_at_budget=lambda m: words.rows_frame(list(m.budget_rows)),
    cross_check=cross_check,
    breakpoint_line=lambda m: verdict.breakpoint_words(m.breakpoint),
    knife_edges_record=lambda m: knife_edge.knife_edges_record(m.knife_edges()),
    plot=_figure(lambda figures: figures.measurement_figure),
)
