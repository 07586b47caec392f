"""The report page's text as a reader sees it, section by section: each section's tables (rows of cell texts), its
words outside them, and the numbers it prints. Used by the tests that compare two pages, and on its own:

    python tests/report/page_text.py old.html new.html

prints, per section title, the numbers the old page prints that the new one does not (a restructuring of the page
that keeps its numbers prints nothing but the section titles), and exits 1 where any is missing.
"""

from __future__ import annotations

import html as html_mod
import re
import sys
from collections import Counter
from pathlib import Path

#: A number as the page prints it: 3.66, 2.1×10⁻⁵, 15T, 7B, 45, -0.3, 2023-02-24 (a date counts as one token).
NUMBER = re.compile(r"\d{4}-\d{2}-\d{2}|-?\d+(?:\.\d+)?(?:×10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?[KMBT%]?")


def _unescape_text(fragment: str) -> str:
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", fragment, flags=re.S)
    return re.sub(r"\s+", " ", html_mod.unescape(re.sub(r"<[^>]+>", " ", body))).strip()


def sections(page: str) -> dict[str, str]:
    """Each section's HTML by its title (its h2, unescaped), in page order; the footer as ``footer``."""
    main, _, footer = page.partition("<footer>")
    pieces = re.split(r"<h2[^>]*>(.*?)</h2>", main)
    out = {html_mod.unescape(title): body for title, body in zip(pieces[1::2], pieces[2::2])}
    out["footer"] = footer
    return out


def tables(fragment: str) -> list[list[list[str]]]:
    """The tables of an HTML fragment: each a list of rows (the header row first), each a list of cell texts."""
    out = []
    for table in re.findall(r"<table>(.*?)</table>", fragment, flags=re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
        out.append(
            [[_unescape_text(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, flags=re.S)] for row in rows]
        )
    return out


def text(fragment: str) -> str:
    """The fragment's visible text: scripts, styles and tags removed, entities unescaped, spaces folded."""
    return _unescape_text(fragment)


def numbers(fragment: str) -> Counter:
    """The numbers a fragment prints outside its figures, counted."""
    return Counter(NUMBER.findall(text(fragment)))


def figure_data(page: str) -> dict[str, tuple[str, str]]:
    """Each figure's data and layout as plotly.js gets them (their JSON texts), by its div id."""
    found = re.findall(r'Plotly\.newPlot\(\s*"([^"]+)",\s*(\[.*?\]),\s*(\{.*?\}),\s*\{"displaylogo', page, flags=re.S)
    return {div: (data, layout) for div, data, layout in found}


def missing_numbers(old: str, new: str) -> dict[str, Counter]:
    """Per section of ``old``, the numbers it prints that the same section of ``new`` does not."""
    before, after = sections(old), sections(new)
    return {title: numbers(body) - numbers(after.get(title, "")) for title, body in before.items() if title != "footer"}


def main(argv: list[str]) -> int:
    old, new = (Path(p).read_text(encoding="utf-8") for p in argv[1:3])
    gone = missing_numbers(old, new)
    for title, lost in gone.items():
        print(f"{title}: " + (", ".join(f"{n}×{c}" for n, c in sorted(lost.items())) if lost else "every number kept"))
    before, after = figure_data(old), figure_data(new)
    for div in before:
        print(f"figure {div}: " + ("same" if before[div] == after.get(div) else "differs" if div in after else "gone"))
    return 1 if any(gone.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
