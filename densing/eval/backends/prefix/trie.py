"""The trie walk that scores log-likelihood requests with every distinct token position run once.

It computes lm-eval's quantity on the tokens ``HFLM._loglikelihood_tokens`` feeds (``(context +
continuation)[-(max_length + 1):][:-1]``),

    log P(continuation | context) = Σ_t log softmax(f(x_<t))[x_t]   over the continuation tokens,

over the *trie* of those sequences: a position shared by several requests (same tokens up to it) is one node, run
through the model once. :func:`plan_forwards` walks the sequences in lexicographic order (subtrees contiguous) in
chunks; a chunk reuses the key/value cache up to ``keep``, the prefix all its requests share with the last path
cached (never past a position whose logits one needs), and lays out the rest of its sub-trie as one flat sequence
("tree attention", SpecInfer, Miao et al. 2024, arXiv 2305.09781): node *j* at position ``depth(j)`` attends by a
4-D additive mask (:func:`ancestor_mask`) to the ``keep`` cached positions and its ancestors, exactly the tokens
before it in each of its requests. The cache is then compacted to ``keep`` + the last request's path (:func:`compact`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from densing.eval.backends.prefix.settings import PrefixSettings


@dataclass(frozen=True)
class Forward:
    """One forward pass of the trie walk (integer numpy arrays).

    ``keep`` cached positions are reused; ``tokens[j]`` is a new node at position ``positions[j]``
    whose parent is node ``parents[j]`` (−1: the last cached position, or none); ``needed[r]`` are
    the node indices whose logits score request ``requests[r]``'s continuation tokens, in order;
    ``last_path`` the node indices of the last request's path below ``keep`` (the cache keeps them).
    """

    keep: int
    requests: tuple[int, ...]
    tokens: np.ndarray
    positions: np.ndarray
    parents: np.ndarray
    needed: tuple[np.ndarray, ...]
    last_path: np.ndarray


def plan_forwards(
    inputs: Sequence[Sequence[int]],
    first_needed: Sequence[int],
    token_budget: int,
    recompute_tolerance: int = PrefixSettings.recompute_tolerance,
) -> list[Forward]:
    """The forward passes that score every request with each trie node computed once.

    ``inputs[i]`` is the token sequence fed for request *i* and ``first_needed[i]`` the first position whose logits it
    scores. A pass takes consecutive requests (in lexicographic order) while its new nodes stay within
    ``token_budget`` (at least one request) and its root ``keep`` within ``recompute_tolerance`` positions of where it
    started; a position runs again only within that tolerance, or where a request's ``first_needed`` lies inside the
    prefix it shares with the previous request (a question's later choices). A pass of one request whose ``keep`` is
    within the tolerance runs from position 0: its nodes are then one causal sequence (:func:`causal`), which the
    attention kernels compute without a mask, skipping the blocks above the diagonal. Laid out with numpy: a Python
    step per request, not per token.
    """
    if token_budget < 1:
        raise ValueError(f"token_budget: expected a positive number, got {token_budget}")
    order = sorted(range(len(inputs)), key=lambda i: list(inputs[i]))
    arrays = [np.asarray(inputs[i], dtype=np.int64) for i in order]
    # with the previous request in order (the cache's path)
    lcp = [0] + [_shared_prefix(before, after) for before, after in zip(arrays, arrays[1:])]
    forwards: list[Forward] = []
    start = 0
    while start < len(order):
        # grow [start, end) while the new nodes fit the budget
        keep = min(lcp[start], first_needed[order[start]])
        initial_keep = keep
        nodes = len(arrays[start]) - keep
        end = start + 1
        while end < len(order):
            candidate_keep = min(keep, lcp[end], first_needed[order[end]])
            if initial_keep - candidate_keep > recompute_tolerance:
                # the first path's cached positions from candidate_keep on would run again: end
                # the pass here (a pass that starts mid-question holds that question's last choices)
                break
            # keep ≤ every lcp in the range, so request k adds len_k − lcp_k nodes and the first
            # one len − keep: lowering keep adds (keep − candidate_keep) nodes to the first path
            candidate = nodes + (keep - candidate_keep) + len(arrays[end]) - lcp[end]
            if candidate > token_budget:
                break
            keep, nodes, end = candidate_keep, candidate, end + 1
        if end == start + 1 and keep <= recompute_tolerance:
            keep = 0  # one request from its first position: a causal pass (no mask), its few cached positions again
        forwards.append(_layout(arrays[start:end], first_needed, order[start:end], lcp[start:end], keep))
        start = end
    return forwards


def _shared_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """Length of the longest common prefix of two token arrays."""
    m = min(len(a), len(b))
    differ = np.flatnonzero(a[:m] != b[:m])
    return int(differ[0]) if differ.size else m


def _layout(
    arrays: Sequence[np.ndarray], first_needed: Sequence[int], requests: Sequence[int], lcps: Sequence[int], keep: int
) -> Forward:
    """The pass of ``requests`` (sequences ``arrays``, in order) below ``keep``: request *k* adds its positions from
    ``max(lcps[k], keep)`` (the first from ``keep``) as new nodes, each the child of the one before it on its path."""
    begins = [keep] + [max(lcp, keep) for lcp in lcps[1:]]
    lengths = [len(a) for a in arrays]
    offsets = np.cumsum([0] + [length - begin for length, begin in zip(lengths, begins)]).tolist()
    tokens = np.concatenate([a[b:] for a, b in zip(arrays, begins)])
    positions = np.concatenate([np.arange(b, length) for b, length in zip(begins, lengths)])
    parents = np.arange(-1, len(tokens) - 1)
    path = np.empty(max(lengths) - keep, dtype=np.int64)  # path[p − keep]: the node at position p
    needed = []
    for k, index in enumerate(requests):
        begin, length, offset = begins[k], lengths[k], offsets[k]
        if length > begin:
            parents[offset] = path[begin - keep - 1] if begin > keep else -1
            path[begin - keep : length - keep] = np.arange(offset, offsets[k + 1])
        needed.append(path[first_needed[index] - keep : length - keep].copy())
    return Forward(keep, tuple(requests), tokens, positions, parents, tuple(needed), path[: lengths[-1] - keep].copy())


def causal(forward: Forward) -> bool:
    """Whether ``forward`` is one sequence from position 0 (node *j* at position *j*): plain causal attention."""
    return forward.keep == 0 and bool((forward.positions == np.arange(len(forward.positions))).all())


def ancestor_mask(positions: Sequence[int], device: Any = None) -> torch.Tensor:
    """``mask[j, i]`` (a bool tensor on ``device``) is True when node *i* is node *j* or one of its ancestors.

    The nodes of a pass are laid out in depth-first pre-order (:func:`_layout`: parents precede their children, a
    subtree's nodes are consecutive, a child one position below its parent, every root at ``keep``), so *i* is an
    ancestor-or-self of *j* exactly when ``i ≤ j < end[i]``, with ``end[i]`` the first node after *i* at *i*'s
    position or above (n where none): the end of *i*'s subtree. Such a node starts a chain of the layout (a node at
    or above the one before it), so ``end`` compares the n nodes with the chains' starts only (n × chains), and the
    one n×n comparison runs on the device."""
    position = torch.as_tensor(np.asarray(positions, dtype=np.int64)).to(device)
    n = len(position)
    index = torch.arange(n, device=device)
    starts = torch.cat([index[:1], index[1:][position[1:] <= position[:-1]]])
    later = (starts[None, :] > index[:, None]) & (position[starts][None, :] <= position[:, None])  # [i, chain]
    end = torch.where(later.any(dim=1), starts[later.to(torch.uint8).argmax(dim=1)], n)  # argmax: the first True
    return (index[None, :] <= index[:, None]) & (index[:, None] < end[None, :])


def compact(cache: Any, keep: int, path: np.ndarray, appended: int, device: Any) -> None:
    """Keep the first ``keep`` cached positions and, of the ``appended`` new ones, the ``path``'s."""
    path = np.asarray(path, dtype=np.int64)
    if len(path) == appended and bool((path == np.arange(appended)).all()):
        return
    index = torch.cat([torch.arange(keep, device=device), keep + torch.from_numpy(path).to(device)])
    for layer in cache.layers:
        layer.keys = layer.keys.index_select(-2, index)
        layer.values = layer.values.index_select(-2, index)
