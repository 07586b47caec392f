"""``densing overlap run`` refuses what torchrun would fail on before it writes run.yaml or starts a process."""

from __future__ import annotations

import subprocess

import pytest

from tests.cli_run import run


@pytest.fixture
def no_process(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("torchrun was started")

    monkeypatch.setattr(subprocess, "Popen", refuse)


@pytest.mark.parametrize(
    "args,named",
    [
        (["--corpus", "no_such_corpus.txt"], "corpus"),
        (["--bucket-mb", "inf"], "bucket_mb"),
        (["--bucket-mb", "nan"], "bucket_mb"),
        (["--bucket-mb", "-1"], "bucket_mb"),
        (["--bucket-mb", "0"], "bucket_mb"),
        (["--bucket-mb", "1e30"], "bucket_mb"),
        (["--workers", "0"], "workers"),
        (["--workers", "100000"], "workers"),
        (["--nnodes", "0"], "nnodes"),
        (["--nnodes", "2"], "rdzv_endpoint"),
        (["--nnodes", "2", "--rdzv-endpoint", "host"], "rdzv_endpoint"),
        (["--node-rank", "1"], "node_rank"),
        (["--strategies", "bogus"], "strateg"),
        (["--steps", "0"], "steps"),
        (["--steps", "-3"], "steps"),
        (["--lr", "inf"], "lr"),
        (["--seed", "-1"], "seed"),
        (["--repeats", "0"], "repeats"),
        (["--d-model", "100000"], "d_model"),
        (["--seq-len", "100000000"], "seq_len"),
        (["--strategies", "tp", "--tp-overlap", "chunked,bogus"], "tp_overlap"),
        (["--strategies", "tp", "--workers", "3"], "n_head"),
    ],
)
def test_bad_option_writes_nothing_and_starts_nothing(args, named, tmp_path, monkeypatch, capsys, no_process):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["overlap", "run", "out", *args], capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: ") and named in err, err
    assert "Traceback" not in err and out == ""
    assert list(tmp_path.iterdir()) == []


def test_output_folder_under_a_file_is_refused(tmp_path, capsys, no_process):
    (tmp_path / "afile").write_text("x")
    for out in (tmp_path / "afile", tmp_path / "afile" / "runs"):
        code, _, err = run(["overlap", "run", str(out)], capsys)
        assert code == 2 and str(tmp_path / "afile") in err and err.count("\n") == 1, err
    assert [p.name for p in tmp_path.iterdir()] == ["afile"]


def test_param_numel_matches_the_built_model():
    pytest.importorskip("torch")
    from densing.overlap.train import TrainConfig, build_model, param_numel

    for config in (TrainConfig(), TrainConfig(d_model=12, n_head=3, n_layer=2, seq_len=7)):
        assert [p.numel() for p in build_model(config).parameters()] == param_numel(config)
