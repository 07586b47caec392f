"""Every reader, fed random bytes or random tidy tables, either works or raises one InputError
(and through the CLI: exit 0, or one line on stderr with exit 2) — never another exception.
Random edits of a reference fit file: tests/laws/test_reference_fit.py."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from densing.errors import InputError

REPO_ROOT = Path(__file__).resolve().parents[2]
FIT = REPO_ROOT / "reference_fits" / "pythia_arc_easy_composed.json"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

cells = st.one_of(
    st.none(), st.booleans(), st.integers(-10**15, 10**15),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["", " ", "7B", "1.1b", "350M", "2T", "65", "nan", "-1", "2023-02-24", "yesterday", "acc", "bpb", "nats"]),
    st.text(max_size=12),
)
COLUMNS = ["model", "benchmark", "metric", "value", "params", "train_tokens", "release_date", "loss", "loss_unit", "stderr", "n_shot"]


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
