"""The names scores come under, one contract for every way they come in (a wide or tidy table, an lm-eval results
JSON, a DataFrame given to ``densing.place``; docs/measure.md, "The names a scores file may use"): :func:`scores_table`
turns any of them into one ``score`` per model and benchmark, or refuses the name it cannot read, and
:func:`wide_columns` reads a wide results table's columns by the same contract. Where two benchmarks answer to one
name, a table's benchmark (one with wide columns) comes first: ``mmlu`` is the public table's MMLU, not Swallow's.
"""

from __future__ import annotations

import difflib

import pandas as pd

from densing.data.benchmarks import BENCHMARKS
from densing.data.schema import COLUMNS, LAB_COLUMN, SOURCE_COLUMN, SOURCE_LINE, require_columns, validate_results
from densing.data.wide import wide_to_tidy
from densing.errors import InputError, quoted

#: The metric a benchmark's score is read at where its run names none, in this order of preference.
METRIC_PREFERENCE = (
    "acc_norm",
    "acc",
    "exact_match,strict-match",
    "exact_match",
    "pass@1,create_test",
    "pass@1",
    "prompt_level_strict_acc",
)
#: The metric of a row that is its benchmark's score, whatever the benchmark.
SCORE = "score"
#: A wide table's columns that are no scores, beside the tidy table's (:data:`densing.data.schema.COLUMNS`): the
#: shipped target tables' own (the public table's dates; the Open LLM Leaderboard v2's and the Swallow tables' lineage,
#: precision, upload date and sources), a scores file's date source, and any table's lab of each model
#: (:data:`densing.data.schema.LAB_COLUMN`).
TABLE_COLUMNS = (
    "date_confidence",
    "date_source",
    "derivation",
    "release_date_source",
    "parent",
    "parent_tokens",
    "derivation_tokens",
    "tokens_source",
    "precision",
    "upload_date",
    "params_basis",
    LAB_COLUMN,
)


def aliases() -> dict[str, str]:
    """{a name in lower case: the benchmark it names}: its id in the benchmark registry, a wide table's column of its
    scores, a ``densing eval`` run or the lm-eval task it runs, or the name the report displays it by."""
    records = list(BENCHMARKS.values())
    runs = {r.name: [n for run in r.runs for n in (run.name, run.score_task)] for r in records}
    found: dict[str, str] = {}
    for record, names in [
        *((r, [r.name, *r.columns, *runs[r.name]]) for r in records if r.columns),
        *((r, [r.display]) for r in records if r.display),
        *((r, [r.name, *runs[r.name]]) for r in records),
    ]:
        for name in names:
            found.setdefault(name.strip().lower(), record.name)
    return found


def benchmark_for(name: object, *, where: str, known: dict[str, str] | None = None) -> str:
    """The benchmark ``name`` names (module docstring); an InputError naming ``where`` and the closest names else."""
    known = aliases() if known is None else known
    found = known.get(str(name).strip().lower())
    if found is None:
        close = difflib.get_close_matches(str(name).strip().lower(), list(known), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise InputError(
            f"{where}: {quoted(name)} is no benchmark densing knows{hint} (docs/measure.md lists the "
            "names a scores file or a table may use)"
        )
    return found


def score_metric(benchmark: str) -> str | None:
    """The metric ``benchmark``'s score is read at: its first run's that names one, else None."""
    record = BENCHMARKS.get(benchmark, None)
    return next((run.metric for run in (record.runs if record else ()) if run.metric), None)


def metric_rank(benchmark: str, metric: str) -> int | None:
    """How near ``metric`` is to ``benchmark``'s score (0 nearest; ``score`` is 0), None where it is not its score."""
    metric = str(metric).strip().removesuffix(",none")  # lm-eval's ``none`` filter: ``acc,none`` is ``acc``
    if metric == SCORE:
        return 0
    wanted = score_metric(benchmark)
    if wanted is not None:
        if metric == wanted:
            return 1
        if metric.partition(",")[0] == wanted.partition(",")[0]:  # the same metric under another filter
            return 2
        return None
    if metric in METRIC_PREFERENCE:
        return 3 + METRIC_PREFERENCE.index(metric)
    return None


def score_columns(columns) -> list[str]:
    """The columns of ``columns`` that name a benchmark (:func:`aliases`), neither a tidy table's nor a table's own."""
    known = aliases()
    return [
        c for c in columns if str(c) not in COLUMNS and str(c) not in TABLE_COLUMNS and str(c).strip().lower() in known
    ]


def wide_columns(frame: pd.DataFrame, source: str, known: dict[str, str] | None = None) -> dict[str, str]:
    """{a wide table's score column: its benchmark}; a column that is neither a table's nor a benchmark's is refused
    (an InputError naming ``source``, the column and the closest names), as are two columns of one benchmark."""
    known = aliases() if known is None else known
    scores = {
        column: benchmark_for(column, where=f"{source}: column {str(column)!r}", known=known)
        for column in frame.columns
        if str(column) not in (*COLUMNS, *TABLE_COLUMNS, SOURCE_LINE)
    }
    twice = pd.Series(list(scores.values()))
    if twice.duplicated().any():
        benchmark = twice[twice.duplicated()].iloc[0]
        names = [str(c) for c, b in scores.items() if b == benchmark]
        raise InputError(
            f"{source}: columns {', '.join(repr(n) for n in names)} all name benchmark {benchmark!r}; keep one"
        )
    if not scores:
        raise InputError(
            f"{source}: no score column (a wide table has a column per benchmark; a tidy one the columns "
            "model, benchmark, metric, value)"
        )
    return scores


def scores_table(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """``frame``, a tidy or a wide table, as validated rows of one ``score`` per model and benchmark (module doc)."""
    known = aliases()
    if "benchmark" not in frame.columns:
        frame = wide_to_tidy(frame, source=source, columns=wide_columns(frame, source, known))
    require_columns(frame, ("model", "benchmark", "metric", "value"), source)
    frame = frame.reset_index(drop=True)
    named = frame[SOURCE_COLUMN] if SOURCE_COLUMN in frame.columns else frame["benchmark"]
    benchmarks = {
        name: benchmark_for(name, where=f"{source}: benchmark", known=known)
        for name in pd.unique(frame["benchmark"].astype(str))
    }
    frame = frame.assign(benchmark=frame["benchmark"].astype(str).map(benchmarks))
    ranks = [metric_rank(b, m) for b, m in zip(frame["benchmark"], frame["metric"].astype(str))]
    frame = frame.assign(_rank=pd.array(ranks, dtype="Int64"), _named=named.astype(str))
    for (model, benchmark), rows in frame.groupby(["model", "benchmark"], sort=False):
        if rows["_rank"].isna().all():
            wanted = score_metric(benchmark) or " or ".join(METRIC_PREFERENCE)
            raise InputError(
                f"{source}: {rows['_named'].iloc[0]} of {model}: metric(s) "
                f"{', '.join(pd.unique(rows['metric'].astype(str)))}: none is {benchmark}'s score "
                f"({wanted}, or '{SCORE}')"
            )
        twice(rows[rows["_rank"].notna()], model, benchmark, source)
    kept = frame[frame["_rank"].notna()]
    best = kept.groupby(["model", "benchmark"], sort=False)["_rank"].transform("min")
    kept = kept[kept["_rank"] == best].assign(metric=SCORE).drop(columns=["_rank", "_named"])
    return validate_results(kept, source=source)


def twice(rows: pd.DataFrame, model: object, benchmark: str, source: str) -> None:
    """An InputError naming both where ``rows`` (one model's scores of ``benchmark``) hold two values of it: under two
    names (a task twice, two columns) or as ``score`` and a metric; lm-eval's filters of one metric are one task's."""
    kinds = rows.assign(_score=rows["metric"].astype(str).str.strip() == SCORE).drop_duplicates(["_named", "_score"])
    if len(kinds) > 1 and pd.to_numeric(rows["value"], errors="coerce").nunique(dropna=False) > 1:
        both = " and ".join(f"{r['_named']} {r['metric']} = {r['value']}" for _, r in kinds.head(2).iterrows())
        raise InputError(f"{source}: {model}: two values of {benchmark}: {both}; keep one")
