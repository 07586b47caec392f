"""Ctrl-C at any moment of ``python cli.py report`` after the script starts — its imports, the measurement, the
writing — ends with the one line ``error: interrupted`` and exit 130, and leaves no file, whole or half-written."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.cli_run import importing
from tests.conftest import REPO_ROOT


@pytest.mark.parametrize("after", [0.0, 0.5, 1.5, 4.5])
def test_ctrl_c_during_report_is_one_line_and_130(after, tmp_path):
    process = subprocess.Popen(
        [sys.executable, str(REPO_ROOT / "cli.py"), "report", "--out", str(tmp_path / "r.html")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    importing(process)
    time.sleep(after)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130 and err.strip().splitlines()[-1:] == ["error: interrupted"], err
    assert "Traceback" not in err and list(tmp_path.iterdir()) == [], err
