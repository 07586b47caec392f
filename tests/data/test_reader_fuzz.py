"""Every reader, fed random bytes or random tidy tables, either works or raises one InputError
(and through the CLI: exit 0, or one line on stderr with exit 2) — never another exception.
Random edits of a reference fit file: tests/laws/test_reference_fit.py."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from densing.errors import InputError

REPO_ROOT = Path(__file__).resolve().parents[2]
FIT = REPO_ROOT / "reference_fits" / "pythia_arc_easy_composed.json"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

cells = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**15), 10**15),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        ["", " ", "7B", "1.1b", "350M", "2T", "65", "nan", "-1", "2023-02-24", "yesterday", "acc", "bpb", "nats"]
    ),
    st.text(max_size=12),
)
COLUMNS = [
    "model",
    "benchmark",
    "metric",
    "value",
    "params",
    "train_tokens",
    "release_date",
    "loss",
    "loss_unit",
    "stderr",
    "n_shot",
]


@st.composite
def tidy_tables(draw):
    columns = draw(st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=len(COLUMNS), unique=True))
    n = draw(st.integers(0, 4))
    return pd.DataFrame({c: [draw(cells) for _ in range(n)] for c in columns})


def works_or_input_error(read, *args) -> None:
    try:
        result = read(*args)
    except InputError as exc:
        assert str(exc) and "\n" not in str(exc).strip()
        return
    assert isinstance(result, pd.DataFrame)


@SETTINGS
@given(data=st.binary(max_size=400), suffix=st.sampled_from([".csv", ".json", ".parquet", ".txt"]))
def test_random_bytes_to_read_results(tmp_path, data, suffix):
    from densing.data import read_results

    path = tmp_path / f"input{suffix}"
    path.write_bytes(data)
    works_or_input_error(read_results, path)


@SETTINGS
@given(table=tidy_tables())
def test_random_tidy_tables_to_validate_and_read(tmp_path, table):
    from densing.data import read_results, validate_results

    works_or_input_error(validate_results, table)
    path = tmp_path / "table.csv"
    table.to_csv(path, index=False)
    works_or_input_error(read_results, path)


@SETTINGS
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".csv", ".json"]))
def test_random_bytes_through_the_cli(tmp_path, run_cli, data, suffix):
    path = tmp_path / f"targets{suffix}"
    path.write_bytes(data)
    code, _, err = run_cli("density", "--fit", FIT, "--targets", path)
    assert code in (0, 2)
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("error: ")


@pytest.mark.parametrize("case", ["percent", "billions"])
def test_the_fuzzers_reach_the_new_checks(case):
    """The checks the fuzzers exercise exist: a percentage and a size in billions are refused."""
    from densing.data import validate_results

    row = {"model": "m", "benchmark": "b", "metric": "acc", "value": 0.5, "params": 7e9}
    row.update(value=65) if case == "percent" else row.update(params=7)
    with pytest.raises(InputError, match="percentage" if case == "percent" else "billion"):
        validate_results(pd.DataFrame([row]))


@SETTINGS
@given(table=tidy_tables())
def test_random_tidy_tables_through_the_cli(tmp_path, run_cli, table):
    path = tmp_path / "targets.csv"
    table.to_csv(path, index=False)
    code, _, err = run_cli("density", "--fit", FIT, "--targets", path)
    assert code in (0, 2)
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("error: ")


def _table_cells(field, bad: bool):
    """Cells a reading accepts, of every kind a table holds (numbers, texts, repeats, blanks); with ``bad``, any cell
    now and then."""
    good = {
        "model": st.sampled_from(["m1", " m2 ", "M1", "org/m-3"]),
        "benchmark": st.sampled_from(["mmlu", "gsm8k "]),
        "metric": st.sampled_from(["acc", "acc", "score", "bleu"]),
        "value": st.one_of(st.floats(0, 1), st.integers(0, 1), st.sampled_from([0.5, "0.25"])),
        "params": st.sampled_from([7e9, 7000000000, "7B", "1.1b", 350e6]),
        "train_tokens": st.sampled_from([None, float("nan"), 2e12, "2T", 2000000000000]),
        "active_params": st.sampled_from([None, float("nan"), 1e9]),
        "loss": st.sampled_from([None, float("nan"), 1.5, 0.0]),
        "loss_unit": st.sampled_from([None, "nats", " bpb"]),
        "stderr": st.sampled_from([None, float("nan"), 0.01, 0.4]),
        "n_shot": st.sampled_from([None, 0, 5, 5.0, "3"]),
        "release_date": st.sampled_from([None, "2023-02-24", "2024-05", " 2023-02-24", ""]),
        "family": st.sampled_from([None, "Llama", 1, 1.0, ""]),
        "source": st.sampled_from([None, "hf", float("nan")]),
    }
    return st.one_of(good[field], good[field], cells) if bad else good[field]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_table_read_a_column_at_a_time_is_the_table_read_row_by_row(data):
    """validate_results reads a column at a time (each distinct text once); the values are those of the row-by-row
    reading, and a table the row reading refuses (its error naming the first row and field) is left to it."""
    from densing.data.schema import COLUMNS as ALL, _by_columns, _read_row

    fields = ["model", "benchmark", "metric", "value", "params"] + data.draw(
        st.lists(
            st.sampled_from(
                [
                    "train_tokens",
                    "active_params",
                    "loss",
                    "loss_unit",
                    "stderr",
                    "n_shot",
                    "release_date",
                    "family",
                    "source",
                ]
            ),
            unique=True,
        )
    )
    n = data.draw(st.integers(1, 6))
    bad = data.draw(st.booleans())
    frame = pd.DataFrame({f: [data.draw(_table_cells(f, bad)) for _ in range(n)] for f in fields})
    rows: dict = {c: [] for c in ALL}
    try:
        for i, rec in enumerate(frame.to_dict("records"), start=1):
            _read_row(rec, f"row {i}", rows)
    except InputError:
        event("refused")
        assert _by_columns(frame) is None
        return
    event("read")
    found = _by_columns(frame)
    assert found is not None
    for column in ALL:
        assert [repr(v) for v in found[column]] == [repr(v) for v in rows[column]], column


def test_equal_cells_of_other_types_are_read_each_as_itself():
    """1 and 1.0 (and 0.0 and -0.0) are equal keys but not equal texts: a family column holding both reads "1" and
    "1.0", as row by row."""
    from densing.data.schema import _by_columns

    frame = pd.DataFrame(
        {
            "model": ["a", "b", "c", "d"],
            "benchmark": "mmlu",
            "metric": "acc",
            "value": 0.5,
            "params": 7e9,
            "family": pd.Series(["Llama", 1, 1.0, -0.0], dtype=object),
            "source": pd.Series([0.0, -0.0, "x", None], dtype=object),
        }
    )
    found = _by_columns(frame)
    assert found["family"] == ["Llama", "1", "1.0", "-0.0"] and found["source"] == ["0.0", "-0.0", "x", None]
