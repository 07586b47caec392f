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

    done = subprocess.run(
        [sys.executable, "-m", "densing.cli", "eval", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "--list" in done.stdout


_BLAS = (
    "import atexit, os\n"
    "def _blas():\n"
    "    from threadpoolctl import threadpool_info\n"
    "    threads = sorted({i['num_threads'] for i in threadpool_info() if i['internal_api'] == 'openblas'})\n"
    "    print('BLAS', os.environ.get('OPENBLAS_NUM_THREADS'), threads, file=sys.stderr)\n"
    "atexit.register(_blas)\n"
)


@pytest.mark.parametrize("setting", [None, "2"])
def test_a_table_command_runs_blas_in_one_thread_unless_the_user_sets_it(monkeypatch, setting):
    """``densing.cli.TABLE_COMMANDS`` set OPENBLAS_NUM_THREADS=1 before numpy loads (numpy's and scipy's OpenBLAS
    then start no threads of their own); a value in the user's environment stays."""
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    if setting is not None:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", setting)
    done = _run("density", "--format", "json", extra=_BLAS)
    assert done.returncode == 0, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    expected = "1" if setting is None else setting
    # the thread counts of the OpenBLAS libraries loaded ([] where numpy and scipy use another BLAS)
    assert line in (f"BLAS {expected} [{expected}]", f"BLAS {expected} []"), line


def test_a_command_that_runs_models_keeps_the_users_blas_threads(monkeypatch):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    done = _run("eval", "--help", extra=_BLAS)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("BLAS None"), done.stderr
