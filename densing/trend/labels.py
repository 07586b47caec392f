"""Where a figure's labels go: the box plotly gives a label beside a marker, and a greedy placement in which no label
overlaps another or a marker (a label that fits nowhere is left to the hover). The density figure names its frontier
this way (:func:`densing.trend.figures.density_figure`).
"""
from __future__ import annotations

import html

import numpy as np
import pandas as pd

#: The density figure's plot area's height (px): six decades and more of density.
PLOT_HEIGHT = 620
#: The width (px) the frontier's labels are placed for: the plot area in a 900 px window (about 760 px) or less, so
#: that they do not overlap there or in any wider window (every name stays on hover).
PLOT_WIDTH = 740
#: A label's font size (px), the width of one of its characters and its height (px), generous for plotly's sans-serif.
LABEL_FONT = 10
CHAR_WIDTH = 6.2
LABEL_HEIGHT = 13.0
#: A frontier marker's size (px): plotly sets a label ``size / 1.6 + 1`` px away from its point.
FRONTIER_MARKER = 11
#: The label positions tried, in order; a label that fits none is left to the hover.
LABEL_POSITIONS = ("top center", "bottom center", "middle right", "middle left", "top right", "top left", "bottom right",
                   "bottom left")


def days_since(dates, origin) -> np.ndarray:
    """Days from ``origin`` to each of ``dates`` (a figure's date axis in the units labels are placed in)."""
    return ((pd.to_datetime(pd.Series(list(dates))) - pd.Timestamp(origin)).dt.total_seconds() / 86400).to_numpy(float)


def label_box(x: float, y: float, text: str, position: str) -> tuple[float, float, float, float]:
    """The box (left, bottom, right, top; px, y upward) that plotly gives a label of ``text`` at ``position`` beside
    a frontier marker at pixel (``x``, ``y``): it sets the text ``FRONTIER_MARKER / 1.6 + 1`` px off the point,
    to the side(s) the position names."""
    offset = FRONTIER_MARKER / 1.6 + 1
    width = CHAR_WIDTH * len(html.unescape(text))
    if "left" in position:
        left = x - offset - width
    elif "right" in position:
        left = x + offset
    else:
        left = x - width / 2
    if "top" in position:
        bottom = y + offset
    elif "bottom" in position:
        bottom = y - offset - LABEL_HEIGHT
    else:
        bottom = y - LABEL_HEIGHT / 2
    return left, bottom, left + width, bottom + LABEL_HEIGHT


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_labels(x, y, texts, x_range, y_range, *, width: float = PLOT_WIDTH, height: float = PLOT_HEIGHT) -> list[str | None]:
    """Where each point's label goes (a plotly ``textposition``), or None where no position fits: greedy, the
    densest point first, each label taking the first of :data:`LABEL_POSITIONS` whose box (:func:`label_box`) stays
    inside the plot area and overlaps no label already placed and no point's marker. ``x``, ``y``: the points in the
    axes' units (days, log10 density), ``x_range``/``y_range`` the axes' ends, ``width``/``height`` the plot area
    (px) the placement is for."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    px = (x - x_range[0]) / (x_range[1] - x_range[0]) * width
    py = (y - y_range[0]) / (y_range[1] - y_range[0]) * height
    half = FRONTIER_MARKER / 2
    taken = [(a - half, b - half, a + half, b + half) for a, b in zip(px, py) if np.isfinite(a) and np.isfinite(b)]
    positions: list[str | None] = [None] * len(x)
    for i in sorted(range(len(x)), key=lambda k: -py[k] if np.isfinite(py[k]) else np.inf):
        if not (np.isfinite(px[i]) and np.isfinite(py[i])):
            continue
        for position in LABEL_POSITIONS:
            box = label_box(px[i], py[i], texts[i], position)
            if box[0] < 0 or box[2] > width or box[1] < 0 or box[3] > height:
                continue
            if not any(_overlap(box, other) for other in taken):
                positions[i] = position
                taken.append(box)
                break
    return positions
