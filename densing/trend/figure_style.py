"""What the trend's figures share: the palette, each family's colour, marker and line, and text made safe for plotly's
HTML labels."""
from __future__ import annotations

import html

#: The figures' colours (plotly's default ten).
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def escaped(values) -> list[str]:
    """Each value as text with HTML's special characters escaped (plotly renders labels and hovers as HTML)."""
    return [html.escape(str(v)) for v in values]


#: A family's marker and line beside its colour: the tenth family on reuses the palette's colours with the next pair.
FAMILY_MARKS = (("circle", "solid"), ("square", "dash"), ("diamond", "dot"), ("x", "dashdot"))


def family_style(index: int) -> tuple[str, str, str]:
    """(colour, marker symbol, line dash) of the ``index``-th family of a figure: :data:`PALETTE`'s ten colours, then
    the same colours with the next marker and dash (:data:`FAMILY_MARKS`), so up to 40 families never look alike."""
    symbol, dash = FAMILY_MARKS[(index // len(PALETTE)) % len(FAMILY_MARKS)]
    return PALETTE[index % len(PALETTE)], symbol, dash
