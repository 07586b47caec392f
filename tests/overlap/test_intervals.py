import numpy as np
from hypothesis import given, settings, strategies as st

from densing.overlap.intervals import intersection_length, merge_intervals, union_length


def test_merge_hand_case():
    s, e = merge_intervals(np.array([5, 0, 10, 20]), np.array([8, 6, 12, 21]))
    assert list(s) == [0, 10, 20] and list(e) == [8, 12, 21]


def test_touching_intervals_merge_like_hta():
    s, e = merge_intervals(np.array([0, 4]), np.array([4, 6]))
    assert list(s) == [0] and list(e) == [6]


def test_union_and_intersection_hand_case():
    # A = [0,10) ∪ [20,30);  B = [5,25)  → |A| = 20, |A ∩ B| = 5 + 5 = 10
    assert union_length(np.array([0, 20]), np.array([10, 30])) == 20
    assert intersection_length(np.array([0, 20]), np.array([10, 30]), np.array([5]), np.array([25])) == 10
    assert intersection_length(np.array([0]), np.array([1]), np.array([]), np.array([])) == 0


intervals = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 15)), max_size=25)


def _grid(ivs):
    covered = np.zeros(80, dtype=bool)
    for a, d in ivs:
        covered[a : a + d] = True
    return covered


def _arrays(ivs):
    return (np.array([a for a, _ in ivs], dtype=float), np.array([a + d for a, d in ivs], dtype=float))


@settings(max_examples=200, deadline=None)
@given(intervals, intervals)
def test_lengths_match_brute_force_on_a_grid(a, b):
    ga, gb = _grid(a), _grid(b)
    assert union_length(*_arrays(a)) == ga.sum()
    assert intersection_length(*_arrays(a), *_arrays(b)) == (ga & gb).sum()
    ms, me = merge_intervals(*_arrays(a))
    assert np.all(ms[1:] > me[:-1])  # disjoint, sorted


@settings(max_examples=200, deadline=None)
@given(intervals, intervals)
def test_subtract_matches_brute_force_on_a_grid(a, b):
    from densing.overlap.intervals import subtract_intervals

    s, e = subtract_intervals(*_arrays(a), *_arrays(b))
    got = np.zeros(80, dtype=bool)
    for x, y in zip(s, e):
        got[int(x) : int(y)] = True
    assert (got == (_grid(a) & ~_grid(b))).all()
    assert np.all(s[1:] > e[:-1]) and np.all(e > s)
