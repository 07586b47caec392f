"""The terminal tables of ``densing trend``, ``densing density`` and ``densing overlap analyze``
print no zero for a non-zero value and no ``e+`` / ``e-0`` (issue 39's done-when).

Every table goes through :func:`densing.cli.output.columns_of`; the test records each frame with
the cells it becomes and compares them, and scans the printed text at 80 and 120 columns.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from densing.cli import output
from densing.paths import SHARED_DATA

ZEROS = {"0", "0.0", "0.00", "-0", "0%"}
EXPONENT = re.compile(r"\de\+|\de-0")
SHARED_TRACE = SHARED_DATA / "traces" / "hta" / "diff_control"  # one rank: the one-row form


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


@pytest.fixture
def recorded(monkeypatch):
    seen = []
    original = output.columns_of

    def spy(frame, **options):
        columns = original(frame, **options)
        seen.append((frame.copy(), columns))
        return columns

    monkeypatch.setattr(output, "columns_of", spy)
    return seen


def _trace_dir(tmp_path) -> Path:
    if SHARED_TRACE.is_dir():
        return SHARED_TRACE
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "overlap"))
    from overlap_tracegen import hand_trace, write_trace

    write_trace(tmp_path / "rank-0.json", hand_trace())
    return tmp_path


COMMANDS = {
    "trend": ["trend", "--n-boot", "40", "--detail"],
    "density": ["density", "--detail"],
    "overlap analyze": ["overlap", "analyze", None],
}


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_tables_print_no_zero_for_a_non_zero_value_and_no_e_plus(
    run_cli, recorded, monkeypatch, tmp_path, command, columns
):
    monkeypatch.setenv("COLUMNS", str(columns))
    args = [a if a is not None else str(_trace_dir(tmp_path)) for a in COMMANDS[command]]
    code, out, err = run_cli(*args)
    assert code == 0, err
    assert recorded, "no table was printed"
    wrong = []
    for frame, shown in recorded:
        for c in shown:  # a column left out (nothing in it) has no cells to check
            name = c.field
            for value, text in zip(frame[name].tolist(), c.cells):
                if text.strip() in ZEROS and _is_nonzero_number(value):
                    wrong.append(f"{name}: {value!r} printed {text!r}")
                if EXPONENT.search(text):
                    wrong.append(f"{name}: {value!r} printed {text!r}")
    assert not wrong, wrong[:20]
    assert not EXPONENT.findall(out), re.findall(r".{20}\de[+-].{5}", out)[:5]
    assert "_\n" not in out  # no header broken after an underscore
    from rich.cells import cell_len  # the terminal's width is in cells: N̂'s combining hat takes none

    assert max(cell_len(line) for line in out.splitlines() if not line.startswith("note:")) <= columns


def test_one_rank_of_overlap_analyze_is_one_block_at_80_columns(run_cli, monkeypatch, tmp_path):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run_cli("overlap", "analyze", str(_trace_dir(tmp_path)))
    assert code == 0, err
    assert "continued" not in out and "blocks of columns" not in out
    assert "exposed comm (" in out and "comm-comp overlap (%)" in out


def test_wide_keeps_the_empty_columns(run_cli, monkeypatch, tmp_path):
    monkeypatch.setenv("COLUMNS", "200")
    trace = str(_trace_dir(tmp_path))
    _, narrow, _ = run_cli("overlap", "analyze", trace)
    _, wide, _ = run_cli("overlap", "analyze", trace, "--wide")
    if "comm bytes" not in narrow:  # a trace without byte counts: the column is there with --wide only
        assert "comm bytes" in wide
    assert len(wide.splitlines()) >= len(narrow.splitlines())
