"""One continuous-batching decoding step with and without reading rows in runs.

:func:`densing.eval.backends.prefix.attention.shared_prefix_attention` reads each run of rows
(:func:`densing.eval.backends.prefix.grouping.contiguous_parts`) over its own last ``width`` columns; before runs,
every row read every column up to the longest row's. This times one decoding step of
SmolLM2-135M-Instruct (Q4_1 GGUF dequantised to float32, as ``densing eval`` loads it) both ways on
the same cache, alternating, ``--rounds`` times per row count: a stylised BBH step, one group
prefix of ``--prefix`` tokens, ``rows − 1`` rows whose own columns are uniform in 40–300 (a
question plus a short chain of thought) and one row at ``--runaway`` columns (a row that never met a
stop string, near ``max_gen_toks`` = 1,024). Keys/values are random; the cost of a step does not
depend on their values. Printed per row count: step time both ways and tokens/s (median [min–max]),
and the paired ratio (one run / runs).

    OMP_NUM_THREADS=1 python bench/decode_step_runs.py [--rows 16,32,64 --rounds 7]
"""
from __future__ import annotations

import argparse
import os
import random
import time

from densing.numbers import spread

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def smollm2_model():
    """SmolLM2-135M-Instruct as ``densing eval`` loads it (``results/smollm2/models.yaml``)."""
    from densing.eval.models import read_models_file
    from densing.eval.runner import load_model
    from densing.paths import RESULTS

    spec = read_models_file(RESULTS / "smollm2" / "models.yaml")[0]
    return load_model(spec, backend="hf", device="cpu", batch_size=1, prefix_cache=True)[0].model


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="16,32,64")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--prefix", type=int, default=900)
    parser.add_argument("--runaway", type=int, default=1100)
    parser.add_argument("--threads", type=int, default=1)
    arguments = parser.parse_args()

    import torch

    from densing.eval.backends.prefix.attention import attention_swapped
    from densing.eval.backends.prefix.grouping import contiguous_parts
    from densing.eval.backends.prefix.settings import PrefixSettings

    torch.set_num_threads(arguments.threads)
    model = smollm2_model()
    columns = arguments.runaway
    generator = random.Random(0)
    print(f"SmolLM2-135M, one decoding step, prefix {arguments.prefix}, rows-1 at 40-300 columns + one at {columns}, "
          f"{arguments.threads} thread(s), {arguments.rounds} rounds")
    for rows in [int(r) for r in arguments.rows.split(",")]:
        widths = [generator.randint(40, 300) for _ in range(rows - 1)] + [columns]
        generator.shuffle(widths)
        cache = random_slot_cache(model, rows, columns + 1, arguments.prefix)
        mask = torch.zeros((rows, columns), dtype=torch.bool)
        for r, w in enumerate(widths):
            mask[r, columns - w:] = True
        times: dict[str, list[float]] = {"one run": [], "runs": []}
        with attention_swapped(model), torch.no_grad():
            for round_ in range(arguments.rounds + 1):
                for mode in (("one run", "runs") if round_ % 2 else ("runs", "one run")):
                    cache.write_at = columns - 1
                    cache.plan(None if mode == "one run" else widths)
                    started = time.perf_counter()
                    model(input_ids=torch.arange(rows)[:, None] + 100, position_ids=torch.full((rows, 1), arguments.prefix + columns),
                          attention_mask=mask[:, None, None, :], past_key_values=cache, use_cache=True, logits_to_keep=1,
                          densing_slots=cache)
                    if round_:  # the first round warms up
                        times[mode].append(time.perf_counter() - started)
        ratios = [a / b for a, b in zip(times["one run"], times["runs"])]
        runs = len(contiguous_parts(widths, [0] * rows, PrefixSettings().part_cost))
        print(f"rows {rows:3d} ({runs} runs): one run {spread([1e3 * t for t in times['one run']], '.0f', ', ')} ms "
              f"({spread([rows / t for t in times['one run']], '.0f', ', ')} tok/s), runs "
              f"{spread([1e3 * t for t in times['runs']], '.0f', ', ')} ms ({spread([rows / t for t in times['runs']], '.0f', ', ')} tok/s); "
              f"runs are {spread(ratios, '.2f', ', ')}x faster", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
