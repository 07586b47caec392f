"""The cold ``densing eval`` command on the CPU, by phase: this tree against a baseline commit, hf against densing-hf.

The model is the GPU check's dry-run shape (2 layers, width 64, vocabulary 8,192, float32, random weights;
:func:`_cold.save_tiny_model`), so its forward pass costs little and the command's time is the host's. Each run is
one process of ``densing eval --local-data --device cpu`` into a fresh store (nothing cached), timed by phase
(:mod:`_cold`: contexts, calls, forward, the rest): ARC-Challenge 25-shot + WinoGrande 5-shot
(``openllm_v1_arc_challenge,openllm_v1_winogrande``) at ``--limit``, and GSM8K 5-shot (``openllm_v1_gsm8k``: greedy
generation to lm-eval's ``max_gen_toks`` of 256 new tokens, a random model rarely stopping earlier, and the loss
task) at ``--gen-limit``. Every round runs each (tree, backend, command) once, in an order rotated between rounds;
printed: the median and range of each phase over ``--rounds``, and per round the ratios densing-hf / hf and this
tree / baseline, as medians and ranges; ``--commands arc+wino`` (or ``gsm8k``) runs that command alone,
``--backends densing-hf`` (or ``hf``) that backend alone, ``--baseline none`` this tree alone.
``--threads`` sets ``OMP_NUM_THREADS`` in the runs (1 by default: on a shared machine more threads wait on each
other).

    python bench/cold_eval.py [--baseline 464b678] [--limit 100] [--gen-limit 8] [--rounds 3] [--commands arc+wino,gsm8k]
                              [--backends hf,densing-hf]
                              [--data-root DIR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cold import cold_command, models_file, save_tiny_model

TREE = Path(__file__).resolve().parents[1]
COMMANDS = {"arc+wino": "openllm_v1_arc_challenge,openllm_v1_winogrande", "gsm8k": "openllm_v1_gsm8k"}
PHASES = ("wall", "contexts", "calls", "forward", "rest", "host")


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}–{max(values):.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline", default="464b678", help="baseline commit, run from a git worktree of it (none: this tree alone)"
    )
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--gen-limit", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", default="1")
    parser.add_argument("--commands", default=",".join(COMMANDS), help="which of " + ", ".join(COMMANDS))
    parser.add_argument("--backends", default="hf,densing-hf", help="which of hf, densing-hf")
    parser.add_argument("--data-root", type=Path, default=None)
    options = parser.parse_args()
    options.backends = [name for name in options.backends.split(",") if name]
    if not options.backends or not set(options.backends) <= {"hf", "densing-hf"}:
        parser.error("--backends: a comma-separated list of hf, densing-hf")
    options.commands = [name for name in options.commands.split(",") if name]
    if not options.commands or not set(options.commands) <= set(COMMANDS):
        parser.error(f"--commands: a comma-separated list of {', '.join(COMMANDS)}")
    from densing.paths import SHARED_DATA

    data_root = options.data_root or Path(SHARED_DATA)
    with tempfile.TemporaryDirectory(prefix="cold-eval-") as temporary:
        scratch = Path(temporary)
        if options.baseline == "none":
            run(options, scratch, None, data_root)
            return
        baseline = scratch / "baseline"
        subprocess.run(
            ["git", "-C", str(TREE), "worktree", "add", "--detach", str(baseline), options.baseline],
            check=True,
            capture_output=True,
        )
        try:
            run(options, scratch, baseline, data_root)
        finally:
            subprocess.run(["git", "-C", str(TREE), "worktree", "remove", "--force", str(baseline)], check=False)


def run(options, scratch: Path, baseline: Path | None, data_root: Path) -> None:
    model = save_tiny_model(scratch / "tiny", data_root)
    models = models_file(scratch, model, "float32")
    trees = {"this": TREE, "base": baseline} if baseline is not None else {"this": TREE}
    runs = [(tree, backend, command) for command in options.commands for tree in trees for backend in options.backends]
    results: dict = {key: [] for key in runs}
    for round_ in range(options.rounds):
        shift = round_ % len(runs)
        for tree, backend, command in runs[shift:] + runs[:shift]:
            limit = options.limit if command == "arc+wino" else options.gen_limit
            arguments = [
                "eval",
                "--models",
                str(models),
                "--benchmarks",
                COMMANDS[command],
                "--local-data",
                "--data-root",
                str(data_root),
                "--backend",
                backend,
                "--device",
                "cpu",
                "--limit",
                str(limit),
            ]
            phases = cold_command(trees[tree], arguments, scratch / "runs", env={"OMP_NUM_THREADS": options.threads})
            results[tree, backend, command].append(phases)
            print(
                f"round {round_ + 1} {tree:4} {backend:10} {command:8} "
                + " ".join(f"{k} {phases[k]:.2f}" for k in PHASES),
                flush=True,
            )
    trees_run = "this tree" if baseline is None else f"this tree and {options.baseline}"
    print(
        f"\nphases, seconds: median [range] over {options.rounds} rounds ({trees_run}; "
        f"--limit {options.limit}{f', GSM8K --limit {options.gen_limit}' if 'gsm8k' in options.commands else ''}, "
        f"OMP_NUM_THREADS={options.threads})"
    )
    for key, values in results.items():
        print(
            f"{key[0]:4} {key[1]:10} {key[2]:8} " + "  ".join(f"{k} {spread([v[k] for v in values])}" for k in PHASES)
        )
    print("\nratios per round, median [range]")
    for command in options.commands:
        for tree in trees if len(options.backends) == 2 else ():
            for phase in ("wall", "contexts", "calls", "rest", "host"):
                ratio = [
                    d[phase] / h[phase]
                    for d, h in zip(results[tree, "densing-hf", command], results[tree, "hf", command])
                    if h[phase] > 0
                ]
                if ratio:
                    print(f"{command:8} {tree:4} densing-hf / hf   {phase:8} {spread(ratio)}")
        for backend in options.backends if baseline is not None else ():
            for phase in ("wall", "contexts", "calls", "rest", "host"):
                ratio = [
                    t[phase] / b[phase]
                    for t, b in zip(results["this", backend, command], results["base", backend, command])
                    if b[phase] > 0
                ]
                if ratio:
                    print(f"{command:8} {backend:10} this / {options.baseline} {phase:8} {spread(ratio)}")


if __name__ == "__main__":
    main()
