"""densing eval through the real lm-eval HF backend, checked against transformers directly."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from .conftest import GEN_DOCS, MC_DOCS, models_entries

torch = pytest.importorskip("torch")
pytest.importorskip("lm_eval")
pytestmark = pytest.mark.eval


def _load(path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    model.eval()
    return model, AutoTokenizer.from_pretrained(path)


def _log_likelihood(model, tokenizer, context: str, continuation: str) -> tuple[float, int]:
    """log P(continuation | context) summed over the continuation's tokens, and their number."""
    context_ids = tokenizer(context)["input_ids"]
    continuation_ids = tokenizer(continuation)["input_ids"]
    assert context_ids + continuation_ids == tokenizer(context + continuation)["input_ids"]
    ids = torch.tensor([context_ids + continuation_ids])
    with torch.no_grad():
        logits = model(ids).logits[0].double()
    log_probs = torch.log_softmax(logits, dim=-1)
    n = len(continuation_ids)
    positions = range(len(context_ids) - 1, len(context_ids) - 1 + n)
    total = sum(log_probs[p, t].item() for p, t in zip(positions, continuation_ids))
    return total, n


def _greedy(model, tokenizer, context: str, max_tokens: int) -> str:
    ids = tokenizer(context)["input_ids"]
    out: list[int] = []
    with torch.no_grad():
        for _ in range(max_tokens):
            logits = model(torch.tensor([ids + out])).logits[0, -1]
            out.append(int(logits.argmax()))
    return tokenizer.decode(out).split("\n")[0]


def _row(frame: pd.DataFrame, model: str, benchmark: str, metric: str) -> pd.Series:
    rows = frame[(frame.model == model) & (frame.benchmark == benchmark) & (frame.metric == metric)]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def test_score_and_conditional_loss_match_transformers(reference_store, tiny_models):
    from densing.data import read_results

    frame = read_results(reference_store)  # what `densing fit --data STORE` reads
    assert set(frame.benchmark) == {"tiny_mc", "tiny_gen"}
    assert {
        "config_hash",
        "lm_eval_version",
        "timestamp",
        "loss_per_token",
        "loss_per_byte",
        "loss_tokens",
        "loss_bytes",
    } <= set(frame.columns)
    max_difference = 0.0
    for index, path in enumerate(tiny_models):
        name = f"tiny-{index}"
        model, tokenizer = _load(path)
        # multiple choice: score and loss of the gold choice
        correct = correct_norm = 0
        loss_total = 0.0
        tokens = bytes_ = 0
        for doc in MC_DOCS:
            context = f"Question: {doc['question']}\nAnswer:"
            lls = [_log_likelihood(model, tokenizer, context, " " + c)[0] for c in doc["choices"]]
            correct += int(max(range(3), key=lambda i: lls[i]) == doc["gold"])
            correct_norm += int(max(range(3), key=lambda i: lls[i] / len(doc["choices"][i])) == doc["gold"])
            ll, n = _log_likelihood(model, tokenizer, context, " " + doc["choices"][doc["gold"]])
            loss_total -= ll
            tokens += n
            bytes_ += len((" " + doc["choices"][doc["gold"]]).encode())
        acc = _row(frame, name, "tiny_mc", "acc")
        assert acc.value == pytest.approx(correct / len(MC_DOCS), abs=1e-12)
        assert _row(frame, name, "tiny_mc", "acc_norm").value == pytest.approx(correct_norm / len(MC_DOCS), abs=1e-12)
        assert acc.loss_tokens == tokens and acc.loss_bytes == bytes_
        for column, expected in (
            ("loss", loss_total / len(MC_DOCS)),
            ("loss_per_token", loss_total / tokens),
            ("loss_per_byte", loss_total / bytes_),
        ):
            max_difference = max(max_difference, abs(acc[column] - expected))
            assert acc[column] == pytest.approx(expected, abs=1e-4)
        # generative: exact match of greedy decoding, loss of the reference answer
        matches = 0
        loss_total, tokens = 0.0, 0
        for doc in GEN_DOCS:
            context = f"Q: {doc['question']}\nA:"
            matches += int(_greedy(model, tokenizer, context, 6) == " " + doc["answer"])
            ll, n = _log_likelihood(model, tokenizer, context, " " + doc["answer"])
            loss_total -= ll
            tokens += n
        gen = _row(frame, name, "tiny_gen", "exact_match")
        assert gen.value == pytest.approx(matches / len(GEN_DOCS))
        assert gen.loss_task == "tiny_gen_loss"
        assert gen.loss == pytest.approx(loss_total / len(GEN_DOCS), abs=1e-4)
        assert gen.loss_per_token == pytest.approx(loss_total / tokens, abs=1e-4)
        max_difference = max(max_difference, abs(gen.loss - loss_total / len(GEN_DOCS)))
        # parameters counted from the loaded model; metadata from the models file
        assert acc.params == sum(p.numel() for p in model.parameters())
        assert (
            acc.non_embedding_params
            == acc.params - model.transformer.wte.weight.numel() - model.transformer.wpe.weight.numel()
        )
        assert acc.train_tokens == 2e6
    print(f"max |loss difference| vs transformers: {max_difference:.2e}")


class _ForwardCounter:
    def __init__(self, monkeypatch):
        from transformers import GPT2LMHeadModel

        self.calls = 0
        original = GPT2LMHeadModel.forward

        def counting(module, *args, **kwargs):
            self.calls += 1
            return original(module, *args, **kwargs)

        monkeypatch.setattr(GPT2LMHeadModel, "forward", counting)


def test_forward_calls_equal_plain_lm_eval_and_zero_on_rerun(tmp_path, tiny_models, tiny_tasks, monkeypatch):
    import lm_eval
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    from densing.eval.runner import run_sweep

    counter = _ForwardCounter(monkeypatch)
    manager = TaskManager(include_path=[str(tiny_tasks)], include_defaults=False)
    lm = HFLM(pretrained=str(tiny_models[0]), device="cpu", batch_size=1)
    lm_eval.simple_evaluate(
        model=lm, tasks=["tiny_mc", "tiny_gen", "tiny_gen_loss"], task_manager=manager, bootstrap_iters=0
    )
    plain = counter.calls
    assert plain > 0

    counter.calls = 0
    entries = models_entries(tiny_models[:1])
    run_sweep(entries, ["tiny_mc", "tiny_gen"], tmp_path / "store", include_paths=[tiny_tasks], device="cpu")
    assert counter.calls == plain  # loss extraction adds no forward pass
    print(f"forward calls: plain lm-eval {plain}, densing eval {counter.calls}")

    counter.calls = 0
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "store").rglob("*.parquet")}
    again = run_sweep(entries, ["tiny_mc", "tiny_gen"], tmp_path / "store", include_paths=[tiny_tasks], device="cpu")
    assert counter.calls == 0
    assert before == {p: p.stat().st_mtime_ns for p in (tmp_path / "store").rglob("*.parquet")}
    assert len(again) == 3 and not math.isnan(again.loss.iloc[0])


def test_group_benchmark_score_and_loss_cover_all_subtasks(tmp_path, tiny_models, tiny_tasks, reference_store):
    from densing.eval.runner import run_sweep
    from densing.eval.store import read_store

    frame = run_sweep(
        models_entries(tiny_models[:1]), ["tiny_group"], tmp_path / "store", include_paths=[tiny_tasks], device="cpu"
    )
    reference = read_store(reference_store)
    single = _row(reference, "tiny-0", "tiny_mc", "acc")
    group = _row(frame, "tiny-0", "tiny_group", "acc")
    assert group.value == pytest.approx(single.value)  # two copies of the same task
    assert group.loss_samples == 2 * single.loss_samples
    assert group.loss_total == pytest.approx(2 * single.loss_total, abs=1e-6)
    assert group.loss == pytest.approx(single.loss, abs=1e-6)
    assert group.loss_task == "tiny_mc,tiny_mc_copy"


def test_pandas_entry_point_with_limit(tiny_models, tiny_tasks, reference_store):
    import densing.eval
    from densing.eval.store import read_store

    frame = densing.eval.evaluate(
        models_entries(tiny_models[:1]), "tiny_mc", limit=2, include_paths=[tiny_tasks], device="cpu"
    )
    acc = _row(frame, "tiny-0", "tiny_mc", "acc")
    full = _row(read_store(reference_store), "tiny-0", "tiny_mc", "acc")
    assert acc.loss_samples == 2 and full.loss_samples == len(MC_DOCS)
    assert acc.limit == 2 and acc.config_hash != full.config_hash
    assert acc.lm_eval_version == full.lm_eval_version and acc.params == full.params


def test_a_generative_group_without_a_loss_task_counts_its_items(tmp_path, tiny_models, tiny_tasks):
    """BBH's shape: a group of generate_until tasks with no companion loss task. ``items`` is the
    number of documents scored (the stored loss samples are 0), so the table's binomial standard
    error is defined; the loss is absent, not zero."""
    from densing.eval.runner import run_sweep

    gen = (tiny_tasks / "tiny_gen.yaml").read_text()
    for copy in ("tiny_cot_a", "tiny_cot_b"):
        (tmp_path / f"{copy}.yaml").write_text(gen.replace("task: tiny_gen", f"task: {copy}"))
    (tmp_path / "tiny_cot.yaml").write_text(
        "group: tiny_cot\ntask:\n  - tiny_cot_a\n  - tiny_cot_b\naggregate_metric_list:\n"
        "  - metric: exact_match\n    weight_by_size: true\nmetadata:\n  version: 1.0\n"
    )
    frame = run_sweep(
        models_entries(tiny_models[:1]), ["tiny_cot"], tmp_path / "store", include_paths=[tmp_path], device="cpu"
    )
    row = frame[frame.metric == "exact_match"].iloc[0]
    assert row["items"] == 2 * len(GEN_DOCS) and row["loss_samples"] == 0
    assert math.isnan(row["loss"])
    limited = run_sweep(
        models_entries(tiny_models[:1]),
        ["tiny_cot"],
        tmp_path / "limited",
        include_paths=[tmp_path],
        device="cpu",
        limit=1,
    )
    assert limited[limited.metric == "exact_match"].iloc[0]["items"] == 2


def test_the_request_cache_is_keyed_by_what_decodes():
    """A new decoder version (or another backend class) gives another cache key; the same decoder the same one."""
    from densing.eval import runner
    from densing.eval.backends.prefix import lm as prefix_lm

    class Plain:
        pass

    plain = runner.decoding_identity(Plain)
    assert (
        plain["class"].endswith("Plain") and "densing_decoder" not in plain and plain == runner.decoding_identity(Plain)
    )
    first = runner.decoding_identity(prefix_lm.PrefixCachedHFLM)
    assert first["densing_decoder"] == prefix_lm.DECODER_VERSION and first != plain

    class Changed(prefix_lm.PrefixCachedHFLM):  # the same class after a decoder change
        decoder_version = prefix_lm.DECODER_VERSION + 1

    Changed.__qualname__ = prefix_lm.PrefixCachedHFLM.__qualname__
    Changed.__module__ = prefix_lm.PrefixCachedHFLM.__module__
    changed = runner.decoding_identity(Changed)
    assert changed["class"] == first["class"] and changed != first


@pytest.mark.parametrize("rank", [0, 1])
def test_no_results_is_quiet_on_a_rank_other_than_zero_and_an_error_on_rank_zero(monkeypatch, rank):
    """Under ``accelerate launch`` lm-eval returns results on rank 0 only: the other ranks write nothing and return."""
    import lm_eval

    from densing.errors import EvalError
    from densing.eval import runner
    from densing.eval.benchmarks import Benchmark
    from densing.eval.loading import ParameterCounts
    from densing.eval.models import model_spec_from_mapping

    class Manager:
        def load(self, names):
            return {"groups": {}, "tasks": {n: object() for n in names}}

    class Lm:
        pass

    lm = Lm()
    lm.rank = rank
    monkeypatch.setattr(lm_eval, "simple_evaluate", lambda **kwargs: None)
    spec = model_spec_from_mapping({"name": "m", "model": "gpt2"}, where="test")
    expected = runner.OtherRank if rank else EvalError
    with pytest.raises(expected):
        runner.evaluate_pair(
            lm,
            Manager(),
            spec,
            Benchmark("b", "b"),
            lambda: ParameterCounts(1.0, 1.0, 1.0),
            limit=None,
            use_cache=None,
            allow_unsafe_code=False,
            config_hash_value="x",
            backend="hf",
        )


def test_the_file_system_under_a_store_is_read_from_the_mount_table(tmp_path):
    from densing.eval.runner import network_file_system

    mounts = tmp_path / "mounts"
    mounts.write_text(
        f"/dev/sda1 / ext4 rw 0 0\nserver:/export {tmp_path / 'shared'} nfs4 rw 0 0\n"
        f"tmpfs {tmp_path / 'shared' / 'local'} tmpfs rw 0 0\n"
    )
    assert network_file_system(tmp_path / "shared" / "store", str(mounts)) == "nfs4"
    assert network_file_system(tmp_path / "shared" / "local" / "store", str(mounts)) is None  # the deeper mount wins
    assert network_file_system(tmp_path / "elsewhere", str(mounts)) is None
    assert network_file_system(tmp_path, str(tmp_path / "no_such_table")) is None
