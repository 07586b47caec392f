"""The three tables' headline rows under each step of the rules that decide where a density is a bound, so that every
move a step makes is a number of a record (``results/rule_steps.json``), not a sentence.

The steps, in the order they were made (docs/method.md, "Floors as bounds", "Chance levels from the items", "The
identified region", "Direction by what the score does"):

- ``two_se_ten_options``: the 2-SE rule (a target with any score within 2 standard errors of its benchmark's chance
  level is an upper bound at its value; no region) with MMLU-Pro's chance level at 1/10, as the registry had it;
- ``two_se_items``: the same rule with the registry's chance levels from the items (MMLU-Pro 0.1109);
- ``region``: the package as it is: the identified region and the direction of a set's chance scores.

The 2-SE rule is :func:`studies.floor_region.two_se_rule`; MMLU-Pro's former level is its registry record with
``chance`` 0.1 (every reader of the level — the references' laws, the floors — reads it from there). Each step runs in a process of its own (the trend's per-table memo never
serves one step's rows to another), ``densing trend --table NAME --by benchmark``'s measurement at 600 draws, seed 0.

Run::

    python tools/rule_steps.py --out results/rule_steps.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLES = ("public", "openllm_v2", "swallow")
STEPS = ("two_se_ten_options", "two_se_items", "region")
#: The fields of a row kept in the record.
FIELDS = (
    "row",
    "months",
    "ci_low",
    "ci_high",
    "ci_high_mc_low",
    "ci_high_mc_high",
    "n_draws",
    "state",
    "status",
    "n_floor_bounds",
    "n_ceiling_bounds",
    "n_region_bounds",
    "months_without_region",
)


def one_step(step: str) -> dict:
    """The headline row of every table under ``step`` (module docstring), in this process."""
    from contextlib import nullcontext
    from dataclasses import replace

    from densing import registry
    from densing.data import read_results
    from densing.data.benchmarks import BENCHMARKS
    from densing.present.records import table_record
    from densing.trend.protocol import measure_table
    from studies.floor_region import two_se_rule

    if step == "two_se_ten_options":  # the registry's record as it was: the references' laws and the floors read it
        record = BENCHMARKS.get("mmlu_pro")
        BENCHMARKS.unregister("mmlu_pro")
        BENCHMARKS.register("mmlu_pro", replace(record, chance=0.1, chance_source="10 options"))
    found = {}
    with two_se_rule() if step.startswith("two_se") else nullcontext():
        for table in TABLES:
            profile = registry.table(table)
            found = measure_table(read_results(profile.path), table, n_boot=600, seed=0)
            measured, record = found.measured, table_record(found)
            row = next(r for r in record["rows"] if r["label"] == measured.headline_set)  # the headline's row
            found[table] = {k: row.get(k) for k in FIELDS}
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="the record to write (results/rule_steps.json)")
    parser.add_argument("--step", choices=STEPS, help="compute one step in this process and print it as JSON")
    args = parser.parse_args(argv)
    if args.step:
        print(json.dumps(one_step(args.step)))
        return 0
    steps = {}
    for step in STEPS:
        done = subprocess.run(
            [sys.executable, __file__, "--step", step],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        steps[step] = json.loads(done.stdout)
        print(f"{step}: " + "; ".join(f"{t} {v['months']:.3f}" for t, v in steps[step].items()), file=sys.stderr)
    record = {
        "command": "python tools/rule_steps.py --out results/rule_steps.json",
        "draws": 600,
        "seed": 0,
        "steps": steps,
    }
    text = json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.out:
        from densing.io import atomic_write_text

        atomic_write_text(Path(args.out), text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
