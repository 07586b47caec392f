"""Invariants of the law forms and their inversion (Xiao et al. 2024, eqs. 2–4)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from densing.laws import forms

LAW = dict(a=400.0, alpha=0.34, b=410.0, beta=0.28)
SIGMOID = dict(c=0.7, gamma=-2.5, l=2.6, d=0.25)


def test_loss_law_by_hand():
    # L = 400·1e9^-0.34 + 410·1e12^-0.28, computed term by term
    expected = 400.0 * 1e9**-0.34 + 410.0 * 1e12**-0.28
    assert forms.loss_law(1e9, 1e12, **LAW) == pytest.approx(expected, rel=1e-12)
    assert forms.loss_law(1e9, 1e12, **LAW, E=1.69) == pytest.approx(expected + 1.69, rel=1e-12)


def test_performance_law_midpoint_and_limits():
    assert forms.performance_law(SIGMOID["l"], **SIGMOID) == pytest.approx(SIGMOID["d"] + SIGMOID["c"] / 2)
    assert forms.performance_law(1e6, **SIGMOID) == pytest.approx(SIGMOID["d"])  # huge loss → floor
    assert forms.performance_law(-1e6, **SIGMOID) == pytest.approx(SIGMOID["d"] + SIGMOID["c"])


@settings(max_examples=200, deadline=None)
@given(
    log_params=st.floats(7.0, 11.5),
    log_tokens=st.floats(10.0, 13.0),
    d0_log=st.floats(10.0, 13.0),
)
def test_round_trip_params_score_params(log_params, log_tokens, d0_log):
    """N → S(N, D0) → N̂(S) at the same D0 gives N back (the inversion is exact)."""
    n, d0 = 10.0**log_params, 10.0**d0_log
    score = forms.composed_law(n, d0, **LAW, **SIGMOID)
    if not (SIGMOID["d"] + 1e-9 < score < SIGMOID["d"] + SIGMOID["c"] - 1e-9):
        return  # saturated in float64: no information left to invert
    loss = forms.loss_for_score(score, **SIGMOID)
    recovered = forms.params_for_loss(loss, d0, **LAW)
    assert recovered == pytest.approx(n, rel=1e-5)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.2501, 0.9499), min_size=2, max_size=20, unique=True))
def test_effective_params_monotone_in_score(scores):
    scores = np.sort(np.array(scores))
    loss = forms.loss_for_score(scores, **SIGMOID)
    sizes = forms.params_for_loss(loss, 1e12, **LAW)
    assert np.all(np.diff(loss) < 0)  # a higher score needs a lower loss
    finite = np.isfinite(sizes)
    assert np.all(np.diff(sizes[finite]) > 0)  # … and a larger model
    # once a score is beyond the data limit, every higher score is too
    if (~finite).any():
        assert np.all(~finite[np.argmax(~finite) :])


def test_inversion_outside_the_sigmoid_is_nan_and_below_data_floor_is_inf():
    assert math.isnan(forms.loss_for_score(0.25, **SIGMOID))  # at the floor
    assert math.isnan(forms.loss_for_score(0.95, **SIGMOID))  # at the ceiling c + d
    floor = LAW["b"] * 1e12 ** -LAW["beta"]
    assert forms.params_for_loss(floor, 1e12, **LAW) == math.inf
    assert forms.params_for_loss(floor * 0.5, 1e12, **LAW) == math.inf
    assert np.isfinite(forms.params_for_loss(floor * 1.5, 1e12, **LAW))
