"""How long ``densing eval`` and ``densing measure`` take to refuse a model they cannot load (a ``package:`` model
whose package is not installed), beside the time lm-eval's task index takes to build — what the refusal waited for
when the models' sources were checked after it.

Each row is the median (and the spread, max − min) of ``--runs`` whole-process runs with ``HF_HUB_OFFLINE=1``; the
baseline ``lm-eval task index`` is ``lm_eval.tasks.TaskManager()`` in a fresh interpreter (the step the sweep
runs first). Ratios are the index's median over each refusal's; the goal is a refusal within 3 s.

    python bench/refusal_time.py [--runs 5]
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

MODELS = "models:\n  - name: absent\n    model: package:densing_no_such_package\n"


def timed(argv: list[str], env: dict, runs: int, code: int) -> tuple[float, float]:
    """(median, max − min) wall seconds of ``runs`` runs of ``argv``, each ending with exit status ``code``."""
    took = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        took.append(time.perf_counter() - start)
        if done.returncode != code:
            raise SystemExit(f"{' '.join(argv)}: exit {done.returncode} (expected {code}): {done.stderr[-300:]}")
    return statistics.median(took), max(took) - min(took)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    script = [str(Path(sys.executable).parent / "densing")]
    with tempfile.TemporaryDirectory() as tmp:
        models = Path(tmp) / "models.yaml"
        models.write_text(MODELS)
        rows = {
            "densing eval (refusal)": timed(
                [
                    *script,
                    "eval",
                    "--models",
                    str(models),
                    "--benchmarks",
                    "mmlu,arc_challenge",
                    "--out",
                    f"{tmp}/store",
                ],
                env,
                args.runs,
                2,
            ),
            "densing measure (refusal)": timed(
                [
                    *script,
                    "measure",
                    "--models",
                    str(models),
                    "--suite",
                    "leaderboard-v1",
                    "--store",
                    f"{tmp}/store",
                    "--out",
                    f"{tmp}/report.html",
                ],
                env,
                args.runs,
                2,
            ),
        }
        index = timed(
            [sys.executable, "-c", "import lm_eval.tasks as t; t.TaskManager()"], env, max(1, args.runs // 2), 0
        )
    print(f"{'command':28} {'median s':>9} {'spread s':>9} {'index / it':>11}")
    for name, (median, spread) in rows.items():
        print(f"{name:28} {median:9.2f} {spread:9.2f} {index[0] / median:11.1f}")
    print(f"{'lm-eval task index (base)':28} {index[0]:9.2f} {index[1]:9.2f} {1.0:11.1f}")


if __name__ == "__main__":
    main()
