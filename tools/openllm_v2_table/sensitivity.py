"""The v2-native row under each contested curation choice of the Open LLM Leaderboard v2 table: the curation as a
sensitivity, not a choice made after its result was seen.

Each choice is a change to the shipped table (``results/openllm_v2/openllm_v2_2025-03.csv``) written once, here, and
applied by code; the row is then the one ``densing trend --table openllm_v2`` prints as its headline
(:func:`densing.trend.measure.measure_trend` on the registered table: the v2-native set, its references by the set
rule, the censored 0.9-quantile frontier, 600 draws, seed 0), so a change to the estimator moves every choice alike:

- ``as shipped``: the table as built (the derived-token rule, the release dates of ``curated.csv``);
- ``derived tokens not counted``: every derived model (a ``parent``) without a token count, as if no derived model's
  count were known (such a model is no reference member: R2);
- ``StableLM split``: StableLM-3B-4E1T (2023, 4T tokens) and StableLM 2 (2T) as two families, not one family at the
  reference rule's 2.0x token limit;
- ``upload dates``: every model that ``curated.csv`` dates by a provider's release note or card dated by its upload to
  the Hub instead (undated on the Hub's migration day), the public table's dates kept;
- ``StableLM split + upload dates``: both.

    python tools/build_tables.py openllm-v2-sensitivity --out results/openllm_v2/curation_sensitivity.csv
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd

from densing.errors import InputError
from tools.openllm_v2_table.build import IMPLAUSIBLE_UPLOADS, TABLE, read_curated

#: The columns of the sensitivity table.
COLUMNS: tuple[str, ...] = ("choice", "months", "ci_low", "ci_high", "state", "status", "n_models", "references")
#: StableLM's two recipes: each model of the shipped family ``StableLM`` and its family when they are split.
STABLELM_SPLIT: dict[str, str] = {
    "stabilityai/stablelm-3b-4e1t": "StableLM-3B-4E1T",
    "stabilityai/stablelm-2-1_6b": "StableLM 2",
    "stabilityai/stablelm-2-12b": "StableLM 2",
}


def without_derived_tokens(table: pd.DataFrame) -> pd.DataFrame:
    """Every derived model (a ``parent``) without ``train_tokens``."""
    derived = table["parent"].fillna("").astype(str).str.strip() != ""
    return table.assign(train_tokens=table["train_tokens"].where(~derived))


def stablelm_split(table: pd.DataFrame) -> pd.DataFrame:
    """StableLM's models in two families (:data:`STABLELM_SPLIT`); every one of them must be in ``table``."""
    missing = sorted(set(STABLELM_SPLIT) - set(table["model"]))
    if missing:
        raise InputError(f"StableLM split: the table does not hold {missing}")
    return table.assign(family=table["model"].map(STABLELM_SPLIT).fillna(table["family"]))


def upload_dates(table: pd.DataFrame, curated: pd.DataFrame) -> pd.DataFrame:
    """The models ``curated`` dates (a provider's release note or card) dated by their upload instead; an upload on
    the Hub's migration day (:data:`IMPLAUSIBLE_UPLOADS`) leaves the model undated, as the build does."""
    noted = set(curated.loc[curated["release_date"].fillna("").astype(str).str.strip() != "", "model"])
    chosen = table["model"].isin(noted)
    upload = table["upload_date"].where(~table["upload_date"].isin(IMPLAUSIBLE_UPLOADS), "")
    return table.assign(
        release_date=table["release_date"].where(~chosen, upload),
        date_confidence=table["date_confidence"].where(~chosen, "low"),
        date_source=table["date_source"].where(~chosen, "the contents table's upload date"),
    )


def choices(table: pd.DataFrame, curated: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Each choice of the module docstring: its name -> the table under it."""
    return {
        "as shipped": table,
        "derived tokens not counted": without_derived_tokens(table),
        "StableLM split": stablelm_split(table),
        "upload dates": upload_dates(table, curated),
        "StableLM split + upload dates": upload_dates(stablelm_split(table), curated),
    }


def headline_row(table: pd.DataFrame, *, n_boot: int, seed: int) -> dict:
    """The headline of ``densing trend --table openllm_v2`` on ``table`` (read as that command reads a table)."""
    from densing import registry
    from densing.constants import DEFAULT_EPOCH
    from densing.data import read_results
    from densing.present.shown import status
    from densing.present.words import state_words
    from densing.trend.measure import measure_trend

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / TABLE
        table.to_csv(path, index=False)
        measured = measure_trend(
            read_results(path),
            table=registry.table("openllm_v2"),
            since=DEFAULT_EPOCH,
            epoch=DEFAULT_EPOCH,
            n_boot=n_boot,
            seed=seed,
            sections=(),
        )
    head = measured.rules.get(measured.headline_rule)
    found = measured.table().set_index("rule").loc[measured.headline_rule] if head is not None else None
    return {
        "months": None if found is None else found["months"],
        "ci_low": None if found is None else found["ci_low"],
        "ci_high": None if found is None else found["ci_high"],
        "state": state_words(measured.state),
        "status": status(measured),
        "n_models": None if found is None else int(found["n_models"]),
        "references": ", ".join(r.family for r in (head.reference_names if head is not None else ())),
    }


def curation_sensitivity(folder: str | Path, *, n_boot: int = 600, seed: int = 0) -> pd.DataFrame:
    """One row per choice (module docstring) on the table in ``folder`` (its ``curated.csv`` beside it)."""
    folder = Path(folder)
    table = pd.read_csv(
        folder / TABLE,
        dtype={"release_date": str, "upload_date": str},
        keep_default_na=False,
        na_values={c: [""] for c in ("train_tokens", "active_params", "parent_tokens", "derivation_tokens")},
    )
    curated = read_curated(folder / "curated.csv")
    rows = [
        {"choice": name, **headline_row(frame, n_boot=n_boot, seed=seed)}
        for name, frame in choices(table, curated).items()
    ]
    return pd.DataFrame(rows, columns=list(COLUMNS))
