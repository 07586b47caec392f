"""An end printed as its Monte Carlo range: one form, "(13.4–19.7)", in a sentence, a row's interval and a table's cell;
an end that is precise, or not determined, keeps its number; the rows' values say which."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd

from densing.display import is_numeric
from densing.numbers import NumberText
from densing.present.words import (
    PRECISION_COLUMNS,
    determined_words,
    end_words,
    ends_shown,
    fold_of,
    record_end,
    result_interval,
    row_record,
    shown_legend,
)
from densing.states import State


def _result(high_precise: bool, high_determined: bool = True):
    return SimpleNamespace(
        doubling_time_months=5.32,
        doubling_time_months_ci_low=3.53,
        doubling_time_months_ci_high=16.2,
        months_low_mc_low=3.4,
        months_low_mc_high=3.7,
        months_high_mc_low=13.4,
        months_high_mc_high=19.7,
        low_determined=True,
        high_determined=high_determined,
        low_precise=True,
        high_precise=high_precise and high_determined,
        level=0.95,
        n_boot=2400,
    )


def test_an_imprecise_end_is_its_range_everywhere_and_a_precise_one_its_number():
    wide, narrow = _result(False), _result(True)
    assert end_words(16.2, 13.4, 19.7, True) == "(13.4–19.7)" and end_words(16.2, 13.4, 19.7, False) == "16.2"
    assert end_words(math.inf, math.nan, math.nan, False) == "∞"
    assert result_interval(wide) == ", 95% CI from 3.53 to (13.4–19.7)" and result_interval(narrow) == " [3.53–16.2]"
    assert determined_words(wide) == "5.32 months, 95% CI from 3.53 to (13.4–19.7)"  # no range inside brackets
    assert "16.2" not in determined_words(wide)
    open_end = _result(False, high_determined=False)
    assert result_interval(open_end) == " [3.53–16.2]"  # an end not determined is no range: its state says why


def test_a_fold_is_a_ratio_of_printed_numbers_and_a_range_where_an_end_is_one():
    """ "-fold" never divides by a number no surface prints: 16.2 / 3.53 where both ends are numbers, the range
    13.4 / 3.53 to 19.7 / 3.53 where the upper end is printed as its Monte Carlo range."""
    assert fold_of(_result(True)) == "4.6-fold"
    assert fold_of(_result(False)) == "3.8–5.6-fold"


def _row(result):
    row = SimpleNamespace(
        result=result,
        reason=None,
        name="leaderboard_bbh",
        label="BBH",
        capability="reasoning",
        benchmarks=("leaderboard_bbh",),
        references=("A:bbh",),
        chance=0.25,
    )
    for name, value in dict(
        slope_per_day=0.004,
        slope_ci_low=0.0012,
        slope_ci_high=0.005,
        n_models=55,
        heterogeneity_df=0,
        heterogeneity_q=math.nan,
        heterogeneity_p=math.nan,
        i_squared=math.nan,
        tau_squared=0.0,
        heterogeneity_draws=0,
        share_fit=0.1,
        share_score=0.1,
        share_models=0.7,
        share_reference=0.1,
        reference_months={},
        reference_months_low=(),
        reference_months_high=(),
        n_ceiling_bounds=0,
        months_without_ceilings=5.3,
        n_floor_bounds=0,
        months_without_floors=5.3,
        n_region_bounds=0,
        months_without_region=5.3,
        reference_labs=("Lab A",),
        n_references=1,
        largest_influence=lambda: None,
    ).items():
        setattr(result, name, value)
    result.state = State.from_ends(result.low_determined, result.high_determined)  # the one rule on its ends
    result.reasons = ()  # the row's status names its state alone: the ends are what this test reads
    row.state = result.state  # a row's state is its trend's (densing.trend.capability.Row.state)
    return row_record(row)


def test_the_rows_carry_the_range_and_the_flag_as_values_and_a_table_prints_the_range():
    wide, narrow, open_end = (_row(_result(False)), _row(_result(True)), _row(_result(False, high_determined=False)))
    assert (wide["ci_high_precise"], narrow["ci_high_precise"], open_end["ci_high_precise"]) == (False, True, None)
    assert (wide["ci_high_mc_low"], wide["ci_high_mc_high"]) == (13.4, 19.7) and wide["ci_high"] == 16.2
    assert (wide["ci_high_form"], wide["ci_high_printed"]) == ("range", "(13.4–19.7)")
    assert (narrow["ci_high_form"], narrow["ci_high_printed"]) == ("number", "16.2")
    assert (open_end["ci_high_form"], wide["ci_low_form"], wide["ci_low_printed"]) == ("number", "number", "3.53")
    assert record_end(wide, "high") == "(13.4–19.7)" and record_end(narrow, "high") == "16.2"
    frame = pd.DataFrame([wide, narrow, open_end])
    shown = ends_shown(frame)
    assert list(shown["ci_high"]) == ["(13.4–19.7)", 16.2, 16.2]
    assert isinstance(shown["ci_high"][0], NumberText) and is_numeric(shown["ci_high"].tolist())  # placed as a number
    assert not set(PRECISION_COLUMNS) & set(shown.columns) and set(PRECISION_COLUMNS) <= set(
        ends_shown(frame, keep=True)
    )
    assert "2,400 draws" in shown_legend(frame) and shown_legend(frame.iloc[1:]) == ""
