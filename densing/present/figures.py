"""The trend's figures (plotly): capacity density over release dates with the frontier line, and density against
size by family (the forest plot and uncertainty panels are :mod:`densing.present.forest`'s, re-exported here). The
report draws them and :func:`densing.present.figure` returns them, so a notebook gets the report's own figures.
"""

from __future__ import annotations

import html
import math
import textwrap

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from densing.constants import NAMED_MODELS, PAPER
from densing.errors import InputError
from densing.numbers import format_count, format_months, format_number, log_ticks

# uncertainty_figure is public here too (`name as name` marks a re-export)
from densing.present.forest import (
    FRONTIER_MARKER,
    LABEL_FONT,
    PALETTE,
    PLOT_HEIGHT,
    escaped,
    family_style,
    forest_figure,
    place_labels,
    row_names,
    uncertainty_figure as uncertainty_figure,
)
from densing.present.words import result_interval, rows_frame
from densing.trend.rules import get as rule_of


def loaded() -> None:
    """Load what plotly loads at a process's first figure (its validators' table, a 3 MB JSON): called before workers
    that draw are forked, they inherit it rather than each reading it again."""
    go.Figure()


def density_figure(
    points: pd.DataFrame, line, *, title: str, others=(), checks=(), failed=False, highlight: pd.DataFrame | None = None
) -> go.Figure:
    """Capacity density over release dates on a log axis: every model the trend uses (a censored density at its
    bound, ▲ lower, ▼ upper), the frontier's points and a rule's line ln ρ = A·t + B with its slope's 95% band
    (Xiao et al. 2024, eq. 5). ``points``: ``model``, ``release_date``, ``params``, ``score``, ``log_density``,
    ``bound`` (0 exact, +1 a lower bound, −1 an upper); ``line``: a TrendUncertainty or None; ``checks``: the validity
    checks' words, written above the plot (red where one ``failed``); ``highlight``: a user's
    models (:data:`HIGHLIGHT_COLUMNS`), labelled stars with their intervals, the line drawn out to their dates."""
    frame = points[np.isfinite(points["log_density"]) & np.isfinite(points["bound"])].copy()
    frame["release_date"] = pd.to_datetime(frame["release_date"])
    frame["density"] = np.exp(frame["log_density"])
    has_ci = {"density_ci_low", "density_ci_high"} <= set(frame.columns)
    frame["hover"] = _hover(frame, has_ci)
    marked = _on_frontier(frame, line)
    figure = go.Figure()
    _point_traces(figure, frame, marked, has_ci)
    front = frame[marked].sort_values("release_date")
    if len(front):  # named by text where a label fits (placed last, once the axes' ranges are known)
        symbols = np.where(
            front["bound"] == 1, "triangle-up", np.where(front["bound"] == -1, "triangle-down", "diamond")
        )
        figure.add_trace(
            go.Scatter(
                x=front["release_date"],
                y=front["density"],
                mode="markers+text",
                name=FRONTIER_NAME,
                textfont=dict(size=LABEL_FONT, color=PALETTE[3]),
                hovertext=front["hover"],
                hovertemplate="%{hovertext}<extra></extra>",
                marker=dict(color=PALETTE[3], size=FRONTIER_MARKER, symbol=list(symbols)),
            )
        )
        front_trace = figure.data[-1]
    anchors = frame[frame["model"].isin(NAMED_MODELS) & ~marked]
    if len(
        anchors
    ):  # the models the paper and the report's tables name: ringed, named on hover (the labels are the frontier's)
        figure.add_trace(
            go.Scatter(
                x=anchors["release_date"],
                y=anchors["density"],
                mode="markers",
                name="named models (the report's table; names on hover)",
                hovertext=anchors["hover"],
                hovertemplate="%{hovertext}<extra></extra>",
                marker=dict(color="rgba(0,0,0,0)", size=12, line=dict(color="#3b4252", width=1.5)),
            )
        )
    low_y, high_y = np.log10(frame["density"].min()), np.log10(frame["density"].max())
    last = frame["release_date"].max()
    if highlight is not None and len(highlight):
        low_y, high_y, last = _highlight(figure, highlight, low_y, high_y, last)
    if line is not None or others:
        dates = pd.date_range(frame["release_date"].min(), last, periods=80)
        low_y, high_y = _line_traces(figure, line, others, dates, low_y, high_y)
    check_lines: list[str] = []  # the checks joined by " · " into lines of at most CHECK_LINE characters, none broken
    for item in checks:
        if check_lines and len(check_lines[-1]) + 3 + len(item) <= CHECK_LINE:
            check_lines[-1] += " · " + item
        else:
            check_lines.extend(textwrap.wrap(item, CHECK_LINE) or [""])
    if check_lines:  # the validity checks, on the figure itself, wrapped to the plot's width: read with the verdict
        figure.add_annotation(
            text="<br>".join(html.escape(line) for line in check_lines),
            xref="paper",
            yref="paper",
            x=0,
            y=1.0,
            xanchor="left",
            yanchor="bottom",
            showarrow=False,
            align="left",
            font=dict(size=12, color="#8a1c1c" if failed else "#1c6b2a"),
        )
    top = DENSITY_MARGIN_TOP + CHECK_LINE_HEIGHT * max(len(check_lines) - 1, 0)
    pad = 0.1 * (high_y - low_y) + 0.2  # the band may run off the plot: the axis follows the points and the line
    y_range = [low_y - pad, high_y + pad]
    tickvals, ticktext = log_ticks(*y_range)  # 10⁻⁴, not plotly's SI 100μ
    first = frame["release_date"].min()
    span = max(last - first, pd.Timedelta(days=30))
    x_range = [first - 0.03 * span, last + 0.03 * span]
    if len(front):
        positions = place_labels(
            days_since(front["release_date"], x_range[0]),
            front["log_density"].to_numpy(float) / np.log(10),
            [_short(m) for m in front["model"]],
            (0.0, days_since([x_range[1]], x_range[0])[0]),
            y_range,
        )
        front_trace.update(
            text=[_short(m) if at else "" for m, at in zip(front["model"], positions)],
            textposition=[at or "top center" for at in positions],
        )
    figure.update_layout(
        title=title,
        xaxis=dict(title="release date", range=x_range),
        yaxis=dict(title="capacity density ρ = N̂ / N", type="log", range=y_range, tickvals=tickvals, ticktext=ticktext),
        height=top + PLOT_HEIGHT + DENSITY_MARGIN_BOTTOM,
        margin=dict(l=60, r=20, t=top, b=DENSITY_MARGIN_BOTTOM),
        legend=dict(orientation="h", x=0, y=0, yanchor="bottom", yref="container"),
    )
    return figure


def band_trace(dates, low, high, name: str) -> go.Scatter:
    """A frontier line's confidence band over ``dates`` as one filled trace: ln ρ's ``low`` and ``high`` drawn as
    densities (e^low, e^high), shaded, without hover. Shared by the density chart and the pooled law's chart."""
    return go.Scatter(
        x=list(dates) + list(dates[::-1]),
        y=list(np.exp(high)) + list(np.exp(low)[::-1]),
        fill="toself",
        fillcolor="rgba(214,39,40,0.12)",
        line=dict(width=0),
        name=name,
        hoverinfo="skip",
    )


def _line_traces(figure: go.Figure, line, others, dates, low_y: float, high_y: float) -> tuple[float, float]:
    """The rule's line over ``dates`` with its 95% band, and the other rules' lines (legend toggles, off at first);
    returns the log10 range of densities widened to the line."""
    if line is not None:
        low, high = line.confidence_band(dates)
        figure.add_trace(band_trace(dates, low, high, "95% CI of the slope (fit + score + models)"))
        r2 = f", R² {line.r_squared:.3f}" if np.isfinite(line.r_squared) else ""
        name = f"{line.rule} line: doubling {format_months(line.doubling_time_months)} months" + result_interval(
            line, brackets="()", level="95% CI ", more=r2
        )
        fitted = np.exp(line.predict(dates))
        figure.add_trace(
            go.Scatter(
                x=dates, y=fitted, mode="lines", line=dict(color=PALETTE[3], width=2), name=name, hoverinfo="skip"
            )
        )
        low_y, high_y = min(low_y, float(np.log10(fitted.min()))), max(high_y, float(np.log10(fitted.max())))
    for other in others:  # the other rules: toggles (click the legend), off at first
        figure.add_trace(
            go.Scatter(
                x=dates,
                y=np.exp(other.predict(dates)),
                mode="lines",
                visible="legendonly",
                line=dict(dash="dash", width=1.5),
                name=(
                    f"{rule_of(other.rule).words()} (click to show or hide): doubling {format_months(other.doubling_time_months)} months"
                    + result_interval(other, brackets="()", level="95% CI ")
                ),
                hoverinfo="skip",
            )
        )
    return low_y, high_y


def _hover(frame: pd.DataFrame, has_ci: bool) -> list[str]:
    """Each point's hover text: model, date, family, N, N̂, scores, density (or bound) and interval."""
    relation = {0: "density", 1: "density ≥", -1: "density ≤"}
    score_columns = [c for c in frame.columns if str(c).startswith("score:")] or ["score"]
    scores = [
        "<br>".join(
            f"{str(c).removeprefix('score:') if c != 'score' else 'score'} {v:.3f}" for c, v in zip(score_columns, row)
        )
        for row in frame[score_columns].to_numpy(float)
    ]
    n_hat = frame["effective_params"] if "effective_params" in frame.columns else frame["density"] * frame["params"]
    return [
        f"<b>{html.escape(str(m))}</b><br>released {pd.Timestamp(t):%Y-%m-%d} · family {html.escape(str(f))}<br>"
        f"N {format_count(p)} · N̂ {format_count(nh) if np.isfinite(nh) else '—'}<br>{s}<br>{relation[int(b)]} {format_number(d)}"
        + (f" (95% CI {format_number(lo)}–{format_number(hi)})" if has_ci and b == 0 else "")
        + ("" if b == 0 else " (a bound: the reference cannot say more)")
        for m, t, f, p, nh, s, d, b, lo, hi in zip(
            frame["model"],
            frame["release_date"],
            frame.get("family", pd.Series("—", index=frame.index)),
            frame["params"],
            n_hat,
            scores,
            frame["density"],
            frame["bound"],
            frame.get("density_ci_low", frame["density"]),
            frame.get("density_ci_high", frame["density"]),
        )
    ]


def _on_frontier(frame: pd.DataFrame, line) -> pd.Series:
    """The frontier's points: those the line was fitted on, or (the envelope's) those at or above it."""
    if line is None:
        return pd.Series(False, index=frame.index)
    used = set(line.frontier_models)
    if len(used) < len(frame):
        return frame["model"].isin(used)
    return pd.Series(
        frame["log_density"].to_numpy() >= np.asarray(line.predict(frame["release_date"]), float) - 1e-12,
        index=frame.index,
    )


def _point_traces(figure: go.Figure, frame: pd.DataFrame, marked: pd.Series, has_ci: bool) -> None:
    """The models off the frontier, one trace per kind of density, and the per-model 95% intervals under them."""
    styles = (
        (0, "a model's density", "circle", 7),
        (1, "a model's density is at least this (its score lies beyond what the reference reaches)", "triangle-up", 9),
        (-1, "a model's density is at most this (its score is at or below the reference's floor)", "triangle-down", 9),
    )
    for kind, name, symbol, size in styles:
        rows = frame[(frame["bound"] == kind) & ~marked]
        if len(rows):
            figure.add_trace(
                go.Scatter(
                    x=rows["release_date"],
                    y=rows["density"],
                    mode="markers",
                    name=name,
                    marker=dict(color="#9aa3b5", size=size, symbol=symbol, opacity=0.75),
                    text=rows["hover"],
                    hovertemplate="%{text}<extra></extra>",
                )
            )
    if has_ci:  # per-model 95% intervals: wide (often orders of magnitude), drawn light under the points
        rows = frame[
            (frame["bound"] == 0) & np.isfinite(frame["density_ci_low"]) & np.isfinite(frame["density_ci_high"])
        ]
        if len(rows):
            figure.add_trace(
                go.Scatter(
                    x=rows["release_date"],
                    y=rows["density"],
                    mode="markers",
                    name=INTERVALS_NAME,
                    marker=dict(color="rgba(90,98,117,0.35)", size=4),
                    error_y=dict(
                        type="data",
                        symmetric=False,
                        array=rows["density_ci_high"] - rows["density"],
                        arrayminus=rows["density"] - rows["density_ci_low"],
                        color="rgba(90,98,117,0.3)",
                        thickness=1,
                        width=0,
                    ),
                    hoverinfo="skip",
                )
            )  # each point's own hover gives its interval


#: The density figure's per-model intervals (drawn at first) and its frontier (named by label where one fits).
INTERVALS_NAME = "each model's 95% interval (grey bars)"
FRONTIER_NAME = "the frontier: models at or above the line (named where a label fits; every name on hover)"
#: The density figure's margins (px): the legend sits in the bottom one, never taking height from the plot area.
DENSITY_MARGIN_TOP, DENSITY_MARGIN_BOTTOM = 80, 240
#: The checks' line above the plot wraps at this many characters, each line after the first adding this many px.
CHECK_LINE, CHECK_LINE_HEIGHT = 100, 16


def _short(model: str) -> str:
    """A model's name without its organisation (``meta-llama/Llama-2-7b-hf`` → ``Llama-2-7b-hf``)."""
    return html.escape(str(model).rsplit("/", 1)[-1])


def size_figure(points: pd.DataFrame) -> go.Figure:
    """ln ρ against ln N, one style per family of two or more sizes (the size check's view); bounds ▲/▼, unjoined."""
    frame = points[np.isfinite(points["log_density"]) & np.isfinite(points["params"])].copy()
    figure = go.Figure()
    families = frame.groupby("family")["params"].nunique() if "family" in frame.columns else pd.Series(dtype=int)
    multi = [f for f, n in families.items() if n >= 2]
    rest = frame[~frame.get("family", pd.Series("", index=frame.index)).isin(multi)]

    def symbol(b):
        return np.where(b == 1, "triangle-up", np.where(b == -1, "triangle-down", "circle"))

    if len(rest):
        figure.add_trace(
            go.Scatter(
                x=rest["params"],
                y=np.exp(rest["log_density"]),
                mode="markers",
                name="families with one size",
                marker=dict(color="#c5cad6", size=6, symbol=list(symbol(rest["bound"]))),
                text=[_short(m) for m in rest["model"]],
                hovertemplate="%{text}<extra></extra>",
            )
        )
    for i, family in enumerate(sorted(multi)):
        rows = frame[frame["family"] == family].sort_values("params")
        exact = rows[rows["bound"] == 0]
        color, mark, dash = family_style(i)
        marks = [mark if s == "circle" else s for s in symbol(rows["bound"])]  # a bound keeps its ▲/▼
        figure.add_trace(
            go.Scatter(
                x=rows["params"],
                y=np.exp(rows["log_density"]),
                mode="markers",
                marker=dict(color=color, size=8, symbol=marks),
                name=f"{family}",
                legendgroup=family,
                text=[_short(m) for m in rows["model"]],
                hovertemplate="%{text}: N %{x:.3s}, ρ %{y:.3g}<extra></extra>",
            )
        )
        if len(exact) >= 2:
            figure.add_trace(
                go.Scatter(
                    x=exact["params"],
                    y=np.exp(exact["log_density"]),
                    mode="lines",
                    showlegend=False,
                    legendgroup=family,
                    line=dict(color=color, width=1, dash=dash),
                    hoverinfo="skip",
                )
            )
    entries = len(multi) + (1 if len(rest) else 0)
    legend_lines = math.ceil(
        entries / LEGEND_PER_LINE
    )  # the legend under the plot, every entry shown: it never scrolls
    figure.update_layout(
        title="Density against size, by family (the size check)",
        height=460 + LEGEND_LINE * legend_lines,
        xaxis=dict(title="parameters N", type="log", exponentformat="power"),
        yaxis=dict(title="capacity density ρ", type="log", exponentformat="power"),
        margin=dict(l=60, r=20, t=50, b=70 + LEGEND_LINE * legend_lines),
        legend=dict(font=dict(size=10), orientation="h", x=0, y=0, yanchor="bottom", yref="container"),
    )
    return figure


#: A legend under a figure: entries a line holds in a 900 px window, and a line's height (px): no legend scrolls.
LEGEND_PER_LINE, LEGEND_LINE = 5, 22


#: The columns a highlight (a user's models: ``densing measure``'s rows) needs.
HIGHLIGHT_COLUMNS = (
    "model",
    "release_date",
    "density",
    "density_ci_low",
    "density_ci_high",
    "bound",
    "reading",
    "words",
)


def _highlight(figure: go.Figure, yours: pd.DataFrame, low_y: float, high_y: float, last):
    """A user's models as labelled stars with their intervals (a bound: :func:`_bound_bars`); returns the y range
    (log10) and the last date widened to take them in."""
    rows = yours[np.isfinite(yours["density"].astype(float))].copy()
    if rows.empty:
        return low_y, high_y, last
    rows["release_date"] = pd.to_datetime(rows["release_date"])
    # a bound read from the interval (score near chance) is drawn at the interval's upper end
    shown = np.where(
        rows["reading"].eq("upper bound") & rows["bound"].astype(str).eq(""), rows["density_ci_high"], rows["density"]
    )
    low_err = np.where(
        rows["bound"].astype(str).eq("") & rows["reading"].eq("value"), shown - rows["density_ci_low"], 0.0
    )
    high_err = np.where(
        rows["reading"].eq("value") & np.isfinite(rows["density_ci_high"]), rows["density_ci_high"] - shown, 0.0
    )
    hover = [f"{html.escape(str(m))} (yours)<br>{html.escape(str(w))}" for m, w in zip(rows["model"], rows["words"])]
    figure.add_trace(
        go.Scatter(
            x=rows["release_date"],
            y=shown,
            mode="markers+text",
            name="your models (★; ▼ an upper bound, ▲ a lower bound)",
            text=escaped(rows["model"]),
            textposition="top left",
            hovertext=hover,
            hovertemplate="%{hovertext}<extra></extra>",
            marker=dict(
                color=PALETTE[2],
                size=15,
                line=dict(color="#000", width=1),
                symbol=[
                    {"upper bound": "star-triangle-down", "lower bound": "star-triangle-up"}.get(r, "star")
                    for r in rows["reading"]
                ],
            ),
            error_y=dict(
                type="data",
                symmetric=False,
                array=np.nan_to_num(high_err),
                arrayminus=np.nan_to_num(low_err),
                color=PALETTE[2],
            ),
        )
    )
    _bound_bars(figure, rows, np.asarray(shown, float))
    values = np.log10(np.asarray(shown, float)[np.asarray(shown, float) > 0])
    if values.size:
        low_y, high_y = min(low_y, float(values.min()) - BOUND_DECADES), max(high_y, float(values.max()))
    return low_y, high_y, max(last, rows["release_date"].max())


#: How far (decades of ρ) a bound's half-open bar runs from its end towards the side the density may lie on.
BOUND_DECADES = 1.0


def _bound_bars(figure: go.Figure, rows: pd.DataFrame, shown: np.ndarray) -> None:
    """Each bound of ``rows`` as a half-open bar from its end (``shown``) a decade towards the side the density may
    lie on, an arrowhead there: a bound never reads as a point."""
    xs, ys, symbols, sizes = [], [], [], []
    for date, value, reading in zip(rows["release_date"], shown, rows["reading"]):
        if reading not in ("upper bound", "lower bound") or not value > 0:
            continue
        end = value * 10 ** (-BOUND_DECADES if reading == "upper bound" else BOUND_DECADES)
        xs += [date, date, None]
        ys += [value, end, None]
        symbols += ["circle", "arrow-down" if reading == "upper bound" else "arrow-up", "circle"]
        sizes += [0, 12, 0]
    if xs:
        figure.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines+markers",
                showlegend=False,
                hoverinfo="skip",
                line=dict(color=PALETTE[2], width=2, dash="dot"),
                marker=dict(symbol=symbols, size=sizes, color=PALETTE[2]),
            )
        )


def with_intervals(models: pd.DataFrame, densities: pd.DataFrame) -> pd.DataFrame:
    """The trend's points with each model's 95% density interval and N̂ (the figure's hover and error bars)."""
    extra = [c for c in ("density_ci_low", "density_ci_high", "effective_params") if c in densities.columns]
    return models.join(densities.drop_duplicates("model").set_index("model")[extra], on="model") if extra else models


def days_since(dates, origin) -> np.ndarray:
    """Days from ``origin`` to each of ``dates`` (a figure's date axis in the units labels are placed in)."""
    return ((pd.to_datetime(pd.Series(list(dates))) - pd.Timestamp(origin)).dt.total_seconds() / 86400).to_numpy(float)


def measurement_figure(m, kind: str = "density", *, rule: str | None = None, highlight: pd.DataFrame | None = None):
    """A measurement's figure (:func:`densing.present.figure`): the figure of ``kind`` (``"density"``, ``"size"`` or
    ``"benchmarks"``) of a measurement, its arguments checked (an InputError names the one that is wrong)."""
    if highlight is not None:
        if not isinstance(highlight, pd.DataFrame):
            raise InputError(
                f"highlight: expected a DataFrame of densing measure's rows, got {type(highlight).__name__}"
            )
        if missing := [c for c in HIGHLIGHT_COLUMNS if c not in highlight.columns]:
            raise InputError(f"highlight: missing column(s) {', '.join(missing)} (densing measure's rows have them)")
    if kind in ("size", "benchmarks") and (rule is not None or highlight is not None):  # drawn by nothing
        raise InputError(
            f"{'rule' if rule is not None else 'highlight'}: goes with kind='density' (the {kind!r} "
            "figure draws no line and no user's models)"
        )
    if kind == "density":
        rule = rule or m.headline_rule
        if rule not in m.rules and rule not in m.rule_errors:
            raise InputError(f"rule: expected one of {sorted(m.rules)}, got {rule!r}")
        return density_figure(
            with_intervals(m.models, m.densities),
            m.rules.get(rule),
            title=f"Capacity density vs release date · {rule} rule",
            others=[r for name, r in m.rules.items() if name != rule],
            highlight=highlight,
        )
    if kind == "size":
        return size_figure(m.models)
    if kind == "benchmarks":
        return forest_figure(
            rows_frame([*m.benchmark_rows, *m.set_rows]),
            PAPER["doubling_time_months"],
            names=row_names([*m.benchmark_rows, *m.set_rows]),
        )
    raise InputError(f"kind: expected 'density', 'size' or 'benchmarks', got {kind!r}")
