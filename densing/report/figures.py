"""Plotly figures of the report: the law fits, and density over release dates.

Each function takes plain DataFrames / fitted objects and returns a ``plotly.graph_objects.Figure``.
Hover text is HTML-escaped (model names are user data).
"""
from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from densing.numbers import format_count
from densing.laws.reference_fit import ReferenceFit

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def _esc(values) -> list[str]:
    return [html.escape(str(v)) for v in values]


def loss_figure(fit: ReferenceFit) -> go.Figure:
    """Loss estimation: measured conditional loss vs training tokens per model size (the loss stage's points), with
    the fitted L(N, D) = a·N^-α + b·D^-β [+E] (Xiao et al. 2024, eq. 2) drawn through each size."""
    points = fit.loss_points_frame().dropna(subset=["loss"])
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
from densing.laws.fit_schema import POOR_FIT_R2  # noqa: E402  (one threshold: the fit summary and the figure agree)


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
        points = fit.points_frame()  # the panel's numbers first (the points' losses, the law's curve), then its drawing
        if points.empty:  # a ladder fit keeps each run's final point, not its checkpoints
            points = fit.loss_points_frame()
        if fit.kind == "two-step":
            loss = points["loss"].to_numpy(float)
        else:
            loss = fit.predict_loss(points["params"], points["train_tokens"])
        positive = loss[np.isfinite(loss) & (loss > 0)]
        spread = bool(positive.size and positive.max() / positive.min() > 20)
        grid = np.geomspace(positive.min(), positive.max(), 200) if spread else np.linspace(np.nanmin(loss), np.nanmax(loss), 100)
        curve = fit.predict_score_from_loss(grid)
        figure.add_trace(
            go.Scatter(
                x=loss, y=points["score"], mode="markers", marker=dict(size=5, color=PALETTE[0], opacity=0.7),
                text=_esc(points["model"]), hovertemplate="%{text}<br>L = %{x:.3f}<br>S = %{y:.3f}<extra></extra>", showlegend=False,
            ),
            row=row, col=col,
        )
        figure.add_trace(go.Scatter(x=grid, y=curve, mode="lines", line=dict(color=PALETTE[3]), showlegend=False, hoverinfo="skip"), row=row, col=col)
        family_axis = "u = −(N/N_unit)^−α (family law, power shape)" if "alpha" in fit.params else "ln N (family law)"
        figure.update_xaxes(title_text=("loss" if fit.kind == "two-step" else family_axis if fit.kind == "family"
                                        else "latent loss L(N, D)") + (" (log)" if spread else ""),
                            type="log" if spread else "linear", exponentformat="power", row=row, col=col)
        figure.update_yaxes(title_text="score", row=row, col=col)
    figure.update_annotations(font_size=13)
    figure.update_layout(height=height, margin=dict(l=50, r=20, t=top, b=50))
    return figure
