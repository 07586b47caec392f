"""The strategy registry: a new strategy is one module plus one registry entry, and every consumer
(what-if, validation, training config, command line) finds it; an unknown name is an error."""

import json
import types

import pytest

from densing.errors import InputError
from densing.overlap.strategies import registry
from densing.overlap.strategies.base import Strategy, WhatIfPoint
from densing.overlap.whatif import Calibration, predict

# A trivial strategy, written as a strategy module would be: perfect overlap, T = max(C, T_ar).
_MODULE = """
from densing.overlap.strategies.base import Strategy


def step_time_s(point):
    return max(point.compute_s, point.allreduce_s)


def predict_run_s(cal, config, contention):
    return max(cal.forward_s + cal.backward_s + cal.optimizer_s + cal.overhead_s, cal.allreduce_s)


STRATEGY = Strategy("perfect", "perfect overlap (test)", step_time_s=step_time_s, predict_run_s=predict_run_s)
"""


@pytest.fixture
def perfect():
    module = types.ModuleType("perfect_strategy")
    exec(_MODULE, module.__dict__)
    registry.register(module.STRATEGY)  # the registry entry
    yield module.STRATEGY
    registry.unregister("perfect")


def test_a_new_strategy_reaches_the_whatif_model(perfect):
    cal = Calibration(100_000.0, 0.0, 0.0, 120_000.0, 1e9, "model size", 8, 1)
    frame = predict(cal, workers=[8], bandwidths_gbps=[80], latency_us=0)
    assert "perfect" in set(frame["strategy"])
    row = frame[frame.strategy == "perfect"].iloc[0]
    assert row.step_time_us == pytest.approx(175_000)  # T_ar = 2·7/8·1e9/1e10 s > C = 0.1 s
    assert registry.names("validation") == ("sync", "ddp", "co2", "perfect")
    assert "perfect" not in registry.names("training")


def test_a_new_strategy_reaches_the_command_line(perfect, capsys):
    from overlap.test_cli import run

    code, out, err = run(["overlap", "strategies", "--format", "json"], capsys)
    assert code == 0, err
    rows = json.loads(out)
    assert [r["strategy"] for r in rows] == ["sync", "ddp", "co2", "t3", "tp", "perfect"]
    assert rows[-1]["whatif"] and not rows[-1]["training"]
    code, _, err = run(["overlap", "run", "out", "--strategies", "perfect"], capsys)
    assert code == 2 and "with training hooks, got 'perfect'" in err


def test_unknown_strategy_is_an_error():
    cal = Calibration(100_000.0, 0.0, 0.0, 120_000.0, 1e9, "model size", 8, 1)
    with pytest.raises(InputError, match="expected one of sync, ddp, co2, t3.*got 'zero'"):
        predict(cal, strategies=["zero"])
    with pytest.raises(InputError, match="training hooks, got 't3'"):
        registry.parse("sync,t3", "training")
    with pytest.raises(InputError, match="already registered"):
        registry.register(Strategy("sync", "again"))
    assert [s.name for s in registry.parse("all", "training")] == ["sync", "ddp", "co2", "tp"]


def test_each_built_in_whatif_model_is_its_own():
    point = WhatIfPoint(
        compute_s=0.1,
        workers=8,
        message_bytes=1e9,
        bandwidth_bytes_per_s=1e10,
        latency_s=0.0,
        allreduce_s=0.175,
        local_steps=4,
        contention=0.2,
    )
    times = {name: registry.get(name).step_time_s(point) for name in registry.names("whatif")}
    assert times["sync"] == pytest.approx(0.275) and times["co2"] == pytest.approx(0.1)
    assert times["t3"] == pytest.approx(0.175)  # max(0.1 + 0.2·0.1, 0.175)


def test_a_new_strategy_is_accepted_by_the_whatif_command_and_an_unknown_one_refused(perfect, tmp_path, capsys):
    from overlap.overlap_tracegen import hand_trace, write_trace
    from overlap.test_cli import run

    write_trace(tmp_path / "rank-0.json", hand_trace())
    code, out, err = run(
        ["overlap", "whatif", str(tmp_path), "--strategies", "perfect,sync", "--format", "json"], capsys
    )
    assert code == 0, err
    assert {r["strategy"] for r in json.loads(out)} == {"perfect", "sync"}
    code, out, err = run(["overlap", "whatif", str(tmp_path), "--strategies", "zero", "--format", "json"], capsys)
    assert code == 2 and "got 'zero'" in err and out == ""
