"""Replay cached BBH continuations through prompt-lookup drafting: how many decoding steps drafts save.

Greedy decoding is deterministic, so a draft's fate is known from the final text: a drafted step
keeps the draft tokens that equal the next tokens of the text, plus one. This reads the strings a
``densing eval --prefix-cache --benchmarks bbh --local-data`` run put in STORE's request cache
(SmolLM2-135M-Instruct, as ``results/smollm2/models.yaml`` loads it), retokenises prompt and text,
and counts, per maximum draft length, the steps drafting would take
(:class:`densing.eval.backends.prefix.drafts.NgramIndex`, every step reading the longest draft) and the query
tokens they read, against one token per step. Also prints how many continuations ran to
``max_gen_toks`` (1,024). Retokenising a decoded string can differ from the generated ids at a few
places; the counts are an estimate of the decoding's, not a replay of it.

    python bench/bbh_draft_replay.py STORE [--every 5 --drafts 4,8,16]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def replay(prompt: list[int], text: list[int], draft: int) -> tuple[int, int]:
    """(steps, query tokens) to decode ``text`` after ``prompt`` with drafts of up to ``draft`` tokens."""
    from densing.eval.backends.prefix.drafts import NgramIndex
    from densing.eval.backends.prefix.settings import PrefixSettings

    index = NgramIndex(prompt, PrefixSettings().ngram)
    done = steps = queried = 0
    while done < len(text):
        proposal = index.draft(min(draft, len(text) - done - 1))
        kept = 0
        while kept < len(proposal) and proposal[kept] == text[done + kept]:
            kept += 1
        for token in text[done : done + kept + 1]:
            index.append(token)
        done += kept + 1
        steps += 1
        queried += 1 + len(proposal)
    return steps, queried


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--every", type=int, default=5, help="every N-th cached request")
    parser.add_argument("--drafts", default="4,8,16")
    arguments = parser.parse_args()

    from densing.eval.models import read_models_file
    from densing.eval.runner import load_model
    from densing.paths import RESULTS

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bbh_cache_recheck import cached_bbh

    found = cached_bbh(arguments.store)
    if found is None:
        return 2
    instances, cached = found
    spec = read_models_file(RESULTS / "smollm2" / "models.yaml")[0]
    tokenizer = load_model(spec, backend="hf", device="cpu", batch_size=1, prefix_cache=True)[0].tokenizer
    pairs = [(tokenizer(i.args[0])["input_ids"], tokenizer(cached[id(i)], add_special_tokens=False)["input_ids"])
             for i in instances]
    lengths = [len(t) for _, t in pairs]
    print(f"{len(pairs)} BBH requests cached: {sum(lengths)} new tokens, median {statistics.median(lengths):.0f}, "
          f"{sum(n >= 1000 for n in lengths)} at 1,000 or more")
    sample = pairs[:: arguments.every]
    tokens = sum(len(t) for _, t in sample)
    for draft in [int(d) for d in arguments.drafts.split(",")]:
        steps = queried = 0
        for prompt, text in sample:
            s, q = replay(prompt, text, draft)
            steps, queried = steps + s, queried + q
        print(f"drafts of up to {draft}: {len(sample)} requests, {tokens} tokens in {steps} steps "
              f"({tokens / steps:.2f} tokens a step), {queried / tokens:.2f} query tokens per new token", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
