"""Run benchmark sweeps through lm-eval (the real harness, not a re-implementation of it): every (model, benchmark)
pair through :func:`densing.eval.pair.evaluate_pair` with lm-eval's request cache on, written as one atomic store
part (:mod:`densing.eval.store`). torch and lm_eval are imported inside functions.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from densing.data.schema import validate_results
from densing.errors import EvalError, InputError
from densing.eval import backends
from densing.eval.benchmarks import (
    OLMES_BENCHMARKS,
    OLMO_REQUEST_BENCHMARKS,
    TASKS_DIRECTORY,
    UNSAFE_CODE_BENCHMARKS,
    Benchmark,
)
from densing.eval.harness import config_hash, data_digest, requests_key, resolve_benchmarks, task_manager, tasks_digest
from densing.eval.loading import SWEEP_CONSTRAINTS, check_device_present, check_model_source, load_model
from densing.eval.models import ModelSpec, model_spec_from_mapping, read_models_file
from densing.eval.pair import OtherRank, evaluate_pair
from densing.eval.store import BUILT_DIRECTORY, CACHE_DIRECTORY, CachedOnly, _slug, is_done, part_path, write_part
from densing.io import check_writable_folder
from densing.runtime import processes
from densing.validation import validate_params

ProgressCallback = Callable[[str, str, str], None]
#: ``on_reuse(model, benchmark, file, requests)``: a task's requests read from the store's kept build, not built.
ReuseCallback = Callable[[str, str, Path, int], None]
#: ``on_requests(model, benchmark, handed)``: requests handed to the model (a
#: :class:`~densing.eval.deferred.HandedRequests`), before a model that loads on its first request loads.
RequestsCallback = Callable[[str, str, Any], None]


def as_model_specs(models: str | Path | Sequence[ModelSpec | dict]) -> list[ModelSpec]:
    """A models file path, or a list of :class:`ModelSpec` / mappings, as model specs."""
    if isinstance(models, (str, Path)):
        return read_models_file(models)
    specs = [
        entry if isinstance(entry, ModelSpec) else model_spec_from_mapping(entry, where=f"models[{i}]")
        for i, entry in enumerate(models)
    ]
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


def sweep_keys(
    specs: Sequence[ModelSpec],
    benches: Sequence[Benchmark],
    manager: Any,
    *,
    backend: str = "hf",
    limit: float | None = None,
    include_paths: Sequence[str | Path] = (),
    data_root: str | Path | None = None,
) -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    """(the config hash of every pair of a sweep by (model, benchmark), :func:`~densing.eval.harness.config_hash`;
    each benchmark's :func:`~densing.eval.harness.requests_key`)."""
    key = backends.get(backend).key()
    roots = [TASKS_DIRECTORY, *map(Path, include_paths)]
    data = data_digest(data_root) if data_root is not None else None
    digests = {bench.name: tasks_digest(manager, bench, roots) for bench in benches}
    limit = None if limit is None else float(limit)
    hashes = {
        (spec.name, bench.name): config_hash(
            spec, bench, backend=key, limit=limit, tasks_digest=digests[bench.name], data_digest=data
        )
        for spec in specs
        for bench in benches
    }
    built = {
        bench.name: requests_key(bench, limit=limit, tasks_digest=digests[bench.name], data_digest=data)
        for bench in benches
    }
    return hashes, built


#: :func:`run_sweep`'s arguments that are the sweep's own, not options a model's own process is given.
_SWEEP_OWN = ("models", "benchmarks", "store", "on_progress", "on_reuse", "on_requests", "isolate", "check_source")


@validate_params(
    {k: SWEEP_CONSTRAINTS[k] for k in ("limit", "time_limit", "device", "backend")}
)  # backend last: it imports lm-eval
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
    on_reuse: ReuseCallback | None = None,
    on_requests: RequestsCallback | None = None,
) -> pd.DataFrame:
    """Evaluate every model on every benchmark into ``store``; return the rows of the sweep's parts that exist.

    ``local_data``: the known benchmarks on local files (:data:`LOCAL_BENCHMARKS`) under ``data_root``/benchmarks
    (default ``$DENSING_SHARED_DATA`` or ``../shared/data``). ``backend``: any name in lm-eval's model registry;
    ``settings`` (:class:`~densing.eval.backends.prefix.settings.PrefixSettings`) configure the prefix engine;
    ``prefix_cache=True`` is the deprecated spelling of ``backend="densing-hf"``. ``shard = (k, n)``, ``time_limit``
    (seconds) and ``isolate`` (default: the backend's :attr:`~densing.eval.backends.Backend.isolate`) are
    docs/evaluation.md's ``--shard``, ``--time-limit`` and ``--isolate``.

    Everything is checked before anything runs. Pairs stored under the same config hash (:func:`sweep_keys`) are
    skipped; only a model with pairs to do has its source checked (``check_source``) and is loaded. In a single
    process (``WORLD_SIZE`` unset or 1) a model loads on its first request (:mod:`densing.eval.deferred`): its first
    pair's requests are built before its weights load; in a run of several processes it loads before its first pair.
    ``on_progress(model, benchmark, status)`` gets ``"skipped"``, ``"running"`` (a pair begins: its requests are
    built), ``"loading"`` and ``"loaded"`` (around the model's load, in the pair under way), ``"done"``,
    ``"sharded"`` (a shard's share is in the request cache, no part) or ``"stopped"`` (past the time limit, left to
    resume); ``on_reuse(model, benchmark, file, requests)`` each task whose requests are read from the store's kept
    build (:func:`~densing.eval.store.serve_built_requests`); ``on_requests(model, benchmark, handed)`` each call
    that hands requests to the model (:class:`~densing.eval.deferred.HandedRequests`), before the model loads on it.
    """
    # the options as given, for a model's own process (isolate): every parameter but the sweep's own
    options = {name: value for name, value in locals().items() if name not in _SWEEP_OWN}
    progress = on_progress or (lambda model, benchmark, status: None)
    backend = backends.with_prefix_cache(backend, prefix_cache)
    options.update(backend=backend, prefix_cache=False)
    record = backends.get(backend)
    isolate = _check_engine_options(
        record, store, shard=shard, isolate=isolate, time_limit=time_limit, settings=settings
    )
    limit = None if limit is None else float(limit)  # 5 and 5.0 are the same sweep
    specs = as_model_specs(models)
    for spec in specs:
        record.check(spec)
    data_root, manager, benches = sweep_tasks(
        benchmarks, include_paths, local_data=local_data, data_root=data_root, allow_unsafe_code=allow_unsafe_code
    )
    store = check_writable_folder(store)  # a file there or above it, or no right to write: one line, before any model
    hashes, built = sweep_keys(
        specs, benches, manager, backend=backend, limit=limit, include_paths=include_paths, data_root=data_root
    )
    # each model's benchmarks not stored under the sweep's key; before any model loads, the source of each model with
    # pairs to do is checked, and where any pair is to do, that this machine has the device
    pending = {
        spec.name: [b for b in benches if not is_done(store, spec.name, b.name, hashes[spec.name, b.name])]
        for spec in specs
    }
    for spec in (spec for spec in specs if pending[spec.name]):
        check_source(spec)
    if any(pending.values()):
        check_device_present(device)
    other_rank = False
    for spec in specs:
        _stop_if_interrupted()
        todo = pending[spec.name]
        for bench in (bench for bench in benches if bench not in todo):
            progress(spec.name, bench.name, "skipped")
        if not todo:
            continue
        if isolate:
            from densing.eval.isolated import run_isolated

            run_isolated(
                spec.name,
                {**options, "models": [spec], "benchmarks": [bench.name for bench in todo], "store": store},
                on_progress,
                on_reuse,
                on_requests,
            )
            continue
        lm = _model_on_first_request(
            spec,
            backend=backend,
            device=device,
            batch_size=batch_size,
            settings=settings,
            shard=shard,
            time_limit=time_limit,
        )
        if int(os.environ.get("WORLD_SIZE", "1")) > 1:  # a rank's share of the requests: the loaded model's rank's
            lm.on_event = _pair_events(spec.name, todo[0].name, progress, on_requests)
            lm.load_now()
        try:
            other_rank |= _evaluate_model(
                lm,
                spec,
                todo,
                manager,
                store,
                hashes,
                built,
                record,
                backend,
                limit=limit,
                allow_unsafe_code=allow_unsafe_code,
                progress=progress,
                on_reuse=on_reuse,
                on_requests=on_requests,
            )
        finally:
            del lm
            gc.collect()
    _stop_if_interrupted()  # after the last model, in its own process or this one
    if other_rank:  # a rank ≠ 0 of a data-parallel run returns quietly: rank 0 holds and writes the results
        return pd.DataFrame()
    return _sweep_rows(store, specs, benches, every_pair=shard is None and time_limit is None)


def _model_on_first_request(
    spec: ModelSpec,
    *,
    backend: str,
    device: str | None,
    batch_size: int | str,
    settings,
    shard: tuple[int, int] | None,
    time_limit: float | None,
):
    """``spec``'s model as :func:`~densing.eval.loading.load_model` makes it, loaded on its first request
    (:class:`~densing.eval.deferred.LoadsOnFirstRequest`); a shard or a time limit (``time_limit`` seconds from the
    load) set on it once loaded."""
    from densing.eval.deferred import LoadsOnFirstRequest
    from densing.eval.loading import registered_model

    def load():
        lm, counts = load_model(spec, backend=backend, device=device, batch_size=batch_size, settings=settings)
        if shard is not None:  # the prefix engine's share and the time limit's end
            lm.shard = shard
        if time_limit is not None:
            lm.admit_until = time.monotonic() + time_limit
        return lm, counts

    return LoadsOnFirstRequest(load, registered_model(backend))


def _pair_events(model: str, benchmark: str, progress: ProgressCallback, on_requests: RequestsCallback | None):
    """A :class:`~densing.eval.deferred.LoadsOnFirstRequest`'s ``on_event`` while pair (``model``, ``benchmark``)
    runs: its load as the pair's progress (``"loading"``, ``"loaded"``), its requests to ``on_requests``."""

    def on_event(event: str, handed) -> None:
        if event == "requests":
            if on_requests is not None:
                on_requests(model, benchmark, handed)
        else:
            progress(model, benchmark, event)

    return on_event


def _sweep_rows(
    store: Path, specs: Sequence[ModelSpec], benches: Sequence[Benchmark], *, every_pair: bool
) -> pd.DataFrame:
    """The sweep's rows read back from its parts: every pair's (``every_pair``), or, where a shard or a time limit
    leaves some pairs unscored, those whose part exists."""
    paths = [part_path(store, spec.name, bench.name) for spec in specs for bench in benches]
    frames = [
        validate_results(pd.read_parquet(path), source=str(path)) for path in paths if every_pair or path.exists()
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def sweep_tasks(
    benchmarks: Sequence[str] | str, include_paths, *, local_data: bool, data_root, allow_unsafe_code: bool
) -> tuple[Path | None, Any, list[Benchmark]]:
    """(the local data's folder, lm-eval's task manager, the benchmarks) of ``benchmarks``; unsafe code is refused."""
    from densing.eval.benchmarks import parse_benchmark_list

    names = parse_benchmark_list(benchmarks) if isinstance(benchmarks, str) else list(dict.fromkeys(benchmarks))
    data_root = sweep_data_root(names, local_data, data_root)
    manager = task_manager(include_paths, names, data_root=data_root, local_data=local_data)
    benches = resolve_benchmarks(names, manager, local_data=local_data)
    unsafe = [b.name for b in benches if b.name in UNSAFE_CODE_BENCHMARKS]
    if unsafe and not allow_unsafe_code:
        raise EvalError(
            f"benchmark(s) {', '.join(unsafe)} execute model-generated code; pass --allow-unsafe-code to run them"
        )
    return data_root, manager, benches


def _check_engine_options(record, store, *, shard, isolate, time_limit, settings) -> bool:
    """Check the options that need the prefix engine or one process per model; return whether to isolate."""
    if shard is not None:
        k, n = shard
        if not (isinstance(k, int) and isinstance(n, int) and 0 <= k < n):
            raise InputError(f"shard: expected (k, n) with 0 <= k < n, got {shard!r}")
        if not record.engine:
            raise InputError(f"shard: sharded runs need the prefix engine (--backend {backends.engine_names()})")
        network = network_file_system(Path(store))
        if network:
            raise InputError(
                f"shard: {store} is on a network file system ({network}); the shards share one SQLite "
                "request cache, which is safe on one machine's local disk only"
            )
    isolate = record.isolate if isolate is None else isolate
    if isolate and int(os.environ.get("WORLD_SIZE", "1")) > 1:
        raise InputError(
            "isolate: one process per model is for a single launcher process; under accelerate launch "
            "(WORLD_SIZE > 1) each rank is a process already: pass --no-isolate"
        )
    if time_limit is not None and not record.engine:
        raise InputError(f"time_limit: a time limit needs the prefix engine (--backend {backends.engine_names()})")
    backends.check_settings(record, settings)
    return isolate


def _evaluate_model(
    lm,
    spec: ModelSpec,
    todo: list,
    manager,
    store: Path,
    hashes: dict,
    built: dict,
    record,
    backend: str,
    *,
    limit: float | None,
    allow_unsafe_code: bool,
    progress: ProgressCallback,
    on_reuse: ReuseCallback | None = None,
    on_requests: RequestsCallback | None = None,
) -> bool:
    """Evaluate one model (a :class:`~densing.eval.deferred.LoadsOnFirstRequest`) on its pairs to do into store
    parts, each benchmark's built requests kept in the store under its key in ``built``
    (:func:`~densing.eval.store.serve_built_requests`); True on a rank ≠ 0 of a data-parallel run. ``on_reuse``,
    ``on_requests``: :func:`run_sweep`'s."""
    identity = hashlib.sha256(
        json.dumps(
            [spec.load_identity(), record.recorded_as, decoding_identity(lm.model_class)], sort_keys=True
        ).encode()
    ).hexdigest()[:12]
    cache = store / CACHE_DIRECTORY / f"{_slug(spec.name)}-{identity}" / "requests"
    other_rank = False
    for bench in todo:
        _stop_if_interrupted()
        progress(spec.name, bench.name, "running")
        lm.on_event = _pair_events(spec.name, bench.name, progress, on_requests)
        value = hashes[spec.name, bench.name]
        reused = None if on_reuse is None else functools.partial(on_reuse, spec.name, bench.name)
        try:
            rows = evaluate_pair(
                lm,
                manager,
                spec,
                bench,
                lambda: lm.counts,
                limit=limit,
                use_cache=str(cache),
                allow_unsafe_code=allow_unsafe_code,
                config_hash_value=value,
                backend=record.recorded_as,
                source=backend,
                built=(store / CACHE_DIRECTORY / BUILT_DIRECTORY, built[bench.name]),
                on_reuse=reused,
            )
        except CachedOnly as stopped:  # computed requests are in the request cache; no part
            progress(spec.name, bench.name, stopped.status)
            continue
        except OtherRank:  # rank 0 writes the part
            other_rank = True
            continue
        write_part(store, spec.name, bench.name, rows, value)
        progress(spec.name, bench.name, "done")
    return other_rank


def _stop_if_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` where the command's Ctrl-C handler has run but its exception did not stop the sweep
    (the flag :data:`densing.runtime.processes.interrupted`): a library that swallowed the exception inside a pair lets
    that pair finish, and the sweep stops before the next one, resumable, as a Ctrl-C between pairs stops it. Outside
    a densing command the flag is never set."""
    if processes.interrupted:
        raise KeyboardInterrupt


def evaluate(
    models: str | Path | Sequence[ModelSpec | dict],
    benchmarks: Sequence[str] | str,
    *,
    store: str | Path | None = None,
    **options: Any,
) -> pd.DataFrame:
    """The pandas ``densing eval``: run (or resume) a sweep, return its rows (without ``store``, in a temporary one)."""
    if store is not None:
        return run_sweep(models, benchmarks, store, **options)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="densing-eval-") as temporary:
        return run_sweep(models, benchmarks, temporary, **options)


def decoding_identity(model_class: type) -> dict:
    """What produced a cached answer, for the request cache's key: the backend's class (``model_class``), densing's
    decoder version where it decodes (:data:`densing.eval.backends.prefix.lm.DECODER_VERSION`), lm-eval's and
    transformers'."""
    import lm_eval

    identity = {"class": f"{model_class.__module__}.{model_class.__qualname__}", "lm_eval": lm_eval.__version__}
    with contextlib.suppress(ImportError):  # a backend without transformers (vLLM's own)
        import transformers

        identity["transformers"] = transformers.__version__
    version = getattr(model_class, "decoder_version", None)  # densing's own decoding path
    if version is not None:
        identity["densing_decoder"] = version
    return identity


#: File systems whose locking SQLite cannot rely on (the shards of one run share one SQLite request cache).
NETWORK_FILE_SYSTEMS = ("nfs", "nfs4", "cifs", "smb3", "smbfs", "fuse.sshfs", "9p", "lustre", "gpfs", "beegfs")


def network_file_system(path: Path, mounts: str = "/proc/mounts") -> str | None:
    """The type of the network file system ``path`` lies on (its longest mount point in ``mounts``), else None."""
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
