"""At 80×40 the default output of the commands a researcher runs first fits one screen: the verdict first, one compact
table, the notes counted, and a last line that repeats the answer; ``--detail`` prints everything; ``--format json``
does not depend on it."""

from __future__ import annotations

import json

import pytest

from densing.cli.layout import closing
from densing.numbers import format_number
from densing.present.words import short_statuses


def _run(run_cli, monkeypatch, *args: str) -> str:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "40")
    code, out, err = run_cli(*args)
    assert code == 0, err
    return out


@pytest.mark.slow
def test_trend_fits_one_screen_and_ends_with_the_doubling_time(run_cli, monkeypatch):
    out = _run(run_cli, monkeypatch, "trend", "--n-boot", "40")
    lines = out.rstrip("\n").split("\n")
    assert len(lines) <= 40, len(lines)
    assert max(len(line) for line in lines) <= 80
    document = json.loads(_run(run_cli, monkeypatch, "trend", "--n-boot", "40", "--format", "json"))
    head = next(row for row in document["rows"] if row["headline"])
    assert lines[-1].startswith("Doubling time: ")
    assert f"{format_number(head['doubling_time_months'])} months" in lines[-1], lines[-1]
    assert document["verdict"].split()[0] == lines[0].split()[0]  # the verdict first
    assert "--detail" in out
    detail = _run(run_cli, monkeypatch, "trend", "--n-boot", "40", "--detail")
    assert len(detail.splitlines()) > 60 and "validity checks" in detail and "sensitivity" in detail
    assert detail.rstrip("\n").split("\n")[-1] == lines[-1]
    assert json.loads(_run(run_cli, monkeypatch, "trend", "--n-boot", "40", "--format", "json", "--detail")) == document


@pytest.mark.slow
def test_trend_by_benchmark_fits_one_screen_with_its_reasons_once(run_cli, monkeypatch):
    out = _run(run_cli, monkeypatch, "trend", "--by", "benchmark", "--n-boot", "40")
    lines = out.rstrip("\n").split("\n")
    assert len(lines) <= 40, len(lines)
    assert lines[-1].startswith("Doubling time: ")
    reasons = [line for line in lines if line.startswith("[1] ")]
    assert len(reasons) == 1  # each reason once, below the table
    assert "at one budget," not in out  # the repeated notes are counted, not listed
    assert "at one budget," in _run(run_cli, monkeypatch, "trend", "--by", "benchmark", "--n-boot", "40", "--detail")


def test_olmes_design_has_a_status_column(run_cli, monkeypatch):
    out = _run(run_cli, monkeypatch, "trend", "--design", "olmes", "--n-boot", "40")
    lines = out.rstrip("\n").split("\n")
    assert len(lines) <= 40
    header = next(line for line in lines if line.startswith("benchmark"))
    assert header.split()[-1] == "status"
    rows = [line for line in lines if line.startswith("olmes_")]
    assert len(rows) == 4 and all("measured" in row for row in rows)
    assert lines[-1].startswith("OLMES")


def test_density_fits_one_screen_and_detail_lists_every_model(run_cli, monkeypatch):
    out = _run(run_cli, monkeypatch, "density")
    lines = out.rstrip("\n").split("\n")
    assert len(lines) <= 40, len(lines)
    assert lines[-1].startswith("Densest: ")
    table = json.loads(_run(run_cli, monkeypatch, "density", "--format", "json"))
    assert table[0]["model"] in lines[-1]
    assert f"{len(table) - 25} more models" in out
    assert len(_run(run_cli, monkeypatch, "density", "--detail").splitlines()) > len(table)


@pytest.mark.slow
def test_report_prints_at_most_15_lines_ending_with_the_page(run_cli, monkeypatch, tmp_path):
    page = tmp_path / "report.html"
    out = _run(run_cli, monkeypatch, "report", "--out", str(page), "--n-boot", "40")
    lines = out.rstrip("\n").split("\n")
    assert len(lines) <= 15, len(lines)
    assert lines[-1] == f"open it in a browser: {page.resolve().as_uri()}"
    assert lines[-2].startswith(f"wrote {page} (")


def test_short_statuses_number_each_reason_once():
    cells, reasons = short_statuses(
        [("measured", ()), ("not measured", ("a", "b")), ("not measured", ("b",)), ("", ())]
    )
    assert cells == ["measured", "not measured [1,2]", "not measured [2]", ""]
    assert reasons == ["[1] a", "[2] b"]


def test_closing_drops_trailing_clauses_to_fit():
    assert closing(["x" * 70, "y" * 20], width=80) == "x" * 70 + "."
    assert closing(["answer", "beside"], width=80) == "answer; beside."
    assert closing(["z" * 100], width=80) == "z" * 100 + "."  # the answer itself is never dropped


def test_overlap_analyze_leads_with_the_overlap_percentage(run_cli, monkeypatch):
    """The number ``overlap analyze`` exists for is in its first block, beside the rank, at 80 columns."""
    from conftest import SHARED_DATA

    traces = SHARED_DATA / "traces" / "hta" / "sampled_128rank"
    if not traces.is_dir():
        pytest.skip(f"public traces not found at {traces}")
    out = _run(run_cli, monkeypatch, "overlap", "analyze", str(traces))
    first = out.split("─")[0]  # the first block's header, above its rule
    assert "comm-comp" in first and "exposed" in first
    assert max(len(line) for line in out.splitlines()) <= 80
