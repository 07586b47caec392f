"""lm-eval's HF backend with a cross-request prefix cache: every distinct token position once.

lm-eval scores every (context, continuation) pair with its own forward pass over the whole
sequence. A 5-shot task repeats the same few-shot block in every request, and the same question
once per choice, so on a CPU most of the work is recomputing identical prefixes.
:class:`PrefixCachedHFLM` computes exactly the same quantity,

    log P(continuation | context) = Σ_t log softmax(f(x_<t))[x_t]   over the continuation tokens,

on exactly the tokens lm-eval's ``HFLM._loglikelihood_tokens`` would feed (``(context +
continuation)[-(max_length + 1):][:-1]``), but over the *trie* of those token sequences: a token
position shared by several requests (same tokens up to and including it) is one trie node, and
each node is run through the model once.

The method (:func:`plan_forwards`): sort the requests' token sequences lexicographically, so a
trie's subtrees are contiguous and the distinct-node count is ``Σ len_i − Σ lcp(s_{i−1}, s_i)``
(:func:`distinct_token_count`). Walk them in that order in chunks. The key/value cache always holds
the full path of the last request scored. A chunk of consecutive requests reuses the cache up to
``keep`` = the prefix all of them share with it (and with each other, and never past the first
position whose logits any of them needs), and lays out the rest of its sub-trie as one flat
sequence of distinct nodes ("tree attention"): node *j* sits at position ``depth(j)`` and attends,
by a 4-D additive mask, to the ``keep`` cached positions and to its own ancestors in the sub-trie
— exactly the tokens before it in every request it belongs to, so its hidden states equal those of
a plain causal pass over any of those requests. One forward pass per chunk; logits (the vocabulary
projection) only at the nodes whose next-token distribution some request scores (``logits_to_keep``
as an index tensor). Afterwards the cache is compacted to ``keep`` + the last request's path, ready
for the next chunk. A chunk holds up to ``token_budget`` new nodes (``512 × batch_size``; a single
request longer than that is one chunk of its own).

Tasks, prompts, few-shot examples, metrics and lm-eval's request cache are untouched; only the
arithmetic is regrouped, so results agree with the plain backend to float rounding (tested against
it in ``tests/eval/test_prefix_cache.py`` on hypothesis-generated request sets, and on SmolLM2 by
``bench/eval_throughput.py``). Models whose cache is not a plain ``DynamicCache`` (sliding-window
layers) or whose attention cannot take a custom 4-D mask (flash attention), and encoder-decoder
models, go through lm-eval's plain path. Greedy ``generate_until`` requests share their prefix's
key/values too (:mod:`densing.eval.generation`); sampled ones go through lm-eval's ``generate``.

Imports lm-eval and torch at module level: import this module only when the ``eval`` extra is
installed (the runner does so inside :func:`densing.eval.runner.load_model`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from lm_eval.models.huggingface import HFLM
from tqdm import tqdm

from densing.eval.store import ShardFinished, TimeLimitReached, request_shard  # noqa: F401  (public here too)
from densing.eval.token_prefixes import distinct_token_count, shared_prefix_length  # noqa: F401  (public here too)

#: new trie nodes per forward pass at batch size 1 (``token_budget = TOKENS_PER_BATCH × batch_size``)
TOKENS_PER_BATCH = 512
#: cached positions a pass may run again rather than end early (see :func:`plan_forwards`)
RECOMPUTE_TOLERANCE = 8


@dataclass(frozen=True)
class Forward:
    """One forward pass of the trie walk.

    ``keep`` cached positions are reused; ``tokens[j]`` is a new node at position ``positions[j]``
    whose parent is node ``parents[j]`` (−1: the last cached position, or none); ``needed[r]`` are
    the node indices whose logits score request ``requests[r]``'s continuation tokens, in order;
    ``last_path`` the node indices of the last request's path below ``keep`` (the cache keeps them).
    """

    keep: int
    requests: tuple[int, ...]
    tokens: tuple[int, ...]
    positions: tuple[int, ...]
    parents: tuple[int, ...]
    needed: tuple[tuple[int, ...], ...]
    last_path: tuple[int, ...]


def plan_forwards(inputs: Sequence[Sequence[int]], first_needed: Sequence[int], token_budget: int) -> list[Forward]:
    """The forward passes that score every request with each trie node computed once.

    ``inputs[i]`` is the token sequence fed for request *i* and ``first_needed[i]`` the first
    position whose logits it scores (``len(inputs[i]) − len(continuation)``). Requests are visited
    in lexicographic order of ``inputs``; a pass takes consecutive requests while its new nodes
    stay within ``token_budget`` (at least one request per pass) and its shared root ``keep`` stays
    within :data:`RECOMPUTE_TOLERANCE` positions of where it started (a lower root would run the
    first request's cached positions again). So a position runs more than once only within that
    tolerance, or where a request's ``first_needed`` lies inside the prefix it shares with the
    previous request (its last context token, for a question's second and later choices).
    """
    if token_budget < 1:
        raise ValueError(f"token_budget: expected a positive number, got {token_budget}")
    order = sorted(range(len(inputs)), key=lambda i: list(inputs[i]))
    lcp = [0] * len(order)  # with the previous request in order (the cache's path)
    for k in range(1, len(order)):
        lcp[k] = shared_prefix_length(inputs[order[k - 1]], inputs[order[k]])
    forwards: list[Forward] = []
    start = 0
    while start < len(order):
        # grow [start, end) while the new nodes fit the budget
        keep = min(lcp[start], first_needed[order[start]])
        initial_keep = keep
        nodes = len(inputs[order[start]]) - keep
        end = start + 1
        while end < len(order):
            candidate_keep = min(keep, lcp[end], first_needed[order[end]])
            if initial_keep - candidate_keep > RECOMPUTE_TOLERANCE:
                # the first path's cached positions from candidate_keep on would run again: end
                # the pass here (a pass that starts mid-question holds that question's last choices)
                break
            # keep ≤ every lcp in the range, so request k adds len_k − lcp_k nodes and the first
            # one len − keep: lowering keep adds (keep − candidate_keep) nodes to the first path
            candidate = nodes + (keep - candidate_keep) + len(inputs[order[end]]) - lcp[end]
            if candidate > token_budget:
                break
            keep, nodes, end = candidate_keep, candidate, end + 1
        forwards.append(_layout(inputs, first_needed, order[start:end], lcp[start:end], keep))
        start = end
    return forwards


def _layout(inputs, first_needed, requests, lcps, keep) -> Forward:
    tokens: list[int] = []
    positions: list[int] = []
    parents: list[int] = []
    needed: list[tuple[int, ...]] = []
    path: list[int] = []  # node indices of the current request at positions keep, keep+1, ...
    for k, index in enumerate(requests):
        sequence = inputs[index]
        begin = keep if k == 0 else max(lcps[k], keep)
        del path[begin - keep:]
        for position in range(begin, len(sequence)):
            parents.append(path[-1] if path else -1)
            path.append(len(tokens))
            tokens.append(int(sequence[position]))
            positions.append(position)
        needed.append(tuple(path[first_needed[index] - keep:]))
    return Forward(keep, tuple(requests), tuple(tokens), tuple(positions), tuple(parents), tuple(needed), tuple(path))


def ancestor_mask(parents: Sequence[int]) -> np.ndarray:
    """``mask[j, i]`` is True when node *i* is node *j* or one of its ancestors (parents precede
    their children)."""
    n = len(parents)
    mask = np.zeros((n, n), dtype=bool)
    for j, parent in enumerate(parents):
        if parent >= 0:
            mask[j, : parent + 1] = mask[parent, : parent + 1]
        mask[j, j] = True
    return mask


class PrefixCachedHFLM(HFLM):
    """``HFLM`` whose log-likelihood requests run over the trie of their tokens (see the module).

    With ``shard = (k, n)`` it computes only the requests of shard ``k`` of ``n``
    (:func:`request_shard`), which lm-eval's request cache keeps, and raises :class:`ShardFinished`
    instead of returning: ``n`` processes fill one cache, and a run without a shard then scores
    every request from it."""

    shard: tuple[int, int] | None = None
    #: a ``time.monotonic()`` instant after which greedy generation admits no new request
    #: (``densing eval --time-limit``): the rows in flight finish, then :class:`TimeLimitReached`
    admit_until: float | None = None

    def _my_share(self, requests: list[Any]) -> list[Any]:
        k, n = self.shard  # type: ignore[misc]
        return [r for r in requests if request_shard(r.args, n) == k]

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        """lm-eval's ``loglikelihood`` (which calls the trie scorer below), or this shard's share of
        ``requests`` and :class:`ShardFinished`."""
        if self.shard is None:
            return super().loglikelihood(requests, disable_tqdm=disable_tqdm)
        mine = self._my_share(requests)
        if mine:
            super().loglikelihood(mine, disable_tqdm=disable_tqdm)
        raise ShardFinished(len(mine), len(requests))

    def tok_encode(self, string: str, add_special_tokens: bool | None = None, left_truncate_len: int | None = None, **kwargs: Any) -> list[int]:
        """lm-eval's encoding, remembered for the last few strings: lm-eval encodes a request's
        context once per choice (``_encode_pair``), and a question's choices come in a row."""
        from collections import OrderedDict

        if kwargs:
            return super().tok_encode(string, add_special_tokens=add_special_tokens, left_truncate_len=left_truncate_len, **kwargs)
        recent = self.__dict__.setdefault("_recent_encodings", OrderedDict())
        key = (string, left_truncate_len, add_special_tokens)
        if key not in recent:
            recent[key] = super().tok_encode(string, add_special_tokens=add_special_tokens, left_truncate_len=left_truncate_len)
            if len(recent) > 16:
                recent.popitem(last=False)
        return list(recent[key])

    def _tree_attention_supported(self) -> bool:
        if self.backend != "causal":
            return False
        implementation = getattr(self.model.config, "_attn_implementation", None) or "eager"
        if implementation not in ("sdpa", "eager"):
            return False
        from transformers import DynamicCache
        from transformers.cache_utils import DynamicLayer

        cache = DynamicCache(config=self.model.config)
        return all(type(layer) is DynamicLayer for layer in getattr(cache, "layers", []))

    def token_budget(self) -> int:
        batch = self.batch_size if isinstance(self.batch_size, int) else 4  # "auto": 4 batches' worth
        return TOKENS_PER_BATCH * max(1, batch)

    def _loglikelihood_tokens(
        self,
        requests: list[tuple[tuple[str, str], list[int], list[int]]],
        disable_tqdm: bool = False,
        override_bs: int | None = None,
    ) -> list[tuple[float, bool]]:
        if not self._tree_attention_supported():
            return super()._loglikelihood_tokens(requests, disable_tqdm=disable_tqdm, override_bs=override_bs)
        from transformers import DynamicCache

        inputs: list[list[int]] = []
        for _, context_enc, continuation_enc in requests:
            if not context_enc or not continuation_enc or len(continuation_enc) > self.max_length:
                raise ValueError("empty context/continuation or a continuation longer than the model's context")
            inputs.append((context_enc + continuation_enc)[-(self.max_length + 1):][:-1])
        first_needed = [len(inputs[i]) - len(requests[i][2]) for i in range(len(requests))]
        plan = plan_forwards(inputs, first_needed, self.token_budget())
        self.computed_tokens = sum(len(f.tokens) for f in plan)  # for the throughput bench

        results: list[tuple[float, bool] | None] = [None] * len(requests)
        cache: Any = None
        dtype = self.model.dtype if self.model.dtype.is_floating_point else torch.float32
        blocked = torch.finfo(dtype).min
        progress = tqdm(total=len(requests), disable=(disable_tqdm or self.rank != 0), desc="Running loglikelihood requests (trie cache)")
        for forward in plan:
            if cache is None or forward.keep == 0:
                cache = DynamicCache(config=self.model.config)
            elif cache.get_seq_length() > forward.keep:
                cache.crop(forward.keep - cache.get_seq_length())  # transformers 5: minus the tokens to drop
            n = len(forward.tokens)
            allowed = np.ones((n, forward.keep + n), dtype=bool)
            allowed[:, forward.keep:] = ancestor_mask(forward.parents)
            mask = torch.zeros((1, 1, n, forward.keep + n), dtype=dtype)
            mask.masked_fill_(torch.from_numpy(~allowed)[None, None], blocked)
            keep_rows = sorted({node for nodes in forward.needed for node in nodes})
            row_of = {node: row for row, node in enumerate(keep_rows)}
            with torch.no_grad():
                output = self.model(
                    input_ids=torch.tensor([forward.tokens], dtype=torch.long, device=self.device),
                    position_ids=torch.tensor([forward.positions], dtype=torch.long, device=self.device),
                    attention_mask=mask.to(self.device),
                    past_key_values=cache,
                    use_cache=True,
                    cache_position=torch.arange(forward.keep, forward.keep + n, device=self.device),
                    logits_to_keep=torch.tensor(keep_rows, dtype=torch.long, device=self.device),
                )
                log_probs = F.log_softmax(output.logits[0, :, : self.vocab_size], dim=-1, dtype=self.softmax_dtype)
            for index, nodes in zip(forward.requests, forward.needed):
                (request_str, _, continuation_enc) = requests[index]
                rows = log_probs[[row_of[node] for node in nodes]]
                target = torch.tensor(continuation_enc, dtype=torch.long, device=self.device)
                greedy = bool((rows.argmax(dim=-1) == target).all())
                answer = (float(rows.gather(1, target.unsqueeze(-1)).sum()), greedy)
                results[index] = answer
                if request_str is not None:
                    self.cache_hook.add_partial("loglikelihood", request_str, answer)
            _compact(cache, forward.keep, forward.last_path, n, self.device)
            progress.update(len(forward.requests))
        progress.close()
        return results  # type: ignore[return-value]

    def generation_rows(self) -> int:
        """Requests decoded together by the greedy path (``ROWS_PER_BATCH × batch_size``)."""
        from densing.eval.generation import ROWS_PER_BATCH

        batch = self.batch_size if isinstance(self.batch_size, int) else 4
        return ROWS_PER_BATCH * max(1, batch)

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        """Greedy requests through :func:`densing.eval.generation.generate_greedy` (the prefix a
        batch shares computed once, then batched greedy steps; lm-eval's strings), grouped by their
        generation keywords; any other request through lm-eval's own ``generate_until``. With a
        ``shard``: this shard's share of ``requests``, then :class:`ShardFinished`."""
        if self.shard is None:
            return self._generate_until(requests, disable_tqdm)
        mine = self._my_share(requests)
        if mine:
            self._generate_until(mine, disable_tqdm)
        raise ShardFinished(len(mine), len(requests))

    def _generate_until(self, requests: list[Any], disable_tqdm: bool) -> list[str]:
        from densing.eval.generation import generate_greedy, greedy_settings, group_key

        if not self._tree_attention_supported():
            return super().generate_until(requests, disable_tqdm=disable_tqdm)
        groups: dict[str, list[int]] = {}
        for index, request in enumerate(requests):
            groups.setdefault(group_key(request.args[1]), []).append(index)
        results: list[str | None] = [None] * len(requests)
        progress = tqdm(total=len(requests), disable=(disable_tqdm or self.rank != 0), desc="Running generate_until requests (shared prefix)")
        for indices in groups.values():
            gen_kwargs = requests[indices[0]].args[1]
            settings = greedy_settings(self, gen_kwargs)
            if settings is None:
                texts = super().generate_until([requests[i] for i in indices], disable_tqdm=True)
                progress.update(len(indices))
            else:
                until, max_gen_toks = settings
                if self.admit_until is not None and time.monotonic() >= self.admit_until and any(r is not None for r in results):
                    continue  # past the time limit: this group is left for the next run
                contexts = [requests[i].args[0] for i in indices]
                texts = generate_greedy(
                    self, contexts, gen_kwargs, until, max_gen_toks, self.generation_rows(), progress, self.admit_until
                )
            for i, text in zip(indices, texts):
                results[i] = text
        progress.close()
        done = sum(r is not None for r in results)
        if done < len(requests):
            raise TimeLimitReached(done, len(requests))
        return results  # type: ignore[return-value]


def _compact(cache: Any, keep: int, path: Sequence[int], appended: int, device: Any) -> None:
    """Keep the first ``keep`` cached positions and, of the ``appended`` new ones, the ``path``'s."""
    if list(path) == list(range(appended)):
        return
    index = torch.cat([torch.arange(keep, device=device), keep + torch.tensor(list(path), dtype=torch.long, device=device)])
    for layer in cache.layers:
        layer.keys = layer.keys.index_select(-2, index)
        layer.values = layer.values.index_select(-2, index)
