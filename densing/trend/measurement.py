"""What :func:`densing.trend.measure.measure_trend` returns: the measurement, each inversion's trend, the breakpoint."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import pandas as pd

from densing.constants import PAPER
from densing.laws.reference_fit import ReferenceFit
from densing.results import ALPHA_CONSTRAINTS, Result, frame_records, interval_frame, presented, presented_property
from densing.states import ReferencesBy, State
from densing.trend.uncertainty import TrendUncertainty
from densing.validation import Options, validate_params


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
    _shown_as: ClassVar[dict[str, str]] = {"error": "note"}

    @property
    def note(self) -> str:
        """Why the side has no fit: its error's message ("" where it has a fit)."""
        return str(self.error) if self.error is not None else ""


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
    breakpoint, the rows per benchmark and the tables behind them (JSON: :meth:`document`, CSV: :meth:`to_frame`)."""

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
    headline_set: str = ""
    benchmark_rows: tuple = field(default=(), repr=False)  # capability.Row per benchmark
    set_rows: tuple = field(default=(), repr=False)  # capability.Row per benchmark set, the headline's first
    budget_rows: tuple = field(default=(), repr=False)  # capability.Row at one D0 (the budget sensitivity)
    budget_notes: dict = field(default_factory=dict, repr=False)  # members with no size at D0, per reference
    fixed_size: pd.DataFrame | None = field(default=None, repr=False)  # the fixed-size time regression's rows
    #: members of a reference family of any row that break their family's order (densing.laws.family_rows), and whether
    #: the family's fits keep them
    order_breaks: pd.DataFrame | None = field(default=None, repr=False)
    table_words: str = ""  # the table in words ("the Open LLM Leaderboard v2 table")
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
    _shown_as: ClassVar[dict[str, str]] = {"references_by": "reference_rule"}

    reference_rule = presented_property(
        "reference_rule",
        "How the headline's references were chosen, in words (:func:`densing.present.verdict.references_words`).",
    )
    status = presented_property(
        "status", "The headline's state and reasons in words (:func:`densing.present.verdict.measurement_status`)."
    )
    verdict = presented_property(
        "verdict", "The first sentence a researcher can cite (:func:`densing.present.verdict.headline_verdict`)."
    )
    why = presented_property("why", "The sentences after the verdict (:func:`densing.present.verdict.why_words`).")
    rests_on = presented_property(
        "rests_on",
        "What the headline rests on, one sentence each: its references' labs, "
        "the late frontier family, the floor bounds "
        "(:func:`densing.present.verdict.rests_on_words`).",
    )

    @validate_params({"by": [Options(("rule", "benchmark"))]})
    def to_frame(self, by: str = "rule") -> pd.DataFrame:
        """The measurement as one table (``--format csv``): ``by="rule"``, :meth:`table` with the headline's fields on
        every row and each rule's own status, as the JSON's rows; ``by="benchmark"``, :meth:`by_benchmark` and :meth:`by_benchmark_at_budget` (``variant``: which)."""
        if by == "rule":
            frame = self.table()
            return frame.assign(
                headline=frame["rule"] == self.headline_rule,
                set=self.headline_set,
                reference=self.reference,
                d0=self.d0,
                status=[r.status for r in self.rules.values()],
                verdict=self.verdict,
            )
        rows = self.by_benchmark().assign(variant="own budgets")
        rows = rows.assign(headline=rows["label"] == self.headline_set)
        budget = self.by_benchmark_at_budget()
        if len(budget):
            rows = pd.concat([rows, budget.assign(variant="at one budget", headline=False)], ignore_index=True)
        return rows

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

    @property
    def headline(self) -> str:
        """The verdict and why, in one paragraph."""
        return f"{self.verdict} {self.why}"

    def to_dict(self) -> dict:
        """The scalar fields, each rule's trend, the checks and the breakpoint, with the status, the verdict and why."""
        return {
            **super().to_dict(),
            "measurable": self.measurable,
            "status": self.status,
            "headline": self.headline,
            "verdict": self.verdict,
            "why": self.why,
        }

    def summary(self):
        """The headline as a Summary (:func:`densing.present.verdict.measurement_summary`)."""
        return presented(self, "summary")

    def by_benchmark(self) -> pd.DataFrame:
        """One row per benchmark, then one per set, the headline's first (``densing trend --by benchmark``); each end
        in the form every surface prints it: ``ci_high_form`` "range" where it is its Monte Carlo range
        ``ci_high_mc_low``–``ci_high_mc_high`` (not ``ci_high``, its quantile), ``ci_high_printed`` the text shown."""
        return presented(self, "by_benchmark")

    def cross_check(self) -> pd.DataFrame:
        """Each row under both estimators, this and the fixed-size regression (:mod:`densing.trend.fixed_size`)."""
        shown = self.fixed_size is not None and len(self.fixed_size)
        return presented(self, "cross_check") if shown else pd.DataFrame()

    def by_benchmark_at_budget(self) -> pd.DataFrame:
        """The budget sensitivity: the paper-like rows with every reference brought to one D0 (empty without it)."""
        return presented(self, "by_benchmark_at_budget") if self.budget_rows else pd.DataFrame()

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

    def checks_table(self) -> pd.DataFrame:
        return pd.DataFrame([{"check": c.name, "result": c.status, "detail": c.detail} for c in self.checks])

    def plot(self, kind: str = "density", *, rule: str | None = None, highlight: pd.DataFrame | None = None):
        """The report's own figure (a plotly ``Figure``) for a notebook: ``kind`` ``"density"`` (Xiao et al. 2024,
        eq. 5: the line of ``rule``, its band, ``highlight`` a user's models as stars), ``"size"`` (ρ against N) or
        ``"benchmarks"`` (a forest plot of the rows beside the paper's 3.3 months)."""
        return presented(self, "plot", kind, rule=rule, highlight=highlight)

    def __repr__(self) -> str:
        return presented(self, "repr")

    def document(self) -> dict:
        """What ``densing trend --format json`` prints: ``rows``, one per frontier rule (its ``to_dict()`` with the
        references, D0, the checks and the paper's figures), then the words, the headline with its knife edges
        (:meth:`knife_edges`, computed here), the tables and the rows per benchmark."""
        rows = [
            {
                "frontier": rule,
                "headline": rule == self.headline_rule,
                "reference": self.reference,
                "d0": self.d0,
                **result.to_dict(),
                "measurable": self.measurable,
                "checks": [c.to_dict() for c in self.checks],
                "paper": PAPER,
            }
            for rule, result in self.rules.items()
        ]
        headline = {**self.headline_summary(), "knife_edges": presented(self, "knife_edges_record")}
        return {
            "rows": rows,
            "verdict": self.verdict,
            "why": self.why,
            "status": self.status,
            "headline": headline,
            "sensitivity": frame_records(self.sensitivity),
            "references": frame_records(self.references),
            "breakpoint": self.breakpoint.to_dict() if self.breakpoint is not None else None,
            "by_benchmark": frame_records(self.by_benchmark()),
            "by_benchmark_at_budget": frame_records(self.by_benchmark_at_budget()),
            "cross_check": frame_records(self.cross_check()),
            "order_breaks": frame_records(self.order_breaks) if self.order_breaks is not None else [],
        }

    def headline_summary(self) -> dict:
        """The JSON's ``headline``: what the data determine (:func:`densing.present.verdict.headline_summary`)."""
        return presented(self, "headline_summary")

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

    def breakpoint_line(self) -> str:
        """The breakpoint in one line ("" where its section is not asked for)."""
        return presented(self, "breakpoint_line") if self.breakpoint is not None else ""
