"""The report as a model: typed sections holding the results they show, computed by
:func:`densing.report.compute.compute_report`; :mod:`densing.report.render` lays them out and computes nothing (the
pipeline: docs/method.md). Every section is computed from the command's inputs, except a design's stored record, whose
page says so.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import pandas as pd

from densing import paths
from densing.laws.reference_fit import ReferenceFit
from densing.results import Result
from densing.trend.measurement import TrendMeasurement

if TYPE_CHECKING:
    from densing.present.summary import Summary

#: The public table the report reads without ``--results``.
DEFAULT_RESULTS = paths.RESULTS / "public_models.csv"
#: The reference law plots (Pythia) shown in the report's "Reference laws" section.
DEFAULT_LAW_FITS = "pythia_*.json"
@dataclass(frozen=True)
class Inputs:
    """The command's inputs, as the footer cites them."""

    results: Path
    fits_dir: Path
    frontier: str
    epoch: str
    since: str | None
    n_boot: int
    seed: int
    command: str | None = None
    traces: Path | None = None


@dataclass(frozen=True)
class YoursSection:
    """``densing measure``'s models placed against the headline's frontier line."""

    title: ClassVar[str] = "Your models"
    yours: pd.DataFrame
    measurement: TrendMeasurement
    suite: str | None


@dataclass(frozen=True)
class VerdictSection:
    """The headline: densing's doubling time, its interval and status, the fixed-size cross-check, the paper's."""

    title: ClassVar[str] = "Verdict"
    measurement: TrendMeasurement
    cross_check: pd.DataFrame


@dataclass(frozen=True)
class DensitySection:
    """The paper's Fig. 1: every model's density over its release date, the ``frontier`` rule's line drawn."""

    title: ClassVar[str] = "Capacity density over time"
    measurement: TrendMeasurement
    frontier: str
    points: pd.DataFrame          # the trend's models with their density intervals and N̂
    highlight: pd.DataFrame | None


@dataclass(frozen=True)
class CapabilitySection:
    """The doubling time per benchmark and per benchmark set, its cross-check, sensitivity and budget rows."""

    title: ClassVar[str] = "The Densing Law by capability"
    rows: pd.DataFrame            # TrendMeasurement.by_benchmark()
    cross_check: pd.DataFrame
    sensitivity: pd.DataFrame
    at_budget: pd.DataFrame
    budget_notes: dict


@dataclass(frozen=True)
class DetailSection:
    """Every frontier rule's interval and variance shares, the checks, the paper's numbers beside ours."""

    title: ClassVar[str] = "The measurement in detail"
    measurement: TrendMeasurement


@dataclass(frozen=True)
class NamedModelsSection:
    """The models the paper and the tables name: each density with its interval, per benchmark with its own."""

    title: ClassVar[str] = "Named models"
    densities: pd.DataFrame       # the named models' rows, in NAMED_MODELS' order
    per_benchmark: pd.DataFrame   # model, benchmark, density, bound, interval: each benchmark inverted alone
    missing: tuple[str, ...]      # named models with no row (a reference's own member, or no scores)
    anchors: dict
    reference: str


@dataclass(frozen=True)
class ReferencesSection:
    title: ClassVar[str] = "Every eligible reference"
    references: pd.DataFrame


@dataclass(frozen=True)
class LawsSection:
    """The headline reference's fits and the shipped Pythia laws."""

    title: ClassVar[str] = "Reference laws"
    headline_fits: tuple[ReferenceFit, ...]
    law_fits: tuple[ReferenceFit, ...]


@dataclass(frozen=True)
class CandidatesSection:
    title: ClassVar[str] = "Reference candidates"
    candidates: pd.DataFrame


@dataclass(frozen=True)
class PerModelSection:
    title: ClassVar[str] = "Per-model densities"
    densities: pd.DataFrame
    reference: str
    d0: float


@dataclass(frozen=True)
class CaveatsSection:
    title: ClassVar[str] = "Data caveats"
    densities: pd.DataFrame
    left_out: pd.DataFrame
    corrections: pd.DataFrame | None
    results: Path


@dataclass(frozen=True)
class OverlapSection:
    title: ClassVar[str] = "Communication/computation overlap"
    traces: Path
    numbers: pd.DataFrame
    figures: tuple                # (title, plotly figure) per figure


@dataclass(frozen=True)
class Report(Result):
    """What the page shows, section by section, and the headline measurement it leads with (``to_dict()``: the
    measurement's)."""

    measurement: TrendMeasurement
    densities: pd.DataFrame
    sections: tuple
    inputs: Inputs

    _dict_exclude = ("densities", "sections", "inputs")

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """The headline's (1 − ``alpha``) intervals (:meth:`TrendMeasurement.conf_int`)."""
        return self.measurement.conf_int(alpha)

    def to_frame(self) -> pd.DataFrame:
        """The headline measurement's rules side by side (:meth:`TrendMeasurement.to_frame`)."""
        return self.measurement.to_frame()

    def summary(self) -> Summary:
        """The measurement's summary with the report's sections as one more table."""
        own = self.measurement.summary()
        from densing.present.summary import Table

        sections = Table("Report sections", ("section",), tuple((section.title,) for section in self.sections))
        return replace(own, tables=(*own.tables, sections))

    def __repr__(self) -> str:
        return f"Report({self.measurement!r}; {len(self.sections)} sections)"

    def section(self, kind: type):
        """The section of type ``kind``, or None."""
        return next((s for s in self.sections if isinstance(s, kind)), None)
