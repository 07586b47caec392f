"""The pooled law of the three tables in words (``densing trend --table all``'s screen, :class:`densing.trend.
pooled_trend.PooledTrend`'s summary, the report's section "One law from three harnesses"): each sentence made here from
the record's values (:func:`densing.trend.pooled_tables.pooled_law`), once for every surface."""

from __future__ import annotations

import math

from densing.numbers import format_months, format_number
from densing.present.summaries import Summary, Table


def not_shown_words(message: str) -> str:
    """The one line that says why the three tables' pooled law is not shown: ``message``, the error that stopped it
    (:func:`densing.designs.three_tables.pooled.measured`)."""
    return f"The three tables' pooled law is not shown: {message}"


def interval_words(record: dict) -> str:
    """``"5.35 months (95% CI 2.63–47.1)"`` of an estimate's record (an infinite end as ∞)."""
    return (
        f"{format_months(record['doubling_time_months'])} months (95% CI {format_months(record['ci_low'])}–"
        f"{format_months(record['ci_high'])})"
    )


def test_words(test: dict, names: list[str], slope: float) -> str:
    """The common-slope test in one sentence; not rejected, with the smallest slope ratio between tables it detects
    (``test["detectable_per_day"]``, one per table of ``names``, over the pooled ``slope``), and in words that a
    p-value is no evidence of one slope where that ratio exceeds the declaration's 1.5× (:data:`densing.trend.
    slope_test.DECLARED_RATIO`)."""
    from densing.trend.slope_test import DECLARED_RATIO

    start = (
        f"common slope: Cochran's Q = {test['q']:.2f} on {test['df']} df (Hotelling's T², {test['draws']} "
        f"draws), p = {test['p_value']:.2g}: "
    )
    if test["rejected"]:
        return start + "one slope across tables rejected: the tables disagree"
    detectable = [(d, name) for d, name in zip(test["detectable_per_day"], names) if math.isfinite(d)]
    if not detectable or not slope > 0:
        return start + (
            "one slope across tables not rejected; the draws do not say what slope difference the test "
            "could detect, so the p-value is no evidence that the tables share one slope"
        )
    difference, easiest = min(detectable)
    ratio = 1 + difference / slope
    power = f"{100 * test['power']:.0f}% power at {test['alpha']:g}"
    if ratio <= DECLARED_RATIO:
        return start + (
            f"one slope across tables not rejected; the test detects a table whose slope is "
            f"{format_number(ratio, '.2g')}× the others' ({easiest}; {power})"
        )
    return start + (
        f"one slope across tables not rejected, which is no evidence that they share one: the test detects "
        f"only a table whose slope is at least {format_number(ratio, '.2g')}× the others' ({easiest}, the "
        f"most detectable; {power}), not the {DECLARED_RATIO:g}× difference the declaration sizes it at, "
        f"and the scales absorb part of a steeper table's slope"
    )


def lab_words(found: dict) -> str:
    """Leave one lab out: the first lab's move and the largest of the others'."""
    labs = found["leave_one_lab_out"]
    first = labs[0]
    words = (
        f"leave one lab out: without {first['lab']} ({first['n_points']} points) "
        f"{format_months(first['doubling_time_months'])} months"
    )
    if len(labs) > 1:
        other = labs[1]
        words += f"; the largest other move: without {other['lab']} {format_months(other['doubling_time_months'])}"
    return words


def late_words(late: dict) -> str:
    """The late frontier's labs in words (one lab said so)."""
    if late["n_labs"] == 0:
        return f"late frontier after {late['after']}: no exact point at or above the pooled line"
    if late["n_labs"] == 1:
        return f"late frontier after {late['after']}: it has one lab, {late['labs'][0]}"
    return f"late frontier after {late['after']}: {late['n_labs']} labs ({', '.join(late['labs'])})"


def table_out_words(found: dict) -> str:
    """Leave one table out, each removal's doubling time."""
    without = "; ".join(
        f"{r['table']} {format_months(r['doubling_time_months'])}" for r in found["leave_one_table_out"]
    )
    return f"leave one table out: without {without} months"


#: What the figure shown says of its bias, by the headline's ``uncorrected_because`` code
#: (:func:`densing.trend.pooled_bias.headline`): corrected, within the threshold (nothing said), or not corrected
#: (the correction's own line says why: a stale or a missing record).
CORRECTION_STATE_WORDS = {
    "": "bias-corrected",
    "within_threshold": "",
    "stale": "uncorrected",
    "missing_or_damaged": "uncorrected",
}


def figure_words(shown: dict) -> str:
    """The figure every surface leads with (:func:`densing.trend.pooled_bias.headline`): ``"8.1 months (95% CI
    4.3–63), measured, bias-corrected"``."""
    said = CORRECTION_STATE_WORDS[shown["uncorrected_because"]]
    return f"{interval_words(shown)}, {shown['state']}" + (f", {said}" if said else "")


def headline_words(found: dict, shown: dict) -> str:
    """The pooled law's first sentence: the figure shown (``shown``, :func:`densing.trend.pooled_bias.headline`),
    its interval, state and correction, and what it pools."""
    pooled = found["pooled"]
    return (
        f"One Densing Law from three harnesses, on the public table's scale: {figure_words(shown)}; "
        f"{pooled['n_points']} points of {pooled['n_models']} models from {pooled['n_labs']} labs, "
        f"{pooled['n_boot']} draws of labs, families, noise and scales."
    )


def _bias_words(world) -> str:
    """A world's bias of the pooled slope: ``"+27.6% ± 2.7"``."""
    return f"{100 * world.bias:+.1f}% ± {100 * world.bias_se:.1f}"


def correction_clauses(found, pooled: dict) -> list[str]:
    """The bias correction's line on ``densing trend --table all``'s screen as clauses, the first the answer (the
    screen drops trailing ones that do not fit its width): ``found`` is :func:`densing.trend.pooled_bias.looked_up`'s
    answer (a correction, or a stale, missing or damaged record) and ``pooled`` the estimator's own figure (said where
    it is corrected; where it is not, it is the figure the screen leads with, and the line says why)."""
    from densing.trend.pooled_bias import STUDY, StaleBias

    own = f"the estimator's own figure: {interval_words(pooled)}"
    if isinstance(found, StaleBias):
        return [
            f"uncorrected: its bias record is stale, measured at {format_months(found.measured_at)} months, not "
            f"{format_months(found.shown)}",
            f"run {STUDY} again",
        ]
    if isinstance(found, Exception):
        return [f"uncorrected: no bias record: {found}"]
    applied = found.record.applied
    if found.applied is None:
        return [f"bias in planted worlds {_bias_words(applied)}, within {format_number(100 * found.threshold)}%"]
    return [
        own,
        f"its bias {_bias_words(applied)} in worlds planted at {format_months(applied.planted_months)} months",
        f"with no late frontier family {format_months(found.sensitivity.months)}",
    ]


def correction_sentence(found, pooled: dict) -> str:
    """The bias correction in one sentence for the report: the applied world's bias of the pooled point (median ±
    its Monte Carlo error, its replicates and draws, where it is planted), the estimator's own figure beside the
    corrected one, and the sensitivity world's; or that the record is stale or missing or damaged, and so the figure
    shown is the estimator's own."""
    from densing.trend.pooled_bias import RECORD_WORDS, STUDY, StaleBias

    own = f"the estimator's own figure is {interval_words(pooled)}"
    if isinstance(found, StaleBias):
        return f"Not bias-corrected, {own}: the bias record is stale ({found})."
    if isinstance(found, Exception):
        return f"Not bias-corrected, {own}: {found}."
    applied, side = found.record.applied, found.sensitivity
    said = (
        f"Bias of the pooled slope in worlds planted like the three rows ({STUDY}, {RECORD_WORDS}; the median over "
        f"{applied.replicates} replicates of {applied.draws} draws, planted at the figure it corrects, "
        f"{format_months(applied.planted_months)} months): {_bias_words(applied)}"
    )
    if found.applied is None:
        return f"{said}, within {format_number(100 * found.threshold)}%: no correction."
    return (
        f"{said}; {own}, corrected by it to {interval_words(found.applied.to_dict())} (moved by the factor, "
        f"widened by the bias's Monte Carlo error); with no family held at the late frontier ({side.world.words}) "
        f"the bias is {_bias_words(side.world)} and the corrected figure {format_months(side.months)} months."
    )


def side_lines(found: dict) -> list[str]:
    """The sentences beside the pooled figure: the test, leave one table out, leave one lab out, the late frontier,
    the sensitivity with no common scale and the forecast check's verdict."""
    from densing.present.findings import forecast_verdict  # pandas with it: not for the command line's --help

    forecast = found["forecast"]
    names = [table["table"] for table in found["tables"]]
    return [
        test_words(found["common_slope"], names, found["pooled"]["slope_per_day"]),
        table_out_words(found),
        lab_words(found),
        late_words(found["late_frontier"]),
        f"no common scale (the tables' own slopes by random effects): {interval_words(found['no_common_scale'])}",
        f"forecast check at {forecast.cutoff}: {forecast_verdict(forecast)}",
    ]


def pooled_summary(result) -> Summary:
    """A :class:`~densing.trend.pooled_trend.PooledTrend`'s summary: the headline sentence and the sides, its fields,
    and one table row per table (its own doubling time on the common scale, a and s with their intervals)."""
    return Summary(
        "PooledTrend: one Densing Law from three harnesses",
        lines=(headline_words(result.record, result.headline), *side_lines(result.record)),
        items=tuple(result._summary_items()),
        tables=(Table.of(result.to_frame(), "each table on the common scale y_public = a + s·y_table"),),
    )


#: Each table's colour on the pooled chart (:data:`densing.present.forest.PALETTE`'s first three).
TABLE_COLOURS = {"public": "#1f77b4", "openllm_v2": "#ff7f0e", "swallow": "#2ca02c"}
#: A point's marker by its kind, as the report's density chart draws them: (bound, symbol, words).
KIND_MARKERS = (
    (0.0, "circle", "exact"),
    (1.0, "triangle-up", "a lower bound (▲: at least this)"),
    (-1.0, "triangle-down", "an upper bound (▼: at most this)"),
)


def pooled_figure(result):
    """The three tables' points on the common scale over release dates (a colour per table; exact ●, a lower bound ▲,
    an upper bound ▼, as the density chart draws them) with the pooled line ln ρmax = A·t + B and its slope's 95% band
    (:meth:`densing.trend.pooled_trend.PooledTrend.confidence_band`), ρ on a log axis."""
    import numpy as np
    import pandas as pd
    import plotly.graph_objects as go

    from densing.numbers import log_ticks
    from densing.present.figures import band_trace

    points = result.points.assign(release_date=pd.to_datetime(result.points["release_date"]))
    points = points.assign(density=np.exp(points["log_density"]))
    figure = go.Figure()
    for table in result.names:
        own = points[points["table"] == table]
        for bound, symbol, words in KIND_MARKERS:
            rows = own[own["bound"] == bound]
            if len(rows):
                figure.add_trace(
                    go.Scatter(
                        x=rows["release_date"],
                        y=rows["density"],
                        mode="markers",
                        name=f"{table}: {words}",
                        legendgroup=table,
                        text=rows["model"],
                        hovertemplate="%{text}<br>%{x|%Y-%m-%d}, ρ %{y:.3g}<extra></extra>",
                        marker=dict(color=TABLE_COLOURS.get(table, "#7f7f7f"), symbol=symbol, size=8, opacity=0.8),
                    )
                )
    dates = pd.date_range(points["release_date"].min(), points["release_date"].max(), periods=80)
    low, high = result.confidence_band(dates)
    figure.add_trace(band_trace(dates, low, high, "95% CI of the pooled slope (labs, families, noise, scales)"))
    figure.add_trace(
        go.Scatter(
            x=dates,
            y=np.exp(result.predict(dates)),
            mode="lines",
            hoverinfo="skip",
            line=dict(color="#d62728", width=2),
            name=f"pooled line, the estimator's own (before its bias correction): {interval_words(result.record['pooled'])}",
        )
    )
    shown = np.log10(points["density"].to_numpy(float))
    y_range = [float(shown.min()) - 0.3, float(shown.max()) + 0.3]
    tickvals, ticktext = log_ticks(*y_range)
    figure.update_layout(
        title="Three tables on the public table's scale, one pooled line",
        xaxis=dict(title="release date"),
        yaxis=dict(
            title="capacity density ρ on the common scale",
            type="log",
            range=y_range,
            tickvals=tickvals,
            ticktext=ticktext,
        ),
        height=620,
        margin=dict(l=60, r=20, t=60, b=200),
        legend=dict(orientation="h", x=0, y=0, yanchor="bottom", yref="container"),
    )
    return figure


def band_words(band: str) -> str:
    """Where a placed model sits against the pooled band (:func:`densing.placement.pooled_place.band_place`'s code)
    as the table and the closing line say it: above, within, below, or undetermined against."""
    from densing.placement.place import UNDETERMINED

    return "undetermined against" if band == UNDETERMINED else band


def placed_frame(frame):
    """The models placed against the pooled law (:func:`densing.placement.pooled_place.place_pooled`'s frame) as the
    terminal's table and ``--csv`` show them: the ``band`` in words (:func:`band_words`)."""
    return frame.assign(band=[band_words(b) for b in frame["band"]])


def placed_answer(row: dict) -> str:
    """One placed model against the pooled law (:func:`densing.placement.pooled_place.place_pooled`'s row) in words:
    its ρ on the common scale (a value or a bound), the protocol it was read in, where it sits against the band."""
    from densing.display import BOUND_SIGNS
    from densing.numbers import format_number

    if row["reading"] == "none":
        density = "no density"
    else:
        density = f"ρ {BOUND_SIGNS.get(row['reading'], '= ')}{format_number(row['density'], '.3g')}"
    return (
        f"{row['model']}: {density} on the common scale (read in the {row['protocol']} protocol, mapped by "
        f"a = {format_number(row['a'], '.3g')}, s = {format_number(row['s'], '.3g')}), {band_words(row['band'])} the pooled "
        f"band at {row['release_date']} ({format_number(row['band_low'], '.3g')}–"
        f"{format_number(row['band_high'], '.3g')})"
    )


__all__ = [
    "KIND_MARKERS",
    "TABLE_COLOURS",
    "headline_words",
    "interval_words",
    "lab_words",
    "late_words",
    "band_words",
    "placed_answer",
    "placed_frame",
    "pooled_figure",
    "pooled_summary",
    "side_lines",
    "table_out_words",
    "test_words",
]
