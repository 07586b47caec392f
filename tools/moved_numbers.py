"""The published doubling times of two trees side by side, each move beside the Monte Carlo error of the number.

    python tools/moved_numbers.py --baseline REV [--seeds 10] [--table public | --design olmes] > moved.txt

Runs ``densing trend --by benchmark --format json`` (``--design olmes``: ``densing trend --design olmes``) (seed 0) on the tree at ``REV`` (``git archive`` into a temporary
folder, run with ``PYTHONPATH`` set to it) and on this checkout, and on this checkout again with seeds 1 … ``--seeds``.
For every row and each of its three numbers (months, the interval's ends) it prints the baseline's value, this tree's,
the move, and the Monte Carlo SE of this tree's number (the standard deviation over the seeds): a move far beyond its
Monte Carlo SE is a change of the estimator, not of the draws. An infinite end is printed as ∞ and has no SE.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
NUMBERS = ("months", "ci_low", "ci_high")


def trend(source: Path, seed: int, table: str, design: str | None = None) -> dict[str, dict]:
    """Each row of ``densing trend --by benchmark --format json`` (or of ``--design DESIGN``) run from ``source`` (a
    checkout's root), by row."""
    env = {**os.environ, "PYTHONPATH": str(source), "DENSING_HOME": str(source)}
    what = ["--design", design] if design else ["--by", "benchmark", "--table", table]
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from densing.cli import run; run()",
            "trend",
            *what,
            "--seed",
            str(seed),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=source,
        check=True,
    ).stdout
    document = json.loads(out)
    rows = document["rows"] if isinstance(document, dict) else document
    return {r.get("row", r.get("task")): r for r in rows}


def _value(row: dict | None, key: str) -> float:
    value = None if row is None else row.get(key)
    return (
        math.inf
        if value is None and row is not None and row.get("months") is not None
        else (math.nan if value is None else float(value))
    )


def _shown(value: float) -> str:
    return "∞" if value == math.inf else "—" if not math.isfinite(value) else f"{value:.3g}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="the commit of the published numbers")
    parser.add_argument("--seeds", type=int, default=10, help="seeds 1 … N for the Monte Carlo SE")
    parser.add_argument("--table", default="public")
    parser.add_argument("--design", default=None, help="a second design (olmes) instead of a table's rows")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "archive", args.baseline], capture_output=True, check=True, cwd=REPO).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        before = trend(Path(folder), 0, args.table, args.design)
    after = trend(REPO, 0, args.table, args.design)
    reseeded = [trend(REPO, seed, args.table, args.design) for seed in range(1, args.seeds + 1)]
    what = f"--design {args.design}" if args.design else f"--by benchmark --table {args.table}"
    print(
        f"densing trend {what}: the tree at {args.baseline} against this tree (seed 0), "
        f"Monte Carlo SE over seeds 1–{args.seeds} of this tree"
    )
    print(
        f"{'row':<24} {'number':<8} {'before':>8} {'after':>8} {'move':>8} {'MC SE':>8} {'|move|/SE':>9}  state after"
    )
    for name in after:
        for key in NUMBERS:
            old, new = _value(before.get(name), key), _value(after[name], key)
            values = np.array([_value(r.get(name), key) for r in reseeded])
            finite = values[np.isfinite(values)]
            se = float(np.std(finite, ddof=1)) if finite.size == values.size and finite.size > 1 else math.nan
            move = new - old if math.isfinite(new) and math.isfinite(old) else math.nan
            ratio = abs(move) / se if math.isfinite(move) and se > 0 else math.nan
            state = after[name].get("state", "") if key == "months" else ""
            print(
                f"{name:<24} {key:<8} {_shown(old):>8} {_shown(new):>8} {_shown(move):>8} {_shown(se):>8} "
                f"{_shown(ratio):>9}  {state}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
