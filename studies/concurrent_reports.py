"""Eight ``densing report --out same.html`` at once leave one valid report and no temporary file.

Usage: python studies/concurrent_reports.py [N] [--n-boot K]   (defaults: 8 writers, 40 draws)

Each writer builds the whole report and renames its temporary file into place
(:func:`densing.io.atomic_write_text`), so the last rename wins and a reader never sees a part of
one. Checks: every writer exits 0, the file is one whole page (a single ``<html`` … ``</html>``),
it equals one writer's output (run alone it is the same bytes: the report is deterministic for a
seed), and no ``.same.html.*.tmp`` is left beside it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("writers", nargs="?", type=int, default=8)
    parser.add_argument("--n-boot", type=int, default=40)
    args = parser.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="1")
    cli = [sys.executable, "-c", "from densing.cli import run; run()", "report", "--n-boot", str(args.n_boot)]
    with tempfile.TemporaryDirectory() as folder:
        alone, out = Path(folder) / "alone.html", Path(folder) / "same.html"
        subprocess.run([*cli, "--out", str(alone)], env=env, check=True, capture_output=True)
        start = time.monotonic()
        runs = [
            subprocess.Popen([*cli, "--out", str(out)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            for _ in range(args.writers)
        ]
        codes = [run.wait() for run in runs]
        wall = time.monotonic() - start
        text = out.read_text()
        checks = {
            "every writer exited 0": codes == [0] * args.writers,
            "one whole page": text.count("<html") == 1 and text.rstrip().endswith("</html>"),
            "the same bytes as a writer alone": out.read_bytes() == alone.read_bytes(),
            "no temporary file left": not [p for p in Path(folder).iterdir() if p.name.endswith(".tmp")],
        }
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    print(f"{args.writers} writers, --n-boot {args.n_boot}: {wall:.1f} s wall, exit codes {codes}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
