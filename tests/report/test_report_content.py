"""The report's content, without a browser: headline, sections, checks, the paper beside ours."""

from __future__ import annotations

import re

import pytest

import densing.present as present


@pytest.fixture(scope="module")
def report():
    from densing.report.render import build_report

    html, headline, dens = build_report(n_boot=60)
    return html, headline, dens


#: The sections of ``densing report``, in order; ``densing measure`` puts "Your models" before them and keeps them so.
REPORT_SECTIONS = [
    "Verdict",
    "Capacity density over time",
    "The Densing Law by capability",
    "A second table through 2025-03: the Open LLM Leaderboard v2",
    "The paper's protocol, 2023–2025",
    "One law from three harnesses",
    "A second measurement: the paper's design on AI2's recipe",
    "The measurement in detail",
    "Named models",
    "Every eligible reference",
    "Reference laws",
    "Reference candidates",
    "Per-model densities",
    "Data caveats",
]


def section_titles(html: str) -> list[str]:
    """The page's section titles (its h2), in order, unescaped."""
    import html as _html

    return [_html.unescape(t) for t in re.findall(r"<h2[^>]*>(.*?)</h2>", html)]


def test_the_report_keeps_its_sections_in_order_and_has_no_your_models(report):
    html = report[0]
    assert section_titles(html) == REPORT_SECTIONS
    assert "<h1>densing report</h1>" in html and "Your models" not in html


def test_the_verdict_block_leads_in_plain_words(report):
    html, headline, _ = report
    text = _visible_text(html)
    verdict = text.split("Verdict", 1)[1][:600]
    # the verdict names the doubling time in words and the paper's figure beside it
    assert "Doubling time" in verdict or "doubles every" in verdict
    assert "3.3 months" in verdict
    from densing.states import State

    state = headline.state
    if state is State.BOUNDED:  # the estimate and the one determined end first, then the family that moves it most
        assert ("at least" in verdict or "at most" in verdict) and "not determined" in verdict
        assert "Leave one family out" in text.split("Verdict", 1)[1][:2000]
    elif state is State.NOT_MEASURED:
        block = text.split("Verdict", 1)[1][:2000]
        # a verdict that withholds the number says why, in words
        assert "not measured" in verdict and any(
            words in block for words in ("disagree", "determined", "no family passes", "failed")
        )


def test_sections_checks_and_the_papers_numbers(report):
    html, _, _ = report
    titles = re.findall(r"<h2[^>]*>(.*?)</h2>", html)
    for title in (
        "Verdict",
        "The Densing Law by capability",
        "A second measurement: the paper&#x27;s design on AI2&#x27;s recipe",
        "Capacity density over time",
        "The measurement in detail",
        "Every eligible reference",
        "Named models",
        "Reference laws",
        "Reference candidates",
        "Per-model densities",
        "Data caveats",
    ):
        assert title in titles
    for check in ("saturation", "conditioning", "size_confounding", "size_dependence", "sensitivity"):
        assert check in html
    assert "3.3" in html and "0.0073" in html and "0.0048" in html  # the paper's numbers, beside ours
    assert "fit share (%)" in html and "lower bounds" in html  # the fields in words


def test_the_second_measurement_sits_beside_the_leaderboard_rows_benchmark_by_benchmark(report):
    text = _visible_text(report[0])
    section = text.split("A second measurement", 1)[1].split("The measurement in detail", 1)[0]
    for words in (
        "arc_challenge",
        "mmlu",
        "hellaswag",
        "winogrande",
        "gsm8k",
        "mmlu_pro",
        "finding: conditioning fires",
        "not measured: the MC score law is a poor fit",
        "no reference",
        "3.3 months over its own five benchmarks",
    ):
        assert words in section
    assert "consistent: the 95% intervals overlap" in section or "they disagree" in section


def test_reference_models_are_not_in_the_per_model_table(report, measured):
    from densing.trend.targets import reference_models

    _, _, dens = report
    defining = set().union(*(reference_models(f) for f in measured.fits))
    assert defining and not set(dens["model"]) & defining


# ---------------------------------------------------------------------------------------------
# the screenshot review's findings: one doubling time per rule, yes/no, ∞, one headline


def _visible_text(html: str) -> str:
    """The page's text as a reader sees it outside the figures: scripts, styles and tags removed."""
    import html as html_mod

    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", html, flags=re.S)
    return html_mod.unescape(re.sub(r"<[^>]+>", " ", body))


def _paper_row(html: str, quantity: str) -> list[str]:
    import html as html_mod

    section = html.split("<h3>The paper's numbers beside ours")[1]
    row = re.search(rf"<tr><td[^>]*>{re.escape(quantity)}</td>(.*?)</tr>", section, flags=re.S).group(1)
    return [html_mod.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)]


@pytest.fixture(scope="module")
def measured():
    from densing.data import read_results
    from densing.paths import DEFAULT_DENSITY_TARGETS as DEFAULT_RESULTS
    from densing.trend.measure import measure_trend

    return measure_trend(read_results(DEFAULT_RESULTS), since="2023-02-24", epoch="2023-02-24", n_boot=60, seed=0)


def test_the_density_figure_draws_the_headline_rule_with_the_tables_number(report, measured):
    from densing.trend import rules

    html, _, _ = report
    head = measured.rules[measured.headline_rule]
    from densing.numbers import format_months

    months = format_months(head.doubling_time_months)
    legends = re.findall(r'"name":"([^"]*doubling[^"]*)"', html)
    assert legends[0].startswith(f"{measured.headline_rule} line: doubling {months} months")
    # the other rules are toggles with their own numbers
    for rule in measured.rules:
        if rule != measured.headline_rule:
            words = rules.get(rule).words()
            assert any(
                x.startswith(
                    f"{words} (click to show or hide): doubling {format_months(measured.rules[rule].doubling_time_months)}"
                )
                for x in legends
            )


def test_one_interval_per_quantity_the_after_segment_reuses_the_headline(measured):
    after = measured.breakpoint.after
    head = measured.rules[measured.headline_rule]
    if set(measured.models["model"]) and after.same_as_headline:
        assert (after.slope_ci_low, after.slope_ci_high) == (head.slope_ci_low, head.slope_ci_high)


@pytest.mark.parametrize("rule", ["envelope", "quantile", "all"])
def test_the_drawn_line_is_the_measurements_line(measured, rule):
    import numpy as np
    import pandas as pd

    from densing.present import figures

    result = measured.rules[rule]
    assert result.epoch == "2023-02-24" and set(result.frontier_models) <= set(measured.models["model"])
    if rule == "envelope":  # the record-setters: a subset, with the R² of the line through them
        assert len(result.frontier_models) < len(measured.models) and np.isfinite(result.r_squared)
    figure = figures.density_figure(measured.models, result, title="t")
    drawn = next(t for t in figure.data if t.mode == "lines")
    from densing.numbers import format_months

    assert f"doubling {format_months(result.doubling_time_months)} months" in drawn.name
    days = (pd.to_datetime(pd.Series(drawn.x)) - pd.Timestamp("2023-02-24")).dt.total_seconds().to_numpy(float) / 86400
    slope = np.polyfit(days, np.log(np.asarray(drawn.y, float)), 1)[0]
    assert slope == pytest.approx(result.slope_per_day, rel=1e-6)


def test_named_models_have_densities_with_intervals(report, measured):
    from densing.constants import NAMED_MODELS

    html, _, dens = report
    named = dens[dens["model"].isin(NAMED_MODELS)]
    assert len(named) >= 8
    assert (named["density_ci_low"] <= named["density"]).all() and (named["density"] <= named["density_ci_high"]).all()
    assert "Named models" in html


def test_booleans_are_printed_yes_or_no(report):
    html, _, _ = report
    assert not re.findall(r"<td[^>]*>\s*(True|False)\s*</td>", html)
    selection = html.split("Reference candidates")[1].split("</table>")[0]
    assert re.search(r"<td[^>]*>yes</td>", selection) and re.search(r"<td[^>]*>no</td>", selection)


def test_no_raw_inf_or_exponent_d0_in_the_text(report):
    html, headline, _ = report
    text = _visible_text(html)
    assert not re.search(r"(?<![\w.])-?inf(?![\w])", text, flags=re.I), re.findall(r".{40}\binf\b.{20}", text)
    assert not re.search(r"D0 = [0-9.]+e\+\d+", text)
    assert re.search(r"D0 = [0-9.]+[KMBT] tokens", text)  # a token count in words
    legends = re.findall(r'"name":"([^"]*)"', html)
    assert not any(re.search(r"\binf\b", name) for name in legends)


def test_panel_grids_fill_their_rows():
    from densing.report.render_parts import _grid

    assert _grid(1) == (1, 1) and _grid(4) == (2, 2) and _grid(6) == (2, 3) and _grid(5) == (3, 2)


def test_tables_fit_900_px_and_counts_are_words(report):
    html, _, _ = report
    detail = html.split("The measurement in detail")[1].split("</table>")[0]
    assert len(re.findall(r"<th[ >]", detail)) <= 7  # the shares sit behind a toggle
    assert "<details><summary>shares of the slope variance" in html
    per_model = html.split("Per-model densities")[1].split("</table>")[0]
    assert not re.search(r"\d\.\d+e\+\d+", per_model)  # no 4.05e+11
    assert re.search(r"<td[^>]*>\d+(\.\d+)?[BM]</td>", per_model)  # 7B, 405B, 135M
    assert re.search(r"\d(\.\d+)?T tokens", _visible_text(html))  # a budget as words (3.1T, 8.01T)


def test_the_checks_are_written_on_the_density_figure(report, measured):
    html, _, _ = report
    for check in measured.checks:
        assert f"{check.name.replace('_', ' ')} {check.status}" in html.split("density-trend", 1)[1].split("<h2")[0]


def test_the_overlap_section_names_panels_and_gives_the_numbers():
    from densing.paths import SHARED_DATA
    from densing.report.render import build_report

    folder = SHARED_DATA / "traces" / "hta" / "ddp_2rank"
    if not folder.exists():
        pytest.skip(f"{folder} is not here")
    html, _, _ = build_report(n_boot=40, traces=folder)
    section = html.split("Communication/computation overlap")[1]
    assert "overlap %" in section and "exposed comm (ms)" in section
    assert re.search(r"<td[^>]*>ddp_2rank</td>", section)
    assert "ddp_2rank: kernels of ranks 0" in section  # each timeline named by its run and ranks
    assert "GPU kernels, step" not in section


def test_the_page_reads_top_down_the_verdict_once_and_the_appendices_closed(report, measured):
    html = report[0]
    assert html.count(esc_text(present.verdict_of(measured))) == 1
    for title in ("Every eligible reference", "Reference laws", "Reference candidates", "Per-model densities"):
        assert f'<details class="appendix"><summary><h2>{title}</h2></summary>' in html
    for title in ("The Densing Law by capability", "Capacity density over time", "Named models"):
        assert f"<h2>{title}</h2>" in html and f"<summary><h2>{title}</h2>" not in html
    assert "<summary>the corrections</summary><div" in html or "<summary>the corrections</summary>" in html


def esc_text(text: str) -> str:
    import html as _html

    return _html.escape(text, quote=True)


@pytest.mark.slow
def test_the_footer_cites_the_run_and_its_command_reproduces_the_headline(run_cli, tmp_path):
    import hashlib
    import shlex

    from densing import __version__, paths

    out = tmp_path / "first.html"
    code, printed, err = run_cli("report", "--out", out, "--n-boot", "40", "--seed", "3")
    assert code == 0, err
    footer = re.search(r"<footer>(.*?)</footer>", out.read_text(), flags=re.S).group(1)
    digest = hashlib.sha256((paths.RESULTS / "public_models.csv").read_bytes()).hexdigest()[:16]
    for words in (f"densing {__version__}", "commit ", "--n-boot 40 --seed 3", f"public_models.csv sha256 {digest}"):
        assert words in footer
    assert "seed 3, 40 draws" not in footer  # the command gives them: said once
    assert re.search(r"· \d{4}-\d{2}-\d{2} ·", footer)
    command = shlex.split(re.search(r"<code>(.*?)</code>", footer).group(1).replace("&#x27;", "'"))
    assert command[:2] == ["densing", "report"]
    again = command[1:]
    again[again.index("--out") + 1] = str(tmp_path / "again.html")
    code, reprinted, err = run_cli(*again)
    assert code == 0, err
    assert reprinted.splitlines()[:-2] == printed.splitlines()[:-2]  # the headline; the last two name the page written


def test_density_with_no_options_prints_the_reports_per_model_rows(report, run_cli):
    """``densing density`` answers "what are the densities in the headline": the report's per-model rows, the same
    reference and numbers, a censored one as its bound in the table."""
    import json

    import numpy as np
    import pandas as pd

    _, _, dens = report
    code, out, err = run_cli("density", "--format", "json")
    assert code == 0, err
    cli = pd.DataFrame(json.loads(out)).set_index("model")
    mine = dens.set_index("model")
    assert sorted(cli.index) == sorted(mine.index) and len(mine) > 40
    cli = cli.loc[mine.index]
    assert set(cli["reference"]) == set(mine["reference"]) and len(set(mine["reference"])) == 1
    for column in ("density", "density_ci_low", "density_ci_high", "effective_params"):
        expected = mine[column].astype(float).replace([np.inf, -np.inf], np.nan)  # JSON: a non-finite number is null
        np.testing.assert_allclose(cli[column].astype(float), expected, rtol=1e-12, err_msg=column)
    assert list(cli["bound"]) == list(mine["bound"])
    code, table, _ = run_cli("density")
    assert code == 0
    for model, row in mine.iterrows():  # a bound (where the headline has one) printed as a bound, a value as a value
        line = next((r for r in table.splitlines() if r.startswith(model)), None)
        if line is not None and row["bound"] in ("upper bound", "lower bound"):
            assert ("≤ " if row["bound"] == "upper bound" else "≥ ") in line, line


def test_rows_are_named_for_what_they_are_and_densities_for_their_reference(report):
    """No table row and no forest-plot row is named by a set's key alone (``paper``, ``paper_gsm8k``): a set is its
    benchmarks with its short id beside them, as every output names it; the per-model densities name the one
    reference they come from (not the headline's pooled references)."""
    import json

    from tests.report import page_text

    html, measured, dens = report
    cells = [
        row[0] for body in page_text.sections(html).values() for table in page_text.tables(body) for row in table if row
    ]
    assert (
        "MMLU + BBH + MATH-hard + HumanEval [paper]" in cells
        and "MMLU + BBH + GSM8K + HumanEval [paper_gsm8k]" in cells
    )
    assert not {"paper", "paper_gsm8k", "knowledge_commonsense", "paper-like set"} & set(cells)
    assert all(len(table) > 1 for body in page_text.sections(html).values() for table in page_text.tables(body))
    forest = json.loads(page_text.figure_data(html)["by-benchmark"][0])
    labels = {str(y) for trace in forest for y in trace.get("y", []) or []}
    assert any(y.startswith("MMLU + BBH + MATH-hard + HumanEval") for y in labels)
    assert not any(y.split(" · ")[0] in ("paper", "paper_gsm8k") for y in labels)
    (reference,) = set(dens["reference"])
    for title in ("Named models", "Per-model densities"):
        intro = page_text.text(
            re.search(r'<p class="sub">(.*?)</p>', page_text.sections(html)[title], flags=re.S).group(1)
        )
        assert reference in intro and " | " not in intro, intro


def test_every_doubling_time_and_slope_is_given_with_its_interval(report):
    """The paper's numbers beside ours give each slope A with its 95% interval; each reference's own doubling time
    comes with its interval; the density figure's words give the line's slope with its interval."""
    from tests.report import page_text

    html = report[0]
    paper = page_text.tables(html.split("<h3>The paper's numbers beside ours", 1)[1])[0]
    slope = next(row for row in paper if row[0] == "slope A (per day)")
    assert "95% CI" in slope[2] and ("95% CI" in slope[3] or slope[3] == "—")
    sections = page_text.sections(html)
    own = [row[-1] for row in page_text.tables(sections["The Densing Law by capability"])[1][1:]]
    assert own and all(re.search(r"\[[^\]]+–[^\]]+\]", cell) for cell in own if cell not in ("", "—"))
    assert re.search(r"slope A = \S+ \(95% CI \S+ to \S+\)/day", page_text.text(sections["Capacity density over time"]))
