"""The ``densing`` command line: thin typer commands over the library (``app.py``: the typer app; ``output.py``: the
one renderer; one module per command group). Command modules import typer, the output layer and densing's
standard-library-only modules (errors, numbers, validation, paths, constants, display) at the top; the rest of the
library loads inside the command that runs, so ``--help`` is quick.

``overlap analyze PATH --format json`` is answered without building the typer app at all
(:mod:`densing.cli.overlap_fast`): :func:`main` and :func:`run` here look at the command line first.
"""
from __future__ import annotations

import sys

__all__ = ["main", "run"]


def main(argv: list[str] | None = None) -> None:
    """:func:`densing.cli.app.main`, or the typer-free ``overlap analyze`` path where the command line is one it
    reads (:func:`densing.cli.overlap_fast.parse`)."""
    from densing.cli import overlap_fast

    options = overlap_fast.parse(sys.argv[1:] if argv is None else list(argv))
    if options is not None:
        overlap_fast.run(options)
        return
    from densing.cli.app import main as typer_main

    typer_main(argv)


def run() -> None:
    """The ``densing`` console script: :func:`main`, then leave without tearing the interpreter down
    (:func:`densing.cli.guard.leave`)."""
    from densing.cli.guard import leave

    leave(main)

