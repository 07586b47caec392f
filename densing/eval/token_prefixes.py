"""Shared token prefixes: the arithmetic both log-likelihood trie cache
(:mod:`densing.eval.prefix_cache`) and shared-prefix greedy generation (:mod:`densing.eval.generation`)
stand on. Pure Python, no torch."""
from __future__ import annotations

from typing import Sequence


def shared_prefix_length(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token sequences."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def distinct_token_count(sequences: Sequence[Sequence[int]]) -> int:
    """Number of distinct prefixes (trie nodes) of ``sequences``: ``Σ len_i − Σ lcp(s_{i−1}, s_i)``
    over the sequences in lexicographic order — the token positions a trie cache runs once each."""
    ordered = sorted(map(list, sequences))
    total, previous = 0, []
    for sequence in ordered:
        total += len(sequence) - shared_prefix_length(previous, sequence)
        previous = sequence
    return total
