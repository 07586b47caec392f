"""The process's own streams: closed or broken, the command ends in at most one line on stderr and its exit code."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

DENSING = [sys.executable, "-c", "from densing.cli import run; run()"]


def _run(args, **streams):
    return subprocess.run(DENSING + args, timeout=120, **streams)


def test_a_closed_stdout_is_one_line_on_stderr_and_exit_2():
    done = _run(["overlap", "strategies"], stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1, err
    assert err.startswith("error: standard output is closed") and "Traceback" not in err


def test_a_closed_stderr_keeps_the_exit_code_and_writes_no_error_to_stdout():
    done = _run(["trend", "--n-boot", "5"], stdout=subprocess.PIPE, preexec_fn=lambda: os.close(2))
    assert done.returncode == 2 and done.stdout == b""


@pytest.mark.parametrize("args", [["overlap", "strategies"], ["eval", "--list", "--format", "json"]])
def test_a_reader_that_went_away_ends_the_command_silently(args):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line: every write is EPIPE
    try:
        done = _run(args, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert done.returncode == 1 and done.stderr == b"", done.stderr.decode()
