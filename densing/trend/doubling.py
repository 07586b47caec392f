"""The doubling time of capacity density against a reference: the notebook's entry point, the CLI's defaults.

:func:`fit_trend` is ``densing.fit_trend``: the one uncertainty engine (:mod:`densing.trend.pooling`) that
``densing trend`` and the report run, with the same defaults, so with its defaults it gives the CLI's headline number.
The validity checks, the rows per benchmark and the verdict are :func:`densing.trend.measure.measure_trend`'s.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from numbers import Integral, Real

import pandas as pd

from densing.constants import DEFAULT_EPOCH, DEFAULT_N_BOOT, DEFAULT_N_BOOT_SIDE
from densing.data.schema import table_argument
from densing.errors import InputError
from densing.laws import eligibility
from densing.laws.eligibility import composed_fits
from densing.laws.inversion import Joint, PerBenchmark, as_inversion
from densing.laws.reference_fit import ReferenceFit, as_fit, names_a_fit
from densing.trend import capability, pooling, rules, selection
from densing.trend.capability import headline_set
from densing.trend.targets import SCORE_COLUMNS, check_window, with_stderr
from densing.trend.uncertainty import TrendUncertainty, from_row_trend
from densing.validation import D0_TOKENS, INTERVAL_DRAWS, Date, Interval, Text, as_names, validate_params

#: What :func:`fit_trend`'s options may be (``rule`` is checked against the registered frontier rules).
FIT_TREND_CONSTRAINTS = {
    "rule": [Text()],
    "quantile": [Interval(Real, 0, 1, closed="neither")],
    "d0": [D0_TOKENS, None],
    "since": [Date(), None],
    "epoch": [Date()],
    "n_boot": [INTERVAL_DRAWS],
    "n_boot_share": [Interval(Integral, 0, None)],
    "level": [Interval(Real, 0, 1, closed="neither")],
    "seed": [Interval(Integral, 0, None)],
}


@validate_params(FIT_TREND_CONSTRAINTS)
def fit_trend(
    targets: pd.DataFrame,
    reference=None,
    *,
    benchmarks: tuple[str, ...] | None = None,
    rule: str = "quantile",
    quantile: float = 0.9,
    d0: float | None = None,
    since: str | None = DEFAULT_EPOCH,
    epoch: str = DEFAULT_EPOCH,
    n_boot: int = DEFAULT_N_BOOT,
    n_boot_share: int = DEFAULT_N_BOOT_SIDE // 2,
    level: float = 0.95,
    seed: int = 0,
) -> TrendUncertainty:
    """→ TrendUncertainty: the doubling time ln 2 / A of ln ρmax = A·t + B over ``targets`` against ``reference``.

    ``targets``: a tidy score table (``model, benchmark, metric, value, params, release_date``, optionally ``stderr``
    and ``family``), such as ``densing.read_results("results/public_models.csv")``, checked as a table file is.
    ``reference``: ``None`` (default), the headline's references, as ``densing trend`` chooses them, pooled; a family
    name (``"Llama-3.1"``), that family fitted per benchmark at its own budget on ``benchmarks`` (default those the
    reference rule makes it a reference of the headline's set on), inverted jointly; a
    :class:`~densing.laws.reference_fit.ReferenceFit` (per benchmark at ``d0``, default its own D0), a fit file or a
    shipped fit's short name (``"llama-3.1_mmlu"``), or several fits of one family (a list or a mapping: jointly); an
    inversion (:class:`~densing.laws.inversion.PerBenchmark`, :class:`~densing.laws.inversion.Joint`).

    ``rule``: ``quantile`` (the headline's), ``envelope`` or ``all``. ``n_boot``/``seed``: the draws of the interval;
    ``n_boot_share``: the draws of each source alone (0 skips the shares). With the CLI's defaults the result's
    ``status`` is the headline's."""
    rules.get(rule)
    benchmarks = None if benchmarks is None else as_names(benchmarks, "benchmarks")
    if isinstance(reference, str) and not reference.strip():
        raise InputError(
            "reference: expected a family name, a ReferenceFit, a fit file or a shipped fit's name, got ''"
        )
    if isinstance(reference, os.PathLike) or isinstance(reference, str) and names_a_fit(reference, "reference"):
        reference = as_fit(reference, "reference")  # a fit file or a shipped fit's name; any other text is a family
    if not isinstance(targets, pd.DataFrame):
        raise InputError(f"targets: expected a pandas DataFrame of scores, got {type(targets).__name__}")
    missing = [c for c in SCORE_COLUMNS if c not in targets.columns]
    if missing:
        hint = (
            (
                " (a table of densities has no scores to redraw: pass the score table, e.g. "
                "densing.read_results('results/public_models.csv'), and the reference)"
            )
            if "density" in targets.columns
            else ""
        )
        raise InputError(f"targets: missing column(s) {', '.join(missing)}{hint}")
    targets = with_stderr(table_argument(targets, "targets", SCORE_COLUMNS))
    check_window(targets, since)
    families = set(targets["family"].dropna().astype(str)) if "family" in targets.columns else None
    if isinstance(reference, str) and families is not None and reference not in families:
        raise InputError(
            f"reference: {reference!r} is neither a family of targets nor a fit file or a shipped "
            f"fit's name{_close(reference, families)}"
        )
    if reference is None and benchmarks is not None:  # the headline's references come with their benchmark set
        raise InputError(
            "benchmarks: given with a family name only (reference='Llama-3.1'); the headline's "
            "references (reference=None) invert the headline's set"
        )
    known = set(targets["benchmark"].astype(str))
    unknown = [b for b in benchmarks or () if b not in known]
    if unknown:
        raise InputError(f"benchmarks: {unknown[0]!r} is no benchmark of targets{_close(unknown[0], known)}")
    if reference is None or isinstance(reference, str):
        if d0 is not None:
            raise InputError("d0: a family reference is inverted at its own budget; d0 goes with a ReferenceFit")
        chosen = _family_targets(targets, reference, benchmarks, since=since, epoch=epoch, seed=seed)
    else:
        if benchmarks is not None:
            raise InputError("benchmarks: given with a family name only (a fit or an inversion has its own)")
        chosen = selection.common_targets(targets, [_inversion(reference, d0)], since=since, epoch=epoch)
    return from_row_trend(
        pooling.pooled_trend(
            chosen,
            rule=rule,
            quantile=quantile,
            n_boot=n_boot,
            n_boot_share=n_boot_share,
            level=level,
            seed=seed,
            draws_cap=pooling.DRAWS_CAP,
        ),
        epoch=epoch,
        judged=True,
    )


def _close(name: str, known) -> str:
    """An error's hint: "; close: " and the names of ``known`` nearest ``name``, or "" where none is."""
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.5)
    return f"; close: {', '.join(close)}" if close else ""


def _inversion(reference, d0: float | None):
    """A fit, several family fits of one family, or an inversion → the inversion."""
    if isinstance(reference, Mapping):
        reference = list(reference.values())
    if isinstance(reference, (list, tuple)):
        if not reference:
            raise InputError(
                "reference: expected one or more ReferenceFit objects (or fit files, shipped fits' names), got none"
            )
        fits = tuple(as_fit(f, f"reference[{i}]") for i, f in enumerate(reference))
        if len(fits) == 1:
            return PerBenchmark(fits[0], d0)
        if d0 is not None:
            raise InputError("d0: the joint inversion uses each family fit at its own budget")
        return Joint(fits)
    if d0 is not None and not isinstance(reference, ReferenceFit):
        raise InputError("d0: goes with a ReferenceFit (an inversion has its own D0)")
    return as_inversion(reference, d0)


def _family_targets(
    targets: pd.DataFrame, family: str | None, benchmarks, *, since, epoch, seed: int
) -> selection.CommonTargets:
    """The common targets of the headline's references (``family`` None), or of one family's."""
    candidates = eligibility.candidate_table(targets, composed=composed_fits())
    if (
        family is not None and benchmarks is not None
    ):  # fitted as the reference rule fits them (likelihood, pooled dispersion)
        chosen = tuple(
            eligibility.fit_of(targets, candidates, family, b, eligibility.FAMILY_BOOT, seed) for b in benchmarks
        )
        inversion = Joint(chosen) if len(chosen) > 1 else PerBenchmark(chosen[0])
        return selection.common_targets(targets, [inversion], since=since, epoch=epoch)
    label, _, found, _ = headline_set(candidates)
    if family is not None:
        if family not in found:
            raise InputError(
                f"reference: the common targets make {family!r} no reference of the {label}; "
                "name its benchmarks (benchmarks=...) to use it anyway"
            )
        found = {family: found[family]}
    fits = capability.row_fits(targets, candidates, {}, found, seed=seed)
    return capability.row_targets(targets, candidates, fits, found, since=since, epoch=epoch)
