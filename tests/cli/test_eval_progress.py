"""What ``densing eval`` shows while it works on a stream that is not a terminal (densing/cli/eval_progress.py):
plain lines from the first slow step on, a line while a step lasts, a line when a pair's requests are read from
the store's kept build instead of built, and the first request a pair hands its model (before the model loads)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from densing.cli.eval_progress import PlainLines, stream_is_plain
from tests.eval.conftest import write_tiny_tasks

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tiny_tasks(tmp_path_factory) -> Path:
    """The eval tests' lm-eval task files (tests/eval/conftest.py)."""
    return write_tiny_tasks(tmp_path_factory.mktemp("tasks"))


def test_a_pipe_is_plain_and_a_captured_stream_is_not():
    read, write = os.pipe()
    with os.fdopen(read), os.fdopen(write, "w") as writer:
        assert stream_is_plain(writer)
        assert not stream_is_plain(io.StringIO())


def test_a_step_is_said_at_once_and_again_while_it_lasts():
    stream = io.StringIO()
    lines = PlainLines(stream, every=0.05)
    lines.step("loading model m")
    assert stream.getvalue() == "densing eval: loading model m …\n"
    waited = 0.0
    while "still" not in stream.getvalue() and waited < 30:  # the heartbeat's thread: waited for, not timed
        time.sleep(0.05)
        waited += 0.05
    lines.close()
    said = stream.getvalue().splitlines()
    assert said[1].startswith("densing eval: … still loading model m (") and said[1].endswith(" s)")
    assert "\x1b" not in stream.getvalue() and "\r" not in stream.getvalue()
    after = stream.getvalue()
    time.sleep(0.2)
    assert stream.getvalue() == after  # nothing after close


def _eval_on_a_pipe(tmp_path: Path, tiny_tasks: Path, model_name: str, benchmark: str) -> list[str]:
    """``densing eval`` of the tests' fake lm-eval model in a process of its own, stderr a pipe: its stderr lines."""
    models = tmp_path / f"{model_name}.yaml"
    models.write_text(f"models:\n  - name: {model_name}\n    model: org/fake-model\n    params: 1.2e8\n")
    argv = [
        "eval",
        "--models",
        str(models),
        "--benchmarks",
        benchmark,
        "--include-path",
        str(tiny_tasks),
        "--backend",
        "densing-test-fake",
        "--out",
        str(tmp_path / "store"),
        "--format",
        "csv",
    ]
    code = f"import tests.eval.fake_backend\nfrom densing.cli import run\nimport sys\nsys.argv = ['densing', *{argv!r}]\nrun()"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [line for line in done.stderr.splitlines() if line.startswith("densing eval: ")]


@pytest.mark.eval
def test_a_pipe_gets_plain_lines_and_a_second_run_says_it_reuses_the_built_requests(tmp_path, tiny_tasks):
    pytest.importorskip("lm_eval")
    first = _eval_on_a_pipe(tmp_path, tiny_tasks, "fake", "tiny_group")
    assert first[0].startswith("densing eval: checking the options and --backend densing-test-fake")
    assert "densing eval: reading lm-eval's task index and the store …" in first
    # the first pair's requests are built and the first of them said before the model loads, its newline escaped
    handed = (
        'densing eval: fake / tiny_group: 30 loglikelihood requests, the first: "Question: What colour is the '
        'sky on a clear day?\\nAnswer:" → " blue"'
    )
    assert (
        first.index("densing eval: fake / tiny_group: building the requests and evaluating …")
        < first.index(handed)
        < first.index("densing eval: loading model fake …")
        < first.index("densing eval: fake / tiny_group: evaluating …")
    )
    assert first[-1] == "densing eval: fake / tiny_group: done (1 of 1 pairs)"
    assert not any("reusing" in line for line in first)
    # another model of the same sweep: the same built requests (their key has no model), read from the store
    second = _eval_on_a_pipe(tmp_path, tiny_tasks, "fake-2", "tiny_group")
    built = tmp_path / "store" / ".cache" / "built"
    reuse = [line for line in second if "reusing" in line]
    assert len(reuse) == 1 and reuse[0].startswith(
        f"densing eval: fake-2 / tiny_group: reusing the built requests in {built}{os.sep}tiny_mc"
    )
    assert reuse[0].endswith(".pickle (15 requests)")  # tiny_mc's or its copy's: 5 questions of 3 choices
    assert second[-1] == (
        f"densing eval: fake-2 / tiny_group: done (1 of 1 pairs); the built requests of 2 tasks "
        f"reused from {built} (30 requests)"
    )
    assert all("\x1b" not in line for line in first + second)
