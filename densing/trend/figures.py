"""The trend's figures (plotly): capacity density over release dates with the frontier line, density against
size by family, and the doubling time per benchmark (a forest plot). The report draws them and the results'
``.plot()`` methods return them, so a notebook gets the report's own figures."""
from __future__ import annotations

import html
import math
import textwrap

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from densing.numbers import format_count, format_months, format_number, log_ticks
from densing.trend import rules
from densing.trend.labels import FRONTIER_MARKER, LABEL_FONT, PLOT_HEIGHT, days_since, place_labels

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def _esc(values) -> list[str]:
    return [html.escape(str(v)) for v in values]


def density_figure(points: pd.DataFrame, line, *, title: str, others=(), reach: float | None = None,
                   checks_text: str | None = None, highlight: pd.DataFrame | None = None) -> go.Figure:
    """Capacity density over release dates on a log axis: every model the trend uses, a censored
    density drawn at its bound (▲ a lower bound, ▼ an upper bound), the frontier's points, and the
    line ln ρ = A·t + B of a rule of the measurement (:class:`densing.trend.uncertainty.TrendUncertainty`) with its
    slope's 95% band
    (Xiao et al. 2024, eq. 5). ``points``: ``model``, ``release_date``, ``params``, ``score``,
    ``log_density`` and ``bound`` (0 exact, +1 lower bound, −1 upper bound). ``line`` may be None
    (the rule could not be fitted): the points are drawn alone. ``highlight``: a user's models (``densing measure``:
    ``model``, ``release_date``, ``density``, ``density_ci_low``/``_high``, ``reading``), drawn as labelled stars with
    their 95% intervals; the line is drawn out to their dates."""
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
        symbols = np.where(front["bound"] == 1, "triangle-up", np.where(front["bound"] == -1, "triangle-down", "diamond"))
        figure.add_trace(go.Scatter(
            x=front["release_date"], y=front["density"], mode="markers+text", name=FRONTIER_NAME,
            textfont=dict(size=LABEL_FONT, color=PALETTE[3]), hovertext=front["hover"], hovertemplate="%{hovertext}<extra></extra>",
            marker=dict(color=PALETTE[3], size=FRONTIER_MARKER, symbol=list(symbols))))
        front_trace = figure.data[-1]
    anchors = frame[frame["model"].isin(_named_models()) & ~marked]
    if len(anchors):  # the models the paper and the report's tables name: ringed, named on hover (the labels are the frontier's)
        figure.add_trace(go.Scatter(
            x=anchors["release_date"], y=anchors["density"], mode="markers", name="named models (the report's table; names on hover)",
            hovertext=anchors["hover"], hovertemplate="%{hovertext}<extra></extra>",
            marker=dict(color="rgba(0,0,0,0)", size=12, line=dict(color="#3b4252", width=1.5))))
    low_y, high_y = np.log10(frame["density"].min()), np.log10(frame["density"].max())
    last = frame["release_date"].max()
    if highlight is not None and len(highlight):
        low_y, high_y, last = _highlight(figure, highlight, low_y, high_y, last)
    if line is not None or others:
        dates = pd.date_range(frame["release_date"].min(), last, periods=80)
        low_y, high_y = _line_traces(figure, line, others, dates, low_y, high_y)
    if reach is not None and np.isfinite(reach):
        figure.add_hline(y=reach, line=dict(color="#888", dash="dot", width=1),
                         annotation_text="reference's largest member scored at this density's reach", annotation_position="top left")
    check_lines = textwrap.wrap(checks_text, CHECK_LINE) if checks_text else []
    if check_lines:  # the validity checks, on the figure itself, wrapped to the plot's width: read with the verdict
        figure.add_annotation(text="<br>".join(html.escape(line) for line in check_lines), xref="paper", yref="paper", x=0,
                              y=1.0, xanchor="left", yanchor="bottom", showarrow=False, align="left",
                              font=dict(size=12, color="#8a1c1c" if "failed" in checks_text else "#1c6b2a"))
    top = DENSITY_MARGIN_TOP + CHECK_LINE_HEIGHT * max(len(check_lines) - 1, 0)
    pad = 0.1 * (high_y - low_y) + 0.2  # the band may run off the plot: the axis follows the points and the line
    y_range = [low_y - pad, high_y + pad]
    tickvals, ticktext = log_ticks(*y_range)  # 10⁻⁴, not plotly's SI 100μ
    first = frame["release_date"].min()
    span = max(last - first, pd.Timedelta(days=30))
    x_range = [first - 0.03 * span, last + 0.03 * span]
    if len(front):
        positions = place_labels(days_since(front["release_date"], x_range[0]), front["log_density"].to_numpy(float) / np.log(10),
                                 [_short(m) for m in front["model"]], (0.0, days_since([x_range[1]], x_range[0])[0]), y_range)
        front_trace.update(text=[_short(m) if at else "" for m, at in zip(front["model"], positions)],
                           textposition=[at or "top center" for at in positions])
    figure.update_layout(
        title=title, xaxis=dict(title="release date", range=x_range),
        yaxis=dict(title="capacity density ρ = N̂ / N", type="log", range=y_range, tickvals=tickvals, ticktext=ticktext),
        height=top + PLOT_HEIGHT + DENSITY_MARGIN_BOTTOM,
        margin=dict(l=60, r=20, t=top, b=DENSITY_MARGIN_BOTTOM),
        legend=dict(orientation="h", x=0, y=0, yanchor="bottom", yref="container"),
    )
    return figure


def _line_traces(figure: go.Figure, line, others, dates, low_y: float, high_y: float) -> tuple[float, float]:
    """The rule's line over ``dates`` with its slope's 95% band, and the other rules' lines (legend toggles, off at
    first); returns the log10 range of densities the axis must show, widened to the line."""
    if line is not None:
        low, high = line.confidence_band(dates)
        figure.add_trace(go.Scatter(x=list(dates) + list(dates[::-1]), y=list(np.exp(high)) + list(np.exp(low)[::-1]), fill="toself",
                                    fillcolor="rgba(214,39,40,0.12)", line=dict(width=0), name="95% CI of the slope (fit + score + models)", hoverinfo="skip"))
        r2 = f", R² {line.r_squared:.3f}" if np.isfinite(line.r_squared) else ""
        name = (f"{line.rule} line: doubling {format_months(line.doubling_time_months)} months "
                f"(95% CI {format_months(line.doubling_time_months_ci_low)}–{format_months(line.doubling_time_months_ci_high)}{r2})")
        fitted = np.exp(line.predict(dates))
        figure.add_trace(go.Scatter(x=dates, y=fitted, mode="lines", line=dict(color=PALETTE[3], width=2), name=name, hoverinfo="skip"))
        low_y = min(low_y, float(np.log10(fitted.min())))
        high_y = max(high_y, float(np.log10(fitted.max())))
    for other in others:  # the other rules: toggles (click the legend), off at first
        figure.add_trace(go.Scatter(
            x=dates, y=np.exp(other.predict(dates)), mode="lines", visible="legendonly", line=dict(dash="dash", width=1.5),
            name=(f"{rules.get(other.rule).words()} (click to show or hide): doubling {format_months(other.doubling_time_months)} months "
                  f"(95% CI {format_months(other.doubling_time_months_ci_low)}–{format_months(other.doubling_time_months_ci_high)})"),
            hoverinfo="skip"))
    return low_y, high_y


def _hover(frame: pd.DataFrame, has_ci: bool) -> list[str]:
    """Each point's hover text: the model, its date and family, N and N̂, its scores, its density (or bound) and
    interval."""
    relation = {0: "density", 1: "density ≥", -1: "density ≤"}
    score_columns = [c for c in frame.columns if str(c).startswith("score:")] or ["score"]
    scores = ["<br>".join(f"{str(c).removeprefix('score:') if c != 'score' else 'score'} {v:.3f}" for c, v in zip(score_columns, row))
              for row in frame[score_columns].to_numpy(float)]
    n_hat = frame["effective_params"] if "effective_params" in frame.columns else frame["density"] * frame["params"]
    return [
        f"<b>{html.escape(str(m))}</b><br>released {pd.Timestamp(t):%Y-%m-%d} · family {html.escape(str(f))}<br>"
        f"N {format_count(p)} · N̂ {format_count(nh) if np.isfinite(nh) else '—'}<br>{s}<br>{relation[int(b)]} {format_number(d, html=True)}"
        + (f" (95% CI {format_number(lo, html=True)}–{format_number(hi, html=True)})" if has_ci and b == 0 else "")
        + ("" if b == 0 else " (a bound: the reference cannot say more)")
        for m, t, f, p, nh, s, d, b, lo, hi in zip(
            frame["model"], frame["release_date"], frame.get("family", pd.Series("—", index=frame.index)), frame["params"], n_hat,
            scores, frame["density"], frame["bound"], frame.get("density_ci_low", frame["density"]),
            frame.get("density_ci_high", frame["density"]))
    ]


def _on_frontier(frame: pd.DataFrame, line) -> pd.Series:
    """Which points are the frontier's: those the line was fitted on, or (for the envelope, whose record-setters
    are all the models) those at or above the line at their date; none without a line."""
    if line is None:
        return pd.Series(False, index=frame.index)
    used = set(line.frontier_models)
    if len(used) < len(frame):
        return frame["model"].isin(used)
    return pd.Series(frame["log_density"].to_numpy() >= np.asarray(line.predict(frame["release_date"]), float) - 1e-12,
                     index=frame.index)


def _point_traces(figure: go.Figure, frame: pd.DataFrame, marked: pd.Series, has_ci: bool) -> None:
    """The models off the frontier, one trace per kind of density (exact, lower bound, upper bound), and the
    per-model 95% intervals under them."""
    styles = ((0, "a model's density", "circle", 7),
              (1, "a model's density is at least this (its score lies beyond what the reference reaches)", "triangle-up", 9),
              (-1, "a model's density is at most this (its score is at or below the reference's floor)", "triangle-down", 9))
    for kind, name, symbol, size in styles:
        rows = frame[(frame["bound"] == kind) & ~marked]
        if len(rows):
            figure.add_trace(go.Scatter(
                x=rows["release_date"], y=rows["density"], mode="markers", name=name,
                marker=dict(color="#9aa3b5", size=size, symbol=symbol, opacity=0.75), text=rows["hover"],
                hovertemplate="%{text}<extra></extra>"))
    if has_ci:  # per-model 95% intervals: wide (often orders of magnitude), drawn light under the points
        rows = frame[(frame["bound"] == 0) & np.isfinite(frame["density_ci_low"]) & np.isfinite(frame["density_ci_high"])]
        if len(rows):
            figure.add_trace(go.Scatter(
                x=rows["release_date"], y=rows["density"], mode="markers", name=INTERVALS_NAME,
                marker=dict(color="rgba(90,98,117,0.35)", size=4),
                error_y=dict(type="data", symmetric=False, array=rows["density_ci_high"] - rows["density"],
                             arrayminus=rows["density"] - rows["density_ci_low"], color="rgba(90,98,117,0.3)", thickness=1,
                             width=0),
                hoverinfo="skip"))  # each point's own hover gives its interval


#: The density figure's per-model intervals (drawn at first) and its frontier (named by label where one fits).
INTERVALS_NAME = "each model's 95% interval (grey bars)"
FRONTIER_NAME = "the frontier: models at or above the line (named where a label fits; every name on hover)"
#: The density figure's margins (px): the legend sits in the bottom margin (in the figure's own coordinates), so it
#: never takes height from the plot area (:data:`densing.trend.labels.PLOT_HEIGHT`).
DENSITY_MARGIN_TOP = 80
DENSITY_MARGIN_BOTTOM = 240
#: The validity checks' line above the plot wraps at this many characters (12 px text in a 900 px window's plot
#: area), each line after the first adding this many px to the top margin.
CHECK_LINE = 100
CHECK_LINE_HEIGHT = 16


def _short(model: str) -> str:
    """A model's name without its organisation (``meta-llama/Llama-2-7b-hf`` → ``Llama-2-7b-hf``)."""
    return html.escape(str(model).rsplit("/", 1)[-1])


def _named_models() -> tuple[str, ...]:
    from densing.trend.constants import NAMED_MODELS

    return NAMED_MODELS


#: A family's marker and line beside its colour: the tenth family on reuses the palette's colours with the next pair.
FAMILY_MARKS = (("circle", "solid"), ("square", "dash"), ("diamond", "dot"), ("x", "dashdot"))


def family_style(index: int) -> tuple[str, str, str]:
    """(colour, marker symbol, line dash) of the ``index``-th family of a figure: :data:`PALETTE`'s ten colours, then
    the same colours with the next marker and dash (:data:`FAMILY_MARKS`), so up to 40 families never look alike."""
    symbol, dash = FAMILY_MARKS[(index // len(PALETTE)) % len(FAMILY_MARKS)]
    return PALETTE[index % len(PALETTE)], symbol, dash


def size_figure(points: pd.DataFrame) -> go.Figure:
    """ln ρ against ln N, one colour, marker and line per family with two or more sizes (:func:`family_style`; what
    the size check looks at): within a family of one recipe, density should not depend on size if the reference's
    shape in N is the targets'. Bounds are drawn as ▲/▼ and left out of the family lines."""
    frame = points[np.isfinite(points["log_density"]) & np.isfinite(points["params"])].copy()
    figure = go.Figure()
    families = frame.groupby("family")["params"].nunique() if "family" in frame.columns else pd.Series(dtype=int)
    multi = [f for f, n in families.items() if n >= 2]
    rest = frame[~frame.get("family", pd.Series("", index=frame.index)).isin(multi)]
    symbol = lambda b: np.where(b == 1, "triangle-up", np.where(b == -1, "triangle-down", "circle"))  # noqa: E731
    if len(rest):
        figure.add_trace(go.Scatter(x=rest["params"], y=np.exp(rest["log_density"]), mode="markers", name="families with one size",
                                    marker=dict(color="#c5cad6", size=6, symbol=list(symbol(rest["bound"]))),
                                    text=[_short(m) for m in rest["model"]], hovertemplate="%{text}<extra></extra>"))
    for i, family in enumerate(sorted(multi)):
        rows = frame[frame["family"] == family].sort_values("params")
        exact = rows[rows["bound"] == 0]
        color, mark, dash = family_style(i)
        marks = [mark if s == "circle" else s for s in symbol(rows["bound"])]  # a bound keeps its ▲/▼
        figure.add_trace(go.Scatter(x=rows["params"], y=np.exp(rows["log_density"]), mode="markers",
                                    marker=dict(color=color, size=8, symbol=marks),
                                    name=f"{family}", legendgroup=family, text=[_short(m) for m in rows["model"]],
                                    hovertemplate="%{text}: N %{x:.3s}, ρ %{y:.3g}<extra></extra>"))
        if len(exact) >= 2:
            figure.add_trace(go.Scatter(x=exact["params"], y=np.exp(exact["log_density"]), mode="lines", showlegend=False,
                                        legendgroup=family, line=dict(color=color, width=1, dash=dash), hoverinfo="skip"))
    figure.update_layout(title="Density against size, by family (the size check)", height=460,
                         xaxis=dict(title="parameters N", type="log", exponentformat="power"),
                         yaxis=dict(title="capacity density ρ", type="log", exponentformat="power"),
                         margin=dict(l=60, r=20, t=50, b=50), legend=dict(font=dict(size=10)))
    return figure


#: The columns a highlight (a user's models: ``densing measure``'s rows) needs.
HIGHLIGHT_COLUMNS = ("model", "release_date", "density", "density_ci_low", "density_ci_high", "bound", "reading", "words")


def _highlight(figure: go.Figure, yours: pd.DataFrame, low_y: float, high_y: float, last):
    """A user's models as labelled stars (their 95% intervals as bars; a bound drawn at its value); returns the
    y range (log10) and the last date widened to take them in."""
    rows = yours[np.isfinite(yours["density"].astype(float))].copy()
    if rows.empty:
        return low_y, high_y, last
    rows["release_date"] = pd.to_datetime(rows["release_date"])
    # a bound read from the interval (score near chance) is drawn at the interval's upper end
    shown = np.where(rows["reading"].eq("upper bound") & rows["bound"].astype(str).eq(""), rows["density_ci_high"], rows["density"])
    low_err = np.where(rows["bound"].astype(str).eq("") & rows["reading"].eq("value"), shown - rows["density_ci_low"], 0.0)
    high_err = np.where(rows["reading"].eq("value") & np.isfinite(rows["density_ci_high"]), rows["density_ci_high"] - shown, 0.0)
    hover = [f"{html.escape(str(m))} (yours)<br>{html.escape(str(w))}" for m, w in zip(rows["model"], rows["words"])]
    figure.add_trace(go.Scatter(
        x=rows["release_date"], y=shown, mode="markers+text", name="your models (★; ▼ an upper bound, ▲ a lower bound)",
        text=_esc(rows["model"]), textposition="top left", hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
        marker=dict(color=PALETTE[2], size=15, line=dict(color="#000", width=1),
                    symbol=[{"upper bound": "star-triangle-down", "lower bound": "star-triangle-up"}.get(r, "star")
                            for r in rows["reading"]]),
        error_y=dict(type="data", symmetric=False, array=np.nan_to_num(high_err), arrayminus=np.nan_to_num(low_err),
                     color=PALETTE[2])))
    values = np.log10(np.asarray(shown, float)[np.asarray(shown, float) > 0])
    if values.size:
        low_y, high_y = min(low_y, float(values.min())), max(high_y, float(values.max()))
    return low_y, high_y, max(last, rows["release_date"].max())


#: The forest plot's default title (the public table's rows); the OLMES design's plot passes its own.
FOREST_TITLE = "Doubling time by benchmark and benchmark set · the public leaderboard table"
#: Pixels per row of the forest plot: room under a not-measured estimate's bar for its status line.
FOREST_ROW = 34


def _short_reason(text: str, limit: int = 90) -> str:
    """A row's status in a few words: ``not measured`` and its reason up to the first parenthesis (the families and
    their numbers stay in the hover), cut at a word past ``limit`` characters."""
    text = " ".join(str(text).split())
    text = text.split(" (", 1)[0].rstrip(" :;,")
    if not text.startswith("not measured"):
        text = f"not measured: {text}" if text else "not measured"
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0].rstrip(" :;,") + "…"
    return text


def _not_measured(row) -> str:
    """The row's reason for not being measured, or "" for a measured row (``status`` where the rows have it, else
    ``error``; a row without a doubling time is not measured whatever its columns say)."""
    status = str(getattr(row, "status", "") or "")
    error = str(getattr(row, "error", "") or "")
    if status.startswith("not measured"):
        return status
    if error and (error.startswith("not measured") or not np.isfinite(row.months)):
        return error
    return "" if np.isfinite(row.months) else "not measured"


def forest_axis_end(rows: pd.DataFrame, paper_months: float) -> float:
    """The forest plot's right end (months): 15% past the largest finite number drawn (an interval's end, a doubling
    time, the paper's), so that a finite interval never reaches it; only an infinite end runs to it, as an arrow."""
    values = [paper_months]
    for column in ("months", "ci_low", "ci_high"):
        data = pd.to_numeric(rows[column], errors="coerce").to_numpy(float)
        values += list(data[np.isfinite(data)])
    return float(max(values) * 1.15)


def row_display(row: str, label: str, capability: str) -> str:
    """A row's name for a reader: a benchmark's own name, a set's benchmarks joined by " + " (its label's parenthesis,
    "MMLU + BBH + MATH-hard + HumanEval"), never the set's key (``paper``)."""
    if capability != "set" or "(" not in str(label):
        return str(row)
    inside = str(label)[str(label).find("(") + 1:str(label).rfind(")")].split(";")[0]
    return " + ".join(part.strip() for part in inside.split(","))


def forest_figure(rows: pd.DataFrame, paper_months: float, *, title: str = FOREST_TITLE) -> go.Figure:
    """Doubling time per benchmark and per benchmark set with its 95% interval (a forest plot), the paper's drawn.

    ``rows``: :meth:`densing.trend.measurement.TrendMeasurement.by_benchmark` (or rows with its ``row``,
    ``capability``, ``months``, ``ci_low``, ``ci_high`` and ``error`` columns). A measured row is a filled point with
    its interval; a row that is not measured says so on the plot at its row, with its short reason (the full one in
    the hover): under its estimate's grey bar when it has one, alone on its line when it has none. An interval's end
    at ∞ is an arrow running off the right edge of the axis, labelled ∞; the axis ends past every finite number
    (:func:`forest_axis_end`), so no finite interval reaches the edge. ``title`` names the rows' source (the two
    forest plots of the report differ by it).
    """
    rows = rows.iloc[::-1].reset_index(drop=True)  # the first row on top
    labels = [f"{row_display(r.row, getattr(r, 'label', r.row), r.capability)} · {r.capability}" for r in rows.itertuples()]
    edge = forest_axis_end(rows, paper_months)
    reasons = [_not_measured(r) for r in rows.itertuples()]
    hover = [html.escape(f"{r.row}: " + (
        f"{'' if not why else 'estimate '}{format_months(r.months)} months (95% CI {format_months(r.ci_low)}–"
        f"{format_months(r.ci_high)}); references {r.references}; each: {r.each_reference_months}"
        + (f"; {why}" if why else "") if np.isfinite(r.months) else why))
        for r, why in zip(rows.itertuples(), reasons)]
    figure = go.Figure()
    styles = (("measured (point, 95% CI)", False, "#1f77b4", "circle"),
              ("not measured: the estimate (point, 95% CI), grey", True, "#8a93a6", "circle-open"))
    for name, unmeasured, color, symbol in styles:
        mine = [i for i, why in enumerate(reasons) if bool(why) == unmeasured and np.isfinite(rows.at[i, "months"])]
        if not mine:
            continue
        segments_x, segments_y, arrows_x, arrows_y = [], [], [], []
        for i in mine:
            low, high = float(rows.at[i, "ci_low"]), float(rows.at[i, "ci_high"])
            if not np.isfinite(low) or np.isnan(high):  # no interval: the point alone
                continue
            if np.isfinite(high):
                segments_x += [low, high, None]
                segments_y += [labels[i], labels[i], None]
            else:  # +∞: the arrow's shaft to the edge
                arrows_x += [low, edge, None]
                arrows_y += [labels[i], labels[i], None]
        if segments_x:
            figure.add_trace(go.Scatter(x=segments_x, y=segments_y, mode="lines", line=dict(color=color, width=2),
                                        name=f"{name}: interval", legendgroup=name, showlegend=False, hoverinfo="skip"))
        if arrows_x:  # the shaft, its head at the edge (not clipped) and ∞ beside it, outside the axis
            count = len(arrows_x) // 3
            figure.add_trace(go.Scatter(
                x=arrows_x, y=arrows_y, mode="lines+markers+text", cliponaxis=False, legendgroup=name,
                name=f"{name}: upper end at ∞ (arrow off the axis)", showlegend=False, hoverinfo="skip",
                line=dict(color=color, width=2), text=["", "∞", ""] * count, textposition="middle right",
                textfont=dict(size=15, color=color),
                marker=dict(symbol=["circle", "arrow-right", "circle"] * count, size=[0, 13, 0] * count, color=color,
                            line=dict(width=0))))
        figure.add_trace(go.Scatter(
            x=rows.loc[mine, "months"], y=[labels[i] for i in mine], mode="markers", name=name, legendgroup=name,
            marker=dict(size=9, color=color, symbol=symbol, line=dict(width=2, color=color)),
            text=[hover[i] for i in mine], hovertemplate="%{text}<extra></extra>"))
    for i, why in enumerate(reasons):  # the status, on the plot at its row
        if why:
            shown = np.isfinite(rows.at[i, "months"])
            figure.add_annotation(
                x=0, y=labels[i], xref="x", yref="y", xanchor="left", yanchor="middle", xshift=4, yshift=-13 if shown else 0,
                text=html.escape(_short_reason(why)), hovertext=hover[i], showarrow=False,
                font=dict(size=10 if shown else 11, color="#8a1c1c"), bgcolor="rgba(255,255,255,0.8)")
    empty = [i for i, why in enumerate(reasons) if why and not np.isfinite(rows.at[i, "months"])]
    if empty:  # the category axis keeps a row with nothing drawn on it: an invisible point holds its place
        figure.add_trace(go.Scatter(x=[0] * len(empty), y=[labels[i] for i in empty], mode="markers", showlegend=False,
                                    marker=dict(size=1, opacity=0), text=[hover[i] for i in empty],
                                    hovertemplate="%{text}<extra></extra>"))
    figure.add_vline(x=paper_months, line=dict(color="#d62728", dash="dash"),
                     annotation_text=f"paper {paper_months} months", annotation_position="top")
    figure.update_layout(title=title, xaxis_title="doubling time (months)",
                         xaxis=dict(range=[0, edge]),
                         yaxis=dict(type="category", categoryorder="array", categoryarray=labels, range=[-0.6, len(labels) - 0.4]),
                         height=150 + FOREST_ROW * len(rows), margin=dict(l=10, r=40, t=60, b=90),
                         legend=dict(orientation="h", x=0, y=0, yanchor="bottom", yref="container"))
    return figure


#: The sources of a trend's uncertainty, as the share panel names them.
SOURCE_WORDS = {"fit": "reference fit", "score": "score noise", "models": "sampling of models",
                "reference": "choice of reference"}


def uncertainty_figure(result, paper_months: float, *, title: str | None = None) -> go.Figure:
    """What a :class:`densing.trend.uncertainty.TrendUncertainty` holds, in two panels.

    Left: the doubling time with its interval over every source together (a point and its bar; an end at ∞ an arrow
    to the axis' edge, labelled ∞), each candidate reference's own point doubling time beside it (open diamonds), the
    paper's ``paper_months`` a dashed line. Right: each source's share of the slope variance (bars, its slope standard
    deviation in the hover); a source drawn alone in no draw (``n_boot_share = 0``) says so instead.
    """
    from plotly.subplots import make_subplots

    months, low, high = result.doubling_time_months, result.doubling_time_months_ci_low, result.doubling_time_months_ci_high
    own = result.reference_months
    finite = [v for v in (months, low, high, paper_months, *own.values()) if np.isfinite(v) and v > 0]
    edge = 1.15 * max(finite) if finite else 10.0
    row = f"all sources ({result.level:.0%} CI)"
    figure = make_subplots(rows=1, cols=2, column_widths=[0.62, 0.38], horizontal_spacing=0.2,
                           subplot_titles=("doubling time (months)", "share of the slope variance (%)"))
    if np.isfinite(low) and not np.isnan(high):
        top = high if np.isfinite(high) else edge
        figure.add_trace(go.Scatter(
            x=[low, top], y=[row, row], mode="lines+markers+text" if not np.isfinite(high) else "lines",
            line=dict(color=PALETTE[0], width=3), name=f"{result.level:.0%} interval", cliponaxis=False,
            text=["", "" if np.isfinite(high) else "∞"], textposition="middle right",
            marker=dict(symbol=["circle", "circle" if np.isfinite(high) else "arrow-right"],
                        size=[0, 0 if np.isfinite(high) else 13], color=PALETTE[0]),
            hovertemplate=f"{result.level:.0%} interval: {format_months(low)}–{format_months(high)} months<extra></extra>"),
            row=1, col=1)
    figure.add_trace(go.Scatter(
        x=[months] if np.isfinite(months) else [], y=[row] if np.isfinite(months) else [], mode="markers",
        name=f"doubling time ({result.rule} rule, {result.n_models} models)", marker=dict(size=11, color=PALETTE[0]),
        hovertemplate=f"{format_months(months)} months (A = {result.slope_per_day:.4g}/day)<extra></extra>"), row=1, col=1)
    if own:
        names = [name.split(":")[0] for name in own]
        figure.add_trace(go.Scatter(
            x=[v if np.isfinite(v) else edge for v in own.values()], y=names, mode="markers",
            name="each reference's own point estimate", marker=dict(size=10, symbol="diamond-open", color=PALETTE[3],
                                                                   line=dict(width=2)),
            text=_esc([f"{name}: {format_months(v)} months, weight {w:.2g}" for name, v, w in
                       zip(own, own.values(), result.reference_weights or [math.nan] * len(own))]),
            hovertemplate="%{text}<extra></extra>"), row=1, col=1)
    figure.add_vline(x=paper_months, line=dict(color="#d62728", dash="dash"), row=1, col=1,
                     annotation_text=f"paper {paper_months} months", annotation_position="top")
    sources = ["fit", "score", "models"] + (["reference"] if result.n_references > 1 else [])
    shares = [getattr(result, f"share_{s}") for s in sources]
    sds = [getattr(result, f"slope_sd_{s}") for s in sources]
    words = [SOURCE_WORDS[s] for s in sources]
    drawn = [np.isfinite(v) for v in shares]
    figure.add_trace(go.Bar(
        x=[100 * v if ok else 0 for v, ok in zip(shares, drawn)], y=words, orientation="h", marker_color=PALETTE[1],
        name="share of the slope variance (each source drawn alone)",
        text=[format_number(100 * v) + "%" if ok else "not drawn" for v, ok in zip(shares, drawn)], textposition="auto",
        hovertext=[f"{w}: slope SD {format_number(sd)}/day" for w, sd in zip(words, sds)],
        hovertemplate="%{hovertext}<extra></extra>"), row=1, col=2)
    figure.update_xaxes(range=[0, edge], title_text="months", row=1, col=1)
    figure.update_xaxes(range=[0, 100], title_text="%", row=1, col=2)
    figure.update_yaxes(type="category", row=1, col=1)
    figure.update_layout(
        title=title or f"Doubling time and where its uncertainty comes from · {result.rule} rule, {result.n_boot} draws",
        height=260 + 30 * max(len(own), len(sources)), margin=dict(l=10, r=40, t=80, b=90),
        legend=dict(orientation="h", x=0, y=0, yanchor="bottom", yref="container"))
    return figure
