"""Tiny real runs: 2 gloo workers through torchrun, a few steps, each strategy; traces analysed."""

import pytest

pytest.importorskip("torch")

from densing.errors import InputError
from densing.overlap import analyze, analyze_steps
from densing.overlap.run_schema import read_run
from densing.overlap.train import TrainConfig, run_strategies, torchrun_command
from densing.overlap.validate import convergence, validate

TINY = TrainConfig(
    steps=6,
    batch_size=2,
    seq_len=16,
    d_model=32,
    n_layer=1,
    n_head=2,
    corpus_bytes=200_000,
    profile_skip=0,
    profile_wait=0,
    profile_warmup=1,
    profile_active=4,
    local_steps=2,
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    summary = run_strategies(out, ["sync", "ddp", "co2"], TINY, workers=2)
    return out, summary


@pytest.mark.parametrize("strategy", ["sync", "ddp", "co2"])
def test_tiny_run_traces_analysed(runs, strategy):
    out, summary = runs
    frame = analyze(out / strategy)
    assert list(frame["rank"]) == [0, 1] and (frame["world_size"] == 2).all()
    assert (frame["comm_us"] > 0).all() and (frame["compute_us"] > 0).all()
    assert ((frame["comm_comp_overlap_pct"] >= 0) & (frame["comm_comp_overlap_pct"] <= 100)).all()
    steps = analyze_steps(out / strategy)
    assert sorted(steps["step"].unique()) == [1, 2, 3, 4]  # the active steps of the schedule
    meta, metrics = read_run(out / strategy)
    assert meta["config"]["strategy"] == strategy and meta["launcher"] == "torch.distributed.run"
    assert len(metrics) == 2 * TINY.steps and metrics["loss"].between(0, 10).all()
    assert metrics["tokens"].max() == 2 * TINY.batch_size * TINY.seq_len * TINY.steps


def test_sync_and_ddp_train_identically(runs):
    # same seed, data and averaged gradients: DDP and the blocking all-reduce give the same losses
    out, _ = runs
    sync, ddp = read_run(out / "sync")[1], read_run(out / "ddp")[1]
    assert sync["loss"].to_numpy() == pytest.approx(ddp["loss"].to_numpy(), rel=1e-4)


def test_validate_and_convergence_run_on_tiny_runs(runs):
    out, _ = runs
    cal, table = validate(out / "sync", out / "ddp", out / "co2")
    assert list(table["strategy"]) == ["sync", "ddp", "co2"]
    assert table.loc[0, "error_pct"] == pytest.approx(0.0, abs=1e-6)  # the decomposition adds up
    assert (table["predicted_ms"] > 0).all() and cal.comm_bytes > 0
    loss = convergence(out / "ddp", out / "co2", window=2)
    assert list(loss["strategy"]) == ["ddp", "co2"] and loss["tokens"].nunique() == 1
    with pytest.raises(InputError, match="strategy"):
        validate(out / "ddp")


def test_config_checks_and_launcher_command(tmp_path):
    with pytest.raises(InputError, match="strategy"):
        TrainConfig(strategy="zero").check()
    with pytest.raises(InputError, match="steps"):
        TrainConfig(steps=3).check()
    cmd = torchrun_command(tmp_path, 2)
    assert cmd[1:3] == ["-m", "torch.distributed.run"] and "--standalone" in cmd
    with pytest.raises(InputError, match="rdzv"):
        run_strategies(tmp_path, ["sync"], TrainConfig(), nnodes=2)
