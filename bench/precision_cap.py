"""What each precision cap costs and leaves wide: ``densing report`` and ``densing trend --by benchmark --format json``
as whole processes, with ``densing.trend.pooling.PRECISION_DRAWS_CAP`` set to each cap before the command runs.

A judged row whose ends are decided doubles its draws while a determined end's Monte Carlo range spans more than 25%
of it, up to the precision cap (docs/method.md, "Determined ends and the three states"); 600 is no growth for
precision. The caps alternate, one run of each in turn, ``--runs`` times after one warm-up each; the script prints
each cap's median and range of wall and CPU seconds (the process and its children), its median CPU over the
first cap's, and, for ``trend``, the public table's ends that stay wider than 25% at that cap (its last run's JSON).
It asserts nothing.

    python bench/precision_cap.py [--caps 600 1200 2400 4800] [--runs 3] [--command report|trend]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _timing import BYTECODE, environment, seconds

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {"report": "['report', '--out', {out!r}]", "trend": "['trend', '--by', 'benchmark', '--format', 'json']"}


def _code(cap: int, command: str, folder: Path) -> str:
    """The run: the cap set in the imported package, then the command, its standard output to a file."""
    argv = COMMANDS[command].format(out=str(folder / "report.html"))
    return (
        f"import sys; import densing.trend.pooling as p; p.PRECISION_DRAWS_CAP = {cap}; "
        f"from densing.cli import main; sys.stdout = open({str(folder / f'{cap}.json')!r}, 'w'); main({argv})"
    )


def _wide(path: Path) -> list[str]:
    """The ends of a ``trend --format json`` document's rows printed as their ranges, with the row's draws."""
    rows = json.loads(path.read_text())["rows"]
    return [
        f"{r['row']} {end} ({r[f'ci_{end}_mc_low']:.3g}–{r[f'ci_{end}_mc_high']:.3g}, {r['n_draws']} draws)"
        for r in rows
        for end in ("low", "high")
        if r.get(f"ci_{end}_precise") is False
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--caps", type=int, nargs="+", default=[600, 1200, 2400, 4800])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--command", choices=sorted(COMMANDS), default="report")
    args = parser.parse_args()
    env = environment(ROOT)
    times: dict[int, list[tuple[float, float]]] = {cap: [] for cap in args.caps}
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        load_before = os.getloadavg()
        for run in range(args.runs + 1):  # the first round warms each up
            for cap in args.caps:
                took = seconds([sys.executable, "-c", _code(cap, args.command, folder)], env, ROOT)
                if run:
                    times[cap].append(took)
        wide = {cap: _wide(folder / f"{cap}.json") for cap in args.caps} if args.command == "trend" else {}
    print(
        f"densing {args.command} under each precision cap: {args.runs} runs of each after one warm-up, in turn; "
        f"{os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after; {BYTECODE}"
    )
    first = statistics.median(cpu for _, cpu in times[args.caps[0]])
    for cap in args.caps:
        wall, cpu = [w for w, _ in times[cap]], [c for _, c in times[cap]]
        print(
            f"cap {cap:5d}: wall median {statistics.median(wall):6.2f} s, range {min(wall):.2f}–{max(wall):.2f}; "
            f"CPU median {statistics.median(cpu):6.2f} s, range {min(cpu):.2f}–{max(cpu):.2f}; "
            f"CPU {statistics.median(cpu) / first:.2f} times cap {args.caps[0]}'s"
        )
        if cap in wide:
            print(f"  wider than 25% at this cap ({len(wide[cap])}): " + "; ".join(wide[cap]))


if __name__ == "__main__":
    main()
