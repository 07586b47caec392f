"""studies/knife_edge.py's crossings on the planted row of studies/heterogeneity_level.py (the row tests/trend/
test_floors.py uses: two joint references, targets at, near and above MATH-hard's and MMLU's chance level, below the
references' smallest members and above their top members): each boundary within ±0.5 standard errors is found and
the target moved just across it, and the row's point is recomputed as the row computes it."""
from __future__ import annotations

from operator import attrgetter

import numpy as np
import pytest

from densing.laws.inversion import arrays
from densing.trend import floors, pooling, selection
from densing.trend.rules import doubling_months
from studies import knife_edge as K
from studies.heterogeneity_level import _joint, planted


@pytest.fixture(scope="module")
def row():
    table = planted(5, count=120)
    common = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "RefB")], since=None)
    return common, pooling.pooled_trend(common, n_boot=60, n_boot_share=0, seed=0)


def test_the_point_recomputed_with_the_rows_weights_is_the_rows_point(row):
    common, trend = row
    assert K.point_slope(common, trend.weights, trend.rule) == pytest.approx(trend.slope_per_day, rel=1e-12)


def test_every_score_within_half_a_standard_error_of_chance_is_moved_just_across_it(row):
    common, _ = row
    scores, sigma = arrays(common.frame, common.benchmarks)
    chance = floors.chance_levels(common.benchmarks)
    threshold = chance + floors.FLOOR_STDERRS * sigma
    with np.errstate(invalid="ignore"):  # a score with no standard error is never near (NaN)
        z = (scores - threshold) / sigma
    expected = {(int(i), common.benchmarks[b]) for i, b in zip(*np.nonzero(np.abs(z) <= K.WINDOW))}
    found = K.floor_crossings(common)
    assert expected and {(c.index, c.benchmark) for c in found} == expected
    for c in found:
        b = common.benchmarks.index(c.benchmark)
        assert c.distance == pytest.approx(z[c.index, b])
        before = floors.floor_scores(scores[c.index], sigma[c.index], chance)
        after = floors.floor_scores(c.scores, sigma[c.index], chance)
        assert after[b] != before[b] and np.array_equal(np.delete(after, b), np.delete(before, b))  # that score alone
        assert abs(c.scores[b] - threshold[c.index, b]) == pytest.approx(K.CROSS * sigma[c.index, b])


def test_a_ceiling_crossing_changes_whether_the_target_is_at_that_references_ceiling(row):
    common, _ = row
    scores, sigma = arrays(common.frame, common.benchmarks)
    found = K.ceiling_crossings(common)
    assert found
    for c in found:
        r = [name.family for name in common.names].index(c.reference)
        caps = pooling.reference_caps(common.inversions[r], scores.shape[1])
        b = common.benchmarks.index(c.benchmark)
        one = slice(b, b + 1)  # that benchmark's score alone (the target may be at the ceiling on another)
        assert not common.own[r, c.index]
        assert (pooling.at_ceiling(c.scores[None, one], sigma[c.index][None, one], caps[one])[0]
                != pooling.at_ceiling(scores[c.index][None, one], sigma[c.index][None, one], caps[one])[0])


def test_an_edge_crossing_moves_the_target_into_or_out_of_the_references_identified_region(row):
    """Each edge crossing (all of a target's scores moved by one fraction of their σ, at most 0.5) changes the target's
    reading under that reference between a bound at the region's edge and a reading inside it."""
    common, _ = row
    found = K.edge_crossings(common)
    assert {c.boundary for c in found} == {"bottom edge", "top edge"}
    edge_words = {"bottom edge": "below the smallest member", "top edge": "above the top member"}
    for c in found:
        assert abs(c.distance) <= K.WINDOW
        reading = {line.split(": ", 1)[0]: line for line in K.readings_of(common, c.model)}[c.reference]
        moved = {line.split(": ", 1)[0]: line
                 for line in K.readings_of(K.moved(common, c.index, c.scores), c.model)}[c.reference]
        assert reading != moved and (edge_words[c.boundary] in reading) != (edge_words[c.boundary] in moved)


def test_each_move_is_the_point_with_that_one_target_moved(row):
    common, trend = row
    moves = K.knife_edge(common, trend.weights, trend.rule)
    assert len(moves) == len(K.crossings(common))
    top = max(moves, key=attrgetter("size"))
    again = K.point_slope(K.moved(common, top.crossing.index, top.crossing.scores), trend.weights, trend.rule)
    assert top.months_after == pytest.approx(doubling_months(again))
    assert top.months_before == pytest.approx(doubling_months(trend.slope_per_day))
    assert any(m.readings_before != m.readings_after for m in moves)
