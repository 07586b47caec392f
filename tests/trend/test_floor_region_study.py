"""studies/floor_region.py: the planted curve departs from the canonical one only below the knee (an effective 0.5 B),
where a family of κ_f < 1 scores above the canonical curve; the effective floors are the real table's tiny models'
median scores; the 2-SE rule is put in place for the measurement and taken away after it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from densing.data.benchmarks import CHANCE_LEVELS
from densing.trend import pooling


@pytest.fixture(scope="module")
def study():
    from studies import floor_region

    return floor_region


def test_the_curve_departs_only_below_the_knee_and_more_slowly_toward_chance(study):
    above = np.log([0.5e9, 2e9, 70e9])
    assert np.allclose(study.scored_log_size(above, np.full(3, 0.3)), above)
    below = np.log([0.135e9, 0.3e9])
    assert np.allclose(study.scored_log_size(below, np.ones(2)), below)  # κ = 1: the canonical curve
    slower = study.scored_log_size(below, np.full(2, 0.3))
    assert np.all(slower > below) and np.all(slower < study.KNEE)  # scores as a larger model, still under the knee
    u = np.array([-1.5, -2.0])
    assert np.allclose(study.W.power_u(study.log_size_of_u(u)), u)


def test_the_effective_floors_lie_at_or_above_chance_and_near_the_tiny_models(study):
    row = study.ROWS["v2_floor"]
    floors = dict(zip(row.spec.benchmarks, study.effective_floors(row.table, row.spec.benchmarks)))
    assert all(floors[b] >= CHANCE_LEVELS[b] for b in floors)
    assert math.isclose(floors["math_hard"], 0.0113, abs_tol=0.002)  # SmolLM-135M 0.014, AMD-Llama-135m 0.008, …


def test_the_two_se_rule_is_in_place_only_within_its_block(study):
    kept = (pooling.within_members, pooling._floored, pooling.floor_plan)
    with study.two_se_rule():
        assert pooling.floor_plan is study._none_left_out and pooling._floored is study._any_benchmark
        y, kind, _ = pooling.within_members(
            np.array([-3.0]), np.array([0.0]), np.array([math.log(1e8)]), (math.log(5e8), math.log(7e11))
        )
        assert y[0] == -3.0 and kind[0] == 0.0  # no region: the exact density stays exact
    assert (pooling.within_members, pooling._floored, pooling.floor_plan) == kept


def test_the_printed_correction_divides_the_point_by_one_plus_the_rows_bias(study, monkeypatch):
    record = {"table": "public", "corrected": True, "bias": 0.10, "bias_se": 0.01, "bias_drawn": None}
    monkeypatch.setattr(study, "_bias_record", lambda table: record)
    row = study.ROWS["public"]
    good = [{"point": row.slope * 1.10 * f} for f in (0.98, 1.0, 1.02)]  # points 10% too steep on average
    (line,) = study.corrected_lines(row, good, row.slope)
    assert "median +0.0%" in line and "mean +0.0%" in line and line.endswith("yes")
    record["corrected"] = False
    (line,) = study.corrected_lines(row, good, row.slope)
    assert line.startswith("  the row's printed correction: none")
