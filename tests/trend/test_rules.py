"""A frontier rule is one ``register`` call: the engine, the command line and the report's legend read the registry."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import densing
from densing.errors import InputError
from densing.trend import rules
from densing.trend.rules import FrontierRule
from tests.trend.test_doubling import LN2, planted_law, planted_scores


def _median_line(t, y, kind, labels, quantile, start=None):
    """The least-absolute-deviations line (Powell's estimator at q = 0.5): a rule the package does not ship."""
    slope, intercept, _ = densing.trend.censored.censored_quantile_line(t, y, kind, 0.5)
    return slope, intercept


@pytest.fixture()
def median_rule(monkeypatch):
    rule = FrontierRule("median", "censored median line over every model", _median_line, legend="median line")
    monkeypatch.setitem(rules.RULES, rule.name, rule)
    return rule


def test_a_registered_rule_needs_nothing_else(median_rule):
    import densing.trend.censored  # noqa: F401  (the rule's solver)
    from densing.cli.trend import _frontier
    from densing.trend import figures

    assert "median" in rules.names()
    # the engine: a planted table's doubling time under the new rule (every model sits on or below the line)
    result = densing.fit_trend(planted_scores(), planted_law(), rule="median", n_boot=60, n_boot_share=0, since=None, seed=1)
    assert result.rule == "median" and math.isfinite(result.doubling_time_months)
    assert result.slope_per_day == pytest.approx(LN2 / 100.0, rel=0.1)
    # the command line accepts it; the report's legend says it in the rule's own words
    assert _frontier("median") == "median"
    headline = densing.fit_trend(planted_scores(), planted_law(), rule="quantile", n_boot=20, n_boot_share=0, since=None, seed=1)
    frame = pd.DataFrame({"model": ["m"], "release_date": [pd.Timestamp("2024-01-01")], "params": [1e9], "score": [0.5],
                          "log_density": [0.0], "bound": [0]})
    names = [trace.name for trace in figures.density_figure(frame, headline, others=[result], title="t").data]
    assert any(str(name).startswith("median line (click to show or hide)") for name in names)


def test_an_unknown_rule_is_refused_in_one_line_naming_the_registered_ones():
    from densing.cli.trend import _frontier

    with pytest.raises(InputError, match=r"expected one of quantile, all, envelope, got 'nope'"):
        _frontier("nope")
    with pytest.raises(InputError):
        densing.fit_trend(planted_scores(n=30), planted_law(), rule="nope", n_boot=5)


def test_a_rule_name_is_registered_once():
    with pytest.raises(ValueError, match="already registered"):
        rules.register(FrontierRule("quantile", "again", rules.RULES["quantile"].fit))
    assert np.array_equal(rules.frontier_lines("envelope", []), np.empty((0, 2)))
