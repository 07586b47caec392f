"""Greedy decoding in fixed batches over a shared prefix: the path for models continuous batching does not cover.

The requests, sorted by their tokens, are cut into batches of ``rows`` (:func:`.grouping.batches`); a batch's shared
prefix runs once at batch 1 (not again when the next batch starts with it), its keys/values copied into a cache of
``rows`` rows (:class:`ReservedLayer`). Each row's suffix is prefilled right-aligned after it, padding masked and
every token at its true position; then greedy steps for all live rows until the batch's last row stops.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import torch
from transformers.cache_utils import DynamicCache, DynamicLayer

from densing.eval.backends.prefix.grouping import batches, shared_prefix_length
from densing.eval.backends.prefix.settings import DecodeStats
from densing.eval.backends.prefix.slots import cache_kwargs


class ReservedLayer(DynamicLayer):
    """A ``DynamicLayer`` whose keys/values live in a buffer of ``rows`` × ``capacity`` positions written in place,
    starting with the shared prefix's ``keys`` and ``values`` (broadcast over the rows), if any."""

    def __init__(
        self, rows: int, capacity: int, keys: torch.Tensor | None = None, values: torch.Tensor | None = None
    ) -> None:
        super().__init__()
        self.rows, self.capacity, self.length = rows, capacity, 0
        if keys is not None:
            self._allocate(keys, values)
            self.length = keys.shape[-2]
            self.key_buffer[:, :, : self.length] = keys
            self.value_buffer[:, :, : self.length] = values
            self._views()

    def _allocate(self, keys: torch.Tensor, values: torch.Tensor) -> None:
        shape = (self.rows, keys.shape[1], self.capacity, keys.shape[3])
        self.key_buffer, self.value_buffer = keys.new_empty(shape), values.new_empty(shape)
        self.dtype, self.device, self.is_initialized = keys.dtype, keys.device, True

    def _views(self) -> None:
        self.keys = self.key_buffer[:, :, : self.length]
        self.values = self.value_buffer[:, :, : self.length]

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any):
        if not self.is_initialized:
            self._allocate(key_states, value_states)
        n = key_states.shape[-2]
        if self.length + n > self.key_buffer.shape[2]:
            raise RuntimeError("ReservedLayer: capacity exceeded")
        self.key_buffer[:, :, self.length : self.length + n] = key_states
        self.value_buffer[:, :, self.length : self.length + n] = value_states
        self.length += n
        self._views()
        return self.keys, self.values

    def get_seq_length(self) -> int:
        return self.length

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        if self.is_initialized:
            self.key_buffer = self.key_buffer[indices]
            self.value_buffer = self.value_buffer[indices]
            self._views()


def generate_fixed(
    model: Any,
    device: Any,
    pad: int,
    encoded: Sequence[Sequence[int]],
    rows: int,
    max_gen_toks: int,
    stops: Callable[[list[int]], bool],
    finish: Callable[[int, list[int]], None],
    admit_until: float | None = None,
) -> DecodeStats:
    """Greedy-decode ``encoded`` in fixed batches of ``rows`` (as :class:`.scheduler.ContinuousDecoder` decodes)."""
    stats = DecodeStats()
    prefix_tokens: list[int] = []
    prefix_cache: DynamicCache | None = None

    for number, (chunk, shared) in enumerate(batches(encoded, rows)):
        if number and admit_until is not None and time.monotonic() >= admit_until:
            break
        prefix = list(encoded[chunk[0]][:shared])
        prefix_cache, prefix_tokens = _prefix_cache(model, device, prefix_cache, prefix_tokens, prefix)
        suffixes = [encoded[i][shared:] for i in chunk]
        width = max(len(s) for s in suffixes)
        n = len(chunk)
        capacity = shared + width + max_gen_toks
        cache = DynamicCache(config=model.config)
        if shared:
            cache.layers = [ReservedLayer(n, capacity, layer.keys, layer.values) for layer in prefix_cache.layers]
        elif prefix_cache.layers:
            cache.layers = [ReservedLayer(n, capacity) for _ in prefix_cache.layers]
        input_ids, positions, mask = _left_padded(suffixes, shared, width, capacity, pad)
        next_position = torch.tensor([shared + len(s) for s in suffixes], dtype=torch.long)
        live = list(range(n))  # batch row -> index into chunk
        generated: list[list[int]] = [[] for _ in range(n)]
        length = shared + width
        step_ids, step_positions = input_ids, positions
        while live:
            with torch.no_grad():
                output = model(
                    input_ids=step_ids.to(device),
                    position_ids=step_positions.to(device),
                    attention_mask=mask[:, :length].to(device),
                    **cache_kwargs(model, cache),
                    use_cache=True,
                    logits_to_keep=1,
                )
            chosen = output.logits[:, -1, :].float().argmax(dim=-1).tolist()
            keep = []  # the rows that go on
            for r, token in enumerate(chosen):
                row = live[r]
                generated[row].append(token)
                stats.generated_tokens += 1
                if stops(generated[row]):
                    finish(chunk[row], generated[row])
                else:
                    keep.append(r)
            mask[:, length] = 1
            length += 1
            step_ids = torch.tensor([[chosen[r]] for r in keep], dtype=torch.long)
            step_positions = next_position[keep][:, None].clone()
            if len(keep) < len(live) and keep:
                index = torch.tensor(keep, dtype=torch.long)
                for layer in cache.layers:
                    layer.batch_select_indices(index.to(device))
                mask, next_position = mask[index], next_position[index]
            live = [live[r] for r in keep]
            next_position = next_position + 1
    return stats


def _prefix_cache(
    model: Any, device: Any, cache: DynamicCache | None, tokens: list[int], prefix: list[int]
) -> tuple[DynamicCache, list[int]]:
    """The batch-1 cache of a batch's shared ``prefix``, and the tokens it holds: the last batch's ``cache`` (of
    ``tokens``) reused, cropped to the common part or extended by one forward pass over the rest."""
    reuse = shared_prefix_length(tokens, prefix) if cache is not None else 0
    if reuse == 0:
        cache, tokens = DynamicCache(config=model.config), []
    elif reuse < len(tokens):
        cache.crop(reuse - len(tokens))
        tokens = tokens[:reuse]
    if len(prefix) > reuse:
        with torch.no_grad():
            model(
                input_ids=torch.tensor([prefix[reuse:]], dtype=torch.long, device=device),
                position_ids=torch.arange(reuse, len(prefix), device=device)[None],
                **cache_kwargs(model, cache),
                use_cache=True,
                logits_to_keep=1,
            )
        tokens = prefix
    return cache, tokens


def _left_padded(suffixes: list, shared: int, width: int, capacity: int, pad: int):
    """(input ids, positions, attention mask over ``capacity``) of ``suffixes`` after ``shared`` tokens, left-padded."""
    n = len(suffixes)
    input_ids = torch.full((n, width), pad, dtype=torch.long)
    positions = torch.zeros((n, width), dtype=torch.long)
    mask = torch.zeros((n, capacity), dtype=torch.long)
    mask[:, :shared] = 1
    for r, suffix in enumerate(suffixes):
        gap = width - len(suffix)
        input_ids[r, gap:] = torch.tensor(suffix)
        positions[r, gap:] = torch.arange(shared, shared + len(suffix))
        mask[r, shared + gap : shared + width] = 1
    return input_ids, positions, mask
