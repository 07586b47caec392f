"""Slot storage of continuous batching and the cascade attention that reads it.

Each group prefix's keys/values (``[kv_heads, P, head_dim]`` per layer and group) are held once, shared by every cache
of one decode; ``rows`` slots each hold one request's own tokens in columns of a ``[rows, kv_heads, capacity,
head_dim]`` buffer per layer, every slot writing a step's tokens at the same column (``write_at``; which columns are a
slot's own is the scheduler's mask). Each row attends to [its group's prefix ; its own columns]
(:func:`shared_prefix_attention`, the "cascade" split of FlashInfer, Ye et al. 2025, arXiv 2501.01005, and Hydragen,
Juravsky et al. 2024, arXiv 2402.05099), registered with transformers' ``AttentionInterface`` as
:data:`ATTENTION_NAME` and used only inside :func:`attention_swapped`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch
from transformers.cache_utils import DynamicCache, DynamicLayer

from densing.eval.backends.prefix.grouping import contiguous_parts


class SlotLayer(DynamicLayer):
    """One layer's keys/values: group prefixes held once, per-slot regions in one buffer (module docstring)."""

    def __init__(self, owner: SlotCache, prefixes: dict) -> None:
        super().__init__()
        self.owner, self.prefixes = owner, prefixes
        self.key_buffer = self.value_buffer = None

    def allocate(self, like: torch.Tensor) -> None:
        """The slot buffers, once: ``[rows, kv_heads, capacity, head_dim]`` of ``like``'s dtype and device."""
        if self.key_buffer is None:
            shape = (self.owner.rows, like.shape[1], self.owner.capacity, like.shape[-1])
            self.key_buffer, self.value_buffer = like.new_zeros(shape), like.new_zeros(shape)
            self.dtype, self.device, self.is_initialized = like.dtype, like.device, True

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any):
        self.allocate(key_states)
        start, stop = self.owner.write_at, self.owner.write_at + key_states.shape[2]
        self.key_buffer[:, :, start:stop] = key_states
        self.value_buffer[:, :, start:stop] = value_states
        self.keys, self.values = self.key_buffer[:, :, :stop], self.value_buffer[:, :, :stop]
        return self.keys, self.values

    def get_seq_length(self) -> int:
        return self.owner.write_at


class SlotCache(DynamicCache):
    """The cache :func:`shared_prefix_attention` reads (module docstring), with each row's group (``row_group``)."""

    def __init__(
        self, config: Any, layers: int, rows: int, capacity: int, prefixes: list[dict], part_cost: int
    ) -> None:
        super().__init__(config=config)
        self.rows, self.capacity, self.write_at, self.part_cost = rows, capacity, 0, part_cost
        self.row_group: list[Any] = [None] * rows
        self.parts: list | None = None  # set by plan() before each decoding step
        self.layers = [SlotLayer(self, prefixes[i]) for i in range(layers)]

    def plan(self, widths: Sequence[int] | None) -> None:
        """Row ``r`` reads its last ``widths[r]`` columns in the next forward, in :func:`contiguous_parts`' runs."""
        self.parts = (
            None
            if widths is None
            else [
                (self.row_group[start], slice(start, stop), width)
                for start, stop, width in contiguous_parts(widths, self.row_group, self.part_cost)
            ]
        )

    def parts_of_rows(self) -> list[tuple[Any, Any, int | None]]:
        """``[(group, rows, width)]`` for the attention: the plan's, else one part per group over all columns."""
        if self.parts is not None:
            return self.parts
        present = dict.fromkeys(self.row_group)
        if len(present) == 1:
            return [(next(iter(present)), slice(None), None)]
        return [(g, torch.tensor([r for r, h in enumerate(self.row_group) if h == g]), None) for g in present]

    def select(self, rows: list[int]) -> None:
        """Keep these rows only (in this order)."""
        index = torch.tensor(rows, dtype=torch.long)
        for layer in self.layers:
            if layer.key_buffer is not None:
                layer.key_buffer = layer.key_buffer[index.to(layer.key_buffer.device)]
                layer.value_buffer = layer.value_buffer[index.to(layer.value_buffer.device)]
        self.row_group = [self.row_group[r] for r in rows]
        self.rows = len(rows)
        self.parts = None


def cache_kwargs(model, cache) -> dict:
    """The keyword a forward pass takes its key/value cache by: ``cache`` in transformers ≥ 5 (where
    ``past_key_values`` is deprecated, to be removed in 5.40), ``past_key_values`` before."""
    return {_cache_keyword(type(model)): cache}


@functools.cache
def _cache_keyword(model_class: type) -> str:
    import inspect

    return "cache" if "cache" in inspect.signature(model_class.forward).parameters else "past_key_values"


#: model types whose attention module calls ``ALL_ATTENTION_FUNCTIONS`` with (query, key, value, mask)
SUPPORTED = frozenset({"llama", "mistral", "qwen2", "qwen3", "olmo", "olmo2"})
#: the name :func:`shared_prefix_attention` is registered under
ATTENTION_NAME = "densing_shared_prefix"


def supported(model: Any) -> bool:
    """Whether continuous batching can decode ``model``: a :data:`SUPPORTED` decoder without a sliding window."""
    config = getattr(model, "config", None)
    return (
        config is not None
        and getattr(config, "model_type", None) in SUPPORTED
        and getattr(config, "sliding_window", None) is None
        and not getattr(config, "is_encoder_decoder", False)
    )


def shared_prefix_attention(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor,
    scaling: float | None = None,
    dropout: float = 0.0,
    densing_slots: SlotCache | None = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """Attention of each row over [its group's prefix ; its own columns]:
    ``softmax([q·Kpᵀ, q·Krᵀ + mask]·s) · [Vp ; Vr]`` with ``s = scaling`` (1/√d by default),
    ``Kp, Vp`` the group prefix's keys/values (one copy for all rows of the group), ``Kr, Vr`` the row's slot columns,
    ``mask`` the boolean ``attention_mask`` ``[rows, 1, q, columns]`` (False → −∞). Query head ``i`` reads key/value
    head ``i // (heads / kv_heads)`` (grouped-query). Rows are taken in the parts of ``densing_slots.parts_of_rows()``:
    a run of one group's rows whose own columns all lie in the last ``width`` columns (:meth:`SlotCache.plan`) reads
    only those, so a row that has decoded 1,000 tokens does not make every other row read 1,000 columns. Returns
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
        shared = torch.matmul(flat, prefix_keys.transpose(-1, -2)) * scale  # [kv_heads, n·g·q, P]
        top = torch.maximum(
            shared.amax(dim=-1).reshape(kv_heads, n, group * q).transpose(0, 1)[..., None],
            own.amax(dim=-1, keepdim=True),
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
    configs = {
        id(c): c for c in (model.config, getattr(getattr(model, "model", None), "config", None)) if c is not None
    }
    before = {key: c._attn_implementation for key, c in configs.items()}
    try:
        for c in configs.values():
            c._attn_implementation = ATTENTION_NAME
        yield
    finally:
        for key, c in configs.items():
            c._attn_implementation = before[key]
