"""densing.runtime: a value of a table computed once inside same_tables, afresh outside it."""

from __future__ import annotations

import pandas as pd

from densing.runtime.memo import derived, per_table, same_tables

calls: list[tuple] = []


@per_table
def _column_sum(table: pd.DataFrame, column: str) -> float:
    calls.append((id(table), column))
    return float(table[column].sum())


def test_inside_the_block_each_table_and_arguments_are_computed_once():
    calls.clear()
    a, b = pd.DataFrame({"x": [1, 2]}), pd.DataFrame({"x": [5, 6]})
    with same_tables():
        assert [_column_sum(a, "x") for _ in range(3)] == [3.0] * 3
        assert _column_sum(b, "x") == 11.0
        with same_tables():  # a nested block keeps what the outer one holds
            assert _column_sum(a, "x") == 3.0
    assert calls == [(id(a), "x"), (id(b), "x")]


def test_outside_the_block_a_table_changed_in_place_is_read_afresh():
    calls.clear()
    table = pd.DataFrame({"x": [1, 2]})
    assert _column_sum(table, "x") == 3.0
    table["x"] = [10, 20]
    assert _column_sum(table, "x") == 30.0
    with same_tables():
        assert _column_sum(table, "x") == 30.0
    table["x"] = [0, 0]
    with same_tables():  # a new block keeps nothing of the last one
        assert _column_sum(table, "x") == 0.0
    assert len(calls) == 4


def test_a_kept_value_serves_its_own_table_only():
    with same_tables():
        first = pd.DataFrame({"x": [1]})
        assert derived(first, ("k",), lambda: "first") == "first"
        key = id(first)
        del first
        second = pd.DataFrame({"x": [2]})
        # a new table may reuse the id of a freed one: the weak reference tells them apart
        got = derived(second, ("k",), lambda: "second")
        assert got == "second" or id(second) != key


def test_two_functions_of_one_name_in_two_modules_keep_their_own_values():
    def answer(table):
        return "first"

    def other(table):
        return "second"

    other.__qualname__ = answer.__qualname__  # the same name, defined in another module
    other.__module__ = "elsewhere"
    first, second = per_table(answer), per_table(other)
    table = pd.DataFrame({"x": [1]})
    with same_tables():
        assert (first(table), second(table)) == ("first", "second")
