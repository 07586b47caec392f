"""Every value a user hands in has a declared domain; one value outside each bound is refused in one line.

Dates (:func:`densing.validation.check_date`: [1990-01-01, today]) on every read of a results table and in the API's
``since``; the further input kinds follow, one section each.
"""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from densing.errors import InputError

REPO_ROOT = Path(__file__).resolve().parents[1]
HEADER = "model,benchmark,metric,value,params,release_date\n"
GOOD = "org/a,arc_easy,acc,0.6,1e9,2024-01-01\n"


def _one_line_exit_2(result, *words: str) -> None:
    code, out, err = result
    assert code == 2 and out == "", (code, out, err)
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err
    for word in words:
        assert word in err, err


# ---------------------------------------------------------------------------------------------
# dates

OUT_OF_DOMAIN_DATES = {"spreadsheet day zero": "1900-01-01", "Unix epoch": "1970-01-01", "day before": "1989-12-31",
                       "future": "2999-01-01"}


@pytest.mark.parametrize("date", OUT_OF_DOMAIN_DATES.values(), ids=OUT_OF_DOMAIN_DATES.keys())
def test_a_table_date_outside_the_domain_is_one_line_naming_file_row_field_value_and_domain(date, tmp_path, run_cli):
    table = tmp_path / "targets.csv"
    table.write_text(HEADER + GOOD + f"org/b,arc_easy,acc,0.5,1e9,{date}\n")
    _one_line_exit_2(run_cli("density", "--targets", table), str(table), "row 2", "field 'release_date'", date,
                     "[1990-01-01, today")


def test_a_wide_table_date_outside_the_domain_names_its_own_row(tmp_path, run_cli):
    """The public (wide) table with one model dated 1900-01-01 moves the trend by years if read; it is refused."""
    rows = list(csv.reader((REPO_ROOT / "results" / "public_models.csv").open()))
    rows[3][rows[0].index("release_date")] = "1900-01-01"
    table = tmp_path / "public.csv"
    with table.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    _one_line_exit_2(run_cli("trend", "--results", table, "--since", "none"), str(table), "row 3",
                     "field 'release_date'", "1900-01-01", "[1990-01-01, today")


@pytest.mark.parametrize("date", OUT_OF_DOMAIN_DATES.values(), ids=OUT_OF_DOMAIN_DATES.keys())
def test_an_api_date_outside_the_domain_is_refused(date):
    import pandas as pd

    from densing import fit_trend, measure_trend, read_results
    from densing.data.units import parse_date
    from densing.validation import Date

    assert not Date().matches(date) and not Date().matches(pd.Timestamp(date))
    with pytest.raises(InputError, match="since"):
        fit_trend(read_results(REPO_ROOT / "results" / "public_models.csv"), since=date)
    with pytest.raises(InputError, match="since"):
        measure_trend(read_results(REPO_ROOT / "results" / "public_models.csv"), since=date)
    with pytest.raises(InputError, match=r"field 'release_date'.*\[1990-01-01, today"):
        parse_date(date, where="t.csv: row 1")


def test_the_bounds_themselves_are_dates():
    from datetime import date

    from densing.data.units import parse_date

    assert parse_date("1990-01-01") == parse_date("1990-01-01")
    assert parse_date(date.today().isoformat()).date() == date.today()
