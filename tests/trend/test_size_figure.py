"""The size check's figure tells ~25 families apart: no two share colour and marker, and a bound keeps its ▲/▼."""

from __future__ import annotations

import numpy as np
import pandas as pd

from densing.present.figures import PALETTE, family_style, size_figure


def _points(families: int) -> pd.DataFrame:
    rows = []
    for f in range(families):
        for size, bound in ((1e9, 0), (7e9, 0), (7e10, -1 if f == 0 else 0)):
            rows.append(
                {
                    "model": f"org/family{f:02d}-{size:.0e}",
                    "family": f"family{f:02d}",
                    "params": size,
                    "log_density": np.log(0.5 + f / 10),
                    "bound": bound,
                }
            )
    return pd.DataFrame(rows)


def test_twenty_five_families_never_share_a_colour_and_a_marker():
    figure = size_figure(_points(25))
    markers = [t for t in figure.data if t.mode == "markers"]
    assert len(markers) == 25
    looks = {(t.marker.color, next(s for s in t.marker.symbol if "triangle" not in s)) for t in markers}
    assert len(looks) == 25
    lines = {(t.line.color, t.line.dash) for t in figure.data if t.mode == "lines"}
    assert len(lines) == 25
    # the eleventh family (the first after the palette's ten colours) shares family00's colour, not its marker
    assert markers[10].marker.color == markers[0].marker.color == PALETTE[0]
    assert markers[10].marker.symbol[1] != markers[0].marker.symbol[1]


def test_a_bound_keeps_its_triangle_whatever_the_familys_marker():
    figure = size_figure(_points(12))
    first = next(t for t in figure.data if t.name == "family00")
    assert list(first.marker.symbol) == ["circle", "circle", "triangle-down"]
    assert family_style(10) == (PALETTE[0], "square", "dash")
