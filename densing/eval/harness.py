"""The lm-eval harness as the sweep uses it: its presence and version, its task manager, benchmarks resolved
to its tasks, and the config hash that says whether a stored pair is still current.

torch and lm_eval are imported inside functions: the core package imports without the ``eval`` extra.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

from densing.errors import EvalError, InputError
from densing.eval.benchmarks import (
    KNOWN_BENCHMARKS,
    TASKS_DIRECTORY,
    Benchmark,
    benchmark_registry,
)
from densing.eval.models import ModelSpec


def require_lm_eval() -> Any:
    try:
        import lm_eval  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        raise EvalError(
            f"densing eval needs the 'eval' extra (pip install 'densing[eval]'): {exc}"
        ) from None
    return lm_eval


def lm_eval_version() -> str:
    from importlib.metadata import version

    return version("lm_eval")


# ---------------------------------------------------------------------------------------------
# benchmarks and tasks


def task_manager(
    include_paths: Sequence[str | Path] = (),
    needed: Sequence[str] = (),
    *,
    data_root: str | Path | None = None,
    local_data: bool = False,
) -> Any:
    """An lm-eval ``TaskManager`` that sees densing's shipped tasks and the user's include paths.

    Indexing lm-eval's ~15,000 built-in task configs takes tens of seconds, so when every name in
    ``needed`` (benchmark names, see :func:`resolve_benchmarks`) is found without them, the
    built-in tasks are left out of the index. ``data_root`` reaches the local-data tasks' loaders
    as the task metadata ``densing_data_root`` (:mod:`densing.eval.tasks.local_data`).
    """
    require_lm_eval()
    from lm_eval.tasks import TaskManager

    metadata = {"densing_data_root": str(data_root)} if data_root is not None else None

    paths = [str(TASKS_DIRECTORY)]
    for path in include_paths:
        if not Path(path).is_dir():
            raise InputError(f"{path}: include path is not a directory of lm-eval task YAML files")
        paths.append(str(path))
    if needed:
        local = TaskManager(include_path=paths, include_defaults=False, metadata=metadata)
        available = set(local.all_tasks)
        registry = benchmark_registry(local_data)
        missing = [
            task
            for name in needed
            for task in (registry[name].tasks() if name in registry else [name])
            if task not in available
        ]
        if not missing:
            return local
        words = _builtin_task_words()
        for task in missing:
            if task not in words:  # appears in no built-in task file: cannot be a built-in task
                resolve_benchmarks(needed, local, local_data=local_data)  # raises the error naming the benchmark
    return TaskManager(include_path=paths, metadata=metadata)


def _builtin_task_words() -> set[str]:
    """Every word in lm-eval's built-in task files (a cheap superset of the built-in task names)."""
    import lm_eval

    words: set[str] = set()
    root = Path(lm_eval.__file__).parent / "tasks"
    for path in root.rglob("*"):
        if path.is_file() and (path.suffix in (".yaml", ".yml", ".py") or "yaml" in path.name):
            words.update(re.findall(r"[A-Za-z0-9_.\-]+", path.read_text(errors="ignore")))
    return words


def resolve_benchmarks(names: Sequence[str], manager: Any, *, local_data: bool = False) -> list[Benchmark]:
    """Benchmarks for ``names``: known ones from the registry, else lm-eval task/group names.

    With ``local_data`` the known names resolve to their local-file versions, and a known
    benchmark with no local version is an error (rather than a silent fall-back to the Hub).
    """
    if not names:
        raise InputError("--benchmarks: no benchmark given")
    available = set(manager.all_tasks)
    registry = benchmark_registry(local_data)
    resolved = []
    for name in names:
        if local_data and name in KNOWN_BENCHMARKS and name not in registry:
            raise EvalError(
                f"benchmark {name!r} has no local-data version (offline: {', '.join(sorted(registry))})"
            )
        if name in registry:
            bench = registry[name]
        elif name in available:
            companion = f"{name}_loss"
            bench = Benchmark(name, name, None, companion if companion in available else None)
        else:
            from densing.eval.benchmarks import close_names

            close = close_names(name, set(KNOWN_BENCHMARKS) | set(registry))
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise EvalError(f"unknown benchmark {name!r}{hint} (densing eval --list names densing's benchmarks; any "
                            "lm-eval task name works too, including those under --include-path)")
        for task in bench.tasks():
            if task not in available:
                raise EvalError(f"benchmark {name!r}: lm-eval task {task!r} is not available")
        resolved.append(bench)
    return resolved


def files_digest(paths: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for root in paths:
        root = Path(root)
        files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".py", ".jsonl", ".json"))
        for path in files:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def config_hash(
    spec: ModelSpec,
    bench: Benchmark,
    *,
    backend: str,
    limit: float | None,
    tasks_digest: str,
    data_root: str | Path | None = None,
    prefix_cache: bool = False,
) -> str:
    """SHA-256 (16 hex digits) of everything that changes a pair's rows: what model is loaded,
    the benchmark's tasks and shots, the task files, the limit, the backend, lm-eval's version,
    the local data folder, and the metadata written into the rows (params, training tokens,
    release date)."""
    payload: dict[str, Any] = {
        "model": spec.load_identity(),
        "metadata": {k: getattr(spec, k) for k in ("name", "params", "non_embedding_params", "train_tokens", "release_date", "family")},
        "benchmark": [bench.name, bench.score_task, bench.num_fewshot, bench.loss_task],
        "backend": backend,
        "limit": limit,
        "lm_eval": lm_eval_version(),
        "tasks": tasks_digest,
    }
    if bench.style != "lm-eval":  # absent for lm-eval-style benchmarks, so older stores keep their hashes
        payload["style"] = bench.style
    if data_root is not None:
        payload["data_root"] = str(Path(data_root).resolve())
    if prefix_cache:
        payload["prefix_cache"] = True
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------
# requests


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
    replaces each task's own shot count. Builds requests only: no model is loaded.
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
        task.build_all_requests(limit=limit, rank=0, world_size=1)
        instances.extend(task.instances)
    return instances


#: lm-eval warnings that describe what densing sets on purpose, logger → words of its messages: densing's
#: local tasks read their splits through a ``custom_dataset`` loader, and densing gives each benchmark its
#: protocol's shots. Left in, a leaderboard-v1 run prints 57 pairs of them for MMLU alone.
EXPECTED_LM_EVAL_WARNINGS: dict[str, tuple[str, ...]] = {
    "lm_eval.api.task": (": Custom kwargs can be passed to `--metadata`",),
    "lm_eval.evaluator": ("Overwriting default num_fewshot of ",),
}


class _ExpectedWarnings:
    """A logging filter dropping one logger's :data:`EXPECTED_LM_EVAL_WARNINGS`; every other record passes."""

    def __init__(self, fragments: tuple[str, ...]):
        self.fragments = fragments

    def filter(self, record) -> bool:
        message = str(record.msg)
        return not any(fragment in message for fragment in self.fragments)


def quiet_expected_lm_eval_warnings() -> None:
    """Install the filter of :data:`EXPECTED_LM_EVAL_WARNINGS` on lm-eval's loggers (once; other warnings pass)."""
    import logging

    for name, fragments in EXPECTED_LM_EVAL_WARNINGS.items():
        logger = logging.getLogger(name)
        if not any(isinstance(f, _ExpectedWarnings) for f in logger.filters):
            logger.addFilter(_ExpectedWarnings(fragments))

