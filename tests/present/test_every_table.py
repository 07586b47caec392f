"""Every registered table through every surface: for the public table, the second table and both Swallow tables, each
row of ``densing trend --by benchmark`` (its rows, their fixed-size cross-check and their rows at one budget) says one
state — the same on the terminal, in the JSON, in the notebook's frames and on the report's page — and that state is
the one rule's reading of the row's ends; its doubling time is written with the same digits on the terminal and the
page; and no surface writes a number in another format (a hyphen for a minus sign, Python's ``e-4``, fixed decimals).
"""

from __future__ import annotations

import html as html_lib
import json
import math
import re

import pytest

import densing
import densing.present as present
from densing import registry
from densing.numbers import format_months
from tests.cli_run import run

pytestmark = pytest.mark.slow

DRAWS = "40"
#: The words of a state in running text, the longest first ("not measured" holds "measured").
STATE_PATTERN = re.compile(r"not measured|bounded|(?<![a-z] )(?<![a-z])measured")
#: A number written in another format than :mod:`densing.numbers`': a hyphen-minus as its sign (not a date's or a
#: name's hyphen, nor an exponent's in a formula), or Python's exponent form (a number's, not a commit hash's "…6e9").
OTHER_FORMAT = re.compile(r"(?<![\w.)\]^/])-(?=\d)|(?<![\w.])\d(?:\.\d+)?e[-+]?\d+\b")
TABLES = sorted(registry.tables())


def _head(status: str) -> str:
    return next((s for s in ("not measured", "measured", "bounded") if str(status).startswith(s)), "")


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def _rule(row: dict, low: str, high: str) -> str:
    """The one rule: measured with both ends, bounded with one, not measured with none."""
    return {2: "measured", 1: "bounded", 0: "not measured"}[_finite(row[low]) + _finite(row[high])]


def _visible(page: str) -> str:
    text = re.sub(r"<script.*?</script>|<style.*?</style>", " ", page, flags=re.S)
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def _page_rows(page: str) -> list[str]:
    return [
        " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", row)).split())
        for row in re.findall(r"<tr>(.*?)</tr>", page, flags=re.S)
    ]


def _terminal_blocks(text: str, names: set[str]) -> dict[str, str]:
    """The first table's block of each row on the terminal: its line and the wrapped lines under it. The verdict's
    wrapped lines above the table are not rows, though one may start with a row's name ("paper reports …")."""
    blocks: dict[str, str] = {}
    current = None
    text = text.split("\n─", 1)[1] if "\n─" in text else text  # from the first table's rule on
    for line in text.splitlines():
        first = line.split(" ", 1)[0]
        if first in names and first not in blocks:
            current = first
            blocks[current] = line
        elif current and line.startswith(" ") and line.strip():
            blocks[current] += " " + line.strip()
        else:
            current = None
    return blocks


@pytest.mark.parametrize("table", TABLES)
def test_every_row_of_every_table_says_one_state_and_one_number_on_every_surface(table, capsys):
    from densing.report.render import build_report

    code, terminal, err = run(["trend", "--table", table, "--by", "benchmark", "--n-boot", DRAWS], capsys)
    assert code == 0, err
    code, out, err = run(
        ["trend", "--table", table, "--by", "benchmark", "--detail", "--n-boot", DRAWS, "--format", "json"], capsys
    )
    assert code == 0, err
    document = json.loads(out)
    _, path = registry.resolve_table(table=table)
    measurement = densing.measure_trend(densing.read_results(path), table=table, n_boot=int(DRAWS))
    page, reported, _ = build_report(table=table, n_boot=int(DRAWS))

    frame = present.by_benchmark(measurement).set_index("row")
    names = set(frame.index)
    blocks = _terminal_blocks(terminal, names)
    page_rows = {row.split(" ", 1)[0]: row for row in reversed(_page_rows(page)) if row.split(" ", 1)[0] in names}
    rows = {r["row"]: r for r in document["rows"]}
    reported_states = {r.name: r.state.value for r in [*reported.benchmark_rows, *reported.set_rows]}
    assert names == set(rows) == set(blocks) == set(reported_states), table
    for name in names:
        state = _head(frame.loc[name, "status"])
        assert state == frame.loc[name, "state"] == rows[name]["state"] == _head(rows[name]["status"]), (table, name)
        assert reported_states[name] == state, (table, name)
        assert set(STATE_PATTERN.findall(blocks[name])) == {state}, (table, name, blocks[name])
        if not (state == "not measured" and rows[name]["error"]):
            assert state == _rule(rows[name], "ci_low", "ci_high"), (table, name, rows[name]["status"])
        months = frame.loc[name, "months"]  # the JSON writes ∞ as null
        if state != "not measured":
            assert f" {format_months(months)} " in f" {blocks[name]} ", (table, name, blocks[name])
        elif math.isfinite(months):  # a not-measured row prints no doubling time, though its record keeps one
            assert f" {format_months(months)} " not in f" {blocks[name]} ", (table, name, blocks[name])
    # the rows' first table on the page (the rows table) says each row's state once
    for name, row in page_rows.items():
        assert len(set(STATE_PATTERN.findall(row))) <= 1, (table, name, row)

    # the fixed-size cross-check and the rows at one budget: one state per row, JSON and notebook alike
    checks = present.cross_check(measurement).set_index("row")
    for r in document["cross_check"]:
        for key, low, high in (
            ("status", "ci_low", "ci_high"),
            ("fixed_size_status", "fixed_size_ci_low", "fixed_size_ci_high"),
        ):
            state = _head(r[key])
            assert state and state == _head(checks.loc[r["row"], key]), (table, r["row"], key)
            if ":" not in r[key]:
                assert state == _rule(r, low, high), (table, r["row"], key, r[key])
    budget = present.by_benchmark_at_budget(measurement).set_index("row")
    for r in document["at_budget"]:
        state = _head(r["status"])
        assert state == r["state"] == _head(budget.loc[r["row"], "status"]), (table, r["row"])
        if ":" not in r["status"]:  # a state without a reason is the rule's reading of the row's ends
            assert state == _rule(r, "ci_low", "ci_high"), (table, r["row"], r["status"])

    # the frontier rules: each row's own state in the notebook's frame and CSV, as in the JSON's rows
    rules = present.measurement_frame(measurement)
    said = [r["status"] for r in present.document(measurement)["rows"]]
    assert list(rules["status"]) == said and all(_head(s) for s in said), (table, said)

    # one number format on every surface a person reads
    summary = str(present.summary(measurement))
    for surface, text in (("terminal", terminal), ("page", _visible(page)), ("summary", summary)):
        found = [text[max(0, m.start() - 40) : m.end() + 10] for m in OTHER_FORMAT.finditer(text)]
        assert not found, (table, surface, found[:5])
