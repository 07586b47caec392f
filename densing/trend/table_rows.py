"""Each table's headline row as points the pooled law of several tables reads (results/three_tables/DECLARATION.md,
"The three rows"): :func:`table_row` takes a registered table's headline set and references exactly as ``densing
trend --table NAME`` picks them (:func:`densing.trend.plan.headline_members`), its targets' point ln ρ on the lead
reference's scale with the reference's own members taken from the others, and their kind (exact, upper or lower
bound, under the identified-region rule: :func:`densing.trend.pooling.point_densities`), and each point's own noise,
the spread of its ln ρ over the row's paired draws (fit and score noise; :func:`densing.trend.pooling.paired_draws`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from densing import registry
from densing.constants import DEFAULT_EPOCH
from densing.data import read_results
from densing.data.labs import labs_of
from densing.data.schema import LAB_COLUMN, table_argument
from densing.laws import eligibility
from densing.laws.eligibility import composed_fits
from densing.trend import pooling
from densing.trend.plan import headline_members
from densing.trend.selection import CommonTargets
from densing.trend.targets import SCORE_COLUMNS, check_window, with_stderr


@dataclass(frozen=True)
class TableRow:
    """One table's headline row as points: ``points`` one row per target with ``model``, ``family``, ``lab``,
    ``release_date``, ``t`` (days since the epoch), ``y`` (point ln ρ on the lead's scale), ``kind`` (0 exact, +1
    lower bound, −1 upper bound, NaN none) and ``noise`` (the standard deviation of its ln ρ over the row's draws)."""

    table: str
    row: str
    references: tuple[str, ...]
    points: pd.DataFrame = field(repr=False)
    reference_labs: tuple[str, ...] = ()


def headline_common(
    targets: pd.DataFrame, table: str, *, since: str | None = DEFAULT_EPOCH, epoch: str = DEFAULT_EPOCH, seed: int = 0
) -> tuple[str, CommonTargets]:
    """(label, common targets) of ``table``'s headline set, as :func:`densing.trend.measure.measure_trend` picks them
    for ``densing trend --table NAME`` (the reference rule's candidates and eligible fits, then the first set of the
    table that has references)."""
    profile = registry.table(table)
    targets = with_stderr(table_argument(targets, "targets", SCORE_COLUMNS))
    check_window(targets, since)
    candidates = eligibility.candidate_table(targets, composed=composed_fits(None), benchmarks=profile.candidates)
    fits = eligibility.eligible_fits(targets, candidates, seed=seed)
    label, _, _, chosen = headline_members(targets, candidates, fits, profile, since=since, epoch=epoch, seed=seed)
    return label, chosen


def point_noise(common: CommonTargets, *, n_boot: int, seed: int) -> np.ndarray:
    """Each target's standard deviation of its lead-scale ln ρ over ``n_boot`` paired draws of the row (fit draws and
    score noise; the resampling of models moves no point), NaN where fewer than two draws give it a value."""
    draws = pooling.paired_draws(common, n_boot=n_boot, n_boot_share=0, seed=seed)
    y = draws.main.y
    if y is None:  # too many densities to hold at once: the row computes them a chunk of draws at a time
        step = max(1, pooling.DRAW_CELLS // max(len(common.inversions) * len(common.frame), 1))
        parts = [draws.main.part(low, low + step) for low in range(0, len(draws.main), step)]
        y = np.concatenate([pooling._densities(common, draws.data, part)[0] for part in parts], axis=1)
    lead = np.asarray(y[0], float)
    finite = np.isfinite(lead)
    count = finite.sum(axis=0)
    values = np.where(finite, lead, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = values.sum(axis=0) / count
        variance = (np.where(finite, values - mean, 0.0) ** 2).sum(axis=0) / (count - 1)
    return np.where(count >= 2, np.sqrt(variance), np.nan)


def table_row(
    table: str,
    *,
    n_boot: int,
    seed: int = 0,
    since: str | None = DEFAULT_EPOCH,
    epoch: str = DEFAULT_EPOCH,
    targets: pd.DataFrame | None = None,
) -> TableRow:
    """The registered ``table``'s headline row as a :class:`TableRow` (module docstring); ``targets``: its table
    (default the registered file)."""
    profile = registry.table(table)
    found = read_results(profile.path) if targets is None else targets
    label, common = headline_common(found, profile.name, since=since, epoch=epoch, seed=seed)
    y, kind = pooling.point_densities(common)
    frame = common.frame
    families = frame["family"].to_numpy(object) if "family" in frame.columns else np.full(len(frame), None)
    cells = frame[LAB_COLUMN].to_numpy(object) if LAB_COLUMN in frame.columns else None
    labs = labs_of(families, cells, common.family_labs or None)
    models = frame["model"].astype(str).to_numpy()
    points = pd.DataFrame(
        {
            "model": models,
            "family": families,
            "lab": np.where(labs == "", models, labs),
            "release_date": pd.to_datetime(frame["release_date"]).dt.strftime("%Y-%m-%d").to_numpy(),
            "t": frame["t"].to_numpy(float),
            "y": y[0],
            "kind": kind[0],
            "noise": point_noise(common, n_boot=n_boot, seed=seed),
        }
    )
    return TableRow(
        profile.name, label, tuple(str(name) for name in common.names), points, pooling.reference_labs(common)
    )


__all__ = ["TableRow", "headline_common", "point_noise", "table_row"]
