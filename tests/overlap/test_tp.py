"""Tensor parallelism: chunked row-parallel output equals unchunked; tiny tp runs per overlap mode
train exactly as the unsplit model on one worker; the sublayer analysis reads their traces."""

import math

import pytest

torch = pytest.importorskip("torch")

from densing.errors import InputError
from densing.overlap.run_schema import read_run
from densing.overlap.strategies.tp import _functions, check_tp
from densing.overlap.sublayers import sublayer_table
from densing.overlap.train import TrainConfig, run_strategies
from densing.overlap.validate import validate_root

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
)


@pytest.fixture(scope="module")
def single_group():
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    yield None


def test_chunked_row_parallel_equals_unchunked(single_group):
    # forward and all three gradients; float32, tolerance 1e-5 relative (the chunks are row blocks
    # of one GEMM: each output row is computed from the same inputs either way)
    _, row_parallel = _functions()
    gen = torch.Generator().manual_seed(0)
    h0 = torch.randn(2, 16, 24, generator=gen)
    w0, b0 = torch.randn(8, 24, generator=gen), torch.randn(8, generator=gen)
    grad_out = torch.randn(2, 16, 8, generator=gen)
    results = []
    for chunks in (1, 4):
        h, w, b = (t.clone().requires_grad_() for t in (h0, w0, b0))
        out = row_parallel.apply(h, w, b, "tp/mlp", "fc2", chunks, None)
        out.backward(grad_out)
        results.append((out.detach(), h.grad, w.grad, b.grad))
    for whole, chunked in zip(*results):
        assert torch.allclose(whole, chunked, rtol=1e-5, atol=1e-6)
    assert torch.allclose(results[0][0], torch.nn.functional.linear(h0, w0, b0), rtol=1e-5, atol=1e-5)


def test_tp_checks_name_the_field():
    with pytest.raises(InputError, match="n_head"):
        check_tp(32, 3, 2, 32, 4, "none")
    with pytest.raises(InputError, match="tp_chunks"):
        check_tp(32, 2, 2, 30, 4, "chunked")
    with pytest.raises(InputError, match="tp_overlap"):
        check_tp(32, 2, 2, 32, 4, "fused")
    with pytest.raises(InputError, match="tp_overlap"):
        TrainConfig(strategy="tp", tp_overlap="fused").check()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("tp")
    summary = run_strategies(out, ["tp"], TINY, workers=2, tp_overlaps=["none", "chunked"])
    run_strategies(out / "one", ["sync"], TINY, workers=1)
    return out, summary


def test_tiny_tp_runs_per_mode_train_as_the_unsplit_model(runs):
    out, summary = runs
    assert list(summary["strategy"]) == ["tp-none", "tp-chunked"] and list(summary["run"]) == ["tp-none", "tp-chunked"]
    one = read_run(out / "one" / "sync")[1]["loss"].to_numpy()
    for mode in ("none", "chunked"):
        meta, metrics = read_run(out / f"tp-{mode}")
        assert meta["config"]["tp_overlap"] == mode
        for rank in (0, 1):  # both ranks see the same batch and compute the same loss
            loss = metrics[metrics["rank"] == rank]["loss"].to_numpy()
            assert loss == pytest.approx(one, rel=1e-5)
        assert metrics["tokens"].max() == TINY.batch_size * TINY.seq_len * TINY.steps  # not × workers


def test_sublayer_table_and_t3_validation_on_tiny_runs(runs):
    out, _ = runs
    none, chunked = sublayer_table(out / "tp-none"), sublayer_table(out / "tp-chunked")
    assert sorted(none["sublayer"].unique()) == ["attn", "mlp"] and len(none) == 4
    assert (none["sublayer_us"] > none["producer_gemm_us"]).all() and (none["exposed_comm_us"] > 0).all()
    assert (none["gemm_concurrent_n"] == 0).all() and none["contention"].isna().all()  # serialized
    # chunked: 4 GEMM chunks per sublayer and step, the first alone
    assert ((chunked["gemm_alone_n"] + chunked["gemm_concurrent_n"]) <= 4 * chunked["steps"]).all()
    assert (chunked["gemm_alone_n"] >= chunked["steps"]).all()
    table = validate_root(out, contention=0.25)
    row = table[table["strategy"] == "t3"].iloc[0]
    assert row["contention"] == 0.25 and row["predicted_ms"] > 0 and math.isfinite(row["error_pct"])
    assert row["compares"].startswith("profiled")
