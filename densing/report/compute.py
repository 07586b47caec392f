"""The report's one computation: the command's inputs in, a :class:`densing.report.model.Report` out, and
:func:`build_report`: that model rendered (:func:`densing.report.render.render`) as the page.

The headline measurement and each registered second design's side job (computed meanwhile by a forked worker: the
same seeds give the same numbers either way) are the long steps; every other section reads their results.
"""
from __future__ import annotations

import contextlib
import glob
from pathlib import Path

import pandas as pd

from densing import paths, runtime
from densing.constants import DEFAULT_EPOCH, NAMED_MODELS, PAPER
from densing.laws.reference_fit import ReferenceFit
from densing.registry import designs, ranked_designs
from densing.report import model as m
from densing.report.render import render
from densing.trend.measure import Beside


def build_report(**options):
    """The report page, its headline measurement and its per-model densities: (html, measurement, densities), for
    :func:`compute_report`'s ``options``."""
    report = compute_report(**options)
    return render(report), report.measurement, report.densities


@runtime.one_blas_thread  # the report's fits are on matrices of a few columns: one BLAS thread per process
def compute_report(*, results: str | Path | None = None, headline_fit: str | Path | None = None,
                   fits_dir: str | Path | None = None, d0: float | None = None, frontier: str = "quantile",
                   epoch: str = DEFAULT_EPOCH, since: str | None = DEFAULT_EPOCH, n_boot: int = 600, seed: int = 0,
                   traces: str | Path | None = None, command: str | None = None, measured=None,
                   yours: pd.DataFrame | None = None, yours_suite: str | None = None) -> m.Report:
    """Every section the report shows, from the command's inputs. The density figure draws the ``frontier`` rule;
    ``command``: the command line printed in the footer (default: the library call's words); ``measured``: the
    headline measurement already computed on ``results`` (``densing measure``'s); ``yours``: a user's models placed
    against it (:func:`densing.placement.measure.place_models`' rows), the page's first section, highlighted on the
    density figure; ``yours_suite``: the suite they were evaluated on, in words."""
    from densing.data import read_results
    from densing.trend import rules
    from densing.trend.measure import measure_trend

    inputs = m.Inputs(results=Path(results) if results else m.DEFAULT_RESULTS,
                      fits_dir=Path(fits_dir) if fits_dir else paths.REFERENCE_FITS, frontier=rules.get(frontier).name,
                      epoch=epoch, since=since, n_boot=n_boot, seed=seed, command=command,
                      traces=Path(traces) if traces is not None else None)
    table = read_results(inputs.results)
    second = [d for d in designs().values() if d.side is not None]
    with contextlib.ExitStack() as stack:  # the block owns every side job's worker: each ends on every path
        jobs = [stack.enter_context(Beside(*d.side(inputs))) for d in second]
        if measured is None:
            given = ReferenceFit.load(headline_fit) if headline_fit else None
            measured = measure_trend(table, fits_dir=inputs.fits_dir, fit=given, d0=d0, since=since, epoch=epoch,
                                     n_boot=n_boot, seed=seed)
        computed = {d.name: job.result() for d, job in zip(second, jobs)}
    meta = [c for c in ("date_confidence", "train_tokens") if c in table.columns]  # beside each model's density
    densities = measured.densities
    densities = densities.join(table.drop_duplicates("model").set_index("model")[meta], on="model") if meta else densities
    rows, cross = measured.by_benchmark(), measured.cross_check()
    sections = [*([m.YoursSection(yours, measured, yours_suite)] if yours is not None else []),
                m.VerdictSection(measured, cross),
                m.DensitySection(measured, inputs.frontier, with_intervals(measured.models, measured.densities), yours),
                m.CapabilitySection(rows, cross, measured.sensitivity, measured.by_benchmark_at_budget(),
                                    dict(measured.budget_notes))]
    sections += [section for section in (design.section(computed.get(design.name), rows, PAPER["doubling_time_months"])
                                         for design in ranked_designs() if design.section is not None)
                 if section is not None]  # each registered design's section, in their rank's order
    sections += _appendices(measured, densities, inputs)
    return m.Report(measured, densities, tuple(sections), inputs)


def _appendices(measured, densities: pd.DataFrame, inputs: m.Inputs) -> list:
    """The measurement in detail, the named models, then the appendices, the caveats and the overlap section."""
    corrections = inputs.results.parent / "corrections.csv"
    reference = str(densities["reference"].iloc[0]) if len(densities) else measured.reference
    sections = [m.DetailSection(measured), _named(measured, densities, reference, inputs.seed),
                m.ReferencesSection(measured.references),
                m.LawsSection(tuple(measured.fits), tuple(ReferenceFit.load(p) for p in
                                                         sorted(glob.glob(str(inputs.fits_dir / m.DEFAULT_LAW_FITS))))),
                m.CandidatesSection(measured.candidates),
                m.PerModelSection(densities, reference, measured.d0),
                m.CaveatsSection(densities, measured.left_out,
                                 pd.read_csv(corrections) if corrections.exists() else None, inputs.results)]
    if inputs.traces is not None:
        from densing.overlap.figures import overlap_table, report_section

        sections.append(m.OverlapSection(inputs.traces, overlap_table(inputs.traces), tuple(report_section(inputs.traces))))
    return sections


def _named(measured, densities: pd.DataFrame, reference: str, seed: int) -> m.NamedModelsSection:
    """The named models' rows in :data:`NAMED_MODELS`' order, and each one's density per benchmark with its interval."""
    from densing.trend.measure import PAPER_ANCHORS

    order = {name: i for i, name in enumerate(NAMED_MODELS)}
    rows = densities[densities["model"].isin(NAMED_MODELS)]
    rows = rows.iloc[rows["model"].map(order).argsort(kind="stable")].reset_index(drop=True)
    missing = tuple(n for n in NAMED_MODELS if n not in set(rows["model"]))
    scored = measured.models[measured.models["model"].isin(rows["model"])]
    return m.NamedModelsSection(rows, per_benchmark_densities(scored, measured.inversion, seed=seed),
                                missing, PAPER_ANCHORS, reference)


def per_benchmark_densities(models: pd.DataFrame, inversion, *, seed: int = 0) -> pd.DataFrame:
    """Each model's density under each benchmark of ``inversion`` inverted alone (the paper's eq. 4, one benchmark
    at a time: :class:`densing.laws.inversion.PerBenchmark` at the fit's own D0), with its 95% interval over the
    fit's bootstrap and the score's standard error (:func:`densing.laws.density.density_table`); one row per model
    and benchmark (none for a one-benchmark inversion: its density is the model's own). Its point density is the
    joint inversion's ``density:<benchmark>`` column."""
    from densing.laws.density import density_table
    from densing.laws.inversion import PerBenchmark

    columns = ["model", "density", "bound", "density_ci_low", "density_ci_high"]
    frames = [density_table(models, PerBenchmark(fit), seed=seed)[columns].assign(benchmark=fit.benchmark)
              for fit in (inversion.fits if len(inversion.fits) > 1 and len(models) else ())]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*columns, "benchmark"])


def with_intervals(models: pd.DataFrame, densities: pd.DataFrame) -> pd.DataFrame:
    """The trend's points with each model's 95% density interval and N̂ (the figure's hover and error bars)."""
    extra = [c for c in ("density_ci_low", "density_ci_high", "effective_params") if c in densities.columns]
    return models.join(densities.drop_duplicates("model").set_index("model")[extra], on="model") if extra else models
