"""Several writers on one results store at once leave a valid store with nothing lost: four
``densing eval`` processes over the same models and benchmarks, and four processes writing parts
through the store API (each its own parts and, all of them, one shared part over and over)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import write_models_yaml

WRITER = """
import sys
import pandas as pd
from densing.eval.store import write_part
store, k = sys.argv[1], int(sys.argv[2])
for j in range(6):
    rows = pd.DataFrame({"model": [f"org/m{k}"], "benchmark": [f"b{j}"], "metric": ["acc"], "value": [0.1 * j],
                         "params": [1e9]})
    write_part(store, f"org/m{k}", f"b{j}", rows, f"h{k}{j}")
    shared = pd.DataFrame({"model": ["org/shared"], "benchmark": ["b"], "metric": ["acc"], "value": [0.5], "params": [1e9]})
    write_part(store, "org/shared", "b", shared, f"writer {k} pass {j}")
"""


def test_four_store_api_writers_lose_nothing(tmp_path):
    from densing.eval.store import read_store

    store = tmp_path / "store"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(store), str(k)], stderr=subprocess.PIPE, text=True)
        for k in range(4)
    ]
    for writer in writers:
        assert writer.wait(120) == 0, writer.stderr.read()
    frame = read_store(store)
    assert len(frame) == 4 * 6 + 1  # every writer's own parts and the shared part once
    assert sorted(frame["model"].unique()) == ["org/m0", "org/m1", "org/m2", "org/m3", "org/shared"]
    assert not list(store.rglob("*.tmp"))


@pytest.mark.eval
@pytest.mark.slow
def test_four_eval_commands_on_one_store(tmp_path, tiny_models, tiny_tasks, reference_store):
    pytest.importorskip("lm_eval")
    from densing.eval.store import read_store

    models = write_models_yaml(tmp_path / "models.yaml", tiny_models)
    store = tmp_path / "store"
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1", OMP_NUM_THREADS="1")
    command = [
        sys.executable,
        "-c",
        "from densing.cli import run; run()",
        "eval",
        "--models",
        str(models),
        "--benchmarks",
        "tiny_mc,tiny_gen",
        "--include-path",
        str(tiny_tasks),
        "--out",
        str(store),
        "--device",
        "cpu",
        "--format",
        "csv",
    ]
    runs = [
        subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    for run in runs:
        assert run.wait(600) == 0, run.stderr.read()[-2000:]
    result = read_store(store).drop(columns=["timestamp", "wall_seconds"])
    expected = read_store(reference_store).drop(columns=["timestamp", "wall_seconds"])
    key = ["model", "benchmark", "metric"]
    assert len(result) == len(expected)  # no lost or duplicated rows
    assert result.sort_values(key)["value"].tolist() == pytest.approx(expected.sort_values(key)["value"].tolist())
    assert not list(store.rglob("*.tmp"))
