"""densing.numbers: the one number-to-text rule (missing, infinities); the benches' distributions (bench/_timing)."""

import math
import statistics

from hypothesis import given, strategies as st

from bench._timing import spread
from densing.numbers import format_number, json_number

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


# ---------------------------------------------------------------------------------------------
# the one rule of numbers shown to people: significant figures, never 0 for a non-zero value

from decimal import Decimal

from densing.numbers import format_count, log_ticks, significant, time_unit

nonzero = st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != 0)
ZERO_TEXTS = {"0", "0.0", "0.00", "-0", "-0.0"}
_FROM_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def _within_digits(text: str, value: float, digits: int) -> bool:
    """``text`` parses back to ``value`` within half a unit in its last significant place."""
    exponent = Decimal(abs(value)).adjusted()  # the float's exact value, not its shortest repr
    return abs(Decimal(text) - Decimal(value)) <= Decimal(5) * Decimal(10) ** (exponent - digits)


def _plain(text: str) -> str:
    """A number as Python reads it: ×10ⁿ as eN, and the minus sign (−) as a hyphen."""
    text = text.replace("−", "-")  # U+2212; the superscript minus ⁻ is another character
    if "×10" not in text:
        return text
    mantissa, power = text.split("×10")
    return f"{mantissa}e{power.translate(_FROM_SUPERSCRIPT)}"


@given(nonzero, st.integers(1, 6))
def test_a_non_zero_number_is_never_zero_and_parses_back_within_its_figures(value, digits):
    shown = significant(value, digits)
    text = _plain(shown)
    assert text not in ZERO_TEXTS and Decimal(text) != 0
    assert _within_digits(text, value, digits), (value, text)
    assert "e" not in shown and "E" not in shown and "-" not in shown  # one form: ×10ⁿ and −, on every surface


@given(nonzero)
def test_format_number_keeps_whole_numbers_and_the_default_three_figures(value):
    text = _plain(format_number(value))
    assert text not in ZERO_TEXTS
    if float(value).is_integer() and abs(value) < 10**6:
        assert Decimal(text) == Decimal(int(value))
    else:
        assert _within_digits(text, value, 3), (value, text)


@given(st.floats(min_value=1e-3, max_value=1e18, allow_nan=False).filter(lambda x: x != 0))
def test_counts_are_words_that_parse_back(value):
    text = _plain(format_count(value))
    scale = {"K": 3, "M": 6, "B": 9, "T": 12}.get(text[-1], 0)
    number = Decimal(text[:-1] if scale else text) * Decimal(10) ** scale
    assert number != 0 and "e+" not in text and "e-0" not in text
    assert _within_digits(str(number), value, 3), (value, text)


def test_the_readers_examples():
    assert format_number(3.21e-5) == "3.21×10⁻⁵" and format_number(-0.0123) == "−0.0123" and format_number(-7) == "−7"
    assert format_number(0.0020) == "0.002" and format_number(4.862316) == "4.86" and format_number(106) == "106"
    assert format_count(1.415e9) == "1.42B" and format_count(1.5e13) == "15T" and format_count(999.6) == "1K"
    assert time_unit(0.4356) == ("ms", 1e-3) and time_unit(75) == ("min", 60.0) and time_unit(0) == ("s", 1.0)
    assert format_number(0.0) == "0" and format_number(math.nan) == "—"
    assert format_number(2.5, ".2f") == "2.50"  # a sentence's fixed form, where one asks for it


def test_log_axis_ticks_are_powers_of_ten():
    values, texts = log_ticks(-5.2, 0.5)
    assert texts == ["10⁻⁵", "10⁻⁴", "10⁻³", "10⁻²", "10⁻¹", "10⁰"] and values[0] == 1e-5
    values, texts = log_ticks(-0.9, 0.4)  # under three decades: 2× and 5× between
    assert texts == ["2×10⁻¹", "5×10⁻¹", "10⁰", "2×10⁰"]


def test_a_doubling_time_in_words_has_the_digits_of_the_table_beside_it():
    """format_months is the tables' rule (three significant figures), so a sentence and its table agree."""
    from densing.display import column
    from densing.numbers import format_months

    for value in (3.4554965997922316, 18.528, 0.5681, 150.2, 1.5, 4.0):
        assert format_months(value) == column("months", [value])[1][0]
    assert [format_months(v) for v in (3.4554965997922316, 1.3675788532500162, 18.528, 0.5681, 4.0)] == [
        "3.46",
        "1.37",
        "18.5",
        "0.568",
        "4",
    ]
    assert (format_months(float("inf")), format_months(None), format_months(float("nan"))) == ("∞", "—", "—")


def test_a_date_time_with_its_zone_counts_as_its_day_in_utc():
    import pandas as pd
    import pytest

    from densing.errors import InputError
    from densing.numbers import parse_date

    assert parse_date("2023-02-25T01:00+09:00") == pd.Timestamp("2023-02-24")
    assert parse_date("2023-02-25 10:00:00+09:00") == pd.Timestamp("2023-02-25")
    assert parse_date("2023-02-24T23:30Z") == pd.Timestamp("2023-02-24")
    for naive in ("2023-02-25T01:00", "2023/02/25", "25.02.2023"):  # a time without its zone names no one day
        with pytest.raises(InputError, match="field 'release_date': cannot parse"):
            parse_date(naive)


def test_a_tokyo_zoned_date_column_gives_the_doubling_time_of_its_utc_dates(tmp_path, run_cli):
    import pandas as pd

    table = pd.read_csv("results/public_models.csv")
    day_before = (pd.to_datetime(table["release_date"]) - pd.Timedelta(days=1)).dt.strftime("%Y-%m-%d")
    table.assign(release_date=table["release_date"] + "T08:00:00+09:00").to_csv(tmp_path / "tokyo.csv", index=False)
    table.assign(release_date=day_before).to_csv(tmp_path / "utc.csv", index=False)  # 08:00 in Tokyo: the day before
    rows = {}
    for name in ("tokyo", "utc"):
        code, out, err = run_cli("trend", "--results", tmp_path / f"{name}.csv", "--n-boot", "40", "--format", "csv")
        assert code == 0, err
        rows[name] = out
    assert rows["tokyo"] == rows["utc"]


def test_a_count_of_one_takes_the_singular_and_every_other_count_the_plural():
    from densing.numbers import counted_noun

    assert counted_noun(1, "cutoff") == "1 cutoff" and counted_noun(3, "cutoff") == "3 cutoffs"
    assert counted_noun(0, "cutoff") == "0 cutoffs" and counted_noun(1.0, "model") == "1 model"
    assert counted_noun(1, "family", "families") == "1 family" and counted_noun(2, "family", "families") == "2 families"
