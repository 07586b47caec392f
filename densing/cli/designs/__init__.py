"""The designs' printing at the terminal, one module each (``densing/cli/designs/<design>.py``), found by discovery
(:func:`densing.registry.discover`): each registers its :class:`Printer` in :data:`PRINTERS` under its design's name
(:data:`densing.registry.DESIGNS`). A module here loads its design's computation inside the functions it registers,
so that ``densing --help`` and plain ``densing trend`` load no more than they print.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from densing.registry import Registry, check_callable, check_type, designs


@dataclass(frozen=True)
class Printer:
    """What a design prints at the terminal: ``run(options)`` prints ``densing trend --design NAME`` from the
    command's options; ``line()`` the line plain ``densing trend`` prints beside the headline (None: no line); either
    may be None."""

    run: Callable | None = None
    line: Callable | None = None


def _check_printer(registry: Registry, name: str, item: Any) -> None:
    check_type(registry, name, item, Printer)
    check_callable(registry, name, "run", item.run, 1, optional=True)
    check_callable(registry, name, "line", item.line, 0, optional=True)


#: The package whose modules register the designs' printers.
PRINTER_PACKAGE = "densing.cli.designs"
#: Each design's printing at the terminal, by the design's name.
PRINTERS: Registry[Printer] = Registry("design printer", check=_check_printer, found_in=PRINTER_PACKAGE)


def _registered() -> list[tuple[str, Printer]]:
    """The printers of the registered designs (:func:`densing.registry.designs`), as (design, printer)."""
    known = designs()
    return [(name, printer) for name, printer in PRINTERS.items() if name in known]


def runnable() -> list[str]:
    """The registered designs ``densing trend --design NAME`` runs: those whose printer has a ``run``."""
    return [name for name, printer in _registered() if printer.run is not None]


def lines() -> list[str]:
    """Each registered design's line beside the public table's headline, for the designs that print one."""
    found = []
    for _, printer in _registered():
        words = printer.line() if printer.line is not None else None
        if words:
            found.append(words)
    return found
