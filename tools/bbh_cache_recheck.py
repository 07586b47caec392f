"""Regenerate BBH requests that a store's request cache already holds, with the current code; compare.

A check that a change to the decoding path (``densing/eval/backends/prefix/``) keeps lm-eval's
strings on the real model at production settings, using strings an earlier version wrote to the
request cache of a ``densing eval --backend densing-hf --benchmarks bbh --local-data`` run in STORE
(SmolLM2-135M-Instruct, as ``results/smollm2/models.yaml`` loads it). It takes the cached
requests whose strings are longer than 3,000 characters (rows that never met a stop string) up to
``--runaway`` of them and fills up to ``--requests`` with cached requests shorter than 600
characters, so that slots refill while long rows run and steps read the rows in several runs.
With ``--sample N`` it takes N cached requests at random from randomly drawn whole tasks instead
(all lengths, as a production run meets them), for a paired timing of ``--draft`` settings.
Prints the time, the new tokens, how many strings are identical, how many decoding steps read the
rows in more than one run, and any differing string.

    OMP_NUM_THREADS=1 python tools/bbh_cache_recheck.py STORE [--requests 62 --rows 16 --runaway 2]
    OMP_NUM_THREADS=1 python tools/bbh_cache_recheck.py STORE --sample 48 --rows 32 --draft 0   # and --draft 4 beside it
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def cached_bbh(store: str):
    """``(instances, text)``: the BBH requests (lm-eval instances of densing's local BBH tasks) whose
    strings STORE's request cache holds, and ``text[id(instance)]`` the cached string; ``None``
    (after a one-line message) when STORE has no single request cache."""
    from lm_eval.api.model import hash_args

    from densing.errors import DensingError
    from densing.eval.harness import task_manager
    from densing.paths import SHARED_DATA
    from tools.lm_eval_requests import bbh_task_names, build_instances, read_request_cache

    try:
        cached = read_request_cache(store)
    except DensingError as exc:
        print(exc, file=sys.stderr)
        return None
    names = bbh_task_names(task_manager(needed=[], data_root=SHARED_DATA))
    instances = [
        i for i in build_instances(names, data_root=SHARED_DATA) if hash_args("generate_until", i.args) in cached
    ]
    return instances, {id(i): cached[hash_args("generate_until", i.args)] for i in instances}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--requests", type=int, default=62)
    parser.add_argument("--rows", type=int, default=16)
    parser.add_argument("--runaway", type=int, default=2)
    parser.add_argument(
        "--sample",
        type=int,
        default=0,
        help="instead: this many cached requests drawn at random (all lengths, as production meets them)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--step-base",
        type=float,
        default=None,
        help="step_base of step_width (default: PrefixSettings'; inf: always the longest draft)",
    )
    parser.add_argument(
        "--draft", type=int, default=None, help="draft tokens per row and step (default: PrefixSettings')"
    )
    arguments = parser.parse_args()

    import torch

    from densing.eval.backends.prefix.settings import PrefixSettings
    from densing.eval.backends.prefix.slots import SlotCache
    from densing.eval.loading import load_model
    from densing.eval.models import read_models_file
    from densing.paths import RESULTS

    torch.set_num_threads(1)
    found = cached_bbh(arguments.store)
    if found is None:
        return 2
    instances, text = found
    long = [i for i in instances if len(text[id(i)]) > 3000][: arguments.runaway]
    short = [i for i in instances if len(text[id(i)]) < 600][: arguments.requests - len(long)]
    picked = long + short
    if arguments.sample:
        import random

        draw = random.Random(arguments.seed)
        tasks = sorted({i.task_name for i in instances})
        draw.shuffle(tasks)
        pool: list = []
        for task in tasks:  # whole tasks until N (slots hold one or two tasks' requests, as in production)
            pool += [i for i in instances if i.task_name == task]
            if len(pool) >= arguments.sample:
                break
        picked = draw.sample(pool, min(arguments.sample, len(pool)))
        long = [i for i in picked if len(text[id(i)]) > 3000]
    print(
        f"{len(instances)} BBH requests cached; regenerating {len(picked)} ({len(long)} that ran away) at "
        f"{arguments.rows} slots",
        flush=True,
    )

    chosen = {"draft": arguments.draft, "step_base": arguments.step_base}
    settings = PrefixSettings(rows_per_batch=arguments.rows, **{k: v for k, v in chosen.items() if v is not None})
    runs: list[int] = []
    plan = SlotCache.plan

    def counted(self, widths):
        plan(self, widths)
        if self.parts is not None:
            runs.append(len(self.parts))

    spec = read_models_file(RESULTS / "smollm2" / "models.yaml")[0]
    lm = load_model(spec, backend="densing-hf", device="cpu", batch_size=1, settings=settings)[0]
    SlotCache.plan = counted  # counts the runs each step reads; the plan itself is unchanged
    try:
        started = time.perf_counter()
        out = lm.generate_until(picked, disable_tqdm=True)
        seconds = time.perf_counter() - started
    finally:
        SlotCache.plan = plan
    same = sum(o == text[id(i)] for o, i in zip(out, picked))
    stats = lm.decode_stats
    print(
        f"{seconds:.0f} s, {stats.generated_tokens} new tokens ({stats.generated_tokens / seconds:.1f}/s), "
        f"up to {settings.draft} draft tokens a step (step_base {settings.step_base}): {stats.draft_accepted} of {stats.draft_proposed} kept; identical strings {same}/{len(picked)}; "
        f"{len(runs)} steps, {sum(r > 1 for r in runs)} read in more than one run"
    )
    for o, i in zip(out, picked):
        if o != text[id(i)]:
            print("DIFFERS:", repr(o[:160]), "cached:", repr(text[id(i)][:160]))
    return 0 if same == len(picked) else 1


if __name__ == "__main__":
    raise SystemExit(main())
