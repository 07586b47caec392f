"""The one renderer: rich tables print user data literally and never wrap numbers; JSON and CSV."""
from __future__ import annotations

import io
import json
import math

import pandas as pd
import pytest

from densing.cli.output import print_frame, render_table


def table_text(frame: pd.DataFrame, width: int) -> str:
    buffer = io.StringIO()
    render_table(frame, title="[bold]title[/bold]", width=width, file=buffer)
    return buffer.getvalue()


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame({
        "model": ["org/[/x]model", "[bold red]m[/bold red]", "a-very-long-model-name-that-goes-on-and-on-and-on-forever"],
        "params": [7e9, 123456789.0, math.inf],
        "density": [0.123456789, -1234567.0, math.nan],
        "release_date": pd.to_datetime(["2024-01-02", "2023-05-06", "2022-07-08"]),
    })


@pytest.mark.parametrize("width", [60, 80, 200])
def test_markup_in_names_and_titles_prints_literally(frame, width):
    text = table_text(frame, width)
    assert "org/[/x]model" in text
    assert "[bold red]m[/bold red]" in text
    assert "[bold]title[/bold]" in text


@pytest.mark.parametrize("width", [20, 40, 80])
def test_numbers_never_wrap(frame, width):
    text = table_text(frame, width)
    for number in ("7e+09", "1.235e+08", "0.1235", "-1.235e+06", "∞", "—"):
        assert number in text, number
    # a text column folds rather than widening the table without bound
    assert "a-very-long-model-name-that-goes-on-and-on-and-on-forever" not in text


def test_json_nulls_and_dates(frame, capsys):
    print_frame(frame, "json")
    rows = json.loads(capsys.readouterr().out)
    assert rows[0] == {"model": "org/[/x]model", "params": 7e9, "density": 0.123456789, "release_date": "2024-01-02"}
    assert rows[2]["params"] is None and rows[2]["density"] is None


def test_csv(frame, capsys):
    print_frame(frame, "csv")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "model,params,density,release_date"
    assert lines[1] == "org/[/x]model,7000000000.0,0.123456789,2024-01-02"


def test_table_through_stdout(frame, capsys):
    print_frame(frame, "table", title="t")
    out = capsys.readouterr().out
    assert "[bold red]m[/bold red]" in out


def _wide_frame(columns: int) -> pd.DataFrame:
    return pd.DataFrame({
        "model": ["EleutherAI/pythia-6.9b-deduped", "org/m"],
        "benchmark": ["arc_challenge", "mmlu"],
        **{f"metric_number_{i}": [1.234567e8 * (i + 1), -0.5] for i in range(columns)},
        "censored": ["beyond_data_limit", None],
    })


@pytest.mark.parametrize("width", [60, 80, 100])
@pytest.mark.parametrize("columns", [1, 4, 12])
def test_tables_fit_the_width_in_blocks(width, columns):
    """Every line fits the width; each block repeats the row's name; every number appears whole."""
    frame = _wide_frame(columns)
    text = table_text(frame, width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    for i in range(columns):
        assert text.count(f"{1.234567e8 * (i + 1):.4g}") == 1, i
    blocks = text.count("arc_challenge")  # each block repeats the row's name
    assert text.count("-0.5") == columns  # every number once, whole
    assert blocks >= 1 and text.count("continued (") == blocks - 1
    if blocks > 1:
        assert "--format csv or json" in text and f"continued (2 of {blocks})" in text
    if columns == 12 and width <= 100:
        assert blocks > 1


def test_header_lines_break_after_underscores():
    from densing.cli.output import header_lines

    assert header_lines("density_ci_low", 8) == "density_\nci_low"
    assert header_lines("params", 3) == "params"
    assert header_lines("a_b_c", 10) == "a_b_c"


def test_booleans_print_as_words(capsys):
    render_table(pd.DataFrame({"check": ["saturation"], "passed": [False]}), width=80)
    out = capsys.readouterr().out
    assert "no" in out and "False" not in out
