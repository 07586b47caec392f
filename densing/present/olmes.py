"""The OLMES design's words (:mod:`densing.designs.olmes.trend`): its rows with their reference, their sensitivity
intervals and their reasons in words (:func:`rows_frame`: a poor fit's, by :func:`densing.present.laws.verdict_words`;
:func:`reference_words`, :func:`side_interval`, :func:`ceiling_one_interval`), its checks (:func:`checks_frame`),
each row's status (:func:`row_parts`, :func:`row_statuses`), its summary (:func:`olmes_summary`) and its rows beside the
leaderboard-based ones (:func:`beside_leaderboard`), for the report's section and ``densing trend --design olmes``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from densing.designs.olmes.trend import CEILING_ONE, LEADERBOARD_TWIN, SIDE_KEYS, OlmesTrend, judged
from densing.numbers import counted_noun, format_months
from densing.present.laws import verdict_words
from densing.present.records import record
from densing.present.shown import summary
from densing.present.summaries import Summary
from densing.present.words import joined, not_measured, state_words, status_parts
from densing.states import State
from densing.trend.checks import FAILED

#: Why a task of the OLMES table that the leaderboard table also has gets no MC reference.
NO_REFERENCE = {
    "gsm8k": "no reference: the OLMo ladder records the correct answer's bits per byte of multiple-choice and "
    "ranked-classification tasks only; GSM8K is scored on generated answers",
    "mmlu_pro": "no reference: the OLMo ladder does not evaluate MMLU-Pro, so there is no loss law for it",
}


#: The values of the rows that the shown rows say in words (:func:`rows_frame`), left out of them: a poor fit's flag,
#: each sensitivity column's interval, whether it is measured and its error, and the ceiling-1 law's reasons.
VALUE_COLUMNS = (
    "poor_fit",
    *(f"{key}_{value}" for key in SIDE_KEYS for value in ("ci_low", "ci_high", "measured", "error")),
    "months_ceiling_1_failed",
    "months_ceiling_1_own_choice",
    "months_ceiling_1_missing",
    "months_ceiling_1_folder",
    "months_ceiling_1_r2",
    "months_ceiling_1_poor_fit",
)

#: The ceiling-1 column of a task whose ceiling rule chose 1 itself (the row is its own sensitivity).
OWN_CHOICE = "the rule's own choice"


def reference_words(task: str) -> str:
    """An OLMES row's reference as the rows say it: the OLMo ladder's loss law and the task's MC score law."""
    return f"OLMo ladder loss law + OLMo-2 MC score law ({task})"


def poor_fit_error(r2: float) -> str:
    """Why a task whose MC score law is a poor fit (R² ``r2`` < 0.5) is not measured."""
    return (
        f"the MC score law is a {verdict_words(r2)} on the OLMo-2 checkpoints "
        "(bits per byte does not order MC accuracy)"
    )


def ceiling_one_poor_fit(r2: float) -> str:
    """Why the ceiling-1 law (R² ``r2`` < 0.5) gives no doubling time."""
    return f"the ceiling-1 law is a {verdict_words(r2)}"


def side_interval(row: dict, key: str, blank=""):
    """Sensitivity column ``key``'s interval in ``row`` (a row's values, :data:`~densing.designs.olmes.trend.SIDE_KEYS`)
    as the rows say it: ``low–high``, with the ceiling-1 law's failed checks (``(failed: …)`` or ``(every testable
    check passed)``), or the failed trend's message; ``blank`` where it was not measured."""
    if row.get(f"{key}_error"):
        return row[f"{key}_error"]
    if not row.get(f"{key}_measured"):
        return blank
    words = f"{format_months(row[f'{key}_ci_low'])}–{format_months(row[f'{key}_ci_high'])}"
    if key == CEILING_ONE:
        failed = ", ".join(row.get(f"{key}_failed") or ())
        words += f" (failed: {failed})" if failed else " (every testable check passed)"
    return words


def ceiling_one_interval(row: dict) -> str:
    """The ceiling-1 law's interval in ``row`` (:func:`side_interval`), or why it has none: the ceiling rule's own
    choice (:data:`OWN_CHOICE`), "not measured" and the fit's missing file or its poor fit
    (:func:`ceiling_one_poor_fit`); empty where the row has no trend."""
    if row.get("months_ceiling_1_own_choice"):
        return OWN_CHOICE
    if row.get("months_ceiling_1_missing"):
        return not_measured(f"{row['months_ceiling_1_missing']} not in {row['months_ceiling_1_folder']}")
    if row.get("months_ceiling_1_poor_fit"):
        return not_measured(ceiling_one_poor_fit(row["months_ceiling_1_r2"]))
    return side_interval(row, CEILING_ONE)


def rows_frame(olmes: OlmesTrend) -> pd.DataFrame:
    """The per-task rows as every surface shows them: ``reference`` in words (:func:`reference_words`), ``error``
    says why a poor fit is not measured (:func:`poor_fit_error`, from ``score_r2`` and ``poor_fit``), the ceiling-1
    law's interval ``months_ceiling_1_ci`` beside its doubling time (:func:`ceiling_one_interval`) and each D0's
    interval ``<key>_ci`` last (:func:`side_interval`; shown where a row measured it or its trend failed, blank on the
    other rows); the value columns (:data:`VALUE_COLUMNS`) are left out."""
    rows = olmes.rows.copy()
    if "reference" in rows and "task" in rows:
        rows["reference"] = [reference_words(task) for task in rows["task"]]
    if "poor_fit" in rows:
        poor = rows["poor_fit"].fillna(False).astype(bool)
        rows.loc[poor, "error"] = [poor_fit_error(r2) for r2 in rows.loc[poor, "score_r2"]]
    values = rows.to_dict("records")
    if f"{CEILING_ONE}_measured" in rows:
        at = rows.columns.get_loc(CEILING_ONE) + 1 if CEILING_ONE in rows else len(rows.columns)
        rows.insert(at, f"{CEILING_ONE}_ci", [ceiling_one_interval(row) for row in values])
    for key in (k for k in SIDE_KEYS if k != CEILING_ONE):
        if any(row.get(f"{key}_measured") or row.get(f"{key}_error") for row in values):
            rows[f"{key}_ci"] = [side_interval(row, key, blank=np.nan) for row in values]
    return rows.drop(columns=[c for c in VALUE_COLUMNS if c in rows])


def checks_frame(olmes: OlmesTrend) -> pd.DataFrame:
    """Every check of the OLMES rows as the surfaces show it: its benchmark, its record in words
    (:func:`densing.present.records.record`: what it tests against and what it found) and whether a finding fired."""
    return pd.DataFrame(
        [{"benchmark": benchmark, **record(check), "fired": check.fired} for benchmark, check in olmes.check_values]
    )


def failed_and_fired(checks: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The failed gates and the findings that fire among the OLMES rows' checks (:func:`checks_frame`)."""
    if not len(checks):
        return checks, checks
    return checks[checks["status"] == FAILED], checks[checks["fired"].astype(bool)]


def _interval(rows: pd.DataFrame, key: str) -> str | None:
    """Row ``key`` of ``rows`` as months [95% interval]; None where it has no finite months."""
    if key not in rows.index or not np.isfinite(rows.loc[key, "months"]):
        return None
    return (
        f"{format_months(rows.loc[key, 'months'])} [{format_months(rows.loc[key, 'ci_low'])}–"
        f"{format_months(rows.loc[key, 'ci_high'])}]"
    )


def beside_leaderboard(olmes: OlmesTrend, by_benchmark: pd.DataFrame, paper_months: float) -> pd.DataFrame:
    """The two designs task by task (:data:`LEADERBOARD_TWIN`) beside ``by_benchmark`` (the leaderboard-based rows):
    ``olmes`` and ``leaderboard`` (months [95% interval], or why not measured), ``olmes_checks`` (in words),
    ``agreement`` (whether the 95% intervals overlap: a consistent trend, not a proof of equality) and ``paper``."""
    mine = rows_frame(olmes).set_index("task")
    theirs = by_benchmark.set_index("row")
    failed, fired = failed_and_fired(checks_frame(olmes))
    out = []
    for task, twin in LEADERBOARD_TWIN.items():
        left, right, checks = _interval(mine, task), _interval(theirs, twin), ""
        if left:
            b = mine.loc[task, "benchmark"]
            words = [f"{r.name} failed: {r.detail}" for r in failed[failed["benchmark"] == b].itertuples()]
            words += [f"finding: {r.name} {r.detail}" for r in fired[fired["benchmark"] == b].itertuples()]
            checks = "; ".join(words) if words else "all testable checks pass"
        if left and right:
            overlap = (
                mine.loc[task, "ci_low"] <= theirs.loc[twin, "ci_high"]
                and theirs.loc[twin, "ci_low"] <= mine.loc[task, "ci_high"]
            )
            agreement = (
                "consistent: the 95% intervals overlap" if overlap else "they disagree: the 95% intervals are disjoint"
            )
        else:
            missing = [name for name, ok in (("OLMES design", left), ("leaderboard", right)) if not ok]
            agreement = "cannot compare: " + " and ".join(missing) + " " + state_words(State.NOT_MEASURED)
        left = left or (not_measured(mine.loc[task, "error"]) if task in mine.index else NO_REFERENCE[task])
        right = (
            right
            or (theirs.loc[twin, "error"] if twin in theirs.index else "not in the public table")
            or state_words(State.NOT_MEASURED)
        )
        out.append(
            {
                "benchmark": task,
                "olmes": left,
                "olmes_checks": checks,
                "leaderboard": right,
                "agreement": agreement,
                "paper": f"{paper_months:g} (its set of five)",
            }
        )
    return pd.DataFrame(out)


def row_statuses(rows: pd.DataFrame) -> list[str]:
    """Each OLMES row's status in every design's words (:func:`row_parts` joined)."""
    return [joined(*parts) for parts in row_parts(rows)]


def row_parts(rows: pd.DataFrame) -> list[tuple[str, tuple[str, ...]]]:
    """Each OLMES row's status as (head, reasons) (:func:`densing.present.words.status_parts`), by the one state rule:
    measured, bounded or not measured by its ends, or not measured and its error."""
    return [
        (state_words(State.NOT_MEASURED), (str(r.error),)) if str(r.error or "") else status_parts(judged(r))
        for r in rows.itertuples()
    ]


def olmes_summary(result: OlmesTrend) -> Summary:
    """The OLMES design as a reader sees it: each task's doubling time and interval with its models, or why it is not
    measured (:func:`rows_frame`), then how many models are left out and how many checks failed."""
    items = [
        (
            r.benchmark,
            r.error
            or f"{r.months:.3g} months ({r.ci_low:.3g} to {r.ci_high:.3g}), {counted_noun(r.n_models, 'model')}",
        )
        for r in rows_frame(result).itertuples()
    ]
    items += [(name, value) for name, value in result._summary_items() if name in ("models left out", "failed checks")]
    return Summary(type(result).__name__, items=tuple(items))


summary.register(OlmesTrend, olmes_summary)
