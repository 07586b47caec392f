"""The Open LLM Leaderboard v2 table's stored record (``densing trend --table openllm_v2 --by benchmark``'s
measurement, written by :data:`RECORD_COMMAND`) and its one line beside the public table's headline at the terminal
(:func:`line`): read without the report, so plain ``densing trend`` loads no page to print it."""

from __future__ import annotations

from densing import paths
from densing.io import read_stored_record
from densing.numbers import format_months
from densing.present.verdict import record_phrase

RECORD = paths.RESULTS / "openllm_v2" / "trend.json"
RECORD_COMMAND = "python tools/build_tables.py openllm-v2-trend --out results/openllm_v2/trend.json"
_KEYS = ("rows", "n_models", "verdict")
#: What each row of the record holds for the report: its name, its state and its references as a list of names.
_ROW_KEYS = ("row", "state", "reference_names")


def read() -> tuple[dict | None, str]:
    """(the stored record, "") or (None, why it is left out in one line: missing, damaged or foreign)."""
    return read_stored_record(RECORD, RECORD_COMMAND, keys=_KEYS, row_keys=_ROW_KEYS)


def line() -> str | None:
    """The declared row beside the public table's headline at the terminal, from the stored record (None: no row)."""
    record, note = read()
    if record is None:
        return note
    row = next((r for r in record["rows"] if r["row"] == "v2_native"), None)
    if row is None or not isinstance(row.get("months"), (int, float)):
        return None
    declared = (record.get("forecast") or {}).get("declared")
    forecast = (
        f"; at the declared cutoff {declared['cutoff']} the forecast check says {declared['verdict']}"
        if declared
        else ""
    )
    return (
        f"Through 2025-03 on a second table (the Open LLM Leaderboard v2's {record['n_models']} official base "
        f"models; MMLU-Pro + BBH + MATH-hard, declared before its data): {record_phrase(row)}; without "
        f"{row['most_influential_family']} {format_months(row['months_without_it'])} months{forecast} (densing "
        f"trend --table openllm_v2 --by benchmark)."
    )
