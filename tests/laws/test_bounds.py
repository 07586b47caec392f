"""log_density_bounds against the whole-array computation it replaces: every element's (y, kind) the same bits."""

from __future__ import annotations

import numpy as np
import pytest

from densing.laws.bounds import EXACT, LOWER, MARGIN_STDERRS, UPPER, log_density_bounds, score_cap
from densing.laws.reference_fit import invert_scores

D0 = 2e12
POINT = {"a": 400.0, "alpha": 0.34, "b": 410.0, "beta": 0.28, "E": 1.7, "c": 0.7, "gamma": -3.0, "l": 2.2, "d": 0.25}


def whole_array(p, scores, stderr, params, d0):
    """Each score's value and both bounds inverted over the whole array, then picked by its censoring."""
    sigma = np.nan_to_num(stderr)
    _, size, reasons = invert_scores(p, scores, d0)
    size = np.broadcast_to(size, np.broadcast_shapes(np.shape(size), scores.shape))
    reasons = np.broadcast_to(reasons, size.shape)
    above = (reasons == "beyond_data_limit") | (reasons == "above_ceiling")
    below = reasons == "below_floor"
    high = np.minimum(scores, np.asarray(score_cap(p, d0))) - MARGIN_STDERRS * sigma
    low = np.maximum(scores, np.asarray(p["d"])) + MARGIN_STDERRS * sigma
    _, high_size, high_reasons = invert_scores(p, np.where(above, high, scores), d0)
    _, low_size, low_reasons = invert_scores(p, np.where(below, low, scores), d0)
    with np.errstate(divide="ignore", invalid="ignore"):
        y, y_high, y_low = np.log(size / params), np.log(high_size / params), np.log(low_size / params)
    kind = np.full(size.shape, np.nan)
    exact = (reasons == "") & np.isfinite(y)
    lower = above & (high_reasons == "") & np.isfinite(y_high)
    upper = below & (low_reasons == "") & np.isfinite(y_low)
    kind[exact], kind[lower], kind[upper] = EXACT, LOWER, UPPER
    return np.where(lower, y_high, np.where(upper, y_low, np.where(exact, y, np.nan))), kind


@pytest.mark.parametrize("draws", [None, 64])
def test_the_bounds_are_those_of_the_whole_array(draws):
    rng = np.random.default_rng(3)
    models = 30
    params = rng.uniform(5e8, 7e10, models)
    stderr = rng.uniform(0.0, 0.02, models)
    stderr[2] = np.nan  # no standard error: a zero margin
    if draws is None:
        p = dict(POINT)
        scores = rng.uniform(0.2, 1.0, models)  # below the floor 0.25, inside, and above the cap
    else:
        p = {k: v * rng.uniform(0.97, 1.03, (draws, 1)) for k, v in POINT.items()}
        scores = rng.uniform(0.2, 1.0, (draws, models))
    y, kind = log_density_bounds(p, scores, stderr, params, D0)
    y_ref, kind_ref = whole_array(p, scores, stderr, params, D0)
    assert {EXACT, LOWER, UPPER} <= set(kind[np.isfinite(kind)].tolist())
    assert np.isnan(kind).any()  # a bound the law cannot express is dropped
    assert np.array_equal(y, y_ref, equal_nan=True) and np.array_equal(kind, kind_ref, equal_nan=True)
