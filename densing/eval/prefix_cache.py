"""lm-eval's HF backend with a shared-prefix key/value cache for log-likelihood requests.

lm-eval scores every (context, continuation) pair with its own forward pass over the whole
sequence. A 5-shot multiple-choice task repeats the same few-shot prefix in every request, and
the same question once per choice, so on a CPU most of the work is recomputing identical
prefixes. :class:`PrefixCachedHFLM` computes exactly the same quantity,

    log P(continuation | context) = Σ_t log softmax(f(x_<t))[x_t]   over the continuation tokens,

on exactly the tokens lm-eval's ``HFLM._loglikelihood_tokens`` would feed (``(context +
continuation)[-(max_length + 1):][:-1]``), but visits the requests in lexicographic token order
and keeps the key/value cache of the prefix shared with the previous request: requests with the
same context (a question's choices) run the context once, then their continuations as one
right-padded batch over a copy of that cache (padding after the real tokens is invisible to a
causal model); a request only runs the model over tokens after the longest prefix it shares with
what is cached (never past the first position whose logits it needs). Tasks, prompts, few-shot examples, metrics and lm-eval's request cache are
untouched; only the arithmetic is reordered, so results agree with the plain backend to float
rounding (tested against it in ``tests/eval/test_prefix_cache.py``).

The ``batch_size`` argument is not used (batches are a context's choices); lm-eval's
``generate_until`` goes through the plain HF code path.

Imports lm-eval and torch at module level: import this module only when the ``eval`` extra is
installed (the runner does so inside :func:`densing.eval.runner.load_model`).
"""
from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from lm_eval.models.huggingface import HFLM
from tqdm import tqdm


def _shared_prefix_length(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class PrefixCachedHFLM(HFLM):
    """``HFLM`` whose log-likelihood requests reuse the key/value cache of a shared prefix."""

    def _loglikelihood_tokens(
        self,
        requests: list[tuple[tuple[str, str], list[int], list[int]]],
        disable_tqdm: bool = False,
        override_bs: int | None = None,
    ) -> list[tuple[float, bool]]:
        if self.backend != "causal":  # encoder-decoder models: the plain path
            return super()._loglikelihood_tokens(requests, disable_tqdm=disable_tqdm, override_bs=override_bs)
        import copy
        import inspect

        from transformers import DynamicCache

        # extending the cache needs no logits: the output head for the last position only (the
        # vocabulary projection is about a fifth of a small model's work per token; SmolLM2-135M,
        # 70 tokens over a 520-token cache, one CPU thread: 0.31 s -> 0.26 s); a model whose
        # forward has no `logits_to_keep` computes them all
        no_logits = {"logits_to_keep": 1} if "logits_to_keep" in inspect.signature(self.model.forward).parameters else {}

        inputs: list[list[int]] = []
        for _, context_enc, continuation_enc in requests:
            if not context_enc or not continuation_enc or len(continuation_enc) > self.max_length:
                raise ValueError("empty context/continuation or a continuation longer than the model's context")
            inputs.append((context_enc + continuation_enc)[-(self.max_length + 1):][:-1])
        # first position whose logits are needed (they predict the first continuation token)
        first_needed = [len(inputs[i]) - len(requests[i][2]) for i in range(len(requests))]
        order = sorted(range(len(requests)), key=lambda i: inputs[i])
        # requests with the same context tokens (a multiple-choice question's choices) form a group:
        # the shared prefix runs once, then the group's suffixes run as one right-padded batch
        groups: list[list[int]] = []
        for index in order:
            if groups and first_needed[index] == first_needed[groups[-1][0]] and (
                inputs[index][: first_needed[index]] == inputs[groups[-1][0]][: first_needed[index]]
            ):
                groups[-1].append(index)
            else:
                groups.append([index])
        results: list[tuple[float, bool] | None] = [None] * len(requests)
        cached: list[int] = []
        cache: Any = None
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        progress = tqdm(total=len(requests), disable=(disable_tqdm or self.rank != 0), desc="Running loglikelihood requests (prefix cache)")
        for group in groups:
            leader = inputs[group[0]]
            prefix = first_needed[group[0]]  # every member shares leader[:prefix]
            keep = min(_shared_prefix_length(cached, leader), prefix)
            if cache is None or keep == 0:
                cache, keep = DynamicCache(config=self.model.config), 0
            elif cache.get_seq_length() > keep:
                cache.crop(keep - cache.get_seq_length())  # transformers 5: a negative count of tokens to drop
            if prefix > keep:  # extend the cache over the rest of the shared prefix
                with torch.no_grad():
                    positions = torch.arange(keep, prefix, device=self.device).unsqueeze(0)
                    self.model(
                        input_ids=torch.tensor([leader[keep:prefix]], dtype=torch.long, device=self.device),
                        position_ids=positions, past_key_values=cache, use_cache=True, cache_position=positions[0],
                        **no_logits,
                    )
            cached = leader[:prefix]
            suffixes = [inputs[i][prefix:] for i in group]
            width = max(len(x) for x in suffixes)
            batch = torch.tensor([x + [pad] * (width - len(x)) for x in suffixes], dtype=torch.long, device=self.device)
            positions = torch.arange(prefix, prefix + width, device=self.device).unsqueeze(0).expand(len(group), -1)
            branch = None
            if prefix > 0:  # the suffixes attend to a copy of the prefix cache; right padding is
                branch = copy.deepcopy(cache)  # invisible to a causal model's real positions
                if len(group) > 1:
                    branch.batch_repeat_interleave(len(group))
            with torch.no_grad():
                output = self.model(
                    input_ids=batch, position_ids=positions, past_key_values=branch,
                    use_cache=branch is not None, cache_position=positions[0],
                )
            for row, index in enumerate(group):
                (request_str, _, continuation_enc) = requests[index]
                logits = output.logits[row, : len(continuation_enc), : self.vocab_size]
                log_probs = F.log_softmax(logits, dim=-1, dtype=self.softmax_dtype)
                target = torch.tensor(continuation_enc, dtype=torch.long, device=self.device)
                greedy = bool((log_probs.argmax(dim=-1) == target).all())
                answer = (float(log_probs.gather(1, target.unsqueeze(-1)).sum()), greedy)
                results[index] = answer
                if request_str is not None:
                    self.cache_hook.add_partial("loglikelihood", request_str, answer)
            progress.update(len(group))
        progress.close()
        return results  # type: ignore[return-value]
