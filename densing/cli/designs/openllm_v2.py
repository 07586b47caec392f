"""The Open LLM Leaderboard v2 table's line beside the public table's headline at the terminal (:func:`line`), from its
stored record (:mod:`densing.designs.openllm_v2.record`): read without the report, so plain ``densing trend`` loads no
page to print it."""

from __future__ import annotations

from densing.cli.designs import PRINTERS, Printer
from densing.designs.openllm_v2 import record as stored
from densing.numbers import format_months


def line() -> str | None:
    """The declared row beside the public table's headline at the terminal, from the stored record (None: no row;
    a record that cannot be read: why, in one line)."""
    from densing.present.verdict import record_phrase

    record, note = stored.read()
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


PRINTERS.register("openllm_v2", Printer(line=line))
