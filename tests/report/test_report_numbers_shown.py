"""The report's tables print no zero for a non-zero value and no ``e+`` / ``e-0`` (issue 39's done-when).

Every table of the report goes through :func:`densing.report.html.table_html`; the test records
each frame the renderer gives it with the HTML it returns and compares them cell by cell.
"""

from __future__ import annotations

import html as html_mod
import re

import pytest

ZEROS = {"0", "0.0", "0.00", "-0", "0%"}
EXPONENT = re.compile(r"\de\+|\de-0")


def _cells(table: str) -> list[list[str]]:
    body = table.split("<tbody>", 1)[1]
    return [
        [html_mod.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)
    ]


def _is_nonzero_number(value) -> bool:
    import math
    import numbers

    return (
        isinstance(value, numbers.Number)
        and not isinstance(value, bool)
        and type(value).__name__ != "bool_"
        and not math.isnan(float(value))
        and float(value) != 0
    )


@pytest.fixture(scope="module")
def shown():
    """(frame, html) of every table of the report, and the page: every module that lays a table out is spied on."""
    from densing.report import render, render_parts

    recorded = []
    original_table = render.table_html

    def table_spy(frame, **options):
        out = original_table(frame, **options)
        recorded.append((frame.copy(), out))
        return out

    with pytest.MonkeyPatch.context() as patch:
        for module in (render, render_parts):
            patch.setattr(module, "table_html", table_spy)
        # the sections laid out in this process, where the spy is (by workers the page is the same bytes:
        # tests/report/test_report_inputs.py)
        patch.setenv("DENSING_SERIAL", "1")
        page, _, _ = render.build_report(n_boot=40)
    return recorded, page


def test_every_table_is_seen(shown):
    recorded, page = shown
    assert len(recorded) >= 10
    assert sum(len(frame) for frame, _ in recorded) >= 200  # the per-model table among them


def test_no_cell_prints_zero_for_a_non_zero_value(shown):
    recorded, _ = shown
    wrong = []
    for frame, table in recorded:
        rows = _cells(table)
        assert len(rows) == len(frame)
        for values, texts in zip(frame.itertuples(index=False, name=None), rows):
            for name, value, text in zip(frame.columns, values, texts):
                if text.strip() in ZEROS and _is_nonzero_number(value):
                    wrong.append(f"{name}: {value!r} printed {text!r}")
    assert not wrong, wrong[:20]


def test_no_cell_and_no_sentence_writes_e_plus_or_e_minus_zero(shown):
    recorded, page = shown
    cells = [text for _, table in recorded for row in _cells(table) for text in row]
    assert not [c for c in cells if EXPONENT.search(c)]
    visible = html_mod.unescape(
        re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", page, flags=re.S))
    )
    assert not EXPONENT.findall(visible), re.findall(r".{30}\de[+-].{10}", visible)[:5]


def test_headers_are_words_not_field_names(shown):
    recorded, _ = shown
    headers = [html_mod.unescape(h) for _, table in recorded for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
    assert not [h for h in headers if "_" in h]
    for words in ("95% CI low", "N (params)", "ρ", "months", "held-out error (%)", "D0 (tokens)"):
        assert words in headers, words


def test_the_density_axis_reads_in_powers_of_ten(shown):
    _, page = shown
    ticks = re.search(r'"ticktext":\[([^\]]*)\]', page.split('id="density-trend"', 1)[1]).group(1)
    assert "10⁻" in ticks and "μ" not in ticks
