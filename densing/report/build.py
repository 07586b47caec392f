"""The densing report: one self-contained HTML file and a headline for the terminal.

Pipeline (all inputs shipped, so it runs offline): shipped public results → densities under the
shipped reference fits (Xiao et al. 2024, eq. 4) → trend of the frontier density over release
dates (eq. 5, :mod:`densing.trend`) → sensitivity to the benchmark, the reference fit and D0 →
figures, tables and caveats.
"""
from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from densing import paths
from densing.data import read_results
from densing.data.units import format_count
from densing.density import compute_density, is_censored
from densing.errors import InputError
from densing.laws.reference import ReferenceFit
from densing.report import figures
from densing.report.html import Section, cards_html, esc, figure_html, fmt_fixed, page, table_html
from densing.report.line import MeasuredLine, measured_line

#: The reference law plots (Pythia) shown in the report's "Reference laws" section.
DEFAULT_LAW_FITS = "pythia_*.json"
#: The trend rows a reader needs (the JSON output of `densing trend` has them all).
TREND_TABLE_COLUMNS = ("rule", "months", "ci_low", "ci_high", "n_models", "lower_bounds", "upper_bounds",
                       "share_fit", "share_score", "share_models")
FRONTIERS = ("envelope", "quantile", "all")


@dataclass(frozen=True)
class Headline:
    """What the report leads with (also printed in the terminal): a number, or why there is none."""

    measurable: bool
    words: str
    doubling_time_months: float
    ci_low_months: float
    ci_high_months: float
    n_models: int
    frontier: str
    reference_fit: str
    d0: float

    def text(self) -> str:
        return self.words


def _load_fits(pattern: str, folder: Path) -> list[ReferenceFit]:
    found = sorted(glob.glob(str(folder / pattern)))
    return [ReferenceFit.load(p) for p in found]


def _optional_csv(path: Path) -> pd.DataFrame | None:
    return pd.read_csv(path) if path.exists() else None


def build_report(
    *,
    results: str | Path | None = None,
    headline_fit: str | Path | None = None,
    fits_dir: str | Path | None = None,
    d0: float | None = None,
    frontier: str = "envelope",
    epoch: str = "2023-02-24",
    since: str | None = "2023-02-24",
    n_boot: int = 600,
    seed: int = 0,
    traces: str | Path | None = None,
) -> tuple[str, Headline, pd.DataFrame]:
    """Compute everything the report shows; return (html, headline, per-model densities).

    The headline is :func:`densing.trend.measure.measure_trend`'s: a doubling time with fit, score
    and model uncertainty, or, when a validity check fails, the words saying why it is withheld.
    ``frontier`` only chooses the line drawn in the density figure (the paper's envelope by default).
    """
    from densing.trend.measure import PAPER, measure_trend, with_stderr

    if frontier not in FRONTIERS:
        raise InputError(f"frontier: expected one of {', '.join(FRONTIERS)}, got {frontier!r}")
    folder = Path(fits_dir) if fits_dir else paths.REFERENCE_FITS
    results_path = Path(results) if results else DEFAULT_RESULTS
    table = read_results(results_path)
    given = ReferenceFit.load(headline_fit) if headline_fit else None
    measured = measure_trend(table, fits_dir=folder, fit=given, d0=d0, since=since, epoch=epoch, n_boot=n_boot, seed=seed)
    main_fit = measured.fit
    d0 = measured.d0
    targets = table[table["model"].astype(str).isin(set(measured.models["model"].astype(str)))]
    dens = compute_density(with_stderr(targets), main_fit, d0=d0, seed=seed)
    meta_cols = [c for c in ("date_confidence", "date_source") if c in targets.columns]
    if meta_cols:
        meta = targets.drop_duplicates("model").set_index("model")[meta_cols]
        dens = dens.join(meta, on="model")
    law_fits = _load_fits(DEFAULT_LAW_FITS, folder)
    head = measured.rules[measured.headline_rule]
    headline = Headline(
        measurable=measured.measurable, words=measured.headline, doubling_time_months=head.doubling_time_months,
        ci_low_months=head.doubling_time_months_ci_low, ci_high_months=head.doubling_time_months_ci_high,
        n_models=head.n_models, frontier=measured.headline_rule, reference_fit=measured.reference, d0=d0,
    )
    line = measured_line(measured, frontier, epoch) if frontier in measured.rules else None
    label, file_name = _reference_label(measured, headline_fit)
    trend_table = measured.table()
    envelope_line = line if frontier == "envelope" else (measured_line(measured, "envelope", epoch) if "envelope" in measured.rules else None)
    paper = _paper_table(measured, PAPER, envelope_line, _envelope_segments(measured, with_stderr(table), epoch),
                         drawn=frontier == "envelope")
    verdict = ("measurable: every check passed" if measured.measurable
               else "withheld: it is not measurable with this reference, see the validity checks below")
    sections = [
        Section(
            "Headline",
            f"Doubling time of the capacity-density frontier of open base models — {verdict}. Intervals carry the "
            "reference fit's bootstrap, each score's standard error and resampling of models; the shares say which dominates.",
            [
                f'<p class="headline-words">{esc(measured.headline)}</p>',
                cards_html(
                    [
                        ("verdict", "measured" if measured.measurable else "withheld"),
                        ("headline rule", f"{measured.headline_rule} (censored, q = 0.9)"),
                        (f"reference, named so in every table below; in the headline {measured.reference}; file {file_name}", label),
                        ("how the reference was chosen", measured.reference_rule),
                        ("D0 (tokens)", format_count(d0)),
                        ("models / as bounds", f"{head.n_models} / {head.n_lower_bounds + head.n_upper_bounds}"),
                    ]
                ),
                table_html(trend_table.round(4), scroll=False),
                "<h3>Validity checks</h3>",
                table_html(measured.checks_table(), scroll=False),
                "<h3>The paper's numbers beside ours</h3>",
                table_html(paper, scroll=False),
                '<p class="sub">The paper (Xiao et al. 2024) fits its own two-step reference on five benchmarks (MMLU, BBH, MATH, '
                "HumanEval, MBPP) and losses it computed; this table's scores are ObsScaling's Open LLM Leaderboard v1 "
                "evaluations, so its reference must be a family evaluated in that same format (the OLMo ladder reference "
                "uses the OLMES format and cannot invert these scores). The envelope interval is optimistic: its points are "
                "chosen on the response (bench/trend_full_coverage.py measures the coverage of every rule).</p>",
            ],
        ),
        Section(
            "Capacity density over time",
            _density_intro(measured, frontier, line),
            [figure_html(figures.density_figure(measured.models, line, title=f"Capacity density vs release date · {frontier} rule"), "density-trend")],
        ),
        Section(
            "Reference laws",
            "The laws that turn a score into an effective size, on their own reference models.",
            [figure_html(figures.performance_figure(_eligible_fits(measured)), "performance-trend-fits",
                         "Eligible candidate references of the trend: composed law (scores only) on the Pile ladder's models; "
                         "x is the latent loss L(N, D) the law assigns to each model.")]
            + [figure_html(figures.loss_figure(f), f"loss-{i}",
                           "Pythia, LAMBADA: the two-step law's loss estimation (eq. 2), one line per model size.")
               for i, f in enumerate(law_fits) if f.kind == "two-step"]
            + [figure_html(figures.performance_figure([f for f in law_fits]), "performance-pythia",
                           "Pythia's checkpoints: performance estimation (eq. 3) for the shipped Pythia references. Panels "
                           "marked 'poor fit' have R² below 0.5: their law does not describe the points (ARC-C at chance for "
                           "most checkpoints) and is not used by the trend.")],
        ),
        Section("Reference selection", "The rule (README): eligible if the reference's token counts span ≥ 3×; among "
                "eligible, the lowest held-out error (refit without the two largest sizes, predict them).",
                [table_html(_selection_table(measured.selection, measured), scroll=False)]),
        Section(
            "Per-model densities",
            f"Reference {label}, D0 = {format_count(d0)} tokens. Censored rows have no finite effective size; "
            "the trend uses them as bounds.",
            [table_html(_model_table(dens))],
        ),
        Section("Sensitivity", "Doubling time (months, headline rule, point estimate) per candidate reference (rows, named as in "
                f"the selection table; the chosen one is {label}) and D0 in tokens (columns); ∞: the frontier does not rise.",
                [table_html(_sensitivity_table(measured.sensitivity), scroll=False)]),
        Section("Data caveats", "", [_caveats_html(dens, measured, results_path, since)]),
    ]
    if traces is not None:
        from densing.overlap.figures import report_section

        overlap_parts = [figure_html(fig, f"overlap-{i}") for i, (_, fig) in enumerate(report_section(traces))]
        sections.append(Section("Communication/computation overlap", f"PyTorch-profiler traces in {traces}.", overlap_parts))
    html = page(
        "densing report",
        _subtitle(measured, label),
        sections,
        f"Generated by densing from {results_path.name} and the shipped reference fits. Method: Xiao et al. 2024, arXiv 2412.04315.",
    )
    return html, headline, dens


def _eligible_fits(measured) -> list[ReferenceFit]:
    """The candidate references the rule found eligible (the others' fits are not drawn)."""
    names = measured.selection.loc[measured.selection["eligible"].astype(bool), "fit"]
    return [measured.candidates[str(n)] for n in names]


def _count(value) -> str:
    """A corrected value as written for people: token and parameter counts as 627B, 7B; other values as they are."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return format_count(number) if number >= 1e6 else f"{number:g}"


def fit_label(name: str) -> str:
    """A reference fit's name in the report's tables: its file name without ``.json`` and ``_composed``."""
    return str(name).removesuffix(".json").removesuffix("_composed")


def _reference_label(measured, headline_fit) -> tuple[str, str]:
    """(label, file name) of the reference measured against: a candidate's file, else the file given."""
    for name, candidate in measured.candidates.items():
        if candidate is measured.fit:
            return fit_label(name), name
    name = Path(headline_fit).name if headline_fit else measured.reference
    return fit_label(name), name


def _subtitle(measured, label: str) -> str:
    """The page's one-line summary; the full headline is the Headline section's first paragraph."""
    head = measured.rules[measured.headline_rule]
    if measured.measurable:
        return (f"Capacity density doubles every {fmt_fixed(head.doubling_time_months)} months (95% CI "
                f"{fmt_fixed(head.doubling_time_months_ci_low)}–{fmt_fixed(head.doubling_time_months_ci_high)}; "
                f"{measured.headline_rule} rule, reference {label}).")
    failed = [c.name for c in measured.checks if not c.passed]
    return (f"Doubling time withheld: not measurable with reference {label} — {len(failed)} of {len(measured.checks)} "
            f"validity checks failed ({', '.join(failed)}). The Headline section says why.")


def _density_intro(measured, frontier: str, line: MeasuredLine | None) -> str:
    points = ("Each point is a model the trend uses (hover for its name, size, score and density); a triangle is a censored "
              "density drawn at its bound (▲ ρ ≥ the value: the score is beyond what the reference reaches at D0).")
    role = ("it is the headline rule" if frontier == measured.headline_rule else f"drawn for comparison; the headline rule is "
            f"{measured.headline_rule}") + ("" if measured.measurable else ", and the headline is withheld")
    if line is None:
        return f"{points} The {frontier} rule has no line: {measured.rule_errors.get(frontier, 'it could not be fitted')}."
    how = {"envelope": "the record-setters (red) fitted by OLS, a bound entering at its bound value",
           "quantile": "Powell's censored 0.9 regression quantile through every point, bounds as bounds",
           "all": "the Tobit (censored mean) line through every point, bounds as bounds"}[frontier]
    return (f"{points} The line is the {frontier} rule exactly as in the tables above ({how}): slope "
            f"{line.slope_per_day:.4f}/day, doubling {fmt_fixed(line.doubling_time_months)} months; its band is that "
            f"slope's 95% interval (fit + score + models), pivoting at the mean date of the line's points — {role}.")


def _selection_table(selection: pd.DataFrame, measured) -> pd.DataFrame:
    columns = ["fit", "chosen", "eligible", "why", "held_out_error", "token_span", "n_sizes", "highest_reference_score"]
    table = selection[[c for c in columns if c in selection.columns]].copy()
    table["fit"] = table["fit"].astype(str).map(fit_label)
    table["why"] = table["why"].fillna("")
    return table


def _sensitivity_table(sensitivity: pd.DataFrame) -> pd.DataFrame:
    wide = sensitivity.pivot(index="reference", columns="d0", values="doubling_time_months")
    wide.columns = [f"D0 {format_count(c)}" for c in wide.columns]
    wide.index = [fit_label(r) for r in wide.index]
    return wide.rename_axis("reference").reset_index()


def _envelope_segments(measured, targets: pd.DataFrame, epoch: str) -> dict[str, str]:
    """Why the envelope column has no slope before / after ChatGPT: the breakpoint is fitted for the
    headline rule only; a segment with fewer record-setters than a line needs says so, and a segment
    whose models are the whole period's points to slope A. ``targets``: the results table, with stderr."""
    from densing.trend.constants import CHATGPT_RELEASE, MIN_POINTS
    from densing.trend.measure import _frontier, _point_bounds, trend_targets

    if "envelope" not in measured.rules:
        return {"before": "—", "after": "—"}
    out = {}
    for name, lo, hi in (("before", None, CHATGPT_RELEASE), ("after", CHATGPT_RELEASE, None)):
        rows, _ = trend_targets(targets, measured.fit, since=lo, until=hi, epoch=epoch)
        y, kind = _point_bounds(rows, measured.fit, measured.d0)
        setters = len(_frontier(rows, y, kind))
        if setters < MIN_POINTS:
            out[name] = f"— ({setters} record-setter{'s' if setters != 1 else ''} of {len(rows)} models {name} ChatGPT; a line needs {MIN_POINTS})"
        elif set(rows["model"].astype(str)) == set(measured.models["model"].astype(str)):
            out[name] = f"— (the models {name} ChatGPT are the whole period's: see slope A)"
        else:
            out[name] = "— (the breakpoint is fitted for the headline rule only)"
    return out


def _paper_table(measured, paper: dict, line: MeasuredLine | None, segments: dict[str, str], *, drawn: bool) -> pd.DataFrame:
    """The paper's numbers beside ours; ``line``: the envelope's line (for its R²), ``drawn``: the density figure draws it."""
    head = measured.rules[measured.headline_rule]
    envelope = measured.rules.get("envelope")
    b = measured.breakpoint

    def slope(name: str) -> str:
        if b.get(f"{name}_per_day") is None:
            return "not fitted"
        return f"{b[name + '_per_day']:.4f} ({b[name + '_ci_low']:.4f} to {b[name + '_ci_high']:.4f})"

    def months(rule) -> str:
        return (f"{fmt_fixed(rule.doubling_time_months)} ({fmt_fixed(rule.doubling_time_months_ci_low)}–"
                f"{fmt_fixed(rule.doubling_time_months_ci_high)})")

    if line is not None:
        r2 = (f"{line.r_squared:.3f} (OLS through the {len(line.frontier_models)} record-setters"
              + (": the density figure's line)" if drawn else ")"))
    else:
        r2 = "—"
    rows = [
        ("doubling time (months)", f"{paper['doubling_time_months']}",
         months(head) + ("" if measured.measurable else " — withheld"),
         months(envelope) if envelope else measured.rule_errors.get("envelope", "")),
        ("slope A (per day)", f"{paper['slope_per_day']}", f"{head.slope_per_day:.4f}", f"{envelope.slope_per_day:.4f}" if envelope else "—"),
        ("R² of the frontier fit", f"{paper['r_squared']}", "— (censored quantile line: no R²)", r2),
        ("slope before ChatGPT (per day)", f"{paper['slope_before_chatgpt_per_day']}", slope("before"), segments["before"]),
        ("slope after ChatGPT (per day)", f"{paper['slope_after_chatgpt_per_day']}", slope("after"), segments["after"]),
    ]
    return pd.DataFrame(rows, columns=["quantity", "paper", "densing (headline rule, 95% CI)", "densing (paper's envelope rule)"])


DEFAULT_RESULTS = paths.RESULTS / "public_models.csv"


def _model_table(dens: pd.DataFrame) -> pd.DataFrame:
    """Per-model rows, the columns that explain a row first; a censored row has no interval (its reason says why)."""
    columns = [
        c
        for c in (
            "model", "density", "censored", "density_ci_low", "density_ci_high", "score", "stderr", "params",
            "effective_params", "release_date", "family", "date_confidence", "train_tokens",
        )
        if c in dens.columns
    ]
    table = dens.sort_values("density", ascending=False, na_position="last")[columns].copy()
    censored = is_censored(table["censored"])
    table.loc[censored, ["density_ci_low", "density_ci_high"]] = float("nan")
    table["censored"] = table["censored"].where(censored, None)
    return table


def _caveats_html(dens: pd.DataFrame, measured, results_path: Path, since: str | None) -> str:
    items = []
    left = measured.left_out
    if len(left):
        for reason, rows in left.groupby("reason"):
            items.append(f"{len(rows)} models left out of the trend ({esc(reason)}): {esc(', '.join(rows['model'].astype(str)))}")
    censored = dens[is_censored(dens["censored"])]
    if len(censored):
        counts = ", ".join(f"{k}: {v}" for k, v in censored["censored"].value_counts().items())
        items.append(f"{len(censored)} censored densities ({esc(counts)}), used by the trend as bounds: "
                     f"{esc(', '.join(censored['model'].astype(str)))}")
    if "date_confidence" in dens.columns:
        low = dens[dens["date_confidence"].isin(["low", "none"])]
        if len(low):
            items.append(f"{len(low)} models with low-confidence or missing release dates: {esc(', '.join(low['model'].astype(str)))}")
    corrections = _optional_csv(results_path.parent / "corrections.csv")
    if corrections is not None and len(corrections):
        rows = "; ".join(f"{r.model} {r.field}: {_count(r.source_value)} → {_count(r.corrected_value)} ({r.reason})" for r in corrections.itertuples())
        items.append(f"{len(corrections)} corrections to the source data: {esc(rows)}")
    if not items:
        items.append("none")
    return '<ul class="caveats">' + "".join(f"<li>{i}</li>" for i in items) + "</ul>"
