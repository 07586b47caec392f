"""Each validity check fails on a hand-made example where it should, and passes where it should not."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import densing.present as present
from densing.trend import checks


def test_saturation_counts_frontier_scores_within_two_standard_errors_of_the_cap_as_a_finding():
    """Saturation is a finding, never a gate (studies/gate_calibration.py: it fires in about half the planted worlds
    where the estimator is right); a target at the ceiling enters the frontier fit as a lower bound instead."""
    cap = 0.88
    near = checks.saturation([0.70, 0.875], [0.004, 0.004], cap, ["a", "b"])  # 0.875 ≥ 0.88 − 0.008
    assert near.status == checks.REPORTED and not near.failed
    assert near.value == 1 and "b" in present.detail(near) and "a" not in present.detail(near).split(": ")[-1]
    clear = checks.saturation([0.70, 0.86], [0.004, 0.004], cap, ["a", "b"])  # 0.86 < 0.872
    assert clear.status == checks.REPORTED and clear.value == 0


def test_conditioning_fails_when_the_median_fold_change_exceeds_two():
    assert not checks.conditioning([1.2, 3.0, 46.0], ["a", "b", "c"]).passed
    assert checks.conditioning([1.1, 1.3, 5.0], ["a", "b", "c"]).passed
    # an unknown or infinite κ (a censored neighbour) counts as infinite
    result = checks.conditioning([1.1, np.nan, np.inf], ["a", "b", "c"])
    assert not result.passed and math.isinf(result.value)


def _families(slope: float, noise: float = 0.05, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for f, offset in (("A", 0.0), ("B", 1.0), ("C", -0.5), ("D", 0.3)):
        for n in (1e9, 3e9, 7e9, 13e9, 70e9):
            rows.append(
                {"family": f, "params": n, "log_density": offset + slope * math.log(n) + noise * rng.standard_normal()}
            )
    return pd.DataFrame(rows)


def test_size_dependence_fails_when_density_rises_with_size_inside_families():
    failing = checks.size_dependence(_families(0.5))
    assert failing.status == "failed" and failing.value > 0.4
    passing = checks.size_dependence(_families(0.0))
    assert passing.status == "passed" and abs(passing.value) < 0.1


def test_size_dependence_is_an_equivalence_test():
    # a true slope of 0.15 inside the ±0.25 margin, estimated precisely: equivalent, passes
    assert checks.size_dependence(_families(0.15, noise=0.01)).passed
    # the same slope with noisy data: the interval reaches past the margin, so equivalence is not shown
    noisy = checks.size_dependence(_families(0.15, noise=1.5, seed=3))
    assert noisy.status == "failed" and "not inside" in present.detail(noisy)
    # a slope of 0.4 is outside the margin even when its interval excludes nothing else
    assert checks.size_dependence(_families(0.4, noise=0.01)).status == "failed"
    # family offsets alone (a recipe denser than another) are not size dependence
    shifted = _families(0.0)
    shifted.loc[shifted["family"] == "B", "log_density"] += 5
    assert checks.size_dependence(shifted).passed


def test_size_dependence_says_when_it_cannot_be_estimated():
    one = pd.DataFrame({"family": ["A", "B"], "params": [1e9, 2e9], "log_density": [0.1, 0.2]})
    result = checks.size_dependence(one)
    assert result.status == "untestable" and not result.passed and not result.failed
    assert "cannot be estimated" in present.detail(result)


def test_saturation_and_conditioning_are_untestable_without_frontier_models():
    assert checks.saturation([], [], 0.9, []).status == "untestable"
    assert checks.conditioning([], []).status == "untestable"


def test_the_hc3_interval_is_statsmodels():
    from statsmodels.regression.linear_model import OLS

    frame = _families(0.2, noise=0.3, seed=5)
    design = pd.get_dummies(frame["family"], dtype=float)
    design.insert(0, "log_params", np.log(frame["params"]))
    x, y = design.to_numpy(float), frame["log_density"].to_numpy(float)
    result = OLS(y, x).fit(cov_type="HC3")
    slope, low, high = checks.ols_hc3_first(x, y, 0.95)
    assert slope == pytest.approx(result.params[0], rel=1e-10)
    assert (low, high) == pytest.approx(tuple(result.conf_int(alpha=0.05)[0]), rel=1e-8)


def test_each_failed_check_has_a_plain_sentence():
    from densing.present.verdict import plain_reason

    sensitivity = pd.DataFrame({"doubling_time_months": [2.7, 11.4]})
    size = checks.size_dependence(_families(0.5))
    assert plain_reason(size, sensitivity).startswith("Within a family, larger models come out denser")
    spread = checks.Check("sensitivity", 11.4 / 2.7, "failed")
    assert "from 2.7 to 11.4 months" in plain_reason(spread, sensitivity)
    assert "cap" in plain_reason(checks.saturation([0.9], [0.01], 0.9, ["m"]), sensitivity)
    assert "-fold" in plain_reason(checks.conditioning([5.0], ["m"]), sensitivity)


def _sized(size_effect: float, n: int, noise: float, seed: int = 0):
    """ln ρ = 0.005·t + size_effect·ln N + noise, larger models released later; 3 models per family."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 700, n)
    log_n = rng.uniform(np.log(1e9), np.log(1e11), n) + 0.003 * t
    y = 0.005 * t + size_effect * (log_n - log_n.mean()) + rng.normal(0, noise, n)
    return t, y, np.zeros(n), np.exp(log_n), [f"F{i // 3}" for i in range(n)]


@pytest.mark.parametrize(
    "size_effect, n, noise, seed, expected",
    [
        (0.0, 90, 0.3, 0, "passed"),  # no size effect
        (0.6, 90, 0.3, 0, "failed"),  # a clear, material size effect
        (0.1, 900, 0.1, 0, "passed"),  # beyond noise but within the ±0.25 margin: immaterial
        (0.6, 12, 4.0, 3, "passed"),  # an estimate above the margin whose interval includes 0
    ],
)
def test_size_confounding_fails_only_on_a_material_coefficient_whose_interval_excludes_zero(
    size_effect, n, noise, seed, expected
):
    t, y, kind, params, families = _sized(size_effect, n, noise, seed)
    found = checks.size_confounding(t, y, kind, params, families=families)
    assert found.status == expected, present.detail(found)
    if size_effect == 0.1:
        assert "excludes 0" in present.detail(found) and "within ±0.25" in present.detail(found)
    if noise == 4.0:
        assert "includes 0" in present.detail(found) and "above ±0.25" in present.detail(found)
    assert "clustered by family" in present.detail(found) and f"({n // 3} clusters)" in present.detail(found)
    if expected == "failed":
        assert found.value == pytest.approx(size_effect, abs=0.2)
        assert plain_reason_of(found).startswith("At a fixed release date, ln ρ changes +0.")


def test_size_confounding_drops_bounds_and_says_so():
    t, y, kind, params, families = _sized(0.0, 60, 0.3, seed=2)
    kind[:7] = 1.0
    found = checks.size_confounding(t, y, kind, params, families=families)
    assert "53 exact densities" in present.detail(found) and "7 bounds dropped" in present.detail(found)
    assert present.detail(checks.size_confounding(t, y, kind, params)).endswith(
        "clustered by model (53 clusters), 7 bounds dropped"
    )


def plain_reason_of(check):
    from densing.present.verdict import plain_reason

    return plain_reason(check, pd.DataFrame({"doubling_time_months": []}))
