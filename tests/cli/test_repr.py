"""Notebook manners: short reprs and HTML tables for the fitted objects; the public density function."""

from __future__ import annotations

import pandas as pd
import pytest

import densing
import densing.present as present
from densing import paths
from densing.laws.reference_fit import ReferenceFit
from densing.present.words import state_words


@pytest.fixture(scope="module")
def reference() -> ReferenceFit:
    return ReferenceFit.load(sorted(paths.REFERENCE_FITS.glob("pythia_*.json"))[0])


def test_reference_fit_repr(reference):
    text = repr(reference)
    assert text.startswith("ReferenceFit(") and len(text) < 300 and text.count("\\n") == 0
    html = reference._repr_html_()
    assert "<table>" in html and "alpha" in html and "R²" in html


def test_trend_fit_repr():
    from tests.trend.test_doubling import planted_law, planted_scores

    fit = densing.fit_trend(
        planted_scores(n=30, start_day=0, end_day=700), planted_law(), rule="all", n_boot=40, n_boot_share=0, since=None
    )
    text = repr(fit)
    assert (
        text.startswith(f"TrendUncertainty(all, {state_words(fit.state)}: doubling time")
        and len(text) < 300
        and text.count("\n") == 0
    )
    assert "<table>" in fit._repr_html_() and "doubling_time_months" in fit._repr_html_()


def test_trend_measurement_repr():
    from densing.data import read_results
    from densing.paths import DEFAULT_DENSITY_TARGETS as DEFAULT_RESULTS
    from densing.trend.measure import measure_trend

    result = measure_trend(read_results(DEFAULT_RESULTS), n_boot=40, seed=0)
    text = repr(result)
    assert text.startswith("TrendMeasurement(") and len(text) < 300
    # the slope A with its interval, in the rules' table and in each rule's repr
    assert {"slope_per_day", "slope_ci_low", "slope_ci_high"} <= set(result.table().columns)
    assert "/day [" in repr(result.rules[result.headline_rule])
    html = result._repr_html_()
    assert "<table>" in html and "validity checks" in html
    # plot(highlight=...) refuses what is not densing measure's rows, as an InputError (a KeyError 'density' before)
    with pytest.raises(densing.InputError, match="highlight: missing column"):
        present.figure(result, highlight=pd.DataFrame({"model": ["mine"]}))
    with pytest.raises(densing.InputError, match="highlight: expected a DataFrame"):
        present.figure(result, highlight="mine")


def test_compute_density_is_a_function():
    assert callable(densing.compute_density)
    # the notebook's table has its words in place (densing.present.laws); densing.density's holds the values
    assert densing.compute_density.__module__ == "densing.present.laws"
    assert densing.compute_density.__wrapped__ is densing.density.compute_density
    with pytest.raises(TypeError):
        densing.density()  # the module is a module
