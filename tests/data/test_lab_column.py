"""A table's own ``lab`` column (densing.data.schema.LAB_COLUMN) as the readers take it: a wide or tidy table keeps it
as text (a blank cell empty, a name of digits its digits), and two labs for one family are refused in one line naming
both rows."""

from __future__ import annotations

import pandas as pd
import pytest
from cli_run import run

from densing.data import read_results
from densing.errors import InputError
from tests.conftest import REPO_ROOT

PUBLIC = REPO_ROOT / "results" / "public_models.csv"


def _wide_with_labs(folder, labs: list) -> str:
    """The public table's first ``len(labs)`` rows with a ``lab`` column, written into ``folder``."""
    table = pd.read_csv(PUBLIC, dtype=str).head(len(labs))
    table.insert(1, "lab", labs)
    path = folder / "labs.csv"
    table.to_csv(path, index=False)
    return str(path)


def test_a_wide_tables_lab_column_is_kept_as_text(tmp_path):
    path = _wide_with_labs(tmp_path, ["007", "  007 ", "", "Meta"])  # rows 1-3: Yi-1.5, row 4: Yi
    table = read_results(path)
    per_model = table.drop_duplicates("model").set_index("model")["lab"]
    models = pd.read_csv(PUBLIC, dtype=str)["model"].head(4).tolist()
    assert str(table["lab"].dtype) == "string"
    assert per_model[models[0]] == "007" and per_model[models[1]] == "007" and pd.isna(per_model[models[2]])
    assert per_model[models[3]] == "Meta"


def test_a_tidy_tables_lab_column_is_kept(tmp_path):
    tidy = read_results(_wide_with_labs(tmp_path, ["A", "A", "A", "B"]))
    path = tmp_path / "tidy.csv"
    tidy.to_csv(path, index=False)
    assert read_results(path)["lab"].tolist() == tidy["lab"].tolist()


def test_two_labs_for_one_family_are_one_line_naming_both_rows(tmp_path, capsys):
    path = _wide_with_labs(tmp_path, ["01.AI", "Elsewhere", "01.AI", "01.AI"])  # two Yi-1.5 rows disagree
    with pytest.raises(
        InputError,
        match=r"labs\.csv: lines 2 and 3: field 'lab': family 'Yi-1\.5' is given labs "
        r"'01\.AI' and 'Elsewhere'",
    ):
        read_results(path)
    code, out, err = run(["trend", "--results", path], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "field 'lab'" in err
