"""A candidate censored-quantile walk against the package's, on the measurement's own walks, in one process.

    python bench/walk_candidate.py CANDIDATE.py [--runs 5] [--sections rows]

``CANDIDATE.py`` is a copy of ``densing/trend/censored.py`` with its ``_walk`` changed. The bench runs
:func:`densing.trend.measure.measure_trend` once on the public table with the ``--sections`` asked for (``rows``: the
rows of ``densing trend --by benchmark``; ``all``: every section), in one process (``DENSING_SERIAL=1``), and keeps
every outermost call of ``densing.trend.censored._walk`` with its arguments as the measurement passed them:
broadcast views stay views, as the solver reads them inside the command. Two walks of the same inputs can differ in
speed by how their arrays are laid out, so a replay from a file does not answer this question. It then solves every
kept walk with the package's ``_walk`` and with the candidate's, checks that every output is the same to the bit
(values and dtypes), and times both ``--runs`` times, alternating, with ``time.process_time``. It prints the median
and range of each, and the median of the paired ratios candidate / package. It asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import time
from pathlib import Path

os.environ["DENSING_SERIAL"] = "1"  # before densing loads: every walk in this process

import numpy as np  # noqa: E402 - after the environment the package reads

from densing import paths  # noqa: E402
from densing.data import read_results  # noqa: E402
from densing.trend import censored  # noqa: E402
from densing.trend.measure import measure_trend  # noqa: E402


def kept_walks(sections: str) -> list[tuple]:
    """The arguments of every outermost ``_walk`` call of one measurement of the public table."""
    package, kept, depth = censored._walk, [], [0]

    def keeping(*arguments):
        depth[0] += 1
        try:
            return package(*arguments)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                kept.append(arguments)

    censored._walk = keeping
    try:
        asked = "all" if sections == "all" else sections.split(",")
        measure_trend(read_results(paths.RESULTS / "public_models.csv"), sections=asked)
    finally:
        censored._walk = package
    return kept


def candidate_walk(path: Path):
    """The ``_walk`` of the module at ``path``."""
    spec = importlib.util.spec_from_file_location("candidate_censored", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._walk


def solved(walk, walks: list[tuple]) -> tuple[float, list]:
    """(CPU seconds, outputs) of ``walk`` over every kept walk."""
    start = time.process_time()
    outputs = [walk(*arguments) for arguments in walks]
    return time.process_time() - start, outputs


def identical(first: list, second: list) -> bool:
    """Whether two lists of walk outputs are the same to the bit."""
    return all(
        a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
        for one, other in zip(first, second)
        for a, b in zip(one, other)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidate", type=Path, help="a copy of densing/trend/censored.py with its _walk changed")
    parser.add_argument("--runs", type=int, default=5, help="alternated runs of each (default 5)")
    parser.add_argument("--sections", default="rows", help="the measurement's sections, comma-separated, or all")
    args = parser.parse_args()
    walks = kept_walks(args.sections)
    candidate = candidate_walk(args.candidate)
    same = identical(solved(censored._walk, walks)[1], solved(candidate, walks)[1])
    times: dict[str, list[float]] = {"package": [], "candidate": []}
    for run in range(args.runs):
        order = ("package", "candidate") if run % 2 == 0 else ("candidate", "package")
        for name in order:
            times[name].append(solved(censored._walk if name == "package" else candidate, walks)[0])
    shapes = [np.broadcast_shapes(*(np.shape(a) for a in arguments[:4])) for arguments in walks]
    rows = sum(shape[0] if len(shape) == 2 else 1 for shape in shapes)
    print(
        f"{len(walks)} walks of the measurement's sections {args.sections} ({rows} rows); identical to the bit: {same}"
    )
    for name, values in times.items():
        print(f"  {name:<9} CPU s median {statistics.median(values):.3f} [{min(values):.3f}–{max(values):.3f}]")
    ratios = [c / p for c, p in zip(times["candidate"], times["package"])]
    print(
        f"  candidate / package, paired: median {statistics.median(ratios):.2f} [{min(ratios):.2f}–{max(ratios):.2f}]"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
