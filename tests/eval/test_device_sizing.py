"""The prefix engine's device-sized defaults: the CPU's pass and row counts unchanged (512 trie nodes, 16 rows), and
CUDA's derived from the device's properties (memory, multiprocessors) and the model's dtype and shape, here with
the properties mocked; and the tree-attention mask built from subtree ranges equals the ancestor relation."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from densing.eval.backends.prefix.settings import PrefixSettings, Sizing

GiB = 1 << 30


def test_cpu_sizes_are_the_engines_constants():
    cpu = Sizing("cpu", memory_bytes=64 * GiB, multiprocessors=500)  # a CPU's memory or cores do not move them
    assert (cpu.tokens_per_batch(), cpu.rows_per_batch()) == (512, 16)
    assert (Sizing("mps").tokens_per_batch(), Sizing("mps").rows_per_batch()) == (512, 16)


def test_cuda_sizes_follow_multiprocessors_then_memory():
    llama_1b = dict(
        dtype_bytes=2, vocab_size=32_000, hidden_size=2048, kv_bytes_per_token=2 * 16 * 8 * 64 * 2, max_length=2048
    )
    h100 = Sizing("cuda", memory_bytes=80 * GiB, multiprocessors=132, **llama_1b)
    # 32 nodes × 132 SMs = 4,224 → 4,096; 132 / 2 = 66 → 64 rows; both far inside 80 GiB
    assert (h100.tokens_per_batch(), h100.rows_per_batch()) == (4096, 64)
    t4 = Sizing("cuda", memory_bytes=15 * GiB, multiprocessors=40, **llama_1b)
    assert (t4.tokens_per_batch(), t4.rows_per_batch()) == (1024, 16)  # 1,280 → 1,024; 20 → 16
    # a small card: a pass of 2,048 nodes needs 2048·(32000·6 + 4096·2 + 2048·2·16) B = 544 MB > 1/8 of 4 GiB
    small = Sizing("cuda", memory_bytes=4 * GiB, multiprocessors=132, **llama_1b)
    assert small.pass_bytes(2048) == 2048 * (32000 * 6 + 4096 * 2 + 2048 * 2 * 16) > small.memory_bytes / 8
    assert small.tokens_per_batch() == 1024 and small.pass_bytes(1024) <= small.memory_bytes / 8
    # rows' keys/values at full length: 64 · 2048 · 32 KiB = 4 GiB > 1/4 of 4 GiB → 16 rows (1 GiB)
    assert small.rows_per_batch() == 16
    fp32 = Sizing(
        "cuda",
        memory_bytes=4 * GiB,
        multiprocessors=132,
        **{**llama_1b, "dtype_bytes": 4, "kv_bytes_per_token": 2 * 16 * 8 * 64 * 4},
    )
    assert fp32.tokens_per_batch() == 1024 and fp32.rows_per_batch() == 8  # twice the bytes a row: half the rows


@pytest.mark.eval
def test_the_lm_reads_the_device_properties_of_cuda(tiny_model, monkeypatch):
    pytest.importorskip("lm_eval")
    import torch

    from densing.eval.backends.prefix.lm import PrefixCachedHFLM, device_sizing

    lm = PrefixCachedHFLM(pretrained=str(tiny_model), device="cpu", batch_size=1, dtype="float32")
    assert lm.sizing == Sizing("cpu") and (lm.token_budget(), lm.generation_rows()) == (512, 16)
    assert lm.with_settings(PrefixSettings(tokens_per_batch=7)).token_budget() == 7  # given settings win
    seen = []

    def properties(device):
        seen.append(device)
        return SimpleNamespace(total_memory=80 * GiB, multi_processor_count=132, name="mocked H100")

    monkeypatch.setattr(torch.cuda, "get_device_properties", properties)
    sizing = device_sizing(lm.model, "cuda:0", lm.max_length)
    config = lm.model.config
    kv_heads = getattr(config, "num_key_value_heads", config.num_attention_heads)
    kv = 2 * config.num_hidden_layers * kv_heads * (config.hidden_size // config.num_attention_heads) * 4
    assert seen == [torch.device("cuda:0")]
    assert sizing == Sizing(
        "cuda",
        memory_bytes=80 * GiB,
        multiprocessors=132,
        dtype_bytes=4,
        vocab_size=config.vocab_size,
        hidden_size=config.hidden_size,
        kv_bytes_per_token=kv,
        max_length=lm.max_length,
    )
    assert (sizing.tokens_per_batch(), sizing.rows_per_batch()) == (4096, 64)


def test_ancestor_mask_is_the_ancestor_relation():
    from densing.eval.backends.prefix.trie import ancestor_mask, plan_forwards

    inputs = [[1, 2, 3, 4], [1, 2, 3, 5, 6], [1, 2, 7], [1, 9, 9, 9], [8, 8], [8, 8, 1, 2]]
    (forward,) = plan_forwards(inputs, [len(i) - 1 for i in inputs], 4096)
    parents = forward.parents
    got = ancestor_mask(forward.positions).numpy()
    for j in range(len(parents)):
        chain, node = {j}, j
        while parents[node] >= 0:
            node = parents[node]
            chain.add(node)
        assert {i for i in range(len(parents)) if got[j, i]} == chain
