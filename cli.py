"""Runnable entry point at the repository root: ``python cli.py --help`` (the package beside it, installed or not).

It runs the console script's entry (:func:`densing.cli.run`), which leaves without tearing the interpreter down."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from densing.cli import run  # noqa: E402

if __name__ == "__main__":
    run()
