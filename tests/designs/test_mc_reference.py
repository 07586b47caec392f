"""The MC reference on AI2's recipe: the score law on planted checkpoints, the offset, N̂ at D0 through both steps."""

import math

import numpy as np
import pandas as pd
import pytest

from densing.designs.olmes import mc_reference as mc
from densing.errors import FitError, InputError
from densing.laws import forms
from densing.laws.reference_fit import ReferenceFit, invert_scores
from tests.conftest import OLMO_LADDER, REPO_ROOT, needs_olmo
from tools import olmes_mc_reference as build

PLANTED = {"c": 0.6, "gamma": -18.0, "l": 0.80, "d": 0.25}
LOSS = {"a": 40.0, "alpha": 0.3, "b": 300.0, "beta": 0.28, "E": 0.45}


def planted_checkpoints(seed: int = 0) -> pd.DataFrame:
    """Two runs' checkpoints: bits per byte falling over training, MC accuracy = the planted law + binomial noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for run, (start, end, count, n) in {"run-7b": (0.86, 0.74, 160, 7e9), "run-13b": (0.80, 0.70, 80, 13e9)}.items():
        loss = np.linspace(start, end, count) + rng.normal(0, 0.004, count)
        score = forms.performance_law(loss, **PLANTED)
        score = rng.binomial(1172, score) / 1172
        for k, (x, s) in enumerate(zip(loss, score)):
            rows.append(
                {"model": f"{run}@{k}", "params": n, "train_tokens": 1e10 * (k + 1), "score": s, "loss": x, "run": run}
            )
    return pd.DataFrame(rows)


def test_the_mc_score_law_recovers_planted_gamma_and_l_from_checkpoints():
    points = planted_checkpoints()
    law = build.fit_score_law(points, chance=0.25, n_boot=40, seed=1)
    p = law.stage.params
    assert p["d"] == 0.25
    assert p["gamma"] == pytest.approx(PLANTED["gamma"], rel=0.15)
    assert p["l"] == pytest.approx(PLANTED["l"], abs=0.01)
    assert p["c"] == pytest.approx(PLANTED["c"], abs=0.05)
    # the block bootstrap's interval covers the planted values
    low, high = np.quantile(law.draws, [0.005, 0.995], axis=0)
    assert low[1] <= PLANTED["gamma"] <= high[1] and low[2] <= PLANTED["l"] <= high[2]
    assert law.draws.shape == (40, 4) and law.failed == 0


def test_a_wrong_floor_is_not_recovered_so_the_test_can_fail():
    points = planted_checkpoints()
    law = build.fit_score_law(points, chance=0.40, n_boot=0)
    assert (
        abs(law.stage.params["gamma"] - PLANTED["gamma"]) > 0.15 * abs(PLANTED["gamma"])
        or abs(law.stage.params["l"] - PLANTED["l"]) > 0.01
    )


def test_block_resamples_keep_every_run_and_its_size():
    runs = np.array(["a"] * 12 + ["b"] * 7 + ["c"])
    for picks in build.block_resamples(runs, 25, seed=3, block=5):
        assert [int((runs[picks] == r).sum()) for r in "abc"] == [12, 7, 1]
    with pytest.raises(InputError, match="block"):
        build.block_resamples(runs, 2, seed=0, block=0)


def test_the_offset_is_the_mean_of_the_runs_and_its_error_adds_spread_and_binomial_terms():
    offset = mc.offset_from("mmlu", {"7b": (0.64, 0.004, 0.60, 0.004), "13b": (0.68, 0.004, 0.62, 0.004)})
    assert offset.delta == pytest.approx(0.05)
    # (Δ7 − Δ13)²/4 + Σ(σ²_off + σ²_in)/4 = 0.02²/4 + 4·0.004²/4
    assert offset.stderr == pytest.approx(math.sqrt(0.02**2 / 4 + 0.004**2))
    assert offset.benchmark == "olmes_mmlu_mc"


def planted_fit(n_draws: int = 300, noise: float = 0.01) -> ReferenceFit:
    params = {**LOSS, **PLANTED}
    names = tuple(params)
    rng = np.random.default_rng(0)
    draws = tuple(
        tuple(float(params[k]) * (1 + noise * rng.standard_normal()) if k != "d" else params[k] for k in names)
        for _ in range(n_draws)
    )
    return ReferenceFit(
        kind="two-step",
        benchmark="olmes_mmlu_mc_inloop",
        metric="acc",
        params=params,
        stages=(),
        d0=1e12,
        data_hash="planted",
        provenance={"offline_benchmark": "olmes_mmlu_mc"},
        bootstrap_names=names,
        bootstrap=draws,
        benchmarks=("olmes_mmlu_mc_inloop",),
        loss_unit="bpb",
    )


def hand_size(score: float, delta: float, d0: float) -> float:
    """Eq. 4 by hand on the planted parameters, the offline score mapped to the in-loop scale first."""
    s = score - delta
    loss = PLANTED["l"] - math.log(PLANTED["c"] / (s - PLANTED["d"]) - 1) / PLANTED["gamma"]
    return ((loss - LOSS["b"] * d0 ** -LOSS["beta"] - LOSS["E"]) / LOSS["a"]) ** (-1 / LOSS["alpha"])


@pytest.mark.parametrize("d0", [3e11, 1e12, 3e12])
def test_n_hat_at_d0_through_both_steps_and_the_offset_matches_a_hand_computation(d0):
    fit = planted_fit()
    offset = mc.Offset("mmlu", 0.04, 0.01, ())
    scores = np.array([0.55, 0.62, 0.68])
    expected = [hand_size(s, 0.04, d0) for s in scores]
    shifted = mc.offline_reference(fit, offset, seed=0)
    assert shifted.effective_params(scores, d0) == pytest.approx(expected, rel=1e-9)
    assert shifted.benchmark == "olmes_mmlu_mc" and shifted.metric == "score"


def test_the_offset_moves_the_point_estimate_by_the_expected_amount_and_its_draws_carry_its_error():
    fit = planted_fit(n_draws=4000, noise=0.0)
    score = np.array([0.62])
    base = mc.offline_reference(fit, mc.Offset("mmlu", 0.0, 0.0, ())).effective_params(score)[0]
    moved = mc.offline_reference(fit, mc.Offset("mmlu", 0.03, 0.0, ())).effective_params(score)[0]
    assert base == pytest.approx(hand_size(0.62, 0.0, 1e12), rel=1e-9)
    assert moved == pytest.approx(hand_size(0.62, 0.03, 1e12), rel=1e-9)
    assert moved < base  # a score worth less on the in-loop scale needs a smaller model
    carried = mc.offline_reference(fit, mc.Offset("mmlu", 0.03, 0.02, ()), seed=5)
    d = np.asarray(carried.bootstrap)[:, carried.bootstrap_names.index("d")]
    assert d.mean() == pytest.approx(PLANTED["d"] + 0.03, abs=0.002)
    assert d.std() == pytest.approx(0.02, rel=0.06)
    # with the law's draws all at the point, N̂'s spread is the offset's alone: its 5–95% range is
    # N̂ at S − Δ ∓ 1.645 σ_Δ
    drawn = np.quantile(invert_scores(carried.draw_columns(), score[None, :], 1e12)[1][:, 0], [0.05, 0.95])
    expected = [hand_size(0.62, 0.03 + 1.645 * 0.02, 1e12), hand_size(0.62, 0.03 - 1.645 * 0.02, 1e12)]
    assert drawn == pytest.approx(expected, rel=0.1)
    fixed = invert_scores(
        mc.offline_reference(fit, mc.Offset("mmlu", 0.03, 0.0, ())).draw_columns(), score[None, :], 1e12
    )[1][:, 0]
    assert np.ptp(fixed) == pytest.approx(0.0, abs=1e-3 * moved)


def test_an_unknown_task_and_a_fit_without_draws_are_errors():
    with pytest.raises(InputError, match="no MC reference"):
        build.score_points(pd.DataFrame(), "gsm8k")
    bare = ReferenceFit(
        kind="two-step", benchmark="x", metric="acc", params={**LOSS, **PLANTED}, stages=(), d0=1e12, data_hash="x"
    )
    with pytest.raises(FitError, match="bootstrap"):
        mc.offline_reference(bare, mc.Offset("mmlu", 0.0, 0.0, ()))


MC_FITS = sorted(
    p for p in (REPO_ROOT / "reference_fits").glob("olmo2_mc_*_two_step.json") if "_ceiling1_" not in p.name
)
CEILING_ONE_FITS = sorted((REPO_ROOT / "reference_fits").glob("olmo2_mc_*_ceiling1_two_step.json"))


def test_the_ceiling_one_fits_fix_c_plus_d_at_one_and_share_the_loss_law():
    assert [p.name for p in CEILING_ONE_FITS] == [mc.MC_FIT_CEILING_ONE.format(task=t) for t in sorted(mc.MC_CHANCE)]
    for path in CEILING_ONE_FITS:
        fixed = ReferenceFit.load(path)
        task = fixed.benchmark.removeprefix("olmes_").removesuffix("_mc_inloop")
        rule = ReferenceFit.load(REPO_ROOT / "reference_fits" / mc.MC_FIT.format(task=task))
        assert fixed.provenance["ceiling"] == 1.0
        assert fixed.params["c"] + fixed.params["d"] == pytest.approx(1.0)
        assert all(fixed.params[k] == rule.params[k] for k in ("a", "alpha", "b", "beta") if k in rule.params)
        if rule.provenance["ceiling"] == 1.0:  # the rule chose 1: the same law
            assert fixed.params == pytest.approx(rule.params)


def test_a_ceiling_at_or_below_chance_is_an_input_error():
    ladder = ReferenceFit.load(REPO_ROOT / "reference_fits" / mc.LADDER_FIT.format(task="mmlu"))
    with pytest.raises(InputError, match="ceiling: expected 'rule' or a number in"):
        build.fit_mc_reference(ladder, pd.DataFrame(), "mmlu", ceiling=0.2)


def test_four_mc_fits_ship_with_the_ladders_loss_law_and_the_floor_at_chance():
    assert [p.name for p in MC_FITS] == [mc.MC_FIT.format(task=t) for t in sorted(mc.MC_CHANCE)]
    for path in MC_FITS:
        fit = ReferenceFit.load(path)
        task = fit.benchmark.removeprefix("olmes_").removesuffix("_mc_inloop")
        ladder = ReferenceFit.load(REPO_ROOT / "reference_fits" / mc.LADDER_FIT.format(task=task))
        assert {k: fit.params[k] for k in ladder.stages[0].params} == ladder.stages[0].params
        assert fit.params["d"] == mc.MC_CHANCE[task]
        assert {p[5] for p in fit.points} == {"olmo-2-1b", "olmo-2-7b", "olmo-2-13b"}
        assert len(fit.bootstrap) >= 180 and set(fit.provenance["inloop_final"]) == {
            "olmo-2-1b",
            "olmo-2-7b",
            "olmo-2-13b",
        }


def test_the_olmo2_rows_are_the_offset_and_never_targets():
    from densing.trend.targets import reference_models

    fit = ReferenceFit.load(MC_FITS[0])
    assert set(mc.OLMO2_MODELS) <= reference_models(fit)
    offset = mc.measure_offset(fit, mc.read_olmes_table())
    assert [r["run"] for r in offset.runs] == ["olmo-2-7b", "olmo-2-13b"]
    assert offset.runs[0]["offline"] == pytest.approx(0.798)  # the table's OLMo-2-1124-7B ARC-C, 79.8


@needs_olmo
def test_the_shipped_mc_fits_regenerate_from_the_ladder_data():
    from densing.data.olmo import read_olmo_mc_runs

    runs = read_olmo_mc_runs(OLMO_LADDER)
    for path in MC_FITS:
        shipped = ReferenceFit.load(path)
        task = shipped.benchmark.removeprefix("olmes_").removesuffix("_mc_inloop")
        ladder = ReferenceFit.load(REPO_ROOT / "reference_fits" / mc.LADDER_FIT.format(task=task))
        again = build.fit_mc_reference(ladder, runs, task, n_boot=20, seed=0)
        assert again.params == pytest.approx(shipped.params, rel=1e-6)
        # the same seed draws the same first resamples
        assert np.asarray(again.bootstrap) == pytest.approx(np.asarray(shipped.bootstrap[:20]), rel=1e-5)


@needs_olmo
def test_the_mc_reader_takes_each_runs_final_rows_and_drops_the_initialisation():
    from densing.data.olmo import read_olmo_mc_runs

    runs = read_olmo_mc_runs(OLMO_LADDER, tasks=["arc_challenge"])
    finals = runs[runs["final"]].groupby("run").size().to_dict()
    assert finals == {"olmo-2-1b": 1, "olmo-2-7b": 1, "olmo-2-13b": 5}
    assert (runs["train_tokens"] > 0).all() and set(runs["benchmark"]) == {"olmes_arc_challenge_mc_inloop"}
    seven = runs[runs["run"] == "olmo-2-7b"].sort_values("train_tokens")
    assert seven["final"].iloc[-1] and seven["train_tokens"].iloc[-1] == pytest.approx(3.945065873408e12)
    with pytest.raises(InputError, match="no MC columns"):
        read_olmo_mc_runs(OLMO_LADDER, tasks=["piqa"])
