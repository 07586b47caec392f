"""Your scores on the chart: a model whose scores you already have, placed against the headline without evaluating
anything (``densing measure --scores FILE``, :func:`place`, ``densing.place``; docs/measure.md says it in full).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from densing.errors import InputError
from densing.placement.place import DateSource


def _read(path: Path, model: str | None) -> pd.DataFrame:
    """The rows of a scores file as written, read once (a pipe too): an lm-eval results JSON by its ``.json`` (its tasks
    as tidy rows), a Parquet table by ``.parquet``/``.pq``, else CSV."""
    from densing.data.readers import read_csv_file, read_lm_eval_results

    suffix = path.suffix.lower()
    if suffix == ".json":  # a subtask of a group the file holds (its group_subtasks) is part of the group's score
        raw, data = read_lm_eval_results(path, model=model)
        groups = data.get("group_subtasks") if isinstance(data.get("group_subtasks"), dict) else {}
        parts = {
            task
            for group, tasks in groups.items()
            if group in data["results"] and isinstance(tasks, list)
            for task in tasks
        }
        raw = raw[~raw["benchmark"].isin(parts)].copy()
        size = (data.get("config") or {}).get("model_num_parameters")
        raw["params"] = size if size is not None else math.nan
        return raw
    if suffix in (".parquet", ".pq"):
        try:
            return pd.read_parquet(path)
        except Exception as exc:  # any exception: pyarrow's errors, each its own type
            raise InputError(
                f"{path}: cannot read Parquet: {str(exc).splitlines()[0] if str(exc) else exc!r}"
            ) from None
    return read_csv_file(path, lines=True, dtype=str, keep_default_na=False, na_values=[""])


def read_scores(
    path: str | Path, *, model: str | None = None, params: float | None = None, release_date: str | None = None
) -> pd.DataFrame:
    """A scores file as the public table's rows (:func:`scores_rows`: ``model, benchmark, metric, value, stderr,
    params, release_date, release_date_source``); ``model``, ``params``, ``release_date``: a one-model file's."""
    from densing.validation import as_path

    path = as_path(path, "scores")
    if not path.exists():
        raise InputError(
            f"{path}: scores: no such file (a table, tidy or one row per model, or an lm-eval results JSON)"
        )
    if path.is_dir():
        raise InputError(f"{path}: scores: a folder; give one file (a table, or an lm-eval results JSON)")
    return scores_rows(_read(path, model), str(path), model=model, params=params, release_date=release_date)


def scores_rows(
    frame: pd.DataFrame,
    source: str,
    *,
    model: str | None = None,
    params: float | None = None,
    release_date: str | None = None,
) -> pd.DataFrame:
    """A table of scores (tidy or wide) as the public table's checked rows (:func:`densing.data.names.scores_table`),
    the name, size and date given overriding the file's; a model without a size or date is an InputError."""
    from densing.data.benchmarks import with_stderr
    from densing.data.names import scores_table
    from densing.numbers import parse_count, parse_date

    frame = frame.copy()
    if model is None and "model" not in frame.columns:
        raise InputError(f"{source}: no 'model' column (give one, or --model for a one-model file)")
    given = {"model": model, "params": params, "release_date": release_date}
    models = frame["model"].nunique() if "model" in frame.columns else 1
    if any(v is not None for v in given.values()) and models > 1:
        names = ", ".join(f"--{k.replace('_', '-')}" for k, v in given.items() if v is not None)
        raise InputError(f"{source}: {models} models in the file; {names} name, size or date one model")
    frame["release_date_source"] = DateSource.SCORES_FILE.value
    if model is not None:
        frame["model"] = model
    if params is not None:
        frame["params"] = parse_count(params, field="params", where="params")  # 7e9, or "7B" as on the command line
    if release_date is not None:
        frame["release_date"] = parse_date(release_date, field="release_date", where="--release-date").strftime(
            "%Y-%m-%d"
        )
        frame["release_date_source"] = DateSource.GIVEN.value
    for field, option in (("params", "--params"), ("release_date", "--release-date")):
        missing = (
            frame.loc[frame[field].isna() | (frame[field].astype(str).str.strip() == ""), "model"].unique()
            if field in frame.columns
            else frame["model"].unique()
        )
        if len(missing):
            raise InputError(
                f"{source}: field '{field}': no value for {', '.join(map(str, missing[:3]))} (give {option} "
                f"or a '{field}' column)"
            )
    frame = scores_table(frame, source)
    frame["release_date"] = frame["release_date"].dt.strftime("%Y-%m-%d")
    return with_stderr(frame)


def scores_template(table=None, *, target=None) -> str:
    """A scores file to fill in, as CSV text: ``model``, ``params``, ``release_date`` and a column per benchmark of
    the headline's set of ``table`` (a registered name; default the leading table; ``target``: that table resolved
    already, as a command hands it down), the cells left empty."""
    from densing.data.benchmarks import BENCHMARKS
    from densing.registry import given_or_resolved

    table = given_or_resolved(target, table=table).table
    benchmarks = table.sets[table.headline_set][1]
    header = ["model", "params", "release_date", *(BENCHMARKS[b].columns[0] for b in benchmarks)]
    return ",".join(header) + "\n" + ",".join(["my-org/my-model", "", ""] + [""] * len(benchmarks)) + "\n"


def scores_suite(scores) -> str:
    """What a placement from a scores file was scored on (its :class:`~densing.placement.measure.MeasureResult`'s
    ``suite``): the file's name (never the folders of the machine it was read on), or "" for scores given as a
    DataFrame; :func:`densing.present.placed.protocol_words` says it for the report's "suite" card."""
    return Path(scores).name if isinstance(scores, (str, Path)) else ""


def place(
    scores,
    *,
    model: str | None = None,
    params: float | None = None,
    release_date: str | None = None,
    n_boot: int | None = None,
    seed: int = 0,
    measurement=None,
    table=None,
    results=None,
    target=None,
    allow_missing: bool = False,
):
    """Place the models of ``scores`` (a path, or a table) → :class:`~densing.placement.measure.MeasureResult`.

    ``table``, ``results``: the target table whose headline they are placed against
    (:func:`densing.registry.resolve_table`; default the shipped public table; ``table="openllm_v2"``: the Open LLM
    Leaderboard v2's); ``target``: that table resolved already, as a command hands it down; ``n_boot``, ``seed``: the
    headline's draws (default the CLI's, at least 40); ``measurement``: a headline of that table, to reuse. A model without a score on a benchmark the headline inverts is refused
    (:func:`check_complete`) unless ``allow_missing``: its row's ``missing`` then names what was left out."""
    from densing.placement.measure import check_draws, place_against
    from densing.registry import given_or_resolved
    from densing.validation import Options, validate

    check_draws(n_boot, seed)
    validate({"allow_missing": [Options({True, False})]}, allow_missing=allow_missing)
    target = given_or_resolved(target, results, table)  # a bad name, before the scores are read

    given, source = scores, "a table"
    if isinstance(scores, (str, Path)):
        source = str(scores)
        scores = read_scores(scores, model=model, params=params, release_date=release_date)
    elif isinstance(scores, pd.DataFrame):
        scores = scores_rows(scores, "scores", model=model, params=params, release_date=release_date)
    else:
        raise InputError(f"scores: expected a path or a DataFrame, got {type(scores).__name__}")
    inverted = getattr(getattr(measurement, "inversion", None), "benchmarks", None)
    check_complete(
        scores,
        inverted or target.table.sets[target.table.headline_set][1],
        source,
        allow_missing,
        shown=shown_names(target.table),
    )
    return place_against(
        target,
        scores,
        measurement,
        n_boot=n_boot,
        seed=seed,
        suite=scores_suite(given),
        limit=None,
        evaluated=False,
    )


def check_complete(
    scores: pd.DataFrame,
    benchmarks,
    source: str,
    allow_missing: bool = False,
    shown: dict[str, str] | None = None,
    option: str = "allow_missing=True",
) -> None:
    """An InputError naming ``source``, the model and each benchmark of ``benchmarks`` it has no score on, unless
    ``allow_missing`` (``option``: how the caller asks for it): a density from fewer benchmarks is another number."""
    if allow_missing:
        return
    shown = shown or {}
    for model, own in scores.groupby("model", sort=False):
        if missing := [b for b in benchmarks if b not in set(own["benchmark"])]:
            names = ", ".join(shown.get(b, b) for b in missing)
            raise InputError(
                f"{source}: {model}: no score on {names} (a column absent, or its cell empty), which the "
                f"headline inverts with {', '.join(shown.get(b, b) for b in benchmarks if b not in missing)}"
                f"; fill it in, or give {option} to place the model from the others"
            )


def shown_names(table) -> dict[str, str]:
    """{benchmark: the name a reader knows it by} for the headline set's benchmarks: each one's registered display
    name (:class:`densing.data.benchmarks.BenchmarkRecord`), where it has one."""
    from densing.data.benchmarks import BENCHMARKS

    members = table.sets[table.headline_set][1]
    return {b: BENCHMARKS[b].display for b in members if b in BENCHMARKS and BENCHMARKS[b].display}
