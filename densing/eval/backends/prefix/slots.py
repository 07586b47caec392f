"""Slot storage of continuous batching: each group prefix's keys/values held once, each request's
own keys/values in a per-slot region of one preallocated buffer per layer.

``rows`` slots each hold one request's own tokens (its suffix after the group prefix, then its new
tokens) in columns of a ``[rows, kv_heads, capacity, head_dim]`` buffer; every slot writes a step's
tokens at the same column (``write_at``), and which columns are a slot's own is the scheduler's
mask. The group prefixes (``[kv_heads, P, head_dim]`` per layer and group) live in dictionaries
shared by every cache of one decode. :func:`densing.eval.backends.prefix.attention.shared_prefix_attention`
reads both.
"""
from __future__ import annotations

import functools

from typing import Any, Sequence

import torch
from transformers.cache_utils import DynamicCache, DynamicLayer

from densing.eval.backends.prefix.grouping import contiguous_parts


class SlotLayer(DynamicLayer):
    """One layer's keys/values: group prefixes held once, per-slot regions in one buffer written at
    the owning cache's ``write_at`` column."""

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
    """The cache :func:`~densing.eval.backends.prefix.attention.shared_prefix_attention` reads:
    ``rows`` slot regions of ``capacity`` columns per layer, the group prefixes (shared with other
    caches of the same decode), and each row's group (``row_group``). ``part_cost`` prices one more
    attention run (:func:`~densing.eval.backends.prefix.grouping.contiguous_parts`)."""

    def __init__(self, config: Any, layers: int, rows: int, capacity: int, prefixes: list[dict], part_cost: int) -> None:
        super().__init__(config=config)
        self.rows, self.capacity, self.write_at, self.part_cost = rows, capacity, 0, part_cost
        self.row_group: list[Any] = [None] * rows
        self.parts: list | None = None  # set by plan() before each decoding step
        self.layers = [SlotLayer(self, prefixes[i]) for i in range(layers)]

    def plan(self, widths: Sequence[int] | None) -> None:
        """Set the rows' own-column widths for the next forward: row ``r``'s allowed columns are among
        the last ``widths[r]`` (decoding: its region ends at the write column), and the rows are read
        in the runs of :func:`contiguous_parts`. ``None``: one part per group over all columns."""
        if widths is None:
            self.parts = None
            return
        self.parts = [
            (self.row_group[start], slice(start, stop), width)
            for start, stop, width in contiguous_parts(widths, self.row_group, self.part_cost)
        ]

    def parts_of_rows(self) -> list[tuple[Any, Any, int | None]]:
        """``[(group, rows, width)]`` for the attention: the plan's, else one part per group over all
        columns (width ``None``; rows a slice when all rows belong to one group, else an index tensor)."""
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


@functools.lru_cache(maxsize=None)
def _cache_keyword(model_class: type) -> str:
    import inspect

    return "cache" if "cache" in inspect.signature(model_class.forward).parameters else "past_key_values"
