"""The report's tables, paragraphs and reference-law figures as the page shows them (layout only)."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from densing.laws.fit_schema import POOR_FIT_R2  # one threshold: the fit summary and the figure agree
from densing.laws.reference_fit import ReferenceFit
from densing.numbers import counted_noun, format_count, format_months, format_number
from densing.present.forest import PALETTE, escaped
from densing.present.verdict import segment_note
from densing.present.words import CAPTION_CLAUSES, PAPER_MARKS, ends_shown, result_interval, shown_legend
from densing.report.html import esc, legend_paragraphs, table_html
from densing.trend.capability import BUDGET_D0

#: Why density relative to a family at its own budget is not the paper's density at D0 = 1T.
DENSITY_MEANING = (
    "Densities here are relative to one public family at its own training budget (N̂ = the size that family would "
    "need for the same score), not to the paper's MiniCPM-3 reference at D0 = 1T tokens: the scale of ρ differs by "
    "a constant factor, which cancels in the doubling time (the slope of ln ρ over time), but the reference's shape "
    "in N does not cancel — if the targets' scores rise with N faster or slower than the reference family's, density "
    "depends on size within a family, which the size check tests."
)


def details(summary: str, body: str) -> str:
    """Columns that matter less, behind a toggle (the page stays within 900 px)."""
    return f"<details><summary>{esc(summary)}</summary>{body}</details>"


def breakable(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with a space after each comma and colon of its text cells, so a long reference name breaks."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column].dtype):
            out[column] = [v.replace(",", ", ").replace(":", ": ") if isinstance(v, str) else v for v in out[column]]
    return out


def displayed(frame: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """``frame`` with its ``row`` (and ``label``) named by ``names`` (:func:`densing.present.forest.row_names`)."""
    shown = [names.get(r, r) for r in frame["row"]]
    return frame.assign(row=shown, **({"label": shown} if "label" in frame.columns else {}))


def references_table(references: pd.DataFrame) -> pd.DataFrame:
    keep = ["reference", "months", "ci_low", "ci_high", "size_dependence"]
    table = references[[c for c in keep if c in references.columns]]
    return table.assign(reference=[str(r).replace(":", ": ", 1).replace(",", ", ") for r in table["reference"]])


def named_table(rows: pd.DataFrame, missing: tuple[str, ...], anchors: dict) -> pd.DataFrame:
    """The named models: the joint density (or its bound) with its interval, the Birge ratio, the paper's anchor."""
    columns = ["model", "density", "bound", "density_ci_low", "density_ci_high", "birge_ratio"]
    out = rows[[c for c in columns if c in rows.columns]].copy()
    out["paper"] = out["model"].map(anchors).fillna("")
    if missing:
        out = pd.concat(
            [
                out,
                pd.DataFrame(
                    {
                        "model": list(missing),
                        "paper": ["not a target (defines the reference, or no scores)"] * len(missing),
                    }
                ),
            ],
            ignore_index=True,
        )
    if "bound" in out.columns:
        out["bound"] = out["bound"].fillna("")
    return out.rename(
        columns={
            "density_ci_low": "95% low",
            "density_ci_high": "95% high",
            "birge_ratio": "Birge",
            "paper": "paper's anchor",
        }
    )


def per_benchmark_table(per_benchmark: pd.DataFrame, order: pd.DataFrame) -> pd.DataFrame:
    """One row per named model and benchmark, the models in ``order``'s order: ρ (or its bound) and its interval."""
    rank = {name: i for i, name in enumerate(order["model"])}
    table = per_benchmark.assign(rank=per_benchmark["model"].map(rank)).sort_values(["rank"], kind="stable")
    return table[["model", "benchmark", "density", "bound", "density_ci_low", "density_ci_high"]].rename(
        columns={"density_ci_low": "95% low", "density_ci_high": "95% high"}
    )


def candidate_table(candidates: pd.DataFrame) -> pd.DataFrame:
    columns = [
        "reference",
        "eligible",
        "why",
        "reach_share",
        "slope_ci_low",
        "held_out_z",
        "held_out_error",
        "dispersion",
        "sizes",
        "token_ratio",
        "largest_score",
    ]
    table = candidates[[c for c in columns if c in candidates.columns]].copy()
    table = table.assign(order=table["held_out_z"].abs() if "held_out_z" in table.columns else table["held_out_error"])
    return table.sort_values(["eligible", "order"], ascending=[False, True], na_position="last").drop(columns="order")


def model_table(dens: pd.DataFrame) -> pd.DataFrame:
    """Per-model rows, the columns that explain a row first."""
    columns = [
        c
        for c in (
            "model",
            "density",
            "bound",
            "density_ci_low",
            "density_ci_high",
            "params",
            "effective_params",
            "release_date",
            "family",
            "date_confidence",
        )
        if c in dens.columns
    ]
    return dens[columns].assign(
        **{
            c: [format_count(v) if np.isfinite(v) else "" for v in dens[c]]
            for c in ("params", "effective_params")
            if c in columns
        }
    )


def budget_parts(table: pd.DataFrame, budget_notes: dict) -> list[str]:
    """The budget sensitivity under the per-benchmark table: the paper-like rows with every reference at one D0."""
    if not len(table):
        return []
    notes = "".join(f"<li>{esc(name)}: {esc(note)}</li>" for name, note in budget_notes.items())
    body = (
        f'<p class="sub">Each reference family refitted over its members\' sizes at one budget D0 = '
        f"{format_count(BUDGET_D0)} tokens: a member of N parameters trained on D tokens stands for the N' that reaches "
        "the same loss at D0 under the loss law of Hoffmann et al. 2022 (L = 1.69 + 406.4·N^-0.34 + 410.7·D^-0.28). "
        "Compare each reference's months with the row above: what the spread between references owes to their "
        "budgets.</p>"
        + table_html(
            ends_shown(table)[["row", "status", "months", "ci_low", "ci_high", "n_models", "each_reference_months"]],
            scroll=False,
        )
        + "".join(legend_paragraphs(shown_legend(table)))
        + (f"<ul>{notes}</ul>" if notes else "")
    )
    return [details("the budget sensitivity: the same rows with every reference at one training budget", body)]


def density_intro(measured, frontier: str, line) -> str:
    points = (
        "Each point is a model the trend uses (hover for its date, family, N, N̂, scores and density with its 95% "
        "interval); a triangle is a censored density drawn at its bound; the red diamonds are the frontier (at or above "
        "the line), named where a label fits without overlapping another; circled points are the models the paper and "
        "the tables name (their names on hover). Each model's own 95% interval is a grey bar, up to orders of magnitude "
        "long: its legend entry hides and shows them."
    )
    role = (
        "it is the headline rule"
        if frontier == measured.headline_rule
        else f"drawn for comparison; the headline rule is {measured.headline_rule}"
    ) + CAPTION_CLAUSES[measured.state]
    if line is None:
        return (
            f"{points} The {frontier} rule has no line: {measured.rule_errors.get(frontier, 'it could not be fitted')}."
        )
    return (
        f"{points} The solid line is the {frontier} rule exactly as in the tables (slope A = {_slope(line)}/day, "
        f"doubling {_months(line)} months); its band is that slope's 95% interval (fit + score + models) — "
        f"{role}. The other rules are in the legend: click to show them."
    )


def _slope(line) -> str:
    """A line's (a rule's, a segment's) slope per day with its 95% interval."""
    low, high = format_number(line.slope_ci_low), format_number(line.slope_ci_high)
    return f"{format_number(line.slope_per_day)} (95% CI {low} to {high})"


def _months(rule) -> str:
    return f"{format_months(rule.doubling_time_months)}{result_interval(rule, brackets='()')}"


def paper_table(measured, paper: dict) -> pd.DataFrame:
    """The paper's numbers beside ours (the headline rule, and the envelope, the paper's own rule)."""
    head = measured.rules[measured.headline_rule]
    envelope = measured.rules.get("envelope")
    b = measured.breakpoint

    def segment(seg) -> str:
        if not np.isfinite(seg.slope_per_day):
            return f"not fitted ({segment_note(seg)})"
        same = " — the headline's models and interval" if seg.same_as_headline else ""
        return f"{_slope(seg)}{same}"

    rows = [
        (
            "doubling time (months)",
            f"{paper['doubling_time_months']} (29 models; 3.5 over 51 in the journal version)",
            _months(head) + PAPER_MARKS[measured.state],
            _months(envelope) if envelope else measured.rule_errors.get("envelope", ""),
        ),
        ("slope A (per day)", f"{paper['slope_per_day']}", _slope(head), _slope(envelope) if envelope else "—"),
        ("R² of the frontier fit", f"{paper['r_squared']}", "— (quantile line: no R²)", "—"),
        ("slope before ChatGPT (per day)", f"{paper['slope_before_chatgpt_per_day']}", segment(b.before), "—"),
        ("slope after ChatGPT (per day)", f"{paper['slope_after_chatgpt_per_day']}", segment(b.after), "—"),
    ]
    return pd.DataFrame(
        rows, columns=["quantity", "paper", "densing (headline rule, 95% CI)", "densing (paper's envelope rule)"]
    )


def _count(value) -> str:
    """A corrected value as written for people: token and parameter counts as 627B, 7B; other values as they are."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return format_count(number) if number >= 1e6 else f"{number:g}"


def caveats_html(dens: pd.DataFrame, left: pd.DataFrame, corrections: pd.DataFrame | None, results: Path) -> str:
    """The models left out and why, the bounds, the uncertain dates, the corrections to the source table."""
    items = (
        [
            f"{counted_noun(len(rows), 'model')} left out of the trend ({esc(reason)}): "
            f"{esc(', '.join(rows['model'].astype(str)))}"
            for reason, rows in left.groupby("reason")
        ]
        if len(left)
        else []
    )
    censored = dens[dens["bound"].astype(str) != ""]
    if len(censored):
        counts = ", ".join(f"{k}: {v}" for k, v in censored["bound"].value_counts().items())
        are = "is a bound" if len(censored) == 1 else "are bounds"
        items.append(
            f"{counted_noun(len(censored), 'density', 'densities')} {are} ({esc(counts)}), used by the trend "
            f"as bounds: "
            f"{esc(', '.join(censored['model'].astype(str)))}"
        )
    if "date_confidence" in dens.columns:
        low = dens[dens["date_confidence"].isin(["low", "none"])]
    else:
        low = dens.iloc[:0]
    if len(low):
        items.append(
            f"{counted_noun(len(low), 'model')} with low-confidence or missing release dates: "
            f"{esc(', '.join(low['model'].astype(str)))}"
        )
    if corrections is not None and len(corrections):
        table = pd.DataFrame(
            {
                "model": corrections["model"],
                "field": corrections["field"],
                "source": [
                    _count(v) if isinstance(v, str) or np.isfinite(v) else "— (none given)"
                    for v in corrections["source_value"]
                ],
                "corrected": [_count(v) for v in corrections["corrected_value"]],
                "reason": corrections["reason"],
            }
        )
        items.append(
            f"{counted_noun(len(corrections), 'correction')} to the source data "
            f"({esc(results.parent.name)}/corrections.csv, each with "
            "its evidence): " + details("the corrections", table_html(table, scroll=False))
        )
    return '<ul class="caveats">' + "".join(f"<li>{i}</li>" for i in items or ["none"]) + "</ul>"


# -- The reference laws' figures ---------------------------------------------------------------------------------------


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
                x=group["train_tokens"],
                y=group["loss"],
                mode="markers",
                marker=dict(color=color, size=6),
                name=f"N = {format_count(size)}",
                legendgroup=str(size),
                text=[f"{m}<br>D = {format_count(d)}" for m, d in zip(escaped(group["model"]), group["train_tokens"])],
                hovertemplate="%{text}<br>loss = %{y:.4f}<extra></extra>",
            )
        )
        grid = np.geomspace(group["train_tokens"].min(), group["train_tokens"].max(), 60)
        figure.add_trace(
            go.Scatter(
                x=grid,
                y=fit.predict_loss(size, grid),
                mode="lines",
                line=dict(color=color),
                showlegend=False,
                legendgroup=str(size),
                hoverinfo="skip",
            )
        )
    figure.update_layout(
        title=f"Loss estimation · {html.escape(fit.benchmark)} (R² {fit.stages[0].r_squared:.3f})",
        xaxis=dict(title="training tokens D", type="log", exponentformat="power"),
        yaxis=dict(title="conditional loss −log P(answer | prompt)", type="log", exponentformat="power"),
        height=420,
        margin=dict(l=60, r=20, t=50, b=50),
    )
    return figure


def _panel_title(fit: ReferenceFit) -> str:
    """The benchmark, then the law and its R² (HTML, escaped); below :data:`POOR_FIT_R2` a red "do not invert"."""
    name = fit.benchmark if len(fit.benchmark) <= 24 else f"mean of {len(fit.benchmarks)} benchmarks"
    title = (
        f"{html.escape(name)}<br><span style='font-size:11px'>{html.escape(fit.kind)} · R² {fit.r_squared:.3f}</span>"
    )
    if fit.r_squared < POOR_FIT_R2:
        title += f"<br><span style='font-size:11px;color:{PALETTE[3]}'>poor fit — do not invert</span>"
    return title


def law_axis_title(fit) -> str:
    """The x axis of a law's panel: the loss of a two-step law, u or ln N of a family law (by its shape), the latent
    loss L(N, D) of a composed law."""
    if fit.kind == "two-step":
        return "loss"
    if fit.kind == "family":
        if "alpha" in fit.params:
            return "u = −(N/N_unit)^−α (family law, power shape)"
        return "ln N (family law)"
    return "latent loss L(N, D)"


def _grid(count: int) -> tuple[int, int]:
    """(rows, columns): three columns only when they fill every row, else two (one for one panel)."""
    if count <= 1:
        cols = 1
    elif count % 3 == 0:
        cols = 3
    else:
        cols = 2
    return int(np.ceil(count / cols)), cols


#: Pixels per row of panels and between rows (room for the x-axis title and a three-line panel title).
PANEL_HEIGHT, PANEL_GAP = 300, 120


def performance_figure(fits: list[ReferenceFit]) -> go.Figure:
    """Performance estimation: score vs (latent) loss of the reference points, with the fitted
    S(L) = c / (1 + e^{−γ(L − l)}) + d (eq. 3), one panel per benchmark."""
    rows, cols = _grid(len(fits))
    top = 70 if any(f.r_squared < POOR_FIT_R2 for f in fits) else 55
    height = rows * PANEL_HEIGHT + (rows - 1) * PANEL_GAP + top + 50
    plot = height - top - 50
    figure = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[_panel_title(f) for f in fits],
        vertical_spacing=(PANEL_GAP / plot) if rows > 1 else 0.0,
        horizontal_spacing=0.09,
    )
    for k, fit in enumerate(fits):
        row, col = k // cols + 1, k % cols + 1
        points = fit.points_frame()  # the panel's numbers first (the points' losses, the law's curve), then its drawing
        if points.empty:  # a ladder fit keeps each run's final point, not its checkpoints
            points = fit.loss_points_frame()
        loss = (
            points["loss"].to_numpy(float)
            if fit.kind == "two-step"
            else fit.predict_loss(points["params"], points["train_tokens"])
        )
        positive = loss[np.isfinite(loss) & (loss > 0)]
        spread = bool(positive.size and positive.max() / positive.min() > 20)
        grid = (
            np.geomspace(positive.min(), positive.max(), 200)
            if spread
            else np.linspace(np.nanmin(loss), np.nanmax(loss), 100)
        )
        curve = fit.predict_score_from_loss(grid)
        figure.add_trace(
            go.Scatter(
                x=loss,
                y=points["score"],
                mode="markers",
                marker=dict(size=5, color=PALETTE[0], opacity=0.7),
                text=escaped(points["model"]),
                hovertemplate="%{text}<br>L = %{x:.3f}<br>S = %{y:.3f}<extra></extra>",
                showlegend=False,
            ),
            row=row,
            col=col,
        )
        figure.add_trace(
            go.Scatter(x=grid, y=curve, mode="lines", line=dict(color=PALETTE[3]), showlegend=False, hoverinfo="skip"),
            row=row,
            col=col,
        )
        figure.update_xaxes(
            title_text=law_axis_title(fit) + (" (log)" if spread else ""),
            type="log" if spread else "linear",
            exponentformat="power",
            row=row,
            col=col,
        )
        figure.update_yaxes(title_text="score", row=row, col=col)
    figure.update_annotations(font_size=13)
    figure.update_layout(height=height, margin=dict(l=50, r=20, t=top, b=50))
    return figure
