"""At 60, 80 and 120 columns the three wide tables a researcher reads first keep each row's name, number, interval and
status in one block (the first), print every name whole or shortened with ``…`` and listed in full below (never
broken across lines), and end no line in a space."""

from __future__ import annotations

import csv
import io

import pytest

from densing.numbers import format_number

KEY_HEADING = "names shortened above (…), in full:"


_CSV: dict[tuple[str, ...], str] = {}  # a command's csv is the same at every width: run once


def _run(run_cli, monkeypatch, width: int, *args: str) -> str:
    if args in _CSV:
        return _CSV[args]
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run_cli(*args)
    assert code == 0, err
    if "csv" in args:
        _CSV[args] = out
    return out


def _key(out: str) -> dict[str, str]:
    """{shortened: full} from the keys below the tables (a full name on the next line where both did not fit)."""
    key = {}
    for section in out.split(KEY_HEADING)[1:]:
        pending = None
        for line in section.splitlines()[1:]:
            if not line.startswith("  "):
                break
            words = line.split()
            if pending is not None:
                key[pending], pending = words[0], None
            elif len(words) == 2:
                key[words[0]] = words[1]
            else:
                pending = words[0]
    return key


def _first_block_rows(out: str, heading: str) -> dict[str, str]:
    """{name as printed: its line} of the first block of the table under ``heading``: the lines after its rule that
    start a row (a folded line starts with a space)."""
    lines = out[out.index(heading) :].splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("─"))
    rows = {}
    for line in lines[rule + 1 :]:
        if (
            not line.strip()
            or "blocks of columns" in line
            or line == KEY_HEADING
            or line.startswith(("[", "--detail", "Doubling time:", "Densest:"))
        ):  # what follows the table
            break
        if not line.startswith(" "):
            rows[line.split("  ")[0]] = line
    return rows


def _check_lines(out: str, width: int) -> None:
    from rich.cells import cell_len  # display columns: N̂ is two code points in one column

    lines = out.splitlines()
    assert not [line for line in lines if line != line.rstrip()], "a line ends in a space"
    table_lines = [line for line in lines if not line.startswith("    ")]  # a full name alone in a key may be longer
    assert max(cell_len(line) for line in table_lines) <= width, max(table_lines, key=cell_len)


def _name(printed: str, key: dict[str, str]) -> str:
    assert printed in key or "…" not in printed, f"{printed!r} shortened but not in the key"
    return key.get(printed, printed)


@pytest.mark.slow
@pytest.mark.parametrize("width", [60, 80, 120])
def test_trend_by_benchmark_keeps_name_months_interval_and_status_together(run_cli, monkeypatch, width):
    out = _run(run_cli, monkeypatch, width, "trend", "--by", "benchmark", "--n-boot", "40")
    _check_lines(out, width)
    rows = list(
        csv.DictReader(
            io.StringIO(
                _run(run_cli, monkeypatch, width, "trend", "--by", "benchmark", "--n-boot", "40", "--format", "csv")
            )
        )
    )
    assert rows
    key = _key(out)
    printed = {_name(name, key): line for name, line in _first_block_rows(out, "doubling time in months per").items()}
    checked = 0
    for row in rows:
        name = row["row"]
        if row["variant"] != rows[0]["variant"]:  # the csv also has the one-budget rows, under their own heading
            continue
        checked += 1
        words = printed[name].split()
        for field in ("months", "ci_low", "ci_high"):
            wide = row.get(f"{field}_precise") == "False"  # an end wider than 25%: printed as its Monte Carlo range
            shown = (
                f"({format_number(float(row[f'{field}_mc_low']))}–{format_number(float(row[f'{field}_mc_high']))})"
                if wide
                else format_number(float(row[field]))
            )
            assert shown in words, (name, field, printed[name])
        assert row["status"].split(":")[0].split()[0] in words, (name, printed[name])  # the state's first word
    assert checked == len(printed) >= 10


@pytest.mark.parametrize("width", [60, 80, 120])
def test_density_keeps_name_density_interval_and_bound_together(run_cli, monkeypatch, width):
    out = _run(run_cli, monkeypatch, width, "density", "--detail")
    _check_lines(out, width)
    key = _key(out)
    table = list(csv.DictReader(io.StringIO(_run(run_cli, monkeypatch, width, "density", "--format", "csv"))))
    printed = {_name(name, key): line for name, line in _first_block_rows(out, "capacity density").items()}
    assert len(printed) == len(table) > 40
    for row in table:
        line = printed[row["model"]]
        for field in ("density_ci_low", "density_ci_high"):
            value = float(row[field]) if row[field] else float("nan")
            assert format_number(value) in line.split(), (row["model"], field, line)
        # the number the row states by the one bound rule: the density, or the interval's end that is its bound
        from densing.display import BOUND_SIGNS, density_reading

        ends = [float(row[f]) if row[f] else float("nan") for f in ("density_ci_low", "density_ci_high")]
        reading, stated, _ = density_reading(float(row["density"]), row["bound"], *ends, row["near_chance"] == "True")
        assert BOUND_SIGNS.get(reading, "") + format_number(stated) in line, (row["model"], line)


@pytest.mark.parametrize("width", [60, 80, 120])
def test_eval_list_keeps_each_benchmark_and_its_task_whole_or_keyed(run_cli, monkeypatch, width):
    out = _run(run_cli, monkeypatch, width, "eval", "--list")
    _check_lines(out, width)
    key = _key(out)
    table = list(csv.DictReader(io.StringIO(_run(run_cli, monkeypatch, width, "eval", "--list", "--format", "csv"))))
    printed = {_name(name, key): line for name, line in _first_block_rows(out, "densing's benchmarks").items()}
    assert set(printed) == {row["benchmark"] for row in table}
    for row in table:
        task = printed[row["benchmark"]].split()[1]
        assert _name(task, key) == row["score_task"], (row["benchmark"], task)
    if width >= 120:
        assert not key  # wide enough: every name whole


TRACES = "traces/hta"
THREE_FIGURES = [
    ("density",),
    ("trend", "--design", "olmes"),
    ("overlap", "analyze", f"{TRACES}/ddp_2rank"),
    ("overlap", "whatif", f"{TRACES}/ddp_2rank"),
    ("overlap", "compare", f"{TRACES}/diff_control", f"{TRACES}/diff_test"),
]


@pytest.mark.parametrize("command", THREE_FIGURES, ids=" ".join)
def test_numbers_print_to_three_significant_figures(run_cli, monkeypatch, command):
    """Every decimal number a table or sentence prints has at most three significant figures (densing.numbers)."""
    import re

    from conftest import SHARED_DATA

    if command[0] == "overlap":
        if not (SHARED_DATA / TRACES).is_dir():
            pytest.skip(f"public traces not found at {SHARED_DATA / TRACES}")
        command = tuple(str(SHARED_DATA / w) if w.startswith(TRACES) else w for w in command)
    out = _run(run_cli, monkeypatch, 120, *command)
    decimals = re.findall(r"(?<![\w.])\d+\.\d+(?![\d.])", out)
    assert decimals, "no decimal number printed"
    too_many = [d for d in decimals if len(d.replace(".", "").lstrip("0")) > 3]
    assert not too_many, too_many[:5]


@pytest.mark.slow
@pytest.mark.parametrize("width", [60, 80, 120])
def test_trend_keeps_each_rule_and_reference_with_its_months_and_interval(run_cli, monkeypatch, width):
    """The rules' table (months and the slope A, each with its interval) and the references' (each one's own months
    with its interval) keep the row's name, number and interval in the first block; no name is broken."""
    import json

    out = _run(run_cli, monkeypatch, width, "trend", "--n-boot", "40", "--detail")
    _check_lines(out, width)
    document = json.loads(_run(run_cli, monkeypatch, width, "trend", "--n-boot", "40", "--format", "json"))
    key = _key(out)
    rules = {_name(n, key): line for n, line in _first_block_rows(out, "doubling time in months and slope A").items()}
    for row in document["rows"]:
        words = rules[row["rule"]].split()
        for field in ("doubling_time_months", "doubling_time_months_ci_low", "doubling_time_months_ci_high"):
            shown = {format_number(row[field])} if row[field] is not None else {"—", "∞"}  # JSON's null: NaN or ∞
            end = field.rpartition("_")[2] if field.endswith(("_low", "_high")) else ""
            if end and row[f"{end}_determined"] and not row[f"{end}_precise"]:  # printed as its Monte Carlo range
                shown = {
                    f"({format_number(row[f'months_{end}_mc_low'])}–{format_number(row[f'months_{end}_mc_high'])})"
                }
            assert shown & set(words), (row["rule"], field)
    assert "A 95%" in out  # the slope's interval is printed
    printed = {_name(n, key): line for n, line in _first_block_rows(out, "the headline's references").items()}
    references = document["references"] if "references" in document else document["rows"][0]["references"]
    assert len(printed) == len(references) >= 1
    for row in references:
        words = printed[row["reference"]].split()
        for field in ("months", "ci_low", "ci_high"):
            shown = {format_number(row[field])} if row[field] is not None else {"—", "∞"}
            assert shown & set(words), (row["reference"], field)
