"""What-if formulas on hand-computed cases."""

import pytest

from densing.errors import InputError
from densing.overlap.strategies import co2, ddp, sync
from densing.overlap.strategies.base import WhatIfPoint, ring_allreduce_time_s
from densing.overlap.strategies.t3 import t3_step_time_s
from densing.overlap.whatif import Calibration, calibrate, predict
from overlap.overlap_tracegen import hand_trace, write_trace


def test_ring_allreduce():
    # p = 4, S = 1 GB, B = 100 GB/s, α = 10 µs: 2·3/4·0.01 s + 2·3·10 µs = 0.015 + 0.00006
    assert ring_allreduce_time_s(4, 1e9, 100e9, 10e-6) == pytest.approx(0.01506)
    assert ring_allreduce_time_s(1, 1e9, 100e9, 10e-6) == 0.0
    with pytest.raises(InputError):
        ring_allreduce_time_s(0, 1e9, 1e9)


def point(compute_s, allreduce_s, workers=2, message_bytes=0.0, bandwidth=1.0, latency_s=0.0, **kw):
    return WhatIfPoint(compute_s, workers, message_bytes, bandwidth, latency_s, allreduce_s, **kw)


def test_sync_co2_t3():
    assert sync.step_time_s(point(0.1, 0.05)) == pytest.approx(0.15)
    assert co2.step_time_s(point(0.1, 0.6, local_steps=4)) == pytest.approx(0.15)  # max(0.1, 0.6/4)
    assert co2.step_time_s(point(0.1, 0.2, local_steps=4)) == pytest.approx(0.1)  # fully hidden
    assert t3_step_time_s(0.1, 0.05, 0.2) == pytest.approx(0.11)  # 0.1 + 0.2·0.05
    assert t3_step_time_s(0.1, 0.3, 0.2) == pytest.approx(0.3)  # comm-bound
    assert t3_step_time_s(0.1, 0.0, 0.2) == pytest.approx(0.1)


def test_ddp_buckets_hand_case():
    """C = 0.3 s, f_bwd = 2/3 → forward 0.1, backward 0.2; S = 2 buckets of 1 GB, p = 2, B = 10 GB/s,
    α = 0: T_ar(bucket) = 2·1/2·1e9/1e10 = 0.1.  r1 = 0.2, f1 = 0.3; r2 = 0.3, f2 = 0.4 → T = 0.4."""
    t = ddp.step_time_s(point(0.3, 0.0, 2, 2e9, 1e10, 0.0, bucket_bytes=1e9, backward_fraction=2 / 3))
    assert t == pytest.approx(0.4)
    assert ddp.step_time_s(point(0.3, 0.0, 1, 2e9, 1e10)) == 0.3


def test_predict_grid_and_efficiency():
    cal = Calibration(100_000.0, 0.0, 0.0, 120_000.0, 1e9, "model size", 8, 1)
    frame = predict(cal, workers=[1, 8], bandwidths_gbps=[800, 80], local_steps=4, latency_us=0)
    assert len(frame) == 2 * 2 * 4
    one = frame[frame.workers == 1]
    assert (one.scaling_efficiency == 1).all()
    row = frame[(frame.strategy == "sync") & (frame.workers == 8) & (frame.bandwidth_gbps == 80)].iloc[0]
    # 80 Gb/s = 1e10 B/s: T_ar = 2·7/8·1e9/1e10 = 0.175 s; T = 0.1 + 0.175
    assert row.allreduce_us == pytest.approx(175_000)
    assert row.scaling_efficiency == pytest.approx(0.1 / 0.275)
    with pytest.raises(InputError):
        predict(cal, strategies=["zero"])


def test_calibrate_from_trace(tmp_path):
    write_trace(tmp_path / "r.json", hand_trace())
    cal = calibrate(tmp_path)
    assert cal.compute_time_per_step_us == 15 and cal.comm_time_per_step_us == 10
    assert cal.comm_bytes_per_step == 4000 and cal.comm_bytes_source == "trace args"
    assert calibrate(tmp_path, model_params=1e9, bytes_per_param=2).comm_bytes_per_step == 2e9


def test_a_trace_without_real_compute_warns_and_reports_no_efficiency(tmp_path):
    from densing.overlap.whatif import calibration_warnings

    # HTA's cpu_only test trace has 3.96 µs of computation: no training step to scale
    tiny = Calibration(3.96, 1.0, 1.0, 10.0, 1e6, "model size", 1, 1)
    assert "compute_time_per_step_us" in calibration_warnings(tiny)[0]
    frame = predict(tiny, workers=[2], bandwidths_gbps=[80])
    assert frame["scaling_efficiency"].isna().all() and (frame["step_time_us"] > 0).all()
    real = Calibration(100_000.0, 0.0, 0.0, 120_000.0, 1e9, "model size", 8, 1)
    assert calibration_warnings(real) == [] and predict(real, workers=[2])["scaling_efficiency"].notna().all()


def test_whatif_and_run_share_the_bucket_default():
    import inspect

    from densing.overlap.train import TrainConfig
    from densing.overlap_defaults import DEFAULT_BUCKET_MB

    assert TrainConfig().bucket_mb == DEFAULT_BUCKET_MB
    assert inspect.signature(predict).parameters["bucket_bytes"].default == DEFAULT_BUCKET_MB * 2**20
