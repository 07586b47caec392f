"""Greedy generation speed by how far the outputs have run: densing-hf against lm-eval's ``hf``, per window of new tokens.

A model that never stops makes every request generate the task's whole ``max_gen_toks``; a per-step cost that grows
with the tokens generated so far (a stop check that decodes a growing tail, a cache or mask rebuilt per step, a list
re-scanned per step) then shows as tokens/s falling from window to window. Model: the GPU check's dry-run shape
(2 layers, width 64, vocabulary 8,192, float32, random weights; ``_cold.save_tiny_model``), loaded as
``densing eval`` loads it; requests: GSM8K 5-shot (``densing_local_gsm8k``, what ``openllm_v1_gsm8k`` runs with
``--local-data``: lm-eval's ``until`` and ``max_gen_toks`` of 256), the first ``--questions`` questions.

- ``hf``: lm-eval's ``HFLM.generate_until`` at batch 1 (``densing eval --backend hf``): the ``k``-th forward pass of
  a request's ``model.generate`` makes its ``k``-th new token, and owns the time until the next forward starts (its
  last one, until ``generate`` returns).
- ``densing-hf``: ``PrefixCachedHFLM.generate_until`` (``--rows`` slots, the default settings otherwise): each
  admission and decoding step of :class:`densing.eval.backends.prefix.scheduler.ContinuousDecoder` owns the time until
  the next one starts (the last one, until ``run`` returns), shared equally among the new tokens it makes (a row's
  ``n``-th new token counts in the window of ``n``; a drafted step makes several per row).

Token 1 comes from the prefill (the prompt's forward pass) and is left out; windows are ``2–W``, ``W+1–2W``, …
(``W`` = ``--window``); ``--draft`` sets densing-hf's draft tokens per step (default: the settings' 4; 0 makes every
step one token a row, so its time per token is its time per step). A window's tokens/s = its tokens / the time its tokens own. Each of ``--rounds`` rounds runs
both backends on the same requests, the order alternating. Printed: per backend and window, tokens/s (median
[min–max] over rounds), and densing-hf's milliseconds per step and new tokens per step; per backend the ratio last
window / first window per round (median [min–max]: 1.0 is a per-step cost that does not grow), and densing-hf's
ms/step ratio; the share of requests that ran to ``max_gen_toks``; densing-hf's whole
``generate_until`` time over hf's per round; whether the strings are the same.

    OMP_NUM_THREADS=1 python bench/generation_length.py [--questions 16 --rows 16 --rounds 3 --window 32 --draft 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's densing and tools/
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cold import models_file, save_tiny_model
from _timing import spread

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class StepLog:
    """Steps as ``(start time, [new-token number of each token it makes])``; ``close`` ends the last one."""

    def __init__(self) -> None:
        self.steps: list[tuple[float, list[int]]] = []
        self.ends: list[float] = []  # the end of each run of steps (a generate call, a decoder's run)

    def start(self, numbers: list[int] | None = None) -> list[int]:
        self.steps.append((time.perf_counter(), [] if numbers is None else numbers))
        return self.steps[-1][1]

    def close(self) -> None:
        self.ends.append(time.perf_counter())
        self.steps.append((self.ends[-1], []))  # a boundary owning no tokens

    def windows(self, window: int, longest: int) -> list[tuple[int, float, float]]:
        """``[(tokens, seconds, steps)]`` per window ``2–W``, ``W+1–2W``, … up to ``longest``; a step making ``m``
        tokens counts ``1/m`` step per token (``tokens / steps``: tokens a step makes, ``seconds / steps``: its time)."""
        count = (longest + window - 1) // window
        tokens, seconds, steps = [0] * count, [0.0] * count, [0.0] * count
        for (start, numbers), (following, _) in zip(self.steps, self.steps[1:]):
            if not numbers:
                continue
            share = (following - start) / len(numbers)
            for n in numbers:
                if n >= 2:
                    k = min((n - 1) // window, count - 1)
                    tokens[k] += 1
                    seconds[k] += share
                    steps[k] += 1 / len(numbers)
        return list(zip(tokens, seconds, steps))


def instrument_hf(lm, log: StepLog) -> None:
    """Time ``lm``'s ``model.generate`` calls forward by forward (the k-th forward makes token k)."""
    counter = {"k": 0}
    original = lm._model_generate

    def pre_hook(module, args, kwargs):
        counter["k"] += 1
        log.start([counter["k"]])

    def generate(*args, **kwargs):
        counter["k"] = 0
        try:
            return original(*args, **kwargs)
        finally:
            log.close()

    lm.model.register_forward_pre_hook(pre_hook, with_kwargs=True)
    lm._model_generate = generate


def instrument_densing(log: StepLog):
    """Time :class:`ContinuousDecoder`'s admissions and steps; each token's number is read off its ``stops`` call."""
    from densing.eval.backends.prefix import scheduler

    cls = scheduler.ContinuousDecoder
    original_init, original_run = cls.__init__, cls.run
    current: dict = {"numbers": []}

    def init(self, model, device, pad, encoded, rows, max_gen_toks, stops, finish, settings):
        def counted(tokens):
            current["numbers"].append(len(tokens))
            return stops(tokens)

        original_init(self, model, device, pad, encoded, rows, max_gen_toks, counted, finish, settings)

    def timed(method):
        def step(self, *args, **kwargs):
            current["numbers"] = log.start()
            return method(self, *args, **kwargs)

        return step

    def run(self, *args, **kwargs):
        try:
            return original_run(self, *args, **kwargs)
        finally:
            log.close()

    cls.__init__, cls.run = init, run
    cls._admit, cls._step = timed(cls._admit), timed(cls._step)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=16)
    parser.add_argument("--rows", type=int, default=16, help="densing-hf's generation slots")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--window", type=int, default=32)
    parser.add_argument("--draft", type=int, default=None, help="densing-hf's draft tokens per step")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--data-root", type=Path, default=None)
    arguments = parser.parse_args()

    import torch

    torch.set_num_threads(arguments.threads)
    from densing.eval.backends.prefix.settings import PrefixSettings
    from densing.eval.loading import load_model
    from densing.eval.models import read_models_file
    from densing.paths import SHARED_DATA
    from tools.lm_eval_requests import build_instances

    data_root = arguments.data_root or Path(SHARED_DATA)
    settings = PrefixSettings(rows_per_batch=arguments.rows)
    if arguments.draft is not None:
        settings = PrefixSettings(rows_per_batch=arguments.rows, draft=arguments.draft)
    with tempfile.TemporaryDirectory(prefix="generation-length-") as temporary:
        folder = Path(temporary)
        spec = read_models_file(models_file(folder, save_tiny_model(folder / "tiny", data_root), "float32"))[0]
        lms = {
            "hf": load_model(spec, backend="hf", device="cpu", batch_size=1)[0],
            "densing-hf": load_model(spec, backend="densing-hf", device="cpu", batch_size=1, settings=settings)[0],
        }
    logs = {name: StepLog() for name in lms}
    instrument_hf(lms["hf"], logs["hf"])
    instrument_densing(logs["densing-hf"])
    instances = build_instances(["densing_local_gsm8k"], arguments.questions, 5, data_root)
    kwargs = instances[0].args[1]
    longest = int(kwargs.get("max_gen_toks", lms["hf"].max_gen_toks))
    prompt_tokens = [len(lms["hf"].tok_encode(i.args[0])) for i in instances]
    print(
        f"tiny Llama (2 layers, width 64, vocabulary 8,192, float32, random); torch {torch.__version__}, "
        f"{arguments.threads} thread(s); GSM8K 5-shot, {len(instances)} questions, prompts "
        f"{min(prompt_tokens)}-{max(prompt_tokens)} tokens, until {kwargs.get('until')}, max_gen_toks {longest}; "
        f"densing-hf rows {settings.rows_per_batch}, draft {settings.draft}"
    )
    print(f"load average at start: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")

    names = list(lms)
    rates: dict[str, list[list[float]]] = {name: [] for name in names}
    step_ms: list[list[float]] = []  # densing-hf's milliseconds per step, per window
    per_step: list[list[float]] = []  # densing-hf's new tokens per step (its live rows and kept drafts), per window
    seconds: dict[str, list[float]] = {name: [] for name in names}
    outputs: dict[str, list[str]] = {}
    full: dict[str, int] = {}
    for round_index in range(arguments.rounds):
        order = names if round_index % 2 == 0 else names[::-1]
        for name in order:
            log = logs[name]
            log.steps.clear()
            started = time.perf_counter()
            outputs[name] = lms[name].generate_until(instances, disable_tqdm=True)
            seconds[name].append(time.perf_counter() - started)
            windows = log.windows(arguments.window, longest)
            rates[name].append([tokens / took if took else float("nan") for tokens, took, _ in windows])
            if name == "densing-hf":
                step_ms.append([1000 * took / steps for _, took, steps in windows])
                per_step.append([tokens / steps for tokens, _, steps in windows])
            full[name] = sum(n == longest for _, numbers in log.steps for n in numbers)
        print(
            f"round {round_index + 1} ({', '.join(order)}): " + ", ".join(f"{n} {seconds[n][-1]:.2f} s" for n in names),
            flush=True,
        )

    count = len(rates[names[0]][0])
    edges = [(max(2, 1 + k * arguments.window), min((k + 1) * arguments.window, longest)) for k in range(count)]
    print(
        f"\nnew tokens/s per window of new tokens (token 1, the prefill, left out): median [min–max] over "
        f"{arguments.rounds} rounds"
    )
    print(
        f"{'window':>9s}  "
        + "  ".join(f"{n:>20s}" for n in names)
        + f"  {'densing-hf ms/step':>20s}  {'tokens/step':>20s}"
    )
    for k, (low, high) in enumerate(edges):
        cells = [spread([r[k] for r in rates[n]], ".0f") for n in names]
        cells += [spread([r[k] for r in step_ms], ".1f"), spread([r[k] for r in per_step], ".1f")]
        print(f"{f'{low}-{high}':>9s}  " + "  ".join(f"{c:>20s}" for c in cells))
    print()
    for name in names:
        ratios = [r[-1] / r[0] for r in rates[name]]
        print(
            f"{name:10s} tokens/s window {edges[-1][0]}-{edges[-1][1]} / window {edges[0][0]}-{edges[0][1]}: "
            f"{spread(ratios)}; requests run to max_gen_toks {full[name]}/{len(instances)}"
        )
    print(
        f"densing-hf ms/step window {edges[-1][0]}-{edges[-1][1]} / window {edges[0][0]}-{edges[0][1]}: "
        f"{spread([r[-1] / r[0] for r in step_ms])}"
    )
    paired = [d / h for d, h in zip(seconds["densing-hf"], seconds["hf"])]
    print(f"whole generate_until, densing-hf / hf seconds: {spread(paired)} (paired rounds)")
    print(
        f"strings identical densing-hf vs hf: {sum(a == b for a, b in zip(outputs['hf'], outputs['densing-hf']))}"
        f"/{len(instances)}"
    )
    print(f"load average at end: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
