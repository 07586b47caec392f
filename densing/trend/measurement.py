"""What :func:`densing.trend.measure.measure_trend` returns: the measurement, each inversion's trend, the breakpoint."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import pandas as pd

from densing.laws.reference_fit import ReferenceFit
from densing.results import ALPHA_CONSTRAINTS, Result, displayed_text, frame_records, interval_frame
from densing.states import ReferencesBy, State
from densing.trend.uncertainty import TrendUncertainty
from densing.validation import validate_params


@dataclass(frozen=True)
class Segment(Result):
    """One side of the breakpoint: its slope with the full interval, or why it has none."""

    name: str
    n_models: int
    slope_per_day: float = math.nan
    intercept: float = math.nan
    slope_ci_low: float = math.nan
    slope_ci_high: float = math.nan
    #: why the side has no fit (the error its fit raised); None where it has one
    error: Exception | None = None
    same_as_headline: bool = False

    _ci_estimates: ClassVar[dict[str, str]] = {"slope": "slope_per_day"}


@dataclass(frozen=True)
class Breakpoint(Result):
    """Slopes before and after ChatGPT's release (each its own full-uncertainty fit), beside the paper's."""

    date: str
    before: Segment
    after: Segment
    paper_before_per_day: float = 0.0048
    paper_after_per_day: float = 0.0073


@dataclass(frozen=True)
class TrendMeasurement(Result):
    """What :func:`densing.trend.measure.measure_trend` returns: every frontier rule's trend, the checks, the
    breakpoint, the rows per benchmark and the tables behind them, as values (what a reader sees of it, the JSON's
    document and the CSV's table: :mod:`densing.present.records`)."""

    #: the headline's references, ``family:benchmark`` joined by `` | ``; as a reader sees them (" (given)" after a given
    #: fit's), :func:`densing.present.verdict.reference_words`
    reference: str
    references_by: ReferencesBy
    d0: float
    headline_rule: str
    rules: dict[str, TrendUncertainty]
    rule_errors: dict[str, str]
    checks: tuple  # densing.trend.checks.Check, gates and findings
    sensitivity: pd.DataFrame
    breakpoint: Breakpoint | None  # None where its section is not asked for
    candidates: pd.DataFrame
    references: pd.DataFrame
    densities: pd.DataFrame = field(repr=False)
    models: pd.DataFrame = field(repr=False)
    left_out: pd.DataFrame = field(repr=False)
    fits: tuple[ReferenceFit, ...] = field(repr=False)
    inversion: object = field(repr=False)
    #: the headline's registered set label (:attr:`densing.registry.TrendTable.sets`); "" for a given fit's benchmarks
    #: (:attr:`references_by`); in words, :func:`densing.present.verdict.headline_set_words`
    headline_set: str = ""
    benchmark_rows: tuple = field(default=(), repr=False)  # capability.Row per benchmark
    set_rows: tuple = field(default=(), repr=False)  # capability.Row per benchmark set, the headline's first
    budget_rows: tuple = field(default=(), repr=False)  # capability.Row at one D0 (the budget sensitivity)
    budget_notes: dict = field(default_factory=dict, repr=False)  # members with no size at D0, per reference
    #: the fixed-size time regression's fits, one per row (densing.trend.fixed_size.fixed_size_rows); None without them
    fixed_size: tuple | None = field(default=None, repr=False)
    #: members of a reference family of any row that break their family's order (densing.laws.family_rows), and whether
    #: the family's fits keep them
    order_breaks: pd.DataFrame | None = field(default=None, repr=False)
    #: the registered table measured (:attr:`densing.registry.TrendTable.name`); its words, as the JSON gives them
    #: under ``table_words``, are :func:`densing.present.verdict.table_words`'s
    table_name: str = ""
    missing: tuple = ()  # the sets passed over before the headline's: (name, label, why)
    since: str | None = None  # the targets' window
    #: the headline row's common targets (densing.trend.selection.CommonTargets; None where it has none), kept for
    #: what is computed from them on demand (:meth:`knife_edges`)
    common: object = field(default=None, repr=False)

    _dict_exclude = (
        "sensitivity",
        "candidates",
        "references",
        "densities",
        "models",
        "left_out",
        "fits",
        "inversion",
        "benchmark_rows",
        "set_rows",
        "budget_rows",
        "fixed_size",
        "order_breaks",
        "budget_notes",
        "missing",
        "common",
    )

    def to_frame(self) -> pd.DataFrame:
        """The rules side by side (:meth:`table`); the measurement's tables with their words, as ``--format csv``
        prints them, are :func:`densing.present.records.measurement_frame`."""
        return self.table()

    @validate_params(ALPHA_CONSTRAINTS)
    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """The headline rule's (1 − ``alpha``) intervals (:meth:`Result.conf_int`); no rows without its trend."""
        head = self.rules.get(self.headline_rule)
        return head.conf_int(alpha) if head is not None else interval_frame({})

    @property
    def state(self) -> State:
        """The headline's :class:`~densing.states.State`: its rule's trend's; where its set has no reference or its rule
        no judged trend, neither end is determined (:meth:`~densing.states.State.from_ends`: not measured)."""
        head = self.rules.get(self.headline_rule)
        if self.missing or head is None or head.state is None:
            return State.from_ends(low_determined=False, high_determined=False)
        return head.state

    @property
    def measurable(self) -> bool:
        """Whether the headline is measured (both ends of its interval determined, its references agreeing)."""
        return self.state is State.MEASURED

    def to_dict(self) -> dict:
        """The scalar fields, each rule's trend, the checks and the breakpoint, as values (with their words:
        :func:`densing.present.records.record`)."""
        return {**super().to_dict(), "measurable": self.measurable}

    def __repr__(self) -> str:
        """The headline in one line, as the installed display writes it (:func:`densing.results.displayed_text`)."""
        return displayed_text(self)

    @property
    def fit(self) -> ReferenceFit:
        """The headline reference's first fit (all of them: :attr:`fits`)."""
        return self.fits[0]

    def table(self) -> pd.DataFrame:
        """The rules side by side: months and slope per day with their 95% intervals, models, the draws each rule's
        interval rests on (``draws``: the headline rule's grow, the others' do not, so one row's ends are only those
        of another table's row at the same draws), bounds, shares."""
        keep = [
            "rule",
            "doubling_time_months",
            "doubling_time_months_ci_low",
            "doubling_time_months_ci_high",
            "slope_per_day",
            "slope_ci_low",
            "slope_ci_high",
            "n_models",
            "n_boot",
            "n_lower_bounds",
            "n_upper_bounds",
            "share_fit",
            "share_score",
            "share_models",
            "share_reference",
        ]
        frame = pd.DataFrame([{k: getattr(r, k) for k in keep} for r in self.rules.values()], columns=keep)
        return frame.rename(
            columns={
                "doubling_time_months": "months",
                "doubling_time_months_ci_low": "ci_low",
                "doubling_time_months_ci_high": "ci_high",
                "n_boot": "draws",
                "n_lower_bounds": "lower_bounds",
                "n_upper_bounds": "upper_bounds",
            }
        )

    def knife_edges(self):
        """The headline row's knife edges: each target within ±0.5 standard errors of a censoring boundary moved just
        across it, one at a time, and the point's move (:func:`densing.trend.knife_edge.headline_knife_edges`,
        computed on each call); None where the measurement has no headline row."""
        from densing.trend.knife_edge import headline_knife_edges

        return headline_knife_edges(self)

    def influence(self) -> dict[str, list[dict]]:
        """Every row's leave-one-family-out table (``densing trend --by benchmark --format json``), by row."""
        return {
            row.name: frame_records(row.result.influence_frame())
            for row in (*self.benchmark_rows, *self.set_rows)
            if row.result is not None
        }

    def labs(self) -> dict[str, dict]:
        """Every row's labs (``densing trend --by benchmark --format json``), by row: each one's ``labs_record()``."""
        return {
            row.name: row.result.labs_record()
            for row in (*self.benchmark_rows, *self.set_rows)
            if row.result is not None
        }
