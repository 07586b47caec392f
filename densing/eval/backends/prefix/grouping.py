"""Requests grouped by the token prefixes they share, and rows cut into runs: the arithmetic the
log-likelihood trie (:mod:`.trie`), fixed-batch decoding (:mod:`.fixed`) and continuous batching
(:mod:`.scheduler`) stand on. Pure Python, no torch.

Sorted lexicographically, a trie's subtrees lie next to each other: the prefix a range of sorted requests shares is
that of its first and last, and the trie's node count is ``Σ len_i − Σ lcp(s_{i−1}, s_i)`` over neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def shared_prefix_length(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token sequences."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def distinct_token_count(sequences: Sequence[Sequence[int]]) -> int:
    """Number of distinct prefixes (trie nodes) of ``sequences``: ``Σ len_i − Σ lcp(s_{i−1}, s_i)``
    over the sequences in lexicographic order — the token positions a trie cache runs once each."""
    ordered = sorted(map(list, sequences))
    return sum(
        len(sequence) - shared_prefix_length(previous, sequence) for previous, sequence in zip([[]] + ordered, ordered)
    )


def batches(encoded: Sequence[Sequence[int]], rows: int) -> list[tuple[list[int], int]]:
    """Requests in lexicographic order of their tokens, ``rows`` at a time, each batch with the length of the prefix
    all its requests share (at most the shortest one's length − 1: every row prefills a token of its own)."""
    order = sorted(range(len(encoded)), key=lambda i: list(encoded[i]))
    chunks = [order[start : start + rows] for start in range(0, len(order), rows)]
    # sorted: a chunk's common prefix is that of its first and last requests
    return [
        (
            chunk,
            max(
                0,
                min(
                    shared_prefix_length(encoded[chunk[0]], encoded[chunk[-1]]), min(len(encoded[i]) for i in chunk) - 1
                ),
            ),
        )
        for chunk in chunks
    ]


def prefix_groups(encoded: Sequence[Sequence[int]]) -> list[tuple[list[int], int]]:
    """``[(request indices in token order, prefix length)]``: sorted requests cut where two neighbours share fewer
    than half the shorter one's tokens; the prefix is what the group shares, capped one token short of its shortest."""
    order = sorted(range(len(encoded)), key=lambda i: list(encoded[i]))
    groups: list[tuple[list[int], int]] = []
    members: list[int] = []
    shared = 0
    for i in order:
        if members:
            common = shared_prefix_length(encoded[members[-1]], encoded[i])
            if common >= 1 and 2 * common >= min(len(encoded[members[-1]]), len(encoded[i])):
                members.append(i)
                shared = min(shared, common)
                continue
            groups.append((members, shared))
        members, shared = [i], len(encoded[i])
    if members:
        groups.append((members, shared))
    return [(m, max(0, min(p, min(len(encoded[i]) for i in m) - 1))) for m, p in groups]


def contiguous_parts(widths: Sequence[int], groups: Sequence[Any], part_cost: int) -> list[tuple[int, int, int]]:
    """``[(start, stop, width)]``: the rows ``0 … len(widths)−1`` cut into runs of one group each,
    ``width`` the largest of the run's widths, minimising ``Σ (stop − start)·width + part_cost`` over
    all such cuts (dynamic programming over the cut points, O(rows²)). A run's rows read the last
    ``width`` columns of their slots, so a long row costs its own run its columns and not every row's;
    ``part_cost`` (:attr:`PrefixSettings.part_cost <.settings.PrefixSettings>`) prices one more run in row-columns."""
    n = len(widths)
    best = [0] * (n + 1)
    cut = [0] * (n + 1)
    for stop in range(1, n + 1):
        best[stop], widest = -1, 0
        for start in range(stop - 1, -1, -1):
            if groups[start] != groups[stop - 1]:
                break
            widest = max(widest, int(widths[start]))
            candidate = best[start] + (stop - start) * widest + part_cost
            if best[stop] < 0 or candidate < best[stop]:
                best[stop], cut[stop] = candidate, start
    parts = []
    stop = n
    while stop > 0:
        start = cut[stop]
        parts.append((start, stop, max(int(w) for w in widths[start:stop])))
        stop = start
    return parts[::-1]
