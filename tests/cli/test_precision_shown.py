"""Every printed end with its precision, over the shipped rows: in ``densing trend --by benchmark`` on the public, Open
LLM Leaderboard v2 and Swallow tables, at the terminal and in JSON, no determined end is printed as a single number
while its 95% Monte Carlo range spans more than END_STABILITY of it; such an end is printed as that range, and its
row drew up to the precision cap first."""

from __future__ import annotations

import json
import math
import re

import pytest

from densing.constants import END_STABILITY, PRECISION_DRAWS_CAP
from densing.numbers import format_months

TABLES = {"public": (), "openllm_v2": ("--table", "openllm_v2"), "swallow": ("--table", "swallow")}


def _run(run_cli, monkeypatch, *args: str) -> str:
    monkeypatch.setenv("COLUMNS", "1000")  # one line a row, every sentence on one line
    code, out, err = run_cli(*args)
    assert code == 0, err
    return out


def _printed(value) -> str:
    return "∞" if value is None else format_months(value)


def _range(row: dict, end: str) -> str:
    return f"({format_months(row[f'ci_{end}_mc_low'])}–{format_months(row[f'ci_{end}_mc_high'])})"


def _cells(out: str, rows: list[dict], first: int = 4) -> dict[str, list[str]]:
    """Each row's first cells at the terminal (row, months, 95% CI low, 95% CI high) from the first table's lines."""
    names = {row["row"] for row in rows}
    found: dict[str, list[str]] = {}
    for line in out.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if cells and cells[0] in names and cells[0] not in found and len(cells) >= first:
            found[cells[0]] = cells[:first]
    assert set(found) == names, names - set(found)
    return found


def _check_json(rows: list[dict]) -> list[tuple[str, str]]:
    """Each determined end's flag against its printed numbers → the (row, end) pairs printed as ranges."""
    wide = []
    for row in rows:
        for end in ("low", "high"):
            flag = row[f"ci_{end}_precise"]
            if not row[f"{end}_determined"]:
                assert flag is None, (row["row"], end)
                continue
            low, high, value = row[f"ci_{end}_mc_low"], row[f"ci_{end}_mc_high"], row[f"ci_{end}"]
            assert all(isinstance(v, float) and math.isfinite(v) for v in (low, high, value)), (row["row"], end)
            assert low <= value <= high, (row["row"], end)
            assert flag is ((high - low) <= END_STABILITY * value), (row["row"], end)  # the rule, from the numbers
            if not flag:
                assert row["n_draws"] >= PRECISION_DRAWS_CAP, (row["row"], end)  # wide at its cap, not before it
                wide.append((row["row"], end))
    return wide


@pytest.mark.slow
@pytest.mark.parametrize("table", sorted(TABLES))
def test_no_end_is_a_single_number_while_its_monte_carlo_range_is_wide(run_cli, monkeypatch, table):
    args = ("trend", *TABLES[table], "--by", "benchmark")
    document = json.loads(_run(run_cli, monkeypatch, *args, "--format", "json"))
    rows = document["rows"]
    wide = _check_json(rows)
    out = _run(run_cli, monkeypatch, *args)
    cells = _cells(out, rows)
    for row in rows:
        for end, column in (("low", 2), ("high", 3)):
            printed = cells[row["row"]][column]
            if (row["row"], end) in wide:
                assert printed == _range(row, end), (row["row"], end, printed)
            elif row["months"] is not None and row[f"{end}_determined"]:
                assert printed == _printed(row[f"ci_{end}"]), (row["row"], end, printed)
    if wide:  # the legend says what an end in parentheses is
        assert "an end in parentheses (a–b) is its 95% Monte Carlo range" in out
    for row in rows:  # the verdict and the closing line print the headline's ends as the table does
        if row["label"] in document["verdict"]:
            for end in ("low", "high"):
                if (row["row"], end) in wide:
                    assert _range(row, end) in document["verdict"], (row["row"], end)
                    assert _range(row, end) in out.rstrip("\n").splitlines()[-1], (row["row"], end)
                elif row[f"{end}_determined"]:
                    assert _printed(row[f"ci_{end}"]) in document["verdict"], (row["row"], end)


@pytest.mark.slow
def test_the_detail_tables_print_the_same_ends(run_cli, monkeypatch):
    """``--detail``'s table of every row and its rows at one budget: each end as the screen's table prints it."""
    document = json.loads(_run(run_cli, monkeypatch, "trend", "--by", "benchmark", "--format", "json"))
    rows, budget = document["rows"], document["at_budget"]
    wide = _check_json(rows) + [(f"budget:{name}", end) for name, end in _check_json(budget)]
    out = _run(run_cli, monkeypatch, "trend", "--by", "benchmark", "--detail")
    first, _, rest = out.partition("budget sensitivity")
    for section, records, prefix in ((first, rows, ""), (rest, budget, "budget:")):
        cells = _cells(section, records)
        for row in records:
            for end, column in (("low", 2), ("high", 3)):
                if (prefix + row["row"], end) in wide:
                    assert cells[row["row"]][column] == _range(row, end), (prefix + row["row"], end)
                elif row["months"] is not None and row[f"{end}_determined"]:
                    assert cells[row["row"]][column] == _printed(row[f"ci_{end}"]), (prefix + row["row"], end)
