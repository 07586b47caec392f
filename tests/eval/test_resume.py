"""A sweep killed with SIGKILL mid-way resumes to the same store as an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from .conftest import write_models_yaml

pytest.importorskip("torch")
pytest.importorskip("lm_eval")
pytestmark = [pytest.mark.eval, pytest.mark.slow]


def _command(models, tasks, store):
    return [
        sys.executable,
        "-c",
        "from densing.cli import main; main()",
        "eval",
        "--models",
        str(models),
        "--benchmarks",
        "tiny_mc,tiny_gen",
        "--include-path",
        str(tasks),
        "--out",
        str(store),
        "--device",
        "cpu",
        "--format",
        "csv",
    ]


def _comparable(store):
    from densing.eval.store import read_store

    frame = read_store(store).drop(columns=["timestamp", "wall_seconds"])  # when and how long it ran
    return frame.sort_values(["model", "benchmark", "metric"]).reset_index(drop=True)


def test_sigkill_mid_sweep_then_resume_equals_uninterrupted(tmp_path, tiny_models, tiny_tasks, reference_store):
    models = write_models_yaml(tmp_path / "models.yaml", tiny_models)
    store = tmp_path / "store"
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")

    def start_and_signal(sig: int, parts_before: int) -> subprocess.Popen:
        process = subprocess.Popen(
            _command(models, tiny_tasks, store),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if store.exists() and len(list(store.rglob("*.parquet"))) > parts_before:
                break
            time.sleep(0.02)
        assert process.poll() is None, "the sweep finished before it could be signalled"
        process.send_signal(sig)
        process.wait(timeout=60)
        return process

    # Ctrl-C after the first pair: exit code 130, a line saying how to resume
    interrupted = start_and_signal(signal.SIGINT, 0)
    assert interrupted.returncode == 130
    assert "run the same command to resume" in interrupted.stderr.read()
    after_interrupt = len(list(store.rglob("*.parquet")))
    assert 1 <= after_interrupt < 4

    # kill -9 once one more pair is written
    start_and_signal(signal.SIGKILL, after_interrupt)
    parts_at_kill = list(store.rglob("*.parquet"))
    assert after_interrupt < len(parts_at_kill) < 4  # killed mid-way: some pairs done, not all

    resumed = subprocess.run(_command(models, tiny_tasks, store), env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "already in the store" in resumed.stderr

    result, expected = _comparable(store), _comparable(reference_store)
    assert len(result) == len(expected) == 2 * 3  # (2 metrics + 1) rows per model: no lost or duplicated rows
    assert not result.duplicated(["model", "benchmark", "metric"]).any()
    import pandas as pd

    pd.testing.assert_frame_equal(result, expected, check_exact=False, rtol=1e-9)


def test_a_ctrl_c_a_library_swallowed_mid_pair_stops_the_sweep_before_the_next(
    monkeypatch, tmp_path, tiny_model, tiny_tasks
):
    """A Ctrl-C whose KeyboardInterrupt a library swallowed inside a pair (the handler's flag set, no exception):
    that pair finishes and is written, and the sweep stops before the next one with KeyboardInterrupt, resumable, as
    a Ctrl-C between pairs stops it (densing eval then says how to resume and exits 130)."""
    from densing.eval import runner
    from densing.runtime import processes

    from .conftest import models_entries

    original = runner.evaluate_pair

    def swallowed(*args, **kwargs):
        processes.interrupted = True  # the handler ran; a library caught what it raised
        return original(*args, **kwargs)

    monkeypatch.setattr(runner, "evaluate_pair", swallowed)
    monkeypatch.setattr(processes, "interrupted", False)
    seen = []
    with pytest.raises(KeyboardInterrupt):
        runner.run_sweep(
            models_entries([tiny_model]),
            ["tiny_mc", "tiny_gen"],
            tmp_path / "store",
            include_paths=[tiny_tasks],
            device="cpu",
            on_progress=lambda model, bench, status: seen.append((bench, status)),
        )
    assert [s for s in seen if s[1] in ("running", "done")] == [("tiny_mc", "running"), ("tiny_mc", "done")]
    assert len(list((tmp_path / "store").rglob("*.parquet"))) == 1
