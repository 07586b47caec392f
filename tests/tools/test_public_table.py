"""Tests of tools.public_table.build on the vendored ObsScaling tables and the shipped results/."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from densing.errors import InputError
from tools.public_table.build import build_public_models, write_public_models
from tools.public_table.checks import sizes_from_name, validate_public_models
from tools.public_table.read import OUTPUT_COLUMNS, read_obsscaling

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"
OBSSCALING = RESULTS / "obsscaling"
DATES = RESULTS / "release_dates.csv"
CORRECTIONS = RESULTS / "corrections.csv"
ACTIVE = RESULTS / "active_params.csv"
TODAY = date(2026, 1, 1)


@pytest.fixture(scope="module")
def source() -> pd.DataFrame:
    return read_obsscaling(OBSSCALING)


@pytest.fixture(scope="module")
def built() -> pd.DataFrame:
    return build_public_models(OBSSCALING, DATES, CORRECTIONS, ACTIVE)


def _issues_for(issues: pd.DataFrame, model: str, field: str) -> pd.DataFrame:
    return issues[(issues["model"] == model) & (issues["field"] == field)]


def _rows(source: pd.DataFrame, *models: str) -> pd.DataFrame:
    return source[source["model"].isin(models)].reset_index(drop=True).copy()


# --- sizes in names -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "params"),
    [
        ("meta-llama/Llama-2-7b-hf", 7e9),
        ("TinyLlama/TinyLlama-1.1B", 1.1e9),
        ("facebook/opt-350m", 350e6),
        ("Qwen/Qwen1.5-0.5B", 0.5e9),
        ("google/gemma-2-27b", 27e9),
        ("RWKV/rwkv-4-1b5-pile", 1.5e9),
        ("bigscience/bloom-7b1", 7.1e9),
        ("stabilityai/stablelm-2-1_6b", 1.6e9),
        ("01-ai/Yi-6B-200K", 6e9),
        ("cerebras/btlm-3b-8k-base", 3e9),
        ("openlm-research/open_llama_7b_v2", 7e9),
        ("meta-llama/Meta-Llama-3.1-405B-FP8", 405e9),
    ],
)
def test_sizes_from_name_reads_dense_sizes(model: str, params: float) -> None:
    assert sizes_from_name(model)["params"] == pytest.approx(params)


@pytest.mark.parametrize(
    "model", ["openai-community/gpt2", "deepseek-ai/DeepSeek-V2", "microsoft/phi-1_5", "LLM360/Amber"]
)
def test_sizes_from_name_is_empty_without_a_size(model: str) -> None:
    assert sizes_from_name(model) == {}


def test_sizes_from_name_reads_mixture_of_experts_names() -> None:
    mixtral = sizes_from_name("mistralai/Mixtral-8x7B-v0.1")
    assert mixtral == {"params": pytest.approx(56e9), "experts": 8, "expert_params": pytest.approx(7e9)}
    qwen = sizes_from_name("Qwen/Qwen2-57B-A14B")
    assert qwen["params"] == pytest.approx(57e9)
    assert qwen["active_params"] == pytest.approx(14e9)


# --- validation -----------------------------------------------------------------------------


def test_validation_catches_a_planted_thousandfold_token_error(source: pd.DataFrame) -> None:
    frame = _rows(
        source, "EleutherAI/pythia-1b-deduped", "EleutherAI/pythia-410m-deduped", "EleutherAI/pythia-12b-deduped"
    )
    assert validate_public_models(frame, today=TODAY).query("field == 'train_tokens'").empty
    for factor in (1000, 1 / 1000):
        planted = frame.copy()
        planted.loc[0, "train_tokens"] = int(planted.loc[0, "train_tokens"] * factor)
        issues = validate_public_models(planted, today=TODAY)
        flagged = _issues_for(issues, "EleutherAI/pythia-1b-deduped", "train_tokens")
        assert len(flagged) >= 1, factor
        assert _issues_for(issues, "EleutherAI/pythia-12b-deduped", "train_tokens").empty


def test_validation_catches_family_siblings_off_by_a_thousand(source: pd.DataFrame) -> None:
    # Token ratios all plausible on their own, but one sibling is 1000x its family.
    frame = pd.DataFrame(
        {
            "model": ["a/x-1b", "a/x-2b", "a/x-3b"],
            "family": ["X"] * 3,
            "params": [1e9, 2e9, 3e9],
            "train_tokens": [2e9, 2e9, 2e12],
        }
    )
    issues = validate_public_models(frame, today=TODAY)
    assert list(issues.loc[issues["field"] == "train_tokens", "model"]) == ["a/x-3b"]


def test_validation_catches_a_planted_params_name_mismatch(source: pd.DataFrame) -> None:
    frame = _rows(source, "meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-13b-hf")
    assert validate_public_models(frame, today=TODAY).query("field == 'params'").empty
    frame.loc[frame["model"] == "meta-llama/Llama-2-7b-hf", "params"] = 13_000_000_000
    issues = validate_public_models(frame, today=TODAY)
    assert len(_issues_for(issues, "meta-llama/Llama-2-7b-hf", "params")) == 1
    assert _issues_for(issues, "meta-llama/Llama-2-13b-hf", "params").empty


def test_validation_handles_mixture_of_experts_totals() -> None:
    frame = pd.DataFrame(
        {
            "model": ["m/Mixtral-8x7B", "m/Mixtral-8x22B", "q/Qwen2-57B-A14B", "q/Qwen2-57B-A14B-v2"],
            "params": [46.7e9, 39e9, 57e9, 14e9],
            "active_params": [12.9e9, 39e9, 14e9, None],
            "train_tokens": [None] * 4,
        }
    )
    issues = validate_public_models(frame, today=TODAY)
    flagged = set(issues.loc[issues["field"] == "params", "model"])
    assert flagged == {"m/Mixtral-8x22B", "q/Qwen2-57B-A14B-v2"}
    active_hint = issues.loc[issues["model"] == "q/Qwen2-57B-A14B-v2", "reason"].item()
    assert "active" in active_hint


def test_validation_catches_duplicates_bad_scores_and_dates() -> None:
    frame = pd.DataFrame(
        {
            "model": ["a/m-1b", "a/m-1b", "a/n-1b", "a/o-1b"],
            "params": [1e9] * 4,
            "train_tokens": [1e11] * 4,
            "MMLU": [0.5, 0.5, 1.7, float("nan")],
            "release_date": ["2023-01-01", "2023-01-01", "2017-06-01", "2030-01-01"],
            "date_confidence": ["high", "high", "medium", "high"],
            "date_source": ["https://example.org", "https://example.org", "https://example.org", ""],
        }
    )
    issues = validate_public_models(frame, today=TODAY)
    reasons = {(row.model, row.field, row.reason) for row in issues.itertuples()}
    assert ("a/m-1b", "model", "duplicated model") in reasons
    assert any(model == "a/n-1b" and field == "MMLU" for model, field, _ in reasons)
    assert ("a/o-1b", "MMLU", "missing score") in reasons
    assert any(model == "a/n-1b" and field == "release_date" for model, field, _ in reasons)
    assert any(model == "a/o-1b" and field == "release_date" for model, field, _ in reasons)
    assert ("a/o-1b", "date_source", "dated row without a source URL") in reasons


def test_validation_finds_the_source_defects_and_the_build_clears_them(
    source: pd.DataFrame, built: pd.DataFrame
) -> None:
    raw = validate_public_models(source, today=TODAY)
    defects = {
        ("cerebras/btlm-3b-8k-base", "train_tokens"),
        ("openlm-research/open_llama_7b_v2", "params"),
        ("mistralai/Mixtral-8x22B-v0.1", "params"),
        ("Qwen/Qwen2-57B-A14B", "params"),
    }
    assert defects <= set(zip(raw["model"], raw["field"]))
    remaining = validate_public_models(built, today=TODAY)
    assert not defects & set(zip(remaining["model"], remaining["field"]))
    assert set(remaining["reason"]) <= {"missing score"}


def test_validation_is_pure(source: pd.DataFrame) -> None:
    before = source.copy()
    validate_public_models(source, today=TODAY)
    pd.testing.assert_frame_equal(source, before)


# --- build ----------------------------------------------------------------------------------


def test_build_is_deterministic(tmp_path: Path) -> None:
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    write_public_models(build_public_models(OBSSCALING, DATES, CORRECTIONS, ACTIVE), first)
    write_public_models(build_public_models(OBSSCALING, DATES, CORRECTIONS, ACTIVE), second)
    assert first.read_bytes() == second.read_bytes()
    assert sorted(tmp_path.iterdir()) == [first, second]  # written atomically: no temporary file left


def test_shipped_table_equals_a_fresh_build(tmp_path: Path) -> None:
    fresh = tmp_path / "public_models.csv"
    write_public_models(build_public_models(OBSSCALING, DATES, CORRECTIONS, ACTIVE), fresh)
    assert (RESULTS / "public_models.csv").read_bytes() == fresh.read_bytes()


def test_build_applies_corrections_and_active_params(built: pd.DataFrame) -> None:
    rows = built.set_index("model")
    assert rows.loc["cerebras/btlm-3b-8k-base", "train_tokens"] == 627_000_000_000
    assert rows.loc["openlm-research/open_llama_7b_v2", "params"] == 7_000_000_000
    assert rows.loc["mistralai/Mixtral-8x22B-v0.1", "params"] == 141_000_000_000
    assert rows.loc["mistralai/Mixtral-8x22B-v0.1", "active_params"] == 39_000_000_000
    assert pd.isna(rows.loc["meta-llama/Llama-2-7b-hf", "active_params"])
    assert rows.loc["Qwen/Qwen2-0.5B", "train_tokens"] == 12_000_000_000_000
    assert rows.loc["Qwen/Qwen2-57B-A14B", "train_tokens"] == 4_500_000_000_000
    assert rows.loc["RWKV/rwkv-4-14b-pile", "train_tokens"] == 330_000_000_000
    assert pd.isna(rows.loc["openai-community/gpt2", "train_tokens"])
    assert list(built.columns) == list(OUTPUT_COLUMNS)
    assert len(built) == 148 and built["model"].is_unique


def test_stale_correction_is_refused(tmp_path: Path) -> None:
    stale = tmp_path / "corrections.csv"
    stale.write_text(
        "model,field,source_value,corrected_value,reason,evidence_url\n"
        "meta-llama/Llama-2-7b-hf,params,13e9,7e9,planted,https://example.org\n"
    )
    with pytest.raises(InputError, match="Llama-2-7b-hf"):
        build_public_models(OBSSCALING, DATES, stale)


def test_empty_source_value_fills_a_count_the_source_lacks(tmp_path: Path) -> None:
    header = "model,field,source_value,corrected_value,reason,evidence_url\n"
    fill = tmp_path / "fill.csv"
    fill.write_text(
        header + "openai-community/gpt2,train_tokens,,1e9,planted fill of a missing count,https://example.org\n"
    )
    rows = build_public_models(OBSSCALING, DATES, fill).set_index("model")
    assert rows.loc["openai-community/gpt2", "train_tokens"] == 1_000_000_000
    present = tmp_path / "present.csv"
    present.write_text(
        header
        + "meta-llama/Llama-2-7b-hf,train_tokens,,1e9,planted fill of a count the source has,https://example.org\n"
    )
    with pytest.raises(InputError, match="Llama-2-7b-hf"):
        build_public_models(OBSSCALING, DATES, present)


def test_unreadable_inputs_raise_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        build_public_models(tmp_path, DATES, CORRECTIONS)
    bad_dates = tmp_path / "dates.csv"
    bad_dates.write_text(
        "model,release_date,date_confidence,date_source,note\nmeta-llama/Llama-2-7b-hf,18/07/2023,high,https://x,\n"
    )
    with pytest.raises(InputError, match="release_date"):
        build_public_models(OBSSCALING, bad_dates, CORRECTIONS)


# --- the shipped files ----------------------------------------------------------------------


def test_every_dated_row_has_a_url_and_a_confidence_mark() -> None:
    table = pd.read_csv(RESULTS / "public_models.csv", dtype=str, keep_default_na=False)
    dated = table[table["release_date"] != ""]
    assert len(dated) > 100
    assert dated["date_source"].str.startswith("https://").all()
    assert dated["date_confidence"].isin(["high", "medium", "low"]).all()
    undated = table[table["release_date"] == ""]
    assert (undated["date_confidence"] == "none").all()


def test_no_high_confidence_row_lacks_a_url() -> None:
    for path in (RESULTS / "public_models.csv", DATES):
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
        high = table[table["date_confidence"] == "high"]
        assert (high["date_source"].str.startswith("https://")).all(), path


def test_every_correction_and_active_count_has_evidence() -> None:
    for path in (CORRECTIONS, ACTIVE):
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
        assert table["evidence_url"].str.startswith("https://").all(), path
    corrections = pd.read_csv(CORRECTIONS, dtype=str, keep_default_na=False)
    assert (corrections["reason"].str.len() > 20).all()


def test_licence_and_commit_ship_beside_the_source() -> None:
    assert "Apache License" in (OBSSCALING / "LICENSE").read_text()
    commit = (OBSSCALING / "SOURCE_COMMIT").read_text().strip()
    table = pd.read_csv(RESULTS / "public_models.csv", dtype=str, keep_default_na=False)
    assert (table["source"] == f"obsscaling@{commit}").all()
