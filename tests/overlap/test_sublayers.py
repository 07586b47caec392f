"""Measured contention, peer wait and validation statistics on hand-made data."""

import math

import numpy as np
import pandas as pd
import pytest

from densing.overlap.metrics import peer_wait_rows
from densing.overlap.model import COMMUNICATION, COMPUTATION, RankTrace
from densing.overlap.sublayers import covered_fraction, gemm_contention
from densing.overlap.validate import error_summary


def test_covered_fraction_by_hand():
    # cover [10, 20) ∪ [25, 30); intervals [0,10) none, [5,15) half, [12,28) (8 + 3)/16, [26,28) all
    frac = covered_fraction(
        np.array([0, 5, 12, 26.0]), np.array([10, 15, 28, 28.0]), np.array([10, 25, 15.0]), np.array([20, 30, 18.0])
    )
    assert frac == pytest.approx([0.0, 0.5, 11 / 16, 1.0])


def test_contention_on_a_hand_made_trace():
    # GEMM chunks (µs): alone [0,10) and [40,50); beside the collective [10,35): [10,22) and [22,34)
    # (12 each); [34,44) is 1/10 covered: partial, left out. γ = 12/10 − 1 = 0.2
    gemm_s, gemm_e = np.array([0, 10, 22, 34, 40.0]), np.array([10, 22, 34, 44, 50.0])
    c = gemm_contention(gemm_s, gemm_e, np.array([10.0]), np.array([35.0]))
    assert (c["gemm_alone_n"], c["gemm_concurrent_n"]) == (2, 2)
    assert c["gemm_alone_us"] == 10 and c["gemm_concurrent_us"] == 12
    assert c["contention"] == pytest.approx(0.2)
    none = gemm_contention(gemm_s, gemm_e, np.array([100.0]), np.array([110.0]))
    assert none["gemm_concurrent_n"] == 0 and math.isnan(none["contention"])


def _rank(rank, comm, comp):
    """A RankTrace with collectives (start, end) and computation pieces (start, end), one step."""
    s = np.array([a for a, _ in comm] + [a for a, _ in comp], dtype=float)
    e = np.array([b for _, b in comm] + [b for _, b in comp], dtype=float)
    cat = np.array([COMMUNICATION] * len(comm) + [COMPUTATION] * len(comp), dtype=np.int8)
    names = ("computation", "gloo:all_reduce")
    code = np.array([1] * len(comm) + [0] * len(comp), dtype=np.int32)
    n = s.size
    return RankTrace(
        f"r{rank}",
        rank,
        2,
        0.0,
        s,
        e,
        cat,
        np.zeros(n, dtype=np.int64),
        code,
        names,
        np.ones(n, dtype=np.int64),
        np.full(n, math.nan),
        np.array([1]),
        np.array([0.0]),
        np.array([100.0]),
    )


def test_peer_wait_splits_exposed_comm():
    # rank 0 joins the all-reduce at 10, rank 1 (slower) at 16; both end at 20.
    # rank 0: 6 µs of waiting for its peer, 4 of transfer; rank 1: no wait.
    r0 = _rank(0, [(10, 20)], [(0, 10)])
    r1 = _rank(1, [(16, 20)], [(0, 16)])
    rows = peer_wait_rows([r0, r1])
    assert rows[0]["peer_wait_us"] == 6 and rows[0]["transfer_us"] == 4
    assert rows[0]["exposed_peer_wait_us"] == 6 and rows[0]["exposed_transfer_us"] == 4
    assert rows[1]["peer_wait_us"] == 0 and rows[1]["exposed_transfer_us"] == 4
    # computation beside rank 0's wait (an asynchronous collective) hides part of it
    r0b = _rank(0, [(10, 20)], [(0, 13)])
    row = peer_wait_rows([r0b, r1])[0]
    assert row["exposed_comm_us"] == 7 and row["exposed_peer_wait_us"] == 3 and row["exposed_transfer_us"] == 4


def test_validation_statistics_on_synthetic_repeats():
    frame = pd.DataFrame(
        {
            "repeat": [0, 0, 1, 1, 2, 2],
            "strategy": ["ddp", "co2"] * 3,
            "measured_ms": [100.0, 80.0, 110.0, 90.0, 90.0, 70.0],
            "predicted_ms": [110.0, 80.0, 99.0, 99.0, 90.0, 56.0],
            "error_pct": [10.0, 0.0, -10.0, 10.0, 0.0, -20.0],
            "unprofiled_ms": [95.0, 75.0, 100.0, 85.0, 88.0, 66.0],
            "profiler_overhead_pct": [5.0, 6.0, 10.0, 5.0, 2.0, 6.0],
        }
    )
    s = error_summary(frame).set_index("strategy")
    assert list(s.index) == ["ddp", "co2"]
    assert s.loc["ddp", "repeats"] == 3 and s.loc["ddp", "error_median_pct"] == 0.0
    assert (s.loc["ddp", "error_min_pct"], s.loc["ddp", "error_max_pct"]) == (-10.0, 10.0)
    assert s.loc["co2", "error_median_pct"] == 0.0 and s.loc["co2", "abs_error_median_pct"] == 10.0
    assert s.loc["co2", "profiler_overhead_median_pct"] == 6.0 and s.loc["ddp", "measured_profiled_ms_median"] == 100.0
