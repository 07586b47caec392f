"""The lm-eval harness as the sweep uses it: its presence and version, its task manager, benchmarks resolved to its
tasks, and the config hash that says whether a stored pair is current. torch and lm_eval are imported inside functions.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from densing.errors import EvalError, InputError
from densing.eval.benchmarks import KNOWN_BENCHMARKS, TASKS_DIRECTORY, Benchmark, benchmark_registry
from densing.eval.models import ModelSpec
from densing.eval.task_index import builtin_root, reached, read_keys, task_folders


def require_lm_eval() -> None:
    try:
        import lm_eval  # noqa: F401  (importing is the check: the eval extra is installed and loads)
        import torch  # noqa: F401  (as above)
    except ImportError as exc:
        raise EvalError(f"densing eval needs the 'eval' extra (pip install 'densing[eval]'): {exc}") from None


def lm_eval_version() -> str:
    from importlib.metadata import version

    return version("lm_eval")


def task_manager(
    include_paths: Sequence[str | Path] = (),
    needed: Sequence[str] = (),
    *,
    data_root: str | Path | None = None,
    local_data: bool = False,
) -> Any:
    """An lm-eval ``TaskManager`` that sees densing's shipped tasks and the user's include paths; with ``needed``
    (benchmark names) it indexes only the folders their tasks are defined in (:func:`.task_index.task_folders`; the
    include paths whole). ``data_root`` reaches the local-data loaders as the task metadata ``densing_data_root``."""
    require_lm_eval()
    from lm_eval.tasks import TaskManager

    metadata = {"densing_data_root": str(data_root)} if data_root is not None else None
    for path in include_paths:
        if not Path(path).is_dir():
            raise InputError(f"{path}: include path is not a directory of lm-eval task YAML files")
    paths = [str(TASKS_DIRECTORY), *map(str, include_paths)]
    if needed:
        registry = benchmark_registry(local_data)
        names = [task for name in needed for task in (registry[name].tasks() if name in registry else [name])]
        companions = [f"{name}_loss" for name in needed if name not in registry]  # resolve_benchmarks' companion
        found = task_folders(
            names,
            [builtin_root(), *paths],
            len(paths) - 1,
            lambda folders: TaskManager(include_path=folders, include_defaults=False, metadata=metadata),
            optional=companions,
        )
        if found is not None:
            manager = found[1]
            if not set(names) <= set(manager.all_tasks):
                resolve_benchmarks(needed, manager, local_data=local_data)  # raises the error naming the benchmark
            return manager
    return TaskManager(include_path=paths, metadata=metadata)


def resolve_benchmarks(names: Sequence[str], manager: Any, *, local_data: bool = False) -> list[Benchmark]:
    """Benchmarks for ``names``: the registry's, else lm-eval tasks or groups (``local_data``: no Hub fall-back)."""
    if not names:
        raise InputError("--benchmarks: no benchmark given")
    available = set(manager.all_tasks)
    registry = benchmark_registry(local_data)
    resolved = []
    for name in names:
        if local_data and name in KNOWN_BENCHMARKS and name not in registry:
            raise EvalError(f"benchmark {name!r} has no local-data version (offline: {', '.join(sorted(registry))})")
        if name in registry:
            bench = registry[name]
        elif name in available:
            companion = f"{name}_loss"
            bench = Benchmark(name, name, None, companion if companion in available else None)
        else:
            import difflib

            close = difflib.get_close_matches(name, sorted(set(KNOWN_BENCHMARKS) | set(registry)), n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise EvalError(
                f"unknown benchmark {name!r}{hint} (densing eval --list names densing's benchmarks; any "
                "lm-eval task name works too, including those under --include-path)"
            )
        for task in bench.tasks():
            if task not in available:
                raise EvalError(f"benchmark {name!r}: lm-eval task {task!r} is not available")
        resolved.append(bench)
    return resolved


def _content_digest(files: Iterable[tuple[str, Path]]) -> str:
    """SHA-256 (16 hex digits) of ``(name, path)`` pairs, sorted by name: each name, size and content."""
    digest = hashlib.sha256()
    for name, path in sorted(files, key=lambda pair: pair[0]):
        content = path.read_bytes()
        digest.update(f"{name}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()[:16]


#: The folders of a data root that densing's loaders read: the local benchmark splits
#: (:mod:`densing.eval.tasks.local_data`) and AI2's OLMo request sets (:mod:`densing.eval.tasks.oe_eval_requests`).
DATA_FOLDERS = ("benchmarks", "olmo_ladder/oe_eval_tasks")


def data_digest(data_root: str | Path) -> str:
    """SHA-256 (16 hex digits) of every unhidden file of :data:`DATA_FOLDERS` by relative path and content."""
    root = Path(data_root)
    files = [(path.relative_to(root), path) for folder in DATA_FOLDERS for path in (root / folder).rglob("*")]
    return _content_digest(
        (relative.as_posix(), path)
        for relative, path in files
        if path.is_file() and not any(part.startswith(".") for part in relative.parts)
    )


def _yaml_closure(path: Path, into: set[Path]) -> None:
    """Add ``path`` and, recursively, the files its ``include:`` names (:func:`.task_index.read_keys`) to ``into``."""
    path = path.resolve()
    if path in into or not path.is_file():
        return
    into.add(path)
    for name in read_keys(path, path.read_bytes().decode("utf-8", "ignore")).includes:
        _yaml_closure(Path(name), into)


def tasks_digest(manager: Any, bench: Benchmark, roots: Sequence[str | Path]) -> str:
    """SHA-256 (16 hex digits) of the task files under ``roots`` that ``bench`` is evaluated from, each named
    ``<i>/<path relative to roots[i]>``: the YAML of its tasks, groups, tags and their members as ``manager`` indexes
    them (with their ``include:`` chains), every Python and JSON file under the roots, and the splits in
    ``<root>/data``. lm-eval's built-in tasks are fixed by lm-eval's version."""
    index = manager.task_index
    yamls: set[Path] = set()
    for entry in (index.get(name) for name in reached(index, bench.tasks())):
        if entry is not None and entry.yaml_path:
            _yaml_closure(Path(entry.yaml_path), yamls)
    resolved = [Path(root).resolve() for root in roots]
    files = [
        (f"{i}/{path.relative_to(root).as_posix()}", path)
        for i, root in enumerate(resolved)
        for path in root.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.relative_to(root).parts
        and (path.suffix in (".py", ".json") or path.relative_to(root).parts[0] == "data" or path in yamls)
    ]
    return _content_digest(files)


def config_hash(
    spec: ModelSpec,
    bench: Benchmark,
    *,
    backend: Mapping[str, Any],
    limit: float | None,
    tasks_digest: str,
    data_digest: str | None = None,
) -> str:
    """SHA-256 (16 hex digits) of everything that changes a pair's rows: the model loaded and the metadata written
    into its rows, the benchmark's tasks and shots, its task files (:func:`tasks_digest`), the limit, the backend's
    key entries (:meth:`densing.eval.backends.Backend.key`), lm-eval's version and the local data (:func:`data_digest`;
    None for the Hub's). No path enters it: a store is found done wherever the repository and the data lie."""
    metadata = {
        k: getattr(spec, k)
        for k in ("name", "params", "non_embedding_params", "train_tokens", "release_date", "family")
    }
    return _digest(
        {
            "model": spec.load_identity(),
            "metadata": metadata,
            **_benchmark_payload(bench, limit, tasks_digest, data_digest),
            **backend,
        }
    )


def requests_key(bench: Benchmark, *, limit: float | None, tasks_digest: str, data_digest: str | None = None) -> str:
    """SHA-256 (16 hex digits) of what a benchmark's built requests depend on: :func:`config_hash`'s entries less the
    model and the backend (lm-eval builds a task's requests without the model where no chat template is applied),
    so that every model of a sweep reuses one build (:func:`densing.eval.store.serve_built_requests`)."""
    return _digest(_benchmark_payload(bench, limit, tasks_digest, data_digest))


def _digest(payload: dict) -> str:
    """SHA-256 (16 hex digits) of ``payload`` as sorted JSON."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _benchmark_payload(bench: Benchmark, limit: float | None, tasks_digest: str, data_digest: str | None) -> dict:
    payload: dict[str, Any] = {
        "benchmark": [bench.name, bench.score_task, bench.num_fewshot, bench.loss_task],
        "limit": limit,
        "lm_eval": lm_eval_version(),
        "tasks": tasks_digest,
    }
    if bench.style != "lm-eval":
        payload["style"] = bench.style
    if data_digest is not None:
        payload["data"] = data_digest
    return payload


#: lm-eval warnings about what densing sets on purpose (local tasks' ``custom_dataset`` loaders, each protocol's
#: shots), logger → words of its messages: a leaderboard-v1 run would print 57 pairs of them for MMLU alone.
EXPECTED_LM_EVAL_WARNINGS: dict[str, tuple[str, ...]] = {
    "lm_eval.api.task": (": Custom kwargs can be passed to `--metadata`",),
    "lm_eval.evaluator": ("Overwriting default num_fewshot of ",),
}


def unexpected_warning(record) -> bool:
    """A logging filter: False for a record of :data:`EXPECTED_LM_EVAL_WARNINGS` (by its logger), else True."""
    return not any(fragment in str(record.msg) for fragment in EXPECTED_LM_EVAL_WARNINGS.get(record.name, ()))


def quiet_expected_lm_eval_warnings() -> None:
    """Install :func:`unexpected_warning` on lm-eval's loggers of :data:`EXPECTED_LM_EVAL_WARNINGS` (once)."""
    import logging

    for name in EXPECTED_LM_EVAL_WARNINGS:
        logger = logging.getLogger(name)
        if unexpected_warning not in logger.filters:
            logger.addFilter(unexpected_warning)


@contextlib.contextmanager
def without_environment_record():
    """lm-eval's ``simple_evaluate`` inside without its environment record, which densing reads nothing of:
    ``pretty_env_info`` (torch's ``collect_env`` runs ``pip list`` and more, bench/startup.results.txt),
    ``git_hash`` and ``upper_git_hash``."""
    from lm_eval import evaluator

    saved = evaluator.add_env_info, evaluator.get_git_commit_hash
    evaluator.add_env_info, evaluator.get_git_commit_hash = (lambda storage: None), (lambda: None)
    try:
        yield
    finally:
        evaluator.add_env_info, evaluator.get_git_commit_hash = saved


def compile_templates_once() -> None:
    """Make lm-eval's ``utils.apply_template`` compile each Jinja template once (lm-eval 0.4 compiles it for every
    field of every document, nearly all the time a few-shot context takes), in lm-eval's own environment, so every
    string rendered is the same (``tests/eval/test_request_build.py``). Installed once."""
    from lm_eval import utils

    if getattr(utils.apply_template, "densing_compiled", False):
        return
    compiled = functools.lru_cache(maxsize=4096)(utils.env.from_string)

    def apply_template(template: str, doc: dict) -> str:
        return compiled(template).render(**doc)

    apply_template.densing_compiled = True  # type: ignore[attr-defined]
    apply_template.__wrapped__ = utils.apply_template  # type: ignore[attr-defined]
    utils.apply_template = apply_template
