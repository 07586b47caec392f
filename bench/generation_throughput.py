"""Greedy generation throughput: densing's shared-prefix ``generate_until`` against lm-eval's HF one.

Workload: ``--workload gsm8k`` (default): GSM8K 8-shot chain of thought (``densing_local_gsm8k_cot``,
lm-eval's ``gsm8k_cot`` prompt on the local test split), the first ``--questions`` questions;
``--workload bbh``: BBH 3-shot chain of thought (lm-eval's ``bbh_cot_fewshot`` prompts, up to 1,024
new tokens), the first ``--questions`` questions of each task in ``--tasks``. SmolLM2-135M-Instruct
Q4_1 GGUF dequantised to float32 as ``densing eval`` loads it. Backends in one process
(``--backends``, default all four):

- ``plain-1``: lm-eval's ``HFLM.generate_until`` at batch size 1 (lm-eval's default);
- ``plain-B``: the same at ``--rows`` requests per batch (its left-padded batched ``generate``);
- ``fixed``: densing's fixed-batch path (``--rows`` requests per batch, the batch's shared prefix
  computed once, the batch runs until its longest row stops) — the path before continuous batching;
- ``densing``: ``PrefixCachedHFLM.generate_until`` (``densing eval --backend densing-hf``): continuous
  batching over ``--rows`` slots, each few-shot prefix held once (``densing/eval/backends/prefix/scheduler.py``).

Each of ``--rounds`` rounds runs all three on the same requests (the order rotates between rounds)
and times ``generate_until``. Tokens/s counts the *useful* new tokens: each request's tokens up to
where lm-eval at batch 1 stops it (the count densing decodes; the rows a batched ``generate`` keeps
running after they are done are not counted). Printed: tokens/s of each (median, min–max), the
ratios densing/plain-1 and densing/plain-B per round (median, min–max), and whether each backend's
strings equal the first backend's.

    OMP_NUM_THREADS=1 python bench/generation_throughput.py [--questions 16 --rows 16 --rounds 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's densing and tools/
from _timing import spread

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _spread(values: list[float], digits: int = 2) -> str:
    return spread(values, f".{digits}f", ", ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=16)
    parser.add_argument("--rows", type=int, default=16, help="requests per batch (plain-B and densing)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workload", choices=["gsm8k", "bbh"], default="gsm8k")
    parser.add_argument(
        "--tasks",
        default="date_understanding,boolean_expressions,navigate",
        help="BBH tasks (--workload bbh), comma-separated",
    )
    parser.add_argument("--backends", default="plain-1,plain-B,fixed,densing")
    arguments = parser.parse_args()

    import torch

    torch.set_num_threads(arguments.threads)
    from densing.eval.backends.prefix.settings import PrefixSettings
    from densing.eval.models import read_models_file
    from densing.eval.runner import load_model
    from densing.paths import RESULTS, SHARED_DATA
    from tools.lm_eval_requests import build_instances

    spec = read_models_file(RESULTS / "smollm2" / "models.yaml")[0]
    wanted = arguments.backends.split(",")
    unknown = set(wanted) - {"plain-1", "plain-B", "fixed", "densing"}
    if unknown or "densing" not in wanted:
        raise SystemExit(f"--backends: unknown {sorted(unknown)} (densing must be one of them)")
    sizes = {"plain-1": (1, False), "plain-B": (arguments.rows, False), "fixed": (1, True), "densing": (1, True)}
    backends = {
        name: load_model(
            spec,
            backend="densing-hf" if sizes[name][1] else "hf",
            # densing at --batch-size 1 decodes --rows rows
            device="cpu",
            batch_size=sizes[name][0],
            settings=PrefixSettings(rows_per_batch=arguments.rows, fixed_batches=name == "fixed")
            if sizes[name][1]
            else None,
        )[0]
        for name in wanted
    }
    if arguments.workload == "gsm8k":
        instances, label = (
            build_instances(["densing_local_gsm8k_cot"], arguments.questions, 8, SHARED_DATA),
            "GSM8K 8-shot CoT",
        )
    else:
        tasks = [f"densing_local_bbh_cot_fewshot_{t}" for t in arguments.tasks.split(",")]
        instances, label = (
            build_instances(tasks, arguments.questions, 3, SHARED_DATA),
            f"BBH 3-shot CoT ({arguments.tasks})",
        )
    prompt_tokens = [len(backends["densing"].tok_encode(i.args[0])) for i in instances]
    print(
        f"model {spec.name}; torch {torch.__version__}, {arguments.threads} thread(s); {label}, "
        f"{len(instances)} questions, prompts {min(prompt_tokens)}-{max(prompt_tokens)} tokens; rows {arguments.rows}"
    )
    print(f"load average at start: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")

    names = list(backends)
    seconds: dict[str, list[float]] = {n: [] for n in names}
    outputs: dict[str, list[str]] = {}
    useful = None
    for round_index in range(arguments.rounds):
        order = names[round_index % len(names) :] + names[: round_index % len(names)]
        for name in order:
            started = time.perf_counter()
            outputs[name] = backends[name].generate_until(instances, disable_tqdm=True)
            seconds[name].append(time.perf_counter() - started)
        useful = backends["densing"].decode_stats.generated_tokens
        print(
            f"round {round_index + 1} ({', '.join(order)}): "
            + ", ".join(f"{n} {seconds[n][-1]:.1f} s" for n in names)
            + f"; {useful} useful new tokens",
            flush=True,
        )
    rate = {n: [useful / s for s in seconds[n]] for n in names}
    for name in names:
        same = outputs[name] == outputs[names[0]]
        print(f"{name:8s} tokens/s {_spread(rate[name])}  strings equal {names[0]}: {same}")
    for base in [n for n in names if n != "densing"]:
        ratios = [a / b for a, b in zip(seconds[base], seconds["densing"])]
        print(f"densing / {base}: {_spread(ratios)}x (median [min, max] over {arguments.rounds} paired rounds)")
    print(f"load average at end: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
