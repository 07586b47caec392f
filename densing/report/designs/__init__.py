"""The designs' sections of the report, one module each (``densing/report/designs/<design>.py``), found by discovery
(:func:`densing.registry.discover`): each registers its :class:`DesignSection` in :data:`SECTIONS` under its design's
name (:data:`densing.registry.DESIGNS`). What the sections share is here (:class:`LeftOut`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from densing.registry import Registry, check_callable, check_range, check_type, designs


@dataclass(frozen=True)
class LeftOut:
    """A design's report section where its stored record cannot be read: the section's title, the registered design
    that renders it, and the one line that says why."""

    title: str
    design: str
    note: str


@dataclass(frozen=True)
class DesignSection:
    """A design's section of the report: ``section(result, rows, paper_months)`` the section's data from the design's
    side computation's ``result`` (None where it has none) and the public table's ``rows`` (None: no section),
    ``render(section)`` its part of the page, ``rank`` its place among the designs' sections (lower first)."""

    section: Callable
    render: Callable
    rank: int = 100


def _check_section(registry: Registry, name: str, item: Any) -> None:
    check_type(registry, name, item, DesignSection)
    check_callable(registry, name, "section", item.section, 3)
    check_callable(registry, name, "render", item.render, 1)
    check_range(registry, name, "rank", item.rank, None, None, integer=True, optional=False)


#: The package whose modules register the designs' sections.
SECTION_PACKAGE = "densing.report.designs"
#: Each design's section of the report, by the design's name.
SECTIONS: Registry[DesignSection] = Registry("report section", check=_check_section, found_in=SECTION_PACKAGE)


def ranked_sections() -> list[tuple[str, DesignSection]]:
    """The sections of the registered designs (:func:`densing.registry.designs`) as (design, section), by rank, then
    by the design's name."""
    known = designs()
    shown = [(name, section) for name, section in SECTIONS.items() if name in known]
    return sorted(shown, key=lambda item: (item[1].rank, item[0]))
