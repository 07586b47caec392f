"""One engine per density: ``densing density``'s rows and the report's per-model rows are the same numbers."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from densing.data import read_results
from densing.data.benchmarks import with_stderr
from densing.laws.density import compute_density, density_at_own_tokens, density_table
from densing.laws.inversion import PerBenchmark
from densing.laws.reference_fit import ReferenceFit
from densing.trend.targets import trend_targets

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT / "results" / "public_models.csv"


def _report_rows(fit: ReferenceFit, public: pd.DataFrame) -> pd.DataFrame:
    """The report's per-model densities for ``--fit``: :func:`densing.trend.measure.measure_trend`'s call."""
    inversion = PerBenchmark(fit, fit.d0)
    models, _ = trend_targets(with_stderr(public), inversion)
    return density_table(models, inversion, seed=0)


@pytest.mark.parametrize("name", ["llama-3.1_mmlu", "qwen1.5_math_hard"])
def test_density_cli_rows_agree_with_the_reports_per_model_rows(name, run_cli, tmp_path):
    fit = ReferenceFit.load(ROOT / "reference_fits" / f"family_{name}.json")
    public = read_results(PUBLIC)
    report = _report_rows(fit, public).set_index("model")
    assert len(report) > 10
    table = tmp_path / "targets.csv"
    public[public["model"].isin(report.index)].to_csv(table, index=False)  # the models the report inverts
    code, out, err = run_cli("density", "--fit", name, "--targets", table, "--format", "json")
    assert code == 0, err
    cli = pd.DataFrame(json.loads(out)).set_index("model")
    assert sorted(cli.index) == sorted(report.index)
    cli = cli.loc[report.index]
    for column in ("density", "density_ci_low", "density_ci_high", "effective_params"):
        np.testing.assert_allclose(cli[column].astype(float), report[column].astype(float), rtol=1e-12, err_msg=column)
    assert list(cli["bound"]) == list(report["bound"])


def test_a_censored_density_is_the_same_bound_in_both_tables():
    """A score at the floor is an upper bound ρ ≤ x in both tables, never 0 with a reason only."""
    fit = ReferenceFit.load(ROOT / "reference_fits" / "family_llama-3.1_mmlu.json")
    public = read_results(PUBLIC)
    report = _report_rows(fit, public).set_index("model")
    bounded = report[report["bound"] != ""]
    assert len(bounded)
    mine = compute_density(public[public["model"].isin(report.index)], fit).set_index("model").loc[bounded.index]
    assert (mine["bound"] == bounded["bound"]).all()
    assert (mine["density"] > 0).all() and np.isfinite(mine["density"]).all()
    np.testing.assert_allclose(mine["density"], bounded["density"], rtol=1e-12)
    assert mine["censored"].notna().all()  # the reason stays beside the bound


def test_density_at_own_tokens_is_compute_density_at_each_token_count():
    """``--d0 train_tokens`` and the OLMo ladder's table: one compute_density per token count."""
    fit = ReferenceFit.load(ROOT / "reference_fits" / "olmo_arc_easy_two_step.json")
    targets = pd.DataFrame(
        {
            "model": ["a", "b", "c"],
            "benchmark": ["olmes_arc_easy"] * 3,
            "metric": ["len_norm"] * 3,
            "value": [0.6, 0.7, 0.65],
            "stderr": [0.01, 0.01, 0.01],
            "params": [1e9, 7e9, 1e9],
            "train_tokens": [1e11, 4e12, 1e11],
        }
    )
    out = density_at_own_tokens(targets, [fit]).set_index("model")
    for tokens, rows in targets.groupby("train_tokens"):
        alone = compute_density(rows, fit, d0=tokens).set_index("model")
        pd.testing.assert_frame_equal(out.loc[alone.index, alone.columns], alone, check_dtype=False)


def test_density_at_own_tokens_without_token_counts_is_an_input_error():
    from densing.errors import InputError

    fit = ReferenceFit.load(ROOT / "reference_fits" / "olmo_arc_easy_two_step.json")
    targets = pd.DataFrame(
        {
            "model": ["a"],
            "benchmark": ["olmes_arc_easy"],
            "metric": ["len_norm"],
            "value": [0.6],
            "params": [1e9],
            "train_tokens": [np.nan],
        }
    )
    with pytest.raises(InputError, match="no train_tokens column with values"):
        density_at_own_tokens(targets, [fit], source="t.csv")


@pytest.mark.parametrize("option", [("--d0", "3e11"), ("--d0", "train_tokens"), ("--include-poor-fits",)])
def test_the_headline_default_refuses_what_needs_a_fit(option, run_cli):
    """Without --fit the reference is the headline's (a family at its own budget, inverted jointly): no D0, no
    geometric mean to fold a poor fit into — refused in one line, never ignored."""
    code, out, err = run_cli("density", *option)
    assert code == 2 and out == "" and err.count("\n") == 1 and option[0] in err and "--fit" in err


def test_own_draws_give_a_row_the_same_interval_whatever_rows_stand_beside_it():
    """``own_draws``: a row's interval from a generator of the run's seed and its own numbers, not its name nor its
    place among the rows; another seed draws another interval (the row's numbers do not fix it alone)."""
    from densing.laws.density import solve_densities

    fit = ReferenceFit.load(ROOT / "reference_fits" / "family_llama-3.1_mmlu.json")
    inversion = PerBenchmark(fit, fit.d0)
    models, _ = trend_targets(with_stderr(read_results(PUBLIC)), inversion)
    one = models.iloc[[3]]
    alone = solve_densities(one, inversion, own_draws=True)
    beside = solve_densities(pd.concat([models.iloc[:3], one.assign(model="renamed")]), inversion, own_draws=True)
    assert (beside.low[-1], beside.high[-1]) == (alone.low[0], alone.high[0])
    other = solve_densities(one, inversion, seed=1, own_draws=True)
    assert other.log_density[0] == alone.log_density[0] and (other.low[0], other.high[0]) != (
        alone.low[0],
        alone.high[0],
    )
