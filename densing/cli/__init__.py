"""The ``densing`` command line: thin typer commands over the library (``app.py``: the typer app; ``output.py``: the
one renderer; one module per command group). The library loads inside the command that runs, so ``--help`` is
quick; ``overlap analyze PATH --format json`` is answered without building the typer app
(:mod:`densing.cli.overlap_fast`).
"""
from __future__ import annotations

import sys

__all__ = ["main", "run"]


def main(argv: list[str] | None = None) -> None:
    """:func:`densing.cli.app.main`, or the typer-free ``overlap analyze`` path where it reads the command line."""
    from densing.cli import overlap_fast

    options = overlap_fast.parse(sys.argv[1:] if argv is None else list(argv))
    if options is not None:
        overlap_fast.run(options)
        return
    from densing.cli.app import main as typer_main

    typer_main(argv)


def run() -> None:
    """The ``densing`` console script: :func:`main`, then :func:`densing.cli.guard.leave`."""
    from densing.cli.guard import leave

    leave(main)

