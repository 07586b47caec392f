"""Conditional loss from the requests lm-eval already made (no extra forward passes).

The gold choice's log-likelihood in a multiple-choice sample, or the one request's in a ``loglikelihood`` sample (a
companion task scoring a reference solution), is log P(answer | prompt) (Xiao et al. 2024, §2.2). Over the samples,

    loss_total = Σ_i −log P(answer_i | prompt_i),
    loss_per_token = loss_total / Σ tokens_i,  loss_per_byte = loss_total / Σ bytes_i,  loss_per_sample = loss_total / n

with the continuation's token counts from lm-eval's ``_encode_pair``. The results table's ``loss`` is
``loss_per_sample``, the convention of lm-eval's ``perplexity`` (ln ppl) and so of the Pythia LAMBADA losses.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from densing.errors import EvalError


@dataclass(frozen=True)
class LossTotals:
    """Sums of the conditional loss over a benchmark's samples."""

    loss_total: float
    tokens: int
    bytes: int
    samples: int

    @property
    def loss_per_token(self) -> float:
        return self.loss_total / self.tokens if self.tokens else math.nan

    @property
    def loss_per_byte(self) -> float:
        return self.loss_total / self.bytes if self.bytes else math.nan

    @property
    def loss_per_sample(self) -> float:
        return self.loss_total / self.samples if self.samples else math.nan

    def __add__(self, other: LossTotals) -> LossTotals:
        return LossTotals(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


EMPTY = LossTotals(0.0, 0, 0, 0)

#: ln of the largest finite float: a mean loss above it has a perplexity no float holds
LOG_FLOAT_MAX = math.log(sys.float_info.max)


def log_space_perplexity(items) -> float:
    """lm-eval's ``perplexity`` aggregation, ``exp(−(1/n)·Σ ℓ_i)`` over the samples' log-likelihoods ``ℓ_i``, but
    ``inf`` where the mean loss exceeds ``LOG_FLOAT_MAX`` (≈ 709.8 nats) and lm-eval's ``math.exp`` would raise
    OverflowError."""
    values = [float(item) for item in items]
    if not values:
        return math.nan
    mean_loss = -math.fsum(values) / len(values)
    return math.exp(mean_loss) if mean_loss <= LOG_FLOAT_MAX else math.inf


def continuation_token_counts(lm: Any, pairs: list[tuple[str, str]]) -> list[int]:
    """Number of continuation tokens lm-eval's ``TemplateLM.loglikelihood`` scores for each (context, continuation):
    the counts ``densing-hf`` kept of its last call's pairs (``continuation_tokens``), the others' ids from batches of
    the fast tokenizer where ``lm`` has one (:func:`.backends.prefix.encoding.encode_pairs`, the ids lm-eval makes),
    else lm-eval's own encoding, one pair at a time."""
    from densing.eval.backends.prefix.encoding import batch_encodable, encode_pairs

    known = getattr(lm, "continuation_tokens", None) or {}
    if batch_encodable(lm):
        missing = list(dict.fromkeys(pair for pair in pairs if pair not in known))
        counted = {**known, **{pair: len(ids[1]) for pair, ids in zip(missing, encode_pairs(lm, missing))}}
        return [counted[pair] for pair in pairs]
    counts = []
    for context, continuation in pairs:
        if context == "":
            encoded = lm.tok_encode(continuation, add_special_tokens=False)
            counts.append(len(encoded) - 1 if encoded and lm.prefix_token_id == encoded[0] else len(encoded))
        else:
            counts.append(len(lm._encode_pair(context, continuation)[1]))
    return counts


def continuation_byte_count(context: str, continuation: str) -> int:
    """UTF-8 bytes of the scored continuation (lm-eval moves a context's trailing spaces onto it)."""
    moved = context[len(context.rstrip()) :] if context else ""
    return len((moved + continuation).encode("utf-8"))


def gold_index(task: Any, doc: dict) -> int:
    """The gold choice of a multiple-choice doc, resolved exactly as lm-eval's ``process_results``."""
    gold = task.doc_to_text(doc) if getattr(task, "multiple_input", False) else task.doc_to_target(doc)
    choices = task.doc_to_choice(doc)
    if isinstance(gold, list):  # multiple gold answers: the first one is the reference
        gold = gold[0] if gold else -1
    if isinstance(gold, str):
        if gold in choices:
            gold = choices.index(gold)
        elif gold.strip().isdigit():
            gold = int(gold.strip())
    if not isinstance(gold, int) or not 0 <= gold < len(choices):
        raise EvalError(f"task {task.config.task}: doc {doc!r:.80}: gold answer {gold!r} is not one of its choices")
    return gold


def task_loss(
    samples: list[dict], output_type: str, token_counts: Callable[[list[tuple[str, str]]], list[int]], task: Any = None
) -> LossTotals:
    """The conditional loss summed over the gold requests (:func:`gold_index`) of a task's logged lm-eval samples;
    ``token_counts``: the scored tokens of each (context, continuation), all counted in one call."""
    pairs, log_likelihoods = [], []
    for sample in samples:
        if output_type == "multiple_choice":
            index = gold_index(task, sample["doc"])
        elif output_type == "loglikelihood":
            index = 0
        else:
            raise EvalError(f"conditional loss needs a multiple_choice or loglikelihood task, got {output_type!r}")
        pairs.append((str(sample["arguments"][index][0]), str(sample["arguments"][index][1])))
        response = sample["filtered_resps"][index]
        log_likelihoods.append(float(response[0] if isinstance(response, (list, tuple)) else response))
    total, counts = EMPTY, token_counts(pairs) if pairs else []
    for (context, continuation), log_likelihood, count in zip(pairs, log_likelihoods, counts):
        total = total + LossTotals(-log_likelihood, count, continuation_byte_count(context, continuation), 1)
    return total
