"""No result holds prose: every field of every :class:`~densing.results.Result` type that is a string is declared
here with what it names (an identifier, a label, a path, a date, a library's own message); a state is a value
(:mod:`densing.states`) and its words are made in :mod:`densing.present`. A new string field fails this test until it
is declared, and a declared one that holds a state's words fails it on the shipped measurement."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re

import pytest

import densing
from densing.results import Result

#: (type, field) → what the string names. A sentence is never one of them.
STRING_FIELDS = {
    ("ModelSpec", "name"): "the model's name",
    ("ModelSpec", "model"): "the model's path or hub id",
    ("ModelSpec", "revision"): "a revision id",
    ("ModelSpec", "dtype"): "a dtype name",
    ("ModelSpec", "release_date"): "a date",
    ("ModelSpec", "family"): "a family name",
    ("ModelSpec", "gguf_file"): "a file name",
    ("MergedCache", "folder"): "a path",
    ("StageFit", "law"): "a law's name",
    ("StageFit", "message"): "the optimizer's own message (scipy)",
    ("ReferenceFit", "kind"): "a kind code",
    ("ReferenceFit", "benchmark"): "a benchmark id",
    ("ReferenceFit", "metric"): "a metric name",
    ("ReferenceFit", "data_hash"): "a hash",
    ("ReferenceFit", "loss_unit"): "a unit name",
    ("Calibration", "comm_bytes_source"): "a source code ('trace args' or 'model size')",
    ("MeasureResult", "suite"): "a suite name",
    ("MeasureResult", "reference"): "reference fits' names",
    ("MeasureResult", "frontier_rule"): "a frontier rule's name",
    ("MeasureResult", "epoch"): "a date",
    ("Check", "name"): "a check's name",
    ("Check", "status"): "a status code (passed, failed, untestable, reported)",
    ("Check", "finding"): "a finding's kind code",
    ("CostHalvingFit", "frontier"): "a frontier rule's name",
    ("FixedSizeFit", "row"): "a row id",
    ("ForecastCutoff", "cutoff"): "a date",
    ("ForecastWindows", "row"): "a row id",
    ("Breakpoint", "date"): "a date",
    ("Segment", "name"): "a side's name (before, after)",
    ("TrendMeasurement", "reference"): "reference fits' names",
    ("TrendMeasurement", "headline_rule"): "a rule's name",
    ("TrendMeasurement", "headline_set"): "a set's label",
    ("TrendMeasurement", "table_name"): "a registered table's name",
    ("TrendMeasurement", "since"): "a date",
    ("FamilyInfluence", "family"): "a family name",
    ("TrendUncertainty", "rule"): "a rule's name",
    ("TrendUncertainty", "inversion"): "an inversion's name",
    ("TrendUncertainty", "epoch"): "a date",
    ("PooledTrend", "epoch"): "a date",
    ("TrendUncertainty", "most_influential_model"): "a model's name",
}


def _result_types() -> list[type]:
    for module in pkgutil.walk_packages(densing.__path__, "densing."):
        if not module.name.endswith("__main__") and "worker" not in module.name and "child" not in module.name:
            try:
                importlib.import_module(module.name)
            except ImportError:  # an optional extra (torch, lm-eval) this environment lacks
                continue

    def below(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from below(sub)

    return sorted(
        {c for c in below(Result) if dataclasses.is_dataclass(c) and c.__module__.startswith("densing.")},
        key=lambda c: (c.__module__, c.__name__),
    )


def _string_fields(cls) -> list[str]:
    return [
        f.name
        for f in dataclasses.fields(cls)
        if re.fullmatch(r"str( \| None)?|Optional\[str\]", str(f.type).replace("'", ""))
    ]


def test_every_string_field_of_a_result_is_declared():
    found = {(c.__name__, name) for c in _result_types() for name in _string_fields(c)}
    assert found, "no result type found"
    assert found <= set(STRING_FIELDS), sorted(found - set(STRING_FIELDS))


def test_the_trend_results_carry_their_states_as_values():
    from densing.states import State
    from densing.trend.fixed_size import FixedSizeFit
    from densing.trend.forecast import ForecastCutoff, Outcome
    from densing.trend.uncertainty import TrendUncertainty

    types = {f.name: f.type for f in dataclasses.fields(FixedSizeFit)}
    assert "State" in str(types["state"]) and "status" not in types
    assert "Outcome" in str({f.name: f.type for f in dataclasses.fields(ForecastCutoff)}["state"])
    assert isinstance(TrendUncertainty.state, property) and {"status", "verdict"}.isdisjoint(
        f.name for f in dataclasses.fields(TrendUncertainty)
    )
    assert {s.name for s in State} == {"MEASURED", "BOUNDED", "NOT_MEASURED"} and len(Outcome) == 4


@pytest.fixture(scope="module")
def shipped():
    from densing.data import read_results
    from densing.trend.measure import measure_trend

    return measure_trend(read_results("results/public_models.csv"), n_boot=60)


def test_no_string_field_of_the_shipped_results_holds_a_state(shipped):
    """Walk the shipped measurement's results: no declared string holds a state's words."""
    words = re.compile(r"\b(not measured|bounded|measured|no verdict)\b")
    seen, stack = 0, [shipped, *shipped.rules.values(), *shipped.checks, shipped.breakpoint]
    while stack:
        item = stack.pop()
        for name in _string_fields(type(item)):
            value = getattr(item, name)
            assert not (isinstance(value, str) and words.search(value)), (type(item).__name__, name, value)
            seen += 1
        stack += [v for f in dataclasses.fields(item) if isinstance(v := getattr(item, f.name), Result)]
    assert seen > 10
