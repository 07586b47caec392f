"""Every model of a scores file answered on its own: a placed model's interval comes from its own draws (seeded by the
run's seed and its own numbers, not its name) and the headline's s², so it is the same alone, beside another model,
or as one of five identical rows; the closing lines of ``densing measure`` name every model, ``--allow-missing`` too,
and past five count them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

HEADER = "model,params,release_date,MMLU,BBH,MATH-hard,HumanEval\n"
#: One model's scores (those of tests/placement/fixtures/lm_eval_results.json), written under any name.
SCORES = "7e9,2024-06-07,0.7194919059961393,0.5287277642,0.188066465,0.4695121951"
OTHER = "other/model-3b,3e9,2024-03-01,0.55,0.40,0.08,0.25\n"
INTERVAL = ["density", "density_ci_low", "density_ci_high", "effective_params_ci_low", "effective_params_ci_high"]


@pytest.fixture(scope="module")
def measurement():
    from densing import paths
    from densing.data import read_results
    from densing.registry import table_for_path
    from densing.trend.measure import measure_trend

    return measure_trend(
        read_results(paths.DEFAULT_DENSITY_TARGETS),
        n_boot=40,
        table=table_for_path(paths.DEFAULT_DENSITY_TARGETS),
        sections=("densities",),
    )


def _file(tmp_path, name: str, rows: str):
    path = tmp_path / name
    path.write_text(HEADER + rows)
    return path


def _copies(count: int) -> str:
    return "".join(f"my-org/copy-{i},{SCORES}\n" for i in range(1, count + 1))


def _intervals(path, measurement, **options) -> pd.DataFrame:
    import densing

    return densing.place(path, measurement=measurement, **options).to_frame().set_index("model")[INTERVAL]


def test_five_identical_models_get_five_identical_intervals_each_the_models_alone(tmp_path, measurement):
    alone = _intervals(_file(tmp_path, "one.csv", f"my-org/my-model-7b,{SCORES}\n"), measurement).iloc[0]
    five = _intervals(_file(tmp_path, "five.csv", _copies(5)), measurement)
    assert len(five) == 5
    for model, row in five.iterrows():
        np.testing.assert_array_equal(row.to_numpy(), alone.to_numpy(), err_msg=model)


def test_a_models_interval_is_the_same_alone_and_beside_another(tmp_path, measurement):
    alone = _intervals(_file(tmp_path, "one.csv", f"my-org/my-model-7b,{SCORES}\n"), measurement)
    first = _intervals(_file(tmp_path, "first.csv", f"my-org/my-model-7b,{SCORES}\n" + OTHER), measurement)
    second = _intervals(_file(tmp_path, "second.csv", OTHER + f"my-org/my-model-7b,{SCORES}\n"), measurement)
    other = _intervals(_file(tmp_path, "other.csv", OTHER), measurement)
    for pair in (first, second):
        np.testing.assert_array_equal(pair.loc["my-org/my-model-7b"].to_numpy(), alone.iloc[0].to_numpy())
        np.testing.assert_array_equal(pair.loc["other/model-3b"].to_numpy(), other.iloc[0].to_numpy())


def test_the_command_line_alone_gives_the_apis_interval_in_a_file_of_many(tmp_path, run_cli):
    """``densing measure --scores`` of one model and ``densing.place`` of a file holding it four times beside another
    (each measuring its own headline, with the same draws) give that model one interval."""
    import densing

    rows = tmp_path / "rows.csv"
    code, _, err = run_cli(
        "measure",
        "--scores",
        _file(tmp_path, "one.csv", f"my-org/my-model-7b,{SCORES}\n"),
        "--n-boot",
        "40",
        "--csv",
        rows,
    )
    assert code == 0, err
    printed = pd.read_csv(rows)[INTERVAL].iloc[0]
    api = densing.place(_file(tmp_path, "many.csv", _copies(4) + OTHER), n_boot=40).to_frame().set_index("model")
    for model in (f"my-org/copy-{i}" for i in range(1, 5)):
        np.testing.assert_allclose(
            api.loc[model, INTERVAL].to_numpy(float), printed.to_numpy(float), rtol=1e-5, err_msg=model
        )  # the CSV keeps six digits


def _closing(out: str, count: int) -> list[str]:
    """The last ``count`` lines of a wide terminal's output."""
    return out.rstrip("\n").split("\n")[-count:]


@pytest.mark.slow
def test_the_closing_lines_name_all_five_models(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli("measure", "--scores", _file(tmp_path, "five.csv", _copies(5)), "--n-boot", "40")
    assert code == 0, err
    lines = _closing(out, 5)
    assert [line.split(": ", 1)[0] for line in lines] == [f"my-org/copy-{i}" for i in range(1, 6)], lines
    assert len({line.split(": ", 1)[1] for line in lines}) == 1, lines  # five identical models, one answer


@pytest.mark.slow
def test_with_allow_missing_every_model_is_named(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    path = tmp_path / "missing.csv"
    path.write_text(
        "model,params,release_date,MMLU,BBH,MATH-hard\na/one,7e9,2024-06-07,0.71,0.52,0.2\n"
        "b/two,3e9,2024-03-01,0.55,0.40,0.1\nc/three,1e9,2024-01-01,0.40,0.30,0.05\n"
    )
    code, out, err = run_cli("measure", "--scores", path, "--n-boot", "40", "--allow-missing")
    assert code == 0, err
    lines = _closing(out, 3)
    for line, model in zip(lines, ("a/one", "b/two", "c/three")):
        assert line.startswith(f"{model} without HumanEval (no score; placed from MMLU, BBH, MATH-hard): ρ"), line


@pytest.mark.slow
def test_past_five_models_the_closing_line_counts_them_and_says_where_the_table_is(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    rows = tmp_path / "rows.csv"
    code, out, err = run_cli(
        "measure", "--scores", _file(tmp_path, "seven.csv", _copies(7)), "--n-boot", "40", "--csv", rows
    )
    assert code == 0, err
    last = _closing(out, 1)[0]
    band = pd.read_csv(rows)["band"].iloc[0]
    assert last == (
        f"7 models placed (7 {band} the frontier's band): each one's ρ, N̂ and band are in the table above "
        f"and in {rows}."
    ), last


@pytest.mark.slow
def test_past_five_models_with_allow_missing_the_closing_line_counts_those_placed_without_a_score(
    tmp_path, run_cli, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "200")
    path = tmp_path / "six.csv"
    path.write_text(HEADER + _copies(4) + "".join(f"short/m-{i},7e9,2024-06-07,0.71,0.52,0.2,\n" for i in (1, 2)))
    code, out, err = run_cli("measure", "--scores", path, "--n-boot", "40", "--allow-missing")
    assert code == 0, err
    last = _closing(out, 1)[0]
    assert last.startswith("6 models placed (") and "; 2 of them placed without a score the headline inverts): " in last
    assert last.endswith("are in the table above."), last
