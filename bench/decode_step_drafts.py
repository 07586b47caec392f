"""The cost of one continuous-batching decoding step as a function of its query columns.

A drafted step (:mod:`densing.eval.backends.prefix.scheduler`) feeds each slot its pending token and up to
``q − 1`` draft tokens. :func:`densing.eval.backends.prefix.drafts.step_width` chooses ``q`` from a cost model
``step(q) = slots · (a + b·q)``; ``densing.eval.backends.prefix.settings.PrefixSettings.step_base`` is ``a / b``. This times
one step of SmolLM2-135M-Instruct (Q4_1 GGUF dequantised to float32, as ``densing eval`` loads it)
at each ``q`` of ``--columns``, alternating the order round by round, on a stylised BBH cache: one
group prefix of ``--prefix`` tokens, slots whose own columns are uniform in ``--widths`` (random
keys/values: a step's cost does not depend on their values). Prints per ``q`` the step time
(median [min–max]) and per query column, then the least-squares ``a``, ``b`` and ``a / b`` over the
medians, and ``a / b`` fitted round by round (median [min–max]). Run it as production runs (two single-thread processes share the machine) to measure the
ratio production sees.

    OMP_NUM_THREADS=1 python bench/decode_step_drafts.py [--rows 64 --columns 1,2,3,5,9 --rounds 5]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

from densing.numbers import spread

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--columns", default="1,2,3,5,9")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--prefix", type=int, default=900)
    parser.add_argument("--widths", default="40,1000", help="low,high own columns per slot")
    arguments = parser.parse_args()

    import numpy as np
    import torch

    from densing.eval.backends.prefix.attention import attention_swapped

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from decode_step_runs import random_slot_cache, smollm2_model

    torch.set_num_threads(1)
    model = smollm2_model()
    rows, (low, high) = arguments.rows, (int(x) for x in arguments.widths.split(","))
    columns = [int(q) for q in arguments.columns.split(",")]
    generator = random.Random(0)
    widths = [generator.randint(low, high) for _ in range(rows)]
    length = max(widths)
    cache = random_slot_cache(model, rows, length + max(columns), arguments.prefix)
    mask = torch.zeros((rows, length + max(columns)), dtype=torch.bool)
    for r, w in enumerate(widths):
        mask[r, length - w : length] = True
    print(f"SmolLM2-135M, one decoding step at {rows} slots, prefix {arguments.prefix}, own columns uniform in "
          f"{low}-{high}, {arguments.rounds} rounds")
    times: dict[int, list[float]] = {q: [] for q in columns}
    with attention_swapped(model), torch.no_grad():
        for round_ in range(arguments.rounds + 1):
            for q in (columns if round_ % 2 else columns[::-1]):
                allowed = mask[:, None, None, : length + q].expand(rows, 1, q, length + q).clone()
                allowed[:, 0, :, length:] = torch.tril(torch.ones((q, q), dtype=torch.bool))
                cache.write_at = length
                cache.plan([w + q for w in widths])
                started = time.perf_counter()
                model(input_ids=torch.randint(100, 1000, (rows, q)),
                      position_ids=torch.full((rows, q), arguments.prefix + length) + torch.arange(q),
                      attention_mask=allowed, past_key_values=cache, use_cache=True, logits_to_keep=q,
                      densing_slots=cache)
                if round_:  # the first round warms up
                    times[q].append(time.perf_counter() - started)
    for q in columns:
        print(f"q {q}: step {spread([1e3 * t for t in times[q]], '.0f', ', ')} ms, "
              f"{1e3 * statistics.median(times[q]) / rows / q:.2f} ms per slot and query column", flush=True)
    x = np.array(columns, dtype=float)
    per_slot = np.array([statistics.median(times[q]) / rows for q in columns])
    b, a = np.polyfit(x, per_slot, 1)
    ratios = []
    for round_ in range(arguments.rounds):  # the same fit round by round: the ratio's spread
        slope, intercept = np.polyfit(x, np.array([times[q][round_] / rows for q in columns]), 1)
        ratios.append(intercept / slope)
    print(f"least squares over the medians: step = slots x ({1e3 * a:.2f} + {1e3 * b:.2f} q) ms; a/b = {a / b:.2f}; "
          f"round by round a/b {spread(ratios, '.2f', ', ')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
