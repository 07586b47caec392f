"""The report as a model: typed sections holding the results they show, and the one computation that makes them
(:func:`compute_report`); :mod:`densing.report.render` lays them out and computes nothing (docs/method.md). The long
steps are the headline measurement and each design's side job, computed meanwhile by a forked worker.
"""

from __future__ import annotations

import contextlib
import glob
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

import pandas as pd

from densing import paths
from densing.constants import DEFAULT_EPOCH, NAMED_MODELS, PAPER
from densing.data import read_results
from densing.invocation import CommandLine
from densing.laws.density import density_table
from densing.laws.inversion import PerBenchmark
from densing.laws.reference_fit import ReferenceFit
from densing.numbers import counted_noun
from densing.present import records, shown, words
from densing.present.bias import bias_words
from densing.present.figures import with_intervals
from densing.present.forest import row_names
from densing.present.summaries import Summary, Table
from densing.present.verdict import reference_words
from densing.registry import Target, TrendTable, designs, given_or_resolved, leading_table
from densing.report.designs import ranked_sections
from densing.results import Result
from densing.runtime.executor import Beside
from densing.runtime.threads import one_blas_thread
from densing.trend import plan, rules
from densing.trend.bias import measurement_row
from densing.trend.measure import PAPER_ANCHORS, measure_trend
from densing.trend.measurement import TrendMeasurement

#: The reference law plots (Pythia) shown in the report's "Reference laws" section.
DEFAULT_LAW_FITS = "pythia_*.json"


@dataclass(frozen=True)
class Inputs:
    """The command's inputs, as the footer cites them: ``results`` the file read, ``table`` the registered table
    whose sets and rules it is measured by (:func:`densing.registry.resolve_table`)."""

    results: Path
    fits_dir: Path
    frontier: str
    epoch: str
    since: str | None
    n_boot: int
    seed: int
    command: CommandLine | str | None = None
    traces: Path | None = None
    table: TrendTable | None = None


@dataclass(frozen=True)
class YoursSection:
    """``densing measure``'s models placed against the headline's frontier line."""

    title: ClassVar[str] = "Your models"
    yours: pd.DataFrame
    measurement: TrendMeasurement
    suite: str | None
    evaluated: bool = True  # False: placed from scores the user had, nothing evaluated
    answers: tuple[str, ...] = ()  # each model's one-line answer as the terminal says it (empty: made from its row)


@dataclass(frozen=True)
class VerdictSection:
    """The headline: densing's doubling time, its interval and status, the fixed-size cross-check, the paper's."""

    title: ClassVar[str] = "Verdict"
    measurement: TrendMeasurement
    cross_check: pd.DataFrame
    #: the headline row's bias in planted worlds built like it, in one sentence, or why it is not shown
    #: (:func:`densing.present.bias.bias_words`); None where the page measures no registered table as shipped
    bias: str | None = None


@dataclass(frozen=True)
class DensitySection:
    """The paper's Fig. 1: every model's density over its release date, the ``frontier`` rule's line drawn."""

    title: ClassVar[str] = "Capacity density over time"
    measurement: TrendMeasurement
    frontier: str
    points: pd.DataFrame  # the trend's models with their density intervals and N̂
    highlight: pd.DataFrame | None


@dataclass(frozen=True)
class CapabilitySection:
    """The doubling time per benchmark and per benchmark set, its cross-check, sensitivity and budget rows."""

    title: ClassVar[str] = "The Densing Law by capability"
    rows: pd.DataFrame  # densing.present.records.by_benchmark(measurement)
    cross_check: pd.DataFrame
    sensitivity: pd.DataFrame
    at_budget: pd.DataFrame
    budget_notes: dict
    names: dict[str, str]  # each row → its name for a reader (densing.present.forest.row_names)
    budget_names: dict[str, str]  # the same of the budget rows


@dataclass(frozen=True)
class DetailSection:
    """Every frontier rule's interval and variance shares, the checks, the paper's numbers beside ours."""

    title: ClassVar[str] = "The measurement in detail"
    measurement: TrendMeasurement


@dataclass(frozen=True)
class NamedModelsSection:
    """The models the paper and the tables name: each density with its interval, per benchmark with its own."""

    title: ClassVar[str] = "Named models"
    densities: pd.DataFrame  # the named models' rows, in NAMED_MODELS' order
    per_benchmark: pd.DataFrame  # model, benchmark, density, bound, interval: each benchmark inverted alone
    missing: tuple[str, ...]  # named models with no row (a reference's own member, or no scores)
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
    figures: tuple  # (title, plotly figure) per figure


@dataclass(frozen=True)
class Report(Result):
    """What the page shows, section by section, and the headline measurement it leads with."""

    measurement: TrendMeasurement
    densities: pd.DataFrame
    sections: tuple
    inputs: Inputs

    _dict_exclude = ("densities", "sections", "inputs")

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """The headline's (1 − ``alpha``) intervals (:meth:`TrendMeasurement.conf_int`)."""
        return self.measurement.conf_int(alpha)

    def to_frame(self) -> pd.DataFrame:
        """The headline measurement's rules side by side, each with its status, as ``--format csv`` prints them
        (:func:`densing.present.records.measurement_frame`)."""
        return records.measurement_frame(self.measurement)

    def summary(self) -> Summary:
        """The measurement's summary (:func:`densing.present.shown.summary`) with the report's sections as one more
        table."""
        own = shown.summary(self.measurement)
        sections = Table("Report sections", ("section",), tuple((section.title,) for section in self.sections))
        return replace(own, tables=(*own.tables, sections))

    def _repr_html_(self) -> str:
        """The report's summary as a notebook shows it."""
        return self.summary().as_html()

    def __repr__(self) -> str:
        return f"Report({self.measurement!r}; {counted_noun(len(self.sections), 'section')})"

    def section(self, kind: type):
        """The section of type ``kind``, or None."""
        return next((s for s in self.sections if isinstance(s, kind)), None)


#: The sections of the measurement (:data:`densing.trend.plan.SECTIONS`) the page shows: every one but each row's
#: slopes without each kind of bound, readings and leave-one-out tables (``row_details``), which no section of the
#: page reads (the headline's own are its job's, and the page shows them).
PAGE_SECTIONS = tuple(section for section in plan.SECTIONS if section != "row_details")


@one_blas_thread  # the report's fits are on matrices of a few columns: one BLAS thread per process
def compute_report(
    *,
    results: str | Path | None = None,
    table: str | TrendTable | None = None,
    target: Target | None = None,
    headline_fit: str | Path | None = None,
    fits_dir: str | Path | None = None,
    d0: float | None = None,
    frontier: str = "quantile",
    epoch: str = DEFAULT_EPOCH,
    since: str | None = DEFAULT_EPOCH,
    n_boot: int = 600,
    seed: int = 0,
    traces: str | Path | None = None,
    command: CommandLine | str | None = None,
    measured=None,
    yours: pd.DataFrame | None = None,
    yours_suite: str | None = None,
    yours_evaluated: bool = True,
    yours_answers: tuple[str, ...] = (),
) -> Report:
    """Every section the report shows: ``results``, ``table`` the target table (:func:`densing.registry.resolve_table`;
    ``target`` that table resolved already, as a command hands it down),
    ``frontier`` the density figure's rule, ``command`` the footer's (:class:`~densing.invocation.CommandLine`; text
    is cited as given), ``measured`` a headline already measured there,
    ``yours`` a user's models placed against it (with their ``yours_suite``, ``yours_evaluated``, ``yours_answers``,
    the terminal's lines). The designs' sections stand beside the leading table's rows only."""
    profile, path = given_or_resolved(target, results, table)
    inputs = Inputs(
        results=path,
        fits_dir=Path(fits_dir) if fits_dir else paths.REFERENCE_FITS,
        frontier=rules.get(frontier).name,
        epoch=epoch,
        since=since,
        n_boot=n_boot,
        seed=seed,
        command=command,
        traces=Path(traces) if traces is not None else None,
        table=profile,
    )
    ranked = ranked_sections() if profile.leads else []  # by rank, then name
    second = [d for d in designs().values() if d.side is not None and profile.leads]
    with contextlib.ExitStack() as stack:  # the block owns every side job's worker: each ends on every path
        jobs = [stack.enter_context(Beside(*d.side(inputs))) for d in second]  # they read their own tables
        targets = read_results(inputs.results)  # beside them
        if measured is None:
            given = ReferenceFit.load(headline_fit) if headline_fit else None
            measured = measure_trend(
                targets,
                fits_dir=inputs.fits_dir,
                fit=given,
                d0=d0,
                since=since,
                epoch=epoch,
                n_boot=n_boot,
                seed=seed,
                table=profile,
                sections=PAGE_SECTIONS,
            )
        computed = {d.name: job.result() for d, job in zip(second, jobs)}
    meta = [c for c in ("date_confidence", "train_tokens") if c in targets.columns]  # beside each model's density
    densities = measured.densities
    densities = (
        densities.join(targets.drop_duplicates("model").set_index("model")[meta], on="model") if meta else densities
    )
    rows, cross = records.by_benchmark(measured), records.cross_check(measured)
    sections = [
        *(
            [YoursSection(yours, measured, yours_suite, yours_evaluated, tuple(yours_answers))]
            if yours is not None
            else []
        ),
        VerdictSection(measured, cross, _bias(measured, inputs.results, headline_fit, d0)),
        DensitySection(measured, inputs.frontier, with_intervals(measured.models, measured.densities), yours),
        CapabilitySection(
            rows,
            cross,
            records.sensitivity_frame(measured),
            records.by_benchmark_at_budget(measured),
            words.budget_notes(measured),
            row_names([*measured.benchmark_rows, *measured.set_rows]),
            row_names(measured.budget_rows),
        ),
    ]
    sections += [
        section
        for section in (
            shown.section(computed.get(name), rows, PAPER["doubling_time_months"]) for name, shown in ranked
        )
        if section is not None
    ]
    sections += _appendices(measured, densities, inputs)
    return Report(measured, densities, tuple(sections), inputs)


def _bias(measured, results: Path, headline_fit, d0) -> str | None:
    """The headline row's bias sentence (:func:`densing.present.bias.bias_words`) where the page measures the leading
    table as shipped (no other file, no given fit or D0); None otherwise."""
    leading = leading_table()
    if headline_fit is not None or d0 is not None or Path(results).resolve() != leading.path.resolve():
        return None
    return bias_words(measurement_row(measured, leading.name))


def _appendices(measured, densities: pd.DataFrame, inputs: Inputs) -> list:
    """The measurement in detail, the named models, then the appendices, the caveats and the overlap section."""
    corrections = inputs.results.parent / "corrections.csv"
    reference = str(densities["reference"].iloc[0]) if len(densities) else reference_words(measured)
    laws = tuple(ReferenceFit.load(p) for p in sorted(glob.glob(str(inputs.fits_dir / DEFAULT_LAW_FITS))))
    sections = [
        DetailSection(measured),
        _named(measured, densities, reference, inputs.seed),
        ReferencesSection(records.references_frame(measured)),
        LawsSection(tuple(measured.fits), laws),
        CandidatesSection(measured.candidates),
        PerModelSection(densities, reference, measured.d0),
        CaveatsSection(
            densities,
            words.left_out_frame(measured.left_out),
            pd.read_csv(corrections) if corrections.exists() else None,
            inputs.results,
        ),
    ]
    if inputs.traces is not None:
        from densing.overlap.figures import overlap_table, report_section

        sections.append(
            OverlapSection(inputs.traces, overlap_table(inputs.traces), tuple(report_section(inputs.traces)))
        )
    return sections


def _named(measured, densities: pd.DataFrame, reference: str, seed: int) -> NamedModelsSection:
    """The named models' rows in :data:`NAMED_MODELS`' order, and each one's density per benchmark with its interval."""
    order = {name: i for i, name in enumerate(NAMED_MODELS)}
    rows = densities[densities["model"].isin(NAMED_MODELS)]
    rows = rows.iloc[rows["model"].map(order).argsort(kind="stable")].reset_index(drop=True)
    missing = tuple(n for n in NAMED_MODELS if n not in set(rows["model"]))
    scored = measured.models[measured.models["model"].isin(rows["model"])]
    return NamedModelsSection(
        rows, per_benchmark_densities(scored, measured.inversion, seed=seed), missing, PAPER_ANCHORS, reference
    )


def per_benchmark_densities(models: pd.DataFrame, inversion, *, seed: int = 0) -> pd.DataFrame:
    """Each model's density under each benchmark of ``inversion`` inverted alone (the paper's eq. 4 at the fit's D0,
    :class:`~densing.laws.inversion.PerBenchmark`), its 95% interval; a row per model and benchmark, none for one."""
    columns = ["model", "density", "bound", "density_ci_low", "density_ci_high"]
    frames = [
        density_table(models, PerBenchmark(fit), seed=seed)[columns].assign(benchmark=fit.benchmark)
        for fit in (inversion.fits if len(inversion.fits) > 1 and len(models) else ())
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*columns, "benchmark"])
