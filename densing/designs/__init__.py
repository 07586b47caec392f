"""The measurement designs (``public``, ``openllm_v2``, ``olmes``, ``swallow``): one folder each, found by discovery
(:func:`densing.registry.discover`); a design's ``__init__`` registers its :class:`densing.registry.Design` and target
tables, and nothing outside its folder names the rest. What their report sections share is here (:class:`LeftOut`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LeftOut:
    """A design's report section where its stored record cannot be read: the section's title, the registered design
    that renders it, and the one line that says why."""

    title: str
    design: str
    note: str
