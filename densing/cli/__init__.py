"""The ``densing`` command line: thin typer commands over the library (``app.py``: the typer app; ``output.py``: the
one renderer; one module per command group). The library loads inside the command that runs, so ``--help`` is
quick; ``overlap analyze PATH --format json`` is answered without building the typer app
(:mod:`densing.cli.overlap_fast`).
"""

from __future__ import annotations

import os
import sys

__all__ = ["TABLE_COMMANDS", "main", "run"]

#: The commands that compute on tables alone (no model, no torch). They run BLAS in one thread unless the user's
#: environment says otherwise (``OPENBLAS_NUM_THREADS``, read when numpy loads): their matrices are a few columns wide
#: and the measurement runs one process per core (:mod:`densing.runtime`), while OpenBLAS's own threads busy-wait
#: between calls on those same cores (``bench/report_time.results.txt``).
TABLE_COMMANDS = frozenset({"fit", "convert", "validate", "density", "trend", "report", "ladder"})


def main(argv: list[str] | None = None) -> None:
    """:func:`densing.cli.app.main`, or the typer-free ``overlap analyze`` path where it reads the command line."""
    from densing.cli import overlap_fast

    words = sys.argv[1:] if argv is None else list(argv)
    if words and words[0] in TABLE_COMMANDS:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if (options := overlap_fast.parse(words)) is not None:
        overlap_fast.run(options)
        return
    from densing.cli.app import main as typer_main

    typer_main(argv)


def run() -> None:
    """The ``densing`` console script: :func:`main`, then :func:`densing.cli.guard.leave`."""
    from densing.cli.guard import leave

    leave(main)
