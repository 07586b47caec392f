"""The store's key: the content of the local data and the benchmark's own task files, never a path; a store written
under one folder is found done under a copy at another; ``rekey`` rewrites only the key. No model is loaded."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

pytest.importorskip("lm_eval")

from densing.eval.harness import data_digest, resolve_benchmarks, task_manager
from densing.eval.models import model_spec_from_mapping
from densing.eval.rekey import main, rekey_store
from densing.eval.runner import sweep_keys
from densing.eval.store import is_done, part_path, read_part_hash, write_part

SPEC = model_spec_from_mapping({"name": "m", "model": "no/such/model", "params": 1e8}, where="test")


def _data_root(root):
    """A data root with a few files in both folders the loaders read."""
    (root / "benchmarks" / "arc").mkdir(parents=True)
    (root / "benchmarks" / "arc" / "ARC-Challenge-test.jsonl").write_text('{"id": 1}\n')
    (root / "benchmarks" / "README.md").write_text("sources\n")
    (root / "olmo_ladder" / "oe_eval_tasks" / "csqa").mkdir(parents=True)
    (root / "olmo_ladder" / "oe_eval_tasks" / "csqa" / "requests.jsonl").write_text('{"r": 1}\n')
    return root


def _hash(root, include=(), bench="arc_challenge", local_data=True):
    manager = task_manager(include, [bench], data_root=root, local_data=local_data)
    benches = resolve_benchmarks([bench], manager, local_data=local_data)
    return sweep_keys([SPEC], benches, manager, limit=20, include_paths=include, data_root=root, backend="densing-hf")[
        0
    ]["m", bench]


def test_the_same_data_at_another_path_has_the_same_digest_and_a_changed_file_another(tmp_path):
    one, two = _data_root(tmp_path / "one"), _data_root(tmp_path / "elsewhere" / "two")
    assert data_digest(one) == data_digest(two)
    (one / "unread.txt").write_text("outside the folders the loaders read")
    assert data_digest(one) == data_digest(two)
    (two / "benchmarks" / "arc" / "ARC-Challenge-test.jsonl").write_text('{"id": 2}\n')
    assert data_digest(one) != data_digest(two)
    (one / "benchmarks" / "arc" / "ARC-Challenge-test.jsonl").write_text('{"id": 2}\n')
    (one / "olmo_ladder" / "oe_eval_tasks" / "csqa" / "more.jsonl").write_text("{}\n")
    assert data_digest(one) != data_digest(two)


def test_a_store_written_under_one_data_root_is_done_under_a_copy_elsewhere(tmp_path):
    one, two = _data_root(tmp_path / "one"), _data_root(tmp_path / "copy" / "two")
    key = _hash(one)
    assert key == _hash(two)
    rows = pd.DataFrame(
        [{"model": "m", "benchmark": "arc_challenge", "metric": "acc", "value": 0.3, "params": 1e8, "config_hash": key}]
    )
    write_part(tmp_path / "store", "m", "arc_challenge", rows, key)
    assert is_done(tmp_path / "store", "m", "arc_challenge", _hash(two))
    (two / "benchmarks" / "arc" / "ARC-Challenge-test.jsonl").write_text('{"id": 2}\n')
    assert not is_done(tmp_path / "store", "m", "arc_challenge", _hash(two))


def test_a_task_added_or_changed_for_another_benchmark_keeps_the_key(tmp_path, tiny_tasks):
    tasks = tmp_path / "tasks"
    shutil.copytree(tiny_tasks, tasks)
    before = _hash(None, [tasks], "tiny_mc", local_data=False)
    (tasks / "tiny_other.yaml").write_text(
        (tasks / "tiny_mc.yaml").read_text().replace("task: tiny_mc", "task: tiny_other")
    )
    (tasks / "tiny_gen.yaml").write_text((tasks / "tiny_gen.yaml").read_text() + "\n# changed\n")
    assert _hash(None, [tasks], "tiny_mc", local_data=False) == before
    (tasks / "tiny_mc.yaml").write_text((tasks / "tiny_mc.yaml").read_text() + "\n# changed\n")
    assert _hash(None, [tasks], "tiny_mc", local_data=False) != before
    group = _hash(None, [tasks], "tiny_group", local_data=False)  # a group's members enter its key
    (tasks / "tiny_mc_copy.yaml").write_text((tasks / "tiny_mc_copy.yaml").read_text() + "\n# changed\n")
    assert _hash(None, [tasks], "tiny_group", local_data=False) != group


def _sweep_rows(key, limit=20.0):
    import densing.eval.harness as harness

    return pd.DataFrame(
        [
            {
                "model": "m",
                "benchmark": "arc_challenge",
                "metric": metric,
                "value": value,
                "params": 1e8,
                "model_path": "no/such/model",
                "revision": None,
                "score_task": "densing_local_arc_challenge",
                "limit": limit,
                "backend": "hf",
                "lm_eval_version": harness.lm_eval_version(),
                "config_hash": key,
            }
            for metric, value in (("acc", 0.3), ("acc_norm", 0.35))
        ]
    )


def test_rekey_rewrites_only_the_key_of_parts_that_agree_with_the_sweep(tmp_path, capsys):
    root, store = _data_root(tmp_path / "data"), tmp_path / "store"
    models = tmp_path / "models.yaml"
    models.write_text("models:\n  - name: m\n    model: no/such/model\n    params: 1e8\n")
    write_part(store, "m", "arc_challenge", _sweep_rows("an-older-key"), "an-older-key")
    before = pd.read_parquet(part_path(store, "m", "arc_challenge"))
    options = dict(local_data=True, data_root=root, limit=20, backend="densing-hf")
    assert rekey_store(store, models, ["arc_challenge", "mmlu"], **options) == [
        ("m", "arc_challenge", f"rekeyed an-older-key → {_hash(root)}"),
        ("m", "mmlu", "absent"),
    ]
    after = pd.read_parquet(part_path(store, "m", "arc_challenge"))
    assert is_done(store, "m", "arc_challenge", _hash(root)) and set(after.config_hash) == {_hash(root)}
    pd.testing.assert_frame_equal(after.drop(columns="config_hash"), before.drop(columns="config_hash"))
    assert rekey_store(store, models, ["arc_challenge"], **options) == [("m", "arc_challenge", "current")]

    write_part(store, "m", "arc_challenge", _sweep_rows("an-older-key", limit=float("nan")), "an-older-key")
    [(_, _, outcome)] = rekey_store(store, models, ["arc_challenge"], **options)
    assert outcome.startswith("differs: limit None (the sweep: 20.0)")
    assert read_part_hash(part_path(store, "m", "arc_challenge")) == "an-older-key"

    assert (
        main(
            [
                str(store),
                "--models",
                str(models),
                "--benchmarks",
                "arc_challenge",
                "--local-data",
                "--data-root",
                str(root),
                "--limit",
                "20",
                "--backend",
                "densing-hf",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.startswith("m / arc_challenge: differs: limit")
    assert main([str(tmp_path / "nowhere"), "--models", str(models), "--suite", "leaderboard-v1"]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'nowhere'}: no such results store directory\n"


def test_two_checkouts_at_different_paths_share_one_store_and_the_second_evaluates_nothing(
    tmp_path, capsys, fake_source
):
    """What two clones of the repository are to one store: the same local split under two data roots at different
    paths. The first sweep evaluates (through a registered lm-eval model); the second, from the other root, finds its
    pair done, loads no model and sends no request."""
    from tests.cli_run import run as _run
    from tests.conftest import SHARED_DATA
    from tests.eval.fake_backend import NAME, FakeLM, fake_models_file as _models

    split = SHARED_DATA / "benchmarks" / "arc" / "ARC-Challenge-test.jsonl"
    roots = []
    for place in ("one/densing/data", "elsewhere/clone/data"):
        (tmp_path / place / "benchmarks" / "arc").mkdir(parents=True)
        shutil.copy(split, tmp_path / place / "benchmarks" / "arc" / split.name)
        roots.append(tmp_path / place)
    store, models = tmp_path / "store", _models(tmp_path)
    FakeLM.made.clear()
    for root in roots:
        code, _, err = _run(
            [
                "eval",
                "--models",
                str(models),
                "--benchmarks",
                "arc_challenge",
                "--local-data",
                "--data-root",
                str(root),
                "--limit",
                "3",
                "--backend",
                NAME,
                "--out",
                str(store),
                "--format",
                "csv",
            ],
            capsys,
        )
        assert code == 0, err
    assert len(FakeLM.made) == 1  # the model was made once: for the first root only
    assert "0 pair(s) evaluated, 1 already in the store" in err
    assert len(pd.read_parquet(part_path(store, "fake", "arc_challenge"))) > 0
