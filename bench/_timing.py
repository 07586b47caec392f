"""Whole-process timing shared by the benches that run densing as a command (``report_time.py``, ``table_size.py``;
``report_phases.py`` runs its children in :func:`environment`), and the form every bench prints a distribution in
(:func:`spread`), and the exponent of a cost over sizes (:func:`exponent`)."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

#: What the timed commands' environment says of bytecode (printed in each bench's header).
BYTECODE = (
    "compiled bytecode cached (PYTHONDONTWRITEBYTECODE unset for the commands: the warm-up writes each "
    "tree's __pycache__, as an installed package has its modules compiled by pip)"
)


def environment(package: Path) -> dict:
    """The environment of a timed command: this one's, the package under ``package`` first on ``PYTHONPATH``, and
    Python free to cache compiled modules. A machine that sets PYTHONDONTWRITEBYTECODE (some containers do) otherwise
    compiles every module of densing from source in every run, ≈0.2–0.4 s of ``densing report``'s start that no
    installed package pays."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(package)}


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


def spread(values, spec: str = ".2f", between: str = "–") -> str:
    """A repeated measurement as ``median [min<between>max]`` (each ``format(value, spec)``): the form
    the bench scripts print a distribution in (median and spread, never one number)."""
    import statistics

    values = list(values)
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{format(mid, spec)} [{format(low, spec)}{between}{format(high, spec)}]"


def exponent(sizes, costs) -> float:
    """The least-squares slope b of log(cost) on log(size): cost ∝ size^b (NaN for fewer than two sizes)."""
    import math

    import numpy as np

    if len(sizes) < 2:
        return math.nan
    return float(np.polyfit(np.log(sizes), np.log(costs), 1)[0])
