"""Throughput of `densing eval --backend densing-hf` (the trie cache) against lm-eval's plain HF backend.

Workloads (the requests lm-eval builds from densing's task configs, SmolLM2-135M-Instruct Q4_1
GGUF dequantised to float32, as `densing eval` loads it):

- ``mmlu``: lm-eval's MMLU format, 5-shot (``densing_local_mmlu_<subject>``), the first
  ``--questions`` questions of each of ``--subjects`` subjects;
- ``olmes``: one OLMES ranked-classification 5-shot task (``--olmes-task``, default ARC-Easy), the
  first ``--items`` items.

For each workload and each of ``--repeats`` rounds, the same requests are scored by both backends
in one process (the order alternates between rounds), timing ``lm.loglikelihood``; printed are
requests/s and distinct tokens/s of each (median and min–max over rounds), the ratio trie/plain per
round (median, min–max), the largest |Δ log-likelihood| per request and both accuracies (argmax of
the log-likelihood per item).

The lower bound is the time to run every distinct token position once at this machine's measured
matmul throughput: distinct positions × 2 × (non-embedding parameters) + scored positions × 2 ×
(vocabulary × width) floating-point operations, divided by the median GFLOP/s of a float32
(512 × d)·(d × 4d)-shaped matmul (d the model width) on the same threads, measured between rounds.
Attention scores (∝ context length) are left out of the bound, so it is optimistic.

    python bench/eval_throughput.py [--subjects 1 --questions 40 --items 8 --repeats 3 --threads 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's densing and tools/
from _timing import spread

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# subjects with prompts of MMLU's typical length (professional_law's 5-shot block is ~3x longer)
SUBJECTS = ("high_school_psychology", "miscellaneous", "elementary_mathematics", "high_school_biology")


def _accuracy(instances, answers) -> float:
    by_doc: dict = {}
    for instance, (ll, _) in zip(instances, answers):
        key = (instance.task_name, instance.doc_id)
        by_doc.setdefault(key, [instance, []])[1].append(ll)
    correct = 0
    for instance, lls in by_doc.values():
        correct += int(max(range(len(lls)), key=lambda i: lls[i]) == _gold(instance))
    return correct / len(by_doc)


def _gold(instance) -> int:
    doc = instance.doc
    for key in ("answer", "gold", "label"):
        if key in doc:
            value = doc[key]
            if isinstance(value, str):
                return "ABCD".index(value) if value in "ABCD" else int(value)
            return int(value)
    if "answerKey" in doc:
        return doc["choices"]["label"].index(doc["answerKey"])
    raise SystemExit(f"no gold field in {sorted(doc)}")


def matmul_gflops(width: int, rounds: int = 7) -> float:
    import torch

    a, b = torch.randn(512, width), torch.randn(width, 4 * width)
    torch.matmul(a, b)
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(10):
            torch.matmul(a, b)
        samples.append(10 * 2 * 512 * width * 4 * width / (time.perf_counter() - start) / 1e9)
    return statistics.median(samples)


def _spread(values: list[float], digits: int = 2) -> str:
    return spread(values, f".{digits}f")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=1)
    parser.add_argument("--questions", type=int, default=40, help="MMLU questions per subject")
    parser.add_argument("--olmes-task", default="densing_olmes_arc_easy")
    parser.add_argument("--items", type=int, default=8, help="items of the OLMES task")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--workloads", default="mmlu,olmes")
    arguments = parser.parse_args()

    import torch

    torch.set_num_threads(arguments.threads)
    from densing.eval.backends.prefix.grouping import distinct_token_count
    from densing.eval.models import read_models_file
    from densing.eval.runner import load_model
    from densing.paths import RESULTS, SHARED_DATA
    from tools.lm_eval_requests import build_instances

    spec = read_models_file(RESULTS / "smollm2" / "models.yaml")[0]
    trie, counts = load_model(spec, backend="densing-hf", device="cpu", batch_size=arguments.batch_size)
    plain, _ = load_model(spec, backend="hf", device="cpu", batch_size=arguments.batch_size)
    config = trie.model.config
    width, vocab = config.hidden_size, config.vocab_size
    print(
        f"model {spec.name}: {counts.total:,.0f} parameters, {counts.non_embedding:,.0f} non-embedding; "
        f"torch {torch.__version__}, {arguments.threads} thread(s), batch size {arguments.batch_size}"
    )
    print(f"load average at start: {Path('/proc/loadavg').read_text().split()[:3]}")

    workloads = {
        "mmlu": ([f"densing_local_mmlu_{s}" for s in SUBJECTS[: arguments.subjects]], arguments.questions, 5),
        "olmes": ([arguments.olmes_task], arguments.items, None),
    }
    for name in arguments.workloads.split(","):
        tasks, limit, shots = workloads[name]
        instances = build_instances(tasks, limit, shots, SHARED_DATA)
        encoded = [trie._encode_pair(*instance.args) for instance in instances]
        inputs = [(c + x)[-(trie.max_length + 1) :][:-1] for c, x in encoded]
        distinct = distinct_token_count(inputs)
        scored = sum(len(x) for _, x in encoded)
        total = sum(len(i) for i in inputs)
        times: dict[str, list[float]] = {"plain": [], "trie": []}
        answers = {}
        gflops = []
        for round_ in range(arguments.repeats):
            order = ("plain", "trie") if round_ % 2 == 0 else ("trie", "plain")
            for which in order:
                lm = trie if which == "trie" else plain
                start = time.perf_counter()
                answers[which] = lm.loglikelihood(instances, disable_tqdm=True)
                times[which].append(time.perf_counter() - start)
            gflops.append(matmul_gflops(width))
        n = len(instances)
        bound = (distinct * 2 * counts.non_embedding + scored * 2 * vocab * width) / (statistics.median(gflops) * 1e9)
        delta = max(abs(a[0] - b[0]) for a, b in zip(answers["trie"], answers["plain"]))
        greedy_same = all(a[1] == b[1] for a, b in zip(answers["trie"], answers["plain"]))
        ratios = [p / t for p, t in zip(times["plain"], times["trie"])]
        print(
            f"\n== {name}: {', '.join(tasks)} (limit {limit}): {n} requests, {total:,} input tokens, "
            f"{distinct:,} distinct positions ({total / distinct:.1f}x fewer), trie computed {trie.trie_stats.computed_tokens:,}"
        )
        for which in ("plain", "trie"):
            rates = [n / t for t in times[which]]
            print(
                f"{which:>6}: {_spread(times[which], 1)} s   {_spread(rates)} requests/s   "
                f"{_spread([distinct / t for t in times[which]], 0)} distinct tokens/s"
            )
        print(f" ratio trie/plain requests/s (paired per round): {_spread(ratios)}")
        print(
            f" max |Δ ll| per request {delta:.2e} nats; greedy flags identical: {greedy_same}; "
            f"accuracy plain {_accuracy(instances, answers['plain']):.4f}, trie {_accuracy(instances, answers['trie']):.4f}"
        )
        print(
            f" lower bound: {bound:.1f} s at {_spread(gflops, 1)} GFLOP/s matmul; trie time / bound: "
            f"{_spread([t / bound for t in times['trie']])}"
        )
    print(f"\nload average at end: {Path('/proc/loadavg').read_text().split()[:3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
