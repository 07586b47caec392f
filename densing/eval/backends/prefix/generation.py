"""Greedy ``generate_until`` over shared prefixes, with lm-eval's strings.

lm-eval's HF backend generates one request at a time (``model.generate`` at batch 1), recomputing a task's few-shot
block for every question. :func:`generate_greedy` produces the same strings for greedy requests with far fewer and
far fuller forward passes:

1. every context is encoded exactly as lm-eval's ``generate_until`` encodes it at batch 1
   (``tok_batch_encode`` with left truncation to ``max_length − max_gen_toks``);
2. the requests are decoded with continuous batching over their shared prefixes
   (:mod:`.scheduler`) where the model's attention allows it, else in fixed batches (:mod:`.fixed`);
3. a row stops where lm-eval's would at batch 1 — an end-of-sequence id of the model's generation
   config, ``max_gen_toks`` new tokens, or one of the ``until`` strings found in the decoded last
   ``len(encode(stop)) + 2`` tokens (lm-eval's ``MultiTokenEOSCriteria``) — its text is decoded,
   cut at ``until`` and stored through ``cache_hook.add_partial`` (so runs resume).

The arithmetic differs from lm-eval's batch-1 ``generate`` only in float rounding, so the text is identical unless
two logits tie to within it (``tests/eval/test_generation.py``; ``bench/generation_throughput.py``). Any other
generation keyword, and a generation config that adds logits processors, goes to lm-eval's own path.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from densing.eval.backends.prefix import fixed, scheduler, slots
from densing.eval.backends.prefix.settings import DecodeStats, PrefixSettings

#: generation keywords the greedy path handles; any other one goes to lm-eval's ``generate``
GREEDY_KEYS = frozenset({"do_sample", "temperature", "until", "max_gen_toks"})
#: generation-config fields that would change greedy decoding (logits processors) at these values
NEUTRAL_CONFIG = MappingProxyType(
    {
        "repetition_penalty": (None, 1.0),
        "no_repeat_ngram_size": (None, 0),
        "min_length": (None, 0),
        "min_new_tokens": (None, 0),
        "bad_words_ids": (None,),
        "suppress_tokens": (None,),
        "begin_suppress_tokens": (None,),
        "forced_bos_token_id": (None,),
        "forced_eos_token_id": (None,),
        "sequence_bias": (None,),
        "encoder_repetition_penalty": (None, 1.0),
        "num_beams": (None, 1),
    }
)


def greedy_settings(lm: Any, gen_kwargs: dict) -> tuple[list[str], int] | None:
    """``(until, max_gen_toks)`` as lm-eval derives them for plain greedy decoding; ``None`` for any other request."""
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
    return postprocess_generated_text(
        generation=text, stop=until, think_end_token=think if isinstance(think, str) else None
    )


def encode_context(lm: Any, context: str, max_gen_toks: int) -> list[int]:
    """The context's tokens as lm-eval's ``generate_until`` feeds them at batch 1."""
    max_context = lm.max_length - max_gen_toks
    if max_context <= 0:
        raise ValueError(f"max_gen_toks {max_gen_toks} must be less than the model's maximum length {lm.max_length}")
    ids, _ = lm.tok_batch_encode([context], left_truncate_len=max_context, truncation=lm.truncation)
    return ids[0].tolist()


def generate_greedy(
    lm: Any,
    contexts: Sequence[str],
    gen_kwargs: dict,
    until: list[str],
    max_gen_toks: int,
    rows: int,
    settings: PrefixSettings,
    progress: Any = None,
    admit_until: float | None = None,
) -> tuple[list[str | None], DecodeStats]:
    """Greedy continuations of ``contexts`` (one gen-kwargs group) as lm-eval's batch-1 ``generate_until`` returns
    them, and what decoding did; requests not started by ``admit_until`` (``time.monotonic()``) stay ``None``."""
    tokenizer = lm.tokenizer
    encoded = [encode_context(lm, c, max_gen_toks) for c in contexts]
    eos_ids = eos_token_ids(lm)
    lookbacks = [(stop, len(tokenizer.encode(stop, add_special_tokens=False)) + 2) for stop in until]
    results: list[str | None] = [None] * len(contexts)

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

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    if slots.supported(lm.model) and not settings.fixed_batches:
        with slots.attention_swapped(lm.model):
            decoder = scheduler.ContinuousDecoder(
                lm.model, lm.device, pad, encoded, rows, max_gen_toks, stops, finish, settings
            )
            return results, decoder.run(admit_until)
    stats = fixed.generate_fixed(lm.model, lm.device, pad, encoded, rows, max_gen_toks, stops, finish, admit_until)
    return results, stats


def group_key(gen_kwargs: dict) -> str:
    """The key requests with the same generation keywords share."""
    return json.dumps(gen_kwargs, sort_keys=True, default=repr)
