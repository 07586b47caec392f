"""The densing report: one self-contained HTML file and a headline for the terminal.

Pipeline (all inputs shipped, so it runs offline): shipped public results → densities under the
shipped reference fits (Xiao et al. 2024, eq. 4) → trend of the frontier density over release
dates (eq. 5, :mod:`densing.trend`) → sensitivity to the benchmark, the reference fit and D0 →
figures, tables and caveats.
"""
from __future__ import annotations

import glob
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from densing import paths
from densing.data import read_results
from densing.data.units import format_count
from densing.laws.reference_fit import ReferenceFit
from densing.numbers import format_months, format_number
from densing.report import figures
from densing.trend import figures as trend_figures
from densing.trend import side_jobs
from densing.report.html import Section, cards_html, esc, figure_html, page, table_html

#: The reference law plots (Pythia) shown in the report's "Reference laws" section.
DEFAULT_LAW_FITS = "pythia_*.json"


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


def _olmes_batch(jobs: list, fits_dir: Path, n_boot: int, seed: int) -> dict:
    """What the report shows that shares nothing with the headline, by name — ``olmes``: the OLMES design's
    measurement (:func:`densing.trend.olmes.measure_olmes`); ``laws``: the shipped Pythia laws' figures — so a
    worker computes it while the headline is measured. The report shows the OLMES rows' intervals, not their
    variance shares, so the shares' draws are skipped (the intervals are drawn first: the same numbers either way)."""
    out = {}
    for job in jobs:
        if job[0] == "olmes":
            from densing.trend.olmes import D0, measure_olmes

            out["olmes"] = measure_olmes(fits_dir, d0=D0, n_boot=n_boot, n_boot_share=0, seed=seed)
        else:
            law_fits = _load_fits(DEFAULT_LAW_FITS, fits_dir)
            out["laws"] = (
                [figure_html(figures.loss_figure(f), f"loss-{i}",
                             "Pythia, LAMBADA: the two-step law's loss estimation (eq. 2), one line per model size.")
                 for i, f in enumerate(law_fits) if f.kind == "two-step"]
                + [figure_html(figures.performance_figure(law_fits), "performance-pythia",
                               "Pythia's checkpoints: performance estimation (eq. 3) for the shipped Pythia references (not "
                               "used by the trend: Pythia scores far below the frontier). Panels marked 'poor fit' have R² "
                               "below 0.5.")])
    return out


@side_jobs.reaped  # an error, Ctrl-C or SIGTERM ends the OLMES worker at once
@side_jobs.one_blas_thread  # the report's fits are on matrices of a few columns: one BLAS thread per process
def build_report(
    *,
    results: str | Path | None = None,
    headline_fit: str | Path | None = None,
    fits_dir: str | Path | None = None,
    d0: float | None = None,
    frontier: str = "quantile",
    epoch: str = "2023-02-24",
    since: str | None = "2023-02-24",
    n_boot: int = 600,
    seed: int = 0,
    traces: str | Path | None = None,
    command: str | None = None,
    measured=None,
    yours: pd.DataFrame | None = None,
    yours_suite: str | None = None,
) -> tuple[str, Headline, pd.DataFrame]:
    """Compute everything the report shows; return (html, headline, per-model densities).

    The headline is :func:`densing.trend.measure.measure_trend`'s: a doubling time with fit, score
    and model uncertainty, or, when a validity check fails, the words saying why it is not measured.
    The density figure draws the headline rule (``frontier`` changes it); the other rules are toggles.
    ``command``: the command line that made the report, printed in its footer (default: the library call's words).
    ``measured``: that measurement already computed on ``results`` (``densing measure`` passes its own).
    ``yours``: a user's models placed against it (:func:`densing.placement.measure.place_models`' rows), highlighted
    on the density figure and led with: the report's first section, "Your models", gives each one's density (or
    bound), its interval and its place against the frontier line, then the public trend follows as in ``densing report``.
    ``yours_suite``: the suite they were evaluated on, in words (:meth:`densing.placement.measure.MeasureResult.protocol`).
    """
    from densing.trend import rules as rule_registry
    from densing.trend.constants import NAMED_MODELS
    from densing.trend.measure import PAPER_ANCHORS, measure_trend
    from densing.trend.constants import PAPER

    rule_registry.get(frontier)
    folder = Path(fits_dir) if fits_dir else paths.REFERENCE_FITS
    results_path = Path(results) if results else DEFAULT_RESULTS
    table = read_results(results_path)
    given = ReferenceFit.load(headline_fit) if headline_fit else None
    olmes_jobs = [("olmes",), ("laws",)]
    pending_olmes = side_jobs.start(_olmes_batch, olmes_jobs, folder, n_boot, seed)
    if measured is None:
        measured = measure_trend(table, fits_dir=folder, fit=given, d0=d0, since=since, epoch=epoch, n_boot=n_boot, seed=seed)
    dens = measured.densities
    meta_cols = [c for c in ("date_confidence", "train_tokens") if c in table.columns]
    if meta_cols:
        dens = dens.join(table.drop_duplicates("model").set_index("model")[meta_cols], on="model")
    head = measured.rules[measured.headline_rule]
    headline = Headline(
        measurable=measured.measurable, words=measured.headline, doubling_time_months=head.doubling_time_months,
        ci_low_months=head.doubling_time_months_ci_low, ci_high_months=head.doubling_time_months_ci_high,
        n_models=head.n_models, frontier=measured.headline_rule, reference_fit=measured.reference, d0=measured.d0,
    )
    line = measured.rules.get(frontier)  # the measurement's own line (slope, intercept, interval, frontier points)
    others = [result for rule, result in measured.rules.items() if rule != frontier]
    apart = side_jobs.finish(pending_olmes, _olmes_batch, olmes_jobs, folder, n_boot, seed)
    sections = [
        *([_yours_section(yours, measured, yours_suite)] if yours is not None else []),
        Section("Verdict", "", [verdict_html(measured, PAPER)]),
        Section(
            "The Densing Law by capability",
            "Doubling time per benchmark (each inverted alone, the paper's eq. 4) and per benchmark set (jointly), one "
            "design per row: every reference inverts the same benchmarks for the same targets (the models with every score "
            "of the row), a reference's own family measured by the others; 95% intervals over the reference fit, score "
            "noise, models and the spread between references (random-effects pooling over paired draws). Each row's "
            "status is its own: measured, or not measured and why (the heterogeneity test rejects one common slope, the "
            "interval reaches a zero slope, its frontier sits at a reference's ceiling, or no family passes the rule); the "
            "paper-like set's row is the headline itself.",
            [figure_html(trend_figures.forest_figure(measured.by_benchmark(), PAPER["doubling_time_months"]), "by-benchmark"),
             table_html(_round(_displayed(measured.by_benchmark())[["row", "capability", "status", "months", "ci_low",
                                                                    "ci_high", "n_models"]], 2), scroll=False),
             _details("the references of each row, and each reference's own doubling time",
                      table_html(measured.by_benchmark()[["row", "references", "each_reference_months"]], scroll=False)),
             _details("two estimators of the same law: the frontier under the references, and the fixed-size time "
                      "regression (logit of the score above chance ~ ln N + t, clustered by family; no reference)",
                      table_html(_round(measured.cross_check(), 2), scroll=False)) if len(measured.cross_check()) else "",
             _details("the headline's sensitivity, one engine: each reference with its interval, the other frontier "
                      "rules, every reference at one budget, the family law's other shape",
                      table_html(_breakable(measured.sensitivity.drop(columns=["inversion", "d0"])), scroll=False)),
             *_budget_parts(measured)],
        ),
        *_protocol_section(measured, PAPER["doubling_time_months"]),
        _olmes_section(measured, PAPER["doubling_time_months"], apart["olmes"]),
        Section(
            "Capacity density over time",
            _density_intro(measured, frontier, line),
            [figure_html(trend_figures.density_figure(
                _with_intervals(measured.models, measured.densities), line, others=others, title=f"Capacity density vs release date · {frontier} rule",
                checks_text="checks: " + " · ".join(f"{c.name.replace('_', ' ')} {c.status}" for c in measured.checks)
                + ("" if measured.measurable else " — the line is an estimate, not a measurement"), highlight=yours),
                "density-trend"),
             figure_html(trend_figures.size_figure(measured.models), "density-size",
                         "The size check's view: within a family of one recipe, density should not depend on size if the "
                         "reference's shape in N is the targets'. A family whose line slopes says the reference does not fit it.")],
        ),
        Section(
            "The measurement in detail",
            "Intervals carry the reference fit's bootstrap, each score's standard error and resampling of models; the "
            "shares say which dominates. Each check is passed, failed or untestable (the data cannot decide).",
            [
                table_html(_round(measured.table()[["rule", "months", "ci_low", "ci_high", "n_models", "lower_bounds",
                                                    "upper_bounds"]], 2), scroll=False),
                _details("shares of the slope variance (fit, score, models, reference) per rule",
                         table_html(_round(measured.table()[["rule", "share_fit", "share_score", "share_models",
                                                             "share_reference"]], 3), scroll=False)),
                "<h3>Validity checks of the headline inversion</h3>",
                table_html(measured.checks_table(), scroll=False),
                "<h3>The paper's numbers beside ours</h3>",
                table_html(_paper_table(measured, PAPER), scroll=False),
                '<p class="sub">' + esc(DENSITY_MEANING) + "</p>",
            ],
        ),
        Section(
            "Named models",
            f"Densities under the headline reference ({measured.reference}) with 95% intervals (fit draws × score noise × "
            "the benchmarks' pooled disagreement; an end of 0 or ∞: more than 2.5% of draws left the size range), the "
            "per-benchmark densities beside, the Birge ratio (benchmarks' disagreement beyond that), and the paper's anchors.",
            [table_html(_named_table(dens, NAMED_MODELS, PAPER_ANCHORS), scroll=False)],
        ),
        Section("Every eligible reference", "Doubling time (headline rule) of each inversion of each eligible reference, with "
                "its 95% interval and checks; the sensitivity check compares them.",
                [table_html(_references_table(measured), scroll=False),
                 _details("every column (inversion kind, models, each check)",
                          table_html(_breakable(measured.references.drop(columns=["family", "error", "benchmarks"],
                                                                         errors="ignore"))))],
                collapsed=True),
        Section(
            "Reference laws",
            "The laws that turn a score into an effective size, on their own reference models.",
            [figure_html(figures.performance_figure(list(measured.fits)), "performance-trend-fits",
                         "The headline reference: one family at its own budget, S(N) = c/(1 + e^(−γ(ln N − l))) + d per benchmark.")]
            + apart["laws"],
            collapsed=True,
        ),
        Section("Reference candidates", "Rule v3 (densing/laws/eligibility.py, date-blind, its thresholds written before "
                "any trend under it; every family fitted by binomial likelihood): R1 dense; R2 ≥ 3 sizes with a token count; "
                "R2s the slope's 95% interval above zero; R3 token counts within 2×; R4r the best member at least half the way "
                "from chance to the top-decile score; R4s no top-decile target within 2 standard errors of the law's ceiling; "
                "R5z the largest member, held out, within ±1.96 combined standard errors of the refit's prediction (the "
                "dispersion pooled per benchmark). Rules v2 and v1 (least squares on logits, a 5% relative held-out "
                "tolerance) are labelled variants; their verdicts are under the per-benchmark table.",
                [table_html(_candidate_table(measured.candidates))], collapsed=True),
        Section(
            "Per-model densities",
            f"Reference {measured.reference}, D0 = {format_count(measured.d0)} tokens (the family's own budget).",
            [table_html(_model_table(dens))],
            collapsed=True,
        ),
        Section("Data caveats", "", [_caveats_html(dens, measured, results_path, since)]),
    ]
    if traces is not None:
        from densing.overlap.figures import overlap_table, report_section

        numbers = overlap_table(traces)
        overlap_parts = [table_html(_round(numbers, 2), scroll=False)]
        overlap_parts += [figure_html(fig, f"overlap-{i}", title) for i, (title, fig) in enumerate(report_section(traces))]
        sections.append(Section("Communication/computation overlap",
                                f"PyTorch-profiler traces in {traces}: per run (strategy) and rank, the share of communication "
                                "hidden behind computation (overlap %) and the communication left exposed, then the figures.",
                                overlap_parts))
    html = page(
        "densing report" if yours is None else "densing measure",
        ("Capacity density of open LLMs and how fast the densest improve (the Densing Law, Xiao et al. 2024, "
         "arXiv 2412.04315). Sections marked ▸ are appendices: click to open." if yours is None else
         "Your models' capacity density against the frontier line of open LLMs, then the public trend they are placed on "
         "(the Densing Law, Xiao et al. 2024, arXiv 2412.04315). Sections marked ▸ are appendices: click to open."),
        sections,
        provenance_footer(command, results_path, seed=seed, n_boot=n_boot),
    )
    return html, headline, dens


def _yours_section(yours: pd.DataFrame, measured, suite: str | None = None) -> Section:
    """Your models (``densing measure``), the report's first section: for each model its density (or bound), the 95%
    interval, the frontier line's ρmax at its release date and where it lies against the line, the suite and the
    reference in cards, the verdict in words; then every model in one table."""
    from densing.numbers import format_number

    def g(value) -> str:
        return format_number(value, ".3g")

    # a censored density (a bound) has no interval to show: its draws are bounds too
    intervals = ["— (a bound)" if isinstance(b, str) and b else f"{g(lo)}–{g(hi)}"
                 for b, lo, hi in zip(yours["bound"].fillna(""), yours["density_ci_low"], yours["density_ci_high"])]
    table = yours.assign(**{"95% interval": intervals,
                            "density": [_your_density(r, g) for r in yours.to_dict("records")],
                            "frontier_density": [g(v) for v in yours["frontier_density"]]})
    leads = []
    for r, interval in zip(table.to_dict("records"), intervals):
        cards = [("density ρ" + ("" if r.get("reading") == "value" else f" ({r.get('reading')})"), r["density"]),
                 ("95% interval", interval),
                 (f"frontier line's ρmax at {r['release_date']}", r["frontier_density"]),
                 ("against the frontier line", str(r["frontier"]))]
        cards += [("suite", suite)] if suite else []
        cards += [("reference", str(r.get("reference") or measured.inversion.name))]
        leads.append(f'<p class="verdict"><strong>{esc(_your_place(r))}</strong></p>' + cards_html(cards)
                     + f'<p class="sub">{esc(r["words"])}.</p>')
    table = table.rename(columns={"frontier": "frontier line", "frontier_density": "line's ρmax at the date",
                                  "inverted": "inverted on"})
    columns = ["model", "release_date", "inverted on", "density", "95% interval", "reading", "line's ρmax at the date",
               "frontier line", "words"]
    evaluated = f"Evaluated with densing measure ({suite})" if suite else "Evaluated with densing measure"
    how = (f"{evaluated}, inverted by the headline's own reference ({measured.inversion.name}) as the public models are; "
           f"the frontier line is the headline rule's ({measured.headline_rule}), ln ρmax = A·t + B, at each model's "
           "release date. A reading other than 'value' is a bound: the score is too close to chance (or beyond the "
           "reference) for a number. The models are the stars on the density figure below (Capacity density over time); "
           "the public trend they are placed on follows.")
    return Section(
        "Your models", "",
        [*leads, f'<p class="sub">{esc(how)}</p>',
         _details("your models in one table", table_html(table[[c for c in columns if c in table.columns]], scroll=False))],
    )


def _your_place(row: dict) -> str:
    """One model's place against the frontier line, in a few words (the first line a reader sees)."""
    if row.get("reading") == "none":
        return f"{row['model']}: not inverted, so not placed"
    if row.get("frontier") in ("above", "below"):
        return f"{row['model']} lies {row['frontier']} the frontier line"
    return f"{row['model']}: undetermined against the frontier line (a bound on the line's far side)"


def _your_density(row: dict, g) -> str:
    """ρ as the reading allows: a number, or ≤ / ≥ a bound (an interval's upper end where the score is near chance)."""
    if row.get("reading") == "upper bound":
        censored = isinstance(row.get("bound"), str) and row["bound"] != ""
        return "≤ " + g(row["density"] if censored else row["density_ci_high"])
    if row.get("reading") == "lower bound":
        return "≥ " + g(row["density"])
    return g(row["density"])


#: The Swallow leaderboard's rows (:mod:`densing.trend.protocol`'s records, ``python tools/build_tables.py protocol``).
PROTOCOL_RECORDS = paths.RESULTS / "swallow" / "trend"
#: Each public row and the Swallow row that measures the same capability in the paper's protocol, and its label.
PROTOCOL_PAIRS = (("mmlu", "swallow_mmlu", "MMLU (5-shot in both)"),
                  ("leaderboard_bbh", "swallow_bbh", "BBH (multiple choice · 3-shot chain of thought)"),
                  ("math_hard", "swallow_math", "MATH (level 5 · MATH-500)"),
                  ("gsm8k", "swallow_gsm8k", "GSM8K (5-shot · 4-shot)"),
                  ("humaneval", "swallow_humaneval", "HumanEval"),
                  ("paper", "paper", "paper-like set"), ("paper_gsm8k", "paper_gsm8k", "paper-like set with GSM8K"))
#: The forecast check's columns as the report shows them: (header, record fields).
FORECAST_COLUMNS = (("cutoff", ("cutoff",)), ("early months", ("early_window_months",)), ("models before", ("n_early",)),
                    ("months before [95% CI]", ("early_doubling_time_months", "early_doubling_time_months_ci_low",
                                                "early_doubling_time_months_ci_high")),
                    ("later models", ("n_later",)), ("above the carried line", ("above_line",)),
                    ("above the band's lower edge", ("above_band_low",)),
                    ("above the band's upper edge", ("above_band_high",)), ("verdict", ("verdict",)))


def _months_interval(months, low, high) -> str:
    """'months [low–high]' of a record (JSON writes an infinite doubling time, no trend, as null): '∞' for null."""
    if months is None and low is None and high is None:
        return "—"  # no line was fitted
    words = lambda v: "∞" if v is None else format_months(v)  # noqa: E731
    return f"{words(months)} [{words(low) if low is not None else '0'}–{words(high)}]"


def _cell(row: dict | None) -> str:
    """'months [low–high]' of a row, '(estimate)' after it where a check fails; 'not measured' with no interval."""
    if not row:
        return "—"
    months, low, high = (row.get(k) for k in ("months", "ci_low", "ci_high"))
    if low is None and (months is None or not math.isfinite(months)):
        return "not measured"
    return _months_interval(months, low, high) + ("" if row.get("status") == "measured" else " (estimate)")


def _agreement(a: dict | None, b: dict | None) -> str:
    """Whether two rows' 95% intervals overlap, in words."""
    def ends(row):
        if not row or row.get("ci_low") is None:
            return None
        return (row.get("ci_low") or 0.0, row.get("ci_high") if row.get("ci_high") is not None else math.inf)
    x, y = ends(a), ends(b)
    if x is None or y is None:
        return "cannot be compared (a row has no interval)"
    return "intervals overlap" if x[0] <= y[1] and y[0] <= x[1] else "intervals do not overlap"


def _protocol_section(measured, paper_months: float) -> list[Section]:
    """The Swallow leaderboard in the paper's protocol beside the public table's rows, and its forecast check."""
    from densing.trend.protocol import read_records

    records = read_records(PROTOCOL_RECORDS)
    if "swallow" not in records:
        return []
    public = {r["row"]: r for r in measured.by_benchmark().to_dict("records")}
    by = {stem: {r["row"]: r for r in rec["rows"]} for stem, rec in records.items()}
    rows = []
    for left, right, label in PROTOCOL_PAIRS:
        rows.append({"row": label, "public table (leaderboard protocol)": _cell(public.get(left)),
                     "Swallow 2025-06 (the paper's protocol)": _cell(by["swallow"].get(right)),
                     "its references (own months)": (by["swallow"].get(right) or {}).get("each_reference_months", ""),
                     "without continual pre-training": _cell(by.get("swallow_without_continual", {}).get(right)),
                     "Swallow 2026-05 (later protocol)": _cell(by.get("swallow_2026", {}).get(right)),
                     "public vs Swallow 2025-06": _agreement(public.get(left), by["swallow"].get(right))})
    table = pd.DataFrame(rows)
    forecast = records["swallow"].get("forecast")
    forecast_parts = []
    for stem in ("swallow", "swallow_2026"):
        found = records.get(stem, {}).get("forecast")
        if found:
            frame = pd.DataFrame([{header: (_months_interval(*(r.get(f) for f in fields)) if len(fields) == 3
                                            else r.get(fields[0])) for header, fields in FORECAST_COLUMNS}
                                  for r in found["cutoffs"]])
            forecast_parts += [f'<p class="sub">{esc(records[stem]["words"][0].upper() + records[stem]["words"][1:])}. '
                               f'{esc(found["summary"])}</p>', table_html(frame, scroll=False)]
    intro = (f"The Swallow LLM Leaderboard (Swallow LLM team, CC-BY 4.0; results/swallow/) scores open pre-trained models in "
             f"one harness in the paper's own protocol — MMLU 5-shot, BBH 3-shot chain of thought, MATH 4-shot, GSM8K "
             f"4-shot, HumanEval 0-shot — through 2025. The same engine and reference rule (v3) as above, each protocol file "
             f"its own table, never pooled: {records['swallow']['n_models']} pre-trained models released 2023-12 … 2025-06, "
             f"and the later protocol's {records.get('swallow_2026', {}).get('n_models', 0)} released 2024-06 … 2025-11. "
             f"The public table's rows stay the headline (densing/trend/tables.py says why); of the two, the Swallow rows "
             f"are the protocol closest to the paper's. 'estimate': the row has an interval but a check fails (its status "
             f"in densing trend --table swallow --by benchmark). The paper: {paper_months:g} months.")
    verdicts = "".join(f'<p class="sub">{"Without continual pre-training: " if rec["continual_pretraining"] == "dropped" else ""}'
                       f'{esc(rec["verdict"])}</p>' for rec in records.values())
    return [Section("The paper's protocol, 2023–2025", intro,
                    [table_html(table, scroll=False), verdicts,
                     "<h3>A forecast check</h3>",
                     '<p class="sub">The frontier line fitted on the models released up to each cutoff (every 3 months, '
                     'at least 12 months of models before it), carried to the later ones: if the law goes on, about 10% of '
                     'the later models lie above the carried 0.9-quantile line; no verdict where the early line is too '
                     'uncertain to be tested (densing/trend/forecast.py states the rule).</p>',
                     *forecast_parts] if forecast else [table_html(table, scroll=False), verdicts])]


def _olmes_section(measured, paper_months: float, olmes) -> Section:
    """The second, independent measurement: the paper's two-step design on AI2's recipe (:mod:`densing.trend.olmes`),
    from its measurement ``olmes`` (:func:`_olmes_batch`)."""
    from densing.trend.olmes import D0, beside_leaderboard
    rows = olmes.rows.assign(row=olmes.rows["task"], capability="OLMES MC", references=olmes.rows["reference"],
                             each_reference_months="one reference")
    rows["error"] = rows["error"].fillna("")
    side = beside_leaderboard(olmes, measured.by_benchmark(), paper_months)
    side = side.drop(columns=["paper"]).rename(columns={"olmes": "OLMES design, months [95% CI]", "olmes_checks": "its failed checks",
                                                        "leaderboard": "leaderboard-based, months [95% CI]"})
    d0_columns = [c for c in olmes.rows.columns if c.startswith("months_d0_") and not c.endswith("_ci")]
    sensitivity = _round(olmes.rows[["task", "months", *d0_columns, "months_ceiling_1", "months_ceiling_1_ci", "ceiling",
                                     "score_r2", "offset", "offset_stderr"]], 3)
    intro = (f"The paper's own design on one public recipe, with other targets and other prompts: the OLMo ladder's loss "
             f"law L(N, D) per task (bits per byte of the correct answer), an MC score law S(L) fitted on the OLMo-2 "
             f"checkpoints, the in-loop → offline offset carried, N̂ at D0 = {format_count(D0)} tokens, over AI2's OLMES "
             f"scores of {olmes.rows['n_models'].max()} dated base models. Same frontier rule (0.9 quantile) and "
             f"uncertainty engine as above. A row without a number says why; the checks are said in words. Levels differ "
             f"between the two tables (other prompts); their trends are comparable. The paper: {paper_months:g} months over "
             f"its own five benchmarks (the red line).")
    return Section(
        "A second measurement: the paper's design on AI2's recipe", intro,
        [figure_html(trend_figures.forest_figure(
            rows, paper_months, title="Doubling time by OLMES task · the paper's design on AI2's recipe (OLMo ladder references)"),
            "olmes-forest"),
         table_html(side, scroll=False),
         _details("sensitivity to D0 and to the MC law's ceiling (fixed at 1), score-law fit and offset per task", table_html(sensitivity, scroll=False)),
         _details("every check of the OLMES rows", table_html(olmes.checks[["benchmark", "name", "status", "detail"]], scroll=False))
         if len(olmes.checks) else ""],
    )


def _with_intervals(models: pd.DataFrame, densities: pd.DataFrame) -> pd.DataFrame:
    """The trend's points with each model's 95% density interval and N̂ (the figure's hover and error bars)."""
    extra = [c for c in ("density_ci_low", "density_ci_high", "effective_params") if c in densities.columns]
    return models.join(densities.drop_duplicates("model").set_index("model")[extra], on="model") if extra else models


def provenance_footer(command: str | None, results_path: Path, *, seed: int, n_boot: int) -> str:
    """The footer a screenshot can be cited by: densing's version and commit, the date, the command, the seed and
    draws (said once: apart only where the command does not give them), and the input table's SHA-256 (HTML, escaped)."""
    import datetime
    import hashlib

    from densing import __version__

    digest = hashlib.sha256(results_path.read_bytes()).hexdigest()[:16]
    command = command or f"densing.report.build.build_report(results={str(results_path)!r}, seed={seed}, n_boot={n_boot})"
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    drawn = "" if f"--seed {seed}" in command and f"--n-boot {n_boot}" in command else f" · seed {seed}, {n_boot} draws"
    return (f"densing {esc(__version__)} · commit {esc(paths.source_commit())} · {today} · <code>{esc(command)}</code>"
            f"{drawn} · {esc(results_path.name)} sha256 {digest}… · method: Xiao et al. 2024, arXiv 2412.04315")


#: Why density relative to a family at its own budget is not the paper's density at D0 = 1T.
DENSITY_MEANING = (
    "Densities here are relative to one public family at its own training budget (N̂ = the size that family would "
    "need for the same score), not to the paper's MiniCPM-3 reference at D0 = 1T tokens: the scale of ρ differs by "
    "a constant factor, which cancels in the doubling time (the slope of ln ρ over time), but the reference's shape "
    "in N does not cancel — if the targets' scores rise with N faster or slower than the reference family's, density "
    "depends on size within a family, which the size check tests."
)


def verdict_html(measured, paper: dict) -> str:
    """The block a reader sees first: the verdict in one sentence, its interval, the paper's figure, why."""
    head = measured.rules[measured.headline_rule]
    ours = (f"{format_months(head.doubling_time_months)} months "
            f"[{format_months(head.doubling_time_months_ci_low)}–{format_months(head.doubling_time_months_ci_high)}]")
    status = "measured" if measured.measurable else measured.status
    cross = measured.cross_check()
    row = cross[cross["row"] == (measured.set_rows[0].name if measured.set_rows else "")] if len(cross) else cross
    fixed = (f"{format_months(row['fixed_size_months'].iloc[0])} months [{format_months(row['fixed_size_ci_low'].iloc[0])}–"
             f"{format_months(row['fixed_size_ci_high'].iloc[0])}], {row['fixed_size_status'].iloc[0]}" if len(row) else "—")
    cards = cards_html([
        ("densing: doubling time, 95% CI" + ("" if measured.measurable else " (an estimate)"), ours),
        ("status", status),
        ("cross-check: fixed-size regression, no reference", fixed),
        ("for comparison: the paper (Xiao et al. 2024)", f"{paper['doubling_time_months']} months"),
    ], lead=True)
    return (f'<p class="verdict"><strong>{esc(measured.verdict)}</strong></p>' + cards
            + _details("why, in full (the reference, the models, what each check found)", f'<p class="why">{esc(measured.why)}</p>'))


def _breakable(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with a space after each comma and colon of its text cells, so a long reference name
    (``Qwen1.5:joint(mmlu,leaderboard_bbh,…)``) breaks between words and the table fits a 900 px window."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object:
            out[column] = [v.replace(",", ", ").replace(":", ": ") if isinstance(v, str) else v for v in out[column]]
    return out


def _displayed(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with each named for a reader (:func:`densing.trend.figures.row_display`: a set by its benchmarks)."""
    from densing.trend.figures import row_display

    return rows.assign(row=[row_display(r.row, r.label, r.capability) for r in rows.itertuples()])


def _details(summary: str, body: str) -> str:
    """Columns that matter less, behind a toggle (the page stays within 900 px)."""
    return f"<details><summary>{esc(summary)}</summary>{body}</details>"


def _references_table(measured) -> pd.DataFrame:
    table = measured.references.copy()
    keep = ["reference", "months", "ci_low", "ci_high", "size_dependence"]
    table = table[[c for c in keep if c in table.columns]]
    table["reference"] = [str(r).replace(":", ": ", 1).replace(",", ", ") for r in table["reference"]]
    return _round(table, 2)


def _named_table(dens: pd.DataFrame, names, anchors: dict) -> pd.DataFrame:
    rows = dens[dens["model"].isin(names)].copy()
    rows["order"] = rows["model"].map({n: i for i, n in enumerate(names)})
    rows = rows.sort_values("order")
    columns = ["model", "density", "density_ci_low", "density_ci_high"] + [c for c in rows.columns if c.startswith("density:")] \
        + [c for c in ("birge_ratio",) if c in rows.columns]
    out = rows[columns].copy()
    out["paper"] = out["model"].map(anchors).fillna("")
    out = out.rename(columns={"density": "ρ joint", "density_ci_low": "95% low", "density_ci_high": "95% high",
                              "birge_ratio": "Birge", **{c: "ρ " + c.split(":", 1)[1] for c in columns if c.startswith("density:")}})
    missing = [n for n in names if n not in set(rows["model"])]
    if missing:
        out = pd.concat([out, pd.DataFrame({"model": missing, "paper": ["not a target (defines the reference, or no scores)"] * len(missing)})],
                        ignore_index=True)
    return _round(out)


def _round(frame: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """The frame as it is: :func:`densing.report.html.table_html` shows every number to 3
    significant figures (:mod:`densing.numbers`). Rounding to ``digits`` decimals here printed a
    density of 3.2e-5 as 0; the argument stays for the callers and rounds nothing."""
    return frame.copy()


def _candidate_table(candidates: pd.DataFrame) -> pd.DataFrame:
    columns = ["reference", "eligible", "why", "reach_share", "slope_ci_low", "held_out_z", "held_out_error", "dispersion",
               "sizes", "token_ratio", "largest_score"]
    table = candidates[[c for c in columns if c in candidates.columns]].copy()
    table = table.assign(order=table["held_out_z"].abs() if "held_out_z" in table.columns else table["held_out_error"])
    table = table.sort_values(["eligible", "order"], ascending=[False, True], na_position="last").drop(columns="order")
    return _round(table)


def _budget_parts(measured) -> list[str]:
    """The budget sensitivity under the per-benchmark table: the paper-like rows with every reference at one D0."""
    table = measured.by_benchmark_at_budget()
    if not len(table):
        return []
    from densing.trend.capability import BUDGET_D0

    notes = "".join(f"<li>{esc(name)}: {esc(note)}</li>" for name, note in measured.budget_notes.items())
    body = (f'<p class="sub">Each reference family refitted over its members\' sizes at one budget D0 = '
            f"{format_count(BUDGET_D0)} tokens: a member of N parameters trained on D tokens stands for the N' that reaches "
            "the same loss at D0 under the loss law of Hoffmann et al. 2022 (L = 1.69 + 406.4·N^-0.34 + 410.7·D^-0.28). "
            "Compare each reference's months with the row above: what the spread between references owes to their "
            "budgets.</p>" + table_html(_round(table[["row", "status", "months", "ci_low", "ci_high", "n_models",
                                                      "each_reference_months"]], 2), scroll=False)
            + (f"<ul>{notes}</ul>" if notes else ""))
    return [_details("the budget sensitivity: the same rows with every reference at one training budget", body)]


def _density_intro(measured, frontier: str, line) -> str:
    points = ("Each point is a model the trend uses (hover for its date, family, N, N̂, scores and density with its 95% "
              "interval); a triangle is a censored density drawn at its bound; the red diamonds are the frontier (at or above "
              "the line), named where a label fits without overlapping another; circled points are the models the paper and "
              "the tables name (their names on hover). Each model's own 95% interval is a grey bar, up to orders of magnitude "
              "long: its legend entry hides and shows them.")
    role = ("it is the headline rule" if frontier == measured.headline_rule else f"drawn for comparison; the headline rule is "
            f"{measured.headline_rule}") + ("" if measured.measurable else ", and the doubling time is not measured")
    if line is None:
        return f"{points} The {frontier} rule has no line: {measured.rule_errors.get(frontier, 'it could not be fitted')}."
    return (f"{points} The solid line is the {frontier} rule exactly as in the tables (slope {format_number(line.slope_per_day, html=True)}/day, "
            f"doubling {format_months(line.doubling_time_months)} months); its band is that slope's 95% interval (fit + score + "
            f"models) — {role}. The other rules are in the legend: click to show them.")


def _paper_table(measured, paper: dict) -> pd.DataFrame:
    """The paper's numbers beside ours (headline rule; the envelope, the paper's own rule, beside)."""
    head = measured.rules[measured.headline_rule]
    envelope = measured.rules.get("envelope")
    b = measured.breakpoint

    def slope(seg) -> str:
        if not np.isfinite(seg.slope_per_day):
            return f"not fitted ({seg.note})"
        same = " — the headline's models and interval" if seg.same_as_headline else ""
        return (f"{format_number(seg.slope_per_day, html=True)} ({format_number(seg.slope_ci_low, html=True)} to "
                f"{format_number(seg.slope_ci_high, html=True)}){same}")

    def months(rule) -> str:
        return (f"{format_months(rule.doubling_time_months)} ({format_months(rule.doubling_time_months_ci_low)}–"
                f"{format_months(rule.doubling_time_months_ci_high)})")

    rows = [
        ("doubling time (months)", f"{paper['doubling_time_months']} (29 models; 3.5 over 51 in the journal version)",
         months(head) + ("" if measured.measurable else " — not a measurement"),
         months(envelope) if envelope else measured.rule_errors.get("envelope", "")),
        ("slope A (per day)", f"{paper['slope_per_day']}", format_number(head.slope_per_day, html=True),
         format_number(envelope.slope_per_day, html=True) if envelope else "—"),
        ("R² of the frontier fit", f"{paper['r_squared']}", "— (quantile line: no R²)", "—"),
        ("slope before ChatGPT (per day)", f"{paper['slope_before_chatgpt_per_day']}", slope(b.before), "—"),
        ("slope after ChatGPT (per day)", f"{paper['slope_after_chatgpt_per_day']}", slope(b.after), "—"),
    ]
    return pd.DataFrame(rows, columns=["quantity", "paper", "densing (headline rule, 95% CI)", "densing (paper's envelope rule)"])


DEFAULT_RESULTS = paths.RESULTS / "public_models.csv"


def _count(value) -> str:
    """A corrected value as written for people: token and parameter counts as 627B, 7B; other values as they are."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return format_count(number) if number >= 1e6 else f"{number:g}"


def _model_table(dens: pd.DataFrame) -> pd.DataFrame:
    """Per-model rows, the columns that explain a row first."""
    columns = [c for c in ("model", "density", "bound", "density_ci_low", "density_ci_high", "params", "effective_params",
                           "release_date", "family", "date_confidence") if c in dens.columns]
    table = dens[columns].copy()
    for c in ("params", "effective_params"):
        if c in table.columns:
            table[c] = [format_count(v) if np.isfinite(v) else "" for v in table[c]]
    return _round(table)


def _caveats_html(dens: pd.DataFrame, measured, results_path: Path, since: str | None) -> str:
    items = []
    left = measured.left_out
    if len(left):
        for reason, rows in left.groupby("reason"):
            items.append(f"{len(rows)} models left out of the trend ({esc(reason)}): {esc(', '.join(rows['model'].astype(str)))}")
    censored = dens[dens["bound"].astype(str) != ""]
    if len(censored):
        counts = ", ".join(f"{k}: {v}" for k, v in censored["bound"].value_counts().items())
        items.append(f"{len(censored)} densities are bounds ({esc(counts)}), used by the trend as bounds: "
                     f"{esc(', '.join(censored['model'].astype(str)))}")
    if "date_confidence" in dens.columns:
        low = dens[dens["date_confidence"].isin(["low", "none"])]
        if len(low):
            items.append(f"{len(low)} models with low-confidence or missing release dates: {esc(', '.join(low['model'].astype(str)))}")
    corrections = _optional_csv(results_path.parent / "corrections.csv")
    if corrections is not None and len(corrections):
        table = pd.DataFrame({"model": corrections["model"], "field": corrections["field"],
                              "source": [_count(v) if isinstance(v, str) or np.isfinite(v) else "— (none given)" for v in corrections["source_value"]],
                              "corrected": [_count(v) for v in corrections["corrected_value"]], "reason": corrections["reason"]})
        items.append(f"{len(corrections)} corrections to the source data ({esc(results_path.parent.name)}/corrections.csv, each with "
                     "its evidence): " + _details("the corrections", table_html(table, scroll=False)))
    if not items:
        items.append("none")
    return '<ul class="caveats">' + "".join(f"<li>{i}</li>" for i in items) + "</ul>"
