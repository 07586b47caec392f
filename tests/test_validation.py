"""The declared-constraints helper: one message shape for every argument."""

from __future__ import annotations

from numbers import Integral, Real

import pytest

from densing.errors import InputError
from densing.impossible import check_params
from densing.validation import Interval, Options, validate

CONSTRAINTS = {
    "n_boot": [Interval(Integral, 0, None)],
    "level": [Interval(Real, 0, 1, closed="neither")],
    "chance": [Interval(Real, 0, 1, closed="left"), Options({"auto", "none"}), None],
}


@pytest.mark.parametrize(
    "name, value",
    [
        ("n_boot", 10),
        ("n_boot", 0),
        ("level", 0.95),
        ("chance", 0.25),
        ("chance", "auto"),
        ("chance", None),
        ("chance", 0),
    ],
)
def test_valid_values_pass(name, value):
    validate(CONSTRAINTS, **{name: value})


@pytest.mark.parametrize(
    "name, value, words",
    [
        ("n_boot", -5, "an integer ≥ 0"),
        ("n_boot", 2.5, "an integer"),
        ("n_boot", True, "an integer"),
        ("level", 1.0, "(0, 1)"),
        ("level", float("nan"), "(0, 1)"),
        ("chance", 1.0, "[0, 1)"),
        ("chance", "half", "'auto'"),
    ],
)
def test_invalid_values_name_the_argument_and_what_was_expected(name, value, words):
    with pytest.raises(InputError) as info:
        validate(CONSTRAINTS, **{name: value})
    assert str(info.value).startswith(f"{name}: expected ") and words in str(info.value)


def test_undeclared_arguments_are_not_checked():
    validate(CONSTRAINTS, anything=object())


@pytest.mark.parametrize("value, ok", [(43264, True), (7e9, True), (1e13, True), (7, False), (1.1e13, False)])
def test_parameter_counts_must_be_plausible(value, ok):
    if ok:
        assert check_params(value) == value
    else:
        with pytest.raises(InputError, match="not a language model's size"):
            check_params(value)


def test_a_limit_is_a_whole_count_of_items():
    """--limit means at most N items: lm-eval's fraction below 1 and counts no benchmark has are refused in one line."""
    from densing.errors import InputError
    from densing.eval.loading import SWEEP_CONSTRAINTS
    from densing.validation import validate

    for good in (1, 20, 20.0, 10_000_000, None):
        validate(SWEEP_CONSTRAINTS, limit=good)
    for bad in (0.5, 0, -1, 2.5, 1e30, float("nan"), float("inf"), True, "20"):
        with pytest.raises(InputError, match="limit: expected a whole number in \\[1, 10,000,000\\]"):
            validate(SWEEP_CONSTRAINTS, limit=bad)
