"""Step 5's second fact: a determined end is precise when its 95% Monte Carlo range in months spans at most
END_STABILITY of it; a judged row's draws double while an end is undecided (up to DRAWS_CAP) or a determined end is
not precise (up to PRECISION_DRAWS_CAP); the state reads the signs alone."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings, strategies as st

from densing.constants import DRAWS_CAP, END_STABILITY, PRECISION_DRAWS_CAP
from densing.trend import pooling, selection
from densing.trend.random_effects import determined_ends, draws_needed, precise
from densing.trend.rules import doubling_months


def test_precise_is_the_range_width_over_the_end_in_months():
    assert precise(9.0, 11.5, 10.0)  # 2.5 of 10: 25%, precise
    assert not precise(9.0, 11.6, 10.0)  # 26%
    assert not precise(12.8, 150.0, 18.4)  # BBH's upper end at 600 draws
    assert not precise(math.nan, 11.0, 10.0) and not precise(9.0, math.inf, 10.0) and not precise(9.0, 10.0, math.inf)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.1, 100), st.floats(0, 2), st.floats(0.5, 1.5), st.floats(1e-3, 1e3))
def test_precision_does_not_depend_on_the_unit(value, width, offset, scale):
    """The rule is a ratio: the same in days as in months, whatever the end's size (away from the threshold itself,
    where a width of exactly 25% lands on either side of it by rounding)."""
    assume(abs(width - END_STABILITY) > 1e-9)
    low = value * offset - width * value / 2
    high = low + width * value
    assert precise(low, high, value) == precise(low * scale, high * scale, value * scale)
    assert precise(low, high, value) == (width <= END_STABILITY)


def test_determined_ends_flag_each_end_from_its_months_range():
    """The upper end's flag reads the slope's 0.025 quantile's range mapped to months, the lower end's the 0.975's;
    an end that is not determined is never precise (it has no value to be precise about)."""
    high_end = (0.0040, 0.0042)  # the slope's 0.975 quantile's range: the lower end in months, narrow
    narrow = determined_ends(((0.0020, 0.0021), high_end), 0.00205, 0.0041)
    wide = determined_ends(((0.0005, 0.0020), high_end), 0.0010, 0.0041)
    closed = determined_ends(((-0.001, 0.0), high_end), -0.0005, 0.0041)
    for ends in (narrow, wide, closed):
        assert ends["low_determined"] and ends["low_precise"]
    assert narrow["high_precise"] and wide["high_determined"] and not wide["high_precise"]
    assert not closed["high_determined"] and not closed["high_precise"]
    value = doubling_months(0.0010)
    assert (wide["months_high_mc_high"] - wide["months_high_mc_low"]) / value > END_STABILITY


@pytest.mark.parametrize(
    "undecided, imprecise, made, expected",
    [
        (False, False, 600, 600),  # settled: no more draws
        (True, False, 600, 1200),  # an undecided end: twice the draws
        (True, True, 2400, 4800),
        (False, True, 600, 1200),  # decided but not precise: twice, up to the precision cap
        (False, True, 1200, 2400),
        (False, True, 2400, 2400),  # at the precision cap: as many as made
        (True, False, 4800, 4800),  # at the cap
        (False, True, 6000, 6000),  # more than either cap to begin with: as many as made
    ],
)
def test_draws_needed_doubles_to_each_cap(undecided, imprecise, made, expected):
    ends = {
        "low_undecided": False,
        "low_determined": True,
        "low_precise": True,
        "high_undecided": undecided,
        "high_determined": not undecided,
        "high_precise": not imprecise,
    }
    if undecided and imprecise:  # the lower end determined and wide, the upper undecided: the sign's cap
        ends.update(low_precise=False)
    assert draws_needed(ends, made, draws_cap=4800, precision_cap=2400) == expected


def _observed(t: np.ndarray, y: np.ndarray) -> selection.CommonTargets:
    from densing.trend.uncertainty import Observed

    frame = pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(t.size)],
            "params": np.nan,
            "t": t,
            "score:y": y,
            "stderr:y": 0.0,
            "score:kind": 0.0,
            "stderr:kind": 0.0,
        }
    )
    return selection.reference_targets(Observed(), frame)


def _planted(noise: float, slope: float = 0.002, seed: int = 0) -> selection.CommonTargets:
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, 700, 40))
    return _observed(t, slope * t + rng.normal(0, noise, t.size))


def _ends(row) -> dict:
    return determined_ends(row.ends_mc, row.slope_ci_low, row.slope_ci_high)


def test_an_imprecise_end_doubles_the_draws_up_to_the_precision_cap_and_keeps_the_first():
    """A planted row whose upper end is determined (its slope quantile's range above 0) but wide at 100 draws doubles
    them while it stays wide, up to the precision cap (never past draws_cap), the first draws kept; its state is
    the one its signs give at the first draws."""
    chosen = _planted(noise=0.5)
    first = pooling.pooled_trend(chosen, n_boot=100, n_boot_share=0, seed=4)
    ends = _ends(first)
    assert ends["high_determined"] and not ends["high_precise"] and ends["low_determined"]
    grown = pooling.pooled_trend(chosen, n_boot=100, n_boot_share=0, seed=4, draws_cap=1600, precision_cap=800)
    assert grown.n_boot in (200, 400, 800) and np.array_equal(grown.draws[:100], first.draws)
    after = _ends(grown)
    assert grown.n_boot == 800 or (after["low_precise"] and after["high_precise"])  # stops when precise or capped
    assert (after["low_determined"], after["high_determined"]) == (ends["low_determined"], ends["high_determined"])
    assert grown.n_boot > 100  # it grew
    capped = pooling.pooled_trend(chosen, n_boot=100, n_boot_share=0, seed=4, draws_cap=1600, precision_cap=200)
    assert capped.n_boot == 200 and not _ends(capped)["high_precise"]  # still wide at its cap: printed as its range
    below = pooling.pooled_trend(chosen, n_boot=100, n_boot_share=0, seed=4, draws_cap=200, precision_cap=800)
    assert below.n_boot == 200  # the precision cap never exceeds the sign's
    assert pooling.pooled_trend(chosen, n_boot=100, n_boot_share=0, seed=4).n_boot == 100  # no cap: as asked


def test_a_precise_row_keeps_its_first_draws():
    """A planted row with little noise and a steep slope: both ends within 25% at 400 draws, no more are made."""
    chosen = _planted(noise=0.05, slope=0.004)
    row = pooling.pooled_trend(chosen, n_boot=400, n_boot_share=0, seed=1, draws_cap=DRAWS_CAP)
    ends = _ends(row)
    assert ends["low_precise"] and ends["high_precise"] and row.n_boot == 400


def test_the_precision_cap_is_at_most_the_sign_cap():
    assert PRECISION_DRAWS_CAP <= DRAWS_CAP
