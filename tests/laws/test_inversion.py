"""Density: censoring, the geometric-mean aggregate, intervals, and the shipped Pythia fits."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from densing.laws import forms
from densing.laws.density import compute_density
from densing.laws.fit_schema import StageFit
from densing.laws.inversion import ABOVE_CEILING, BELOW_FLOOR, BEYOND_DATA_LIMIT, invert
from densing.laws.reference_fit import ReferenceFit
from tests.conftest import needs_pythia

PARAMS = dict(a=400.0, alpha=0.34, b=410.0, beta=0.28, c=0.7, gamma=-4.0, l=1.0, d=0.25)


def _fit(benchmark="toy", bootstrap=()):
    stage = StageFit("composed", dict(PARAMS), {}, 1.0, 0.0, (), True, "", 10, 0.0)
    return ReferenceFit(
        kind="composed",
        benchmark=benchmark,
        metric="acc",
        params=dict(PARAMS),
        stages=(stage,),
        d0=1e12,
        data_hash="x",
        provenance={"benchmarks": [benchmark]},
        bootstrap_names=tuple(PARAMS),
        bootstrap=bootstrap,
    )


def test_censoring_reasons_and_values():
    fit = _fit()
    data_floor_loss = PARAMS["b"] * 1e12 ** -PARAMS["beta"]
    score_at_data_floor = float(forms.performance_law(data_floor_loss, 0.7, -4.0, 1.0, 0.25))
    scores = [0.20, 0.25, 0.5, score_at_data_floor + 1e-4, 0.95, 0.99]
    out = invert(fit, scores)
    assert list(out["censored"]) == [BELOW_FLOOR, BELOW_FLOOR, "", BEYOND_DATA_LIMIT, ABOVE_CEILING, ABOVE_CEILING]
    assert list(out["effective_params"][:2]) == [0.0, 0.0]
    assert np.isfinite(out["effective_params"][2]) and out["effective_params"][2] > 0
    assert all(math.isinf(v) for v in out["effective_params"][3:])
    assert not out["effective_params"].isna().any()  # never a silent NaN


def test_density_is_effective_over_actual_and_one_on_the_law():
    fit = _fit()
    n = np.array([1e8, 1e9, 7e9])
    scores = forms.composed_law(n, 1e12, **PARAMS)
    targets = pd.DataFrame(
        {"model": ["m1", "m2", "m3"], "benchmark": "toy", "metric": "acc", "value": scores, "params": n}
    )
    out = compute_density(targets, fit)
    np.testing.assert_allclose(out["density"], 1.0, rtol=1e-6)
    # a model half the size reaching the same score is twice as dense
    targets["params"] = n / 2
    np.testing.assert_allclose(compute_density(targets, fit)["density"], 2.0, rtol=1e-6)


def test_geomean_aggregate_and_bootstrap_intervals():
    draws = tuple(tuple(v * f for v in PARAMS.values()) for f in (1.0,))
    base = list(PARAMS.values())
    draws = []
    for shift in np.linspace(-0.02, 0.02, 21):
        p = dict(PARAMS, alpha=PARAMS["alpha"] + shift)
        draws.append(tuple(p.values()))
    fits = [_fit("x", tuple(draws)), _fit("y", tuple(draws))]
    for f in fits:
        f.provenance["benchmarks"] = [f.benchmark]
    n = 1e9
    s = float(forms.composed_law(n, 1e12, **PARAMS))
    targets = pd.DataFrame(
        {"model": ["m", "m"], "benchmark": ["x", "y"], "metric": "acc", "value": [s, s - 0.05], "params": [n, n]}
    )
    out = compute_density(targets, fits).set_index("benchmark")
    assert set(out.index) == {"x", "y", "geomean"}
    expected = math.exp((math.log(out.loc["x", "density"]) + math.log(out.loc["y", "density"])) / 2)
    assert out.loc["geomean", "density"] == pytest.approx(expected)
    for b in ("x", "y", "geomean"):
        assert out.loc[b, "density_ci_low"] <= out.loc[b, "density"] <= out.loc[b, "density_ci_high"]
    assert out.loc["x", "density_ci_low"] < out.loc["x", "density_ci_high"]
    assert base  # parameters untouched


def test_censored_component_censors_the_aggregate():
    fits = [_fit("x"), _fit("y")]
    targets = pd.DataFrame(
        {"model": ["m", "m"], "benchmark": ["x", "y"], "metric": "acc", "value": [0.5, 0.99], "params": [1e9, 1e9]}
    )
    out = compute_density(targets, fits).set_index("benchmark")
    assert out.loc["geomean", "censored"] == "component_censored"
    # no standard error: 0.99 is beyond the cap with no margin, so not even its bound is known
    assert out.loc["y", "bound"] == "dropped" and out.loc["geomean", "bound"] == "dropped"
    assert math.isnan(out.loc["geomean", "density"])


def test_a_bounded_component_makes_the_aggregate_a_bound_the_same_way():
    """ρ_x exact and ρ_y ≥ b_y: ρ_geo ≥ √(ρ_x·b_y), a lower bound; opposite bounds give no bound (dropped)."""
    fits = [_fit("x"), _fit("y")]
    for f in fits:
        f.provenance["benchmarks"] = [f.benchmark]
    targets = pd.DataFrame(
        {
            "model": ["m", "m", "k", "k"],
            "benchmark": ["x", "y", "x", "y"],
            "metric": "acc",
            "value": [0.5, 0.99, 0.2, 0.99],
            "stderr": 0.02,
            "params": 1e9,
        }
    )
    out = compute_density(targets, fits).set_index(["model", "benchmark"])
    assert out.loc[("m", "y"), "bound"] == "lower bound" and out.loc[("m", "y"), "censored"] == ABOVE_CEILING
    assert out.loc[("m", "geomean"), "bound"] == "lower bound"
    assert out.loc[("m", "geomean"), "density"] == pytest.approx(
        math.sqrt(out.loc[("m", "x"), "density"] * out.loc[("m", "y"), "density"])
    )
    assert out.loc[("k", "x"), "bound"] == "upper bound" and out.loc[("k", "x"), "censored"] == BELOW_FLOOR
    assert out.loc[("k", "geomean"), "bound"] == "dropped" and math.isnan(out.loc[("k", "geomean"), "density"])


@needs_pythia
def test_the_shipped_pythia_fits_give_finite_pythia_densities_near_one(run_cli):
    from densing.paths import REFERENCE_FITS, RESULTS

    fits = [a for f in sorted(REFERENCE_FITS.glob("pythia_*.json")) for a in ("--fit", str(f))]
    code, out, err = run_cli(
        "density", *fits, "--targets", RESULTS / "pythia_final.csv", "--format", "json", "--d0", "3e11"
    )
    assert code == 0, err
    rows = json.loads(out)
    lambada = {r["model"]: r for r in rows if r["benchmark"] == "lambada_openai"}
    assert len(lambada) == 7
    for row in rows:
        for key in (
            "model",
            "benchmark",
            "params",
            "score",
            "effective_params",
            "density",
            "censored",
            "density_ci_low",
            "density_ci_high",
        ):
            assert key in row
    for name, row in lambada.items():
        if row["censored"] == "below_smallest_member":  # the ladder's smallest model, inverted just under its own size:
            assert row["density"] == 1.0, name  # a bound at that size (docs/method.md, "The identified region")
            continue
        assert row["censored"] is None and math.isfinite(row["density"]), name
        # the reference models sit near ρ = 1 at their own token count (300B)
        assert 0.5 < row["density"] < 8, name
    covered = [r for r in lambada.values() if r["density_ci_low"] <= 1 <= (r["density_ci_high"] or math.inf)]
    assert len(covered) >= 5


def test_conditioning_on_a_hand_computed_example():
    """κ = max(ρ(S+σ)/ρ(S), ρ(S)/ρ(S−σ)), computed by hand for a fit with E = 0, b = 0.

    With b = 0 and E = 0, N̂ = (L̂/a)^(−1/α) and L̂ = l − ln(c/(S−d) − 1)/γ. Take a = 1, α = 0.5,
    c = 1, d = 0, γ = −1, l = 0: L̂(S) = ln(1/S − 1), N̂ = L̂^(−2).
    S = 0.2, σ = 0.05: L̂(0.25) = ln 3, L̂(0.2) = ln 4, L̂(0.15) = ln(17/3).
    ρ(S+σ)/ρ(S) = (ln 4 / ln 3)^2 = 1.5923; ρ(S)/ρ(S−σ) = (ln(17/3) / ln 4)^2 = 1.5656.
    """
    from densing.laws.inversion import conditioning
    from densing.laws.reference_fit import ReferenceFit

    fit = ReferenceFit(
        kind="two-step",
        benchmark="toy",
        metric="acc",
        params=dict(a=1.0, alpha=0.5, b=0.0, beta=0.3, c=1.0, gamma=-1.0, l=0.0, d=0.0),
        stages=(),
        d0=1e12,
        data_hash="x",
    )
    kappa = conditioning(fit, [0.2], [0.05])
    expected = max((np.log(4) / np.log(3)) ** 2, (np.log(17 / 3) / np.log(4)) ** 2)
    assert kappa[0] == pytest.approx(expected, rel=1e-9)
    assert expected == pytest.approx(1.5923, abs=1e-4)
    # S = 0.45 is finite (L̂ = ln(11/9) > 0) but S + σ = 0.51 has L̂ = ln(49/51) < 0, at or below
    # the data-limited floor (0 here): ρ(S + σ) is infinite, and so is κ
    assert np.isinf(conditioning(fit, [0.45], [0.06])[0])
    # a censored ρ(S) itself has no conditioning figure
    assert np.isnan(conditioning(fit, [0.97], [0.01])[0])
    # unknown σ: NaN, never a made-up number
    assert np.isnan(conditioning(fit, [0.2], [np.nan])[0])


def test_uncensored_rows_have_a_missing_reason_not_an_empty_string():
    """``censored`` is missing (JSON null) where the density is finite, a reason where it is not."""
    import pandas as pd

    from densing.laws.density import compute_density
    from densing.laws.reference_fit import ReferenceFit

    fit = ReferenceFit.load("reference_fits/olmo_arc_easy_two_step.json")
    targets = pd.DataFrame(
        {
            "model": ["mid", "top"],
            "benchmark": ["olmes_arc_easy"] * 2,
            "metric": ["len_norm"] * 2,
            "value": [0.6, 0.999],
            "params": [1e9, 1e9],
        }
    )
    out = compute_density(targets, fit, intervals=False).set_index("model")
    assert out.loc["mid", "censored"] is None
    assert isinstance(out.loc["top", "censored"], str) and out.loc["top", "censored"]


def test_extrapolation_is_said_in_words_where_the_inversion_leaves_the_reference_data():
    """N̂ outside the reference's N range, or D0 beyond its largest D, gets a note (values; its words from
    densing.present.laws); inside, none."""
    import pandas as pd

    from densing.laws.density import compute_density
    from densing.laws.inversion import SizeBelowData, TokensBeyondData, extrapolation_notes
    from densing.laws.reference_fit import ReferenceFit
    from densing.present.laws import density_frame, extrapolation_text

    fit = ReferenceFit.load("reference_fits/olmo_arc_easy_two_step.json")
    points = fit.loss_points_frame()
    n_low, n_high, d_high = points["params"].min(), points["params"].max(), points["train_tokens"].max()
    inside = float(fit.predict_score(1e9, 1e11))  # N̂ = 1e9 at D0 = 1e11: within the ladder's data
    below = float(fit.predict_score(n_low / 3, 1e11))
    targets = pd.DataFrame(
        {
            "model": ["inside", "below"],
            "benchmark": ["olmes_arc_easy"] * 2,
            "metric": ["len_norm"] * 2,
            "value": [inside, below],
            "params": [1e9, 1e9],
        }
    )
    out = compute_density(targets, fit, d0=1e11, intervals=False).set_index("model")
    assert abs(out.loc["inside", "effective_params"] / 1e9 - 1) < 1e-6
    assert out.loc["inside", "extrapolation"] is None
    assert [n for n in out.loc["below", "extrapolation"] if isinstance(n, SizeBelowData) and n.limit == n_low]
    shown = density_frame(out.reset_index()).set_index("model")
    assert [n for n in shown.loc["below", "extrapolation"] if "below the reference's smallest N" in n]
    beyond = extrapolation_notes(fit, [1e9, n_high * 2], d0=d_high * 4)  # each size's reasons, D0's first
    assert all(isinstance(note[0], TokensBeyondData) for note in beyond)
    assert all("4x the reference's largest D" in extrapolation_text(note[0]) for note in beyond)
    assert len(beyond[0]) == 1 and "above the reference's largest N" in extrapolation_text(beyond[1][1])


def test_geomean_rows_match_a_per_model_computation():
    """The column-wise geometric mean (fast on large tables) equals the per-model definition:
    ρ_geo = exp(mean ln ρ_i), its interval the percentile interval of the per-draw geometric means
    (each fit's draws those of :func:`solve_densities`, a draw bounded both ways left out)."""
    from pathlib import Path

    from densing.data import read_results
    from densing.data.benchmarks import with_stderr
    from densing.laws.density import compute_density, solve_densities
    from densing.laws.inversion import PerBenchmark, score_matrix
    from densing.laws.reference_fit import ReferenceFit

    root = Path(__file__).resolve().parents[2]
    fits = [
        ReferenceFit.load(root / "reference_fits" / f"pythia_{b}_composed.json") for b in ("arc_easy", "sciq", "piqa")
    ]
    targets = read_results(root / "results" / "pythia_final.csv").drop(columns="stderr")
    result = compute_density(targets, fits)
    geo = result[result["benchmark"] == "geomean"].set_index("model")
    assert len(geo) > 3
    draws_by_fit = {}
    for fit in fits:
        rows = score_matrix(with_stderr(targets), tuple(fit.benchmarks), fit.metric)
        draws_by_fit[fit.benchmark] = pd.DataFrame(
            solve_densities(rows, PerBenchmark(fit)).draws.T, index=rows["model"]
        )
    for model, row in geo.iterrows():
        parts = result[(result["model"] == model) & (result["benchmark"] != "geomean")]
        assert row["density"] == pytest.approx(np.exp(np.log(parts["density"]).mean()), rel=1e-12)
        per_fit = [draws_by_fit[fit.benchmark].loc[model].to_numpy(float) for fit in fits]
        n = min(d.size for d in per_fit)
        with np.errstate(invalid="ignore"):
            draws = np.mean([d[:n] for d in per_fit], axis=0)
        draws = draws[~np.isnan(draws)]
        low, high = np.exp(np.quantile(draws, [(1 - 0.95) / 2, (1 + 0.95) / 2], method="inverted_cdf"))
        assert (row["density_ci_low"], row["density_ci_high"]) == pytest.approx((low, high), rel=1e-12)


def test_score_matrix_averages_a_models_rows_and_keeps_complete_cases():
    """One row per model: the mean of its rows on each benchmark (value and standard error), NaN where it has none;
    ``require="all"`` keeps only the models with every benchmark, ``"any"`` those with one; params from its first row."""
    from densing.laws.inversion import score_matrix

    table = pd.DataFrame(
        {
            "model": ["b", "a", "a", "b", "c", "c"],
            "benchmark": ["x", "x", "x", "y", "y", "z"],
            "metric": "acc",
            "value": [0.5, 0.2, 0.4, 0.7, 0.9, 0.1],
            "stderr": [0.01, 0.02, np.nan, 0.03, 0.04, 0.05],
            "params": [2e9, 1e9, 1e9, 2e9, 3e9, 3e9],
        }
    )
    every = score_matrix(table, ("x", "y"))
    assert every["model"].tolist() == ["b"] and every["score:y"].tolist() == [0.7] and every["params"].tolist() == [2e9]
    anyone = score_matrix(table, ("y", "x"), require="any")
    assert anyone["model"].tolist() == ["a", "b", "c"]
    assert anyone["score:x"].tolist()[:2] == [pytest.approx(0.3), 0.5] and np.isnan(anyone["score:x"].iloc[2])
    assert anyone["stderr:x"].tolist()[:2] == [0.02, 0.01] and anyone["score:y"].iloc[2] == 0.9
    single = score_matrix(table, ("z",))
    assert single[["model", "score", "stderr"]].values.tolist() == [["c", 0.1, 0.05]]


def _score_matrix_of_subset(table, benchmarks, metric, require):
    """score_matrix written over the tuple's own rows (its definition): the mean per (model, benchmark) of the rows of
    ``benchmarks`` under ``metric``, the carried columns from each model's first such row."""
    rows = table[table["benchmark"].isin(benchmarks)]
    rows = rows if metric is None else rows[rows["metric"] == metric]
    grouped = rows.groupby(["model", "benchmark"], sort=True)
    scores = grouped["value"].mean().unstack("benchmark").reindex(columns=list(benchmarks))
    scores = scores.dropna(how="all" if require == "any" else "any")
    errors = grouped["stderr"].mean().unstack("benchmark").reindex(index=scores.index)
    out = {"model": scores.index.astype(str)}
    for b in benchmarks:
        out[f"score:{b}"] = scores[b].to_numpy(float)
        out[f"stderr:{b}"] = errors[b].to_numpy(float) if b in errors.columns else np.nan
    first = rows.drop_duplicates("model").set_index("model").loc[out["model"]]
    out |= {c: first[c].to_numpy() for c in ("params", "family")}
    return pd.DataFrame(out)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_score_matrix_of_a_tuple_is_the_tuples_own_rows_inside_and_outside_same_tables(data):
    """score_matrix selects a tuple from every benchmark's means computed once per table (inside same_tables); the
    result is the tuple's own rows' — duplicate rows averaged, a repeated index, another metric's rows ignored, a
    model whose rows disagree on its size carrying its first row of the tuple's benchmarks — inside the block and out.
    A mean over several rows may differ in its last bit (pandas' compensated group sum depends on the groups beside
    it: the whole table's, not the tuple's); everything else is exact."""
    from densing.laws.inversion import score_matrix
    from densing.runtime.memo import same_tables

    n = data.draw(st.integers(1, 30))
    pick = st.lists(st.sampled_from("abcde"), min_size=n, max_size=n)
    table = pd.DataFrame(
        {
            "model": data.draw(pick),
            "benchmark": data.draw(st.lists(st.sampled_from("wxyz"), min_size=n, max_size=n)),
            "metric": data.draw(st.lists(st.sampled_from(["acc", "acc", "f1"]), min_size=n, max_size=n)),
            "value": data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)),
            "stderr": data.draw(st.lists(st.one_of(st.none(), st.floats(0.001, 0.1)), min_size=n, max_size=n)),
            "params": data.draw(st.lists(st.sampled_from([1e9, 2e9, 7e9]), min_size=n, max_size=n)),
            "family": data.draw(st.lists(st.sampled_from(["F", "G"]), min_size=n, max_size=n)),
        },
        index=data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)),
    )
    table["stderr"] = table["stderr"].astype(float)
    tuples = [
        tuple(data.draw(st.lists(st.sampled_from("wxyz"), min_size=1, max_size=3, unique=True))) for _ in range(3)
    ]
    with same_tables():
        inside = [
            (b, m, r, score_matrix(table, b, m, require=r))
            for b in tuples
            for m in (None, "acc")
            for r in ("all", "any")
        ]
    for b, metric, require, found in inside:
        expected = _score_matrix_of_subset(table, b, metric, require)
        if expected.empty:
            assert found.empty
            continue
        numbers = [c for c in expected.columns if c.startswith(("score:", "stderr:"))]
        for got in (found, score_matrix(table, b, metric, require=require)):
            got = got[expected.columns].reset_index(drop=True)
            pd.testing.assert_frame_equal(got.drop(columns=numbers), expected.drop(columns=numbers), check_exact=True)
            pd.testing.assert_frame_equal(got[numbers], expected[numbers], check_exact=False, rtol=1e-14, atol=0)
