"""Ladder fits: planted recovery with final points and E, rules that never see held-out runs."""

import numpy as np
import pandas as pd
import pytest

from densing.data import validate_results
from densing.laws import forms
from densing.laws.fit_schema import final_points, past_run_fraction
from densing.laws.olmo.ladder import fit_ladder, select_options
from densing.laws.reference import fit_reference

LOSS = dict(a=30.0, alpha=0.3, b=60.0, beta=0.28, E=0.5)
SIGMOID = dict(c=0.7, gamma=-12.0, l=0.8, d=0.25)


def _ladder(seed=0, sizes=(1.5e8, 3e8, 6e8, 1.2e9, 2.4e9), multiples=(1, 2, 5, 10)):
    """Runs of one recipe: each logs 20 checkpoints whose loss decays towards the run's final loss."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        for m in multiples:
            final_tokens = 20 * n * m
            for k, tokens in enumerate(np.linspace(final_tokens / 20, final_tokens, 20)):
                loss = forms.loss_law(n, tokens, **LOSS) * np.exp(rng.normal(0, 0.002))
                score = forms.performance_law(loss, **SIGMOID) + rng.normal(0, 0.004)
                run = f"r{int(n / 1e6)}m-{m}x"
                rows.append(
                    dict(
                        model=f"{run}@{k}",
                        run=run,
                        benchmark="olmes_hellaswag",
                        metric="acc",
                        value=score,
                        loss=loss,
                        params=n,
                        train_tokens=tokens,
                        loss_unit="bpb",
                    )
                )
    return validate_results(pd.DataFrame(rows), source="planted")


def test_final_points_take_the_mean_of_each_runs_end():
    points = pd.DataFrame(
        {
            "model": list("abcdef"),
            "params": 1.0,
            "train_tokens": [1, 2, 3, 4, 5, 6.0],
            "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
            "loss": [6, 5, 4, 3, 2, 1.0],
            "run": ["x"] * 6,
        }
    )
    end = final_points(points, last=3)
    assert len(end) == 1 and end["score"].iloc[0] == pytest.approx(0.5) and end["loss"].iloc[0] == pytest.approx(2.0)
    assert end["train_tokens"].iloc[0] == 6.0
    assert past_run_fraction(points, 0.5)["model"].tolist() == ["c", "d", "e", "f"]


def test_two_step_with_final_points_recovers_the_planted_law_and_E():
    table = _ladder()
    fit = fit_reference(
        table,
        "olmes_hellaswag",
        law="two-step",
        irreducible=True,
        loss_points="final",
        min_run_fraction=0.1,
        n_boot=0,
        loss_scale=0.01,
    )
    assert len(fit.loss_points) == 20  # one point per run
    assert fit.params["E"] == pytest.approx(LOSS["E"], abs=0.08)
    assert fit.params["alpha"] == pytest.approx(LOSS["alpha"], abs=0.08)
    assert fit.params["beta"] == pytest.approx(LOSS["beta"], abs=0.08)
    assert fit.params["gamma"] == pytest.approx(SIGMOID["gamma"], rel=0.15)
    # a larger model of the same recipe is predicted within a couple of points of accuracy
    truth = forms.performance_law(forms.loss_law(1e10, 2e11, **LOSS), **SIGMOID)
    assert float(fit.predict_score(1e10, 2e11)) == pytest.approx(truth, abs=0.02)
    # the bootstrap resamples runs
    boot = fit_reference(
        table, "olmes_hellaswag", law="two-step", irreducible=True, loss_points="final", n_boot=4, seed=1
    )
    assert boot.provenance["bootstrap_unit"] == "series" and boot.provenance["n_runs"] == 20


def test_options_are_chosen_inside_the_ladder_and_never_see_held_out_runs():
    table = _ladder(1)
    options = select_options(table, {"olmes_hellaswag": "acc"})
    # the choice holds out the largest size of the ladder it is given, nothing else
    assert options.held_size == 2.4e9
    assert options.irreducible["olmes_hellaswag"] is True  # the planted law has E = 0.5
    # a held-out model far larger than the ladder is in the table: it never enters a fit
    big = _ladder(2, sizes=(7e9,), multiples=(200,))
    big["run"] = "target"
    big["model"] = "target@" + big["model"].str.split("@").str[1]
    reference = table  # the caller passes the ladder only; the fit keeps each run's final point, which we check
    fits, _ = fit_ladder(reference, {"olmes_hellaswag": "acc"}, options=options, n_boot=3)
    runs = {p[5] for p in fits["olmes_hellaswag"].loss_points}
    assert "target" not in runs and runs == set(table["run"])


def test_ladder_fits_keep_each_runs_final_point_and_not_the_checkpoints(tmp_path):
    table = _ladder(4)
    fits, options = fit_ladder(table, {"olmes_hellaswag": "acc"}, n_boot=2)
    fit = fits["olmes_hellaswag"]
    full = fit_reference(table, "olmes_hellaswag", metric="acc", n_boot=2, **options.fit_options("olmes_hellaswag"))
    assert len(full.points) == full.stages[1].n_points > 0 and len(full.stages[1].residuals) == len(full.points)
    assert fit.points == () and fit.stages[1].residuals == () and fit.stages[1].n_points == full.stages[1].n_points
    assert fit.loss_points == full.loss_points and fit.stages[0] == full.stages[0]
    assert fit.params == full.params and fit.bootstrap == full.bootstrap
    assert fit.stages[1].r_squared == full.stages[1].r_squared
    fit.save(tmp_path / "fit.json")
    assert type(fit).load(tmp_path / "fit.json") == fit


def test_validate_ladder_fits_only_runs_below_the_cut(tmp_path):
    from densing.laws.olmo.check import LadderValidation, validate_ladder
    from densing.present.laws import held_out_summary

    table = _ladder(3)
    table["run"] = "olmo-ladder-" + table["run"]
    result, about = validate_ladder(table, "olmes_hellaswag", "acc", max_params=2e9)
    assert isinstance(about, LadderValidation) and about.max_params == 2e9  # values; the words are present.laws'
    assert set(result["params"]) == {2.4e9}  # every held-out row is at or above the cut
    summary = held_out_summary(result, about)
    assert len(result) == 4 and summary.startswith("4 held-out model(s) with N ≥ 2e+09 (olmes_hellaswag)")
    assert summary.endswith(
        f"fit on {about.train_runs} runs below, E {'on' if about.irreducible else 'off'}, floor {about.floor}"
    )
    assert result["relative_error"].max() < 0.05


def test_rule_two_takes_the_chained_score_error_and_ties_keep_the_simpler_law():
    from densing.laws.olmo.ladder import choose_irreducible

    rows = []
    for bench, (loss_e, loss_no, score_e, score_no) in {
        "a": (0.01, 0.03, 0.05, 0.02),  # E predicts the loss better but the score worse
        "b": (0.03, 0.01, 0.01, 0.04),  # the reverse
        "c": (0.02, 0.02, 0.03, 0.030001),  # a tie on the score within 0.1%
    }.items():
        for irreducible, loss, score in ((True, loss_e, score_e), (False, loss_no, score_no)):
            for floor, bump in (("free", 0.0), ("chance", 1.0)):  # rule 2 reads the free-floor rows only
                rows.append(
                    {
                        "benchmark": bench,
                        "irreducible": irreducible,
                        "floor": floor,
                        "loss_error": loss + bump,
                        "score_error": score + bump * (not irreducible),
                    }
                )
    table = pd.DataFrame(rows)
    assert choose_irreducible(table, "score") == {"a": False, "b": True, "c": False}
    assert choose_irreducible(table, "loss") == {"a": True, "b": False, "c": False}
