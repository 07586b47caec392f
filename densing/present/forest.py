"""The doubling time's figures (plotly): the forest plot per benchmark and set, and what a
:class:`densing.trend.uncertainty.TrendUncertainty` holds; what the trend's figures share (the palette, each family's
style, safe label text) and where their labels go.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from densing.data.benchmarks import BENCHMARKS
from densing.numbers import counted_noun, format_months, format_number
from densing.present.words import STATE_WORDS, not_measured, record_as_range, record_interval
from densing.states import State, stated_state

#: The forest plot's default title (the public table's rows); the OLMES design's plot passes its own.
FOREST_TITLE = "Doubling time by benchmark and benchmark set · the public leaderboard table"
#: What the forest plot draws for an end printed as its Monte Carlo range (:func:`drawn_ends`), said under it.
RANGE_DRAWN = "in the plot such an end is the shaded segment a–b at its bar's end, not a point"
#: Pixels per row of the forest plot: room under a not-measured estimate's bar for its status line.
FOREST_ROW = 34


def _short_reason(text: str, limit: int = 90) -> str:
    """A not-measured row's status up to its first parenthesis, cut at a word past ``limit`` characters."""
    text = " ".join(str(text).split())
    text = text.split(" (", 1)[0].rstrip(" :;,")
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0].rstrip(" :;,") + "…"


def row_state(row) -> State:
    """A row's :class:`~densing.states.State`: its ``state`` column, as the one state rule judged the row upstream
    (:meth:`~densing.states.State.from_ends`); a row without one is an error, never given a state here."""
    return stated_state(getattr(row, "state", None), f"forest plot row {getattr(row, 'row', '?')!r}")


#: The forest plot's legend: one entry per state that occurs (name, filled, colour, marker).
STATE_STYLES = {
    State.MEASURED: (f"{STATE_WORDS[State.MEASURED]} (point, 95% CI)", "#1f77b4", "circle"),
    State.BOUNDED: (f"{STATE_WORDS[State.BOUNDED]}: one end determined (point, 95% CI)", "#e07b00", "diamond"),
    State.NOT_MEASURED: (
        f"{STATE_WORDS[State.NOT_MEASURED]}: the estimate (point, 95% CI), grey",
        "#8a93a6",
        "circle-open",
    ),
}


def _drawn(rows: pd.DataFrame) -> list[float]:
    """The finite doubling times and interval ends the forest plot draws for ``rows`` (an end's Monte Carlo range
    too)."""
    ranges = tuple(f"ci_{end}_mc_{edge}" for end in ("low", "high") for edge in ("low", "high"))
    names = ("months", "ci_low", "ci_high", *ranges)
    columns = [pd.to_numeric(rows[c], errors="coerce").to_numpy(float) for c in names if c in rows.columns]
    return [v for data in columns for v in data[np.isfinite(data)]]


def drawn_ends(row: dict) -> tuple[float, float, list[tuple[float, float]]]:
    """A row record's interval as the forest plot draws it, each end in the form every surface prints
    (:func:`~densing.present.words.record_as_range`) → (the solid line's start and end, the shaded ranges): an end
    printed as its Monte Carlo range (a–b) ends the line at the range's inner edge and is drawn as the shaded segment
    a–b, never as its single quantile."""
    low, high = float(row["ci_low"]), float(row["ci_high"])
    ranges = []
    if record_as_range(row, "low"):
        ranges.append((float(row["ci_low_mc_low"]), float(row["ci_low_mc_high"])))
        low = ranges[-1][1]
    if record_as_range(row, "high"):
        ranges.append((float(row["ci_high_mc_low"]), float(row["ci_high_mc_high"])))
        high = ranges[-1][0]
    return low, high, ranges


def shown_name(benchmark: str) -> str:
    """A benchmark's name for a reader: its registered display name, else its id in capitals."""
    return getattr(BENCHMARKS.get(benchmark, None), "display", None) or benchmark.upper()


def row_names(rows) -> dict[str, str]:
    """Each row of a measurement (:class:`densing.trend.capability.Row`: its name, capability and benchmarks) → its name
    for a reader: a benchmark's own, a set's benchmarks by :func:`shown_name` joined by " + " with its short id ("MMLU +
    BBH + MATH-hard + HumanEval [paper]")."""
    return {
        r.name: " + ".join(map(shown_name, r.benchmarks)) + f" [{r.name}]" if r.capability == "set" else r.name
        for r in rows
    }


def _interval_lines(records: list[dict], labels: list[str], mine: list[int], edge: float) -> tuple[list, ...]:
    """The x and y of the rows ``mine``'s intervals, as plotly lines broken by None: finite segments, arrows (an upper
    end at ∞, its shaft to ``edge``) and the ends printed as their Monte Carlo ranges (:func:`drawn_ends`)."""
    segments_x, segments_y, arrows_x, arrows_y, ranges_x, ranges_y = [], [], [], [], [], []
    for i in mine:
        low, high, ranges = drawn_ends(records[i])
        if not np.isfinite(low) or np.isnan(high):  # no interval: the point alone
            continue
        for a, b in ranges:
            ranges_x += [a, b, None]
            ranges_y += [labels[i], labels[i], None]
        xs, ys = (segments_x, segments_y) if np.isfinite(high) else (arrows_x, arrows_y)
        xs += [low, high if np.isfinite(high) else edge, None]  # +∞: the arrow's shaft to the edge
        ys += [labels[i], labels[i], None]
    return segments_x, segments_y, arrows_x, arrows_y, ranges_x, ranges_y


def forest_figure(
    rows: pd.DataFrame, paper_months: float, *, title: str = FOREST_TITLE, names: dict[str, str] | None = None
) -> go.Figure:
    """Doubling time per benchmark and per benchmark set with its 95% interval (a forest plot), the paper's drawn.

    ``rows``: :func:`densing.present.records.by_benchmark`'s, labelled by ``names``
    (:func:`row_names`; default its ``row``); a row not measured shows its short reason; an end at ∞ is an arrow."""
    rows = rows.iloc[::-1].reset_index(drop=True)  # the first row on top
    labels = [f"{(names or {}).get(r.row, r.row)} · {r.capability}" for r in rows.itertuples()]
    drawn = [paper_months, *_drawn(rows)]
    records = rows.to_dict("records")
    edge = float(max(drawn) * 1.15)
    states = [row_state(r) for r in rows.itertuples()]
    reasons = [
        (str(getattr(r, "status", "") or "") or not_measured(str(getattr(r, "error", "") or "")))
        if state is State.NOT_MEASURED
        else ""
        for r, state in zip(rows.itertuples(), states)
    ]  # its status
    hover = [
        html.escape(
            f"{r.row}: "
            + (
                f"{'' if not why else 'estimate '}{format_months(r.months)} months"
                f"{record_interval(row, brackets='()', level='95% CI ')}; references {r.references}; each: "
                f"{r.each_reference_months}" + (f"; {why}" if why else "")
                if np.isfinite(r.months)
                else why
            )
        )
        for r, row, why in zip(rows.itertuples(), rows.to_dict("records"), reasons)
    ]
    figure = go.Figure()
    for state, (name, color, symbol) in STATE_STYLES.items():
        mine = [i for i, own in enumerate(states) if own is state and np.isfinite(rows.at[i, "months"])]
        if not mine:
            continue
        segments_x, segments_y, arrows_x, arrows_y, ranges_x, ranges_y = _interval_lines(records, labels, mine, edge)
        if segments_x:
            figure.add_trace(
                go.Scatter(
                    x=segments_x,
                    y=segments_y,
                    mode="lines",
                    line=dict(color=color, width=2),
                    name=f"{name}: interval",
                    legendgroup=name,
                    showlegend=False,
                    hoverinfo="skip",
                )
            )
        if ranges_x:  # an end printed as its Monte Carlo range: a shaded segment over it
            figure.add_trace(
                go.Scatter(
                    x=ranges_x,
                    y=ranges_y,
                    mode="lines",
                    line=dict(color=color, width=9),
                    opacity=0.35,
                    name=f"{name}: an end's 95% Monte Carlo range (a–b)",
                    legendgroup=name,
                    showlegend=False,
                    hoverinfo="skip",
                )
            )
        if arrows_x:  # the shaft, its head at the edge (not clipped) and ∞ beside it, outside the axis
            count = len(arrows_x) // 3
            figure.add_trace(
                go.Scatter(
                    x=arrows_x,
                    y=arrows_y,
                    mode="lines+markers+text",
                    cliponaxis=False,
                    legendgroup=name,
                    name=f"{name}: upper end at ∞ (arrow off the axis)",
                    showlegend=False,
                    hoverinfo="skip",
                    line=dict(color=color, width=2),
                    text=["", "∞", ""] * count,
                    textposition="middle right",
                    textfont=dict(size=15, color=color),
                    marker=dict(
                        symbol=["circle", "arrow-right", "circle"] * count,
                        size=[0, 13, 0] * count,
                        color=color,
                        line=dict(width=0),
                    ),
                )
            )
        figure.add_trace(
            go.Scatter(
                x=rows.loc[mine, "months"],
                y=[labels[i] for i in mine],
                mode="markers",
                name=name,
                legendgroup=name,
                marker=dict(size=9, color=color, symbol=symbol, line=dict(width=2, color=color)),
                text=[hover[i] for i in mine],
                hovertemplate="%{text}<extra></extra>",
            )
        )
    for i, why in enumerate(reasons):  # the status, on the plot at its row: under the row's line, at the left edge
        if why:
            shown = np.isfinite(rows.at[i, "months"])
            figure.add_annotation(
                x=0,
                y=labels[i],
                xref="paper",
                yref="y",
                xanchor="left",
                yanchor="top" if shown else "middle",
                xshift=4,
                yshift=-4 if shown else 0,
                text=html.escape(_short_reason(why)),
                hovertext=hover[i],
                showarrow=False,
                font=dict(size=10 if shown else 11, color="#8a1c1c"),
                bgcolor="rgba(255,255,255,0.8)",
            )
    empty = [i for i, why in enumerate(reasons) if why and not np.isfinite(rows.at[i, "months"])]
    if empty:  # the category axis keeps a row with nothing drawn on it: an invisible point holds its place
        figure.add_trace(
            go.Scatter(
                x=[0] * len(empty),
                y=[labels[i] for i in empty],
                mode="markers",
                showlegend=False,
                marker=dict(size=1, opacity=0),
                text=[hover[i] for i in empty],
                hovertemplate="%{text}<extra></extra>",
            )
        )
    # the paper's value: a dashed line under the traces, named above the top row
    figure.add_vline(x=paper_months, line=dict(color="#d62728", dash="dash", width=1.5), layer="below")
    figure.add_trace(
        go.Scatter(
            x=[paper_months],
            y=[labels[-1]],
            mode="text",
            name=f"paper: {paper_months:g} months",
            text=[f"paper {paper_months:g}"],
            textposition="top center",
            cliponaxis=False,
            textfont=dict(color="#d62728", size=11),
            hoverinfo="skip",
            showlegend=False,
        )
    )
    start = float(min(v for v in drawn if v > 0) / 1.5)
    figure.update_layout(
        title=title,
        xaxis_title="doubling time (months, log scale)",
        xaxis=dict(type="log", range=[math.log10(start), math.log10(edge)]),
        yaxis=dict(type="category", categoryorder="array", categoryarray=labels, range=[-0.6, len(labels) - 0.4]),
        height=150 + FOREST_ROW * len(rows),
        margin=dict(l=10, r=40, t=60, b=90),
        legend=dict(orientation="h", x=0, y=0, yanchor="bottom", yref="container"),
    )
    return figure


#: The sources of a trend's uncertainty, as the share panel names them.
SOURCE_WORDS = {
    "fit": "reference fit",
    "score": "score noise",
    "models": "sampling of models",
    "reference": "choice of reference",
}


def uncertainty_figure(result, paper_months: float, *, title: str | None = None) -> go.Figure:
    """What a :class:`densing.trend.uncertainty.TrendUncertainty` holds, in two panels: the doubling time with its
    interval over every source, each reference's own point estimate and the paper's ``paper_months``; each source's
    share of the slope variance ("not drawn" where ``n_boot_share = 0``)."""
    months, low, high = (
        result.doubling_time_months,
        result.doubling_time_months_ci_low,
        result.doubling_time_months_ci_high,
    )
    own = result.reference_months
    finite = [v for v in (months, low, high, paper_months, *own.values()) if np.isfinite(v) and v > 0]
    edge = 1.15 * max(finite) if finite else 10.0
    row = f"all sources ({result.level:.0%} CI)"
    figure = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.62, 0.38],
        horizontal_spacing=0.2,
        subplot_titles=("doubling time (months)", "share of the slope variance (%)"),
    )
    if np.isfinite(low) and not np.isnan(high):
        top = high if np.isfinite(high) else edge
        figure.add_trace(
            go.Scatter(
                x=[low, top],
                y=[row, row],
                mode="lines+markers+text" if not np.isfinite(high) else "lines",
                line=dict(color=PALETTE[0], width=3),
                name=f"{result.level:.0%} interval",
                cliponaxis=False,
                text=["", "" if np.isfinite(high) else "∞"],
                textposition="middle right",
                marker=dict(
                    symbol=["circle", "circle" if np.isfinite(high) else "arrow-right"],
                    size=[0, 0 if np.isfinite(high) else 13],
                    color=PALETTE[0],
                ),
                hovertemplate=f"{result.level:.0%} interval: {format_months(low)}–{format_months(high)} months<extra></extra>",
            ),
            row=1,
            col=1,
        )
    figure.add_trace(
        go.Scatter(
            x=[months] if np.isfinite(months) else [],
            y=[row] if np.isfinite(months) else [],
            mode="markers",
            name=f"doubling time ({result.rule} rule, {counted_noun(result.n_models, 'model')})",
            marker=dict(size=11, color=PALETTE[0]),
            hovertemplate=f"{format_months(months)} months (A = {result.slope_per_day:.4g}/day)<extra></extra>",
        ),
        row=1,
        col=1,
    )
    if own:
        names = [name.family for name in own]
        figure.add_trace(
            go.Scatter(
                x=[v if np.isfinite(v) else edge for v in own.values()],
                y=names,
                mode="markers",
                name="each reference's own point estimate",
                marker=dict(size=10, symbol="diamond-open", color=PALETTE[3], line=dict(width=2)),
                text=escaped(
                    [
                        f"{name}: {format_months(v)} months, weight {w:.2g}"
                        for name, v, w in zip(own, own.values(), result.reference_weights or [math.nan] * len(own))
                    ]
                ),
                hovertemplate="%{text}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    figure.add_vline(
        x=paper_months,
        line=dict(color="#d62728", dash="dash"),
        row=1,
        col=1,
        annotation_text=f"paper {paper_months} months",
        annotation_position="top",
    )
    sources = ["fit", "score", "models"] + (["reference"] if result.n_references > 1 else [])
    shares = [getattr(result, f"share_{s}") for s in sources]
    sds = [getattr(result, f"slope_sd_{s}") for s in sources]
    words = [SOURCE_WORDS[s] for s in sources]
    drawn = [np.isfinite(v) for v in shares]
    figure.add_trace(
        go.Bar(
            x=[100 * v if ok else 0 for v, ok in zip(shares, drawn)],
            y=words,
            orientation="h",
            marker_color=PALETTE[1],
            name="share of the slope variance (each source drawn alone)",
            text=[format_number(100 * v) + "%" if ok else "not drawn" for v, ok in zip(shares, drawn)],
            textposition="auto",
            hovertext=[f"{w}: slope SD {format_number(sd)}/day" for w, sd in zip(words, sds)],
            hovertemplate="%{hovertext}<extra></extra>",
        ),
        row=1,
        col=2,
    )
    figure.update_xaxes(range=[0, edge], title_text="months", row=1, col=1)
    figure.update_xaxes(range=[0, 100], title_text="%", row=1, col=2)
    figure.update_yaxes(type="category", row=1, col=1)
    figure.update_layout(
        title=title
        or f"Doubling time and where its uncertainty comes from · {result.rule} rule, {result.n_boot} draws",
        height=260 + 30 * max(len(own), len(sources)),
        margin=dict(l=10, r=40, t=80, b=90),
        legend=dict(orientation="h", x=0, y=0, yanchor="bottom", yref="container"),
    )
    return figure


# -- What the trend's figures share: the palette, each family's style, text made safe for plotly -----------------------

#: The figures' colours (plotly's default ten).
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def escaped(values) -> list[str]:
    """Each value as text with HTML's special characters escaped (plotly renders labels and hovers as HTML)."""
    return [html.escape(str(v)) for v in values]


#: A family's marker and line beside its colour: the tenth family on reuses the palette's colours with the next pair.
FAMILY_MARKS = (("circle", "solid"), ("square", "dash"), ("diamond", "dot"), ("x", "dashdot"))


def family_style(index: int) -> tuple[str, str, str]:
    """(colour, marker symbol, line dash) of the ``index``-th family: up to 40 families never look alike."""
    symbol, dash = FAMILY_MARKS[(index // len(PALETTE)) % len(FAMILY_MARKS)]
    return PALETTE[index % len(PALETTE)], symbol, dash


# -- Where a figure's labels go (module docstring) ---------------------------------------------------------------------

#: The density figure's plot area's height (px): six decades and more of density.
PLOT_HEIGHT = 620
#: The width (px) the frontier's labels are placed for: a 900 px window's plot area or less (names stay on hover).
PLOT_WIDTH = 740
#: A label's font size (px), the width of one of its characters and its height (px), generous for plotly's sans-serif.
LABEL_FONT, CHAR_WIDTH, LABEL_HEIGHT = 10, 6.2, 13.0
#: A frontier marker's size (px): plotly sets a label ``size / 1.6 + 1`` px away from its point.
FRONTIER_MARKER = 11
#: The label positions tried, in order; a label that fits none is left to the hover.
LABEL_POSITIONS = (
    "top center",
    "bottom center",
    "middle right",
    "middle left",
    "top right",
    "top left",
    "bottom right",
    "bottom left",
)


def label_box(x: float, y: float, text: str, position: str) -> tuple[float, float, float, float]:
    """The box (left, bottom, right, top; px) plotly gives a label at ``position`` beside a marker at (``x``, ``y``)."""
    offset = FRONTIER_MARKER / 1.6 + 1
    width = CHAR_WIDTH * len(html.unescape(text))
    if "left" in position:
        left = x - offset - width
    elif "right" in position:
        left = x + offset
    else:
        left = x - width / 2
    if "top" in position:
        bottom = y + offset
    elif "bottom" in position:
        bottom = y - offset - LABEL_HEIGHT
    else:
        bottom = y - LABEL_HEIGHT / 2
    return left, bottom, left + width, bottom + LABEL_HEIGHT


def place_labels(
    x, y, texts, x_range, y_range, *, width: float = PLOT_WIDTH, height: float = PLOT_HEIGHT
) -> list[str | None]:
    """Each point's label position (a plotly ``textposition``), or None where none fits: greedy, the densest point
    first, the first of :data:`LABEL_POSITIONS` whose box stays inside the plot area (``width``×``height`` px) and
    overlaps no label or marker. ``x``, ``y`` in the axes' units, ``x_range``/``y_range`` the axes' ends."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    px = (x - x_range[0]) / (x_range[1] - x_range[0]) * width
    py = (y - y_range[0]) / (y_range[1] - y_range[0]) * height
    half = FRONTIER_MARKER / 2
    taken = [(a - half, b - half, a + half, b + half) for a, b in zip(px, py) if np.isfinite(a) and np.isfinite(b)]
    positions: list[str | None] = [None] * len(x)
    for i in sorted(range(len(x)), key=lambda k: -py[k] if np.isfinite(py[k]) else np.inf):
        if not (np.isfinite(px[i]) and np.isfinite(py[i])):
            continue
        for position in LABEL_POSITIONS:
            left, bottom, right, top = box = label_box(px[i], py[i], texts[i], position)
            if (
                left >= 0
                and right <= width
                and bottom >= 0
                and top <= height  # inside, and overlapping no box taken
                and not any(left < o[2] and o[0] < right and bottom < o[3] and o[1] < top for o in taken)
            ):
                positions[i] = position
                taken.append(box)
                break
    return positions
