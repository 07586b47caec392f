"""``densing measure`` end to end on the tiny random model: leaderboard-v1 on the local splits, two items per task,
evaluated into a store, placed against the headline and written into the report; a rerun reuses the store.

The tiny model's context is 256 tokens, which GSM8K's 256 generated tokens do not fit, so the suite runs here
without GSM8K (its multiple-choice members: ARC-Challenge, MMLU, WinoGrande)."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.conftest import SHARED_DATA
from tests.eval.conftest import write_models_yaml

pytestmark = [
    pytest.mark.eval,
    pytest.mark.skipif(not (SHARED_DATA / "benchmarks").is_dir(), reason="no local benchmark splits"),
]


def test_measure_end_to_end(tmp_path, tiny_model, run_cli, monkeypatch):
    from densing.eval import benchmarks

    kept = tuple(b for b in benchmarks.SUITES["leaderboard-v1"] if b != "openllm_v1_gsm8k")
    monkeypatch.setitem(benchmarks.SUITES, "leaderboard-v1", kept)
    models = write_models_yaml(tmp_path / "my.yaml", [tiny_model])
    args = [
        "measure",
        "--models",
        models,
        "--suite",
        "leaderboard-v1",
        "--local-data",
        "--data-root",
        SHARED_DATA,
        "--limit",
        "2",
        "--device",
        "cpu",
        "--store",
        tmp_path / "store",
        "--out",
        tmp_path / "report.html",
        "--csv",
        tmp_path / "rows.csv",
        "--n-boot",
        "40",
    ]
    code, out, err = run_cli(*args)
    assert code == 0, err
    rows = pd.read_csv(tmp_path / "rows.csv")
    assert list(rows["model"]) == ["tiny-0"] and rows["items:arc_challenge"].iloc[0] == 2
    assert rows["items:mmlu"].iloc[0] == 2 * 57  # two per MMLU subject
    assert rows["frontier"].iloc[0] in ("above", "below", "undetermined") and rows["words"].iloc[0]
    html = (tmp_path / "report.html").read_text()
    assert "Your models" in html and "tiny-0" in html
    assert "evaluating" in err and "tiny-0:" in out
    code, _, err = run_cli(*args)  # resumable: every pair comes from the store
    assert code == 0 and "evaluating" not in err and err.count("in the store, reused") == 3
