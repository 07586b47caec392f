"""Runnable entry point at the repository root: ``python cli.py --help`` (the package beside it, installed or not).

It runs the console script's entry (:func:`densing.cli.run`), which leaves without tearing the interpreter down; Ctrl-C
at any moment, the imports included, ends with one line and exit status 130."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from densing.cli import run
except KeyboardInterrupt:  # Ctrl-C while the package loads: the command's own line and status (densing.cli.guard)
    print("error: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

if __name__ == "__main__":
    run()
