"""The Open LLM Leaderboard v2 table's stored record (``densing trend --table openllm_v2 --by benchmark``'s
measurement, written by :data:`RECORD_COMMAND`), read by the report's section and by the line plain ``densing trend``
prints beside the public table's headline (:mod:`densing.cli.designs.openllm_v2`)."""

from __future__ import annotations

from densing import paths
from densing.io import read_stored_record

RECORD = paths.RESULTS / "openllm_v2" / "trend.json"
RECORD_COMMAND = "python tools/build_tables.py openllm-v2-trend --out results/openllm_v2/trend.json"
_KEYS = ("rows", "n_models", "verdict")
#: What each row of the record holds for the report: its name, its state and its references as a list of names.
_ROW_KEYS = ("row", "state", "reference_names")


def read() -> tuple[dict | None, str]:
    """(the stored record, "") or (None, why it is left out in one line: missing, damaged or foreign)."""
    return read_stored_record(RECORD, RECORD_COMMAND, keys=_KEYS, row_keys=_ROW_KEYS)
