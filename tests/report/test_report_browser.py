"""The report page in a real headless Chromium: loads without console errors, every chart
renders, the screenshot is not blank, and a hostile model name is shown as text, not run."""

import re
import struct
import zlib

import pandas as pd
import pytest

from tests.conftest import REPO_ROOT
from tests.report.browser import find_chromium, render

HOSTILE = "<script>alert(1)</script>"


def _png_pixels(path):
    """Decode an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes) into rows of bytes."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0 and color in (2, 6)
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line))
        previous = line
    return rows, channels


@pytest.fixture(scope="module")
def chromium():
    path, reason = find_chromium()
    if path is None:
        pytest.skip(reason)
    return path


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    from densing.report.render import build_report

    work = tmp_path_factory.mktemp("report")
    table = pd.read_csv(REPO_ROOT / "results" / "public_models.csv")
    # one model gets a hostile name: it must show as text in the hover text and in the per-model table
    table.loc[table.index[0], "model"] = HOSTILE
    results = work / "public_models.csv"
    table.to_csv(results, index=False)
    html, headline, _ = build_report(results=results, n_boot=100)
    page = work / "report.html"
    page.write_text(html)
    return page, work


def test_report_renders_in_chromium(chromium, report_page):
    page, work = report_page
    shown = render(chromium, page, work)
    # console: nothing logged at all (Chromium logs every console message, errors and uncaught
    # exceptions included, as a CONSOLE line at INFO level, so any such line fails the test)
    messages = [line for line in shown.console.splitlines() if ":CONSOLE" in line]
    assert not messages, messages
    # every figure container got a plotly SVG
    figures = re.findall(r'<div class="fig">', shown.dom)
    assert len(figures) >= 4
    assert shown.dom.count('class="main-svg"') >= len(figures)
    for block in shown.dom.split('<div class="fig">')[1:]:
        assert "main-svg" in block.split('<div class="fig">')[0]
    # the hostile name is text: escaped in the DOM, no live <script> carrying it
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown.dom
    live_scripts = re.findall(r"<script[^>]*>(.*?)</script>", shown.dom, flags=re.S)
    assert not any(s.strip() == "alert(1)" for s in live_scripts)
    # the screenshot is not blank: many distinct colours, not one background
    rows, channels = _png_pixels(shown.screenshot)
    colours = set()
    for row in rows[::20]:
        for x in range(0, len(row), channels * 16):
            colours.add(row[x : x + 3])
    assert len(colours) > 20
