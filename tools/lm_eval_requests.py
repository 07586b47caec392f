"""lm-eval requests outside a sweep, shared by the scripts that build or replay them (imported by
tools/bbh_cache_recheck.py, studies/bbh_per_task.py, bench/eval_throughput.py, bench/generation_throughput.py,
bench/gpu_check.py and the tests): the requests of named tasks without a model (:func:`build_instances`), a store's
request cache read back (:func:`read_request_cache`), and densing's local BBH tasks (:func:`bbh_task_names`).

lm-eval caches each request's answer in ``STORE/.cache/MODEL-ID/requests_rank0.db`` (an ``sqlitedict`` table
``unnamed``: key = ``lm_eval.api.model.hash_args(request type, args)``, value = the pickled answer).
"""

from __future__ import annotations

import glob
import os
import pickle
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from densing.errors import EvalError, InputError
from densing.eval.harness import task_manager

#: lm-eval's default ``fewshot_random_seed`` (``simple_evaluate``), which seeds each task's few-shot sampler
FEWSHOT_SEED = 1234
#: densing's local BBH tasks are named this plus lm-eval's task name.
BBH_PREFIX = "densing_local_bbh_cot_fewshot_"


def build_instances(
    task_names: Sequence[str],
    limit: int | None = None,
    num_fewshot: int | None = None,
    data_root: str | Path | None = None,
    *,
    include_paths: Sequence[str | Path] = (),
) -> list[Any]:
    """The lm-eval ``Instance`` objects (requests) of the named tasks, task by task in the given order.

    The tasks are densing's shipped tasks (local-data and OLMES ones read their files under
    ``data_root``, default ``$DENSING_SHARED_DATA`` or ``../shared/data``) and those under
    ``include_paths``. ``limit`` takes the first docs of each task; ``num_fewshot``, when given,
    replaces each task's own shot count. The few-shot examples are drawn with lm-eval's default
    few-shot seed (:data:`FEWSHOT_SEED`), as ``lm_eval.simple_evaluate`` draws them: every call
    builds the same requests. Builds requests only: no model is loaded.
    """
    # naming the tasks as needed leaves lm-eval's built-in tasks out of the index when none of them is
    manager = task_manager(include_paths, needed=list(task_names), data_root=data_root)
    loaded = manager.load(list(task_names))["tasks"]
    instances: list[Any] = []
    for name in task_names:
        if name not in loaded:
            raise EvalError(f"lm-eval task {name!r} is not available")
        task = loaded[name]
        if num_fewshot is not None:
            task.set_config(key="num_fewshot", value=num_fewshot)
        task.set_fewshot_seed(seed=FEWSHOT_SEED)
        task.build_all_requests(limit=limit, rank=0, world_size=1)
        instances.extend(task.instances)
    return instances


def read_request_cache(store: str | os.PathLike) -> dict:
    """``{lm-eval's request key: cached answer}`` of STORE's single request cache (read-only).

    Raises :class:`~densing.errors.InputError` naming STORE when it holds no cache or more than one."""
    databases = glob.glob(os.path.join(os.fspath(store), ".cache", "*", "requests_rank0.db"))
    if len(databases) != 1:
        raise InputError(
            f"{store}: expected one request cache under .cache/*/requests_rank0.db, found {len(databases)}"
        )
    with sqlite3.connect(f"file:{databases[0]}?mode=ro", uri=True) as connection:
        return {key: pickle.loads(value) for key, value in connection.execute("select key, value from unnamed")}


def bbh_task_names(manager) -> list[str]:
    """densing's 27 local BBH tasks known to lm-eval's task MANAGER, sorted."""
    return sorted(n for n in manager.all_tasks if n.startswith(BBH_PREFIX))
