"""Reading a store's lm-eval request cache: the strings a ``densing eval --prefix-cache`` run generated.

lm-eval caches each request's answer in ``STORE/.cache/MODEL-ID/requests_rank0.db`` (an
``sqlitedict`` table ``unnamed``: key = ``lm_eval.api.model.hash_args(request type, args)``, value =
the pickled answer). Scoring from the cache applies lm-eval's own filters and metrics to strings a
run already produced, without the model: per-task tables of a group score, or the finished part of
an unfinished run (a partial score: the first requests in the order the run took them, not a
random sample).
"""
from __future__ import annotations

import glob
import os
import pickle
import sqlite3

from densing.errors import InputError

#: densing's local BBH tasks are named this plus lm-eval's task name.
BBH_PREFIX = "densing_local_bbh_cot_fewshot_"


def read_request_cache(store: str | os.PathLike) -> dict:
    """``{lm-eval's request key: cached answer}`` of STORE's single request cache (read-only).

    Raises :class:`~densing.errors.InputError` naming STORE when it holds no cache or more than one."""
    databases = glob.glob(os.path.join(os.fspath(store), ".cache", "*", "requests_rank0.db"))
    if len(databases) != 1:
        raise InputError(f"{store}: expected one request cache under .cache/*/requests_rank0.db, found {len(databases)}")
    with sqlite3.connect(f"file:{databases[0]}?mode=ro", uri=True) as connection:
        return {key: pickle.loads(value) for key, value in connection.execute("select key, value from unnamed")}


def bbh_task_names(manager) -> list[str]:
    """densing's 27 local BBH tasks known to lm-eval's task MANAGER, sorted."""
    return sorted(n for n in manager.all_tasks if n.startswith(BBH_PREFIX))


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
