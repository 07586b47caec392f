"""AI2's OLMES target table (results/olmes/): provenance of models.csv and the tidy reader."""

import math
import re
from pathlib import Path

import pandas as pd
import pytest

from densing.data.benchmarks import WIDE_COLUMNS
from densing.designs.olmes.data import (
    OLMES_BENCHMARKS,
    TOKEN_DERIVATIONS,
    read_olmes_models,
    read_olmes_scores,
    read_olmes_targets,
)
from densing.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SCORES = ROOT / "results" / "olmes" / "olmo2-32b.csv"
MODELS = ROOT / "results" / "olmes" / "models.csv"
URL = re.compile(r"^https?://\S+$")
STATED_NAMES = {
    "olmes_arc_challenge_mc",
    "olmes_hellaswag_mc",
    "olmes_winogrande_mc",
    "olmes_mmlu_mc",
    "olmes_drop",
    "olmes_naturalqs",
    "olmes_agieval",
    "olmes_gsm8k",
    "olmes_mmlu_pro",
    "olmes_triviaqa",
}


def _models_raw() -> pd.DataFrame:
    return pd.read_csv(MODELS, dtype=str, keep_default_na=False)


def _scores_raw() -> pd.DataFrame:
    return pd.read_csv(SCORES, dtype=str, keep_default_na=False)


# --- the shipped files --------------------------------------------------------------------------


def test_models_csv_has_one_row_per_model_of_the_table():
    models, scores = _models_raw(), _scores_raw()
    assert sorted(models["model"]) == sorted(scores["Model"])
    assert not models["model"].duplicated().any()
    assert len(models) == 23


def test_every_value_has_a_source_url_and_every_gap_a_reason():
    for _, row in _models_raw().iterrows():
        for value, source in (
            ("params", "params_source"),
            ("train_tokens", "tokens_source"),
            ("release_date", "date_source"),
        ):
            if row[value]:
                assert URL.match(row[source]), (row["model"], source, row[source])
        assert row["params"], row["model"]
        assert int(row["params"]) > 0 and row["params"].isdigit(), row["model"]
        assert row["tokens_derivation"] in TOKEN_DERIVATIONS, row["model"]
        assert bool(row["train_tokens"]) == bool(row["tokens_derivation"]), row["model"]
        if not row["train_tokens"] or not row["release_date"]:
            assert len(row["note"]) > 20, row["model"]
        if row["release_date"]:
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["release_date"]), row["model"]
        assert row["active_params"] == "", row["model"]  # no mixture of experts in this table


def test_flops_6n_rows_equal_flops_over_6_params():
    models = _models_raw().set_index("model")
    flops = _scores_raw().set_index("Model")["FLOPs"]
    for model, row in models[models["tokens_derivation"] == "flops/6N"].iterrows():
        expected = float(flops[model]) / (6 * float(row["params"]))
        assert math.isclose(float(row["train_tokens"]), expected, rel_tol=1e-3), model


def test_stated_counts_note_the_disagreement_with_ai2_flops():
    """Where 6·N·D is more than 20% from AI2's FLOPs, the note says so (StableLM-2-12B: 2T vs AI2's 4T)."""
    models = _models_raw().set_index("model")
    flops = _scores_raw().set_index("Model")["FLOPs"]
    far = []
    for model, row in models.iterrows():
        if row["train_tokens"] and flops[model]:
            ratio = 6 * float(row["params"]) * float(row["train_tokens"]) / float(flops[model])
            if abs(ratio - 1) > 0.2:
                far.append(model)
                assert "more than 20% apart" in row["note"], model
    assert far == ["StableLM-2-12B"]


def test_reused_rows_match_the_public_table():
    """Models already in results/public_models.csv keep its params, tokens and date."""
    public = pd.read_csv(ROOT / "results" / "public_models.csv", dtype=str, keep_default_na=False).set_index("model")
    models = _models_raw()
    reused = models[models["note"].str.contains("reused from results/public_models.csv", regex=False)]
    assert len(reused) == 10
    for _, row in reused.iterrows():
        # the public table names the 3.1 models meta-llama/Meta-Llama-3.1-*
        key = row["hf_id"].replace("meta-llama/Llama-3.1", "meta-llama/Meta-Llama-3.1")
        pub = public.loc[key]
        assert float(row["params"]) == float(pub["params"]), row["model"]
        assert row["release_date"] == pub["release_date"], row["model"]
        assert row["date_source"] == pub["date_source"], row["model"]
        if pub["train_tokens"]:
            assert float(row["train_tokens"]) == float(pub["train_tokens"]), row["model"]
    mistral = models.set_index("model").loc["Mistral-7B-v0.3"]
    assert float(mistral["params"]) == float(public.loc["mistralai/Mistral-7B-v0.1", "params"])


# --- the reader ---------------------------------------------------------------------------------


def test_reader_returns_fractions_under_the_stated_names():
    frame = read_olmes_targets(SCORES, MODELS)
    assert set(frame["benchmark"]) == STATED_NAMES == set(OLMES_BENCHMARKS.values())
    assert frame["value"].between(0, 1).all()
    # no name is a leaderboard name or a ladder (ranked-classification) name
    ladder = {"olmes_arc_challenge", "olmes_hellaswag", "olmes_winogrande", "olmes_mmlu"}
    assert not STATED_NAMES & (set(WIDE_COLUMNS.values()) | ladder)
    assert "Average" not in set(frame["benchmark"])


def test_reader_one_row_per_model_and_benchmark_with_the_file_values():
    frame = read_olmes_targets(SCORES, MODELS)
    scores = _scores_raw()
    assert not frame.duplicated(["model", "benchmark"]).any()
    assert len(frame) == sum(scores[c].ne("").sum() for c in OLMES_BENCHMARKS)
    row = frame[(frame["model"] == "Qwen-2.5-32B") & (frame["benchmark"] == "olmes_mmlu_pro")].iloc[0]
    assert row["value"] == pytest.approx(0.59)
    assert row["params"] == 32e9 and row["train_tokens"] == 18e12 and row["family"] == "Qwen2.5"
    assert row["flops"] == pytest.approx(3.456e24)
    assert str(row["release_date"].date()) == "2024-09-19"
    assert row["params_source"].startswith("https://") and row["tokens_derivation"] == "stated"
    assert row["source"].startswith("allenai/OLMo@8cbfe6f9")
    zamba = frame[frame["model"] == "Zamba-2-7B"].iloc[0]
    assert math.isnan(zamba["train_tokens"]) and pd.isna(zamba["release_date"])


def test_reader_families():
    frame = read_olmes_targets(SCORES, MODELS).drop_duplicates("model").set_index("model")["family"]
    assert frame["Llama-2-13B"] == "Llama-2" and frame["Meta-Llama-3-70B"] == "Llama-3"
    assert frame["Llama-3.1-70B"] == "Llama-3.1" and frame["Gemma-3-27B"] == "Gemma-3"
    assert frame["OLMo-2-1124-7B"] == "OLMo-2" and frame["OLMo-7B"] == "OLMo"


# --- bad input: one line naming the file, row and field ------------------------------------------


def _write(tmp_path: Path, scores: pd.DataFrame | None = None, models: pd.DataFrame | None = None):
    s, m = tmp_path / "scores.csv", tmp_path / "models.csv"
    (scores if scores is not None else _scores_raw()).to_csv(s, index=False)
    (models if models is not None else _models_raw()).to_csv(m, index=False)
    return s, m


def _one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_unknown_model_is_one_line_input_error(tmp_path):
    scores = _scores_raw()
    scores.loc[3, "Model"] = "Mystery-7B"
    s, m = _write(tmp_path, scores=scores)
    with pytest.raises(InputError) as error:
        read_olmes_targets(s, m)
    message = _one_line(error)
    assert str(s) in message and "row 4" in message and "'Model'" in message and "Mystery-7B" in message


def test_score_outside_0_100_is_rejected(tmp_path):
    scores = _scores_raw()
    scores.loc[0, "GSM8k"] = "104.8"
    s, m = _write(tmp_path, scores=scores)
    with pytest.raises(InputError) as error:
        read_olmes_targets(s, m)
    message = _one_line(error)
    assert "row 1" in message and "'GSM8k'" in message and "[0, 100]" in message


def test_non_numeric_score_and_unknown_column_are_rejected(tmp_path):
    scores = _scores_raw()
    scores.loc[2, "MMLU"] = "n/a"
    s, m = _write(tmp_path, scores=scores)
    with pytest.raises(InputError, match=r"row 3 .*'MMLU'"):
        read_olmes_scores(s)
    scores = _scores_raw().assign(BBH="50")
    s, m = _write(tmp_path, scores=scores)
    with pytest.raises(InputError, match="unknown column"):
        read_olmes_scores(s)


def test_value_without_source_url_is_rejected(tmp_path):
    models = _models_raw()
    models.loc[0, "tokens_source"] = ""
    s, m = _write(tmp_path, models=models)
    with pytest.raises(InputError) as error:
        read_olmes_targets(s, m)
    message = _one_line(error)
    assert str(m) in message and "row 1" in message and "'tokens_source'" in message


def test_bad_derivation_and_wrong_flops_6n_are_rejected(tmp_path):
    models = _models_raw()
    models.loc[1, "tokens_derivation"] = "guessed"
    s, m = _write(tmp_path, models=models)
    with pytest.raises(InputError, match=r"row 2 .*'tokens_derivation'"):
        read_olmes_targets(s, m)
    # a flops/6N row must equal FLOPs / (6 params): DCLM-7B, 1.033e23 / (6 * 7e9) = 2.4595e12
    models = _models_raw()
    models.loc[1, "tokens_derivation"] = "flops/6N"
    s, m = _write(tmp_path, models=models)
    with pytest.raises(InputError, match=r"row 2 .*'train_tokens'.*FLOPs/\(6·params\)"):
        read_olmes_targets(s, m)
    models.loc[1, "train_tokens"] = str(round(1.033e23 / (6 * 7e9)))
    s, m = _write(tmp_path, models=models)
    frame = read_olmes_targets(s, m)
    assert frame.loc[frame["model"] == "DCLM-7B", "train_tokens"].iloc[0] == pytest.approx(2.4595e12, rel=1e-4)
    # flops/6N for a model without FLOPs
    models = _models_raw()
    idx = models.index[models["model"] == "Zamba-2-7B"][0]
    models.loc[idx, ["train_tokens", "tokens_derivation", "tokens_source"]] = [
        "3e12",
        "flops/6N",
        "https://example.org",
    ]
    s, m = _write(tmp_path, models=models)
    with pytest.raises(InputError, match="gives no FLOPs"):
        read_olmes_targets(s, m)


def test_empty_tokens_need_a_reason_and_models_rows_need_scores(tmp_path):
    models = _models_raw()
    idx = models.index[models["model"] == "Zamba-2-7B"][0]
    models.loc[idx, "note"] = ""
    s, m = _write(tmp_path, models=models)
    with pytest.raises(InputError, match=r"'note'"):
        read_olmes_models(m)
    scores = _scores_raw().iloc[1:]
    s, m = _write(tmp_path, scores=scores)
    with pytest.raises(InputError, match="Amber-7B.*not in"):
        read_olmes_targets(s, m)
