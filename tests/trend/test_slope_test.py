"""The common-slope test's detectable difference (densing.trend.slope_test.detectable_differences) and its words
(densing.present.pooled.test_words): the stated difference is rejected at the stated power, and a test that cannot
see the declaration's 1.5× says its p-value is no evidence of one slope."""

from __future__ import annotations

import math

import numpy as np
import pytest

from densing.present.pooled import test_words as words_of_test
from densing.trend.slope_test import DECLARED_RATIO, DETECT_POWER, common_slope_test, detectable_differences


def _draws(rng: np.random.Generator, sigma: np.ndarray, count: int) -> np.ndarray:
    """``count`` draws (T, count) of three slopes with covariance ``sigma`` about 0."""
    return rng.multivariate_normal(np.zeros(len(sigma)), sigma, size=count).T


def test_a_table_off_by_the_detectable_difference_is_rejected_at_the_stated_power():
    sigma = np.array([[1.0, 0.3, 0.1], [0.3, 2.0, 0.2], [0.1, 0.2, 4.0]]) * 1e-6
    rng = np.random.default_rng(0)
    difference = detectable_differences(_draws(rng, sigma, 20000))
    assert all(math.isfinite(d) and d > 0 for d in difference)
    assert difference[2] > difference[0]  # the widest table needs the largest difference
    for table in (0, 2):
        rejected = []
        for _ in range(400):
            shift = np.zeros(3)
            shift[table] = difference[table]
            points = 0.005 + shift + rng.multivariate_normal(np.zeros(3), sigma)
            rejected.append(common_slope_test(points, _draws(rng, sigma, 400))["rejected"])
        assert np.mean(rejected) == pytest.approx(DETECT_POWER, abs=0.07)  # Monte Carlo error 0.02


def test_equal_variances_give_the_closed_form():
    sigma = np.eye(3) * 4e-6
    draws = _draws(np.random.default_rng(1), sigma, 50000)
    from scipy.special import fdtri, ncfdtrinc

    m = draws.shape[1] - 1
    noncentrality = ncfdtrinc(2, m - 1, 1 - DETECT_POWER, fdtri(2, m - 1, 0.95))
    expected = math.sqrt(noncentrality * 4e-6 * 3 / 2)  # M_TT = (1 − 1/3)/σ² for Σ = σ²I
    assert detectable_differences(draws) == pytest.approx([expected] * 3, rel=0.02)


def _test(detectable: list[float], rejected: bool = False) -> dict:
    return {
        "q": 0.9,
        "df": 2,
        "draws": 600,
        "p_value": 0.64,
        "rejected": rejected,
        "alpha": 0.05,
        "power": DETECT_POWER,
        "detectable_per_day": detectable,
    }


def test_a_test_too_wide_for_the_declared_ratio_says_its_p_is_no_evidence():
    names = ["public", "openllm_v2", "swallow"]
    slope = 0.004
    wide = words_of_test(_test([0.006, 0.0048, 0.05]), names, slope)
    assert "no evidence" in wide and "at least 2.2× the others' (openllm_v2, the most detectable" in wide
    assert f"{DECLARED_RATIO:g}×" in wide
    narrow = words_of_test(_test([0.001, 0.0012, 0.003]), names, slope)
    assert "no evidence" not in narrow and "1.2× the others' (public" in narrow
    unknown = words_of_test(_test([math.nan] * 3), names, slope)
    assert "no evidence" in unknown
    assert words_of_test(_test([0.006] * 3, rejected=True), names, slope).endswith("the tables disagree")
