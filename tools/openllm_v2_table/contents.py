"""The whole Open LLM Leaderboard v2 as a user's target table: the public table's models, then every other model of
the leaderboard's contents file (fine-tunes and merges included, ``family`` empty: each its own family), for
``densing trend --results FILE`` and ``densing report --results FILE`` at the leaderboard's size.

The contents file is ``csv/huggingface_v2.csv`` of ``fboulnois/llm-leaderboard-csv`` at the commit
:data:`tools.openllm_v2_table.build.SOURCE_COMMIT` (checked by its SHA-256, 4,576 rows; it is not shipped: ``git show
COMMIT:csv/huggingface_v2.csv`` in a clone of that repository writes it). A model the public table holds keeps the
public table's row (its family, token count and release date are what the references need: with every family empty
no family can be a reference). Every other model gives one row: its kept precision (``bfloat16``, else ``float16``,
else the first), ``params`` from ``metadata_params_billions``, ``release_date`` its upload date (empty on the Hub's
migration day), the six v2 scores. A row densing cannot read — a parameter count missing or not above zero — is not
written; it is listed, with its reason, in the refusals file beside the table (never a silent drop).

    python tools/build_tables.py openllm-v2-contents --raw huggingface_v2.csv --out leaderboard_v2_contents.csv
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import pandas as pd

from densing.data.readers import read_text_table
from densing.errors import InputError
from tools.openllm_v2_table.build import IMPLAUSIBLE_UPLOADS, PRECISION_ORDER, RAW_SHA256, SCORE_FIELDS


def contents_table(
    raw: str | Path, public_csv: str | Path, *, check_hash: bool = True
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the table, the refusals) of the module docstring; ``check_hash``: the contents file must be the one of the
    pinned commit."""
    raw = Path(raw)
    if check_hash and hashlib.sha256(raw.read_bytes()).hexdigest() != RAW_SHA256:
        raise InputError(f"{raw}: not csv/huggingface_v2.csv at the pinned commit (its SHA-256 differs)")
    rows = pd.read_csv(raw, dtype=str, keep_default_na=False)
    public = read_text_table(Path(public_csv), ("model",), "the public table")
    rank = rows["model_precision"].map({p: i for i, p in enumerate(PRECISION_ORDER)}).fillna(len(PRECISION_ORDER))
    first = rows.assign(_rank=rank).sort_values(["model_name", "_rank"], kind="stable").drop_duplicates("model_name")
    others = first[~first["model_name"].isin(set(public["model"]))]
    kept, refused = [], []
    for record in others.to_dict("records"):
        billions = float(pd.to_numeric(record["metadata_params_billions"], errors="coerce"))
        if not (math.isfinite(billions) and billions > 0):
            refused.append(
                {
                    "model": record["model_name"],
                    "precision": record["model_precision"],
                    "reason": f"parameter count {record['metadata_params_billions']!r} is not above zero",
                }
            )
            continue
        upload = record["metadata_upload_date"]
        kept.append(
            {
                "model": record["model_name"],
                "family": "",
                "params": round(billions * 1e9),
                "release_date": "" if upload in IMPLAUSIBLE_UPLOADS else upload,
                **{column: record[field] for field, column in SCORE_FIELDS.items()},
            }
        )
    table = pd.concat([public, pd.DataFrame(kept, dtype=str)], ignore_index=True).fillna("")
    return table, pd.DataFrame(refused, columns=["model", "precision", "reason"])
