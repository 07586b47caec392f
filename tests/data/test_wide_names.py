"""A wide results table's columns are read by the names contract of scores files (:mod:`densing.data.names`): a
score column under any name of its benchmark reads the same rows, a column that names nothing is refused naming it,
and every shipped target table reads as before, its own columns kept beside the scores."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import REPO_ROOT

from densing import registry
from densing.data import read_results
from densing.errors import InputError

PUBLIC = REPO_ROOT / "results" / "public_models.csv"


def _copy(tmp_path, renamed: dict, extra: dict | None = None):
    table = pd.read_csv(PUBLIC, dtype=str).rename(columns=renamed).assign(**(extra or {}))
    path = tmp_path / "copy.csv"
    table.to_csv(path, index=False)
    return path


def _key(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["model", "benchmark", "value"]].sort_values(["model", "benchmark"]).reset_index(drop=True)


@pytest.mark.parametrize(
    "renamed",
    [
        {
            "leaderboard_bbh": "BBH",
            "leaderboard_math_hard": "MATH-hard",
            "leaderboard_mmlu_pro": "MMLU-Pro",
        },  # as shown
        {"MMLU": "mmlu", "HellaSwag": "hellaswag", "Winograd": "winogrande"},  # ids and lm-eval's task names
    ],
)
def test_a_score_column_under_another_name_of_its_benchmark_reads_the_same_rows(tmp_path, renamed):
    shipped = read_results(PUBLIC)
    read = read_results(_copy(tmp_path, renamed))
    assert read["benchmark"].nunique() == shipped["benchmark"].nunique() == 14
    pd.testing.assert_frame_equal(_key(read), _key(shipped))


@pytest.mark.parametrize(
    "renamed,extra,named,hint",
    [
        ({"MMLU": "MMLUU"}, None, "MMLUU", "'mmlu'"),
        ({"HellaSwag": "Hellaswog"}, None, "Hellaswog", "'hellaswag'"),
        ({}, {"notes": "checked"}, "notes", None),
    ],
)
def test_a_column_that_names_nothing_is_refused_naming_it(tmp_path, renamed, extra, named, hint):
    path = _copy(tmp_path, renamed, extra)
    with pytest.raises(InputError) as refused:
        read_results(path)
    message = str(refused.value)
    assert (
        message.startswith(f"{path}: column '{named}': '{named}' is no benchmark densing knows") and "\n" not in message
    )
    assert (f"did you mean {hint}" in message) if hint else "did you mean" not in message


def test_two_columns_of_one_benchmark_are_refused(tmp_path):
    path = _copy(tmp_path, {}, {"mmlu": "0.5"})
    with pytest.raises(InputError, match=r"columns 'MMLU', 'mmlu' all name benchmark 'mmlu'; keep one"):
        read_results(path)


@pytest.mark.parametrize("name", list(registry.tables()))
def test_each_registered_table_reads_with_its_own_columns_kept(name):
    """Every shipped target table reads through the contract; its columns that are no scores stay columns."""
    found = registry.table(name)
    header = pd.read_csv(found.path, nrows=0).columns
    read = read_results(found.path)
    kept = {"derivation", "parent", "date_source", "date_confidence", "family", "source"} & set(header)
    assert kept <= set(read.columns) and set(read["benchmark"]) >= {b for _, (_, s) in found.sets.items() for b in s}
