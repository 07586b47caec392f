"""The report's content, without a browser: headline, sections, checks, the paper beside ours."""
from __future__ import annotations

import re

import pytest


@pytest.fixture(scope="module")
def report():
    from densing.report.build import build_report

    html, headline, dens = build_report(n_boot=60)
    return html, headline, dens


def test_headline_is_withheld_in_words_on_the_shipped_data(report):
    html, headline, _ = report
    assert not headline.measurable
    assert headline.text().startswith("not measurable with this reference")
    assert "saturation" in headline.text()
    assert "not measurable with this reference" in html


def test_sections_checks_and_the_papers_numbers(report):
    html, _, _ = report
    titles = re.findall(r"<h2[^>]*>(.*?)</h2>", html)
    for title in ("Headline", "Capacity density over time", "Reference laws", "Reference selection",
                  "Per-model densities", "Sensitivity", "Data caveats"):
        assert title in titles
    for check in ("saturation", "conditioning", "size_dependence", "sensitivity"):
        assert check in html
    assert "3.3" in html and "0.0073" in html and "0.0048" in html  # the paper's numbers, beside ours
    assert "share_fit" in html and "lower_bounds" in html
    assert "defines the reference" in html  # the reference's own models are listed as left out


def test_reference_models_are_not_in_the_per_model_table(report):
    from densing.laws.reference import ReferenceFit
    from densing.trend.measure import read_selection, reference_models

    _, _, dens = report
    chosen = read_selection().query("chosen")["fit"].iloc[0]
    defining = reference_models(ReferenceFit.load(f"reference_fits/{chosen}"))
    assert len(defining) >= 19 and not set(dens["model"]) & defining


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
    from densing.report.build import DEFAULT_RESULTS
    from densing.trend.measure import measure_trend

    return measure_trend(read_results(DEFAULT_RESULTS), since="2023-02-24", epoch="2023-02-24", n_boot=60, seed=0)


def test_the_density_figures_legend_gives_the_tables_doubling_time(report, measured):
    html, _, _ = report
    months = f"{measured.rules['envelope'].doubling_time_months:.2f}"
    legends = re.findall(r'"name":"([^"]*doubling[^"]*)"', html)
    assert legends == [f"envelope line: doubling {months} months" + legends[0].split(" months", 1)[1]]
    # the paper-comparison table's envelope column and the figure's intro say the same number
    assert _paper_row(html, "doubling time (months)")[-1].startswith(f"{months} (")
    assert f"doubling {months} months" in _visible_text(html)
    # every doubling time the page states for the envelope rule is that one
    stated = set(re.findall(r"envelope line: doubling ([0-9.]+) months", html))
    assert stated == {months}


@pytest.mark.parametrize("rule", ["envelope", "quantile", "all"])
def test_the_drawn_line_is_the_measurements_line(measured, rule):
    import numpy as np
    import pandas as pd

    from densing.report import figures
    from densing.report.line import measured_line

    result = measured.rules[rule]
    line = measured_line(measured, rule, "2023-02-24")
    assert line.slope_per_day == result.slope_per_day
    assert line.doubling_time_months == result.doubling_time_months
    figure = figures.density_figure(measured.models, line, title="t")
    drawn = next(t for t in figure.data if t.mode == "lines")
    assert f"doubling {result.doubling_time_months:.2f} months" in drawn.name
    days = (pd.to_datetime(pd.Series(drawn.x)) - pd.Timestamp("2023-02-24")).dt.total_seconds().to_numpy(float) / 86400
    slope = np.polyfit(days, np.log(np.asarray(drawn.y, float)), 1)[0]
    assert slope == pytest.approx(result.slope_per_day, rel=1e-6)


def test_booleans_are_printed_yes_or_no(report):
    html, _, _ = report
    assert not re.findall(r"<td[^>]*>\s*(True|False)\s*</td>", html)
    checks = html.split("Validity checks")[1].split("</table>")[0]
    assert re.search(r"<td[^>]*>no</td>", checks)
    selection = html.split("Reference selection")[1].split("</table>")[0]
    assert re.search(r"<td[^>]*>yes</td>", selection) and re.search(r"<td[^>]*>no</td>", selection)


def test_no_raw_inf_or_exponent_d0_in_the_text(report):
    html, headline, _ = report
    text = _visible_text(html)
    assert not re.search(r"(?<![\w.])-?inf(?![\w])", text, flags=re.I), re.findall(r".{40}\binf\b.{20}", text)
    assert "∞" in text
    assert not re.search(r"D0 = [0-9.]+e\+\d+", text)
    assert "D0 = 1T tokens" in text and "D0 = 1T tokens" in headline.text()
    legends = re.findall(r'"name":"([^"]*)"', html)
    assert not any(re.search(r"\binf\b", name) for name in legends)


def test_the_headline_paragraph_appears_once(report):
    import html as html_mod

    html, headline, _ = report
    assert html.count(html_mod.escape(headline.text(), quote=True)) == 1
    subtitle = re.search(r'<h1>.*?</h1><p class="sub">(.*?)</p>', html, flags=re.S).group(1)
    assert len(subtitle) < len(headline.text()) / 2
    assert "(see the checks))" not in html


def test_one_name_per_reference_and_worded_blank_cells(report):
    html, _, _ = report
    text = _visible_text(html)
    assert "pile_hellaswag_composed " not in text and "pile_hellaswag_composed<" not in html
    for quantity in ("slope before ChatGPT (per day)", "slope after ChatGPT (per day)"):
        envelope = _paper_row(html, quantity)[-1]
        assert envelope.startswith("— (") and envelope.endswith(")")
    assert "R² =" not in html


def test_panel_grids_fill_their_rows():
    from densing.report.figures import _grid

    assert _grid(1) == (1, 1) and _grid(4) == (2, 2) and _grid(6) == (2, 3) and _grid(5) == (3, 2)
