"""Every result type stands on densing.results.Result: to_frame(), to_dict() and conf_int() of the trend measurement,
an inversion's trend, the OLMES trend and the joint inversion, their summary() and record from densing.present, and
conf_int()'s one shape."""

import math
from dataclasses import dataclass

import numpy as np
import orjson
import pandas as pd
import pytest

import densing.present as present
from densing import paths
from densing.results import CONF_INT_COLUMNS, Result
from densing.states import LeftOut


@pytest.fixture(scope="module")
def measurement():
    from densing.data import read_results
    from densing.trend.measure import measure_trend

    return measure_trend(read_results(paths.RESULTS / "public_models.csv"), n_boot=40, n_boot_side=40, seed=0)


def _is_interval_frame(frame) -> bool:
    return (
        isinstance(frame, pd.DataFrame)
        and list(frame.columns) == list(CONF_INT_COLUMNS)
        and frame.index.name == "quantity"
    )


@dataclass(frozen=True)
class _Nested(Result):
    months: float
    months_ci_low: float
    months_ci_high: float
    slope_ci_low: float = 0.1
    slope_ci_high: float = 0.3
    slope_per_day: float = 0.2
    _ci_estimates = {"slope": "slope_per_day"}


@dataclass(frozen=True)
class _Outer(Result):
    name: str
    inner: _Nested
    level_ci_low: float = 1.0
    level_ci_high: float = 2.0


def test_conf_int_maps_every_ci_pair_to_a_row_and_follows_nested_results():
    frame = _Outer("x", _Nested(3.0, 2.0, 5.0)).conf_int()
    assert _is_interval_frame(frame)
    assert list(frame.index) == ["inner.months", "inner.slope", "level"]
    assert frame.loc["inner.months"].tolist() == [3.0, 2.0, 5.0]
    assert frame.loc["inner.slope"].tolist() == [0.2, 0.1, 0.3]
    assert math.isnan(frame.loc["level", "estimate"]) and frame.loc["level", "ci_high"] == 2.0


def test_a_result_without_intervals_gives_no_rows():
    from densing.trend.checks import Check

    frame = Check("saturation", 0.1, "passed").conf_int()
    assert _is_interval_frame(frame) and frame.empty


def test_the_trend_measurement(measurement):
    from densing.trend.measurement import TrendMeasurement

    assert isinstance(measurement, TrendMeasurement) and isinstance(measurement, Result)
    head = measurement.rules[measurement.headline_rule]
    interval = measurement.conf_int()
    assert _is_interval_frame(interval) and list(interval.index) == ["slope", "doubling_time_months"]
    assert interval.loc["doubling_time_months"].tolist() == pytest.approx(
        [head.doubling_time_months, head.doubling_time_months_ci_low, head.doubling_time_months_ci_high], nan_ok=True
    )
    assert interval.loc["slope", "estimate"] == head.slope_per_day
    assert list(measurement.breakpoint.conf_int().index) == ["before.slope", "after.slope"]
    frame = measurement.to_frame()
    assert list(frame["rule"]) == list(measurement.rules) and "months" in frame.columns
    assert {"status", "verdict", "headline"}.isdisjoint(measurement.to_dict())  # values: the words are the layer's
    data = present.record(measurement)
    assert set(data["rules"]) == set(measurement.rules) and data["headline"] == present.headline(measurement)
    assert "densities" not in data and "models" not in data and isinstance(data["checks"], list)
    orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY)  # JSON-ready
    text = str(present.summary(measurement))
    assert (
        text.startswith("TrendMeasurement\n")
        and present.verdict_of(measurement) in text
        and "interval (months)" in text
    )
    assert "<table>" in measurement._repr_html_()


def test_the_olmes_trend():
    from densing.designs.olmes.trend import OlmesTrend

    rows = pd.DataFrame(
        {
            "task": ["arc_challenge", "hellaswag"],
            "benchmark": ["olmes_arc_challenge_mc", "olmes_hellaswag_mc"],
            "months": [4.0, math.nan],
            "ci_low": [3.0, math.nan],
            "ci_high": [6.0, math.nan],
            "n_models": [18, 0],
            "error": ["", "not measured: a poor fit"],
        }
    )
    checks = pd.DataFrame({"benchmark": ["olmes_arc_challenge_mc"], "name": ["saturation"], "status": ["failed"]})
    result = OlmesTrend(
        rows, checks, pd.DataFrame({"model": ["m"], "reason": [LeftOut.NO_DATE], "detail": [None]}), pd.DataFrame()
    )
    interval = result.conf_int()
    assert _is_interval_frame(interval)
    assert list(interval.index) == [
        "olmes_arc_challenge_mc.doubling_time_months",
        "olmes_hellaswag_mc.doubling_time_months",
    ]
    assert interval.iloc[0].tolist() == [4.0, 3.0, 6.0] and interval.iloc[1].isna().all()
    assert result.to_frame().equals(rows)
    data = result.to_dict()
    assert data["rows"][1]["months"] is None and data["rows"][0]["n_models"] == 18 and data["offsets"] == []
    orjson.dumps(data)
    text = str(present.summary(result))
    assert "4 months (3 to 6), 18 models" in text and "olmes_hellaswag_mc      not measured: a poor fit" in text
    assert text.splitlines()[-1].split() == ["failed", "checks", "1"]


def test_the_joint_inversion():
    from densing.laws.joint import JointInversion

    result = JointInversion(
        log_size=np.log([1e9, 1e15]),
        censored=np.array(["", "above_range"], dtype=object),
        tau2=np.zeros((2, 2)),
        skill2=0.1,
        weights=np.ones((2, 2)),
        slope=np.ones((2, 2)),
        chi2=np.array([0.5, 1.0]),
        birge_ratio=np.array([0.7, math.nan]),
        per_benchmark_size=np.array([[1e9, 2e9], [math.inf, 1e15]]),
        rounds=np.array([1, 1]),
        settled=np.array([True, True]),
    )
    frame = result.to_frame()
    assert len(frame) == 2 and frame["effective_params"].iloc[0] == pytest.approx(1e9)
    assert {"per_benchmark_size_0", "per_benchmark_size_1", "weight_1", "tau2_0", "slope_1"} <= set(frame.columns)
    data = result.to_dict()
    assert data["birge_ratio"] == [0.7, None] and data["per_benchmark_size"][1][0] is None and data["skill2"] == 0.1
    orjson.dumps(data)
    text = str(present.summary(result))
    assert text.startswith("JointInversion\n") and "above_range" in text and "models" in text and "[" not in text
    assert _is_interval_frame(result.conf_int()) and result.conf_int().empty


def test_fits_give_their_intervals_in_the_one_shape():
    from densing.laws.reference_fit import ReferenceFit

    fit = ReferenceFit.load(paths.REFERENCE_FITS / "family_llama-3.1_mmlu.json")
    interval = fit.conf_int()
    assert _is_interval_frame(interval) and sorted(interval.index) == sorted(fit.params)


def test_trend_uncertainty_plots_its_interval_references_and_shares(measurement):
    """TrendUncertainty.plot(): the doubling time and its interval, each reference's own point estimate, the paper's
    3.3 months, and each source's share of the slope variance — the numbers it holds, drawn."""
    import plotly.graph_objects as go

    head = measurement.rules[measurement.headline_rule]
    assert head.n_references > 1  # the headline's references: the reference's share is drawn too
    figure = present.figure(head)
    assert isinstance(figure, go.Figure)
    by_name = {t.name: t for t in figure.data}
    point = next(t for name, t in by_name.items() if name.startswith("doubling time"))
    assert list(point.x) == pytest.approx([head.doubling_time_months])
    interval = next(t for name, t in by_name.items() if name.endswith("interval"))
    assert interval.x[0] == pytest.approx(head.doubling_time_months_ci_low)
    if math.isfinite(head.doubling_time_months_ci_high):
        assert interval.x[1] == pytest.approx(head.doubling_time_months_ci_high)
    own = by_name["each reference's own point estimate"]
    assert len(own.x) == head.n_references
    shares = next(t for t in figure.data if isinstance(t, go.Bar))
    expected = [100 * getattr(head, f"share_{s}") for s in ("fit", "score", "models", "reference")]
    assert list(shares.x) == pytest.approx(expected)
    assert sum(shares.x) == pytest.approx(100)
    assert any("paper 3.3 months" in (a.text or "") for a in figure.layout.annotations)
    assert any("paper 2 months" in (a.text or "") for a in present.figure(head, paper_months=2).layout.annotations)


def test_a_single_reference_trend_plots_without_the_reference_share():
    """fit_trend against one fit: three sources, one reference point; shares not drawn (n_boot_share = 0) say so."""
    import plotly.graph_objects as go

    from densing.states import ReferenceName
    from densing.trend.uncertainty import TrendUncertainty

    nan = math.nan
    one = TrendUncertainty(
        rule="quantile",
        inversion="x",
        slope_per_day=0.005,
        intercept=0.0,
        slope_ci_low=-0.001,
        slope_ci_high=0.01,
        doubling_time_months=4.56,
        doubling_time_months_ci_low=2.28,
        doubling_time_months_ci_high=math.inf,
        n_models=40,
        n_exact=40,
        n_lower_bounds=0,
        n_upper_bounds=0,
        n_dropped=0,
        n_boot=50,
        level=0.95,
        share_fit=nan,
        share_score=nan,
        share_models=nan,
        slope_sd_fit=nan,
        slope_sd_score=nan,
        slope_sd_models=nan,
        slope_sd_all=0.003,
        failed_draws=0,
        reference_names=(ReferenceName("x"),),
        reference_weights=(1.0,),
        reference_slopes=(0.005,),
    )
    figure = present.figure(one)
    bar = next(t for t in figure.data if isinstance(t, go.Bar))
    assert list(bar.text) == ["not drawn"] * 3
    interval = next(t for t in figure.data if (t.name or "").endswith("interval"))
    assert "∞" in list(interval.text)  # the upper end at ∞: an arrow to the edge, labelled


def _result_types() -> list[type]:
    import importlib
    import pkgutil

    import densing

    for module in pkgutil.walk_packages(densing.__path__, "densing."):
        if module.name.startswith(("densing.eval", "densing.overlap.train", "densing.cli")):
            continue  # lm-eval and torch; the CLI has no result types
        importlib.import_module(module.name)
    seen, stack = [], list(Result.__subclasses__())
    while stack:
        cls = stack.pop()
        if cls.__module__.startswith("densing.") and cls not in seen:
            seen.append(cls)
        stack.extend(cls.__subclasses__())
    return seen


def test_every_interval_field_of_every_result_type_is_named_x_ci_low_and_x_ci_high():
    """One naming scheme in the Python API: an interval is the pair X_ci_low / X_ci_high (conf_int's row X), whose
    estimate is the field X or the one _ci_estimates names."""
    from dataclasses import fields

    types = _result_types()
    assert len(types) >= 8, types
    wrong = []
    for cls in types:
        names = {f.name for f in fields(cls)}
        for name in names:
            if ("ci_low" in name or "ci_high" in name) and not name.endswith(("_ci_low", "_ci_high")):
                wrong.append(f"{cls.__name__}.{name}: not X_ci_low / X_ci_high")
            elif name.endswith("_ci_low"):
                quantity = name.removesuffix("_ci_low")
                if quantity + "_ci_high" not in names:
                    wrong.append(f"{cls.__name__}.{name}: no {quantity}_ci_high")
                if quantity not in names and quantity not in cls._ci_estimates and not hasattr(cls, quantity):
                    wrong.append(f"{cls.__name__}.{name}: no estimate field {quantity}")
    assert not wrong, wrong


def test_every_result_type_has_the_statsmodels_methods_and_conf_int_takes_a_level():
    """Every Result subclass: to_frame(), to_dict() and conf_int(alpha=0.05), whatever it overrides (its summary() is
    densing.present.summary's)."""
    import inspect

    types = _result_types()
    names = {cls.__name__ for cls in types}
    assert {
        "ForecastWindows",
        "ForecastCutoff",
        "LadderCheck",
        "TrendMeasurement",
        "TrendUncertainty",
        "ReferenceFit",
    } <= names
    for cls in types:
        assert all(callable(getattr(cls, m, None)) for m in ("to_frame", "to_dict", "conf_int")), cls
        alpha = inspect.signature(cls.conf_int).parameters.get("alpha")
        assert alpha is not None and alpha.default == 0.05, f"{cls.__name__}.conf_int has no alpha=0.05"


def test_conf_int_gives_the_level_a_result_holds_and_refuses_another():
    from densing.errors import InputError
    from densing.laws.reference_fit import ReferenceFit

    frame = _Outer("x", _Nested(3.0, 2.0, 5.0)).conf_int(alpha=0.05)
    assert frame.loc["inner.months"].tolist() == [3.0, 2.0, 5.0]
    with pytest.raises(InputError, match=r"^alpha: _Nested holds 0\.95 intervals"):
        _Outer("x", _Nested(3.0, 2.0, 5.0)).conf_int(alpha=0.1)
    for bad in (0, 1, 1.5, -0.1, "0.05"):
        with pytest.raises(InputError, match="^alpha: expected"):
            _Outer("x", _Nested(3.0, 2.0, 5.0)).conf_int(alpha=bad)
    # a fit that keeps its draws computes any level from them: the 90% interval lies inside the 95% one
    fit = ReferenceFit.load(paths.REFERENCE_FITS / "family_llama-3.1_mmlu.json")
    wide, narrow = fit.conf_int(), fit.conf_int(alpha=0.1)
    assert (narrow["estimate"] == wide["estimate"]).all()
    drawn = wide.dropna().index  # the parameters the bootstrap draws (a fixed one has no interval at any level)
    assert len(drawn) >= 2 and narrow.loc[drawn].notna().all().all()
    wide, narrow = wide.loc[drawn], narrow.loc[drawn]
    inside = (narrow["ci_low"] >= wide["ci_low"]) & (narrow["ci_high"] <= wide["ci_high"])
    assert inside.all() and ((narrow["ci_high"] - narrow["ci_low"]) < (wide["ci_high"] - wide["ci_low"])).any()
    draws = np.asarray(fit.bootstrap, float)[:, fit.bootstrap_names.index("gamma")]
    assert narrow.loc["gamma", "ci_low"] == pytest.approx(np.quantile(draws, 0.05))


def test_a_trend_holds_the_level_it_was_fitted_at():
    import densing
    from densing.errors import InputError

    fitted = densing.fit_trend(
        densing.read_results(paths.RESULTS / "public_models.csv"), rule="envelope", n_boot=40, n_boot_share=0, level=0.9
    )
    interval = fitted.conf_int(alpha=0.1)
    assert (
        fitted.interval_level() == 0.9
        and interval.loc["doubling_time_months", "ci_low"] == fitted.doubling_time_months_ci_low
    )
    with pytest.raises(InputError, match="holds 0.9 intervals"):
        fitted.conf_int()


def test_the_ladder_check_is_a_result():
    from densing.errors import InputError
    from densing.laws.olmo.check import LadderCheck

    held = pd.DataFrame(
        {
            "model": ["olmo-2-7b"],
            "benchmark": ["olmes_mmlu"],
            "measured_score": [0.6],
            "predicted_score": [0.62],
            "predicted_score_ci_low": [0.58],
            "predicted_score_ci_high": [0.66],
            "relative_error": [0.033],
            "ai2_relative_error": [math.nan],
        }
    )
    dens = pd.DataFrame(
        {
            "model": ["olmo-2-1b"],
            "benchmark": ["olmes_mmlu"],
            "score": [0.4],
            "density": [1.1],
            "density_ci_low": [0.8],
            "density_ci_high": [1.5],
            "ci_fold": [1.9],
            "conditioning": [1.2],
            "ci_contains_1": [True],
            "why": [""],
        }
    )
    check = LadderCheck(held, dens, pd.DataFrame({"variant": ["shipped"], "olmo-2-7b_mean_error": [0.03]}), 0.0234, 0.9)
    interval = check.conf_int(alpha=0.1)
    assert interval.loc["olmo-2-7b.olmes_mmlu.predicted_score"].tolist() == [0.62, 0.58, 0.66]
    assert interval.loc["olmo-2-1b.olmes_mmlu.density"].tolist() == [1.1, 0.8, 1.5]
    with pytest.raises(InputError, match="holds 0.9 intervals"):
        check.conf_int()
    data = check.to_dict()
    assert data["held_out"][0]["ai2_relative_error"] is None and data["level"] == 0.9
    orjson.dumps(data)
    assert check.to_frame().equals(held)
    text = str(present.summary(check))
    assert text.startswith("LadderCheck\n") and "olmo-2-7b: mean relative error over the five tasks 3.30%" in text
