"""The functions of the package that run for ``densing trend``, and the files they live in.

    python tools/headline_path.py [--n-boot 40] [--list] [-- EXTRA ARGS OF densing trend]

Runs ``densing trend`` in this process (serial: ``DENSING_SERIAL=1``, so the forked workers' calls are traced too;
``--n-boot`` draws, few by default, since the path does not depend on their number) under ``sys.setprofile`` and
counts every function of ``densing/`` that is called: the files, the functions, and the folders they fall in.
``--list`` prints every file with its number of functions. What a reader of the headline has to open is bounded by
these files.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "densing"


def traced(args: list[str]) -> dict[str, set[str]]:
    """file (relative to the repository) → the names of its functions called while ``densing ARGS`` runs."""
    os.environ["DENSING_SERIAL"] = "1"
    from densing.cli.app import main as run  # main, not run: run leaves the process at its end

    found: dict[str, set[str]] = collections.defaultdict(set)
    root = str(PACKAGE)

    def profile(frame, event, arg):
        if event == "call":
            name = frame.f_code.co_filename
            if name.startswith(root):
                found[str(Path(name).relative_to(REPO))].add(frame.f_code.co_qualname)

    sys.argv = ["densing", *args]
    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            run()
    except SystemExit:
        pass
    finally:
        sys.setprofile(None)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-boot", type=int, default=40)
    parser.add_argument("--list", action="store_true", help="every file with its number of functions")
    parser.add_argument("extra", nargs="*", help="more arguments of densing trend (after --)")
    options = parser.parse_args()
    command = ["trend", "--n-boot", str(options.n_boot), *options.extra]
    found = traced(command)
    functions = sum(len(v) for v in found.values())
    folders = collections.Counter(str(Path(f).parent) for f in found)
    print(f"densing {' '.join(command)} (serial): {len(found)} files, {functions} functions of densing/")
    print("by folder: " + ", ".join(f"{folder} {count}" for folder, count in sorted(folders.items())))
    if options.list:
        for name in sorted(found):
            print(f"  {name}  {len(found[name])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
