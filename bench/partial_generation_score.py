"""Score the generate_until strings an unfinished `densing eval` run left in its request cache.

    python bench/partial_generation_score.py STORE/.cache/MODEL-ID/requests_rank0.db [TASK [SHOTS]]

Builds TASK's requests (default ``densing_local_gsm8k_cot``, 8-shot) as lm-eval does, looks each up
in lm-eval's request cache by lm-eval's own key, and applies the task's filters and metric to the
finished ones; prints how many were found and the mean of each (filter, metric). A partial score:
the finished requests are the first ones in the order the run took them, not a random sample.
"""
import collections
import os
import sys

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def fill_from_cache(task, cache) -> list:
    """The built instances of lm-eval TASK whose strings CACHE (lm-eval's request cache, a mapping
    from its request key) holds, each with ``resps`` set and TASK's filters applied, as
    ``lm_eval.evaluator.evaluate`` leaves them; TASK's instances are narrowed to these."""
    from lm_eval.api.model import hash_args

    done = []
    for inst in task.instances:
        key = hash_args("generate_until", inst.args)
        if key in cache:
            inst.resps = [cache[key]]
            done.append(inst)
    task._instances = done
    if done:
        task.apply_filters()
    return done


def main() -> int:
    from sqlitedict import SqliteDict

    from densing.eval.runner import task_manager
    from densing.paths import SHARED_DATA

    db = SqliteDict(sys.argv[1], flag="r")
    name = sys.argv[2] if len(sys.argv) > 2 else "densing_local_gsm8k_cot"
    task = task_manager(needed=[], data_root=SHARED_DATA).load([name])["tasks"][name]
    task.set_config(key="num_fewshot", value=int(sys.argv[3]) if len(sys.argv) > 3 else 8)
    task.build_all_requests(rank=0, world_size=1)
    total = len(task.instances)
    done = fill_from_cache(task, db)
    scores = collections.defaultdict(list)
    for inst in done:
        for fkey, resp in inst.filtered_resps.items():
            for m, v in task.process_results(inst.doc, [resp]).items():
                scores[(fkey, m)].append(v)
    print(f"{len(done)} of {total} requests in the cache")
    for k, v in scores.items():
        print(k, f"{sum(v)/len(v):.4f}", len(v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
