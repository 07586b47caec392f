"""A table's own ``lab`` column (densing.data.labs, densing.data.schema.LAB_COLUMN) reaches the headline through the
command line and the API: the targets' labs (the draws' outer unit) and the references' labs (the pooling's, and the
agreement test across labs). The shipped public table with a ``lab`` column set to each row's family makes every family
a lab of its own (22 target labs, the two Qwen references two labs, so the agreement test runs); with one lab for every
row, the references are one lab's and the test cannot run."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from cli_run import run

import densing
from densing.data.labs import lab_of
from densing.errors import InputError
from tests.conftest import REPO_ROOT

PUBLIC = REPO_ROOT / "results" / "public_models.csv"
NOT_TESTABLE = "one lab's (One Lab): agreement across labs not testable"


def _public_with_labs(folder, labs) -> str:
    """The shipped public table as text, with a ``lab`` column (``labs``: a value for every row, or a function of the
    table giving one per row) after ``family``, written into ``folder``."""
    table = pd.read_csv(PUBLIC, dtype=str)
    table.insert(table.columns.get_loc("family") + 1, "lab", labs(table) if callable(labs) else labs)
    path = folder / "public_with_labs.csv"
    table.to_csv(path, index=False)
    return str(path)


def _each_family(table: pd.DataFrame) -> pd.Series:
    return table["family"]


def _headline(argv, capsys) -> dict:
    code, out, err = run(["trend", *argv, "--format", "json"], capsys)
    assert code == 0, err
    return json.loads(out)


def test_a_lab_column_of_families_makes_each_family_a_lab_on_the_command_line(tmp_path, capsys):
    plain = _headline(["--results", str(PUBLIC)], capsys)
    labelled = _headline(["--results", _public_with_labs(tmp_path, _each_family)], capsys)
    before, after = plain["headline"]["labs"], labelled["headline"]["labs"]
    assert len(before["targets"]) == 15 and len(after["targets"]) == 22
    assert all(list(families) == [lab] for lab, families in after["targets"].items())
    assert [r["lab"] for r in before["references"]] == [lab_of("Qwen1.5")] * 2
    assert [r["lab"] for r in after["references"]] == ["Qwen1.5", "Qwen2"]
    assert plain["rows"][0]["heterogeneity_df"] == 0 and labelled["rows"][0]["heterogeneity_df"] == 1
    assert "agreement across labs not testable" not in labelled["why"]


def test_one_lab_for_every_row_says_the_agreement_test_cannot_run(tmp_path, capsys):
    path = _public_with_labs(tmp_path, "One Lab")
    found = _headline(["--results", path], capsys)
    assert list(found["headline"]["labs"]["targets"]) == ["One Lab"]
    assert found["rows"][0]["heterogeneity_df"] == 0 and NOT_TESTABLE in found["why"]
    code, out, err = run(["trend", "--results", path, "--detail"], capsys)
    assert code == 0, err
    assert NOT_TESTABLE in " ".join(out.split())


def test_the_api_reads_the_lab_column_of_a_file_and_of_a_frame(tmp_path):
    from_file = densing.fit_trend(
        densing.read_results(_public_with_labs(tmp_path, _each_family)), n_boot=100, n_boot_share=0
    )
    public = densing.read_results(PUBLIC)
    from_frame = densing.fit_trend(public.assign(lab=public["family"]), n_boot=100, n_boot_share=0)
    plain = densing.fit_trend(public, n_boot=100, n_boot_share=0)
    assert plain.labs == (lab_of("Qwen2"),) and len(plain.target_labs) == 15
    for trend in (from_file, from_frame):
        assert trend.labs == ("Qwen1.5", "Qwen2") and len(trend.target_labs) == 22
    one = densing.fit_trend(public.assign(lab="One Lab"), n_boot=100, n_boot_share=0)
    assert one.labs == ("One Lab",) and one.heterogeneity_df == 0 and from_frame.heterogeneity_df == 1


def test_an_empty_lab_falls_back_to_the_family_then_to_labs_csv():
    """Qwen2's rows give no lab: its file's lab; Qwen1.5's give one on a single row: every Qwen1.5 model is in it."""
    public = densing.read_results(PUBLIC)
    first_qwen15 = public.index[public["family"] == "Qwen1.5"][0]
    labs = pd.Series(pd.NA, index=public.index, dtype=object)
    labs[first_qwen15] = "Elsewhere"
    labs[public["family"] == "Llama-2"] = "   "  # blank: no lab given
    trend = densing.fit_trend(public.assign(lab=labs), n_boot=100, n_boot_share=0)
    assert trend.labs == ("Elsewhere", lab_of("Qwen2"))
    targets = dict(trend.target_labs)
    assert "Qwen1.5" in targets["Elsewhere"] and "Qwen1.5" not in targets[lab_of("Qwen2")]
    assert "Llama-2" in targets[lab_of("Llama-2")]


@pytest.mark.parametrize("value", [3.0, True])
def test_a_lab_that_is_no_text_is_refused_naming_its_row(value):
    public = densing.read_results(PUBLIC)
    labs = public["family"].astype(object)
    labs.iloc[4] = value
    with pytest.raises(
        InputError, match=r"targets: row 5: field 'lab': expected the name of the lab .*got " + repr(value)
    ):
        densing.fit_trend(public.assign(lab=labs), n_boot=100, n_boot_share=0)
