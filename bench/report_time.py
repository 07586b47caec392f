"""Whole-process time of ``densing report`` (and ``densing trend --by benchmark``) against a baseline commit.

The baseline is the same command run from a checkout of ``--baseline`` (a commit of this repository,
default ``8302201``: the capability trend under rule v2, whose report the reference-rule work set out to
bring back under 5 s) made with ``git worktree`` in a temporary folder and imported through
``PYTHONPATH`` (its ``src/`` where the package lives there), so both run in this interpreter with the same
packages. The two commands alternate,
A B A B …, ``--runs`` times each after one warm-up of each; the script prints each one's median and
range of wall seconds and the pair-by-pair ratio A/B (median, range), with the load average before and
after. It asserts nothing.

    python bench/report_time.py [--runs 5] [--baseline 8302201] [--command report|trend]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "report": ["report", "--out", "{out}"],
    "trend": ["trend", "--by", "benchmark"],
}


def seconds(argv: list[str], env: dict, cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", default="8302201")
    parser.add_argument("--command", choices=sorted(COMMANDS), default="report")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.baseline], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            words = [w.format(out=str(Path(tmp) / "report.html")) for w in COMMANDS[args.command]]
            runs = {}
            for name, tree in (("current", ROOT), ("baseline", base)):
                source = tree / "src" if (tree / "src" / "densing").is_dir() else tree  # the src layout, or a flat tree
                env = {**os.environ, "PYTHONPATH": str(source)}
                runs[name] = ([sys.executable, "-m", "densing.cli.app", *words], env, tree)
            load_before = os.getloadavg()
            for name in runs:  # one warm-up each (file caches, compiled bytecode)
                seconds(*runs[name])
            times: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(args.runs):
                for name in runs:
                    times[name].append(seconds(*runs[name]))
            load_after = os.getloadavg()
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ratios = [a / b for a, b in zip(times["current"], times["baseline"])]
    print(f"densing {' '.join(COMMANDS[args.command]).format(out='OUT')}: {args.runs} paired whole-process runs after one "
          f"warm-up each; {os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    for name, found in times.items():
        label = "current tree" if name == "current" else f"baseline {args.baseline}"
        print(f"{label:<20} median {statistics.median(found):6.2f} s  range {min(found):6.2f}–{max(found):6.2f} s")
    print(f"{'ratio current/base':<20} median {statistics.median(ratios):6.2f}    range {min(ratios):6.2f}–{max(ratios):6.2f}")


if __name__ == "__main__":
    main()
