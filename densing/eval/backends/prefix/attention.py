"""Cascade attention over a shared prefix: each row attends to [its group's prefix ; its own columns].

The prefix's keys/values are held once per group (:mod:`.slots`) and read once for all rows of the
group, as two matmuls and one joint softmax — the "cascade" split of FlashInfer (Ye et al. 2025,
arXiv 2501.01005) and Hydragen (Juravsky et al. 2024, arXiv 2402.05099). The function goes through
transformers' ``AttentionInterface`` under :data:`ATTENTION_NAME`, and a model uses it only inside
:func:`attention_swapped` (its own attention implementation is restored afterwards).
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Any, Iterator

import torch

from densing.eval.backends.prefix.slots import SlotCache

#: model types whose attention module calls ``ALL_ATTENTION_FUNCTIONS`` with (query, key, value, mask)
SUPPORTED = frozenset({"llama", "mistral", "qwen2", "qwen3", "olmo", "olmo2"})
#: the name :func:`shared_prefix_attention` is registered under
ATTENTION_NAME = "densing_shared_prefix"


def supported(model: Any) -> bool:
    """Whether continuous batching can decode ``model``: a decoder of a :data:`SUPPORTED` type without a
    sliding window."""
    config = getattr(model, "config", None)
    return (
        config is not None
        and getattr(config, "model_type", None) in SUPPORTED
        and getattr(config, "sliding_window", None) is None
        and not getattr(config, "is_encoder_decoder", False)
    )


def shared_prefix_attention(
    module: torch.nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
    attention_mask: torch.Tensor, scaling: float | None = None, dropout: float = 0.0,
    densing_slots: SlotCache | None = None, **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """Attention of each row over [its group's prefix ; its own columns]:
    ``softmax([q·Kpᵀ, q·Krᵀ + mask]·s) · [Vp ; Vr]`` with ``s = scaling`` (1/√d by default),
    ``Kp, Vp`` the group prefix's keys/values (one copy for all rows of the group), ``Kr, Vr`` the
    row's slot columns, ``mask`` the boolean ``attention_mask`` ``[rows, 1, q, columns]`` (False →
    −∞). Query head ``i`` reads key/value head ``i // (heads / kv_heads)`` (grouped-query). Rows are
    taken in the parts of ``densing_slots.parts_of_rows()``: a run of one group's rows whose own
    columns all lie in the last ``width`` columns (:meth:`SlotCache.plan`) reads only those, so a row
    that has decoded 1,000 tokens does not make every other row read 1,000 columns. Returns
    ``[rows, q, heads, head_dim]`` as transformers' attention functions do."""
    if densing_slots is None:
        raise RuntimeError("shared_prefix_attention is only used inside densing's continuous decoding")
    rows, heads, q, dim = query.shape
    kv_heads, columns = key.shape[1], key.shape[2]
    group = heads // kv_heads
    scale = scaling if scaling is not None else 1.0 / math.sqrt(dim)
    grouped = query.reshape(rows, kv_heads, group * q, dim)
    out = torch.empty_like(grouped)
    prefixes = densing_slots.layers[module.layer_idx].prefixes
    for name, chosen, width in densing_slots.parts_of_rows():
        first = 0 if width is None else columns - width  # the part's rows read their last `width` columns only
        queries = grouped[chosen]
        n = queries.shape[0]
        keys, values = key[chosen, :, first:], value[chosen, :, first:]
        allowed = attention_mask[chosen, :, :, first:]
        allowed = allowed[:, :, None].expand(n, 1, group, q, columns - first).reshape(n, 1, group * q, columns - first)
        own = (torch.matmul(queries, keys.transpose(-1, -2)) * scale).masked_fill(~allowed, float("-inf"))
        prefix = prefixes.get(name)
        if prefix is None:
            out[chosen] = torch.matmul(torch.softmax(own, dim=-1), values)
            continue
        prefix_keys, prefix_values = prefix  # [kv_heads, P, dim]
        flat = queries.transpose(0, 1).reshape(kv_heads, n * group * q, dim)
        shared = (torch.matmul(flat, prefix_keys.transpose(-1, -2)) * scale)  # [kv_heads, n·g·q, P]
        top = torch.maximum(
            shared.amax(dim=-1).reshape(kv_heads, n, group * q).transpose(0, 1)[..., None], own.amax(dim=-1, keepdim=True)
        )
        shared_exp = torch.exp(shared - top.transpose(0, 1).reshape(kv_heads, n * group * q, 1))
        own_exp = torch.exp(own - top)
        total = shared_exp.sum(dim=-1).reshape(kv_heads, n, group * q).transpose(0, 1)[..., None] + own_exp.sum(
            dim=-1, keepdim=True
        )
        mixed = torch.matmul(shared_exp, prefix_values).reshape(kv_heads, n, group * q, dim).transpose(0, 1)
        out[chosen] = (mixed + torch.matmul(own_exp, values)) / total
    return out.reshape(rows, heads, q, dim).transpose(1, 2).contiguous(), None


@contextmanager
def attention_swapped(model: Any) -> Iterator[None]:
    """Run ``model`` with :func:`shared_prefix_attention` (restores its attention afterwards)."""
    from transformers import AttentionInterface

    AttentionInterface.register(ATTENTION_NAME, shared_prefix_attention)
    configs = {id(c): c for c in (model.config, getattr(getattr(model, "model", None), "config", None)) if c is not None}
    before = {key: c._attn_implementation for key, c in configs.items()}
    try:
        for c in configs.values():
            c._attn_implementation = ATTENTION_NAME
        yield
    finally:
        for key, c in configs.items():
            c._attn_implementation = before[key]
