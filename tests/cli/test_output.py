"""The one renderer: rich tables print user data literally and never wrap numbers; JSON and CSV."""

from __future__ import annotations

import io
import json
import math

import pandas as pd
import pytest

from densing.cli.output import print_frame, render_table
from densing.numbers import format_number


def table_text(frame: pd.DataFrame, width: int) -> str:
    buffer = io.StringIO()
    render_table(frame, title="[bold]title[/bold]", width=width, file=buffer)
    return buffer.getvalue()


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": [
                "org/[/x]model",
                "[bold red]m[/bold red]",
                "a-very-long-model-name-that-goes-on-and-on-and-on-forever",
            ],
            "params": [7e9, 123456789.0, math.inf],
            "density": [0.123456789, -1234567.0, math.nan],
            "release_date": pd.to_datetime(["2024-01-02", "2023-05-06", "2022-07-08"]),
        }
    )


@pytest.mark.parametrize("width", [60, 80, 200])
def test_markup_in_names_and_titles_prints_literally(frame, width):
    text = table_text(frame, width)
    assert "org/[/x]model" in text
    assert "[bold red]m[/bold red]" in text
    assert "[bold]title[/bold]" in text


@pytest.mark.parametrize("width", [20, 40, 80])
def test_numbers_never_wrap(frame, width):
    text = table_text(frame, width)
    for number in ("7B", "123M", "0.123", "−1.23×10⁶", "∞", "—"):
        assert number in text, number
    # a name is shortened in the table rather than widening it without bound, and given in full below it
    table, _, key = text.partition("names shortened above")
    if width < 60:
        assert "a-very-long-model-name-that-goes-on-and-on-and-on-forever" not in table
        assert "a-very-long-model-name-that-goes-on-and-on-and-on-forever" in key


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
    return pd.DataFrame(
        {
            "model": ["EleutherAI/pythia-6.9b-deduped", "org/m"],
            "benchmark": ["arc_challenge", "mmlu"],
            **{f"metric_number_{i}": [1.234567e8 * (i + 1), -0.5] for i in range(columns)},
            "censored": ["beyond_data_limit", None],
        }
    )


@pytest.mark.parametrize("width", [60, 80, 100])
@pytest.mark.parametrize("columns", [1, 4, 12])
def test_tables_fit_the_width_in_blocks(width, columns):
    """Every line fits the width; each block repeats the row's name; every number appears whole."""
    frame = _wide_frame(columns)
    text = table_text(frame, width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    for i in range(columns):
        assert text.count(format_number(1.234567e8 * (i + 1))) == 1, i
    blocks = text.count("arc_challenge")  # each block repeats the row's name
    assert text.count("−0.5") == columns  # every number once, whole
    assert blocks >= 1 and text.count("continued (") == blocks - 1
    if blocks > 1:
        assert "--format csv or json" in text and f"continued (2 of {blocks})" in text
    if columns == 12 and width <= 100:
        assert blocks > 1


def test_header_lines_break_between_words():
    from densing.cli.layout import header_lines

    assert header_lines("95% CI low", 6) == "95% CI\nlow"
    assert header_lines("N (params)", 3) == "N\n(params)"
    assert header_lines("ρ 95% high", 20) == "ρ 95% high"


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_headers_are_words_never_broken_inside(width):
    """Every header line is whole words of the field's display name: no underscore, no word cut."""
    frame = pd.DataFrame(
        {
            "rule": ["quantile", "all"],
            "months": [4.86, 1.75],
            "ci_low": [2.3, 1.1],
            "ci_high": [8.3, 2.7],
            "n_models": [106, 106],
            "share_fit": [0.44, 0.41],
            "exposed_comm_us": [7.02e4, 6.5e4],
        }
    )
    text = table_text(frame, width)
    assert "_" not in text
    words = {"rule", "months", "95%", "CI", "low", "high", "models", "fit", "share", "(%)", "exposed", "comm", "(ms)"}
    header = text.split("─")[0].splitlines()[1:]  # the lines above the rule, after the title
    for line in header:
        assert set(line.split()) <= words, line


def test_empty_columns_are_left_out_unless_wide():
    frame = pd.DataFrame({"model": ["a", "b"], "density": [0.5, 2.0], "censored": [None, None], "note": ["", ""]})
    narrow, wide = io.StringIO(), io.StringIO()
    render_table(frame, width=80, file=narrow)
    render_table(frame, width=80, file=wide, wide=True)
    assert "censored" not in narrow.getvalue() and "note" not in narrow.getvalue()
    assert "censored" in wide.getvalue() and "note" in wide.getvalue()


def test_one_row_prints_as_one_key_value_block_at_80_columns():
    from densing.overlap.metrics import RANK_COLUMNS

    row = {c: 12345.678 for c in RANK_COLUMNS}
    row.update(rank=3, world_size=8, kernel_count=7875, comm_bytes=math.nan)
    text = table_text(pd.DataFrame([row]), 80)
    assert "continued" not in text and max(len(line) for line in text.splitlines()) <= 80
    assert "field" in text and "kernel span (ms)" in text and "12.3" in text  # µs shown in ms
    assert "comm bytes" not in text  # nothing in it


def test_counts_percentages_and_durations_read_in_words():
    frame = pd.DataFrame(
        {
            "model": ["m", "n"],
            "params": [1.415e9, 7e7],
            "d0": [1.5e13, 1e12],
            "held_out_error": [0.0712, 0.5],
            "idle_us": [4.356e5, 1.2e5],
        }
    )
    text = table_text(frame, 120)
    for shown in (
        "1.42B",
        "70M",
        "15T",
        "1T",
        "7.12",
        "50",
        "436",
        "120",
        "N (params)",
        "D0 (tokens)",
        "held-out error (%)",
        "idle (ms)",
    ):
        assert shown in text, shown
    assert "e+" not in text and "e-0" not in text


def test_booleans_print_as_words(capsys):
    render_table(pd.DataFrame({"check": ["saturation"], "passed": [False]}), width=80)
    out = capsys.readouterr().out
    assert "no" in out and "False" not in out


def _characters(text: str) -> list[str]:
    """The printed characters that carry content (no spaces, no rules), sorted: folding moves them, never drops them."""
    return sorted(ch for ch in text if not ch.isspace() and ch != "─")


@pytest.mark.parametrize("width", [60, 80, 120])
def test_text_columns_fold_and_names_are_shortened_without_losing_a_character(width):
    """Three long text columns (``densing eval --list``'s shape): every line of the table fits; a name (the two
    leading text columns name the row) is never broken: it prints whole or shortened with ``…``, its full name in the
    key below; other text folds, and every character of it is printed."""
    frame = pd.DataFrame(
        {
            "benchmark": ["leaderboard_math_hard", "olmo_arc_challenge_mc_5shot", "mmlu"],
            "score task": ["leaderboard_math_hard", "densing_olmes_arc_challenge", "mmlu"],
            "loss task": ["densing_leaderboard_math_hard_loss", "", "densing_minerva_math_loss"],
        }
    )
    buffer = io.StringIO()
    render_table(frame, width=width, file=buffer)
    table, _, key = buffer.getvalue().partition("names shortened above (…), in full:")
    assert max(len(line) for line in table.splitlines()) <= width
    shortened = dict(line.split() for line in key.splitlines() if line.strip())
    names = [line.split()[0] for line in table.splitlines()[2:] if line.strip() and not line.startswith(" ")]
    assert len(names) == 3 and all(
        n in frame["benchmark"].tolist() or shortened[n] in frame["benchmark"].tolist() for n in names
    ), names
    assert all(full in frame.to_numpy().ravel() and "…" in short for short, full in shortened.items())
    lines = [line for line in table.splitlines() if line.strip()]
    rule = next(i for i, line in enumerate(lines) if line.startswith("─"))
    start = max(line.find("loss") for line in lines[:rule])  # the column after the names
    rest = "".join(line[start:] for line in lines[rule + 1 :]) + "".join(line[start:] for line in lines[:rule])
    others = "loss task" + "".join(frame["loss task"].astype(str))
    assert _characters(rest) == _characters(others)


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize(
    "command",
    [
        ("eval", "--list"),
        ("trend", "--n-boot", "40"),
        ("trend", "--by", "benchmark", "--n-boot", "40"),
        ("density", "--fit", "llama-3.1_mmlu", "--targets", "results/public_models.csv"),
    ],
)
def test_every_table_printing_command_fits_its_width(run_cli, monkeypatch, width, command):
    from rich.cells import cell_len  # display columns: N̂ is two code points in one column

    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run_cli(*command)
    assert code == 0, err
    lines = out.splitlines()
    assert lines and max(cell_len(line) for line in lines) <= width, max(lines, key=cell_len)
