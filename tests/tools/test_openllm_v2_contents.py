"""tools/openllm_v2_table/contents.py: the whole leaderboard as a user's table — the public table's models first, every
other model once (its kept precision), a row densing cannot read listed with its reason, never dropped in silence."""

from __future__ import annotations

import pandas as pd

from densing.data import read_results
from tests.conftest import REPO_ROOT
from tools.openllm_v2_table.build import SCORE_FIELDS
from tools.openllm_v2_table.contents import contents_table

PUBLIC = REPO_ROOT / "results" / "public_models.csv"


def _raw(tmp_path, rows: list[dict]):
    scores = {field: "0.4" for field in SCORE_FIELDS}
    frame = pd.DataFrame([{**scores, "metadata_upload_date": "2024-09-01", **row} for row in rows])
    path = tmp_path / "huggingface_v2.csv"
    frame.to_csv(path, index=False)
    return path


def test_every_other_model_once_and_the_unreadable_listed(tmp_path):
    public_model = pd.read_csv(PUBLIC)["model"].iloc[0]
    raw = _raw(
        tmp_path,
        [
            {"model_name": "a/one", "model_precision": "float16", "metadata_params_billions": "7.2"},
            {"model_name": "a/one", "model_precision": "bfloat16", "metadata_params_billions": "7.2"},
            {"model_name": "b/zero", "model_precision": "bfloat16", "metadata_params_billions": "0"},
            {
                "model_name": "c/migrated",
                "model_precision": "bfloat16",
                "metadata_params_billions": "1",
                "metadata_upload_date": "2022-03-02",
            },
            {"model_name": public_model, "model_precision": "bfloat16", "metadata_params_billions": "3"},
        ],
    )
    table, refused = contents_table(raw, PUBLIC, check_hash=False)
    added = table.iloc[len(pd.read_csv(PUBLIC)) :].set_index("model")
    assert list(added.index) == ["a/one", "c/migrated"] and (added["family"] == "").all()
    assert added.loc["a/one", "params"] == "7200000000" and added.loc["c/migrated", "release_date"] == ""
    assert list(refused["model"]) == ["b/zero"] and "not above zero" in refused["reason"].iloc[0]
    path = tmp_path / "table.csv"
    table.to_csv(path, index=False)
    read = read_results(path)  # densing reads every row the table holds
    assert {"a/one", "c/migrated", public_model} <= set(read["model"])
