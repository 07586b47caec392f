"""The console-script entry ``densing.cli.run``: main's exit codes and output, then a fast exit
(exit handlers run and streams are flushed before ``os._exit``)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _run(*args: str, extra: str = "") -> subprocess.CompletedProcess:
    code = f"import sys\nsys.argv = ['densing', *{list(args)!r}]\n{extra}from densing.cli import run\nrun()\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_success_prints_everything_and_exits_0():
    done = _run("density", "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)  # the whole document arrived: flushed before the exit
    assert len(rows) > 10 and {"model", "density"} <= set(rows[0])


@pytest.mark.parametrize("args", [("density", "--level", "2"), ("trend", "--no-such-flag")])
def test_errors_exit_2_with_one_line(args):
    done = _run(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")


def test_exit_handlers_run():
    done = _run("--help", extra="import atexit\natexit.register(lambda: print('handler ran', file=sys.stderr))\n")
    assert done.returncode == 0 and "Usage: densing" in done.stdout and "handler ran" in done.stderr


def test_python_dash_m_densing_cli_runs_the_command_line():
    """What ``accelerate launch -m densing.cli eval …`` starts."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "densing.cli", "eval", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--list" in done.stdout
