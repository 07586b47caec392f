"""Run benchmark sweeps through lm-eval (the real harness, not a re-implementation of it).

For every (model, benchmark) pair :func:`run_sweep` runs ``lm_eval.simple_evaluate`` with
``log_samples=True`` and lm-eval's request cache on, reads the score from lm-eval's results and
the conditional loss from the logged samples of the same requests (see :mod:`densing.eval.loss`),
and writes one atomic store part (see :mod:`densing.eval.store`). Pairs already in the store with
the same config hash are skipped without loading the model.

torch and lm_eval are imported inside functions: the core package imports without the ``eval``
extra.
"""
from __future__ import annotations

import datetime as _datetime
import gc
import hashlib
import json
import math
import os
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import pandas as pd

import densing
from densing.data.schema import validate_results
from densing.errors import EvalError, InputError
from densing.eval.benchmarks import (
    OLMES_BENCHMARKS,
    OLMO_REQUEST_BENCHMARKS,
    TASKS_DIRECTORY,
    UNSAFE_CODE_BENCHMARKS,
    Benchmark,
)
from densing.eval.harness import (
    config_hash,
    data_digest,
    lm_eval_version,
    quiet_expected_lm_eval_warnings,
    resolve_benchmarks,
    task_manager,
    tasks_digest,
)
from densing.eval import backends
from densing.eval.loading import SWEEP_CONSTRAINTS, check_device_present, check_model_source, load_model
from densing.eval.loss import EMPTY, LossTotals, continuation_token_count, task_loss
from densing.eval.models import ModelSpec, model_spec_from_mapping, read_models_file
from densing.eval.store import CACHE_DIRECTORY, CachedOnly, _slug, is_done, part_path, write_part
from densing.validation import validate

ProgressCallback = Callable[[str, str, str], None]


# ---------------------------------------------------------------------------------------------
# one (model, benchmark) pair


def _metric_rows(task_results: dict) -> list[tuple[str, float, float]]:
    values: dict[str, float] = {}
    errors: dict[str, float] = {}
    for key, value in task_results.items():
        if key in ("alias", "sample_len") or not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        metric, _, filt = key.partition(",")
        if filt and filt != "none":
            metric = f"{metric},{filt}"
        if "_stderr" in metric:
            errors[metric.replace("_stderr", "")] = float(value)
        elif math.isfinite(float(value)):
            values[metric] = float(value)
    return [(m, v, errors.get(m, math.nan)) for m, v in values.items()]


class OtherRank(Exception):
    """lm-eval returned no results because this process is a rank ≠ 0 of a data-parallel run: it writes nothing."""


def evaluate_pair(
    lm: Any,
    manager: Any,
    spec: ModelSpec,
    bench: Benchmark,
    *,
    params: float,
    non_embedding_params: float,
    ladder_params: float | None = None,
    limit: float | None,
    use_cache: str | None,
    allow_unsafe_code: bool = False,
    config_hash_value: str = "",
    backend: str = "hf",
    source: str | None = None,
) -> pd.DataFrame:
    """Run one benchmark on a loaded model through ``lm_eval.simple_evaluate``; return tidy rows.

    ``backend`` is what the rows' ``backend`` column records (:attr:`densing.eval.backends.Backend.recorded_as`),
    ``source`` the backend's name in their ``source`` column (default ``backend``). A model without a tokenizer
    lm-eval can count with (``tok_encode`` and ``_encode_pair``) gives no per-token loss.

    An OLMES-style benchmark (``bench.style == "olmes"``) is scored as the OLMo ladder scores it
    (:mod:`densing.eval.olmes`): metrics ``acc`` and ``len_norm``, ``loss`` the mean bits per byte
    of the correct answer (``loss_unit`` ``bpb``), ``params`` the ladder's count (``ladder_params``:
    input embedding excluded, output head included) unless the models file gives ``params``.
    """
    import lm_eval

    quiet_expected_lm_eval_warnings()
    if allow_unsafe_code:  # the opt-in HF `evaluate`'s code_eval metric asks for (HumanEval, MBPP)
        os.environ["HF_ALLOW_CODE_EVAL"] = "1"
    try:
        loaded = manager.load(bench.tasks())  # builds the tasks: reads (or downloads) their datasets
    except Exception as exc:  # datasets / hub / config errors
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise EvalError(f"benchmark {bench.name!r}: cannot load lm-eval task(s) {', '.join(bench.tasks())}: {first}") from None
    top = [loaded["groups"].get(name) or loaded["tasks"][name] for name in bench.tasks()]
    started = time.perf_counter()
    results = lm_eval.simple_evaluate(
        model=lm,
        tasks=top,
        task_manager=manager,
        num_fewshot=bench.num_fewshot,
        limit=limit,
        use_cache=use_cache,
        log_samples=True,
        bootstrap_iters=0,
        confirm_run_unsafe_code=allow_unsafe_code,
    )
    if results is None:
        if getattr(lm, "rank", 0) != 0:  # data parallel (accelerate launch): rank 0 gathers the results and writes
            raise OtherRank(spec.name, bench.name)
        raise EvalError(f"{spec.name} / {bench.name}: lm-eval returned no results")
    score = results["results"].get(bench.score_task)
    metrics = _metric_rows(score or {})
    ladder = _olmes_scores(results, loaded, bench) if bench.style == "olmes" else None
    if ladder is not None:
        metrics = [("acc", ladder.acc, ladder.acc_stderr), ("len_norm", ladder.len_norm, ladder.len_norm_stderr)]
        if ladder_params is not None:
            params = ladder_params
    if not metrics:
        raise EvalError(f"{spec.name} / {bench.name}: lm-eval reported no metric for task {bench.score_task!r}")

    # the conditional loss: from the score task's own requests when it scores continuations,
    # else from the companion loss task
    leaf_tasks = loaded["tasks"]
    score_leaves = _leaves(loaded, bench.score_task)
    loss_leaves: list[str] = []
    if score_leaves and all(leaf_tasks[t].OUTPUT_TYPE in ("multiple_choice", "loglikelihood") for t in score_leaves):
        loss_leaves = score_leaves
    elif bench.loss_task:
        loss_leaves = _leaves(loaded, bench.loss_task)
    raw_lm = getattr(lm, "lm", lm)  # behind lm-eval's CachingLM when the request cache is on

    counts_tokens = hasattr(raw_lm, "tok_encode") and hasattr(raw_lm, "_encode_pair")

    def tokens(context: str, continuation: str) -> int:
        return continuation_token_count(raw_lm, context, continuation) if counts_tokens else 0

    totals: LossTotals = EMPTY
    for name in loss_leaves:
        task = leaf_tasks[name]
        samples = results.get("samples", {}).get(name, [])
        totals = totals + task_loss(samples, task.OUTPUT_TYPE, tokens, task)
    has_loss = totals.samples > 0
    # items scored: lm-eval's effective sample count over the score task's leaves (a generative
    # benchmark without a companion loss task, such as BBH, has no loss samples to count)
    scored = sum(int(results["n-samples"][t]["effective"]) for t in score_leaves)
    shot = (results.get("n-shot") or {}).get(bench.score_task, bench.num_fewshot)
    if shot is None and score_leaves:
        shot = (results.get("n-shot") or {}).get(score_leaves[0])
    wall_seconds = time.perf_counter() - started
    version = lm_eval_version()
    timestamp = _datetime.datetime.now(_datetime.timezone.utc).isoformat(timespec="seconds")
    rows = []
    for metric, value, stderr in metrics:
        rows.append(
            {
                "model": spec.name,
                "benchmark": bench.name,
                "metric": metric,
                "value": value,
                "stderr": stderr,
                "n_shot": shot,
                "params": spec.params if spec.params is not None else params,
                "non_embedding_params": spec.non_embedding_params if spec.non_embedding_params is not None else non_embedding_params,
                "train_tokens": spec.train_tokens,
                "release_date": spec.release_date,
                "family": spec.family,
                "revision": spec.revision,
                "source": f"densing {densing.__version__} eval via lm-eval {version} ({source or backend})",
                "loss": ladder.bpb if ladder is not None else (totals.loss_per_sample if has_loss else math.nan),
                "loss_unit": "bpb" if ladder is not None else "nats",
                "items": ladder.items if ladder is not None else scored,
                "loss_per_token": totals.loss_per_token if has_loss else math.nan,
                "loss_per_byte": totals.loss_per_byte if has_loss else math.nan,
                "loss_per_sample": totals.loss_per_sample if has_loss else math.nan,
                "loss_total": totals.loss_total if has_loss else math.nan,
                "loss_tokens": totals.tokens,
                "loss_bytes": totals.bytes,
                "loss_samples": totals.samples,
                "loss_task": ",".join(loss_leaves) if has_loss else None,
                "model_path": spec.model,
                "score_task": bench.score_task,
                "limit": math.nan if limit is None else float(limit),
                "backend": backend,
                "config_hash": config_hash_value,
                "lm_eval_version": version,
                "timestamp": timestamp,
                "wall_seconds": wall_seconds,
            }
        )
    return pd.DataFrame(rows)


def _olmes_scores(results: dict, loaded: dict, bench: Benchmark) -> Any:
    """The benchmark's ladder-format scores from lm-eval's logged samples (MMLU: per group, weighted)."""
    from densing.data.olmo import MMLU_GROUPS
    from densing.eval.olmes import concatenate, item_scores, ladder_scores

    samples = results.get("samples", {})

    def scores(leaves: list[str]):
        return concatenate([item_scores(samples.get(name, []), loaded["tasks"][name]) for name in leaves])

    if bench.score_task in loaded["tasks"]:
        return ladder_scores({bench.name: scores([bench.score_task])})
    groups = {g: f"{bench.score_task}_{g}" for g in MMLU_GROUPS}
    if not all(name in loaded["groups"] for name in groups.values()):
        raise EvalError(f"benchmark {bench.name!r}: OLMES scoring of a group needs the subgroups {', '.join(groups.values())}")
    return ladder_scores({g: scores(_leaves(loaded, name)) for g, name in groups.items()}, MMLU_GROUPS)


def _leaves(loaded: dict, name: str) -> list[str]:
    if name in loaded["tasks"]:
        return [name]
    group = loaded["groups"].get(name)
    if group is None:
        return []
    return [t.task_name for t in group.get_all_tasks()]


# ---------------------------------------------------------------------------------------------
# sweeps


def as_model_specs(models: str | Path | Sequence[ModelSpec | dict]) -> list[ModelSpec]:
    """A models file path, or a list of :class:`ModelSpec` / mappings, as model specs."""
    if isinstance(models, (str, Path)):
        return read_models_file(models)
    specs = []
    for i, entry in enumerate(models):
        specs.append(entry if isinstance(entry, ModelSpec) else model_spec_from_mapping(entry, where=f"models[{i}]"))
    if not specs:
        raise InputError("models: no model given")
    return specs


def sweep_data_root(names: Sequence[str], local_data: bool, data_root: str | Path | None) -> Path | None:
    """The data root a sweep of benchmarks ``names`` reads (``data_root``, default ``$DENSING_SHARED_DATA`` or
    ``../shared/data``), checked to hold the folders it needs; None when every benchmark comes from the Hub."""
    request_sets = [name for name in names if name in OLMO_REQUEST_BENCHMARKS]
    if not (local_data or any(name in OLMES_BENCHMARKS for name in names) or request_sets):
        return None
    from densing.paths import SHARED_DATA

    root = Path(data_root if data_root is not None else SHARED_DATA)
    if len(request_sets) < len(names) and not (root / "benchmarks").is_dir():
        raise InputError(f"{root}: --data-root has no benchmarks/ folder (the local benchmark splits)")
    if request_sets and not (root / "olmo_ladder" / "oe_eval_tasks").is_dir():
        raise InputError(f"{root}: --data-root has no olmo_ladder/oe_eval_tasks/ folder (AI2's request sets)")
    return root


def sweep_hashes(
    specs: Sequence[ModelSpec],
    benches: Sequence[Benchmark],
    manager: Any,
    *,
    backend: str = "hf",
    limit: float | None = None,
    include_paths: Sequence[str | Path] = (),
    data_root: str | Path | None = None,
    prefix_cache: bool = False,
) -> dict[tuple[str, str], str]:
    """The config hash of every (model, benchmark) pair of a sweep, by (model name, benchmark name): the
    benchmark's own task files (:func:`~densing.eval.harness.tasks_digest` over densing's task folder and
    ``include_paths``), when ``data_root`` is given the content of its local data
    (:func:`~densing.eval.harness.data_digest`), and the backend's key entries
    (:meth:`densing.eval.backends.Backend.key`). ``prefix_cache=True``: deprecated, ``backend="densing-hf"``."""
    key = backends.get(backends.with_prefix_cache(backend, prefix_cache)).key()
    roots = [TASKS_DIRECTORY, *map(Path, include_paths)]
    data = data_digest(data_root) if data_root is not None else None
    digests = {bench.name: tasks_digest(manager, bench, roots) for bench in benches}
    return {
        (spec.name, bench.name): config_hash(spec, bench, backend=key, limit=None if limit is None else float(limit),
                                             tasks_digest=digests[bench.name], data_digest=data)
        for spec in specs
        for bench in benches
    }


def run_sweep(
    models: str | Path | Sequence[ModelSpec | dict],
    benchmarks: Sequence[str] | str,
    store: str | Path,
    *,
    backend: str = "hf",
    limit: float | None = None,
    include_paths: Sequence[str | Path] = (),
    device: str | None = None,
    batch_size: int | str = 1,
    allow_unsafe_code: bool = False,
    on_progress: ProgressCallback | None = None,
    local_data: bool = False,
    data_root: str | Path | None = None,
    prefix_cache: bool = False,
    settings=None,
    shard: tuple[int, int] | None = None,
    time_limit: float | None = None,
    isolate: bool | None = None,
    check_source: Callable[[ModelSpec], None] = check_model_source,
) -> pd.DataFrame:
    """Evaluate every model on every benchmark into ``store``; return the sweep's rows.

    ``local_data`` runs the known benchmarks on local files (:data:`LOCAL_BENCHMARKS`) instead of
    the Hub; the ``olmes_*`` benchmarks always do. Their folder is ``data_root``/benchmarks
    (default: ``$DENSING_SHARED_DATA`` or ``../shared/data``). ``backend``: any name in lm-eval's model registry
    (:mod:`densing.eval.backends`); ``densing-hf`` scores log-likelihood requests with a shared-prefix key/value
    cache (see :func:`load_model`), and ``settings`` (a
    :class:`~densing.eval.backends.prefix.settings.PrefixSettings`) set its passes and slots. ``prefix_cache=True``
    is the deprecated spelling of ``backend="densing-hf"``.

    Everything is checked before anything runs (models file, model paths, benchmark names,
    backend), so bad input leaves the store untouched. Pairs whose part is in the store with the
    same config hash (:func:`sweep_hashes`) are skipped, and a model whose pairs are all done is not loaded: its
    source (``check_source``, default :func:`check_model_source`) is checked only when it has pairs to do.
    ``on_progress(model, benchmark, status)`` is called with status ``"skipped"``, ``"running"``,
    ``"done"``, ``"sharded"`` (this shard's share is in the request cache) or ``"stopped"`` (the
    time limit came first).

    ``shard = (k, n)`` (``0 ≤ k < n``, needs ``densing-hf``): compute only shard ``k`` of each
    pair's uncached requests into lm-eval's request cache under ``store`` and write no part
    (status ``"sharded"``); ``n`` such processes share the work, and the same sweep without a shard
    then scores from the cache. ``time_limit`` (seconds, needs ``densing-hf``): greedy generation
    admits no new request once that long has passed since the model was loaded; the requests in
    flight finish into the cache and the pair is left unscored (``"stopped"``), to resume by running
    again (log-likelihood requests are not limited). Returns the rows of the parts that exist.

    ``isolate`` (default: the backend's :attr:`~densing.eval.backends.Backend.isolate`, on for ``vllm``): each model with pairs to do is evaluated in a child
    process of its own (:mod:`densing.eval.isolated`), so the GPU memory it held is returned before the next
    model loads; progress and errors arrive as without it, and the child's processes end with this one.
    """
    # the options as given, for a model's own process (isolate): every parameter but the sweep's own
    options = {name: value for name, value in locals().items()
               if name not in ("models", "benchmarks", "store", "on_progress", "isolate", "check_source")}
    from densing.eval.benchmarks import parse_benchmark_list

    validate(SWEEP_CONSTRAINTS, limit=limit, time_limit=time_limit, device=device, backend=backend)  # backend last: it imports lm-eval
    backend = backends.with_prefix_cache(backend, prefix_cache)
    options.update(backend=backend, prefix_cache=False)
    record = backends.get(backend)
    if shard is not None:
        k, n = shard
        if not (isinstance(k, int) and isinstance(n, int) and 0 <= k < n):
            raise InputError(f"shard: expected (k, n) with 0 <= k < n, got {shard!r}")
        if not record.engine:
            raise InputError(f"shard: sharded runs need the prefix engine (--backend {backends.engine_names()})")
        network = network_file_system(Path(store))
        if network:
            raise InputError(f"shard: {store} is on a network file system ({network}); the shards share one SQLite "
                             "request cache, which is safe on one machine's local disk only")
    if isolate is None:
        isolate = record.isolate
    if isolate and int(os.environ.get("WORLD_SIZE", "1")) > 1:
        raise InputError("isolate: one process per model is for a single launcher process; under accelerate launch "
                         "(WORLD_SIZE > 1) each rank is a process already: pass --no-isolate")
    if time_limit is not None and not record.engine:
        raise InputError(f"time_limit: a time limit needs the prefix engine (--backend {backends.engine_names()})")
    if settings is not None and not record.engine:
        raise InputError(f"settings: only the prefix engine ({backends.engine_names()}) takes them, not {backend!r}")
    limit = None if limit is None else float(limit)  # 5 and 5.0 are the same sweep
    specs = as_model_specs(models)
    for spec in specs:
        record.check(spec)
    names = parse_benchmark_list(benchmarks) if isinstance(benchmarks, str) else list(dict.fromkeys(benchmarks))
    data_root = sweep_data_root(names, local_data, data_root)
    manager = task_manager(include_paths, names, data_root=data_root, local_data=local_data)
    benches = resolve_benchmarks(names, manager, local_data=local_data)
    unsafe = [b.name for b in benches if b.name in UNSAFE_CODE_BENCHMARKS]
    if unsafe and not allow_unsafe_code:
        raise EvalError(
            f"benchmark(s) {', '.join(unsafe)} execute model-generated code; pass --allow-unsafe-code to run them"
        )
    from densing.io import check_writable_folder

    store = check_writable_folder(store)  # a file there or above it, or no right to write: one line, before any model
    hashes = sweep_hashes(specs, benches, manager, backend=backend, limit=limit, include_paths=include_paths,
                          data_root=data_root)
    pending = {spec.name: [b for b in benches if not is_done(store, spec.name, b.name, hashes[spec.name, b.name])]
               for spec in specs}
    for spec in specs:  # a model whose pairs are all in the store is neither loaded nor looked for
        if pending[spec.name]:
            check_source(spec)
    if any(pending.values()):
        check_device_present(device)  # a device this machine lacks, before any model loads
    other_rank = False
    for spec in specs:
        todo = pending[spec.name]
        if on_progress:
            for bench in benches:
                if bench not in todo:
                    on_progress(spec.name, bench.name, "skipped")
        if not todo:
            continue
        if isolate:
            from densing.eval.isolated import run_isolated

            run_isolated(spec.name, {**options, "models": [spec], "benchmarks": [bench.name for bench in todo],
                                     "store": store}, on_progress)
            continue
        lm, counts = load_model(spec, backend=backend, device=device, batch_size=batch_size, settings=settings)
        if shard is not None:
            lm.shard = shard
        if time_limit is not None:
            lm.admit_until = time.monotonic() + time_limit
        identity = hashlib.sha256(json.dumps([spec.load_identity(), record.recorded_as, decoding_identity(lm)],
                                             sort_keys=True).encode()).hexdigest()[:12]
        cache = store / CACHE_DIRECTORY / f"{_slug(spec.name)}-{identity}" / "requests"
        try:
            for bench in todo:
                if on_progress:
                    on_progress(spec.name, bench.name, "running")
                value = hashes[spec.name, bench.name]
                try:
                    rows = evaluate_pair(
                        lm,
                        manager,
                        spec,
                        bench,
                        params=counts.total,
                        non_embedding_params=counts.non_embedding,
                        ladder_params=counts.ladder,
                        limit=limit,
                        use_cache=str(cache),
                        allow_unsafe_code=allow_unsafe_code,
                        config_hash_value=value,
                        backend=record.recorded_as,
                        source=backend,
                    )
                except CachedOnly as stopped:  # computed requests are in the request cache; no part
                    if on_progress:
                        on_progress(spec.name, bench.name, stopped.status)
                    continue
                except OtherRank:  # rank 0 writes the part
                    other_rank = True
                    continue
                write_part(store, spec.name, bench.name, rows, value)
                if on_progress:
                    on_progress(spec.name, bench.name, "done")
        finally:
            del lm
            gc.collect()
    if other_rank:  # a rank ≠ 0 of a data-parallel run returns quietly: rank 0 holds and writes the results
        return pd.DataFrame()
    frames = []
    for spec in specs:
        for bench in benches:
            path = part_path(store, spec.name, bench.name)
            if (shard is None and time_limit is None) or path.exists():
                frames.append(validate_results(pd.read_parquet(path), source=str(path)))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


#: The row columns a part must agree on with a sweep before :func:`rekey_store` gives it the sweep's key.
REKEY_COLUMNS = ("model_path", "revision", "score_task", "limit", "backend", "lm_eval_version")


def rekey_store(
    store: str | Path,
    models: str | Path | Sequence[ModelSpec | dict],
    benchmarks: Sequence[str] | str,
    *,
    backend: str = "hf",
    limit: float | None = None,
    include_paths: Sequence[str | Path] = (),
    local_data: bool = False,
    data_root: str | Path | None = None,
    prefix_cache: bool = False,
) -> list[tuple[str, str, str]]:
    """Give the parts of a sweep the config hash the sweep computes now (:func:`sweep_hashes`), rewriting the key
    (the part's ``densing.config_hash`` metadata and its ``config_hash`` column) and nothing else; the options are
    those of the sweep (``densing eval`` / ``densing measure``). For a store whose parts were written under another
    form of the key: the caller vouches that each part was evaluated with the task files and local data the sweep
    reads now (``git log`` on the benchmark's task files says whether they changed since the part's timestamp).

    A part is left as it is when it is absent, or when its rows disagree with the sweep on what they record
    (:data:`REKEY_COLUMNS`: model path, revision, score task, limit, backend, lm-eval version). No model is loaded.
    Returns ``(model, benchmark, outcome)`` per pair: ``"rekeyed OLD → NEW"``, ``"current"``, ``"absent"``, or
    ``"differs: …"``.
    """
    import pyarrow.parquet as pq

    from densing.eval.benchmarks import parse_benchmark_list
    from densing.eval.store import read_part_hash, rewrite_key

    specs = as_model_specs(models)
    names = parse_benchmark_list(benchmarks) if isinstance(benchmarks, str) else list(dict.fromkeys(benchmarks))
    limit = None if limit is None else float(limit)
    root = sweep_data_root(names, local_data, data_root)
    manager = task_manager(include_paths, names, data_root=root, local_data=local_data)
    benches = resolve_benchmarks(names, manager, local_data=local_data)
    backend = backends.with_prefix_cache(backend, prefix_cache)
    hashes = sweep_hashes(specs, benches, manager, backend=backend, limit=limit, include_paths=include_paths,
                          data_root=root)
    version = lm_eval_version()
    outcomes = []
    for spec in specs:
        expected = {"model_path": spec.model, "revision": spec.revision, "limit": limit,
                    "backend": backends.get(backend).recorded_as,
                    "lm_eval_version": version}
        for bench in benches:
            path = part_path(store, spec.name, bench.name)
            old, new = read_part_hash(path), hashes[spec.name, bench.name]
            if old is None:
                outcomes.append((spec.name, bench.name, "absent"))
                continue
            if old == new:
                outcomes.append((spec.name, bench.name, "current"))
                continue
            missing = [column for column in REKEY_COLUMNS if column not in pq.read_schema(path).names]
            if missing:
                outcomes.append((spec.name, bench.name, f"differs: no column {', '.join(missing)} (not a sweep's part)"))
                continue
            rows = pq.read_table(path, columns=list(REKEY_COLUMNS)).to_pandas()
            differs = []
            for column, want in {**expected, "score_task": bench.score_task}.items():
                values = {_comparable(value) for value in rows[column].tolist()}
                if values != {_comparable(want)}:
                    differs.append(f"{column} {', '.join(sorted(map(str, values)))} (the sweep: {_comparable(want)})")
            if differs:
                outcomes.append((spec.name, bench.name, "differs: " + "; ".join(differs)))
                continue
            rewrite_key(path, new)
            outcomes.append((spec.name, bench.name, f"rekeyed {old} → {new}"))
    return outcomes


def _comparable(value: Any) -> Any:
    """A row value as :func:`rekey_store` compares it: NaN, NA and None alike, numbers as floats."""
    if value is None or (not isinstance(value, (str, list, tuple)) and pd.isna(value)):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return str(value)


def evaluate(
    models: str | Path | Sequence[ModelSpec | dict],
    benchmarks: Sequence[str] | str,
    *,
    store: str | Path | None = None,
    **options: Any,
) -> pd.DataFrame:
    """The pandas equivalent of ``densing eval``: run (or resume) a sweep, return its tidy rows.

    Without ``store`` the rows are computed in a temporary store that is removed afterwards.
    """
    if store is not None:
        return run_sweep(models, benchmarks, store, **options)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="densing-eval-") as temporary:
        return run_sweep(models, benchmarks, temporary, **options)


def decoding_identity(lm) -> dict:
    """What produced a cached answer, for the request cache's key: the backend class, densing's decoder version
    (:data:`densing.eval.backends.prefix.lm.DECODER_VERSION`) for its own decoding path, and the lm-eval and
    transformers versions — a change of any of them never reuses an older string."""
    import lm_eval

    identity = {"class": f"{type(lm).__module__}.{type(lm).__qualname__}", "lm_eval": lm_eval.__version__}
    try:
        import transformers

        identity["transformers"] = transformers.__version__
    except ImportError:  # a backend without transformers (vLLM's own)
        pass
    version = getattr(type(lm), "decoder_version", None)  # densing's own decoding path
    if version is not None:
        identity["densing_decoder"] = version
    return identity


#: File systems whose locking SQLite cannot rely on (the shards of one run share one SQLite request cache).
NETWORK_FILE_SYSTEMS = ("nfs", "nfs4", "cifs", "smb3", "smbfs", "fuse.sshfs", "9p", "lustre", "gpfs", "beegfs")


def network_file_system(path: Path, mounts: str = "/proc/mounts") -> str | None:
    """The type of the network file system ``path`` lies on (the longest mount point above it in ``mounts``), or
    None for a local one or where the mount table cannot be read."""
    try:
        table = Path(mounts).read_text()
    except OSError:
        return None
    target = Path(path).resolve()
    best, kind = "", None
    for line in table.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        if (target == Path(point) or Path(point) in target.parents) and len(point) >= len(best):
            best, kind = point, fields[2]
    return kind if kind in NETWORK_FILE_SYSTEMS else None
