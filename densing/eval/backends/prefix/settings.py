"""The prefix backend's settings (:class:`PrefixSettings`, one frozen value checked when made: a bad field is an
:class:`~densing.errors.InputError` naming it), the device-sized defaults (:class:`Sizing`) and the statistics of a
call (:class:`DecodeStats`, :class:`TrieStats`). Pure Python, no torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from numbers import Integral, Real
from types import MappingProxyType

from densing.validation import InstanceOf, Interval, Options, validate

_COUNT = (Interval(Integral, 0, None),)
_POSITIVE = (Interval(Integral, 1, None),)


@dataclass(frozen=True)
class PrefixSettings:
    """Settings of :class:`densing.eval.backends.prefix.lm.PrefixCachedHFLM`.

    ``rows_per_batch``: requests decoded together (``densing eval --slots``; ``None``: :meth:`Sizing.rows_per_batch`).
    ``fixed_batches``: decode in fixed batches even where continuous batching applies (a bench's baseline).
    ``draft``: draft tokens a row may propose per decoding step (0: no drafts); ``ngram``: the longest n-gram matched.
    ``step_base``: a decoding step's cost per slot that does not grow with its query columns, in query columns
    (:func:`.drafts.step_width`; ``inf``: columns are free), measured by ``bench/decode_step.py drafts``.
    ``slack``: columns a slot region may waste before the slot buffer is compacted.
    ``part_cost``: the cost of one more attention run, in row-columns (:func:`.grouping.contiguous_parts`).
    ``tokens_per_batch``: new trie nodes per log-likelihood pass (``--trie-tokens``; ``None``:
    :meth:`Sizing.tokens_per_batch`); ``recompute_tolerance``: cached positions a pass may run again, not end early.
    ``prefetch``: each log-likelihood pass's inputs made while the device computes the pass before (the same numbers).
    """

    rows_per_batch: int | None = None
    fixed_batches: bool = False
    draft: int = 4
    ngram: int = 4
    step_base: float = 1.5
    slack: int = 128
    part_cost: int = 1024
    tokens_per_batch: int | None = None
    recompute_tolerance: int = 8
    prefetch: bool = True

    def __post_init__(self) -> None:
        validate(CONSTRAINTS, **{f.name: getattr(self, f.name) for f in fields(self)})


#: What each field of :class:`PrefixSettings` may be.
CONSTRAINTS = MappingProxyType(
    {
        "rows_per_batch": (*_POSITIVE, None),
        "fixed_batches": (InstanceOf(bool, "true or false"),),  # True or False, not 0 or 1
        "draft": _COUNT,
        "ngram": _POSITIVE,
        "step_base": (Interval(Real, 0, None), Options({math.inf})),
        "slack": _COUNT,
        "part_cost": _COUNT,
        "tokens_per_batch": (*_POSITIVE, None),
        "recompute_tolerance": _COUNT,
        "prefetch": (InstanceOf(bool, "true or false"),),
    }
)

#: the names :class:`PrefixSettings` takes (lm-eval's ``--model_args`` may carry them)
SETTING_NAMES = frozenset(CONSTRAINTS)


#: the CPU's sizes: a pass of 512 new trie nodes and 16 decoding rows (a larger pass is slower on a CPU)
CPU_TOKENS_PER_BATCH = 512
CPU_ROWS_PER_BATCH = 16
#: trie nodes per streaming multiprocessor in one log-likelihood pass: enough rows for every SM's matrix tiles,
#: while the pass's dense tree-attention mask (new nodes × (cached + new) positions) stays a small part of the work
TOKENS_PER_MULTIPROCESSOR = 32
#: the shares of device memory that one log-likelihood pass's buffers and the decoding rows' keys/values may take
#: (the rest holds the weights, the cached prefix and the allocator's slack)
PASS_MEMORY_SHARE = 1 / 8
ROWS_MEMORY_SHARE = 1 / 4
#: a pass's activations per token, in hidden-state widths (the MLP's intermediate, q/k/v, the residual, copies)
ACTIVATION_WIDTHS = 16


@dataclass(frozen=True)
class Sizing:
    """The device and model numbers the device-sized defaults derive from (:func:`.lm.device_sizing`). ``device``:
    ``"cuda"``, or another type (the CPU's sizes); ``kv_bytes_per_token``: one position's keys and values."""

    device: str
    memory_bytes: int = 0
    multiprocessors: int = 0
    dtype_bytes: int = 4
    vocab_size: int = 0
    hidden_size: int = 0
    kv_bytes_per_token: int = 0
    max_length: int = 2048

    def pass_bytes(self, tokens: int) -> int:
        """Memory of one log-likelihood pass of ``tokens`` new trie nodes, its largest buffers: ``tokens·vocab·(b + 4)``
        (kept logits and their float32 log-softmax, at most one row a node) ``+ tokens·(max_length + tokens)·b`` (the
        additive tree mask) ``+ tokens·hidden·b·ACTIVATION_WIDTHS`` (activations), ``b`` = ``dtype_bytes``."""
        b = self.dtype_bytes
        return (
            tokens * self.vocab_size * (b + 4)
            + tokens * (self.max_length + tokens) * b
            + tokens * self.hidden_size * b * ACTIVATION_WIDTHS
        )

    def tokens_per_batch(self) -> int:
        """New trie nodes per log-likelihood pass. CPU (any non-CUDA device): :data:`CPU_TOKENS_PER_BATCH`. CUDA:
        the largest power of two ≤ ``TOKENS_PER_MULTIPROCESSOR × multiprocessors`` (at least the CPU's), halved
        while :meth:`pass_bytes` exceeds ``PASS_MEMORY_SHARE × memory_bytes`` (at least 1)."""
        if self.device != "cuda":
            return CPU_TOKENS_PER_BATCH
        tokens = max(_power_of_two_at_most(TOKENS_PER_MULTIPROCESSOR * self.multiprocessors), CPU_TOKENS_PER_BATCH)
        while tokens > 1 and self.pass_bytes(tokens) > PASS_MEMORY_SHARE * self.memory_bytes:
            tokens //= 2
        return tokens

    def rows_per_batch(self) -> int:
        """Requests decoded together. CPU: :data:`CPU_ROWS_PER_BATCH`. CUDA: a decoding step reads every weight
        once for all its rows, so rows are as many as the device has SM pairs — the largest power of two
        ≤ ``multiprocessors / 2`` (at least the CPU's) — halved while their keys and values at full length,
        ``rows·max_length·kv_bytes_per_token``, exceed ``ROWS_MEMORY_SHARE × memory_bytes`` (at least 1)."""
        if self.device != "cuda":
            return CPU_ROWS_PER_BATCH
        rows = max(_power_of_two_at_most(self.multiprocessors // 2), CPU_ROWS_PER_BATCH)
        while rows > 1 and rows * self.max_length * self.kv_bytes_per_token > ROWS_MEMORY_SHARE * self.memory_bytes:
            rows //= 2
        return rows


def _power_of_two_at_most(value: int) -> int:
    return 1 << (max(int(value), 1).bit_length() - 1)


@dataclass
class DecodeStats:
    """What greedy decoding did: new tokens, decoding steps, draft tokens read and kept."""

    generated_tokens: int = 0
    decode_steps: int = 0
    draft_proposed: int = 0
    draft_accepted: int = 0

    def add(self, other: DecodeStats) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


@dataclass(frozen=True)
class TrieStats:
    """What a log-likelihood trie walk computed: token positions run through the model, forward passes."""

    computed_tokens: int = 0
    forwards: int = 0
