"""The Swallow tables' stored records (``results/swallow/trend``: :mod:`densing.trend.protocol`'s measurements, written
by :data:`PROTOCOL_COMMAND`), one file per :data:`VARIANTS`, read by :func:`read_records_noted`."""

from __future__ import annotations

from pathlib import Path

from densing import paths
from densing.io import read_stored_record

#: The Swallow leaderboard's stored rows (:mod:`densing.trend.protocol`'s records) and the command that makes them.
PROTOCOL_RECORDS = paths.RESULTS / "swallow" / "trend"
PROTOCOL_COMMAND = "python tools/build_tables.py protocol --out results/swallow/trend"
#: The records the report shows: (file stem, table, without continual pre-training).
VARIANTS: tuple[tuple[str, str, bool], ...] = (
    ("swallow", "swallow", False),
    ("swallow_without_continual", "swallow", True),
    ("swallow_2026", "swallow_2026", False),
)


def read_records_noted(folder: str | Path) -> tuple[dict[str, dict], dict[str, str]]:
    """(the readable records by file stem, why each other one is left out in one line): :func:`read_stored_record`."""
    found = {
        stem: read_stored_record(
            Path(folder) / f"{stem}.json",
            PROTOCOL_COMMAND,
            keys=("rows", "verdict", "continual_pretraining"),
            row_keys=("row", "state"),
        )
        for stem, _, _ in VARIANTS
    }
    return (
        {stem: record for stem, (record, _) in found.items() if record is not None},
        {stem: note for stem, (record, note) in found.items() if record is None},
    )
