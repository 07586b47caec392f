"""The trend's figures (plotly): capacity density over release dates with the frontier line, density against
size by family, and the doubling time per benchmark (a forest plot). The report draws them and the results'
``.plot()`` methods return them, so a notebook gets the report's own figures."""
from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from densing.numbers import format_count, format_number, log_ticks
from densing.trend import rules

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def _esc(values) -> list[str]:
    return [html.escape(str(v)) for v in values]


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
    has_ci = {"density_ci_low", "density_ci_high"} <= set(frame.columns)
    n_hat = frame["effective_params"] if "effective_params" in frame.columns else frame["density"] * frame["params"]
    frame["hover"] = [
        f"<b>{html.escape(str(m))}</b><br>released {pd.Timestamp(t):%Y-%m-%d} · family {html.escape(str(f))}<br>"
        f"N {format_count(p)} · N̂ {format_count(nh) if np.isfinite(nh) else '—'}<br>{s}<br>{relation[int(b)]} {format_number(d, html=True)}"
        + (f" (95% CI {format_number(lo, html=True)}–{format_number(hi, html=True)})" if has_ci and b == 0 else "")
        + ("" if b == 0 else " (a bound: the reference cannot say more)")
        for m, t, f, p, nh, s, d, b, lo, hi in zip(
            frame["model"], frame["release_date"], frame.get("family", pd.Series("—", index=frame.index)), frame["params"], n_hat,
            scores, frame["density"], frame["bound"], frame.get("density_ci_low", frame["density"]),
            frame.get("density_ci_high", frame["density"]))
    ]
    # the frontier: the points at or above the line at their date (for the envelope, its record-setters)
    if line is not None:
        used = set(line.frontier_models)
        if len(used) < len(frame):
            marked = frame["model"].isin(used)
        else:
            marked = pd.Series(frame["log_density"].to_numpy() >= np.asarray(line.predict(frame["release_date"]), float) - 1e-12,
                               index=frame.index)
    else:
        marked = pd.Series(False, index=frame.index)
    figure = go.Figure()
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
    if has_ci:  # per-model 95% intervals: wide (often orders of magnitude), so hidden until asked for
        rows = frame[(frame["bound"] == 0) & np.isfinite(frame["density_ci_low"]) & np.isfinite(frame["density_ci_high"])]
        if len(rows):
            figure.add_trace(go.Scatter(
                x=rows["release_date"], y=rows["density"], mode="markers", visible="legendonly",
                name="each model's 95% interval (hidden: click to show)", marker=dict(color="rgba(90,98,117,0.35)", size=5),
                error_y=dict(type="data", symmetric=False, array=rows["density_ci_high"] - rows["density"],
                             arrayminus=rows["density"] - rows["density_ci_low"], color="rgba(90,98,117,0.35)", thickness=1),
                text=rows["hover"], hovertemplate="%{text}<extra></extra>"))
    if marked.any():
        rows = frame[marked]
        symbols = np.where(rows["bound"] == 1, "triangle-up", np.where(rows["bound"] == -1, "triangle-down", "diamond"))
        figure.add_trace(go.Scatter(
            x=rows["release_date"], y=rows["density"], mode="markers+text", name="the frontier: models at or above the line (named)",
            text=[_short(m) for m in rows["model"]], textposition="top center", textfont=dict(size=10, color=PALETTE[3]),
            hovertext=rows["hover"], hovertemplate="%{hovertext}<extra></extra>",
            marker=dict(color=PALETTE[3], size=11, symbol=list(symbols))))
    anchors = frame[frame["model"].isin(_named_models()) & ~marked]
    if len(anchors):  # the models the paper and the report's tables name
        figure.add_trace(go.Scatter(
            x=anchors["release_date"], y=anchors["density"], mode="markers+text", name="named models (the report's table)",
            text=[_short(m) for m in anchors["model"]], textposition="bottom center", textfont=dict(size=10, color="#3b4252"),
            hovertext=anchors["hover"], hovertemplate="%{hovertext}<extra></extra>",
            marker=dict(color="rgba(0,0,0,0)", size=12, line=dict(color="#3b4252", width=1.5))))
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
            name=(f"{rules.get(other.rule).words()} (hidden: click to show): doubling {_months(other.doubling_time_months)} months "
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


def _short(model: str) -> str:
    """A model's name without its organisation (``meta-llama/Llama-2-7b-hf`` → ``Llama-2-7b-hf``)."""
    return html.escape(str(model).rsplit("/", 1)[-1])


def _named_models() -> tuple[str, ...]:
    from densing.trend.constants import NAMED_MODELS

    return NAMED_MODELS


def size_figure(points: pd.DataFrame) -> go.Figure:
    """ln ρ against ln N, one colour per family with two or more sizes (what the size check looks at): within a
    family of one recipe, density should not depend on size if the reference's shape in N is the targets'. Bounds
    are drawn as ▲/▼ and left out of the family lines."""
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
        figure.add_trace(go.Scatter(x=rows["params"], y=np.exp(rows["log_density"]), mode="markers",
                                    marker=dict(color=PALETTE[i % len(PALETTE)], size=8, symbol=list(symbol(rows["bound"]))),
                                    name=f"{family}", legendgroup=family, text=[_short(m) for m in rows["model"]],
                                    hovertemplate="%{text}: N %{x:.3s}, ρ %{y:.3g}<extra></extra>"))
        if len(exact) >= 2:
            figure.add_trace(go.Scatter(x=exact["params"], y=np.exp(exact["log_density"]), mode="lines", showlegend=False,
                                        legendgroup=family, line=dict(color=PALETTE[i % len(PALETTE)], width=1), hoverinfo="skip"))
    figure.update_layout(title="Density against size, by family (the size check)", height=460,
                         xaxis=dict(title="parameters N", type="log", exponentformat="power"),
                         yaxis=dict(title="capacity density ρ", type="log", exponentformat="power"),
                         margin=dict(l=60, r=20, t=50, b=50), legend=dict(font=dict(size=10)))
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
