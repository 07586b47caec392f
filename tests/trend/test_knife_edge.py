"""The knife edges (densing.trend.knife_edge) on the planted row of studies/heterogeneity_level.py (the row tests/trend/
test_floors.py uses: two joint references, targets at, near and above MATH-hard's and MMLU's chance level, below the
references' smallest members and above their top members): each boundary within ±0.5 standard errors is found and
the target moved just across it, and the row's point is recomputed as the row computes it."""

from __future__ import annotations

import math
from operator import attrgetter

import numpy as np
import pytest

from densing.laws.inversion import arrays
from densing.laws.region import Reason
from densing.present.knife_edge import reading_words
from densing.trend import floors, knife_edge as K, pooling, selection
from densing.trend.rules import doubling_months
from studies.heterogeneity_level import _joint, planted


@pytest.fixture(scope="module")
def row():
    table = planted(5, count=120)
    common = selection.common_targets(table, [_joint(table, f) for f in ("RefA", "RefB")], since=None)
    return common, pooling.pooled_trend(common, n_boot=60, n_boot_share=0, seed=0)


def _reading(common, model: str, reference: str) -> K.Reading:
    return {r.reference: r for r in K.readings(common)[model]}[reference]


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
    assert expected and {(c.index, c.benchmarks[0]) for c in found} == expected
    for c in found:
        b = common.benchmarks.index(c.benchmarks[0])
        assert c.boundary is K.Boundary.FLOOR and c.distance == pytest.approx(z[c.index, b])
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
        b = common.benchmarks.index(c.benchmarks[0])
        one = slice(b, b + 1)  # that benchmark's score alone (the target may be at the ceiling on another)
        assert not common.own[r, c.index]
        assert (
            pooling.at_ceiling(c.scores[None, one], sigma[c.index][None, one], caps[one])[0]
            != pooling.at_ceiling(scores[c.index][None, one], sigma[c.index][None, one], caps[one])[0]
        )


def test_an_edge_crossing_moves_the_target_into_or_out_of_the_references_identified_region(row):
    """Each edge crossing (all of a target's scores moved by one fraction of their σ, at most 0.5) changes the target's
    reading under that reference between a bound at the region's edge and a reading inside it."""
    common, _ = row
    found = K.edge_crossings(common)
    assert {c.boundary for c in found} == {K.Boundary.BOTTOM_EDGE, K.Boundary.TOP_EDGE}
    edge_reasons = {K.Boundary.BOTTOM_EDGE: Reason.BELOW_SMALLEST, K.Boundary.TOP_EDGE: Reason.ABOVE_TOP}
    for c in found:
        assert abs(c.distance) <= K.WINDOW and c.benchmarks == common.benchmarks
        reading = _reading(common, c.model, c.reference)
        moved = _reading(K.moved(common, c.index, c.scores), c.model, c.reference)
        assert reading != moved and (reading.reason == edge_reasons[c.boundary]) != (
            moved.reason == edge_reasons[c.boundary]
        )


def test_each_move_is_the_point_with_that_one_target_moved(row):
    common, trend = row
    edges = K.knife_edges(common, trend.weights, trend.rule)
    assert len(edges.moves) == len(K.crossings(common))
    assert edges.n_targets == len({c.model for c in K.crossings(common)})
    top = max(edges.moves, key=attrgetter("size"))
    again = K.point_slope(K.moved(common, top.crossing.index, top.crossing.scores), trend.weights, trend.rule)
    assert top.months_after == pytest.approx(doubling_months(again))
    assert top.months_before == pytest.approx(doubling_months(trend.slope_per_day)) == edges.months
    assert any(m.changes_reading for m in edges.moves)


def test_a_target_placed_just_inside_a_ceiling_changes_kind_when_it_crosses(row):
    """A target read exactly under RefA, its MMLU score set 0.2 SE inside RefA's ceiling (S = cap − 2σ + 0.2σ): a
    lower bound at the ceiling there; its crossing, 0.01 SE past the threshold on the other side, reads it exact again,
    and the move is the point with that score alone changed."""
    common, trend = row
    scores, sigma = arrays(common.frame, common.benchmarks)
    b = common.benchmarks.index("mmlu")
    cap = pooling.reference_caps(common.inversions[0], scores.shape[1])[b]
    threshold = cap - pooling.CEILING_STDERRS * sigma[:, b]
    placed = None
    for i in np.flatnonzero(~common.own[0]):  # the first target the placement makes a ceiling bound under RefA
        model = str(common.frame["model"].iloc[i])
        if _reading(common, model, "RefA").reason != Reason.EXACT:
            continue
        inside = scores[i].copy()
        inside[b] = threshold[i] + 0.2 * sigma[i, b]
        candidate = K.moved(common, int(i), inside)
        if _reading(candidate, model, "RefA").reason == Reason.AT_CEILING:
            placed, index = candidate, int(i)
            break
    assert placed is not None
    crossing = next(c for c in K.ceiling_crossings(placed) if c.index == index and c.reference == "RefA")
    assert crossing.benchmarks == ("mmlu",) and crossing.distance == pytest.approx(0.2)
    assert crossing.scores[b] == pytest.approx(threshold[index] - K.CROSS * sigma[index, b])
    assert np.array_equal(np.delete(crossing.scores, b), np.delete(inside, b))  # that one score moved
    move = next(
        m
        for m in K.knife_edges(placed, trend.weights, trend.rule).moves
        if (m.crossing.index, m.crossing.boundary, m.crossing.reference) == (index, K.Boundary.CEILING, "RefA")
    )
    assert np.array_equal(move.crossing.scores, crossing.scores)
    before = {r.reference: r for r in move.readings_before}["RefA"]
    after = {r.reference: r for r in move.readings_after}["RefA"]
    assert (before.kind, before.reason) == ("lower", Reason.AT_CEILING) and (after.kind, after.reason) == ("exact", 0)
    assert reading_words(before) == "RefA: lower (at the ceiling on mmlu)" and reading_words(after) == "RefA: exact"
    assert move.months_after == pytest.approx(
        doubling_months(K.point_slope(K.moved(placed, index, crossing.scores), trend.weights, trend.rule)), rel=1e-12
    )


def _move(size: float) -> K.Move:
    crossing = K.Crossing(0, "m", K.Boundary.FLOOR, "", ("mmlu",), 0.1, np.zeros(1))
    return K.Move(crossing, 4.0, 4.0 + size, (), ())


def test_the_detail_names_at_most_three_moves_each_of_the_largests_order():
    """:meth:`KnifeEdges.largest`: the largest |move| first, at most SHOWN_MOVES, none under SHOWN_SHARE of the
    largest; a line that stops rising is the largest move of all."""
    edges = K.KnifeEdges(4.0, tuple(_move(s) for s in (0.008, -0.034, 0.002, -0.009, 0.0085)))
    assert [round(m.move, 4) for m in edges.largest()] == [-0.034, -0.009, 0.0085]
    few = K.KnifeEdges(4.0, tuple(_move(s) for s in (0.0004, -0.045, 0.0039)))
    assert [round(m.move, 4) for m in few.largest()] == [-0.045]
    open_line = K.KnifeEdges(4.0, (_move(0.01), _move(math.inf)))
    assert open_line.largest()[0].size == math.inf and math.isnan(open_line.largest()[0].move)
    assert K.KnifeEdges(4.0, ()).largest() == () and K.KnifeEdges(4.0, (_move(0.0), _move(0.0))).largest() == ()
