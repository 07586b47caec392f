"""Greedy ``generate_until`` with a shared-prefix key/value cache: the few-shot block once per batch.

lm-eval's HF backend generates one request at a time by default (``model.generate`` with batch 1),
recomputing a task's few-shot block (GSM8K 8-shot CoT: ~800 of ~900 prompt tokens) for every
question, then decodes one token per forward pass at batch 1. :func:`generate_greedy` produces the
same strings for greedy requests with far fewer and far fuller forward passes:

1. every context is encoded exactly as lm-eval's ``generate_until`` encodes it at batch 1
   (``tok_batch_encode`` with left truncation to ``max_length − max_gen_toks``);
2. the requests are sorted by their tokens and cut into batches of ``rows`` consecutive requests;
   the longest common token prefix of a batch (the few-shot block, capped one token short of the
   shortest context) runs through the model once at batch 1 — and not again when the next batch
   starts with the same prefix;
3. its keys/values are copied into a preallocated cache of ``rows`` rows (capacity prefix + longest
   suffix + ``max_gen_toks``), each row's own suffix is prefilled right-aligned after it, the gap
   (padding) masked out by the 2-D attention mask and every token given its true position
   (``position_ids``), so each row sees exactly its own context;
4. greedy steps (``argmax`` of the last position's logits, ``logits_to_keep=1``) for all live rows
   at once; a row stops where lm-eval's would at batch 1 — an end-of-sequence id of the model's
   generation config, ``max_gen_toks`` new tokens, or one of the ``until`` strings found in the
   decoded last ``len(encode(stop)) + 2`` tokens (lm-eval's ``MultiTokenEOSCriteria``) — its text
   is decoded, cut at ``until`` and stored through ``cache_hook.add_partial`` (so runs resume),
   and the row leaves the batch.

The arithmetic differs from lm-eval's batch-1 ``generate`` only in float rounding (other matmul
shapes, the prefix and suffix computed in separate passes), so the argmax — and with it the text —
is identical unless two logits tie to within that rounding (tested on a toy model over
hypothesis-generated prompts and on SmolLM2 in ``tests/eval/test_generation.py``; the bench is
``bench/generation_throughput.py``). Sampling, beam search and any other generation keyword go to
lm-eval's own path, as do models whose generation config adds logits processors.
"""
from __future__ import annotations

import json
import time
from typing import Any, Sequence

import torch
from transformers.cache_utils import DynamicCache, DynamicLayer

from densing.eval import continuous
from densing.eval.token_prefixes import shared_prefix_length

#: rows decoded together at ``--batch-size 1`` (``rows = ROWS_PER_BATCH × batch_size``)
ROWS_PER_BATCH = 16
#: decode in fixed batches even where :mod:`densing.eval.continuous` applies (the bench's baseline)
FIXED_BATCHES = False
#: generation keywords the greedy path handles; any other one goes to lm-eval's ``generate``
GREEDY_KEYS = frozenset({"do_sample", "temperature", "until", "max_gen_toks"})
#: generation-config fields that would change greedy decoding (logits processors) at these values
NEUTRAL_CONFIG = {
    "repetition_penalty": (None, 1.0), "no_repeat_ngram_size": (None, 0), "min_length": (None, 0),
    "min_new_tokens": (None, 0), "bad_words_ids": (None,), "suppress_tokens": (None,),
    "begin_suppress_tokens": (None,), "forced_bos_token_id": (None,), "forced_eos_token_id": (None,),
    "sequence_bias": (None,), "encoder_repetition_penalty": (None, 1.0), "num_beams": (None, 1),
}


class ReservedLayer(DynamicLayer):
    """A ``DynamicLayer`` whose keys/values live in a buffer allocated once (``capacity`` positions):
    an update writes in place instead of concatenating the whole cache at every step."""

    def __init__(self, keys: torch.Tensor, values: torch.Tensor, rows: int, capacity: int) -> None:
        super().__init__()
        batch_shape = (rows, keys.shape[1], capacity, keys.shape[3])
        self.key_buffer = keys.new_empty(batch_shape)
        self.value_buffer = values.new_empty(batch_shape)
        self.length = keys.shape[-2]
        self.key_buffer[:, :, : self.length] = keys  # broadcast over the rows
        self.value_buffer[:, :, : self.length] = values
        self.dtype, self.device, self.is_initialized = keys.dtype, keys.device, True
        self._views()

    def _views(self) -> None:
        self.keys = self.key_buffer[:, :, : self.length]
        self.values = self.value_buffer[:, :, : self.length]

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any):
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
        self.key_buffer = self.key_buffer[indices]
        self.value_buffer = self.value_buffer[indices]
        self._views()


def greedy_settings(lm: Any, gen_kwargs: dict) -> tuple[list[str], int] | None:
    """``(until, max_gen_toks)`` as lm-eval's ``generate_until`` derives them, when the request is
    plain greedy decoding the fast path reproduces; ``None`` otherwise."""
    from lm_eval.models.utils import handle_stop_sequences, normalize_gen_kwargs

    kwargs = dict(normalize_gen_kwargs(gen_kwargs, lm.max_gen_toks))
    if kwargs.get("do_sample") is not False or set(kwargs) - GREEDY_KEYS:
        return None
    config = getattr(lm.model, "generation_config", None)
    for name, neutral in NEUTRAL_CONFIG.items():
        if config is not None and getattr(config, name, None) not in neutral:
            return None
    eos = lm.tok_decode(lm.eot_token_id, skip_special_tokens=False)
    until = handle_stop_sequences(kwargs.pop("until", None), eos=eos)
    return until, int(kwargs["max_gen_toks"])


def eos_token_ids(lm: Any) -> set[int]:
    """The ids at which ``model.generate`` ends a row (the generation config's ``eos_token_id``)."""
    config = getattr(lm.model, "generation_config", None)
    eos = getattr(config, "eos_token_id", None) if config is not None else None
    if eos is None:
        eos = getattr(lm.model.config, "eos_token_id", None)
    if eos is None:
        return set()
    return {int(e) for e in (eos if isinstance(eos, (list, tuple)) else [eos])}


def finish_text(lm: Any, tokens: list[int], until: list[str]) -> str:
    """A row's string as lm-eval's ``generate_until`` makes it from its new tokens."""
    from lm_eval.models.utils import postprocess_generated_text

    think = lm.think_end_token
    if isinstance(think, int):
        marks = [i for i, t in enumerate(tokens) if t == think]
        if marks:
            tokens = tokens[marks[-1] + 1 :]
    text = lm.tok_decode(tokens)
    if isinstance(think, int):
        text = text.lstrip()
    return postprocess_generated_text(generation=text, stop=until, think_end_token=think if isinstance(think, str) else None)


def encode_context(lm: Any, context: str, max_gen_toks: int) -> list[int]:
    """The context's tokens as lm-eval's ``generate_until`` feeds them at batch 1."""
    max_context = lm.max_length - max_gen_toks
    if max_context <= 0:
        raise ValueError(f"max_gen_toks {max_gen_toks} must be less than the model's maximum length {lm.max_length}")
    ids, _ = lm.tok_batch_encode([context], left_truncate_len=max_context, truncation=lm.truncation)
    return ids[0].tolist()


def batches(encoded: Sequence[Sequence[int]], rows: int) -> list[tuple[list[int], int]]:
    """Requests in lexicographic order of their tokens, ``rows`` at a time, each batch with the
    length of the prefix all its requests share (at most the shortest one's length − 1, so every
    row has a token of its own to prefill)."""
    order = sorted(range(len(encoded)), key=lambda i: list(encoded[i]))
    out = []
    for start in range(0, len(order), rows):
        chunk = order[start : start + rows]
        first, last = encoded[chunk[0]], encoded[chunk[-1]]
        shared = shared_prefix_length(first, last)  # sorted: the range's common prefix
        shared = min(shared, min(len(encoded[i]) for i in chunk) - 1)
        out.append((chunk, max(shared, 0)))
    return out


def generate_greedy(
    lm: Any,
    contexts: Sequence[str],
    gen_kwargs: dict,
    until: list[str],
    max_gen_toks: int,
    rows: int,
    progress: Any = None,
    admit_until: float | None = None,
) -> list[str | None]:
    """Greedy continuations of ``contexts`` (one gen-kwargs group), as lm-eval's batch-1
    ``generate_until`` returns them; see the module. With ``admit_until`` (a ``time.monotonic()``
    instant), requests not started by then (after the first batch or slot fill) stay ``None``."""
    model, device, tokenizer = lm.model, lm.device, lm.tokenizer
    encoded = [encode_context(lm, c, max_gen_toks) for c in contexts]
    eos_ids = eos_token_ids(lm)
    lookbacks = [(stop, len(tokenizer.encode(stop, add_special_tokens=False)) + 2) for stop in until]
    results: list[str | None] = [None] * len(contexts)
    lm.generated_tokens = 0  # for the throughput bench

    def stops(tokens: list[int]) -> bool:
        return (
            tokens[-1] in eos_ids
            or len(tokens) >= max_gen_toks
            or any(s in tokenizer.decode(tokens[-k:]) for s, k in lookbacks)
        )

    def finish(index: int, tokens: list[int]) -> None:
        text = finish_text(lm, tokens, until)
        results[index] = text
        lm.cache_hook.add_partial("generate_until", (contexts[index], gen_kwargs), text)
        if progress is not None:
            progress.update(1)

    if continuous.supported(model) and not FIXED_BATCHES:
        with continuous.attention_swapped(model):
            continuous.generate_continuous(lm, encoded, rows, max_gen_toks, stops, finish, admit_until)
        return results

    prefix_tokens: list[int] = []
    prefix_cache: DynamicCache | None = None

    for number, (chunk, shared) in enumerate(batches(encoded, rows)):
        if number and admit_until is not None and time.monotonic() >= admit_until:
            break
        prefix = list(encoded[chunk[0]][:shared])
        # the batch-1 cache of the shared prefix: reused, cropped or extended from the last batch's
        reuse = shared_prefix_length(prefix_tokens, prefix) if prefix_cache is not None else 0
        if reuse == 0:
            prefix_cache, prefix_tokens = DynamicCache(config=model.config), []
        elif reuse < len(prefix_tokens):
            prefix_cache.crop(reuse - len(prefix_tokens))
            prefix_tokens = prefix_tokens[:reuse]
        if len(prefix) > reuse:
            with torch.no_grad():
                model(
                    input_ids=torch.tensor([prefix[reuse:]], dtype=torch.long, device=device),
                    position_ids=torch.arange(reuse, len(prefix), device=device)[None],
                    past_key_values=prefix_cache, use_cache=True, logits_to_keep=1,
                )
            prefix_tokens = prefix
        suffixes = [encoded[i][shared:] for i in chunk]
        width = max(len(s) for s in suffixes)
        n = len(chunk)
        capacity = shared + width + max_gen_toks
        cache = DynamicCache(config=model.config)
        if shared:
            cache.layers = [ReservedLayer(layer.keys, layer.values, n, capacity) for layer in prefix_cache.layers]
        else:
            cache.layers = [_EmptyReserved(n, capacity) for _ in prefix_cache.layers] if prefix_cache.layers else cache.layers
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        input_ids = torch.full((n, width), pad, dtype=torch.long)
        positions = torch.zeros((n, width), dtype=torch.long)
        mask = torch.zeros((n, capacity), dtype=torch.long)
        mask[:, :shared] = 1
        for r, suffix in enumerate(suffixes):
            gap = width - len(suffix)
            input_ids[r, gap:] = torch.tensor(suffix)
            positions[r, gap:] = torch.arange(shared, shared + len(suffix))
            mask[r, shared + gap : shared + width] = 1
        next_position = torch.tensor([shared + len(s) for s in suffixes], dtype=torch.long)
        live = list(range(n))  # batch row -> index into chunk
        generated: list[list[int]] = [[] for _ in range(n)]
        length = shared + width
        step_ids, step_positions = input_ids, positions
        while live:
            with torch.no_grad():
                output = model(
                    input_ids=step_ids.to(device), position_ids=step_positions.to(device),
                    attention_mask=mask[:, :length].to(device), past_key_values=cache, use_cache=True,
                    logits_to_keep=1,
                )
            chosen = output.logits[:, -1, :].float().argmax(dim=-1).tolist()
            done_rows = []
            for r, token in enumerate(chosen):
                row = live[r]
                generated[row].append(token)
                lm.generated_tokens += 1
                if stops(generated[row]):
                    done_rows.append(r)
                    finish(chunk[row], generated[row])
            mask[:, length] = 1
            length += 1
            keep = [r for r in range(len(live)) if r not in set(done_rows)]
            step_ids = torch.tensor([[chosen[r]] for r in keep], dtype=torch.long)
            step_positions = next_position[keep][:, None].clone()
            if done_rows and keep:
                index = torch.tensor(keep, dtype=torch.long)
                for layer in cache.layers:
                    layer.batch_select_indices(index.to(device))
                mask, next_position = mask[index], next_position[index]
            live = [live[r] for r in keep]
            next_position = next_position + 1
    return results


class _EmptyReserved(ReservedLayer):
    """A :class:`ReservedLayer` with no shared prefix: allocated at the first update."""

    def __init__(self, rows: int, capacity: int) -> None:
        DynamicLayer.__init__(self)
        self.rows, self.capacity, self.length = rows, capacity, 0

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any):
        if not self.is_initialized:
            shape = (self.rows, key_states.shape[1], self.capacity, key_states.shape[3])
            self.key_buffer, self.value_buffer = key_states.new_empty(shape), value_states.new_empty(shape)
            self.dtype, self.device, self.is_initialized = key_states.dtype, key_states.device, True
        return super().update(key_states, value_states, *args, **kwargs)

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        if self.is_initialized:
            super().batch_select_indices(indices)


def group_key(gen_kwargs: dict) -> str:
    return json.dumps(gen_kwargs, sort_keys=True, default=repr)
