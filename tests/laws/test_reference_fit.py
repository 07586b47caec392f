"""densing.laws.reference_fit: the fitted law as an object — its equations, inversion, bootstrap columns and JSON file.

Planted parameters throughout: the forward law (eqs. 2–3) gives scores, and the inversion (eq. 4)
must give back the sizes; files are written, edited and read back.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import densing.present as present
from densing.errors import FitError, InputError
from densing.laws import forms
from densing.laws.fit_schema import POINT_COLUMNS, StageFit, data_hash
from densing.laws.reference import fit_reference
from densing.laws.reference_fit import (
    ABOVE_CEILING,
    BELOW_FLOOR,
    BEYOND_DATA_LIMIT,
    FORMAT,
    ReferenceFit,
    check_fit_dict,
    invert_scores,
)
from tests.conftest import REPO_ROOT

PARAMS = dict(a=400.0, alpha=0.34, b=410.0, beta=0.28, c=0.7, gamma=-4.0, l=1.0, d=0.25)
FAMILY = dict(c=0.65, gamma=0.9, l=23.0, d=0.25)
D0 = 1e12
SHIPPED_FIT = REPO_ROOT / "reference_fits" / "pythia_arc_easy_composed.json"
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _stage(law: str, params: dict, r_squared: float = 0.98, n_points: int = 12) -> StageFit:
    return StageFit(law, dict(params), {}, r_squared, 0.01, (0.001, -0.002), True, "converged", n_points, 0.5)


def planted_fit(
    *, kind: str = "composed", params: dict | None = None, draws: int = 0, seed: int = 0, **fields
) -> ReferenceFit:
    """A fit with planted parameters; ``draws`` bootstrap rows with α and l jittered (other parameters fixed)."""
    params = dict(PARAMS if params is None else params)
    rng = np.random.default_rng(seed)
    names = ("alpha", "l") if "alpha" in params else ("l",)
    jitter = {
        "alpha": lambda: params["alpha"] * (1 + 0.03 * rng.standard_normal()),
        "l": lambda: params["l"] + 0.02 * rng.standard_normal(),
    }
    boot = tuple(tuple(jitter[k]() for k in names) for _ in range(draws))
    values = {
        "kind": kind,
        "benchmark": "toy",
        "metric": "acc",
        "params": params,
        "stages": (_stage(kind if kind != "two-step" else "performance", params),),
        "d0": D0,
        "data_hash": "planted",
        "provenance": {"seed": seed, "benchmarks": ["toy"]},
        "bootstrap_names": names if draws else (),
        "bootstrap": boot,
        **fields,
    }
    return ReferenceFit(**values)


# --- the law: eqs. 2–4 ------------------------------------------------------------------------


def test_predictions_are_the_stated_equations():
    fit = planted_fit(params={**PARAMS, "E": 0.5})
    n, d = np.array([1e8, 3e9, 7e10]), np.array([1e11, 1e12, 3e12])
    p = fit.params
    loss = p["a"] * n ** -p["alpha"] + p["b"] * d ** -p["beta"] + p["E"]  # eq. 2, by hand
    np.testing.assert_allclose(fit.predict_loss(n, d), loss, rtol=1e-12)
    score = p["c"] / (1 + np.exp(-p["gamma"] * (loss - p["l"]))) + p["d"]  # eq. 3, by hand
    np.testing.assert_allclose(fit.predict_score_from_loss(loss), score, rtol=1e-12)
    np.testing.assert_allclose(fit.predict_score(n, d), score, rtol=1e-12)
    # eq. 4 inverts eq. 3, and NaN outside (d, c + d)
    np.testing.assert_allclose(fit.invert(score)[0], loss, rtol=1e-9)
    assert np.isnan(fit.invert([0.2, 0.96])[0]).all()


def test_effective_params_invert_the_forward_law_at_d0_and_another_d0():
    fit = planted_fit()
    n = np.geomspace(1e8, 1e11, 7)
    np.testing.assert_allclose(fit.effective_params(fit.predict_score(n, D0)), n, rtol=1e-7)
    np.testing.assert_allclose(fit.effective_params(fit.predict_score(n, 2e11), d0=2e11), n, rtol=1e-7)
    # the same score at a smaller token budget needs a larger model (the data term is larger)
    score = fit.predict_score(1e9, D0)
    assert fit.effective_params([score], d0=2e11)[0] > 1e9


@pytest.mark.parametrize("d0", [0.0, -1e12, math.nan, math.inf])
def test_a_d0_that_is_not_a_positive_number_is_an_input_error(d0):
    with pytest.raises(InputError, match="^d0: expected a positive number"):
        planted_fit().effective_params([0.5], d0=d0)


def test_a_fit_without_a_data_term_takes_only_its_own_d0():
    fit = planted_fit(kind="family", params=FAMILY, d0=2e12)
    assert not fit.has_data_term and planted_fit().has_data_term
    np.testing.assert_array_equal(fit.effective_params([0.5], d0=2e12), fit.effective_params([0.5]))
    with pytest.raises(InputError, match="no data term"):
        fit.effective_params([0.5], d0=1e12)
    # the family law's latent loss is ln N, and N̂ = exp(L̂)
    n = np.array([3e8, 4e9, 5e10])
    np.testing.assert_allclose(fit.predict_loss(n, None), np.log(n))
    np.testing.assert_allclose(fit.effective_params(fit.predict_score(n, None)), n, rtol=1e-9)


laws = st.fixed_dictionaries(
    {
        "a": st.floats(50, 2000),
        "alpha": st.floats(0.15, 0.6),
        "b": st.floats(50, 2000),
        "beta": st.floats(0.15, 0.6),
        "E": st.floats(0.0, 1.5),
        "c": st.floats(0.2, 0.75),
        "gamma": st.floats(-8.0, -0.3),
        "l": st.floats(0.5, 4.0),
        "d": st.floats(0.0, 0.25),
    }
)


@settings(max_examples=150, deadline=None)
@given(
    p=laws, log_n=st.lists(st.floats(math.log(1e6), math.log(1e13)), min_size=1, max_size=12), d0=st.floats(1e10, 1e13)
)
def test_invert_scores_gives_back_planted_sizes(p, log_n, d0):
    n = np.exp(np.array(log_n))
    scores = forms.performance_law(
        forms.loss_law(n, d0, p["a"], p["alpha"], p["b"], p["beta"], p["E"]), p["c"], p["gamma"], p["l"], p["d"]
    )
    loss, size, reasons = invert_scores(p, scores, d0)
    # away from the floor and the ceiling (where the logit loses its digits), N̂ = N
    margin = np.minimum(scores - p["d"], p["c"] + p["d"] - scores) / p["c"]
    inside = margin > 1e-6
    assert set(reasons[inside]) <= {""}
    np.testing.assert_allclose(size[inside], n[inside], rtol=1e-4)
    np.testing.assert_allclose(
        loss[inside], forms.loss_law(n, d0, p["a"], p["alpha"], p["b"], p["beta"], p["E"])[inside], rtol=1e-6
    )


@settings(max_examples=150, deadline=None)
@given(p=laws, unit=st.lists(st.floats(-0.2, 1.2), min_size=2, max_size=30), d0=st.floats(1e10, 1e13))
def test_invert_scores_is_monotone_and_censors_by_the_stated_rules(p, unit, d0):
    scores = np.sort(p["d"] + p["c"] * np.array(unit))
    loss, size, reasons = invert_scores(p, scores, d0)
    # a higher score never means a smaller model, nor a larger loss
    assert np.all(size[1:] >= size[:-1])
    finite = np.isfinite(loss)
    assert np.all(np.diff(loss[finite]) <= 0)
    below, above = scores <= p["d"], scores >= p["c"] + p["d"]
    assert np.all(size[below] == 0) and set(reasons[below]) <= {BELOW_FLOOR}
    assert np.all(size[above] == np.inf) and set(reasons[above]) <= {ABOVE_CEILING}
    floor = p["b"] * d0 ** -p["beta"] + p["E"]
    inside = ~below & ~above
    assert not np.any(loss[finite] < 0)  # no loss is negative: a score whose L̂ would be is beyond the data limit
    beyond = inside & ((loss <= floor) | np.isnan(loss))
    assert np.all(size[beyond] == np.inf) and set(reasons[beyond]) <= {BEYOND_DATA_LIMIT}
    reached = inside & ~beyond
    # finite (0 only where N̂ underflows, a score a hair above the floor)
    assert np.all(np.isfinite(size[reached]) & (size[reached] >= 0)) and set(reasons[reached]) <= {""}
    # censoring reasons come in score order: floor, values, data limit, ceiling
    order = {BELOW_FLOOR: 0, "": 1, BEYOND_DATA_LIMIT: 2, ABOVE_CEILING: 3}
    assert np.all(np.diff([order[r] for r in reasons]) >= 0)


@settings(max_examples=60, deadline=None)
@given(
    c=st.floats(0.2, 0.75),
    gamma=st.floats(0.1, 3.0),
    l=st.floats(15.0, 25.0),
    d=st.floats(0.0, 0.5),
    log_n=st.lists(st.floats(math.log(1e7), math.log(1e12)), min_size=1, max_size=8),
)
def test_the_family_law_inverts_to_exp_of_the_latent(c, gamma, l, d, log_n):
    p = {"c": c, "gamma": gamma, "l": l, "d": d}
    n = np.exp(np.array(log_n))
    scores = forms.performance_law(np.log(n), c, gamma, l, d)
    loss, size, reasons = invert_scores(p, scores, 1e12)
    inside = np.minimum(scores - d, c + d - scores) / c > 1e-6
    np.testing.assert_allclose(loss[inside], np.log(n[inside]), rtol=1e-6)
    np.testing.assert_allclose(size[inside], n[inside], rtol=1e-4)
    assert BEYOND_DATA_LIMIT not in set(reasons)  # no data term, no data-limited floor


def test_invert_scores_broadcasts_draws_against_scores():
    """Parameter columns of shape (k, 1) against scores (m,) or (k, m): row r is the inversion under draw r."""
    fit = planted_fit(draws=6)
    columns = fit.draw_columns()
    scores = np.array([0.3, 0.5, 0.8, 0.9])
    loss, size, reasons = invert_scores(columns, scores, D0)
    assert loss.shape == size.shape == reasons.shape == (6, 4)
    for r in range(6):
        row = {k: float(v[r, 0]) for k, v in columns.items()}
        expected = invert_scores(row, scores, D0)
        np.testing.assert_array_equal(size[r], expected[1])
        assert list(reasons[r]) == list(expected[2])


# --- bootstrap columns and intervals ---------------------------------------------------------


def test_draw_columns_and_point_columns_have_the_stated_shapes():
    fit = planted_fit(draws=5)
    columns = fit.draw_columns()
    assert set(columns) == set(PARAMS) and all(v.shape == (5, 1) for v in columns.values())
    boot = np.asarray(fit.bootstrap)
    np.testing.assert_array_equal(columns["alpha"][:, 0], boot[:, 0])
    np.testing.assert_array_equal(columns["a"][:, 0], np.full(5, PARAMS["a"]))  # a fixed parameter broadcasts
    picked = fit.draw_columns([4, 0, 0])
    np.testing.assert_array_equal(picked["l"][:, 0], boot[[4, 0, 0], 1])
    point = fit.point_columns(3)
    assert all(v.shape == (3, 1) and np.all(v == PARAMS[k]) for k, v in point.items())


def test_a_fit_without_draws_says_so():
    fit = planted_fit()
    with pytest.raises(FitError, match="no bootstrap draws"):
        fit.draw_columns()
    table = fit.parameter_ci()
    assert table["ci_low"].isna().all() and list(table["parameter"]) == list(PARAMS)


def test_parameter_ci_is_the_percentile_interval_of_the_draws():
    fit = planted_fit(draws=400, seed=3)
    boot = np.asarray(fit.bootstrap)
    for level in (0.9, 0.5):
        table = fit.parameter_ci(level).set_index("parameter")
        low, high = np.quantile(boot[:, 0], [(1 - level) / 2, (1 + level) / 2])
        assert table.loc["alpha", "ci_low"] == pytest.approx(low) and table.loc["alpha", "ci_high"] == pytest.approx(
            high
        )
        assert table.loc["alpha", "estimate"] == PARAMS["alpha"]
        assert math.isnan(table.loc["a", "ci_low"])  # not drawn: no interval
    wide, narrow = fit.parameter_ci(0.95).set_index("parameter"), fit.parameter_ci(0.5).set_index("parameter")
    assert wide.loc["l", "ci_low"] < narrow.loc["l", "ci_low"] < narrow.loc["l", "ci_high"] < wide.loc["l", "ci_high"]


# --- diagnostics and display -----------------------------------------------------------------


def test_to_frame_r_squared_and_the_texts():
    two_step = planted_fit(
        kind="two-step", draws=4, stages=(_stage("loss", {}, 0.99, 40), _stage("performance", PARAMS, 0.9, 8))
    )
    assert two_step.r_squared == 0.9  # the score stage's
    frame = two_step.to_frame()
    assert list(frame.columns[:2]) == ["benchmark", "law"] and len(frame) == len(PARAMS)
    assert (frame["r_squared"] == 0.9).all() and (frame["n_points"] == 8).all()
    text = repr(two_step)
    assert "\n" not in text and text.startswith("ReferenceFit(two-step, 'toy' (acc)") and "4 bootstrap draws" in text
    summary = present.summary(two_step)
    lines = str(summary).splitlines()
    # title, bootstrap, the parameters' caption, header and rows, the stages' caption, header and rows
    assert len(lines) == 1 + 1 + 2 + len(PARAMS) + 2 + 2
    assert lines[1] == "bootstrap: 4 resamples (seed 0)"
    assert all(any(line.strip().startswith(f"{k} ") for line in lines) for k in PARAMS)
    html = two_step._repr_html_()
    assert html.count("<table") == 2 and "alpha" in html and html == summary.as_html()
    assert [t["caption"] for t in summary.to_dict()["tables"]] == ["parameters", "diagnostics"]


def test_points_frames_fall_back_to_the_score_points():
    points = (("m1", 1e8, 1e11, 0.4, 3.1, "r1"), ("m2", 1e9, 1e11, 0.6, None, "r2"))
    fit = planted_fit(points=points)
    frame = fit.points_frame()
    assert list(frame.columns) == list(POINT_COLUMNS) and frame["model"].tolist() == ["m1", "m2"]
    pd.testing.assert_frame_equal(fit.loss_points_frame(), frame)
    own = planted_fit(points=points, loss_points=points[:1])
    assert own.loss_points_frame()["model"].tolist() == ["m1"]


def test_benchmarks_come_from_the_provenance_of_older_fits():
    assert planted_fit().benchmarks == ("toy",)
    mean = planted_fit(benchmark="mean(x,y)", provenance={"benchmarks": ["x", "y"]})
    assert mean.benchmarks == ("x", "y")
    bare = planted_fit(provenance={})
    assert bare.benchmarks == ("toy",)


# --- the file ----------------------------------------------------------------------------------


def _full_fit() -> ReferenceFit:
    points = (("m1", 1e8, 1e11, 0.4, 3.1, "r1"), ("m2", 1e9, 1e11, 0.6, None, "r2"))
    return planted_fit(
        kind="two-step",
        params={**PARAMS, "E": 0.3},
        draws=7,
        seed=5,
        loss_unit="nats",
        stages=(_stage("loss", {"a": 400.0}, 0.99, 40), _stage("performance", PARAMS, 0.9, 8)),
        points=points,
        loss_points=points[:1] + (("m3", 3e9, 2e11, 0.7, 2.2, "r3"),),
        provenance={"seed": 5, "benchmarks": ["toy"], "nested": {"n_boot": 7, "dropped": ["x"]}},
    )


def test_save_and_load_give_back_the_same_fit(tmp_path):
    fit = _full_fit()
    path = fit.save(tmp_path / "sub" / "fit.json")
    raw = path.read_bytes()
    assert raw.endswith(b"}\n") and json.loads(raw)["format"] == FORMAT == "densing.reference_fit/1"
    loaded = ReferenceFit.load(path)
    assert loaded == fit
    assert loaded.to_json() == fit.to_json() and loaded.to_dict() == fit.to_dict()
    assert loaded.provenance["nested"] == {"n_boot": 7, "dropped": ["x"]} and loaded.loss_unit == "nats"
    assert loaded.points[1][4] is None and loaded.loss_points[1][0] == "m3"
    assert all(np.array_equal(v, fit.draw_columns()[k]) for k, v in loaded.draw_columns().items())


def test_from_dict_reads_files_written_before_runs_and_benchmarks_were_stored():
    data = _full_fit().to_dict()
    data.pop("benchmarks")
    data["points"] = [p[:5] for p in data["points"]]  # (model, N, D, score, loss): no run
    fit = ReferenceFit.from_dict(data)
    assert fit.benchmarks == ("toy",)
    assert [p[5] for p in fit.points] == ["m1", "m2"]  # the run is the model


def test_reference_fit_json_round_trip(tmp_path):
    """A fit as fit_reference makes it (stages, bootstrap, provenance) reads back equal."""
    rng = np.random.default_rng(5)
    n, t = (a.ravel() for a in np.meshgrid(np.geomspace(5e7, 1.5e10, 8), np.geomspace(5e9, 3e12, 10)))
    score = forms.composed_law(n, t, **PARAMS) + rng.normal(0, 0.004, n.size)
    fit = fit_reference(
        _tidy(n, t, score), "toy", law="composed", chance=0.25, n_boot=5, provenance={"source_data": "synthetic"}
    )
    path = fit.save(tmp_path / "fit.json")
    loaded = ReferenceFit.load(path)
    assert loaded == fit
    assert loaded.to_json() == fit.to_json()
    np.testing.assert_array_equal(loaded.effective_params([0.5, 0.8]), fit.effective_params([0.5, 0.8]))
    assert loaded.provenance["source_data"] == "synthetic" and loaded.provenance["chance"] == 0.25


def _tidy(n, t, score):
    from densing.data import validate_results

    runs = [f"run{int(np.log(a) * 1000)}" for a in n]
    rows = pd.DataFrame(
        {
            "model": [f"{r}@step{int(b // 1e6)}" for r, b in zip(runs, t)],
            "benchmark": "toy",
            "metric": "acc",
            "value": score,
            "params": n,
            "train_tokens": t,
            "loss": np.nan,
            "run": runs,
        }
    )
    return validate_results(rows, source="synthetic")


@pytest.mark.parametrize(
    "content, words",
    [
        (b'{"format": "densing.reference_fit/1", "kind"', "malformed JSON"),
        (b"", "malformed JSON"),
        (b"[1, 2]", "expected a JSON object"),
        (b'{"format": "densing.reference_fit/2"}', "'densing.reference_fit/2' is not a version this densing reads"),
        (b'{"format": "something/1"}', "not a densing reference fit"),
    ],
    ids=["truncated", "empty", "array", "newer-version", "other-format"],
)
def test_a_corrupt_or_foreign_file_is_one_line_naming_it(tmp_path, content, words):
    path = tmp_path / "fit.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as raised:
        ReferenceFit.load(path)
    message = str(raised.value)
    assert message.startswith(f"{path}: ") and words in message and "\n" not in message


def test_a_missing_file_and_a_missing_field_are_named(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        ReferenceFit.load(tmp_path / "absent.json")
    data = _full_fit().to_dict()
    del data["metric"]
    path = tmp_path / "fit.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=f"^{path}: field 'metric' is missing$"):
        ReferenceFit.load(path)
    data = _full_fit().to_dict()
    data["stages"] = [{"law": "composed"}]  # a stage without its fields
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=f"^{path}: "):
        ReferenceFit.load(path)


def _edit(data, key, value):
    data[key] = value
    return data


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d["params"].update(zeta=1.0), ("'params'", "no parameter(s) zeta")),
        (lambda d: d["params"].update(c=math.inf), ("'params.c'", "finite number")),
        (lambda d: d["params"].update(l=True), ("'params.l'", "finite number")),
        (lambda d: d["params"].update(E=-0.1), ("'params.E'", "non-negative")),
        (lambda d: d["params"].update(gamma=0.0), ("'params.gamma'", "negative gamma")),
        (lambda d: _edit(d, "params", [1, 2]), ("'params'", "mapping")),
        (lambda d: _edit(d, "d0", 0), ("'d0'", "positive number of tokens")),
        (lambda d: _edit(d, "d0", True), ("'d0'", "positive number of tokens")),
        (lambda d: _edit(d, "benchmarks", ["toy", "other"]), ("'benchmark'", "mean(toy,other)")),
        (lambda d: _edit(d, "bootstrap_names", ["alpha", "omega"]), ("'bootstrap_names'", "omega")),
        (lambda d: _edit(d, "stages", []), ("'stages'", "no fitted stage")),
    ],
    ids=[
        "extra-param",
        "infinite",
        "bool",
        "negative-E",
        "zero-gamma",
        "params-list",
        "zero-d0",
        "bool-d0",
        "mean-label",
        "unknown-draw-name",
        "no-stages",
    ],
)
def test_check_fit_dict_names_the_field(edit, words):
    data = _full_fit().to_dict()
    check_fit_dict(data, source="f.json")  # the unedited dict passes
    edit(data)
    with pytest.raises(InputError) as raised:
        check_fit_dict(data, source="f.json")
    message = str(raised.value)
    assert message.startswith("f.json: field ") and all(w in message for w in words), message


def test_a_family_fit_has_a_positive_gamma():
    data = planted_fit(kind="family", params=FAMILY).to_dict()
    check_fit_dict(data)
    data["params"]["gamma"] = -0.9
    with pytest.raises(InputError, match="a family fit has a positive gamma"):
        check_fit_dict(data)
    data["params"] = {**FAMILY, "E": 0.1}  # the family law has no irreducible loss
    with pytest.raises(InputError, match="no parameter"):
        check_fit_dict(data)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8,
)


@FUZZ
@given(
    key=st.sampled_from(
        [
            "format",
            "kind",
            "benchmark",
            "benchmarks",
            "metric",
            "params",
            "d0",
            "stages",
            "bootstrap",
            "bootstrap_names",
            "points",
            "provenance",
            "data_hash",
        ]
    ),
    value=json_values,
    param=st.sampled_from(["a", "alpha", "b", "beta", "c", "gamma", "l", "d"]),
)
def test_random_edits_of_a_fit_file(tmp_path, key, value, param):
    data = json.loads(SHIPPED_FIT.read_text())
    data[key] = value
    if (
        key == "params" and isinstance(value, (int, float)) and not isinstance(value, bool)
    ):  # a number in place of one parameter
        data["params"] = {**json.loads(SHIPPED_FIT.read_text())["params"], param: value}
    path = tmp_path / "fit.json"
    path.write_text(json.dumps(data))
    try:
        fit = ReferenceFit.load(path)
    except InputError as exc:
        assert str(exc).startswith(str(path))
        return
    assert all(math.isfinite(v) for v in fit.params.values())


# --- data_hash ---------------------------------------------------------------------------------

rows = st.lists(
    st.tuples(st.text(max_size=5), st.integers(-5, 5), st.one_of(st.none(), st.floats(allow_nan=False))),
    min_size=1,
    max_size=12,
)


@settings(max_examples=100, deadline=None)
@given(rows=rows, seed=st.integers(0, 2**16))
def test_data_hash_ignores_row_order_and_sees_every_value(rows, seed):
    frame = pd.DataFrame(rows, columns=["model", "n", "score"])
    digest = data_hash(frame)
    assert len(digest) == 16 and int(digest, 16) >= 0
    shuffled = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    assert data_hash(shuffled) == digest
    changed = frame.copy()
    changed.loc[0, "n"] = int(frame.loc[0, "n"]) + 100  # out of the drawn range: a different multiset of rows
    assert data_hash(changed) != digest
    assert data_hash(frame.assign(extra=1), ["model", "n", "score"]) == digest  # only the named columns count
