"""The JSON records and the tables a reader sees of a result, words in place: :func:`record` of any result, and of the
measurement (:class:`~densing.trend.measurement.TrendMeasurement`) its rows per benchmark, its sensitivity, references
and checks with their statuses, the cross-check and the document ``densing trend --format json`` prints. The results
hold the values; the words come from :mod:`densing.present.shown`, which these records put in place of the values
behind them (:data:`~densing.present.shown.IN_WORDS`).
"""

from __future__ import annotations

from dataclasses import fields
from functools import singledispatch

import pandas as pd

from densing import registry
from densing.constants import PAPER
from densing.numbers import format_count, frame_records, json_tree, json_value
from densing.present import knife_edge, verdict, words
from densing.present.shown import IN_WORDS, detail, headline, status, summary, threshold, verdict_of, why
from densing.results import Result
from densing.states import JudgedInterval
from densing.trend.checks import Check
from densing.trend.forecast import ForecastWindows
from densing.trend.measure import BUDGET_VARIANT, OPTIMISTIC_RULES, RULE_VARIANT, SENSITIVITY_JUDGED, SHAPE_VARIANT
from densing.trend.measurement import TrendMeasurement
from densing.trend.plan import D0_VARIANT, REFERENCE_VARIANT
from densing.trend.pooled_trend import PooledTrend
from densing.validation import Options, validate_params

# -- the JSON record -------------------------------------------------------------------------------------------------


def _is_result(value) -> bool:
    """Whether ``value`` is a result as :func:`densing.numbers.json_value` tells one: it has ``to_dict`` and
    ``conf_int``."""
    return hasattr(value, "to_dict") and hasattr(value, "conf_int")


def _record_value(value):
    """A field's value in a record: a result as its :func:`record`, containers of results element by element, anything
    else as :func:`densing.numbers.json_value` writes it."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if _is_result(value):
        return record(value)
    if isinstance(value, (tuple, list)) and any(_is_result(v) for v in value):
        return [_record_value(v) for v in value]
    if isinstance(value, dict) and any(_is_result(v) for v in value.values()):
        return {k: _record_value(v) for k, v in value.items()}
    return json_value(value)


@singledispatch
def record(result) -> dict:
    """A result as the JSON gives it: its values, each field of :data:`IN_WORDS` in words, nested results in kind. A
    result that writes its own ``to_dict`` (and nests no result shown in words) is its ``to_dict()``."""
    if not isinstance(result, Result) or type(result).to_dict is not Result.to_dict:
        return result.to_dict()
    return {name: _record_value(value) for name, value in shown_items_of_fields(result)}


def shown_items_of_fields(result: Result) -> list[tuple[str, object]]:
    """The fields of ``result``'s ``to_dict`` as (name shown, value), each field of :data:`IN_WORDS` in words."""
    in_words = IN_WORDS.get(type(result), {})
    found = []
    for field in fields(result):
        if field.name in result._dict_exclude:
            continue
        if field.name in in_words:
            shown_as, said = in_words[field.name]
            found.append((shown_as, said(result)))
        else:
            found.append((field.name, getattr(result, field.name)))
    return found


def trend_measurement_record(m: TrendMeasurement) -> dict:
    """The measurement's fields and its rules in words, with its state, the verdict and why."""
    values = {name: _record_value(value) for name, value in shown_items_of_fields(m)}
    return {
        **values,
        "measurable": m.measurable,
        "status": status(m),
        "headline": headline(m),
        "verdict": verdict_of(m),
        "why": why(m),
    }


record.register(TrendMeasurement, trend_measurement_record)


def check_record(check: Check) -> dict:
    """A validity check: its name, value, what it tests against, its status, what it found, whether it passed."""
    return {
        "name": check.name,
        "value": json_value(check.value),
        "threshold": threshold(check),
        "status": check.status,
        "detail": detail(check),
        "passed": check.passed,
    }


record.register(Check, check_record)


# -- the measurement's tables ----------------------------------------------------------------------------------------


def by_benchmark(m: TrendMeasurement) -> pd.DataFrame:
    """One row per benchmark, then one per set, the headline's first (``densing trend --by benchmark``); each end
    in the form every surface prints it: ``ci_high_form`` "range" where it is its Monte Carlo range
    ``ci_high_mc_low``–``ci_high_mc_high`` (not ``ci_high``, its quantile), ``ci_high_printed`` the text shown."""
    return words.rows_frame([*m.benchmark_rows, *m.set_rows])


def by_benchmark_at_budget(m: TrendMeasurement) -> pd.DataFrame:
    """The budget sensitivity: the paper-like rows with every reference brought to one D0 (empty without it)."""
    if not m.budget_rows:
        return pd.DataFrame()
    return words.rows_frame(list(m.budget_rows))


def fixed_size_frame(fits) -> pd.DataFrame:
    """The fixed-size time regression's rows (:func:`densing.trend.fixed_size.fixed_size_rows`), one per fit, each
    with its status in words."""
    return pd.DataFrame([dict(shown_items_of_fields(fit)) for fit in fits])


def cross_check(m: TrendMeasurement) -> pd.DataFrame:
    """Each row under both estimators, this and the fixed-size regression (:mod:`densing.trend.fixed_size`)."""
    if not m.fixed_size:
        return pd.DataFrame()
    rows = by_benchmark(m).set_index("row")
    shown = rows[["months", "ci_low", "ci_high", "status", *(c for c in words.PRECISION_COLUMNS if c in rows.columns)]]
    return pd.DataFrame(
        [
            {
                "row": fit.row,
                **shown.loc[fit.row].to_dict(),
                "fixed_size_months": fit.doubling_time_months,
                "fixed_size_ci_low": fit.doubling_time_months_ci_low,
                "fixed_size_ci_high": fit.doubling_time_months_ci_high,
                "fixed_size_status": status(fit),
            }
            for fit in m.fixed_size
            if fit.row in shown.index
        ]
    )


#: Each sensitivity variant's code (:data:`densing.trend.plan.REFERENCE_VARIANT`, :data:`~densing.trend.plan.
#: D0_VARIANT`, :data:`densing.trend.measure.RULE_VARIANT`, ``BUDGET_VARIANT``, ``SHAPE_VARIANT``) in words.
VARIANT_WORDS = {
    REFERENCE_VARIANT: "reference",
    D0_VARIANT: "D0 of the given fit",
    RULE_VARIANT: "frontier rule",
    BUDGET_VARIANT: "D0 budget (every reference at 1T tokens)",
    SHAPE_VARIANT: "family law logistic in ln N",
}


def sensitivity_frame(m: TrendMeasurement) -> pd.DataFrame:
    """The headline's sensitivity table in words: each variant's (:data:`VARIANT_WORDS`), a given fit's D0 in its
    ``inversion`` column ("D0 300B"), each variant's status in place of the judged value behind it
    (:data:`densing.trend.measure.SENSITIVITY_JUDGED`), the envelope rule's noted as optimistic."""
    frame = m.sensitivity
    if frame is None or SENSITIVITY_JUDGED not in frame.columns:
        return frame
    codes = frame["variant"]
    said = [
        status(judged) + (OPTIMISTIC_NOTE if variant == RULE_VARIANT and reference in OPTIMISTIC_RULES else "")
        for judged, variant, reference in zip(frame[SENSITIVITY_JUDGED], codes, frame["reference"])
    ]
    inversion = [
        f"D0 {format_count(d0)}" if variant == D0_VARIANT else inv
        for variant, inv, d0 in zip(codes, frame["inversion"], frame["d0"])
    ]
    return frame.assign(
        **{"variant": [VARIANT_WORDS.get(v, v) for v in codes], "inversion": inversion, SENSITIVITY_JUDGED: said}
    ).rename(columns={SENSITIVITY_JUDGED: "status"})


#: What a frontier rule whose points are chosen on the response adds to its status in the sensitivity table.
OPTIMISTIC_NOTE = "; its interval is optimistic (its points are chosen on the response)"


def references_frame(m: TrendMeasurement) -> pd.DataFrame:
    """Each reference of the headline (:func:`densing.trend.plan.reference_frame`) with its own interval's status,
    judged by the one state rule from its ends, after the interval."""
    frame = m.references.copy()
    head = m.rules.get(m.headline_rule)
    if head is None or "ci_high" not in frame.columns:
        return frame
    said = [status(JudgedInterval(low, high, head.n_boot)) for low, high in zip(frame["ci_low"], frame["ci_high"])]
    frame.insert(frame.columns.get_loc("ci_high") + 1, "status", said)
    return frame


def checks_table(m: TrendMeasurement) -> pd.DataFrame:
    """The validity checks: name, result and what each found."""
    return pd.DataFrame([{"check": c.name, "result": c.status, "detail": detail(c)} for c in m.checks])


@validate_params({"by": [Options(("rule", "benchmark"))]})
def measurement_frame(m: TrendMeasurement, by: str = "rule") -> pd.DataFrame:
    """The measurement as one table (``--format csv``): ``by="rule"``, :meth:`~TrendMeasurement.table` with the
    headline's fields on every row and each rule's own status, as the JSON's rows; ``by="benchmark"``,
    :func:`by_benchmark` and :func:`by_benchmark_at_budget` (``variant``: which)."""
    if by == "rule":
        frame = m.table()
        return frame.assign(
            headline=frame["rule"] == m.headline_rule,
            set=verdict.headline_set_words(m),
            reference=verdict.reference_words(m),
            d0=m.d0,
            status=[status(r) for r in m.rules.values()],
            verdict=verdict_of(m),
        )
    rows = by_benchmark(m).assign(variant="own budgets")
    rows = rows.assign(headline=rows["label"] == m.headline_set)
    budget = by_benchmark_at_budget(m)
    if len(budget):
        rows = pd.concat([rows, budget.assign(variant="at one budget", headline=False)], ignore_index=True)
    return rows


def headline_summary(m: TrendMeasurement) -> dict:
    """The JSON's ``headline``: what the data determine (:func:`densing.present.verdict.headline_summary`)."""
    return verdict.headline_summary(m)


def breakpoint_line(m: TrendMeasurement) -> str:
    """The breakpoint in one line ("" where its section is not asked for)."""
    if m.breakpoint is None:
        return ""
    return verdict.breakpoint_words(m.breakpoint)


@singledispatch
def document(result) -> dict:
    """What a command's ``--format json`` prints of ``result``."""
    raise TypeError(f"{type(result).__name__} has no document")


def pooled_trend_document(result: PooledTrend) -> dict:
    """What ``densing trend --table all --format json`` prints (:meth:`~densing.trend.pooled_trend.PooledTrend.
    document`), its forecast check's cutoff with its outcome and verdict in words."""
    values = result.document()
    return {**values, "forecast": record(values["forecast"])}


document.register(PooledTrend, pooled_trend_document)


def trend_measurement_document(m: TrendMeasurement) -> dict:
    """What ``densing trend --format json`` prints: ``rows``, one per frontier rule (its record with the references,
    D0, the checks and the paper's figures), then the words, the headline with its knife edges (computed here), the
    tables and the rows per benchmark."""
    rows = [
        {
            "frontier": rule,
            "headline": rule == m.headline_rule,
            "reference": verdict.reference_words(m),
            "d0": m.d0,
            **record(result),
            "measurable": m.measurable,
            "checks": [record(c) for c in m.checks],
            "paper": PAPER,
        }
        for rule, result in m.rules.items()
    ]
    head = {**headline_summary(m), "knife_edges": knife_edge.knife_edges_record(m.knife_edges())}
    return {
        "rows": rows,
        "verdict": verdict_of(m),
        "why": why(m),
        "status": status(m),
        "headline": head,
        "sensitivity": frame_records(sensitivity_frame(m)),
        "references": frame_records(references_frame(m)),
        "breakpoint": record(m.breakpoint) if m.breakpoint is not None else None,
        "by_benchmark": frame_records(by_benchmark(m)),
        "by_benchmark_at_budget": frame_records(by_benchmark_at_budget(m)),
        "cross_check": frame_records(cross_check(m)),
        "order_breaks": frame_records(m.order_breaks) if m.order_breaks is not None else [],
    }


document.register(TrendMeasurement, trend_measurement_document)


def windows_frame(windows: ForecastWindows) -> pd.DataFrame:
    """One row per cutoff, the declared one first (``declared`` True), each with its outcome and verdict."""
    found = [c for c in (windows.declared,) if c is not None] + list(windows.cutoffs)
    frame = pd.DataFrame([record(c) for c in found])
    if not len(frame):
        return frame
    return frame.assign(declared=[c is windows.declared for c in found])


# -- a registered table's record (densing trend --table NAME --by benchmark) -------------------------------------------


def forecast_record(forecast) -> dict | None:
    """A table's forecast check (:class:`~densing.trend.protocol.DeclaredForecast`) as its record: the row, the check's
    summary, the declared cutoff's record and the grid's; None for None."""
    if forecast is None:
        return None
    if forecast.found is None:
        said = f"Forecast not computed: {forecast.error}"
        return json_tree({"row": forecast.row, "summary": said, "declared": None, "cutoffs": []})
    found = forecast.found
    return json_tree(
        {
            "row": forecast.row,
            "summary": str(summary(found)),
            "declared": record(found.declared) if found.declared is not None else None,
            "cutoffs": [record(c) for c in found.cutoffs],
        }
    )


def table_record(found) -> dict:
    """A registered table's measurement (:class:`~densing.trend.protocol.TableMeasurement`) as one JSON-able record:
    the table, the verdict, each row with its references' names, the budget rows, the cross-check, the forecast."""
    measured = found.measured
    # each row's references as a list of their names (a reader takes them as values, never out of joined text)
    names = {row.name: [str(name) for name in row.references] for row in (*measured.benchmark_rows, *measured.set_rows)}
    profile = registry.table(found.table)
    said = {
        "table": profile.name,
        "words": profile.words,
        "continual_pretraining": "kept" if found.continual else "dropped",
        "n_models": found.n_models,
        "verdict": verdict_of(measured),
        "rows": [{**r, "reference_names": names.get(r["row"], [])} for r in by_benchmark(measured).to_dict("records")],
        "at_budget": by_benchmark_at_budget(measured).to_dict("records"),
        "at_budget_notes": words.budget_notes(measured),
        "cross_check": cross_check(measured).to_dict("records"),
    }
    forecast = forecast_record(found.forecast)
    if forecast is not None:
        said["forecast"] = forecast
    return json_tree(said)
