"""Plotly figures of the report: the law fits, and density over release dates.

Each function takes plain DataFrames / fitted objects and returns a ``plotly.graph_objects.Figure``.
Hover text is HTML-escaped (model names are user data).
"""
from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from densing.data.units import format_count
from densing.laws.reference import ReferenceFit
from densing.numbers import format_number, log_ticks

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def _esc(values) -> list[str]:
    return [html.escape(str(v)) for v in values]


def loss_figure(fit: ReferenceFit) -> go.Figure:
    """Loss estimation: measured conditional loss vs training tokens per model size, with the
    fitted L(N, D) = a·N^-α + b·D^-β [+E] (Xiao et al. 2024, eq. 2) drawn through each size."""
    points = fit.points_frame().dropna(subset=["loss"])
    figure = go.Figure()
    for i, (size, group) in enumerate(points.groupby("params")):
        color = PALETTE[i % len(PALETTE)]
        group = group.sort_values("train_tokens")
        figure.add_trace(
            go.Scatter(
                x=group["train_tokens"], y=group["loss"], mode="markers", marker=dict(color=color, size=6),
                name=f"N = {format_count(size)}", legendgroup=str(size),
                text=[f"{m}<br>D = {format_count(d)}" for m, d in zip(_esc(group["model"]), group["train_tokens"])],
                hovertemplate="%{text}<br>loss = %{y:.4f}<extra></extra>",
            )
        )
        grid = np.geomspace(group["train_tokens"].min(), group["train_tokens"].max(), 60)
        figure.add_trace(
            go.Scatter(x=grid, y=fit.predict_loss(size, grid), mode="lines", line=dict(color=color), showlegend=False, legendgroup=str(size), hoverinfo="skip")
        )
    figure.update_layout(
        title=f"Loss estimation · {html.escape(fit.benchmark)} (R² {fit.stages[0].r_squared:.3f})",
        xaxis=dict(title="training tokens D", type="log", exponentformat="power"),
        yaxis=dict(title="conditional loss −log P(answer | prompt)", type="log", exponentformat="power"),
        height=420, margin=dict(l=60, r=20, t=50, b=50),
    )
    return figure


#: Below this R² a panel says in its title that the law does not describe its points.
from densing.laws.fit import POOR_FIT_R2  # noqa: E402  (one threshold: the fit summary and the figure agree)


def _panel_title(fit: ReferenceFit) -> str:
    """Two short lines (HTML for plotly, escaped): the benchmark, then the law and its R² in a smaller
    font; a fit below :data:`POOR_FIT_R2` gets a third, red line saying not to invert it."""
    name = fit.benchmark if len(fit.benchmark) <= 24 else f"mean of {len(fit.benchmarks)} benchmarks"
    title = f"{html.escape(name)}<br><span style='font-size:11px'>{html.escape(fit.kind)} · R² {fit.r_squared:.3f}</span>"
    if fit.r_squared < POOR_FIT_R2:
        title += f"<br><span style='font-size:11px;color:{PALETTE[3]}'>poor fit — do not invert</span>"
    return title


def _grid(count: int) -> tuple[int, int]:
    """(rows, columns): three columns only when they fill every row, else two (one for one panel)."""
    cols = 1 if count <= 1 else 3 if count % 3 == 0 else 2
    return int(np.ceil(count / cols)), cols


#: Pixels per row of panels and between rows (room for the x-axis title and a three-line panel title).
PANEL_HEIGHT = 300
PANEL_GAP = 120


def performance_figure(fits: list[ReferenceFit]) -> go.Figure:
    """Performance estimation: score vs (latent) loss of the reference points, with the fitted
    S(L) = c / (1 + e^{−γ(L − l)}) + d (eq. 3), one panel per benchmark."""
    rows, cols = _grid(len(fits))
    top = 70 if any(f.r_squared < POOR_FIT_R2 for f in fits) else 55
    height = rows * PANEL_HEIGHT + (rows - 1) * PANEL_GAP + top + 50
    plot = height - top - 50
    figure = make_subplots(rows=rows, cols=cols, subplot_titles=[_panel_title(f) for f in fits],
                           vertical_spacing=(PANEL_GAP / plot) if rows > 1 else 0.0, horizontal_spacing=0.09)
    for k, fit in enumerate(fits):
        row, col = k // cols + 1, k % cols + 1
        points = fit.points_frame()
        if fit.kind == "two-step":
            loss = points["loss"].to_numpy(float)
        else:
            loss = fit.predict_loss(points["params"], points["train_tokens"])
        figure.add_trace(
            go.Scatter(
                x=loss, y=points["score"], mode="markers", marker=dict(size=5, color=PALETTE[0], opacity=0.7),
                text=_esc(points["model"]), hovertemplate="%{text}<br>L = %{x:.3f}<br>S = %{y:.3f}<extra></extra>", showlegend=False,
            ),
            row=row, col=col,
        )
        positive = loss[np.isfinite(loss) & (loss > 0)]
        spread = bool(positive.size and positive.max() / positive.min() > 20)
        grid = np.geomspace(positive.min(), positive.max(), 200) if spread else np.linspace(np.nanmin(loss), np.nanmax(loss), 100)
        figure.add_trace(go.Scatter(x=grid, y=fit.predict_score_from_loss(grid), mode="lines", line=dict(color=PALETTE[3]), showlegend=False, hoverinfo="skip"), row=row, col=col)
        figure.update_xaxes(title_text=("loss" if fit.kind == "two-step" else "ln N (family law)" if fit.kind == "family"
                                        else "latent loss L(N, D)") + (" (log)" if spread else ""),
                            type="log" if spread else "linear", exponentformat="power", row=row, col=col)
        figure.update_yaxes(title_text="score", row=row, col=col)
    figure.update_annotations(font_size=13)
    figure.update_layout(height=height, margin=dict(l=50, r=20, t=top, b=50))
    return figure


def _months(value: float) -> str:
    return format_number(value, ".2f")


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
    relation = {0: "density", 1: "density ≥", -1: "density ≤"}
    score_columns = [c for c in frame.columns if str(c).startswith("score:")] or ["score"]
    scores = ["<br>".join(f"{str(c).removeprefix('score:') if c != 'score' else 'score'} {v:.3f}" for c, v in zip(score_columns, row))
              for row in frame[score_columns].to_numpy(float)]
    frame["hover"] = [
        f"{html.escape(str(m))}<br>params {format_count(p)}<br>{s}<br>{relation[int(b)]} {format_number(d, html=True)}"
        + ("" if b == 0 else " (bound: the reference cannot say more)")
        for m, p, s, d, b in zip(frame["model"], frame["params"], scores, frame["density"], frame["bound"])
    ]
    used = set(line.frontier_models) if line is not None else set()
    # the frontier is marked only when it is a subset (the envelope); quantile and Tobit lines use every point
    marked = frame["model"].isin(used) if line is not None and len(used) < len(frame) else pd.Series(False, index=frame.index)
    figure = go.Figure()
    styles = ((0, "models (finite density)", "circle", 7), (1, "lower bound ρ ≥ (score beyond the reference at D0)", "triangle-up", 9),
              (-1, "upper bound ρ ≤ (score at or below the floor)", "triangle-down", 9))
    for kind, name, symbol, size in styles:
        rows = frame[(frame["bound"] == kind) & ~marked]
        if len(rows):
            figure.add_trace(go.Scatter(
                x=rows["release_date"], y=rows["density"], mode="markers", name=name,
                marker=dict(color="#9aa3b5", size=size, symbol=symbol), text=rows["hover"], hovertemplate="%{text}<extra></extra>"))
    if marked.any():
        rows = frame[marked]
        symbols = np.where(rows["bound"] == 1, "triangle-up", np.where(rows["bound"] == -1, "triangle-down", "diamond"))
        figure.add_trace(go.Scatter(
            x=rows["release_date"], y=rows["density"], mode="markers", name=f"{line.rule} record-setters (▲: a bound)",
            marker=dict(color=PALETTE[3], size=11, symbol=list(symbols)), text=rows["hover"], hovertemplate="%{text}<extra></extra>"))
    low_y, high_y = np.log10(frame["density"].min()), np.log10(frame["density"].max())
    last = frame["release_date"].max()
    if highlight is not None and len(highlight):
        low_y, high_y, last = _highlight(figure, highlight, low_y, high_y, last)
    if line is not None:
        dates = pd.date_range(frame["release_date"].min(), last, periods=80)
        low, high = line.confidence_band(dates)
        figure.add_trace(go.Scatter(x=list(dates) + list(dates[::-1]), y=list(np.exp(high)) + list(np.exp(low)[::-1]), fill="toself",
                                    fillcolor="rgba(214,39,40,0.12)", line=dict(width=0), name="95% CI of the slope (fit + score + models)", hoverinfo="skip"))
        r2 = f", R² {line.r_squared:.3f}" if np.isfinite(line.r_squared) else ""
        name = (f"{line.rule} line: doubling {_months(line.doubling_time_months)} months "
                f"(95% CI {_months(line.doubling_time_months_ci_low)}–{_months(line.doubling_time_months_ci_high)}{r2})")
        fitted = np.exp(line.predict(dates))
        figure.add_trace(go.Scatter(x=dates, y=fitted, mode="lines", line=dict(color=PALETTE[3], width=2), name=name, hoverinfo="skip"))
        low_y = min(low_y, float(np.log10(fitted.min())))
        high_y = max(high_y, float(np.log10(fitted.max())))
    for other in others:  # the other rules: toggles (click the legend), hidden at first
        dates = pd.date_range(frame["release_date"].min(), last, periods=80)
        figure.add_trace(go.Scatter(
            x=dates, y=np.exp(other.predict(dates)), mode="lines", visible="legendonly", line=dict(dash="dash", width=1.5),
            name=(f"{other.rule} rule (click to show): doubling {_months(other.doubling_time_months)} months "
                  f"(95% CI {_months(other.doubling_time_months_ci_low)}–{_months(other.doubling_time_months_ci_high)})"),
            hoverinfo="skip"))
    if reach is not None and np.isfinite(reach):
        figure.add_hline(y=reach, line=dict(color="#888", dash="dot", width=1),
                         annotation_text="reference's largest member scored at this density's reach", annotation_position="top left")
    if checks_text:  # the validity checks, on the figure itself: a line is read with its verdict
        figure.add_annotation(text=html.escape(checks_text), xref="paper", yref="paper", x=0, y=1.0, xanchor="left",
                              yanchor="bottom", showarrow=False, font=dict(size=12, color="#8a1c1c" if "failed" in checks_text else "#1c6b2a"))
    pad = 0.1 * (high_y - low_y) + 0.2  # the band may run off the plot: the axis follows the points and the line
    tickvals, ticktext = log_ticks(low_y - pad, high_y + pad)  # 10⁻⁴, not plotly's SI 100μ
    figure.update_layout(
        title=title, xaxis=dict(title="release date"),
        yaxis=dict(title="capacity density ρ = N̂ / N", type="log", range=[low_y - pad, high_y + pad],
                   tickvals=tickvals, ticktext=ticktext),
        height=500, margin=dict(l=60, r=20, t=50, b=50), legend=dict(orientation="h", y=-0.18),
    )
    return figure


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


def forest_figure(rows: pd.DataFrame, paper_months: float) -> go.Figure:
    """Doubling time per benchmark and per benchmark set with its 95% interval (a forest plot), the paper's drawn.

    ``rows``: :meth:`densing.trend.measurement.TrendMeasurement.by_benchmark`. A row without a
    measurement is listed with its reason in the hover and no point; an interval reaching ∞ is drawn
    to the axis' edge.
    """
    rows = rows.iloc[::-1].reset_index(drop=True)  # the first row on top
    labels = [f"{r.row} · {r.capability}" for r in rows.itertuples()]
    finite = rows[np.isfinite(rows["months"])]
    edge = float(max(np.nanmax(finite["ci_high"].replace(np.inf, np.nan)) if len(finite) else paper_months, paper_months) * 1.3)
    high = np.where(np.isfinite(rows["ci_high"]), rows["ci_high"], edge)
    hover = [html.escape(f"{r.row}: " + (f"{r.months:.2f} months (95% CI {r.ci_low:.2f}–{format_number(r.ci_high, '.2f')}); "
                                         f"references {r.references}; each: {r.each_reference_months}"
                                         if np.isfinite(r.months) else f"not measured: {r.error}"))
             for r in rows.itertuples()]
    figure = go.Figure(go.Scatter(
        x=rows["months"], y=labels, mode="markers", marker=dict(size=9, color="#1f77b4"), name="densing (95% CI)",
        error_x=dict(type="data", symmetric=False, array=high - rows["months"], arrayminus=rows["months"] - rows["ci_low"]),
        text=hover, hovertemplate="%{text}<extra></extra>"))
    figure.add_vline(x=paper_months, line=dict(color="#d62728", dash="dash"),
                     annotation_text=f"paper {paper_months} months", annotation_position="top")
    figure.update_layout(title="Doubling time by benchmark and benchmark set", xaxis_title="doubling time (months)",
                         xaxis=dict(range=[0, edge]), height=60 + 28 * len(rows), margin=dict(l=10, r=10, t=50, b=40),
                         showlegend=False)
    return figure
