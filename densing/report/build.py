"""The densing report: one self-contained HTML file, computed then rendered.

:func:`build_report` computes the report's model from the command's inputs
(:func:`densing.report.compute.compute_report`: typed sections holding the results they show,
:mod:`densing.report.model`) and renders it (:func:`densing.report.render.render`: layout only). The page reads
top down: the verdict (densing's doubling time, its interval and status, the paper's 3.3 months beside), the
density-over-time figure (the paper's Fig. 1), the rows by capability, then the designs beside the headline and
the appendices.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from densing.report.compute import compute_report, with_intervals
from densing.report.model import DEFAULT_RESULTS, Report
from densing.report.render import render, verdict_html
from densing.constants import DEFAULT_EPOCH

__all__ = ["DEFAULT_RESULTS", "Report", "build_report", "compute_report", "render", "verdict_html", "with_intervals"]


def build_report(
    *,
    results: str | Path | None = None,
    headline_fit: str | Path | None = None,
    fits_dir: str | Path | None = None,
    d0: float | None = None,
    frontier: str = "quantile",
    epoch: str = DEFAULT_EPOCH,
    since: str | None = DEFAULT_EPOCH,
    n_boot: int = 600,
    seed: int = 0,
    traces: str | Path | None = None,
    command: str | None = None,
    measured=None,
    yours: pd.DataFrame | None = None,
    yours_suite: str | None = None,
):
    """The report page, its headline measurement and its per-model densities: (html, measurement, densities).

    The headline is :func:`densing.trend.measure.measure_trend`'s :class:`~densing.trend.measurement.TrendMeasurement`:
    a doubling time with fit, score and model uncertainty, or, when a validity check fails, the words saying why it
    is not measured (its ``headline``). The density figure draws the ``frontier`` rule (default the headline rule);
    the other rules are toggles. ``command``: the command line that made the report, printed in its footer (default:
    the library call's words). ``measured``: that measurement already computed on ``results`` (``densing measure``
    passes its own). ``yours``: a user's models placed against it (:func:`densing.placement.measure.place_models`'
    rows), highlighted on the density figure and led with: the report's first section, "Your models", gives each
    one's density (or bound), its interval and its place against the frontier line. ``yours_suite``: the suite they
    were evaluated on, in words (:meth:`densing.placement.measure.MeasureResult.protocol`). The model itself:
    :func:`densing.report.compute.compute_report` (same arguments).
    """
    report = compute_report(results=results, headline_fit=headline_fit, fits_dir=fits_dir, d0=d0, frontier=frontier,
                            epoch=epoch, since=since, n_boot=n_boot, seed=seed, traces=traces, command=command,
                            measured=measured, yours=yours, yours_suite=yours_suite)
    return render(report), report.measurement, report.densities
