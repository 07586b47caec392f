"""The report model (:mod:`densing.report.compute`) as one self-contained HTML page, one layout function per section
type (a design's in its folder); :func:`build_report` computes and renders it.
"""

from __future__ import annotations

import datetime
import hashlib
import math
from dataclasses import dataclass

import pandas as pd

from densing import paths
from densing.constants import PAPER
from densing.display import VALUE
from densing.invocation import CommandLine
from densing.numbers import format_count, format_months, format_number
from densing.present import figures as trend_figures, records, shown
from densing.present.forest import RANGE_DRAWN
from densing.present.placement import answer, band_said, stated
from densing.present.words import (
    CARD_LABELS,
    FOLD_LEGEND,
    LINE_NOTES,
    ends_shown,
    fold_legend,
    frame_fold_legend,
    result_interval,
    rule_ends_shown,
    rules_legend,
    shown_legend,
)
from densing.report import compute as m
from densing.report.designs import SECTIONS
from densing.report.html import Section, cards_html, esc, figure_html, legend_paragraphs, page, table_html
from densing.report.render_parts import (
    DENSITY_MEANING,
    breakable,
    budget_parts,
    candidate_table,
    caveats_html,
    density_intro,
    details,
    displayed,
    loss_figure,
    model_table,
    named_table,
    paper_table,
    per_benchmark_table,
    performance_figure,
    references_table,
)
from densing.runtime import executor

TITLE = {False: "densing report", True: "densing measure"}
SUBTITLE = {
    False: "Capacity density of open LLMs and how fast the densest improve (the Densing Law, Xiao et al. 2024, "
    "arXiv 2412.04315). Sections marked ▸ are appendices: click to open.",
    True: "Your models' capacity density against the frontier line of open LLMs, then the public trend they are placed on "
    "(the Densing Law, Xiao et al. 2024, arXiv 2412.04315). Sections marked ▸ are appendices: click to open.",
}


def build_report(**options):
    """(html, measurement, densities) of :func:`densing.report.compute.compute_report`'s ``options``."""
    report = m.compute_report(**options)
    return render(report), report.measurement, report.densities


def render(report: m.Report) -> str:
    """The page: each section of ``report`` laid out by a job of :func:`densing.runtime.executor.run` (the same
    bytes either way), the footer citing the command's inputs."""
    trend_figures.loaded()  # once here: the layout's worker inherits it
    laid = executor.run([_Layout(i) for i in _layout_order(report.sections)], report)
    sections = [laid[i] for i in range(len(report.sections))]
    yours = report.section(m.YoursSection) is not None
    return page(TITLE[yours], SUBTITLE[yours], sections, provenance_footer(report.inputs))


#: The sections whose layout draws Plotly figures, the most figures first: most of the layout's time.
_DRAWN_FIRST = (m.LawsSection, m.DensitySection, m.CapabilitySection, m.OverlapSection, m.YoursSection)


def _layout_order(sections) -> list[int]:
    """The sections' indices, longest layout first (:data:`_DRAWN_FIRST`), then the rest in the page's order."""
    ranks = [_DRAWN_FIRST.index(type(s)) if type(s) in _DRAWN_FIRST else len(_DRAWN_FIRST) for s in sections]
    return sorted(range(len(sections)), key=ranks.__getitem__)  # stable: the page's order within a rank


@dataclass(frozen=True)
class _Layout:
    """One section's layout, a job of :func:`~densing.runtime.executor.run` (the report is its context)."""

    key: int  # the section's index
    needs: tuple = ()

    def run(self, report: m.Report, needed: dict) -> Section:
        section = report.sections[self.key]
        return renderer(section)(section)


def verdict_html(measured, paper: dict, cross: pd.DataFrame | None = None, bias: str | None = None) -> str:
    """The block a reader sees first: the verdict, densing's doubling time, the ``cross`` check, the paper's; ``bias``:
    the headline row's bias in planted worlds built like it, in one sentence below the cards."""
    head = measured.rules[measured.headline_rule]
    ours = f"{format_months(head.doubling_time_months)} months{result_interval(head)}"
    cross = records.cross_check(measured) if cross is None else cross
    row = cross[cross["row"] == (measured.set_rows[0].name if measured.set_rows else "")] if len(cross) else cross
    fixed = (
        f"{format_months(row['fixed_size_months'].iloc[0])} months [{format_months(row['fixed_size_ci_low'].iloc[0])}–"
        f"{format_months(row['fixed_size_ci_high'].iloc[0])}], {row['fixed_size_status'].iloc[0]}"
        if len(row)
        else "—"
    )
    label = "densing: doubling time, 95% CI" + CARD_LABELS[measured.state]
    cards = cards_html(
        [
            (label, ours),
            ("status", shown.status(measured)),
            ("cross-check: fixed-size regression on the same models, no reference", fixed),
            ("for comparison: the paper (Xiao et al. 2024)", f"{paper['doubling_time_months']} months"),
        ],
        lead=True,
    )
    influence = head.influence_frame()
    lofo = (
        details(
            "leave one family out: the estimate without each family's models (largest move first)",
            table_html(influence, scroll=False),
        )
        if len(influence)
        else ""
    )
    fold = fold_legend([head])
    rests_on = shown.rests_on(measured)
    return (
        f'<p class="verdict"><strong>{esc(shown.verdict_of(measured))}</strong></p>'
        + cards
        + (f'<p class="sub">{esc(fold)}.</p>' if fold else "")
        + (f'<p class="sub">{esc(rests_on)}</p>' if rests_on else "")
        + (f'<p class="sub">{esc(bias)}</p>' if bias else "")
        + details(
            "why, in full (the reference, the models, what each check found)",
            f'<p class="why">{esc(shown.why(measured))}</p>',
        )
        + lofo
    )


def _verdict(s: m.VerdictSection) -> Section:
    return Section(s.title, "", [verdict_html(s.measurement, PAPER, s.cross_check, s.bias)])


def _density(s: m.DensitySection) -> Section:
    measured, frontier = s.measurement, s.frontier
    line = measured.rules.get(frontier)  # the measurement's own line (slope, intercept, interval, frontier points)
    checks = [f"{c.name.replace('_', ' ')} {c.status}" for c in measured.checks]
    checks[:1] = [f"checks: {c}" for c in checks[:1]]
    checks[-1:] = [c + LINE_NOTES[measured.state] for c in checks[-1:]]
    trend = trend_figures.density_figure(
        s.points,
        line,
        others=[r for rule, r in measured.rules.items() if rule != frontier],
        title=f"Capacity density vs release date · {frontier} rule",
        checks=checks,
        failed=any(c.status == "failed" for c in measured.checks),
        highlight=s.highlight,
    )
    size = figure_html(
        trend_figures.size_figure(measured.models),
        "density-size",
        "The size check's view: within a family of one recipe, density should not depend on size if the "
        "reference's shape in N is the targets'. A family whose line slopes says the reference does not fit it.",
    )
    return Section(s.title, density_intro(measured, frontier, line), [figure_html(trend, "density-trend"), size])


CAPABILITY_INTRO = (
    "Doubling time per benchmark (each inverted alone, the paper's eq. 4) and per benchmark set (jointly), common "
    "targets per row: every reference inverts the same benchmarks for the same targets (the models with every score "
    "of the row), a reference's own family measured by the others; 95% intervals over the reference fit, score "
    "noise, models and the spread between references (random-effects pooling over paired draws). Each row's "
    "status is its own: measured (both ends of the interval determined), bounded (one end determined, the other "
    "open) or not measured and why (the heterogeneity test rejects one common slope, a calibrated gate fails, neither "
    "end is determined, or no family passes the rule); a target at a reference's ceiling enters as a lower bound; the "
    "MMLU + BBH + MATH-hard + HumanEval [paper] row is the headline itself."
)


def _one_estimator_a_row(cross: pd.DataFrame) -> pd.DataFrame:
    """The two estimators' cross-check with one estimator a row (each row one state): the frontier's row, then the
    fixed-size regression's, per benchmark or set."""
    frontier = cross[["row", "months", "ci_low", "ci_high", "status"]].assign(estimator="frontier under the references")
    fixed = (
        cross[["row", "fixed_size_months", "fixed_size_ci_low", "fixed_size_ci_high", "fixed_size_status"]]
        .set_axis(["row", "months", "ci_low", "ci_high", "status"], axis=1)
        .assign(estimator="fixed-size regression")
    )
    both = pd.concat([frontier, fixed], keys=[0, 1]).swaplevel().sort_index(kind="stable").reset_index(drop=True)
    return both[["row", "estimator", "months", "ci_low", "ci_high", "status"]]


def _capability(s: m.CapabilitySection) -> Section:
    rows = displayed(s.rows, s.names)
    cross = displayed(s.cross_check, s.names) if len(s.cross_check) else s.cross_check
    parts = [
        figure_html(trend_figures.forest_figure(rows, PAPER["doubling_time_months"]), "by-benchmark"),
        table_html(
            ends_shown(rows)[["row", "capability", "status", "months", "ci_low", "ci_high", "n_models"]], scroll=False
        ),
        *legend_paragraphs(shown_legend(s.rows), f"; {esc(RANGE_DRAWN)}"),
        *legend_paragraphs(frame_fold_legend(s.rows)),
        details(
            "the references of each row, and each reference's own doubling time [95% CI]",
            table_html(rows[["row", "references", "each_reference_months"]], scroll=False),
        ),
        details(
            "two estimators of the same law: the frontier under the references, and the fixed-size time "
            "regression (logit of the score above chance ~ ln N + t, clustered by family; no reference)",
            table_html(_one_estimator_a_row(ends_shown(cross)), scroll=False),
        )
        if len(cross)
        else "",
        details(
            "the headline's sensitivity, one engine: each reference with its interval, the other frontier "
            "rules, every reference at one budget, the family law's other shape",
            table_html(breakable(s.sensitivity.drop(columns=["inversion", "d0"])), scroll=False),
        ),
        *budget_parts(displayed(s.at_budget, s.budget_names) if len(s.at_budget) else s.at_budget, s.budget_notes),
    ]
    return Section(s.title, CAPABILITY_INTRO, parts)


def _draws_named(table: pd.DataFrame, head_draws: int) -> pd.DataFrame:
    """The rules table (:meth:`~densing.trend.measurement.TrendMeasurement.table`) with each rule whose draws differ
    from the headline rule's ``head_draws`` named with its count, "all (200 draws)": its ends are those draws' own."""
    names = [
        rule if draws == head_draws else f"{rule} ({draws:,} draws)"
        for rule, draws in zip(table["rule"], table["draws"])
    ]
    return table.assign(rule=names)


def _detail(s: m.DetailSection) -> Section:
    measured = s.measurement
    table, rules = measured.table(), measured.rules.values()
    columns = ["rule", "months", "ci_low", "ci_high", "n_models", "lower_bounds", "upper_bounds"]
    head_draws = measured.rules[measured.headline_rule].n_boot
    parts = [
        table_html(_draws_named(rule_ends_shown(table, rules), head_draws)[columns], scroll=False),
        f"<p class=\"sub\">Each rule's interval rests on its own draws: the headline rule's {head_draws:,}, a "
        "rule at other draws names its count beside it; the same rule at other draws, as in the sensitivity "
        "table, has its own ends.</p>",
        *legend_paragraphs(rules_legend(rules)),
        f'<p class="sub">{esc(FOLD_LEGEND)}.</p>',
        details(
            "shares of the slope variance (fit, score, models, reference) per rule",
            table_html(table[["rule", "share_fit", "share_score", "share_models", "share_reference"]], scroll=False),
        ),
        "<h3>Validity checks of the headline inversion</h3>",
        table_html(records.checks_table(measured), scroll=False),
        "<h3>The paper's numbers beside ours</h3>",
        table_html(paper_table(measured, PAPER), scroll=False),
        '<p class="sub">' + esc(DENSITY_MEANING) + "</p>",
    ]
    return Section(
        s.title,
        "Intervals carry the reference fit's bootstrap, each score's standard error and resampling "
        "of models; the shares say which dominates. Each check is passed, failed or untestable (the data "
        "cannot decide).",
        parts,
    )


def _named(s: m.NamedModelsSection) -> Section:
    intro = (
        f"Densities under the headline's lead reference ({s.reference}) with 95% intervals (fit draws × score "
        "noise × the benchmarks' pooled disagreement; an end of 0 or ∞: more than 2.5% of draws left the size "
        "range), the Birge ratio (benchmarks' disagreement beyond that) and the paper's anchors; below, each "
        "benchmark inverted alone under the same reference, with its own 95% interval (fit draws × score noise)."
    )
    per_benchmark = details(
        "each benchmark inverted alone: ρ per benchmark with its 95% interval",
        table_html(per_benchmark_table(s.per_benchmark, s.densities), scroll=False),
    )
    return Section(
        s.title,
        intro,
        [
            table_html(named_table(s.densities, s.missing, s.anchors), scroll=False),
            *([per_benchmark] if len(s.per_benchmark) else []),
        ],
    )


def _references(s: m.ReferencesSection) -> Section:
    return Section(
        s.title,
        "Doubling time (headline rule) of each inversion of each eligible reference, with its 95% "
        "interval and checks; the sensitivity check compares them.",
        [
            table_html(references_table(s.references), scroll=False),
            details(
                "every column (inversion kind, models, each check)",
                table_html(breakable(s.references.drop(columns=["family", "error", "benchmarks"], errors="ignore"))),
            ),
        ],
        collapsed=True,
    )


def _laws(s: m.LawsSection) -> Section:
    laws = [
        figure_html(
            loss_figure(f),
            f"loss-{i}",
            "Pythia, LAMBADA: the two-step law's loss estimation (eq. 2), one line per model size.",
        )
        for i, f in enumerate(s.law_fits)
        if f.kind == "two-step"
    ]
    laws.append(
        figure_html(
            performance_figure(list(s.law_fits)),
            "performance-pythia",
            "Pythia's checkpoints: performance estimation (eq. 3) for the shipped Pythia references (not "
            "used by the trend: Pythia scores far below the frontier). Panels marked 'poor fit' have R² "
            "below 0.5.",
        )
    )
    head = figure_html(
        performance_figure(list(s.headline_fits)),
        "performance-trend-fits",
        "The headline reference: one family at its own budget, S(N) = c/(1 + e^(−γ(ln N − l))) + d per benchmark.",
    )
    return Section(
        s.title,
        "The laws that turn a score into an effective size, on their own reference models.",
        [head, *laws],
        collapsed=True,
    )


CANDIDATES_INTRO = (
    "The reference rule (densing/laws/eligibility.py, date-blind, its thresholds written before any trend under it; every family "
    "fitted by binomial likelihood): R1 dense; R2 ≥ 3 sizes with a token count; R2s the slope's 95% interval above "
    "zero; R3 token counts within 2×; R4r the best member at least half the way from chance to the top-decile score; "
    "R4s no top-decile target within 2 standard errors of the law's ceiling; R5z the largest member, held out, within "
    "±1.96 combined standard errors of the refit's prediction (the dispersion pooled per benchmark). Rules v2 and v1 "
    "(least squares on logits, a 5% relative held-out tolerance) are labelled variants, in the shipped candidate table "
    "(reference_fits/trend_reference_candidates.csv)."
)


def _candidates(s: m.CandidatesSection) -> Section:
    return Section(s.title, CANDIDATES_INTRO, [table_html(candidate_table(s.candidates))], collapsed=True)


def _per_model(s: m.PerModelSection) -> Section:
    return Section(
        s.title,
        f"Every density under one reference, the headline's lead: {s.reference}, D0 = "
        f"{format_count(s.d0)} tokens (the family's own budget).",
        [table_html(model_table(s.densities))],
        collapsed=True,
    )


def _caveats(s: m.CaveatsSection) -> Section:
    return Section(s.title, "", [caveats_html(s.densities, s.left_out, s.corrections, s.results)])


def _overlap(s: m.OverlapSection) -> Section:
    parts = [
        table_html(s.numbers, scroll=False),
        *(figure_html(fig, f"overlap-{i}", title) for i, (title, fig) in enumerate(s.figures)),
    ]
    return Section(
        s.title,
        f"PyTorch-profiler traces in {s.traces}: per run (strategy) and rank, the share of "
        "communication hidden behind computation (overlap %) and the communication left exposed, then the "
        "figures.",
        parts,
    )


def provenance_footer(inputs: m.Inputs) -> str:
    """The footer a screenshot can be cited by (HTML, escaped): densing's version and commit, the date, the command,
    the seed and draws where the command does not give them, and the input table's SHA-256."""
    from densing import __version__

    seed, n_boot = inputs.seed, inputs.n_boot
    digest = hashlib.sha256(inputs.results.read_bytes()).hexdigest()[:16]
    table = f"table={inputs.table.name!r}, " if inputs.table is not None and not inputs.table.leads else ""
    given = inputs.command
    command = (
        str(given)
        if given is not None
        else f"densing.report.render.build_report(results={str(inputs.results)!r}, {table}seed={seed}, n_boot={n_boot})"
    )
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    drawn = "" if _gives_draws(given) else f" · seed {seed}, {n_boot} draws"
    return (
        f"densing {esc(__version__)} · commit {esc(paths.source_commit())} · {today} · <code>{esc(command)}</code>"
        f"{drawn} · {esc(inputs.results.name)} sha256 {digest}… · method: Xiao et al. 2024, arXiv 2412.04315"
    )


def _gives_draws(command: CommandLine | str | None) -> bool:
    """Whether the footer's command line gives the seed and the draws itself (a :class:`CommandLine` with
    ``--seed`` and ``--n-boot``); a command given as text is not read, and the footer says them beside it."""
    return isinstance(command, CommandLine) and command.gives("--seed") and command.gives("--n-boot")


def _g(value) -> str:
    return format_number(value, ".3g")


def _your_cells(r: dict) -> tuple[str, str]:
    """ρ and N̂ by :func:`densing.present.placement.stated`: a number (N̂ with its interval), ≤ / ≥ a bound, or —."""
    reading, rho, size = stated(r, _g)
    if reading == VALUE:
        size += f" [{format_count(r['effective_params_ci_low'])}–{format_count(r['effective_params_ci_high'])}]"
    return rho or "—", size or "—"


def _frontier_at(row: dict) -> str:
    """The frontier line's ρmax at the model's date with the band of the slope's 95% interval there."""
    low, high = row.get("frontier_density_ci_low", math.nan), row.get("frontier_density_ci_high", math.nan)
    band = f" [{_g(low)}–{_g(high)}]" if not (math.isnan(float(low)) or math.isnan(float(high))) else ""
    return _g(row["frontier_density"]) + band


def _your_cards(r: dict, cells: tuple[str, str], interval: str, suite: str | None, reference: str, lead: str) -> str:
    cards = [
        ("density ρ" + ("" if r.get("reading") == "value" else f" ({r.get('reading')})"), cells[0]),
        ("95% interval", interval),
        ("effective size N̂", cells[1]),
        (f"frontier line's ρmax at {r['release_date']}", _frontier_at(r)),
        ("against the frontier's band", band_said(r).removesuffix(" the frontier's band")),
        *([("suite", suite)] if suite else []),
        ("reference", str(r.get("reference") or reference)),
    ]
    return (
        f'<p class="verdict"><strong>{esc(lead)}</strong></p>'
        + cards_html(cards)
        + f'<p class="sub">{esc(r["words"])}.</p>'
    )


def _yours(s: m.YoursSection) -> Section:
    """Your models (``densing measure``): each model's cards and verdict in words, then every model in one table."""
    yours, measured, suite = s.yours, s.measurement, s.suite
    records = yours.to_dict("records")
    cells = [_your_cells(r) for r in records]
    # a censored density (a bound) has no interval to show: its draws are bounds too
    intervals = [
        "— (a bound)" if isinstance(b, str) and b else f"{_g(lo)}–{_g(hi)}"
        for b, lo, hi in zip(yours["bound"].fillna(""), yours["density_ci_low"], yours["density_ci_high"])
    ]
    said = s.answers or tuple(answer(r) for r in records)
    leads = [
        _your_cards(r, cell, interval, suite, measured.inversion.name, lead)
        for r, cell, interval, lead in zip(records, cells, intervals, said)
    ]
    table = yours.assign(
        **{
            "95% interval": intervals,
            "density": [rho for rho, _ in cells],
            "frontier_density": [_frontier_at(r) for r in records],
            "N̂": [size for _, size in cells],
        }
    )
    table = table.rename(
        columns={"frontier": "frontier line", "frontier_density": "line's ρmax at the date", "inverted": "inverted on"}
    )
    columns = [
        "model",
        "release_date",
        "inverted on",
        "density",
        "95% interval",
        "N̂",
        "reading",
        "line's ρmax at the date",
        "frontier line",
        "band",
        "words",
    ]
    done = "Evaluated with densing measure" if s.evaluated else "Placed from scores (densing measure --scores)"
    how = (
        f"{done}" + (f" ({suite})" if suite else "") + f", inverted by the headline's own reference "
        f"({measured.inversion.name}) as the public models are; the frontier line is the headline rule's "
        f"({measured.headline_rule}), ln ρmax = A·t + B, at each model's release date. A reading other than 'value' "
        "is a bound: the score is too close to chance (or beyond the reference) for a number. The models are the "
        "stars on the density figure below (Capacity density over time); the public trend they are placed on "
        "follows."
    )
    return Section(
        s.title,
        "",
        [
            *leads,
            f'<p class="sub">{esc(how)}</p>',
            details(
                "your models in one table", table_html(table[[c for c in columns if c in table.columns]], scroll=False)
            ),
        ],
    )


RENDERERS = {
    m.VerdictSection: _verdict,
    m.DensitySection: _density,
    m.CapabilitySection: _capability,
    m.DetailSection: _detail,
    m.NamedModelsSection: _named,
    m.ReferencesSection: _references,
    m.LawsSection: _laws,
    m.CandidatesSection: _candidates,
    m.PerModelSection: _per_model,
    m.CaveatsSection: _caveats,
    m.OverlapSection: _overlap,
    m.YoursSection: _yours,
}


def renderer(section):
    """The function that lays ``section`` out: by its type, else its design's registered section's (its ``design``:
    :data:`densing.report.designs.SECTIONS`)."""
    return RENDERERS.get(type(section)) or SECTIONS[section.design].render
