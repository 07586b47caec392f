"""Fixtures for the eval tests: a tiny random causal LM and tiny local lm-eval tasks, all offline."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

MC_DOCS = [
    {"question": "What colour is the sky on a clear day?", "choices": ["blue", "green", "red"], "gold": 0},
    {"question": "How many legs does a cat have?", "choices": ["two", "four", "six"], "gold": 1},
    {"question": "Which animal barks?", "choices": ["cat", "fish", "dog"], "gold": 2},
    {"question": "What do bees make?", "choices": ["honey", "milk", "silk"], "gold": 0},
    {"question": "Which is the largest number?", "choices": ["three", "nine", "one"], "gold": 1},
]
GEN_DOCS = [
    {"question": "Add two and three.", "answer": "five"},
    {"question": "What is the opposite of up?", "answer": "down"},
    {"question": "Name the colour of grass.", "answer": "green"},
    {"question": "Which animal says moo?", "answer": "a cow says moo"},
]

MC_YAML = """task: tiny_mc
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: "{{{{gold}}}}"
metric_list:
  - metric: acc
  - metric: acc_norm
metadata:
  version: 1.0
"""
GEN_YAML = """task: tiny_gen
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "Q: {{{{question}}}}\\nA:"
doc_to_target: " {{{{answer}}}}"
target_delimiter: ""
generation_kwargs:
  until: ["\\n"]
  max_gen_toks: 6
  do_sample: false
metric_list:
  - metric: exact_match
metadata:
  version: 1.0
"""
GEN_LOSS_YAML = """task: tiny_gen_loss
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: loglikelihood
doc_to_text: "Q: {{{{question}}}}\\nA:"
doc_to_target: " {{{{answer}}}}"
target_delimiter: ""
metric_list:
  - metric: perplexity
    aggregation: perplexity
    higher_is_better: false
metadata:
  version: 1.0
"""


def _write_jsonl(path: Path, docs: list[dict]) -> None:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))


@pytest.fixture(scope="session")
def tiny_tasks(tmp_path_factory) -> Path:
    """A directory of lm-eval task YAMLs (:func:`write_tiny_tasks`)."""
    return write_tiny_tasks(tmp_path_factory.mktemp("tasks"))


def write_tiny_tasks(root: Path) -> Path:
    """Writes lm-eval task YAMLs into ``root``: tiny_mc (multiple choice), tiny_gen (+ tiny_gen_loss), and
    tiny_group (two copies of tiny_mc); returns ``root``."""
    _write_jsonl(root / "mc.jsonl", MC_DOCS)
    _write_jsonl(root / "gen.jsonl", GEN_DOCS)
    (root / "tiny_mc.yaml").write_text(MC_YAML.format(data=root / "mc.jsonl"))
    (root / "tiny_gen.yaml").write_text(GEN_YAML.format(data=root / "gen.jsonl"))
    (root / "tiny_gen_loss.yaml").write_text(GEN_LOSS_YAML.format(data=root / "gen.jsonl"))
    # a group of two copies of tiny_mc, to check group benchmarks (MMLU-style)
    (root / "tiny_mc_copy.yaml").write_text(
        MC_YAML.format(data=root / "mc.jsonl").replace("task: tiny_mc", "task: tiny_mc_copy")
    )
    (root / "tiny_group.yaml").write_text(
        "group: tiny_group\ntask:\n  - tiny_mc\n  - tiny_mc_copy\naggregate_metric_list:\n"
        "  - metric: acc\n    weight_by_size: true\nmetadata:\n  version: 1.0\n"
    )
    return root


def build_tiny_model(directory: Path, seed: int = 0) -> Path:
    """A GPT-2 with 2 layers, hidden 32 and a BPE tokenizer trained on the task text; random weights."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    text = []
    for d in MC_DOCS:
        text.append(f"Question: {d['question']}\nAnswer: " + " ".join(d["choices"]))
    for d in GEN_DOCS:
        text.append(f"Q: {d['question']}\nA: {d['answer']}")
    tokenizer = Tokenizer(models.BPE(unk_token=None))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(text * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token="<|endoftext|>", bos_token="<|endoftext|>", unk_token="<|endoftext|>"
    )
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(fast),
        n_positions=256,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=fast.eos_token_id,
        eos_token_id=fast.eos_token_id,
    )
    model = GPT2LMHeadModel(config)
    model.eval()
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    fast.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def tiny_model(tiny_models) -> Path:
    return tiny_models[0]


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> list[Path]:
    """Two tiny models with different random weights."""
    pytest.importorskip("torch")
    pytest.importorskip("lm_eval")
    root = tmp_path_factory.mktemp("models")
    return [build_tiny_model(root / f"tiny-{seed}", seed=seed) for seed in (0, 1)]


def models_entries(paths: list[Path]) -> list[dict]:
    return [
        {"name": f"tiny-{i}", "model": str(p), "train_tokens": "2M", "release_date": f"2024-0{i + 1}-01"}
        for i, p in enumerate(paths)
    ]


def write_models_yaml(path: Path, paths: list[Path]) -> Path:
    import yaml

    path.write_text(yaml.safe_dump({"models": models_entries(paths)}))
    return path


@pytest.fixture(scope="session")
def reference_store(tmp_path_factory, tiny_models, tiny_tasks) -> Path:
    """An uninterrupted sweep of both tiny models over tiny_mc and tiny_gen."""
    from densing.eval.runner import run_sweep

    store = tmp_path_factory.mktemp("reference") / "store"
    run_sweep(models_entries(tiny_models), ["tiny_mc", "tiny_gen"], store, include_paths=[tiny_tasks], device="cpu")
    return store


@pytest.fixture
def fake_source(monkeypatch):
    """A registered lm-eval model of the tests reads no Hub files: the early check of a model's source (densing eval
    and measure, before lm-eval is imported: densing.placement.measure.check_offline_source) looks up no Hub cache."""
    from densing.placement import measure

    monkeypatch.setattr(measure, "hub_offline", lambda: False)
