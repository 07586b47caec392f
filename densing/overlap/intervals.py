"""Interval math on numpy arrays: merge, union, intersection and difference of half-open ``[start, end)`` intervals
given as two float arrays; each O(n log n) (one sort), allocating a few arrays of size n.
"""

from __future__ import annotations

import numpy as np


def merge_intervals(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge overlapping or touching intervals; returns sorted disjoint ``(start, end)``. Same grouping as HTA 0.5.0
    ``merge_kernel_intervals``: after sorting by start, interval i opens a new group iff
    ``start_i > max(end_0 … end_{i-1})``; a group spans ``[min start, max end]``."""
    start, end = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    if start.size == 0:
        return start.copy(), end.copy()
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    first = np.flatnonzero(np.concatenate(([True], s[1:] > np.maximum.accumulate(e)[:-1])))  # the groups' openers
    return s[first], np.maximum.reduceat(e, first)


def union_length(start: np.ndarray, end: np.ndarray) -> float:
    """Length of the union of the intervals: Σ (end − start) over the merged intervals."""
    s, e = merge_intervals(start, end)
    return float(e.sum() - s.sum())


def _sweep(a_start, a_end, b_start, b_end) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The boundaries of the merged A and B intervals in time order, and after each how many A and how many B
    intervals are open (each 0 or 1: merged intervals are disjoint)."""
    as_, ae = merge_intervals(a_start, a_end)
    bs, be = merge_intervals(b_start, b_end)
    times = np.concatenate([as_, ae, bs, be])
    da = np.concatenate([np.ones(as_.size), -np.ones(ae.size), np.zeros(bs.size + be.size)])
    db = np.concatenate([np.zeros(as_.size + ae.size), np.ones(bs.size), -np.ones(be.size)])
    order = np.argsort(times, kind="stable")
    return times[order], np.cumsum(da[order]), np.cumsum(db[order])


def intersection_length(a_start: np.ndarray, a_end: np.ndarray, b_start: np.ndarray, b_end: np.ndarray) -> float:
    """Length of (∪A) ∩ (∪B), as HTA 0.5.0 ``get_comm_comp_overlap`` sweeps it: the sum of the gaps between
    consecutive merged boundaries (:func:`_sweep`) after which both an A and a B interval are open."""
    t, ca, cb = _sweep(a_start, a_end, b_start, b_end)
    return float(np.sum(np.diff(t)[(ca[:-1] > 0) & (cb[:-1] > 0)]))


def subtract_intervals(
    a_start: np.ndarray, a_end: np.ndarray, b_start: np.ndarray, b_end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(∪A) \\ (∪B) as sorted disjoint ``(start, end)``: the non-empty pieces between consecutive merged boundaries
    (:func:`_sweep`) where an A interval is open and no B interval (re-merged). |result| = |∪A| − |∪A ∩ ∪B|."""
    t, ca, cb = _sweep(a_start, a_end, b_start, b_end)
    keep = (ca[:-1] > 0) & (cb[:-1] == 0) & (t[1:] > t[:-1])
    return merge_intervals(t[:-1][keep], t[1:][keep])
