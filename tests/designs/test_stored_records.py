"""Stored records read with a guard (densing.io.read_stored_record): a missing, truncated or foreign record is named
in one line and its section left out, while everything else the command computes is printed."""

from __future__ import annotations

import json

import pytest

from densing.io import read_stored_record
from densing.report.designs import LeftOut

GOOD = {"rows": [{"row": "v2_native", "months": 5.0}], "n_models": 3, "verdict": "v"}


@pytest.mark.parametrize(
    "text, said",
    [
        (json.dumps(GOOD)[:40], "cannot be read"),
        ("{}", "is not a record densing wrote"),
        ('{"rows": []}', "is not a record densing wrote"),
        ("[1, 2]", "cannot be read"),
        ('{"rows": [1], "n_models": 1, "verdict": ""}', "is not a record densing wrote"),
        ("\xff\xfe", "cannot be read"),
    ],
)
def test_a_damaged_record_is_named_in_one_line(tmp_path, text, said):
    path = tmp_path / "trend.json"
    path.write_text(text, encoding="latin-1")
    record, note = read_stored_record(path, "make it", keys=("rows", "n_models", "verdict"))
    assert record is None and said in note and "make it" in note and "\n" not in note


def test_a_missing_and_a_good_record(tmp_path):
    assert read_stored_record(tmp_path / "none.json", "make it")[1].endswith("its section is left out.")
    path = tmp_path / "trend.json"
    path.write_text(json.dumps(GOOD), encoding="utf-8")
    assert read_stored_record(path, "make it", keys=("rows", "n_models", "verdict")) == (GOOD, "")


def test_plain_trend_names_a_truncated_second_table_record_and_prints_its_headline(tmp_path, monkeypatch):
    """The terminal line beside the headline, from a truncated record: the note, not a traceback."""
    from densing.cli.designs.openllm_v2 import line as terminal_line
    from densing.designs.openllm_v2 import record
    from densing.report.designs import openllm_v2 as report

    path = tmp_path / "trend.json"
    path.write_text(record.RECORD.read_text(encoding="utf-8")[:3000], encoding="utf-8")
    monkeypatch.setattr(record, "RECORD", path)
    line = terminal_line()
    assert "cannot be read" in line and "left out" in line
    left = report.section(None, None, 3.3)
    assert isinstance(left, LeftOut) and report.render(left).intro == left.note


def test_the_swallow_section_names_a_foreign_record(tmp_path, monkeypatch):
    from densing.report.designs import swallow as report

    (tmp_path / "swallow.json").write_text('{"rows": []}', encoding="utf-8")
    monkeypatch.setattr(report, "PROTOCOL_RECORDS", tmp_path)
    left = report.section(None, None, 3.3)
    assert isinstance(left, LeftOut) and "swallow.json is not a record densing wrote" in left.note
