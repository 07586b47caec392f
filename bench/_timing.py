"""Whole-process timing shared by the benches that run densing as a command (``report_time.py``, ``table_size.py``)."""
from __future__ import annotations

import resource
import subprocess
import time
from pathlib import Path


def seconds(argv: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child processes) of one whole-process run; a failing run ends the bench
    with its exit status and the end of its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
