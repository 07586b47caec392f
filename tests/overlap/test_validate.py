"""The what-if simulation and DDP bucket layout on hand-computed cases."""

import pytest

from densing.errors import InputError
from densing.overlap.strategies import co2, ddp
from densing.overlap.strategies.base import RunCalibration, contention_rate, simulate
from densing.overlap.strategies.ddp import ddp_buckets


def cal(**kw):
    base = dict(
        forward_s=1.0,
        backward_s=2.0,
        optimizer_s=0.5,
        overhead_s=0.0,
        copy_s=0.0,
        allreduce_s=1.0,
        skew_s=0.0,
        allreduce_cpu_share=1.0,
        comm_bytes=400.0,
        bandwidth_bytes_per_s=400.0,
        step_s=0.0,
        workers=2,
        cores=2,
        threads=1,
        param_numel=(50, 50),
    )
    return RunCalibration(**(base | kw))


def test_simulate_processor_sharing():
    # 2 s of compute beside a 1 s all-reduce at half speed: both run 2 s together → compute has done
    # 1 s, the all-reduce is finished; 1 s of compute remains → 3 s
    assert simulate([("send", 1.0), ("compute", 2.0)], 0.5) == pytest.approx(3.0)
    assert simulate([("send", 1.0), ("compute", 2.0)], 1.0) == pytest.approx(2.0)
    # waiting: compute 0.5 s beside the all-reduce (0.25 s of it done at half speed), then 0.75 s alone
    assert simulate([("send", 1.0), ("compute", 0.25), ("wait",), ("delay", 0.1)], 0.5) == pytest.approx(1.35)
    with pytest.raises(InputError):
        simulate([("send", 1.0)], 0.0)


def test_contention_rate_from_cores_threads_and_share():
    assert contention_rate(cal()) == pytest.approx(0.5)  # 1 core each, demand 1 + 1
    assert contention_rate(cal(cores=8)) == 1.0
    assert contention_rate(cal(), contention=False) == 1.0


def test_ddp_buckets_reverse_greedy():
    # reverse order, 4 B each: 160 ≥ 100 closes; 120 closes; 80 + 40 = 120 closes
    assert ddp_buckets((10, 20, 30, 40), bucket_bytes=100) == [160, 120, 120]
    assert ddp_buckets((10, 20, 30, 40), bucket_bytes=200) == [280, 120]


def test_ddp_and_co2_hand_cases():
    # one bucket (400 B): forward 1, backward 2, then the all-reduce alone 1 s, optimizer 0.5 → 4.5
    assert ddp.predict_run_s(cal(), {"bucket_mb": 1e9 / 2**20}) == pytest.approx(4.5)
    # two buckets of 200 B (0.5 s each). b1 is sent at t = 2 (half the backward done); both run at half
    # speed, b1 ends at 3 with 0.5 s of backward done; the last 0.5 s of backward alone ends at 3.5;
    # b2 alone ends at 4; optimizer → 4.5 (without contention: b1 ends at 2.5, b2 at 3.5 → 4.0)
    assert ddp.predict_run_s(cal(), {"bucket_mb": 200 / 2**20}) == pytest.approx(4.5)
    assert ddp.predict_run_s(cal(), {"bucket_mb": 200 / 2**20}, contention=False) == pytest.approx(4.0)
    # co2, τ = 2, copies free: round = 2·3.5 = 7 s of compute with a 1 s all-reduce beside it at half
    # speed (2 s together, 1 s of compute done) → 8 s per round → 4 s per step
    assert co2.predict_run_s(cal(), {"local_steps": 2}) == pytest.approx(4.0)
    assert co2.predict_run_s(cal(), {"local_steps": 2}, contention=False) == pytest.approx(3.5)
