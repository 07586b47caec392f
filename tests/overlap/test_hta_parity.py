"""densing's overlap % and temporal breakdown equal HolisticTraceAnalysis 0.5.0's on HTA's own
test traces.

Provenance: traces from facebookresearch/HolisticTraceAnalysis test data (MIT), copied unchanged
to the shared data folder's ``traces/hta/`` (see SOURCE_COMMIT there; the folder is
``DENSING_SHARED_DATA``, or ``../shared/data`` beside the repository). Expected numbers: HTA 0.5.0
``TraceAnalysis(trace_dir=...).get_comm_comp_overlap()`` / ``.get_temporal_breakdown()``, as
tabulated in the shared data folder's README.md (HTA rounds to 2 decimals; we require |diff| ≤ 0.01 pp
of the unrounded value, i.e. matching HTA's printed number up to its own rounding).
"""

import pytest

from densing.overlap import analyze
from tests.conftest import SHARED_DATA

HTA_TRACES = SHARED_DATA / "traces" / "hta"

# set, rank, comm-comp overlap %, idle %, compute %, non-compute %  (HTA 0.5.0)
HTA_0_5_0 = [
    ("ddp_2rank", 0, 14.31, 77.78, 17.26, 4.97),
    ("sampled_128rank", 0, 11.81, 53.56, 17.71, 28.74),
    ("sampled_128rank", 1, 20.05, 54.72, 22.57, 22.72),
    ("diff_control", 3, 47.03, 16.20, 61.23, 22.57),
    ("diff_test", 1, 68.80, 7.47, 68.31, 24.23),
]


@pytest.fixture(scope="module")
def frames():
    if not HTA_TRACES.is_dir():
        pytest.skip(f"HTA test traces not found at {HTA_TRACES}")
    return {s: analyze(HTA_TRACES / s).set_index("rank") for s in {row[0] for row in HTA_0_5_0}}


@pytest.mark.parametrize("trace_set,rank,overlap,idle,compute,non_compute", HTA_0_5_0)
def test_matches_hta_0_5_0(frames, trace_set, rank, overlap, idle, compute, non_compute):
    row = frames[trace_set].loc[rank]
    for column, expected in [
        ("comm_comp_overlap_pct", overlap),
        ("idle_pct", idle),
        ("compute_pct", compute),
        ("non_compute_pct", non_compute),
    ]:
        value = float(row[column])
        assert round(value, 2) == pytest.approx(expected, abs=1e-9) or abs(value - expected) <= 0.01, (
            trace_set,
            rank,
            column,
            value,
            expected,
        )


def test_breakdown_adds_up(frames):
    for frame in frames.values():
        total = frame["idle_pct"] + frame["compute_pct"] + frame["non_compute_pct"]
        assert (total - 100).abs().max() < 1e-9
        assert (frame["exposed_comm_us"] >= 0).all()
        assert ((frame["comm_us"] - frame["overlap_us"] - frame["exposed_comm_us"]).abs() < 1e-6).all()


def test_rank_and_world_size_from_distributed_info(frames):
    assert list(frames["sampled_128rank"].index) == [0, 1]
    assert set(frames["sampled_128rank"]["world_size"]) == {128}
    assert list(frames["diff_control"].index) == [3]
    assert int(frames["diff_control"]["world_size"].iloc[0]) == 8
