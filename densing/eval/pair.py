"""One (model, benchmark) pair through lm-eval (:func:`evaluate_pair`): the score from lm-eval's results, the
conditional loss from the logged samples of the same requests (:mod:`densing.eval.loss`), the OLMES ladder's scores
where the benchmark is scored that way (:mod:`densing.eval.olmes`). lm_eval is imported inside the functions.
"""

from __future__ import annotations

import datetime as _datetime
import functools
import logging
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

import densing
from densing.errors import EvalError, first_line
from densing.eval.benchmarks import Benchmark
from densing.eval.harness import (
    compile_templates_once,
    lm_eval_version,
    quiet_expected_lm_eval_warnings,
    without_environment_record,
)
from densing.eval.loading import ParameterCounts
from densing.eval.loss import EMPTY, LossTotals, continuation_token_counts, log_space_perplexity, task_loss
from densing.eval.models import ModelSpec
from densing.eval.store import request_cache_in_transactions, serve_built_requests

#: the few-shot sampler's seed (lm-eval's default ``fewshot_random_seed``), part of the built requests' key
FEWSHOT_SEED = 1234


def _metric_rows(task_results: dict) -> list[tuple[str, float, float]]:
    """(metric, value, standard error) of lm-eval's results of a task: finite values, ``metric,filter`` named."""
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
    counts: Callable[[], ParameterCounts],
    *,
    limit: float | None,
    use_cache: str | None,
    allow_unsafe_code: bool = False,
    config_hash_value: str = "",
    backend: str = "hf",
    source: str | None = None,
    built: tuple[Path, str] | None = None,
    on_reuse: Callable[[Path, int], None] | None = None,
) -> pd.DataFrame:
    """Run one benchmark on a model through ``lm_eval.simple_evaluate``; return tidy rows. ``counts()``: the
    model's parameters as loaded, where the models file gives none (asked once lm-eval has answered: a model that
    loads on its first request knows them only then); ``backend``, ``source``: the rows' ``backend``
    column and the name in their ``source`` column (default ``backend``); ``built``: (a folder, the requests key) where
    each task's built requests are kept (:func:`~densing.eval.store.serve_built_requests`), ``on_reuse(file,
    requests)`` told of each task whose kept requests are read instead of built. An OLMES-style benchmark
    is scored as the OLMo ladder scores it (:mod:`densing.eval.olmes`): metrics ``acc`` and ``len_norm``, ``loss`` in
    bits per byte of the correct answer, ``params`` the ladder's count unless the models file gives one.
    """
    results, loaded, started = _run_harness(
        lm,
        manager,
        spec,
        bench,
        limit=limit,
        use_cache=use_cache,
        allow_unsafe_code=allow_unsafe_code,
        built=built,
        on_reuse=on_reuse,
    )
    model_counts = counts()
    metrics, params = _metric_rows(results["results"].get(bench.score_task) or {}), model_counts.total
    ladder = _olmes_scores(results, loaded, bench) if bench.style == "olmes" else None
    if ladder is not None:
        metrics = [("acc", ladder.acc, ladder.acc_stderr), ("len_norm", ladder.len_norm, ladder.len_norm_stderr)]
        params = model_counts.ladder
    if not metrics:
        raise EvalError(f"{spec.name} / {bench.name}: lm-eval reported no metric for task {bench.score_task!r}")
    score_leaves = _leaves(loaded, bench.score_task)
    loss_leaves, totals = _conditional_loss(lm, results, loaded, bench, score_leaves)
    has_loss = totals.samples > 0
    # items scored: lm-eval's effective samples over the score task's leaves (BBH has no loss samples to count)
    scored = sum(int(results["n-samples"][t]["effective"]) for t in score_leaves)
    shot = (results.get("n-shot") or {}).get(bench.score_task, bench.num_fewshot)
    if shot is None and score_leaves:
        shot = (results.get("n-shot") or {}).get(score_leaves[0])
    wall_seconds = time.perf_counter() - started
    version = lm_eval_version()
    common = {
        "n_shot": shot,
        "params": spec.params if spec.params is not None else params,
        "non_embedding_params": spec.non_embedding_params
        if spec.non_embedding_params is not None
        else model_counts.non_embedding,
        "train_tokens": spec.train_tokens,
        "release_date": spec.release_date,
        "family": spec.family,
        "revision": spec.revision,
        "source": f"densing {densing.__version__} eval via lm-eval {version} ({source or backend})",
        "loss": ladder.bpb if ladder is not None else totals.loss_per_sample,  # each ratio NaN without samples
        "loss_unit": "bpb" if ladder is not None else "nats",
        "items": ladder.items if ladder is not None else scored,
        "loss_per_token": totals.loss_per_token,
        "loss_per_byte": totals.loss_per_byte,
        "loss_per_sample": totals.loss_per_sample,
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
        "timestamp": _datetime.datetime.now(_datetime.timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": wall_seconds,
    }
    return pd.DataFrame(
        [
            {"model": spec.name, "benchmark": bench.name, "metric": metric, "value": value, "stderr": stderr, **common}
            for metric, value, stderr in metrics
        ]
    )


def _run_harness(
    lm: Any,
    manager: Any,
    spec: ModelSpec,
    bench: Benchmark,
    *,
    limit: float | None,
    use_cache: str | None,
    allow_unsafe_code: bool,
    built: tuple[Path, str] | None,
    on_reuse: Callable[[Path, int], None] | None = None,
) -> tuple[dict, dict, float]:
    """(lm-eval's results, the loaded tasks, the ``time.perf_counter()`` it started at) of ``bench``'s tasks, samples
    logged. A task that does not load, or no results, is an EvalError (:class:`OtherRank` on a rank ≠ 0)."""
    import lm_eval

    quiet_expected_lm_eval_warnings()
    compile_templates_once()
    if allow_unsafe_code:  # the opt-in HF `evaluate`'s code_eval metric asks for (HumanEval, MBPP)
        os.environ["HF_ALLOW_CODE_EVAL"] = "1"
    try:
        loaded = manager.load(bench.tasks())  # builds the tasks: reads (or downloads) their datasets
    except Exception as exc:  # datasets / hub / config errors
        raise EvalError(
            f"benchmark {bench.name!r}: cannot load lm-eval task(s) {', '.join(bench.tasks())}: {first_line(exc)}"
        ) from None
    for task in loaded["tasks"].values():
        guard_aggregations(task, f"{spec.name} / {bench.name}")
        if built is not None:
            serve_built_requests(task, built[0], f"{built[1]}-seed{FEWSHOT_SEED}", on_reuse)
    top = [loaded["groups"].get(name) or loaded["tasks"][name] for name in bench.tasks()]
    started = time.perf_counter()
    with without_environment_record(), request_cache_in_transactions():
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
            fewshot_random_seed=FEWSHOT_SEED,
        )
    if results is None:
        if getattr(lm, "rank", 0) != 0:  # data parallel (accelerate launch): rank 0 gathers the results and writes
            raise OtherRank(spec.name, bench.name)
        raise EvalError(f"{spec.name} / {bench.name}: lm-eval returned no results")
    return results, loaded, started


def guard_aggregations(task: Any, pair: str) -> None:
    """Make ``task``'s metric aggregations survive what they are given: lm-eval's ``perplexity`` becomes
    :func:`~densing.eval.loss.log_space_perplexity`, and one that raises gives NaN (left out of the rows) with one
    warning naming the pair, task and metric."""
    from lm_eval.api.metrics import perplexity

    aggregations = task.aggregation() if callable(getattr(task, "aggregation", None)) else {}
    for metric, aggregate in list(aggregations.items()):
        if aggregate is perplexity:
            aggregate = log_space_perplexity
        if callable(aggregate) and not getattr(aggregate, "densing_guarded", False):
            aggregations[metric] = _guarded(aggregate, f"{pair} / {getattr(task, 'task_name', task)} / {metric}")


def _guarded(aggregate: Any, where: str) -> Any:
    @functools.wraps(aggregate)
    def guarded(items: Any) -> Any:
        try:
            return aggregate(items)
        except Exception as exc:  # any metric's own failure: NaN for that metric alone
            logging.getLogger("densing.eval").warning(
                "%s: aggregation failed (%s: %s); the metric is left out", where, type(exc).__name__, exc
            )
            return math.nan

    guarded.densing_guarded = True  # type: ignore[attr-defined]
    return guarded


def _conditional_loss(
    lm: Any, results: dict, loaded: dict, bench: Benchmark, score_leaves: list[str]
) -> tuple[list[str], LossTotals]:
    """(the loss's tasks, their totals): the score task's where it scores continuations, else the companion's."""
    leaf_tasks = loaded["tasks"]
    if score_leaves and all(leaf_tasks[t].OUTPUT_TYPE in ("multiple_choice", "loglikelihood") for t in score_leaves):
        loss_leaves = score_leaves
    else:
        loss_leaves = _leaves(loaded, bench.loss_task) if bench.loss_task else []
    raw_lm = getattr(lm, "lm", lm)  # behind lm-eval's CachingLM when the request cache is on
    counts_tokens = hasattr(raw_lm, "tok_encode") and hasattr(raw_lm, "_encode_pair")

    def tokens(pairs: list[tuple[str, str]]) -> list[int]:
        return continuation_token_counts(raw_lm, pairs) if counts_tokens else [0] * len(pairs)

    samples = results.get("samples", {})
    return loss_leaves, sum(
        (
            task_loss(samples.get(name, []), leaf_tasks[name].OUTPUT_TYPE, tokens, leaf_tasks[name])
            for name in loss_leaves
        ),
        EMPTY,
    )


def _olmes_scores(results: dict, loaded: dict, bench: Benchmark) -> Any:
    """The benchmark's ladder-format scores from lm-eval's logged samples (MMLU: per group, weighted)."""
    from densing.data.olmo import MMLU_GROUPS
    from densing.eval.olmes import concatenate, item_scores, ladder_scores

    samples = results.get("samples", {})

    def scores(leaves: list[str]):
        return concatenate([item_scores(samples.get(name, []), loaded["tasks"][name]) for name in leaves])

    if bench.score_task in loaded["tasks"]:
        return ladder_scores({bench.name: scores([bench.score_task])}, {bench.name: 1.0})
    groups = {g: f"{bench.score_task}_{g}" for g in MMLU_GROUPS}
    if not all(name in loaded["groups"] for name in groups.values()):
        raise EvalError(
            f"benchmark {bench.name!r}: OLMES scoring of a group needs the subgroups {', '.join(groups.values())}"
        )
    return ladder_scores({g: scores(_leaves(loaded, name)) for g, name in groups.items()}, MMLU_GROUPS)


def _leaves(loaded: dict, name: str) -> list[str]:
    """The leaf tasks of task or group ``name`` as lm-eval loaded them."""
    if name in loaded["tasks"]:
        return [name]
    return [t.task_name for t in loaded["groups"][name].get_all_tasks()] if name in loaded["groups"] else []
