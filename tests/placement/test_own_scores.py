"""Your scores on the chart: a one-model scores file — a row of the public table's layout, or lm-eval's results JSON —
placed against the headline of the shipped public table, from the command line and from ``densing.place``."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO_ROOT

from densing.present.placed import placed_words, protocol_words

FIXTURES = Path(__file__).parent / "fixtures"
LM_EVAL = FIXTURES / "lm_eval_results.json"
#: The public table's model whose scores the new model's file copies (the lm-eval fixture holds the same scores).
COPIED = "Qwen/Qwen2-7B"
NEW = "my-org/my-model-7b"


@pytest.fixture(scope="module")
def measurement():
    from densing import paths
    from densing.data import read_results
    from densing.registry import table_for_path as for_path
    from densing.trend.measure import measure_trend

    return measure_trend(
        read_results(paths.DEFAULT_DENSITY_TARGETS), n_boot=40, table=for_path(paths.DEFAULT_DENSITY_TARGETS)
    )


@pytest.fixture
def one_row(tmp_path) -> Path:
    """A copy of one row of results/public_models.csv under a new model's name and family."""
    table = pd.read_csv(REPO_ROOT / "results" / "public_models.csv", dtype=str)
    row = table[table["model"] == COPIED].assign(model=NEW, family="MyModel")
    path = tmp_path / "my_model.csv"
    row.to_csv(path, index=False)
    return path


def _placed(result) -> pd.Series:
    frame = result.to_frame()
    assert list(frame["model"]) == [NEW]
    return frame.iloc[0]


def test_a_one_row_table_gets_the_density_the_headline_gives_its_scores(one_row, measurement):
    import densing

    r = _placed(densing.place(one_row, measurement=measurement))
    headline = measurement.densities.set_index("model").loc[COPIED]
    assert r["reference"] == measurement.inversion.name  # the headline's reference, fitted on the public table
    assert math.isclose(r["density"], headline["density"], rel_tol=1e-12)  # inverted with the headline's s²
    assert r["density_ci_low"] < r["density"] < r["density_ci_high"]
    assert r["band"] in ("above", "within", "below")
    low, high = r["frontier_density_ci_low"], r["frontier_density_ci_high"]
    assert r["band"] == ("above" if r["density"] > high else "below" if r["density"] < low else "within")
    assert f"{r['band']} the band" in placed_words(r)


def test_the_suite_names_the_scores_file_not_its_folders(one_row, measurement):
    """The report's "suite" card shows what the placement was scored on: the file's name, no path of the machine."""
    import densing

    placed = densing.place(one_row, measurement=measurement)
    assert placed.suite == "my_model.csv" and protocol_words(placed) == "scores from my_model.csv"
    assert str(one_row.parent) not in protocol_words(placed)


def test_lm_eval_results_json_is_placed_like_the_table(one_row, measurement):
    import densing

    from_table = _placed(densing.place(one_row, measurement=measurement))
    from_json = _placed(densing.place(LM_EVAL, release_date="2024-06-07", measurement=measurement))
    assert from_json["params"] == 7e9  # config.model_num_parameters
    assert set(from_json["inverted"].split(",")) == set(measurement.inversion.benchmarks)
    assert math.isclose(from_json["density"], from_table["density"], rel_tol=0.05)
    assert from_json["band"] == from_table["band"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["csv", "json"])
def test_the_command_line_places_a_scores_file_and_ends_with_the_answer(kind, one_row, run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")  # the answer with ρ's and N̂'s intervals is one line of a wide terminal
    args = [str(one_row)] if kind == "csv" else [str(LM_EVAL), "--release-date", "2024-06-07"]
    code, out, err = run_cli("measure", "--scores", *args, "--n-boot", "40")
    assert code == 0, err
    last = out.rstrip("\n").split("\n")[-1]
    assert last.startswith(f"{NEW}: ρ = ") and "the frontier's band" in last, last
    assert len(out.splitlines()) <= 40


def test_a_scores_file_without_a_date_is_one_line(run_cli):
    code, out, err = run_cli("measure", "--scores", str(LM_EVAL))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "field 'release_date'" in err and "--release-date" in err


def test_measure_needs_models_or_scores(run_cli):
    code, _, err = run_cli("measure")
    assert code == 2 and "--models" in err and "--scores" in err


def test_band_position_reads_a_bound_only_on_its_side():
    from densing.placement.place import band_position

    assert band_position("value", 3.0, 1.0, 2.0) == "above"
    assert band_position("value", 1.5, 1.0, 2.0) == "within"
    assert band_position("value", 0.5, 1.0, 2.0) == "below"
    assert band_position("upper bound", 0.5, 1.0, 2.0) == "below"
    assert band_position("upper bound", 1.5, 1.0, 2.0) == "undetermined"
    assert band_position("lower bound", 2.5, 1.0, 2.0) == "above"
    assert band_position("lower bound", 0.5, 1.0, 2.0) == "undetermined"
    assert band_position("value", 1.5, math.nan, 2.0) == "undetermined"


def test_a_measurement_of_another_table_is_refused_in_one_line():
    """``densing.place(table=...)`` places against that table's headline: a measurement of another table is refused."""
    from types import SimpleNamespace

    import densing

    with pytest.raises(
        densing.InputError,
        match=r"^measurement: a headline measured on the public table, not on the "
        r"Open LLM Leaderboard v2's official base models",
    ):
        densing.place(FIXTURES / "v2_scores.csv", table="openllm_v2", measurement=SimpleNamespace(table_name="public"))


def test_a_model_below_the_references_smallest_member_is_placed_as_a_bound(tmp_path, measurement, capsys):
    """SmolLM-135M's scores under a new name: the headline's reference has no member that small, its law identifies no
    size there (docs/method.md, "The identified region"), so the placed density is an upper bound at the smallest
    member's size, said in one line by ``densing.place`` and by ``densing measure``."""
    import densing
    from densing.laws.region import member_log_sizes
    from tests.cli_run import run

    table = pd.read_csv(REPO_ROOT / "results" / "public_models.csv", dtype=str)
    path = tmp_path / "tiny.csv"
    table[table["model"] == "HuggingFaceTB/SmolLM-135M"].assign(model="my-org/tiny-135m", family="Tiny").to_csv(
        path, index=False
    )
    r = densing.place(path, measurement=measurement).to_frame().iloc[0]
    smallest = math.exp(member_log_sizes(measurement.inversion)[0])
    assert r["reading"] == "upper bound" and r["below_members"]
    assert math.isclose(r["density"], smallest / 135e6, rel_tol=1e-9)
    assert "lie below the reference's smallest member" in placed_words(r)
    code, out, _ = run(["measure", "--scores", str(path), "--n-boot", "40"], capsys)
    assert code == 0
    lines = [line for line in out.splitlines() if "smallest member" in line]
    assert lines and "ρ ≤" in " ".join(lines)
