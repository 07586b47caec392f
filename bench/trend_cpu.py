"""CPU seconds and wall time of ``densing trend`` on this tree against a named baseline commit, paired.

    python bench/trend_cpu.py --baseline REV [--runs 5] [--command trend] [-- EXTRA ARGS]

The baseline is ``git archive REV`` unpacked into a temporary folder and run with ``PYTHONPATH`` (and the working
folder) set to it; this tree is run the same way. The two alternate, run by run, so that both see the same machine.
CPU is the user + system time of the command and every process it waited for (``getrusage(RUSAGE_CHILDREN)``
around each run: the forked workers included). Both run with compiled bytecode cached (:data:`_timing.BYTECODE`).
Prints each run, then per tree the median, minimum and maximum, and the ratio of the medians (this tree / baseline).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from _timing import BYTECODE, environment  # bench/ is the script's folder

REPO = Path(__file__).resolve().parent.parent


def run_once(source: Path, args: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``densing ARGS`` run from ``source``."""
    env = {**environment(source), "DENSING_HOME": str(source)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "from densing.cli import run; run()", *args],
        cwd=source,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def _stats(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} [{min(values):.2f}–{max(values):.2f}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="the commit to compare with")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--command", default="trend", help="the densing command (default: trend)")
    parser.add_argument("extra", nargs="*", help="more arguments of the command (after --)")
    args = parser.parse_args()
    command = [args.command, *args.extra]
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "archive", args.baseline], capture_output=True, check=True, cwd=REPO).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        trees = {"baseline": Path(folder), "this tree": REPO}
        found: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for source in trees.values():  # one warm-up run each (imports, file caches), not counted
            run_once(source, command)
        for i in range(args.runs):
            for name, source in trees.items() if i % 2 == 0 else reversed(list(trees.items())):
                cpu, wall = run_once(source, command)
                found[name].append((cpu, wall))
                print(f"run {i + 1} {name:<9} CPU {cpu:.2f} s, wall {wall:.2f} s", flush=True)
    print(f"densing {' '.join(command)}: {args.runs} paired runs, baseline {args.baseline}; {BYTECODE}")
    for name, values in found.items():
        print(f"  {name:<9} CPU s {_stats([c for c, _ in values])}; wall s {_stats([w for _, w in values])}")
    ratio_cpu = statistics.median(c for c, _ in found["this tree"]) / statistics.median(c for c, _ in found["baseline"])
    ratio_wall = statistics.median(w for _, w in found["this tree"]) / statistics.median(
        w for _, w in found["baseline"]
    )
    print(f"  ratio (this tree / baseline): CPU {ratio_cpu:.2f}, wall {ratio_wall:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
