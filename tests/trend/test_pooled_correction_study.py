"""studies/pooled_correction.py's rules: each round plants the world at the figure the round before corrects to, the
rounds stop when two corrected points agree within the correction's Monte Carlo error (or at the most rounds), and
the check corrects each replicate as the CLI corrects the real figure."""

from __future__ import annotations

import math

import numpy as np
import pytest

from densing.trend.bias import corrected_slopes


@pytest.fixture(scope="module")
def study():
    from studies import pooled_correction

    return pooled_correction


def _bias(study, months, bias, bias_se=0.02):
    return study.Bias(months, bias, bias_se, 150, 0)


def test_a_round_plants_the_world_at_the_point_the_round_before_corrects_to(study):
    assert study.planted_months([], 6.0) == 6.0
    first = _bias(study, 6.0, 0.25)
    assert first.corrected_point(6.0) == pytest.approx(7.5)  # a doubling time scales as 1/slope
    assert study.planted_months([first], 6.0) == pytest.approx(7.5)
    assert first.error_months(6.0) == pytest.approx(7.5 * 0.02 / 1.25)


def test_the_rounds_settle_within_the_monte_carlo_error_and_stop_at_the_most(study):
    point = 6.0
    one = [_bias(study, 6.0, 0.25)]
    assert not study.settled(one, point)  # one round has nothing to agree with
    close = one + [_bias(study, 7.5, 0.26)]  # 7.56 against 7.50: 0.06 < 7.56·0.02/1.26 = 0.12
    far = one + [_bias(study, 7.5, 0.35)]  # 8.10 against 7.50
    assert study.settled(close, point) and study.rounds_done(close, point)
    assert not study.settled(far, point) and not study.rounds_done(far, point)
    assert study.rounds_done(far + [_bias(study, 8.1, 0.5)], point)  # the most rounds


def test_the_check_corrects_each_replicate_as_the_cli_does_and_counts_coverage(study):
    from studies import three_tables

    world = three_tables.WORLDS["common"].at(8.0)
    truth = world.slope
    records = [
        {"replicate": r, "slope": truth * 1.3, "low": truth * (0.5 + 0.01 * r), "high": truth * 2.0} for r in range(10)
    ]
    records.append({"replicate": 10, "error": "refused"})
    applied = _bias(study, 8.0, 0.3, 0.01)
    found = study.check_of(world, records, applied)
    fixed, low, high = corrected_slopes(truth * 1.3, truth * 0.5, truth * 2.0, 0.3, 0.01)
    assert found["replicates"] == 10 and found["failed"] == 1
    assert found["corrected"]["bias"] == pytest.approx(fixed / truth - 1) and abs(found["corrected"]["bias"]) < 1e-9
    assert found["uncorrected"]["bias"] == pytest.approx(0.3)
    assert found["corrected"]["coverage"] == 1.0 and low < truth < high
    assert math.isclose(found["uncorrected"]["coverage"], 1.0)
    assert np.isfinite(found["corrected"]["bias_se"])
