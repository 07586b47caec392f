"""One vocabulary for every interval the package ships: every status of every stored record — the public table's
headline, rows, sensitivity, references and budget rows, the fixed-size cross-checks, the second table's and Swallow's
records, the fixed-size table and the OLMES rows — starts with one state's words, and that state is the one rule's
reading of the row's ends: measured with both ends, bounded with one, not measured otherwise (or with a reason)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from densing.present.olmes import row_statuses
from tests.conftest import REPO_ROOT

RESULTS = REPO_ROOT / "results"
STATES = ("not measured", "measured", "bounded")  # "not measured" first: it holds "measured"
RECORDS = sorted(
    [
        *(RESULTS / "public").glob("*.json"),
        RESULTS / "openllm_v2" / "trend.json",
        *(RESULTS / "swallow" / "trend").glob("*.json"),
    ]
)


def _head(status: str) -> str:
    return next((s for s in STATES if status.startswith(s)), "")


def _ends(row: dict, low: str, high: str) -> int:
    return sum(isinstance(row.get(k), (int, float)) and math.isfinite(row[k]) and row[k] > 0 for k in (low, high))


def _statuses(value, found: list) -> list:
    """(row, status key) of every object in a record that has an interval's status (a validity check's status, beside
    its threshold, is a check's: reported, passed or failed)."""
    if isinstance(value, dict):
        found += [
            (value, key)
            for key in ("status", "fixed_size_status")
            if isinstance(value.get(key), str) and "threshold" not in value
        ]
        for v in value.values():
            _statuses(v, found)
    elif isinstance(value, list):
        for v in value:
            _statuses(v, found)
    return found


ENDS = {
    "status": [("ci_low", "ci_high"), ("doubling_time_months_ci_low", "doubling_time_months_ci_high")],
    "fixed_size_status": [("fixed_size_ci_low", "fixed_size_ci_high")],
}


@pytest.mark.parametrize("record", RECORDS, ids=lambda p: p.relative_to(RESULTS).as_posix())
def test_every_status_of_a_record_is_one_state_read_from_its_ends(record):
    rows = _statuses(json.loads(record.read_text(encoding="utf-8")), [])
    assert rows
    for row, key in rows:
        head = _head(row[key])
        assert head, (record.name, row[key])
        if key == "status" and isinstance(row.get("state"), str):
            assert row["state"] == head, (record.name, row["state"], row[key])
        ends = next((pair for pair in ENDS[key] if pair[0] in row), None)
        if ends is None or (head == "not measured" and ":" in row[key]):
            continue
        assert _ends(row, *ends) == {"measured": 2, "bounded": 1, "not measured": 0}[head], (record.name, row)


def test_the_fixed_size_and_olmes_tables_speak_the_same_states():
    fixed = pd.read_csv(RESULTS / "fixed_size.csv")
    for r in fixed.to_dict("records"):
        head = _head(r["status"])
        assert head, r["status"]
        finite = sum(math.isfinite(r[k]) for k in ("doubling_time_months_ci_low", "doubling_time_months_ci_high"))
        assert head == "not measured" or finite == {"measured": 2, "bounded": 1}[head], r
    olmes = pd.read_csv(RESULTS / "olmes" / "trend.csv")
    for r, status in zip(olmes.to_dict("records"), row_statuses(olmes.assign(error=olmes["error"].fillna("")))):
        assert _head(status) == (
            "measured"
            if r["low_determined"] and r["high_determined"]
            else "bounded"
            if r["low_determined"] or r["high_determined"]
            else "not measured"
        ), status
