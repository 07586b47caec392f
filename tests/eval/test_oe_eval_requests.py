"""AI2's request sets as benchmarks: the reader, and the ladder's scores of a tiny hand-made set."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from densing.errors import InputError
from densing.eval.tasks.oe_eval_requests import read_request_set, unconditioned_offset

SHOTS = "Question: What colour is the sky?\nAnswer: blue\n\n"
# (doc_id, context(s), continuations, gold): two ranked-classification items and an unconditioned
# request of the first (doc_id + offset, context "Answer:"), which no ladder column uses
ITEMS = [
    (0, SHOTS + "Question: Which animal barks?\nAnswer:", [" dog", " cat", " a fish"], 0),
    (1, SHOTS + "Question: What do bees make?\nAnswer:", [" milk", " honey"], 1),
]


def _write_set(folder: Path, items, unconditioned: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for doc_id, context, continuations, gold in items:
        for idx, continuation in enumerate(continuations):
            lines.append(
                {
                    "request_type": "loglikelihood",
                    "doc": {},
                    "request": {"context": context, "continuation": continuation},
                    "idx": idx,
                    "task_name": "t",
                    "doc_id": doc_id,
                    "native_id": doc_id,
                    "label": gold,
                }
            )
            if unconditioned:
                lines.append(
                    {
                        "request": {"context": "Answer:", "continuation": continuation},
                        "idx": idx,
                        "doc_id": 1_000_000 + doc_id,
                        "label": gold,
                    }
                )
    with gzip.open(folder / "requests.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in lines)
    config = {
        "task_config": {
            "primary_metric": "acc_per_char",
            "num_shots": 1,
            "metric_kwargs": {"uncond_docid_offset": 1_000_000},
        }
    }
    (folder / "config.json").write_text(json.dumps(config))
    return folder / "requests.jsonl.gz"


def test_reader_groups_requests_by_item_and_drops_unconditioned(tmp_path):
    path = _write_set(tmp_path / "set", ITEMS)
    docs = read_request_set(path, unconditioned_offset(path))
    assert [d["doc_id"] for d in docs] == ["0", "1"]
    assert docs[0]["continuations"] == [" dog", " cat", " a fish"] and docs[0]["gold"] == 0
    assert set(docs[0]["contexts"]) == {ITEMS[0][1]}
    assert len(read_request_set(path)) == 4  # without the offset the unconditioned items stay


def test_reader_names_the_file_and_line_of_a_bad_request(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    with gzip.open(folder / "requests.jsonl.gz", "wt") as handle:
        handle.write(json.dumps({"doc_id": 0, "idx": 0, "label": 0, "request": {"context": "a"}}) + "\n")
    with pytest.raises(InputError, match=r"requests.jsonl.gz: line 1"):
        read_request_set(folder / "requests.jsonl.gz")


@pytest.mark.eval
def test_request_set_benchmark_scores_as_the_ladder(tmp_path, tiny_model):
    """acc, len_norm (per character of the continuation less its space) and bits per byte of the
    gold continuation, from the plain HF backend's log-likelihoods of the file's own requests."""
    pytest.importorskip("lm_eval")
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    from densing.eval.runner import run_sweep

    root = tmp_path / "data"
    _write_set(root / "olmo_ladder" / "oe_eval_tasks" / "hellaswag" / "rc_5shot", ITEMS)
    models = [{"name": "tiny", "model": str(tiny_model), "train_tokens": "2M", "release_date": "2024-01-01"}]
    rows = run_sweep(
        models, ["olmo_hellaswag_rc_5shot"], tmp_path / "store", device="cpu", data_root=root, backend="densing-hf"
    )
    values = dict(zip(rows["metric"], rows["value"]))

    lm = HFLM(pretrained=str(tiny_model), device="cpu", batch_size=1, dtype="float32")
    acc, len_norm, bpb = [], [], []
    for _, context, continuations, gold in ITEMS:
        instances = [Instance("loglikelihood", {}, (context, c), i) for i, c in enumerate(continuations)]
        lls = [ll for ll, _ in lm.loglikelihood(instances, disable_tqdm=True)]
        acc.append(max(range(len(lls)), key=lambda i: lls[i]) == gold)
        per_char = [ll / (len(c) - 1) for ll, c in zip(lls, continuations)]
        len_norm.append(max(range(len(lls)), key=lambda i: per_char[i]) == gold)
        bpb.append(-lls[gold] / len(continuations[gold][1:].encode()) / math.log(2))
    assert values["acc"] == pytest.approx(sum(acc) / 2)
    assert values["len_norm"] == pytest.approx(sum(len_norm) / 2)
    assert rows["loss"].iloc[0] == pytest.approx(sum(bpb) / 2, abs=1e-5)
    assert rows["loss_unit"].iloc[0] == "bpb" and rows["items"].iloc[0] == 2


def _hellaswag_sweep(tmp_path, tiny_model):
    """AI2's HellaSwag RC set written under ``tmp_path``, the tiny model's entry, the sweep options (prefix cache) and
    the rows of an unsharded run."""
    from densing.eval.runner import run_sweep

    root = tmp_path / "data"
    _write_set(root / "olmo_ladder" / "oe_eval_tasks" / "hellaswag" / "rc_5shot", ITEMS)
    models = [{"name": "tiny", "model": str(tiny_model), "train_tokens": "2M", "release_date": "2024-01-01"}]
    options = dict(device="cpu", data_root=root, backend="densing-hf")
    return models, options, run_sweep(models, ["olmo_hellaswag_rc_5shot"], tmp_path / "plain", **options)


def _count_scored(monkeypatch) -> list[int]:
    """The sizes of the log-likelihood batches the prefix backend computes from now on (not those the cache holds)."""
    from densing.eval.backends.prefix.lm import PrefixCachedHFLM

    scored: list[int] = []
    original = PrefixCachedHFLM._loglikelihood_tokens

    def counting(self, requests, *args, **kwargs):
        scored.append(len(requests))
        return original(self, requests, *args, **kwargs)

    monkeypatch.setattr(PrefixCachedHFLM, "_loglikelihood_tokens", counting)
    return scored


@pytest.mark.eval
def test_sharded_runs_fill_the_request_cache_and_a_plain_run_scores_from_it(tmp_path, tiny_model, monkeypatch):
    """--shard 1/2 and 2/2 write no part and compute disjoint shares of the requests; the run
    without a shard then computes nothing and writes the rows an unsharded run writes."""
    pytest.importorskip("lm_eval")
    from densing.eval.runner import run_sweep
    from densing.eval.store import part_path

    models, options, plain = _hellaswag_sweep(tmp_path, tiny_model)
    scored = _count_scored(monkeypatch)
    store = tmp_path / "sharded"
    for k in (0, 1):
        rows = run_sweep(models, ["olmo_hellaswag_rc_5shot"], store, shard=(k, 2), **options)
        assert rows.empty and not part_path(store, "tiny", "olmo_hellaswag_rc_5shot").exists()
    assert sum(scored) == sum(len(c) for _, _, c, _ in ITEMS) and len(scored) == 2  # each request once
    scored.clear()
    rows = run_sweep(models, ["olmo_hellaswag_rc_5shot"], store, **options)
    assert sum(scored) == 0  # everything came from the request cache
    columns = ["metric", "value", "loss", "items"]
    # the same numbers up to float32 summation: a shard's trie passes group the requests otherwise than one run's
    pd.testing.assert_frame_equal(
        rows[columns].reset_index(drop=True), plain[columns].reset_index(drop=True), rtol=1e-6
    )
    with pytest.raises(InputError, match="shard"):
        run_sweep(
            models,
            ["olmo_hellaswag_rc_5shot"],
            tmp_path / "x",
            device="cpu",
            data_root=options["data_root"],
            shard=(0, 2),
        )
    with pytest.raises(InputError, match="shard"):
        run_sweep(models, ["olmo_hellaswag_rc_5shot"], tmp_path / "x", shard=(2, 2), **options)


@pytest.mark.eval
def test_shards_on_two_machines_merged_score_as_one_run(tmp_path, tiny_model, monkeypatch):
    """Shard 1/2 and 2/2 each into a store of its own (two machines' local disks), merged by ``densing eval
    merge-cache``: the run without a shard on the merged store computes nothing and writes the unsharded rows."""
    pytest.importorskip("lm_eval")
    from typer.testing import CliRunner

    from densing.cli.app import app
    from densing.eval.runner import run_sweep

    models, options, plain = _hellaswag_sweep(tmp_path, tiny_model)
    machines = [tmp_path / "machine-0", tmp_path / "machine-1"]
    for k, store in enumerate(machines):
        assert run_sweep(models, ["olmo_hellaswag_rc_5shot"], store, shard=(k, 2), **options).empty
    merged = tmp_path / "merged"
    result = CliRunner().invoke(
        app, ["eval", "merge-cache", *map(str, machines), "--into", str(merged), "--format", "csv"]
    )
    assert result.exit_code == 0, result.output
    scored = _count_scored(monkeypatch)
    rows = run_sweep(models, ["olmo_hellaswag_rc_5shot"], merged, **options)
    assert sum(scored) == 0  # every request came from the merged cache
    columns = ["metric", "value", "loss", "items"]
    # the same numbers up to float32 summation: a shard's trie passes group the requests otherwise than one run's
    pd.testing.assert_frame_equal(
        rows[columns].reset_index(drop=True), plain[columns].reset_index(drop=True), rtol=1e-6
    )


def test_time_limit_is_checked_before_anything_runs(tmp_path):
    from densing.eval.runner import run_sweep

    models = [{"name": "m", "model": str(tmp_path / "nowhere"), "train_tokens": "2M", "release_date": "2024-01-01"}]
    for bad in (0, -5.0, float("nan")):
        with pytest.raises(InputError, match="time_limit"):
            run_sweep(models, ["olmo_hellaswag_rc_5shot"], tmp_path / "s", backend="densing-hf", time_limit=bad)


@pytest.mark.eval
@pytest.mark.parametrize("raised, status", [("ShardFinished", "sharded"), ("TimeLimitReached", "stopped")])
def test_a_pair_left_in_the_cache_says_why(tmp_path, tiny_model, monkeypatch, raised, status):
    """A shard whose run hit the time limit is "stopped" (run again), not "sharded" (share done)."""
    pytest.importorskip("lm_eval")
    import densing.eval.runner as runner
    import densing.eval.store as store

    def stop(*args, **kwargs):
        raise getattr(store, raised)(3, 10)

    monkeypatch.setattr(runner, "evaluate_pair", stop)
    root = tmp_path / "data"
    _write_set(root / "olmo_ladder" / "oe_eval_tasks" / "hellaswag" / "rc_5shot", ITEMS)
    models = [{"name": "tiny", "model": str(tiny_model), "train_tokens": "2M", "release_date": "2024-01-01"}]
    seen = []
    rows = runner.run_sweep(
        models,
        ["olmo_hellaswag_rc_5shot"],
        tmp_path / "s",
        device="cpu",
        data_root=root,
        backend="densing-hf",
        shard=(0, 2),
        time_limit=60.0,
        on_progress=lambda *a: seen.append(a[2]),
    )
    assert seen == ["running", status] and rows.empty  # the model loads on its first request: none was made
