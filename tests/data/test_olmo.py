"""The OLMo ladder reader on a trimmed copy of two ladder files and the 13B file (fixtures/olmo_ladder)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from densing.data.olmo import ladder_benchmarks, read_olmo_ladder, split_ladder
from densing.errors import InputError

FIXTURE = Path(__file__).parent / "fixtures" / "olmo_ladder"


def test_reader_columns_units_and_counts():
    frame = read_olmo_ladder(FIXTURE)
    assert set(frame["benchmark"]) == set(ladder_benchmarks())
    assert set(frame["loss_unit"]) == {"bpb"} and set(frame["n_shot"]) == {5}
    assert set(frame.loc[frame["benchmark"] == "olmes_boolq", "metric"]) == {"acc"}
    assert set(frame.loc[frame["benchmark"] != "olmes_boolq", "metric"]) == {"len_norm"}
    # N as the ladder counts it, read from configs/final_moredata.json
    assert frame.loc[frame["run"] == "olmo-ladder-190M-1xC", "params"].unique().tolist() == [190354176.0]
    assert frame.loc[frame["run"] == "olmo-ladder-1B-2xC", "params"].unique().tolist() == [1279395840.0]
    assert frame.loc[frame["run"] == "olmo-2-13b", "params"].unique().tolist() == [13202396160.0]
    # one row per (checkpoint, task): 12 and 11 logged rows in the trimmed files
    per_run = frame[frame["benchmark"] == "olmes_hellaswag"].groupby("run").size()
    raw = {name: len(pd.read_csv(FIXTURE / name)) for name in ("190M-1xC-rerun.csv", "1B-2xC.csv")}
    assert per_run["olmo-ladder-190M-1xC"] == raw["190M-1xC-rerun.csv"]
    assert per_run["olmo-ladder-1B-2xC"] == raw["1B-2xC.csv"]


def test_reader_values_match_the_file():
    frame = read_olmo_ladder(FIXTURE)
    raw = pd.read_csv(FIXTURE / "1B-2xC.csv").iloc[-1]
    row = (
        frame[(frame["run"] == "olmo-ladder-1B-2xC") & (frame["benchmark"] == "olmes_piqa")]
        .sort_values("train_tokens")
        .iloc[-1]
    )
    assert row["value"] == raw["eval/downstream/piqa_val_rc_5shot_len_norm"]
    assert row["loss"] == raw["eval/downstream_bpb/piqa_val_rc_5shot_bpb"]
    assert row["train_tokens"] == raw["throughput/total_tokens"]
    # MMLU: AI2's test-split groups weighted by their question shares
    weights = {"stem": 0.215, "humanities": 0.335, "social_sciences": 0.219, "other": 0.231}
    expected = sum(w * raw[f"eval/downstream/mmlu_{g}_test_rc_5shot_len_norm"] for g, w in weights.items())
    mmlu = (
        frame[(frame["run"] == "olmo-ladder-1B-2xC") & (frame["benchmark"] == "olmes_mmlu")]
        .sort_values("train_tokens")
        .iloc[-1]
    )
    assert mmlu["value"] == pytest.approx(expected, rel=1e-12)
    # binomial standard error from the split's item count (PIQA validation: 1,838 items)
    assert row["stderr"] == pytest.approx(np.sqrt(row["value"] * (1 - row["value"]) / 1838))


def test_thirteen_b_is_the_mean_of_its_last_five_rows_at_step_times_batch():
    frame = read_olmo_ladder(FIXTURE)
    raw = pd.read_csv(FIXTURE / "peteish13_eval_final.csv")
    row = frame[(frame["model"] == "olmo-2-13b") & (frame["benchmark"] == "olmes_hellaswag")].iloc[0]
    assert row["value"] == pytest.approx(raw["eval/downstream/hellaswag_val_rc_5shot_len_norm"].tail(5).mean())
    assert row["train_tokens"] == raw["_step"].iloc[-1] * 8_388_608
    assert row["train_tokens"] == pytest.approx(5.0e12, rel=1e-4)


def test_split_keeps_targets_out_of_the_ladder():
    ladder, targets = split_ladder(read_olmo_ladder(FIXTURE))
    assert ladder["run"].str.startswith("olmo-ladder-").all()
    assert set(targets["model"]) == {"olmo-2-13b"}


def test_reader_errors_name_the_file(tmp_path):
    with pytest.raises(InputError, match="not a folder"):
        read_olmo_ladder(tmp_path / "missing")
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "final.json").write_text("{not json")
    with pytest.raises(InputError, match="final.json"):
        read_olmo_ladder(tmp_path)
