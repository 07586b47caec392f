"""The strings of a log-likelihood call encoded in batches: lm-eval's ids, not one string at a time.

lm-eval's ``_encode_pair`` moves the context's trailing spaces to the continuation, then encodes ``context +
continuation`` and ``context`` (the continuation's ids: the whole string's after the context's), one tokenizer call
per string. :func:`encode_pairs` makes the same ids from every distinct string once, in batches of the fast tokenizer
(:func:`batch_encodable`), with the special tokens ``tok_encode`` asks for; an empty context takes lm-eval's own rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: Strings per call of the fast tokenizer.
BATCH = 1024


def batch_encodable(lm: Any) -> bool:
    """Whether ``lm``'s strings can be encoded in batches: a causal model with a fast tokenizer."""
    return getattr(lm, "backend", None) == "causal" and bool(getattr(lm.tokenizer, "is_fast", False))


def _special_tokens(lm: Any, string: str, bos: str) -> bool | None:
    """``add_special_tokens`` as lm-eval's ``HFLM.tok_encode`` sets it for ``string`` (None: the tokenizer's own)."""
    from lm_eval.models.utils import _add_special_kwargs, has_bos_prefix

    kwargs = _add_special_kwargs(None, lm.add_bos_token)
    if has_bos_prefix(string, bos):
        kwargs["add_special_tokens"] = False
    return kwargs.get("add_special_tokens")


def encode_strings(lm: Any, strings: Sequence[str]) -> dict[str, list[int]]:
    """Each distinct string of ``strings`` → the ids ``lm.tok_encode(string)`` gives, from batches of the tokenizer."""
    bos = lm.tokenizer.decode(lm.prefix_token_id)
    groups: dict[bool | None, list[str]] = {}
    for string in dict.fromkeys(strings):
        groups.setdefault(_special_tokens(lm, string, bos), []).append(string)
    ids: dict[str, list[int]] = {}
    for special, group in groups.items():
        kwargs = {} if special is None else {"add_special_tokens": special}
        for start in range(0, len(group), BATCH):
            batch = group[start : start + BATCH]
            ids.update(zip(batch, lm.tokenizer(batch, **kwargs)["input_ids"]))
    return ids


def encode_pairs(lm: Any, pairs: Sequence[tuple[str, str]]) -> list[tuple[list[int], list[int]]]:
    """(context ids, continuation ids) of each (context, continuation) as lm-eval encodes it (module docstring)."""
    split: list[tuple[str, str] | None] = []
    for context, continuation in pairs:
        spaces = len(context) - len(context.rstrip())
        if spaces and context.strip():
            context, continuation = context[:-spaces], context[-spaces:] + continuation
        split.append((context, continuation) if context.strip() else None)
    ids = encode_strings(lm, [s for pair in split if pair is not None for s in (pair[0], pair[0] + pair[1])])
    encoded = []
    for pair, (context, continuation) in zip(split, pairs):
        if pair is None:  # an empty context, or one of spaces alone: lm-eval's own rules, one request at a time
            encoded.append(_encode_empty_context(lm, context, continuation))
            continue
        context_ids = ids[pair[0]]
        encoded.append((list(context_ids), list(ids[pair[0] + pair[1]][len(context_ids) :])))
    return encoded


def _encode_empty_context(lm: Any, context: str, continuation: str) -> tuple[list[int], list[int]]:
    """lm-eval's encoding of a request whose context is empty (the prefix token as the context) or spaces alone."""
    if context:
        return lm._encode_pair(context, continuation)
    continuation_ids = lm.tok_encode(continuation, add_special_tokens=False)
    if lm.prefix_token_id != continuation_ids[0]:
        return [lm.prefix_token_id], continuation_ids
    return continuation_ids[:1], continuation_ids[1:]
