"""The ``densing`` command line: thin typer commands over the library.

``app.py`` holds the typer app and :func:`main`; ``output.py`` the one renderer (table, JSON,
CSV); one module per command group: ``laws`` (fit, convert, validate, density), ``trend`` (trend,
report), ``eval``, ``overlap`` and ``ladder``. Command modules import only typer, the output layer and
the argument checks (:mod:`densing.validation`) at the top; the library loads inside the command that runs, so ``--help`` is quick.
"""
from densing.cli.app import app, main, run

__all__ = ["app", "main", "run"]
