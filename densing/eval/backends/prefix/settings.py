"""The prefix backend's settings (one frozen value passed through construction) and its statistics.

:class:`PrefixSettings` holds every number the engine's algorithms take as given: how many requests
decode together, the draft length and the step cost model of drafted decoding, the compaction slack
and the run cost of the slot buffer, the trie walk's token budget and recompute tolerance. Values
are checked when the settings are made: a bad one is an :class:`~densing.errors.InputError` naming
the field. :class:`DecodeStats` and :class:`TrieStats` are what a call did, returned to (or kept by
the lm for) whoever reads them. Pure Python, no torch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from types import MappingProxyType
from numbers import Integral, Real
from typing import Any

from densing.validation import Interval, Options, validate


@dataclass(frozen=True)
class _Boolean:
    """``True`` or ``False`` (not 0 or 1)."""

    def matches(self, value: Any) -> bool:
        return isinstance(value, bool)

    def __str__(self) -> str:
        return "true or false"


_COUNT = (Interval(Integral, 0, None),)
_POSITIVE = (Interval(Integral, 1, None),)


@dataclass(frozen=True)
class PrefixSettings:
    """Settings of :class:`densing.eval.backends.prefix.lm.PrefixCachedHFLM`.

    ``rows_per_batch``: requests decoded together (generation slots; ``densing eval --slots``).
    ``fixed_batches``: decode in fixed batches even where continuous batching applies (a bench's baseline).
    ``draft``: draft tokens a row may propose per decoding step (0: one token per step, no drafts).
    ``ngram``: the longest n-gram a row's draft index matches.
    ``step_base``: a decoding step's cost per slot that does not grow with its query columns, in units
    of one query column (:func:`densing.eval.backends.prefix.drafts.step_width`); ``inf``: columns are
    free, every step reads the longest draft. Measured by ``bench/decode_step.py drafts`` beside BBH
    shards: 1.48, and 0.90 [0.49–1.28] round by round in a second run; an idle machine gives more
    (~4.8). The choice barely matters (``tools/bbh_cache_recheck.results.txt``, the paired round).
    ``slack``: columns a slot region may waste before the slot buffer is compacted.
    ``part_cost``: the fixed cost of one more attention run, in row-columns
    (:func:`densing.eval.backends.prefix.grouping.contiguous_parts`).
    ``tokens_per_batch``: new trie nodes per log-likelihood forward pass (``densing eval --trie-tokens``).
    ``recompute_tolerance``: cached positions a trie pass may run again rather than end early.
    """

    rows_per_batch: int = 16
    fixed_batches: bool = False
    draft: int = 4
    ngram: int = 4
    step_base: float = 1.5
    slack: int = 128
    part_cost: int = 1024
    tokens_per_batch: int = 512
    recompute_tolerance: int = 8

    def __post_init__(self) -> None:
        validate(CONSTRAINTS, **{f.name: getattr(self, f.name) for f in fields(self)})


#: What each field of :class:`PrefixSettings` may be.
CONSTRAINTS = MappingProxyType({
    "rows_per_batch": _POSITIVE,
    "fixed_batches": (_Boolean(),),
    "draft": _COUNT,
    "ngram": _POSITIVE,
    "step_base": (Interval(Real, 0, None), Options({math.inf})),
    "slack": _COUNT,
    "part_cost": _COUNT,
    "tokens_per_batch": _POSITIVE,
    "recompute_tolerance": _COUNT,
})

#: the names :class:`PrefixSettings` takes (lm-eval's ``--model_args`` may carry them)
SETTING_NAMES = frozenset(CONSTRAINTS)


@dataclass
class DecodeStats:
    """What greedy decoding did: new tokens, decoding steps (forward passes that extend live rows),
    draft tokens read (``draft_proposed``) and kept (``draft_accepted``)."""

    generated_tokens: int = 0
    decode_steps: int = 0
    draft_proposed: int = 0
    draft_accepted: int = 0

    def add(self, other: DecodeStats) -> None:
        """Add ``other``'s counts to these."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


@dataclass(frozen=True)
class TrieStats:
    """What a log-likelihood trie walk computed: token positions run through the model, forward passes."""

    computed_tokens: int = 0
    forwards: int = 0
