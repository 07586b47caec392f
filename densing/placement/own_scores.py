"""Your scores on the chart: a model whose scores you already have, placed against the headline without evaluating
anything (``densing measure --scores FILE``, :func:`place`, ``densing.place``).

1. **The scores.** :func:`read_scores` reads a tidy table or a wide one (the shipped ``results/public_models.csv``'s
   layout: one row per model, a column per benchmark), or one lm-eval results JSON, whose tasks are named as lm-eval
   names them (``mmlu``, ``leaderboard_bbh``, ``leaderboard_math_hard``, ``humaneval``, …) and become the public
   table's benchmarks through the benchmark registry (:data:`densing.data.benchmarks.BENCHMARKS`: each record's runs
   and their score tasks), each at its run's headline metric. A model's size and release date come from the file's
   ``params`` and ``release_date`` columns, or from ``params=`` / ``release_date=`` (an lm-eval JSON has neither; its
   ``config.model_num_parameters`` is read where lm-eval wrote it). A score without a standard error gets the binomial
   one of its benchmark's item count (:func:`densing.data.benchmarks.with_stderr`).
2. **The headline and the placement** as ``densing measure``'s (docs/measure.md, steps 4–5): the headline measured
   on the shipped public table, never on the scores file, and each model placed by
   :func:`densing.placement.place.place_models`.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from densing.errors import InputError

#: The metric an lm-eval task's score is read at where its benchmark's run names none, in this order of preference.
METRIC_PREFERENCE = ("acc_norm", "acc", "exact_match,strict-match", "exact_match", "pass@1,create_test", "pass@1",
                     "prompt_level_strict_acc")


def lm_eval_tasks() -> dict[str, tuple[str, str | None]]:
    """{lm-eval score task: (the public table's benchmark, the run's headline metric or None)} from the benchmark
    registry; a task two records run (Swallow's ``mmlu``) maps to the first, the public table's."""
    from densing.data.benchmarks import BENCHMARKS

    found: dict[str, tuple[str, str | None]] = {}
    for name, record in BENCHMARKS.items():
        for run in record.runs:
            if run.style != "lm-eval":
                continue
            known = found.get(run.score_task)
            if known is None or (known[0] == name and known[1] is None and run.metric is not None):
                found[run.score_task] = (name, run.metric)
    return found


def _from_lm_eval(path: Path, model: str | None) -> pd.DataFrame:
    """One lm-eval results JSON as the public table's rows (module docstring, step 1)."""
    from densing.data.readers import read_lm_eval_json
    from densing.io import read_json_object

    raw = read_lm_eval_json(path, model=model)
    tasks = lm_eval_tasks()
    rows = []
    for task, group in raw.groupby("benchmark", sort=False):
        if task not in tasks:
            continue
        benchmark, wanted = tasks[task]
        metrics = group["metric"].tolist()  # the run's headline metric where it has one, else the first preferred
        metric = next((m for m in (wanted, *METRIC_PREFERENCE) if m is not None and m in metrics), None)
        if metric is None:
            raise InputError(f"{path}: field 'results.{task}': none of the metrics {', '.join(metrics)} is one densing "
                             f"reads ({', '.join(METRIC_PREFERENCE)})")
        chosen = group[group["metric"] == metric].iloc[0]
        rows.append({"model": chosen["model"], "benchmark": benchmark, "metric": "score", "value": float(chosen["value"]),
                     "stderr": float(chosen["stderr"]), "suite_benchmark": task})
    if not rows:
        raise InputError(f"{path}: field 'results': no task densing knows ({', '.join(sorted(raw['benchmark'].unique())[:8])}"
                         f"; known: {', '.join(sorted(tasks)[:12])}, …)")
    frame = pd.DataFrame(rows)
    config = read_json_object(path).get("config") or {}
    size = config.get("model_num_parameters")
    frame["params"] = float(size) if isinstance(size, (int, float)) and size > 0 else math.nan
    frame["release_date"] = None
    return frame


def read_scores(path: str | Path, *, model: str | None = None, params: float | None = None,
                release_date: str | None = None) -> pd.DataFrame:
    """A scores file as the public table's rows: ``model, benchmark, metric, value, stderr, params, release_date,
    release_date_source`` (module docstring, step 1). ``model``, ``params`` and ``release_date`` name, size and date a
    one-model file (they override the file's); a model left without a size or a date is an
    :class:`~densing.errors.InputError` naming the file and the field."""
    from densing.data import read_results
    from densing.data.benchmarks import with_stderr
    from densing.numbers import parse_date
    from densing.validation import as_path

    path = as_path(path, "scores")
    if not path.exists():
        raise InputError(f"{path}: scores: no such file (a table, tidy or one row per model, or an lm-eval results JSON)")
    if path.is_dir():
        raise InputError(f"{path}: scores: a folder; give one file (a table, or an lm-eval results JSON)")
    frame = _from_lm_eval(path, model) if path.suffix.lower() == ".json" else read_results(path).copy()
    frame["release_date_source"] = "scores file"
    given = {"model": model, "params": params, "release_date": release_date}
    if any(v is not None for v in given.values()) and frame["model"].nunique() > 1:
        names = ", ".join(f"--{k.replace('_', '-')}" for k, v in given.items() if v is not None)
        raise InputError(f"{path}: {frame['model'].nunique()} models in the file; {names} name, size or date one model")
    if model is not None:
        frame["model"] = model
    if params is not None:
        frame["params"] = float(params)
    if release_date is not None:
        frame["release_date"] = parse_date(release_date, field="release_date", where="--release-date").strftime("%Y-%m-%d")
        frame["release_date_source"] = "given"
    for field, option in (("params", "--params"), ("release_date", "--release-date")):
        missing = frame.loc[frame[field].isna(), "model"].unique() if field in frame.columns else frame["model"].unique()
        if len(missing):
            raise InputError(f"{path}: field '{field}': no value for {', '.join(map(str, missing[:3]))} (give {option} "
                             f"or a '{field}' column)")
    frame["release_date"] = pd.to_datetime(frame["release_date"]).dt.strftime("%Y-%m-%d")
    return with_stderr(frame)


def place(scores, *, model: str | None = None, params: float | None = None, release_date: str | None = None,
          n_boot: int | None = None, seed: int = 0, measurement=None):
    """Place the models of ``scores`` (a scores file's path, or a table as :func:`read_scores` returns) against the
    headline measured on the shipped public table (module docstring) → :class:`~densing.placement.measure.MeasureResult`
    (``to_frame()``: density, its 95% interval or bound, ``frontier`` above/below/undetermined, ``band``
    above/within/below the band of the line's slope interval at the model's date, ``words``).

    ``n_boot``, ``seed``: the headline's draws (default the CLI's); ``measurement``: a headline
    :class:`~densing.trend.measurement.TrendMeasurement` of the public table already computed, to reuse."""
    from densing import paths
    from densing.placement.measure import place_against

    source = "a table"
    if isinstance(scores, (str, Path)):
        source = str(scores)
        scores = read_scores(scores, model=model, params=params, release_date=release_date)
    elif not isinstance(scores, pd.DataFrame):
        raise InputError(f"scores: expected a path or a DataFrame, got {type(scores).__name__}")
    return place_against(paths.DEFAULT_DENSITY_TARGETS, scores, measurement, n_boot=n_boot, seed=seed,
                         suite=f"scores from {source}", limit=None, evaluated=False)
