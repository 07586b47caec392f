"""The cost of one continuous-batching decoding step of SmolLM2-135M-Instruct, two ways.

Both time one decoding step of SmolLM2-135M-Instruct (Q4_1 GGUF dequantised to float32, as
``densing eval`` loads it) on a stylised BBH cache: one group prefix of ``--prefix`` tokens and
slots with their own columns. Keys/values are random; the cost of a step does not depend on their
values. Rounds alternate the order of what they compare; the first round warms up.

``runs``: with and without reading rows in runs.
:func:`densing.eval.backends.prefix.slots.shared_prefix_attention` reads each run of rows
(:func:`densing.eval.backends.prefix.grouping.contiguous_parts`) over its own last ``width`` columns;
the baseline reads every row over every column up to the longest row's (one run). ``rows − 1`` rows
have own columns uniform in 40–300 (a question plus a short chain of thought) and one row has
``--runaway`` columns (a row that never met a stop string, near ``max_gen_toks`` = 1,024). Prints
per row count: step time both ways and tokens/s (median [min–max]), and the paired ratio (one run / runs).

``drafts``: the step cost as a function of its query columns. A drafted step
(:mod:`densing.eval.backends.prefix.scheduler`) feeds each slot its pending token and up to
``q − 1`` draft tokens. :func:`densing.eval.backends.prefix.drafts.step_width` chooses ``q`` from a
cost model ``step(q) = slots · (a + b·q)``;
:attr:`densing.eval.backends.prefix.settings.PrefixSettings.step_base` is ``a / b``. This times a
step at each ``q`` of ``--columns`` with slots whose own columns are uniform in ``--widths``. Prints
per ``q`` the step time (median [min–max]) and per query column, then the least-squares ``a``,
``b`` and ``a / b`` over the medians, and ``a / b`` fitted round by round (median [min–max]). Run
it as production runs (two single-thread processes share the machine) to measure the ratio
production sees.

    OMP_NUM_THREADS=1 python bench/decode_step.py runs [--rows 16,32,64 --rounds 7]
    OMP_NUM_THREADS=1 python bench/decode_step.py drafts [--rows 64 --columns 1,2,3,5,9 --rounds 5]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from _timing import spread

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def smollm2_model():
    """SmolLM2-135M-Instruct as ``densing eval`` loads it (``results/smollm2/models.yaml``)."""
    from densing.eval.loading import load_model
    from densing.eval.models import read_models_file
    from densing.paths import RESULTS

    spec = read_models_file(RESULTS / "smollm2" / "models.yaml")[0]
    return load_model(spec, backend="densing-hf", device="cpu", batch_size=1)[0].model


def random_slot_cache(model, rows: int, capacity: int, prefix: int):
    """A :class:`densing.eval.backends.prefix.slots.SlotCache` of ``rows`` slots × ``capacity`` columns, all in
    group 0 with a ``prefix``-token group prefix, keys/values random (a step's cost does not depend on
    their values)."""
    import torch

    from densing.eval.backends.prefix.settings import PrefixSettings
    from densing.eval.backends.prefix.slots import SlotCache

    config = model.config
    layers, kv_heads = config.num_hidden_layers, config.num_key_value_heads
    dim = config.hidden_size // config.num_attention_heads
    prefixes = [{0: (torch.randn(kv_heads, prefix, dim), torch.randn(kv_heads, prefix, dim))} for _ in range(layers)]
    cache = SlotCache(config, layers, rows, capacity, prefixes, PrefixSettings().part_cost)
    cache.row_group = [0] * rows
    for layer in cache.layers:
        layer.allocate(torch.zeros(1, kv_heads, 1, dim))
        layer.key_buffer.normal_()
        layer.value_buffer.normal_()
    return cache


def time_runs(arguments) -> int:
    import torch

    from densing.eval.backends.prefix.grouping import contiguous_parts
    from densing.eval.backends.prefix.settings import PrefixSettings
    from densing.eval.backends.prefix.slots import attention_swapped

    torch.set_num_threads(arguments.threads)
    model = smollm2_model()
    columns = arguments.runaway
    generator = random.Random(0)
    print(
        f"SmolLM2-135M, one decoding step, prefix {arguments.prefix}, rows-1 at 40-300 columns + one at {columns}, "
        f"{arguments.threads} thread(s), {arguments.rounds} rounds"
    )
    for rows in [int(r) for r in arguments.rows.split(",")]:
        widths = [generator.randint(40, 300) for _ in range(rows - 1)] + [columns]
        generator.shuffle(widths)
        cache = random_slot_cache(model, rows, columns + 1, arguments.prefix)
        mask = torch.zeros((rows, columns), dtype=torch.bool)
        for r, w in enumerate(widths):
            mask[r, columns - w :] = True
        times: dict[str, list[float]] = {"one run": [], "runs": []}
        with attention_swapped(model), torch.no_grad():
            for round_ in range(arguments.rounds + 1):
                for mode in ("one run", "runs") if round_ % 2 else ("runs", "one run"):
                    cache.write_at = columns - 1
                    cache.plan(None if mode == "one run" else widths)
                    started = time.perf_counter()
                    model(
                        input_ids=torch.arange(rows)[:, None] + 100,
                        position_ids=torch.full((rows, 1), arguments.prefix + columns),
                        attention_mask=mask[:, None, None, :],
                        past_key_values=cache,
                        use_cache=True,
                        logits_to_keep=1,
                        densing_slots=cache,
                    )
                    if round_:  # the first round warms up
                        times[mode].append(time.perf_counter() - started)
        ratios = [a / b for a, b in zip(times["one run"], times["runs"])]
        runs = len(contiguous_parts(widths, [0] * rows, PrefixSettings().part_cost))
        print(
            f"rows {rows:3d} ({runs} runs): one run {spread([1e3 * t for t in times['one run']], '.0f', ', ')} ms "
            f"({spread([rows / t for t in times['one run']], '.0f', ', ')} tok/s), runs "
            f"{spread([1e3 * t for t in times['runs']], '.0f', ', ')} ms ({spread([rows / t for t in times['runs']], '.0f', ', ')} tok/s); "
            f"runs are {spread(ratios, '.2f', ', ')}x faster",
            flush=True,
        )
    return 0


def time_drafts(arguments) -> int:
    import numpy as np
    import torch

    from densing.eval.backends.prefix.slots import attention_swapped

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
    print(
        f"SmolLM2-135M, one decoding step at {rows} slots, prefix {arguments.prefix}, own columns uniform in "
        f"{low}-{high}, {arguments.rounds} rounds"
    )
    times: dict[int, list[float]] = {q: [] for q in columns}
    with attention_swapped(model), torch.no_grad():
        for round_ in range(arguments.rounds + 1):
            for q in columns if round_ % 2 else columns[::-1]:
                allowed = mask[:, None, None, : length + q].expand(rows, 1, q, length + q).clone()
                allowed[:, 0, :, length:] = torch.tril(torch.ones((q, q), dtype=torch.bool))
                cache.write_at = length
                cache.plan([w + q for w in widths])
                started = time.perf_counter()
                model(
                    input_ids=torch.randint(100, 1000, (rows, q)),
                    position_ids=torch.full((rows, q), arguments.prefix + length) + torch.arange(q),
                    attention_mask=allowed,
                    past_key_values=cache,
                    use_cache=True,
                    logits_to_keep=q,
                    densing_slots=cache,
                )
                if round_:  # the first round warms up
                    times[q].append(time.perf_counter() - started)
    for q in columns:
        print(
            f"q {q}: step {spread([1e3 * t for t in times[q]], '.0f', ', ')} ms, "
            f"{1e3 * statistics.median(times[q]) / rows / q:.2f} ms per slot and query column",
            flush=True,
        )
    x = np.array(columns, dtype=float)
    per_slot = np.array([statistics.median(times[q]) / rows for q in columns])
    b, a = np.polyfit(x, per_slot, 1)
    ratios = []
    for round_ in range(arguments.rounds):  # the same fit round by round: the ratio's spread
        slope, intercept = np.polyfit(x, np.array([times[q][round_] / rows for q in columns]), 1)
        ratios.append(intercept / slope)
    print(
        f"least squares over the medians: step = slots x ({1e3 * a:.2f} + {1e3 * b:.2f} q) ms; a/b = {a / b:.2f}; "
        f"round by round a/b {spread(ratios, '.2f', ', ')}"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("runs", help="a step with and without reading rows in runs")
    one.add_argument("--rows", default="16,32,64")
    one.add_argument("--rounds", type=int, default=7)
    one.add_argument("--prefix", type=int, default=900)
    one.add_argument("--runaway", type=int, default=1100)
    one.add_argument("--threads", type=int, default=1)
    two = commands.add_parser("drafts", help="the step cost per query width and the fitted cost model")
    two.add_argument("--rows", type=int, default=64)
    two.add_argument("--columns", default="1,2,3,5,9")
    two.add_argument("--rounds", type=int, default=5)
    two.add_argument("--prefix", type=int, default=900)
    two.add_argument("--widths", default="40,1000", help="low,high own columns per slot")
    arguments = parser.parse_args()
    return time_runs(arguments) if arguments.command == "runs" else time_drafts(arguments)


if __name__ == "__main__":
    raise SystemExit(main())
