"""BBH per task from a store's request cache: lm-eval's own filter and metric on the cached strings.

``densing eval --benchmarks bbh`` stores one row, the group's exact match (lm-eval's
``bbh_cot_fewshot`` aggregate: the mean over tasks weighted by their sizes). This script reads the
strings that run cached (STORE/.cache/…/requests_rank0.db, the same request cache
``tools/bbh_cache_recheck.py`` reads), puts each on its lm-eval instance, runs each task's own
``get-answer`` filter (``regex "(?<=the answer is )(.*)(?=.)"`` then ``take_first``; a string with no
match becomes ``[invalid]``) and its ``process_results`` (exact match against ``target``), exactly as
``lm_eval.evaluator.evaluate`` does, and prints per task:

- ``n`` items (cached / in the split), exact match ± its standard error (lm-eval's ``mean_stderr``,
  ``sd / sqrt(n)``),
- ``no answer``: the share of strings in which the regex finds no "the answer is …" (scored 0),
- ``constant``: the exact match of always answering the task's most common target (a baseline
  computed from the split, not a published chance level; free-form tasks such as word_sorting
  have a constant baseline near 0),
- the mean length of the cached strings in characters.

With ``--models FILE`` (the models file of the run; its first model's tokenizer), also the share
of strings that ran to the task's ``max_gen_toks`` (1,024): re-tokenised, within 4 tokens of it
(decoding and re-encoding a string can merge or split a few tokens: of SmolLM2's BBH
strings of 1,000 tokens or more, 2,478 have 1,020 or more and 6 have 1,000–1,019), and the new and prompt
tokens over all items.

The last line is the size-weighted mean over complete tasks, which equals the group row of a
complete run (the check that this script scores as lm-eval does).

    python studies/bbh_per_task.py STORE [--markdown] [--models results/smollm2/models.yaml]
"""

from __future__ import annotations

import argparse
import collections
import logging
import math
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from densing.errors import DensingError  # noqa: E402  (the offline switches above come first)
from tools.lm_eval_requests import BBH_PREFIX, bbh_task_names, read_request_cache  # noqa: E402  (as above)


def fill_from_cache(task, cache: dict) -> list:
    """The built instances of lm-eval TASK whose strings CACHE holds, each with ``resps`` set and TASK's filters
    applied, as ``lm_eval.evaluator.evaluate`` leaves them; TASK's instances are narrowed to these."""
    from lm_eval.api.model import hash_args

    done = []
    for instance in task.instances:
        key = hash_args("generate_until", instance.args)
        if key in cache:
            instance.resps = [cache[key]]
            done.append(instance)
    task._instances = done
    if done:
        task.apply_filters()
    return done


def _tokenizer(models_file: str):
    """The tokenizer of the first model in MODELS_FILE, loaded as ``densing eval`` loads it."""
    from densing.eval.loading import load_model
    from densing.eval.models import read_models_file

    spec = read_models_file(models_file)[0]
    return load_model(spec, backend="densing-hf", device="cpu", batch_size=1)[0].tokenizer


def per_task(store: str, models_file: str | None = None) -> list[dict] | None:
    """One dict per BBH task (see the module docstring); ``None`` when STORE has no single request cache."""
    from densing.eval.harness import task_manager
    from densing.paths import SHARED_DATA

    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    try:
        cached = read_request_cache(store)
    except DensingError as exc:
        print(exc, file=sys.stderr)
        return None
    manager = task_manager(needed=[], data_root=SHARED_DATA)
    names = bbh_task_names(manager)
    loaded = manager.load(names)["tasks"]
    tokenizer = _tokenizer(models_file) if models_file else None
    rows = []
    for name in names:
        task = loaded[name]
        task.build_all_requests(limit=None, rank=0, world_size=1)
        split = len(task.instances)
        targets = collections.Counter(str(task.doc_to_target(i.doc)) for i in task.instances)
        done = fill_from_cache(task, cached)
        limit = int(task.config.generation_kwargs["max_gen_toks"])
        scores, invalid, length, full, new_tokens, prompt_tokens = [], 0, 0, 0, 0, 0
        for instance in done:
            answer = instance.filtered_resps["get-answer"]
            scores.append(task.process_results(instance.doc, [answer])["exact_match"])
            invalid += answer == "[invalid]"
            length += len(instance.resps[0])
            if tokenizer is not None:
                generated = len(tokenizer(instance.resps[0], add_special_tokens=False)["input_ids"])
                full += generated >= limit - 4
                new_tokens += generated
                prompt_tokens += len(tokenizer(instance.args[0])["input_ids"])
        n = len(scores)
        mean = sum(scores) / n if n else math.nan
        sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1)) if n > 1 else math.nan
        rows.append(
            {
                "task": name[len(BBH_PREFIX) :],
                "n": n,
                "split": split,
                "exact_match": mean,
                "stderr": sd / math.sqrt(n) if n else math.nan,
                "no_answer": invalid / n if n else math.nan,
                "constant": max(targets.values()) / split,
                "mean_chars": length / n if n else math.nan,
                "ran_to_limit": full / n if n and tokenizer is not None else math.nan,
                "new_tokens": new_tokens,
                "prompt_tokens": prompt_tokens,
            }
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument(
        "--models", help="the run's models file: count strings that ran to max_gen_toks with its tokenizer"
    )
    args = parser.parse_args()
    rows = per_task(args.store, args.models)
    if rows is None:
        return 2
    if args.markdown:
        print(
            "| task | items | exact match | no answer extracted | constant answer | mean string (chars) | ran to the token limit |"
        )
        print("|---|---|---|---|---|---|---|")
    for r in rows:
        partial = "" if r["n"] == r["split"] else " (partial)"
        if args.markdown:
            print(
                f"| {r['task']}{partial} | {r['n']} / {r['split']} | {r['exact_match']:.3f} ± {r['stderr']:.3f} | "
                f"{r['no_answer']:.2f} | {r['constant']:.3f} | {r['mean_chars']:.0f} | {r['ran_to_limit']:.2f} |"
            )
        else:
            print(
                f"{r['task']:<45} {r['n']:>4}/{r['split']:<4} exact match {r['exact_match']:.3f} ± {r['stderr']:.3f}  "
                f"no answer {r['no_answer']:.2f}  constant {r['constant']:.3f}  {r['mean_chars']:.0f} chars  "
                f"ran to the limit {r['ran_to_limit']:.2f}{partial}"
            )
    complete = [r for r in rows if r["n"] == r["split"]]
    items = sum(r["n"] for r in complete)
    if items:
        weighted = sum(r["exact_match"] * r["n"] for r in complete) / items
        no_answer = sum(r["no_answer"] * r["n"] for r in complete) / items
        constant = sum(r["constant"] * r["n"] for r in complete) / items
        full = sum(r["ran_to_limit"] * r["n"] for r in complete) / items
        answered = sum((1 - r["no_answer"]) * r["n"] for r in complete)
        strata = math.sqrt(sum((r["n"] * r["stderr"]) ** 2 for r in complete)) / items
        print(
            f"{len(complete)} of {len(rows)} tasks complete, {items} items: size-weighted exact match {weighted:.4f} "
            f"(± {strata:.4f} over tasks as strata), no answer extracted {no_answer:.3f}, exact match of the "
            f"{answered:.0f} with an answer {weighted * items / answered:.4f}, constant answer {constant:.4f}, "
            f"ran to the token limit {full:.3f}"
        )
        if args.models:
            print(
                f"re-tokenised: {sum(r['new_tokens'] for r in complete):,} new tokens after "
                f"{sum(r['prompt_tokens'] for r in complete):,} prompt tokens (every item, repeated prompts counted again)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
