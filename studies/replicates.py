"""Resumable replicates of a coverage study: one JSON line per replicate in a store, reused on a rerun.

Used by ``capability_coverage.py``, ``olmes_coverage.py`` and ``swallow_coverage.py`` (run with ``PYTHONPATH=.``)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path


def run_replicates(
    count: int,
    run: Callable[[int], dict],
    config: dict,
    store: str | None,
    shard: tuple[int, int] = (0, 1),
    seconds: float | None = None,
) -> tuple[list[dict], int, float]:
    """Replicates ``0 … count−1``: those the JSON-lines ``store`` holds with the same ``config`` are read back, the
    others computed by ``run(r)``, tagged with ``config`` and appended to the store as each finishes (so an
    interrupted run resumes). ``shard`` (i, k): compute only the replicates r with r mod k = i (k processes, each its
    own store; the stores concatenated give every replicate). ``seconds``: no replicate is started once that many
    seconds have passed (a run kept within a time limit; a rerun goes on where it stopped). Returns the records in
    replicate order (those held or computed), how many were computed, and their seconds."""
    path = Path(store) if store else None
    records = {rec["replicate"]: rec for rec in read_store(path, config)} if path is not None else {}
    start = time.perf_counter()
    fresh = 0
    for r in range(count):
        if r in records or r % shard[1] != shard[0]:
            continue
        if seconds is not None and time.perf_counter() - start > seconds:
            break
        rec = run(r)
        rec["config"] = config
        records[r] = rec
        fresh += 1
        if path is not None:
            with path.open("a") as handle:
                handle.write(json.dumps(rec) + "\n")
    return [records[r] for r in range(count) if r in records], fresh, time.perf_counter() - start


def read_store(path: Path, config=None) -> list[dict]:
    """The replicates a JSON-lines store holds, in replicate order (the last line of a replicate wins); with
    ``config``, only those run under it. A missing store holds none."""
    records: dict[int, dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                if config is None or rec.get("config") == config:
                    records[rec["replicate"]] = rec
    return [records[r] for r in sorted(records)]


def variant_parser(description: str, variants, replicates: int, n_boot: int) -> argparse.ArgumentParser:
    """The command line of a study of variants, each run into its own resumable store: ``--variant``,
    ``--replicates``, ``--n-boot``, ``--seed``, ``--store`` and ``--summary``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--variant", choices=tuple(variants), help="the variant to run (module docstring)")
    parser.add_argument("--replicates", type=int, default=replicates)
    parser.add_argument("--n-boot", type=int, default=n_boot, help="draws of the row (the CLI's: 600)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--store", required=True, help="a folder: one JSON-lines store per variant (resumable)")
    parser.add_argument("--summary", action="store_true", help="print every variant's summary from the stores")
    return parser
