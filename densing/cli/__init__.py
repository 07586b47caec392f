"""The ``densing`` command line: thin typer commands over the library.

``app.py`` holds the typer app and :func:`main`; ``output.py`` the one renderer (table, JSON,
CSV); one module per command group: ``laws`` (fit, convert, validate, density), ``trend`` (trend,
report), ``eval``, ``overlap`` and ``ladder``. Command modules import only typer, the output layer and
the argument checks (:mod:`densing.validation`) at the top; the library loads inside the command that runs, so ``--help`` is quick.

``overlap analyze PATH --format json`` is answered without building the typer app at all
(:mod:`densing.cli.overlap_fast`): :func:`main` and :func:`run` here look at the command line first, and
``app`` loads on first use.
"""
from __future__ import annotations

import importlib
import sys
import types

__all__ = ["app", "main", "run"]


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
    """The ``densing`` console script (:func:`densing.cli.app.run`: :func:`main`, then leave without tearing the
    interpreter down)."""
    from densing.cli.guard import leave

    leave(main)


class _Package(types.ModuleType):
    """This package's module type: ``densing.cli.app`` is the typer app (loaded on first use), as it was when this
    package imported it at once, even after the submodule of that name loads (the import system then sets the
    package's attribute to the submodule; the setter below ignores that)."""

    @property
    def app(self):
        return importlib.import_module("densing.cli.app").app

    @app.setter
    def app(self, value) -> None:  # the import system's setattr(package, "app", submodule)
        pass


sys.modules[__name__].__class__ = _Package
