"""``densing-hf``: lm-eval's HF backend with the prefix engine (registered by :mod:`densing.eval.backends.densing_hf`).

:class:`PrefixCachedHFLM` is lm-eval's ``HFLM`` whose log-likelihood requests run over the trie of their tokens
(:mod:`.trie`) and whose greedy ``generate_until`` requests decode over shared prefixes (:mod:`.generation`). Tasks,
prompts, metrics and the request cache are untouched, so results agree with the plain backend to float rounding
(``tests/eval/test_prefix_cache.py``, ``tests/eval/test_generation.py``); models and requests the engine does not
cover go through lm-eval's plain path. Its settings are one :class:`~.settings.PrefixSettings`, whole (``settings=``)
or field by field (lm-eval's ``--model_args``)::

    lm = get_model("densing-hf").create_from_arg_string("pretrained=HuggingFaceTB/SmolLM2-135M,draft=2")
"""

from __future__ import annotations

import contextlib
import time
from itertools import chain
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from lm_eval.models.huggingface import HFLM
from tqdm import tqdm

from densing.errors import InputError
from densing.eval.backends.prefix.encoding import batch_encodable, encode_pairs
from densing.eval.backends.prefix.settings import SETTING_NAMES, DecodeStats, PrefixSettings, Sizing, TrieStats
from densing.eval.backends.prefix.slots import cache_kwargs
from densing.eval.backends.prefix.trie import Forward, ancestor_mask, causal, compact, plan_forwards
from densing.eval.store import ShardFinished, TimeLimitReached, request_shard

#: The decoding path's version: raised whenever a change could alter a generated string or a log-likelihood, so
#: that the request cache (keyed by :func:`densing.eval.runner.decoding_identity`) never returns an older one.
DECODER_VERSION = 4


class PassInputs(NamedTuple):
    """One trie pass's tensors: the model's inputs, then per scored token its row, target and (on the host) request."""

    tokens: torch.Tensor
    positions: torch.Tensor
    mask: torch.Tensor | None
    cache_position: torch.Tensor
    keep_rows: torch.Tensor
    rows: torch.Tensor
    targets: torch.Tensor
    owners: torch.Tensor


def device_sizing(model: Any, device: Any, max_length: int) -> Sizing:
    """The :class:`~.settings.Sizing` of ``model`` on ``device`` (keys/values: 2·layers·kv_heads·head_dim·bytes)."""
    device = torch.device(device)
    if device.type != "cuda":
        return Sizing(device.type)
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    dtype = getattr(model, "dtype", torch.float32)
    dtype_bytes = torch.finfo(dtype).bits // 8 if dtype.is_floating_point else 4
    hidden = int(getattr(config, "hidden_size", 0) or 0)
    heads = int(getattr(config, "num_attention_heads", 0) or 0)
    kv_heads = int(getattr(config, "num_key_value_heads", 0) or heads)
    head_dim = int(getattr(config, "head_dim", 0) or (hidden // heads if heads else 0))
    layers = int(getattr(config, "num_hidden_layers", 0) or 0)
    properties = torch.cuda.get_device_properties(device)
    return Sizing(
        "cuda",
        memory_bytes=int(properties.total_memory),
        multiprocessors=int(properties.multi_processor_count),
        dtype_bytes=dtype_bytes,
        vocab_size=int(getattr(config, "vocab_size", 0) or 0),
        hidden_size=hidden,
        kv_bytes_per_token=2 * layers * kv_heads * head_dim * dtype_bytes,
        max_length=int(max_length),
    )


class PrefixCachedHFLM(HFLM):
    """``HFLM`` with the prefix engine (see the module), configured by ``settings`` (or its fields as keyword
    arguments; the rest go to ``HFLM``). After each call, ``trie_stats`` and ``decode_stats`` say what it computed.
    With ``shard = (k, n)`` it computes only shard ``k`` of the requests (:func:`request_shard`) into lm-eval's
    request cache and raises :class:`ShardFinished` instead of returning."""

    decoder_version = DECODER_VERSION  # part of the request cache's key (densing.eval.runner.decoding_identity)

    shard: tuple[int, int] | None = None
    #: a ``time.monotonic()`` instant after which greedy generation admits no new request
    #: (``densing eval --time-limit``): the rows in flight finish, then :class:`TimeLimitReached`
    admit_until: float | None = None

    def __init__(self, *args: Any, settings: PrefixSettings | None = None, **kwargs: Any) -> None:
        named = {name: kwargs.pop(name) for name in list(kwargs) if name in SETTING_NAMES}
        if settings is not None and named:
            raise InputError(f"prefix settings: give settings or its fields ({', '.join(sorted(named))}), not both")
        self.settings = settings if settings is not None else PrefixSettings(**named)
        self.decode_stats, self.trie_stats = DecodeStats(), TrieStats()
        super().__init__(*args, **kwargs)
        self.sizing = device_sizing(self.model, self.device, self.max_length)
        if self.sizing.device == "cuda" and getattr(self.model.config, "_attn_implementation", None) == "eager":
            with contextlib.suppress(AttributeError, ValueError, ImportError):  # a model without SDPA keeps eager
                self.model.set_attn_implementation("sdpa")

    def with_settings(self, settings: PrefixSettings) -> PrefixCachedHFLM:
        """A copy of this lm (the same model and tokenizer, not reloaded) that runs with ``settings``."""
        import copy

        if not isinstance(settings, PrefixSettings):
            raise InputError(f"settings: expected a PrefixSettings, got {type(settings).__name__}")
        clone = copy.copy(self)
        clone.__dict__.pop("_recent_encodings", None)  # its own encodings' memo, not the shared dict
        clone.settings, clone.decode_stats, clone.trie_stats = settings, DecodeStats(), TrieStats()
        return clone

    def _sharded(self, run: Any, requests: list[Any], disable_tqdm: bool) -> list[Any]:
        """``run(requests, disable_tqdm)``, or with a ``shard`` run on its share, then :class:`ShardFinished`."""
        if self.shard is None:
            return run(requests, disable_tqdm)
        mine = [r for r in requests if request_shard(r.args, self.shard[1]) == self.shard[0]]
        if mine:
            run(mine, disable_tqdm)
        raise ShardFinished(len(mine), len(requests))

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        """lm-eval's ``loglikelihood`` with the strings encoded in batches (:func:`.encoding.encode_pairs`), sharded."""
        return self._sharded(self._loglikelihood, requests, disable_tqdm)

    def _loglikelihood(self, requests: list[Any], disable_tqdm: bool) -> list[tuple[float, bool]]:
        if getattr(self, "enable_thinking", False) or not batch_encodable(self):
            return super().loglikelihood(requests, disable_tqdm=disable_tqdm)  # lm-eval's, one string at a time
        pairs = [request.args for request in requests]
        encoded = encode_pairs(self, pairs)
        # the continuation's token count of each pair of the last call (the conditional loss reads them back)
        self.continuation_tokens = {pair: len(ids[1]) for pair, ids in zip(pairs, encoded)}
        return self._loglikelihood_tokens(
            [(pair, *ids) for pair, ids in zip(pairs, encoded)], disable_tqdm=disable_tqdm
        )

    def tok_encode(
        self, string: str, add_special_tokens: bool | None = None, left_truncate_len: int | None = None, **kwargs: Any
    ) -> list[int]:
        """lm-eval's encoding, remembered for the last few strings (a question's choices share a context)."""
        from collections import OrderedDict

        if kwargs:
            return super().tok_encode(
                string, add_special_tokens=add_special_tokens, left_truncate_len=left_truncate_len, **kwargs
            )
        recent = self.__dict__.setdefault("_recent_encodings", OrderedDict())
        key = (string, left_truncate_len, add_special_tokens)
        if key not in recent:
            recent[key] = super().tok_encode(
                string, add_special_tokens=add_special_tokens, left_truncate_len=left_truncate_len
            )
            if len(recent) > 16:
                recent.popitem(last=False)
        return list(recent[key])

    def _tree_attention_supported(self) -> bool:
        implementation = getattr(self.model.config, "_attn_implementation", None) or "eager"
        if self.backend != "causal" or implementation not in ("sdpa", "eager"):
            return False
        from transformers.cache_utils import DynamicCache, DynamicLayer

        cache = DynamicCache(config=self.model.config)
        return all(type(layer) is DynamicLayer for layer in getattr(cache, "layers", []))

    def token_budget(self) -> int:
        """New trie nodes per log-likelihood pass: ``settings.tokens_per_batch``, else the device's."""
        return self.settings.tokens_per_batch or self.sizing.tokens_per_batch()

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
            inputs.append((context_enc + continuation_enc)[-(self.max_length + 1) :][:-1])
        first_needed = [len(inputs[i]) - len(requests[i][2]) for i in range(len(requests))]
        plan = plan_forwards(inputs, first_needed, self.token_budget(), self.settings.recompute_tolerance)
        self.trie_stats = TrieStats(computed_tokens=sum(len(f.tokens) for f in plan), forwards=len(plan))

        results: list[tuple[float, bool] | None] = [None] * len(requests)
        cache: Any = None
        dtype = self.model.dtype if self.model.dtype.is_floating_point else torch.float32
        progress = tqdm(
            total=len(requests),
            disable=(disable_tqdm or self.rank != 0),
            desc="Running loglikelihood requests (trie cache)",
        )
        prepared = self._pass_inputs(plan[0], requests, dtype) if plan else None
        for k, forward in enumerate(plan):
            inputs = prepared if prepared is not None else self._pass_inputs(forward, requests, dtype)
            prepared = None
            if cache is None or forward.keep == 0:
                cache = DynamicCache(config=self.model.config)
            elif cache.get_seq_length() > forward.keep:
                cache.crop(forward.keep - cache.get_seq_length())  # transformers 5: minus the tokens to drop
            with torch.no_grad():
                output = self.model(
                    input_ids=inputs.tokens,
                    position_ids=inputs.positions,
                    attention_mask=inputs.mask,
                    **cache_kwargs(self.model, cache),
                    use_cache=True,
                    cache_position=inputs.cache_position,
                    logits_to_keep=inputs.keep_rows,
                )
                log_probs = F.log_softmax(output.logits[0, :, : self.vocab_size], dim=-1, dtype=self.softmax_dtype)
                # each token's log-probability and whether it is the argmax, in one transfer to the host
                scored_on_device = torch.stack(
                    [
                        log_probs[inputs.rows, inputs.targets].float(),
                        (log_probs.argmax(dim=-1)[inputs.rows] != inputs.targets).float(),
                    ]
                )
            if self.settings.prefetch and k + 1 < len(plan):  # the host's share of the next pass, while this one runs
                prepared = self._pass_inputs(plan[k + 1], requests, dtype)
            scored = scored_on_device.cpu()
            # each request's sum taken in float64 on the host
            totals = torch.zeros(len(forward.requests), dtype=torch.float64).index_add_(
                0, inputs.owners, scored[0].double()
            )
            missed = torch.zeros(len(forward.requests), dtype=torch.float64).index_add_(
                0, inputs.owners, scored[1].double()
            )
            for index, total, miss in zip(forward.requests, totals.tolist(), missed.tolist()):
                results[index] = answer = (float(total), miss == 0)
                if requests[index][0] is not None:
                    self.cache_hook.add_partial("loglikelihood", requests[index][0], answer)
            compact(cache, forward.keep, forward.last_path, len(forward.tokens), self.device)
            progress.update(len(forward.requests))
        progress.close()
        return results  # type: ignore[return-value]

    def _pass_inputs(self, forward: Forward, requests: list[Any], dtype: torch.dtype) -> PassInputs:
        """The tensors of one trie pass (:class:`PassInputs`), on the model's device but the owners'."""
        n, mask = len(forward.tokens), None  # one causal sequence: the model's own causal attention, no mask
        if not causal(forward):
            mask = torch.empty((1, 1, n, forward.keep + n), dtype=dtype, device=self.device)
            mask[0, 0, :, : forward.keep] = 0
            torch.where(
                ancestor_mask(forward.positions, self.device),
                torch.zeros((), dtype=dtype, device=self.device),
                torch.full((), torch.finfo(dtype).min, dtype=dtype, device=self.device),
                out=mask[0, 0, :, forward.keep :],
            )
        needed = np.concatenate(forward.needed)
        keep_rows, rows = np.unique(needed, return_inverse=True)  # the rows whose logits are kept, and each one's
        targets = np.fromiter(
            chain.from_iterable(requests[index][2] for index in forward.requests), np.int64, len(needed)
        )

        def on_device(values: np.ndarray) -> torch.Tensor:
            return torch.from_numpy(np.ascontiguousarray(values, dtype=np.int64)).to(self.device)

        return PassInputs(
            tokens=on_device(forward.tokens[None]),
            positions=on_device(forward.positions[None]),
            mask=mask,
            cache_position=torch.arange(forward.keep, forward.keep + n, device=self.device),
            keep_rows=on_device(keep_rows),
            rows=on_device(rows.reshape(-1)),
            targets=on_device(targets),
            owners=torch.from_numpy(
                np.repeat(np.arange(len(forward.needed)), [len(nodes) for nodes in forward.needed])
            ),
        )

    def generation_rows(self) -> int:
        """Requests decoded together: ``settings.rows_per_batch`` (``--slots``), else the device's."""
        return self.settings.rows_per_batch or self.sizing.rows_per_batch()

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        """Greedy requests through :func:`.generation.generate_greedy`, others through lm-eval's; sharded."""
        return self._sharded(self._generate_until, requests, disable_tqdm)

    def _generate_until(self, requests: list[Any], disable_tqdm: bool) -> list[str]:
        from densing.eval.backends.prefix.generation import generate_greedy, greedy_settings, group_key

        self.decode_stats = DecodeStats()
        if not self._tree_attention_supported():
            return super().generate_until(requests, disable_tqdm=disable_tqdm)
        groups: dict[str, list[int]] = {}  # the requests of each generation settings
        for index, request in enumerate(requests):
            groups.setdefault(group_key(request.args[1]), []).append(index)
        results: list[str | None] = [None] * len(requests)
        progress = tqdm(
            total=len(requests),
            disable=(disable_tqdm or self.rank != 0),
            desc="Running generate_until requests (shared prefix)",
        )
        for indices in groups.values():
            gen_kwargs = requests[indices[0]].args[1]
            greedy = greedy_settings(self, gen_kwargs)
            if greedy is None:
                texts = super().generate_until([requests[i] for i in indices], disable_tqdm=True)
                progress.update(len(indices))
            else:
                if (
                    self.admit_until is not None
                    and time.monotonic() >= self.admit_until
                    and any(r is not None for r in results)
                ):
                    continue  # past the time limit: this group is left for the next run
                texts, stats = generate_greedy(
                    self,
                    [requests[i].args[0] for i in indices],
                    gen_kwargs,
                    *greedy,
                    self.generation_rows(),
                    self.settings,
                    progress,
                    self.admit_until,
                )
                self.decode_stats.add(stats)
            for i, text in zip(indices, texts):
                results[i] = text
        progress.close()
        done = sum(r is not None for r in results)
        if done < len(requests):
            raise TimeLimitReached(done, len(requests))
        return results  # type: ignore[return-value]
