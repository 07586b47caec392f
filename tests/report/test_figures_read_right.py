"""The report's figures do not mislead, read from the figure objects (no browser): an infinite interval end is an
arrow off the axis labelled ∞ and no finite bar reaches the edge; a row that is not measured says so at its row;
the two forest plots have their own titles; the density chart draws each model's interval at first, names the
frontier with labels that do not overlap, and has a tall plot area."""

from __future__ import annotations

import html as html_mod
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

import densing.present as present
from densing.present import figures, forest


def _rows() -> pd.DataFrame:
    """A hand-made forest: measured, measured to ∞, not measured with an estimate, not measured without a number."""
    return pd.DataFrame(
        [
            {
                "row": "alpha",
                "capability": "knowledge",
                "state": "measured",
                "status": "measured",
                "months": 3.0,
                "ci_low": 2.0,
                "ci_high": 9.5,
                "references": "A",
                "each_reference_months": "A 3.0",
                "error": "",
            },
            {
                "row": "beta",
                "capability": "reasoning",
                "state": "measured",
                "status": "measured",
                "months": 4.0,
                "ci_low": 1.26,
                "ci_high": math.inf,
                "references": "B",
                "each_reference_months": "B 4.0",
                "error": "",
            },
            {
                "row": "gamma",
                "capability": "set",
                "state": "not measured",
                "status": "not measured: its references disagree (X 2.1, Y 5.5)",
                "months": 3.5,
                "ci_low": 1.3,
                "ci_high": 15.4,
                "references": "X, Y",
                "each_reference_months": "X 2.1, Y 5.5",
                "error": "its references disagree",
            },
            {
                "row": "delta",
                "capability": "code",
                "state": "not measured",
                "status": "not measured: no reference (the ladder has no loss law for it)",
                "months": math.nan,
                "ci_low": math.nan,
                "ci_high": math.nan,
                "references": "",
                "each_reference_months": "",
                "error": "not measured: no reference (the ladder has no loss law for it)",
            },
        ]
    )


def _label(frame: pd.DataFrame, row: str) -> str:
    """The forest plot's label of a row: its name for a reader (a set by its benchmarks) and its capability."""
    r = frame.set_index("row").loc[row]
    return f"{row} · {r['capability']}"


def _finite_x(trace) -> np.ndarray:
    values = np.array([np.nan if v is None else float(v) for v in trace.x], float)
    return values[np.isfinite(values)]


def test_an_infinite_end_is_an_arrow_off_the_axis_labelled_infinity_and_no_finite_bar_reaches_the_edge():
    frame = _rows()
    figure = figures.forest_figure(frame, 3.3)
    edge = 10 ** figure.layout.xaxis.range[1]  # a log axis of months: its range in log10
    assert figure.layout.xaxis.type == "log"
    assert edge > 15.4 and 0 < 10 ** figure.layout.xaxis.range[0] < 1.26  # below the smallest end drawn
    arrows = [t for t in figure.data if "∞" in (t.text or ())]
    assert len(arrows) == 1
    arrow = arrows[0]
    tip = list(arrow.text).index("∞")
    # the head sits on the edge, at beta's row, is an arrow pointing right, is not clipped, and reads ∞
    assert arrow.x[tip] == pytest.approx(edge) and arrow.y[tip] == _label(frame, "beta")
    assert arrow.marker.symbol[tip] == "arrow-right" and arrow.marker.size[tip] > 0 and arrow.cliponaxis is False
    assert arrow.x[tip - 1] == pytest.approx(1.26)  # the shaft starts at the interval's finite end
    # every other trace (finite intervals, points) ends short of the edge; no error bar is clipped by the axis
    for trace in figure.data:
        assert trace.error_x.array is None
        if trace is not arrow:
            assert (_finite_x(trace) < edge).all(), trace.name
    assert not any(t for t in figure.data if "∞" in (t.text or ()) and t is not arrow)


def test_the_axis_ends_past_every_finite_number():
    frame = _rows()
    frame.loc[0, "ci_high"] = 47.0  # a long finite interval: the axis goes past it, the bar is not cut at the edge
    figure = figures.forest_figure(frame, 3.3)
    edge = 10 ** figure.layout.xaxis.range[1]
    assert edge > 47.0
    intervals = [t for t in figure.data if t.mode == "lines"]
    assert max(_finite_x(t).max() for t in intervals) == pytest.approx(47.0)


def test_every_not_measured_row_says_so_at_its_row_with_its_short_reason():
    frame = _rows()
    figure = figures.forest_figure(frame, 3.3)
    notes = {a.y: html_mod.unescape(a.text) for a in figure.layout.annotations if "not measured" in (a.text or "")}
    assert notes == {
        _label(frame, "gamma"): "not measured: its references disagree",
        _label(frame, "delta"): "not measured: no reference",
    }
    # the row without a number keeps its line on the axis (a category with something drawn on it)
    drawn = {y for t in figure.data for y in (t.y or ()) if y is not None}
    assert {_label(frame, r) for r in frame["row"]} <= drawn
    assert list(figure.layout.yaxis.categoryarray) == [_label(frame, r) for r in frame["row"][::-1]]


def test_the_paper_is_a_line_across_the_rows_and_no_status_lies_on_a_row_line():
    frame = _rows()
    figure = figures.forest_figure(frame, 3.3)
    lines = [shape for shape in figure.layout.shapes if shape.x0 == shape.x1 == 3.3]
    assert len(lines) == 1 and lines[0].yref == "y domain" and lines[0].layer == "below"  # across every row, under all
    named = [t for t in figure.data if (t.name or "").startswith("paper")]
    assert len(named) == 1 and list(named[0].x) == [3.3] and named[0].y[0] == _label(frame, "alpha")  # the top row
    for note in figure.layout.annotations:
        if "not measured" in (note.text or "") and note.y == _label(frame, "gamma"):  # a row with a bar: under it
            assert note.xref == "paper" and note.yanchor == "top" and note.yshift < 0


def test_the_olmes_rows_say_why_they_are_not_measured():
    frame = _rows().drop(columns="status")  # the OLMES rows carry their reason in ``error`` alone
    frame.loc[2, ["error", "state"]] = ["", "measured"]  # a row with no error is measured
    frame.loc[3, "error"] = "the frontier has 2 models (3 needed)"
    figure = figures.forest_figure(frame, 3.3, title="OLMES")
    notes = {a.y: html_mod.unescape(a.text) for a in figure.layout.annotations if "not measured" in (a.text or "")}
    assert notes == {_label(frame, "delta"): "not measured: the frontier has 2 models"}


@pytest.fixture(scope="module")
def measured():
    from densing.data import read_results
    from densing.paths import DEFAULT_DENSITY_TARGETS as DEFAULT_RESULTS
    from densing.trend.measure import measure_trend

    return measure_trend(read_results(DEFAULT_RESULTS), since="2023-02-24", epoch="2023-02-24", n_boot=60, seed=0)


def test_the_shipped_rows_not_measured_say_so_at_their_rows(measured):
    rows = present.by_benchmark(measured)
    figure = figures.forest_figure(rows, 3.3)
    notes = {a.y for a in figure.layout.annotations if (a.text or "").startswith("not measured")}
    expected = {
        _label(rows, r.row)
        for r in rows.itertuples()
        if str(r.status).startswith("not measured") or not np.isfinite(r.months)
    }
    assert (
        notes == expected
    )  # the shipped rows may all be measured or bounded: the hand-made forest has rows that are not
    edge = 10 ** figure.layout.xaxis.range[1]
    infinite = {_label(rows, r.row) for r in rows.itertuples() if np.isfinite(r.months) and r.ci_high == np.inf}
    heads = {
        t.y[i]
        for t in figure.data
        for i, text in enumerate(t.text or ())
        if text == "∞" and t.x[i] == pytest.approx(edge)
    }
    assert heads == infinite


def _report_figures(page: str) -> dict[str, tuple[list, dict]]:
    """Each figure of the report page by its div id: (data, layout) as plotly.js gets them."""
    found = {}
    for div, data, layout in re.findall(
        r'Plotly\.newPlot\(\s*"([^"]+)",\s*(\[.*?\]),\s*(\{.*?\}),\s*\{"displaylogo', page, flags=re.S
    ):
        found[div] = (json.loads(data), json.loads(layout))
    return found


@pytest.fixture(scope="module")
def report_figures():
    from densing.report.render import build_report

    page, _, _ = build_report(n_boot=40)
    return _report_figures(page)


def test_the_two_forest_plots_have_distinct_titles(report_figures):
    first = report_figures["by-benchmark"][1]["title"]["text"]
    second = report_figures["olmes-forest"][1]["title"]["text"]
    assert first != second
    assert "leaderboard" in first and "OLMES" in second


def test_the_report_draws_each_models_interval_at_first_and_never_says_hidden(report_figures):
    data, layout = report_figures["density-trend"]
    intervals = [t for t in data if t.get("name") == figures.INTERVALS_NAME]
    assert len(intervals) == 1 and intervals[0].get("visible", True) is True
    assert intervals[0]["error_y"]["array"]
    assert not [t["name"] for t in data if "hidden" in str(t.get("name", ""))]
    assert layout["height"] - layout["margin"]["t"] - layout["margin"]["b"] >= 600
    assert layout["legend"]["yref"] == "container"  # the legend sits in the margin, not in the plot area


def test_only_the_frontier_is_named_by_text(measured):
    from densing.present.figures import with_intervals

    figure = figures.density_figure(
        with_intervals(measured.models, measured.densities), measured.rules[measured.headline_rule], title="t"
    )
    labelled = [t for t in figure.data if "text" in str(t.mode)]
    assert [t.name for t in labelled] == [figures.FRONTIER_NAME]
    intervals = next(t for t in figure.data if t.name == figures.INTERVALS_NAME)
    assert intervals.visible in (None, True) and intervals.error_y.array is not None


def _boxes(trace, layout) -> list[tuple[str, float, float, float, float]]:
    """Each label's box in the plot area's pixels (y upward), from the trace's text, positions and the axes'
    ranges, by plotly's rule: the text ``marker size / 1.6 + 1`` px off the point on the sides the position names,
    each character at most :data:`figures.CHAR_WIDTH` px wide, :data:`figures.LABEL_HEIGHT` px high."""
    x0, x1 = (pd.Timestamp(v) for v in layout.xaxis.range)
    y0, y1 = layout.yaxis.range
    offset = trace.marker.size / 1.6 + 1
    out = []
    for x, y, text, position in zip(trace.x, trace.y, trace.text, trace.textposition):
        if not text:
            continue
        px = (pd.Timestamp(x) - x0) / (x1 - x0) * forest.PLOT_WIDTH
        py = (math.log10(y) - y0) / (y1 - y0) * forest.PLOT_HEIGHT
        width = forest.CHAR_WIDTH * len(html_mod.unescape(text))
        left = px - offset - width if "left" in position else px + offset if "right" in position else px - width / 2
        bottom = (
            py + offset
            if "top" in position
            else py - offset - forest.LABEL_HEIGHT
            if "bottom" in position
            else py - forest.LABEL_HEIGHT / 2
        )
        out.append((text, left, bottom, left + width, bottom + forest.LABEL_HEIGHT))
    return out


def _assert_apart(boxes, layout):
    """No two labels closer than their boxes allow: centres at least the two half-widths apart in time, or at least
    one label's height apart in log-density (both converted to the axes' units at the placement's plot size)."""
    days = (pd.Timestamp(layout.xaxis.range[1]) - pd.Timestamp(layout.xaxis.range[0])).total_seconds() / 86400
    decades = layout.yaxis.range[1] - layout.yaxis.range[0]
    per_px_days, per_px_decades = days / forest.PLOT_WIDTH, decades / forest.PLOT_HEIGHT
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart_days = abs((a[1] + a[3]) - (b[1] + b[3])) / 2 * per_px_days
            apart_decades = abs((a[2] + a[4]) - (b[2] + b[4])) / 2 * per_px_decades
            need_days = ((a[3] - a[1]) + (b[3] - b[1])) / 2 * per_px_days
            need_decades = forest.LABEL_HEIGHT * per_px_decades
            assert apart_days >= need_days - 1e-9 or apart_decades >= need_decades - 1e-9, (a[0], b[0])


def test_the_shipped_frontier_labels_do_not_overlap(measured):
    from densing.present.figures import with_intervals

    for rule in measured.rules:  # the headline rule and the others (`densing report --frontier`)
        figure = figures.density_figure(
            with_intervals(measured.models, measured.densities), measured.rules[rule], title="t"
        )
        front = next(t for t in figure.data if t.name == figures.FRONTIER_NAME)
        boxes = _boxes(front, figure.layout)
        assert len(boxes) >= max(1, len(front.x) // 2)  # most of the frontier is named
        _assert_apart(boxes, figure.layout)
        for _, left, bottom, right, top in boxes:  # inside the plot area, where plotly does not clip them
            assert 0 <= left and right <= forest.PLOT_WIDTH and 0 <= bottom and top <= forest.PLOT_HEIGHT
        names = {html_mod.unescape(t) for t in front.text if t}
        assert all(
            any(n in html_mod.unescape(h) for h in front.hovertext) for n in names
        )  # the hover names every point
        assert len(front.hovertext) == len(front.x)


def test_crowded_points_get_labels_apart_and_the_rest_hover_only():
    """Twelve models released the same day within a tenth of a decade: the placement names a few, apart, and
    leaves the others to the hover."""
    count = 12
    x = np.full(count, 100.0)
    y = np.linspace(0.0, 0.1, count)
    names = [f"model-{i}-base" for i in range(count)]
    positions = figures.place_labels(x, y, names, (0.0, 400.0), (-3.0, 1.0))
    placed = [p for p in positions if p]
    assert 2 <= len(placed) < count
    px = (x - 0.0) / 400.0 * forest.PLOT_WIDTH
    py = (y + 3.0) / 4.0 * forest.PLOT_HEIGHT
    boxes = [forest.label_box(a, b, n, p) for a, b, n, p in zip(px, py, names, positions) if p]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    # the same points far apart are all named
    spread = figures.place_labels(np.linspace(20, 380, count), y, names, (0.0, 400.0), (-3.0, 1.0))
    assert all(spread)


def test_a_header_of_short_words_never_breaks_inside_a_word():
    """At 900 px a narrow column's header breaks between its words ("95% CI / low"); only a header with a word
    longer than LONG_HEADER_WORD may break inside it (class w), so "months" is never printed "mon / ths"."""
    from densing.report.html import LONG_HEADER_WORD, table_html

    page = table_html(pd.DataFrame({"months": [1.0], "95% CI low": [0.5], "held-out error (%)": [2.0]}))
    assert "<th>months</th>" in page and "<th>95% CI low</th>" in page
    assert '<th class="w">held-out error (%)</th>' in page
    assert len("held-out") > LONG_HEADER_WORD >= len("months")


def test_the_size_figure_gives_every_family_its_own_look_and_a_legend_that_never_scrolls():
    """16 families: each its own (colour, marker) pair, the legend under the plot, and the figure grown by its lines."""
    families = [f"family{i}" for i in range(16)]
    points = pd.DataFrame(
        [
            {"model": f"{f}-{n}", "family": f, "params": n * 1e9, "log_density": 0.1 * i + 0.01 * n, "bound": 0}
            for i, f in enumerate(families)
            for n in (1, 7)
        ]
    )
    figure = figures.size_figure(points)
    looks = [(t.marker.color, t.marker.symbol[0]) for t in figure.data if t.name in families]
    assert len(looks) == 16 and len(set(looks)) == 16
    legend = figure.layout.legend
    assert legend.orientation == "h" and legend.yref == "container"
    lines = math.ceil(16 / figures.LEGEND_PER_LINE)
    assert figure.layout.height >= 460 + figures.LEGEND_LINE * lines
    assert figure.layout.margin.b >= figures.LEGEND_LINE * lines


def test_a_bound_of_your_model_is_a_half_open_bar_not_a_point():
    import plotly.graph_objects as go

    from densing.present.figures import _bound_bars

    rows = pd.DataFrame(
        {
            "release_date": pd.to_datetime(["2024-11-01", "2024-12-01", "2025-01-01"]),
            "reading": ["upper bound", "lower bound", "value"],
        }
    )
    figure = go.Figure()
    _bound_bars(figure, rows, np.array([0.9, 2.0, 1.0]))
    (bars,) = figure.data
    ys = [y for y in bars.y if y is not None]
    assert ys == pytest.approx([0.9, 0.09, 2.0, 20.0])  # a decade below ρ ≤ 0.9, above ρ ≥ 2; the value has none
    assert [s for s in bars.marker.symbol if s.startswith("arrow")] == ["arrow-down", "arrow-up"]
