"""Tests of tools.swallow_table (the builder and its rule) on the Swallow leaderboard's files and the shipped results/swallow/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from densing.data.benchmarks import CHANCE_LEVELS, PROTOCOL_MAPPING, item_count
from densing.data.formats import read_results
from densing.errors import InputError
from tests.conftest import SHARED_DATA
from tools.swallow_table import build as swallow
from tools.swallow_table.build import build_swallow, write_swallow
from tools.swallow_table.rule import decide, read_model_file

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "results" / "swallow"
DATES = ROOT / "results" / "release_dates.csv"
SOURCE = SHARED_DATA / "swallow"
needs_swallow = pytest.mark.skipif(
    not (SOURCE / "model_2025-06.yml").is_file(), reason=f"Swallow leaderboard files not found at {SOURCE}"
)


@pytest.fixture(scope="module")
def built() -> dict[str, pd.DataFrame]:
    if not (SOURCE / "model_2025-06.yml").is_file():
        pytest.skip(f"Swallow leaderboard files not found at {SOURCE}")
    return build_swallow(SOURCE, SHIPPED, DATES)


def _decision(models: pd.DataFrame, file: str, model: str) -> tuple[str, str]:
    row = models[(models["file"] == file) & (models["model"] == model)].iloc[0]
    return row["decision"], row["reason"]


# --- the rule -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "decision"),
    [
        ({"id": "Qwen/Qwen2.5-7B", "base_model": ""}, "kept"),
        ({"id": "Qwen/Qwen2.5-7B-Instruct", "base_model": "Qwen2.5-7B"}, "refused"),
        ({"id": "google/gemma-2-9b-it"}, "refused"),
        ({"id": "cyberagent/calm3-22b-chat", "base_model": "(private)"}, "refused"),
        ({"id": "gpt-4o-2024-08-06"}, "refused"),
        ({"id": "Qwen/Qwen3-8B", "is_post": True}, "refused"),
        ({"id": "Qwen/Qwen3-8B-Base", "is_post": False}, "kept"),
    ],
)
def test_rule_on_single_entries(entry, decision):
    assert decide(entry)[0] == decision


@needs_swallow
def test_rule_on_the_shipped_files(built):
    models = built["models"]
    assert len(models) == 155 + 118
    assert set(models["decision"]) == {"kept", "refused"}
    assert models["reason"].str.len().gt(0).all()
    decision, reason = _decision(models, "2025-06", "meta-llama/Meta-Llama-3.1-8B-Instruct")
    assert decision == "refused" and "base_model given" in reason and "name pattern" in reason
    assert _decision(models, "2026-05", "Qwen/Qwen3-8B")[0] == "refused"  # no name pattern: is_post decides
    assert _decision(models, "2025-06", "microsoft/phi-4") == ("refused", "base_model given ((private))")
    assert _decision(models, "2025-06", "Qwen/Qwen2.5-7B")[0] == "kept"
    # the 2026-05 file's flag and the rule agree on every entry
    flagged = {str(e["id"]): e["is_post"] for e in read_model_file(SOURCE / "model_2026-05.yml")}
    newer = models[models["file"] == "2026-05"]
    assert all((d == "refused") == flagged[m] for m, d in zip(newer["model"], newer["decision"]))
    assert (built["swallow_2025-06"].shape[0], built["swallow_2026-05"].shape[0]) == (72, 50)


@needs_swallow
def test_derived_models_carry_their_parent_and_family(built):
    table = built["swallow_2025-06"].set_index("model")
    swallow = table.loc["tokyotech-llm/Llama-3.1-Swallow-8B-v0.1"]
    assert swallow["parent"] == "meta-llama/Meta-Llama-3.1-8B"
    assert swallow["derivation"] == "continual_pretraining"
    assert swallow["family"] != table.loc["meta-llama/Meta-Llama-3.1-8B", "family"]
    assert pd.isna(table.loc["Qwen/Qwen2.5-7B", "parent"]) or table.loc["Qwen/Qwen2.5-7B", "parent"] == ""


@needs_swallow
def test_mixture_of_experts_has_its_active_size(built):
    newer = built["swallow_2026-05"].set_index("model")
    assert newer.loc["Qwen/Qwen3-30B-A3B-Base", "params"] == 30_500_000_000
    assert newer.loc["Qwen/Qwen3-30B-A3B-Base", "active_params"] == 3_300_000_000
    older = built["swallow_2025-06"].set_index("model")
    assert older.loc["meta-llama/Llama-4-Scout-17B-16E", "active_params"] == 17_000_000_000
    assert older.loc["Qwen/Qwen2.5-7B", "params"] == 7_610_000_000


# --- the shipped files --------------------------------------------------------------------------


@needs_swallow
def test_shipped_files_equal_a_fresh_build(built, tmp_path):
    write_swallow(built, tmp_path)
    for name in built:
        assert (tmp_path / f"{name}.csv").read_bytes() == (SHIPPED / f"{name}.csv").read_bytes(), name


def test_every_kept_row_has_a_source_for_params():
    params = pd.read_csv(SHIPPED / "params.csv", dtype=str, keep_default_na=False)
    for label in ("2025-06", "2026-05"):
        table = pd.read_csv(SHIPPED / f"swallow_{label}.csv")
        assert set(table["model"]) <= set(params["model"])
    assert (params["source_url"].str.startswith("https://")).all()
    assert set(params["basis"]) <= {"exact", "nominal", "parent", "rounded"}
    tokens = pd.read_csv(SHIPPED / "tokens.csv", dtype=str, keep_default_na=False)
    stated = tokens[tokens["train_tokens"] != ""]
    assert stated["source_url"].str.startswith("https://").all()
    assert (tokens.loc[tokens["train_tokens"] == "", "note"] != "").all()


def test_reader_reads_the_tables_with_the_new_names():
    for label, n_models in (("2025-06", 72), ("2026-05", 50)):
        tidy = read_results(SHIPPED / f"swallow_{label}.csv")
        assert set(tidy["benchmark"]) == set(swallow.SCORE_FIELDS.values())
        assert tidy["model"].nunique() == n_models
        shots = tidy.drop_duplicates("benchmark").set_index("benchmark")["n_shot"].to_dict()
        assert shots == {
            "swallow_mmlu": 5,
            "swallow_bbh": 3,
            "swallow_math": 4,
            "swallow_gsm8k": 4,
            "swallow_humaneval": 0,
        }
        assert "parent" in tidy.columns and tidy["params"].gt(0).all()
    for name in swallow.SCORE_FIELDS.values():
        assert name in CHANCE_LEVELS and name in PROTOCOL_MAPPING
        assert item_count(name) > 0
    assert CHANCE_LEVELS["swallow_mmlu"] == 0.25 and CHANCE_LEVELS["swallow_bbh"] == 0.0
    assert (item_count("swallow_mmlu"), item_count("swallow_bbh"), item_count("swallow_math")) == (
        14042,
        6511,
        500,
    )  # MATH-500


def test_the_public_table_reads_as_before():
    tidy = read_results(ROOT / "results" / "public_models.csv")
    assert not tidy["benchmark"].str.startswith("swallow_").any()
    assert tidy["n_shot"].isna().all()


# --- bad input ----------------------------------------------------------------------------------


@needs_swallow
def test_bad_input_is_one_input_error(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("model_2025-06.yml", "model_2026-05.yml"):
        shutil.copy(SOURCE / name, source / name)
    (source / "model_2026-05.yml").write_text("- id: x\n  date: '2025-01-01'\n  params: [\n", encoding="utf-8")
    with pytest.raises(InputError, match="model_2026-05.yml: not valid YAML"):
        build_swallow(source, SHIPPED, DATES)
    (source / "model_2026-05.yml").write_text("- id: a/b\n  date: '2025-01-01'\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"entry 1 \(a/b\): missing field\(s\) params, results"):
        build_swallow(source, SHIPPED, DATES)
    curated = tmp_path / "curated"
    shutil.copytree(SHIPPED, curated)
    shutil.copy(SOURCE / "model_2026-05.yml", source / "model_2026-05.yml")
    params = (curated / "params.csv").read_text(encoding="utf-8").replace("7.61e9", "7.61B")
    (curated / "params.csv").write_text(params, encoding="utf-8")
    with pytest.raises(InputError, match=r"params.csv: row \d+ \(Qwen/Qwen2.5-7B\): field 'params'"):
        build_swallow(source, curated, DATES)
