"""densing.numbers: the one number-to-text rule (missing, infinities, distributions)."""
import math
import statistics

from hypothesis import given, strategies as st

from densing.numbers import format_number, json_number, spread

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


def test_missing_and_infinite_numbers_read_the_same_everywhere():
    assert format_number(None) == "—" and format_number(math.nan) == "—"
    assert format_number(math.inf) == "∞" and format_number(-math.inf) == "−∞"
    assert json_number(math.nan) is None and json_number(1.5) == 1.5


@given(st.lists(finite, min_size=1, max_size=9), st.integers(0, 3))
def test_spread_is_median_then_min_and_max(values, digits):
    spec = f".{digits}f"
    text = spread(values, spec)
    assert text == f"{statistics.median(values):{spec}} [{min(values):{spec}}–{max(values):{spec}}]"
    assert spread(values, spec, ", ").endswith(f", {max(values):{spec}}]")


def test_spread_of_one_repeat_names_it_three_times():
    assert spread([2.0], ".1f") == "2.0 [2.0–2.0]"
