"""The report as a reader sees it at 900 and 1,400 px: opened in Chromium (Qt WebEngine's) by
``tools/report_in_browser.py``, nothing is wider than the window, no figure's text is cut at its edge and no two
labels of a figure overlap. A planted page shows that the check finds each of these when it is there."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys

import pandas as pd
import plotly.graph_objects as go
import pytest

from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TOOL = REPO_ROOT / "tools" / "report_in_browser.py"


def _browse(page, out, *widths, first_screen=False):
    """Run the tool in its own process group (its browser processes end with it); (exit status, results, stderr)."""
    command = [sys.executable, str(TOOL), str(page), "--out", str(out)]
    for width in widths:
        command += ["--width", str(width)]
    if first_screen:
        command.append("--first-screen")
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
    )
    try:
        stdout, stderr = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"{TOOL.name} did not finish in 300 s")
    found = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return process.returncode, found, stderr


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A page with each fault once: two labels on one point, a note wider than its figure, a table wider than a
    900 px window, a note a line crosses, a legend that scrolls, two legend entries drawn alike (plotly's ten colours
    over 30 lines). If the browser cannot start here at all, the module is skipped with its reason."""
    if importlib.util.find_spec("PyQt6") is None or importlib.util.find_spec("PyQt6.QtWebEngineWidgets") is None:
        pytest.skip("PyQt6-WebEngine is not installed (the test extra installs it)")
    from densing.report.html import Section, figure_html, page, table_html

    figure = go.Figure(
        go.Scatter(
            x=[1, 1], y=[1, 1], mode="markers+text", text=["first label", "second label"], textposition="top center"
        )
    )
    figure.add_annotation(
        text="a note far wider than the figure it sits on " * 8,
        xref="paper",
        yref="paper",
        x=0,
        y=1.05,
        xanchor="left",
        showarrow=False,
    )
    figure.update_layout(title="planted figure", width=600, height=400)
    crowded = go.Figure([go.Scatter(x=[0, 2], y=[i, i], mode="lines", name=f"trace {i}") for i in range(30)])
    crowded.add_annotation(text="a note across a line", x=1, y=0, showarrow=False, bgcolor="white")
    crowded.update_layout(title="crowded figure", width=600, height=300)  # 30 entries: the legend scrolls
    wide = pd.DataFrame({f"column_{i}": ["a_long_unbreakable_cell_value_" * 2] for i in range(12)})
    work = tmp_path_factory.mktemp("planted")
    path = work / "planted.html"
    path.write_text(
        page(
            "planted",
            "",
            [
                Section(
                    "planted", "", [figure_html(figure, "planted"), figure_html(crowded, "crowded"), table_html(wide)]
                )
            ],
            "",
        )
    )
    status, found, stderr = _browse(path, work / "shots", 900)
    if not found:
        pytest.skip(f"the browser engine could not open a page here: {stderr.strip().splitlines()[-1:]}")
    return status, found[0]


def test_the_check_finds_overlapping_labels_cut_text_and_wide_tables(planted):
    status, found = planted
    assert status == 1
    assert found["overlapping_labels"] and found["overlapping_labels"][0]["labels"] == ["first label", "second label"]
    assert any(c["text"].startswith("a note far wider") for c in found["cut_text"])
    assert found["wide_tables"] and found["wide_tables"][0]["first_header"] == "column 0"
    assert {c["label"] for c in found["labels_on_lines"]} == {"a note across a line"}  # one entry per line crossing
    assert [c["figure"] for c in found["scrolling_legends"]] == ["crowded figure"]
    assert ["trace 0", "trace 10"] in [c["entries"] for c in found["repeated_looks"]]


def test_the_report_fits_900_and_1400_px_windows(planted, tmp_path):
    from densing.report.render import build_report

    html, _, _ = build_report(n_boot=100)
    page = tmp_path / "report.html"
    page.write_text(html)
    status, found, stderr = _browse(page, tmp_path / "shots", 900, 1400)
    assert [r["width"] for r in found] == [900, 1400], stderr
    for result in found:
        assert result["page_overflow"] <= 1, result
        assert result["wide_tables"] == [], result
        assert result["cut_text"] == [], result
        assert result["overlapping_labels"] == [], result
    assert status == 0
    assert (tmp_path / "shots" / "report-900.png").stat().st_size > 10_000
