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
from studies._planted import frontier_line
from tests.trend.test_doubling import LN2, planted_law, planted_scores


def _median_line(t, y, kind, weight, labels, quantile, start=None):
    """The least-absolute-deviations line (Powell's estimator at q = 0.5): a rule the package does not ship."""
    slope, intercept, _ = densing.trend.censored.censored_quantile_lines_weighted(t, y, kind, weight, 0.5, start)
    return np.stack([slope, intercept], axis=1)


@pytest.fixture()
def median_rule(monkeypatch):
    rule = FrontierRule("median", "censored median line over every model", _median_line, legend="median line")
    monkeypatch.setitem(rules.RULES, rule.name, rule)
    return rule


def test_a_registered_rule_needs_nothing_else(median_rule):
    import densing.trend.censored  # noqa: F401  (the rule's solver)
    from densing.present import figures

    assert "median" in rules.RULES.names()
    # the engine: a planted table's doubling time under the new rule (every model sits on or below the line)
    result = densing.fit_trend(
        planted_scores(), planted_law(), rule="median", n_boot=60, n_boot_share=0, since=None, seed=1
    )
    assert result.rule == "median" and math.isfinite(result.doubling_time_months)
    assert result.slope_per_day == pytest.approx(LN2 / 100.0, rel=0.1)
    # the command line accepts it; the report's legend says it in the rule's own words
    assert rules.get("median").name == "median"  # what the command line's --frontier reads
    headline = densing.fit_trend(
        planted_scores(), planted_law(), rule="quantile", n_boot=40, n_boot_share=0, since=None, seed=1
    )
    frame = pd.DataFrame(
        {
            "model": ["m"],
            "release_date": [pd.Timestamp("2024-01-01")],
            "params": [1e9],
            "score": [0.5],
            "log_density": [0.0],
            "bound": [0],
        }
    )
    names = [trace.name for trace in figures.density_figure(frame, headline, others=[result], title="t").data]
    assert any(str(name).startswith("median line (click to show or hide)") for name in names)


def test_an_unknown_rule_is_refused_in_one_line_naming_the_registered_ones():
    with pytest.raises(InputError, match=r"expected one of quantile, all, envelope, got 'nope'"):
        rules.get("nope")
    with pytest.raises(InputError):
        densing.fit_trend(planted_scores(n=30), planted_law(), rule="nope", n_boot=40)


def test_a_rule_name_is_registered_once():
    with pytest.raises(ValueError, match="already registered"):
        rules.register(FrontierRule("quantile", "again", rules.RULES["quantile"].solve))
    empty = np.empty((0, 5))
    assert rules.frontier_lines_weighted(
        "envelope", np.arange(5.0), empty, empty, empty, np.array(list("abcde"))
    ).shape == (0, 2)


def _reference_line(rule: str, t, y, kind, labels) -> tuple[float, float]:
    """Each shipped rule's reference implementation on one problem, its points listed (repeated where counted twice):
    the censored quantile line of the solver on weight-1 points, the envelope's record-setters through numpy's
    polyfit, the Tobit line by L-BFGS-B (tobit_line)."""
    from densing.trend.censored import censored_quantile_lines_weighted
    from densing.trend.rules import envelope_index
    from densing.trend.tobit import tobit_line

    usable = np.isfinite(y) & np.isfinite(kind)
    t, y, kind, labels = t[usable], y[usable], kind[usable], labels[usable]
    if t.size < 3 or np.ptp(t) == 0:
        return math.nan, math.nan
    if rule == "quantile":
        slope, intercept, _ = censored_quantile_lines_weighted(t, y[None], kind, 1.0, 0.9)
        return float(slope[0]), float(intercept[0])
    if rule == "all":
        return tuple(tobit_line(t, y, kind.astype(int))[:2])
    index = envelope_index(t, y, labels)
    if index.size < 3 or np.unique(t[index]).size < 2:
        return math.nan, math.nan
    return tuple(np.polyfit(t[index], y[index], 1))


@pytest.mark.parametrize("rule", ["quantile", "envelope", "all"])
def test_a_resample_as_counts_gives_the_line_of_its_points_repeated(rule):
    """frontier_lines_weighted (a bootstrap's draws as counts of the points) against each rule's reference
    implementation on the resampled points listed: the same line (the quantile rule's to the solver's rounding: its walk visits the points in another order; the
    Tobit rule's to L-BFGS-B's tolerance, which the rows' Newton steps solve past: their likelihood is never lower)."""
    rng = np.random.default_rng(5)
    n, draws = 40, 12
    t = np.round(rng.uniform(0, 700, n), -1)
    labels = np.array([f"m{i}" for i in range(n)])
    y = 0.004 * t + rng.normal(0, 0.5, (draws, n))
    kind = rng.choice([0, 0, 0, 0, 1, -1], (draws, n)).astype(float)
    y[:, 3] = np.nan  # an unusable point
    index = rng.integers(n, size=(draws, n))
    index[0] = 7  # one date only: no line
    weight = np.stack([np.bincount(row, minlength=n) for row in index])
    found = rules.frontier_lines_weighted(rule, t, y, kind, weight, labels, 0.9)
    repeated = [np.sort(row) for row in index]
    expected = np.array([_reference_line(rule, t[i], y[k, i], kind[k, i], labels[i]) for k, i in enumerate(repeated)])
    assert np.isnan(found[0]).all() and np.isnan(expected[0]).all()
    assert np.allclose(found, expected, rtol=1e-7, atol=1e-9 if rule != "all" else 5e-7, equal_nan=True)


def test_the_mean_rules_point_line_is_tobit_lines_optimum():
    """The ``all`` rule's point line (Newton, tobit_lines_weighted on one row) against tobit_line (L-BFGS-B), on a
    planted line with a third of the points bounds of either kind: the same optimum to L-BFGS-B's tolerance."""
    from densing.trend.tobit import tobit_line

    rng = np.random.default_rng(3)
    t = np.sort(rng.uniform(0, 900, 90))
    y = 0.004 * t - 2 + 0.4 * rng.standard_normal(t.size)
    kind = rng.choice([0.0, 0.0, 1.0, -1.0], size=t.size)
    labels = np.array([f"m{i}" for i in range(t.size)])
    slope, intercept = frontier_line("all", t, y, kind, labels)
    expected = tobit_line(t, y, kind.astype(int))
    assert (slope, intercept) == pytest.approx(expected[:2], rel=1e-6, abs=1e-9)
