"""The Densing Law on another target table: ``densing trend --table NAME --by benchmark``.

:func:`measure_table`: :func:`densing.trend.measure.measure_trend` on a registered table with its forecast check
(:func:`declared_forecast`), as values (:class:`TableMeasurement`; its JSON-able record, words in place, is
:func:`densing.present.records.table_record`); :func:`without_continual` drops the models marked as continual
pre-training (the ``derivation`` column). ``python tools/build_tables.py protocol --out results/swallow/trend`` writes
the Swallow tables' records, which ``tests/trend/test_protocol.py`` holds to a fresh computation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from densing import registry
from densing.constants import DEFAULT_EPOCH, DEFAULT_N_BOOT, DEFAULT_N_BOOT_SIDE
from densing.data.schema import DERIVATIONS
from densing.errors import DensingError, InputError
from densing.trend import pooling, selection
from densing.trend.forecast import ForecastWindows, forecast_windows

#: The ``derivation`` of a model that continues another's pre-training (``results/swallow/lineage.csv``).
CONTINUAL = "continual_pretraining"


def without_continual(targets: pd.DataFrame) -> pd.DataFrame:
    """``targets`` without the models marked as continual pre-training (an InputError where nothing marks them)."""
    if "derivation" not in targets.columns:
        raise InputError("--without-continual: the table has no 'derivation' column (results/swallow/ tables have one)")
    derivation = targets["derivation"].astype(object).fillna("")
    unknown = (derivation.astype(str).str.strip() != "") & ~derivation.isin(DERIVATIONS)
    if unknown.any():  # 'Continual pretraining' would drop nothing, in silence
        first = int(np.flatnonzero(unknown.to_numpy())[0])
        raise InputError(
            f"--without-continual: model {targets['model'].iloc[first]!r}: field 'derivation': "
            f"{derivation.iloc[first]!r} is not one of {', '.join(DERIVATIONS)}"
        )
    return targets[derivation != CONTINUAL].reset_index(drop=True)


@dataclass(frozen=True)
class DeclaredForecast:
    """The forecast check of a table's headline set ``row``: the windows found, or the error that stopped them."""

    row: str
    found: ForecastWindows | None
    error: DensingError | None = None


class TableMeasurement(NamedTuple):
    """What :func:`measure_table` returns: the measurement, the table's name, its model count after the continual
    models are kept or dropped (``continual``), and its forecast check (None where the table declares none)."""

    measured: object
    table: str
    n_models: int
    continual: bool
    forecast: DeclaredForecast | None


def measure_table(
    targets: pd.DataFrame,
    table: str,
    *,
    continual: bool = True,
    since: str | None = DEFAULT_EPOCH,
    epoch: str = DEFAULT_EPOCH,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
):
    """The trend by benchmark on ``table`` and its forecast check (module docstring), as values."""
    from densing.trend.measure import measure_trend

    profile = registry.table(table)
    if not continual:
        targets = without_continual(targets)
    measured = measure_trend(targets, table=profile, since=since, epoch=epoch, n_boot=n_boot, seed=seed)
    found = declared_forecast(targets, measured, profile.name, since=since, epoch=epoch, seed=seed)
    return TableMeasurement(measured, profile.name, int(targets["model"].nunique()), continual, found)


def declared_forecast(
    targets: pd.DataFrame, measured, table: str, *, since, epoch: str = DEFAULT_EPOCH, seed: int = 0, grid: bool = True
) -> DeclaredForecast | None:
    """The forecast check of ``measured``'s headline set (:func:`densing.trend.forecast.forecast_windows`) on its lead
    reference's densities, at the table's declared cutoff (``declared``: the verdict) and, with ``grid``, at the rule's
    grid (``cutoffs``); None where the table declares no cutoff or the measurement has no headline set."""
    cutoff = registry.table(table).cutoff
    head = measured.set_rows[0] if measured.set_rows else None
    if cutoff is None or head is None or not head.members:
        return None
    try:
        chosen = selection.common_targets(targets, [inv for inv, _ in head.members], since=since, epoch=epoch)
        y, kind = pooling.point_densities(chosen)
        frame = pd.DataFrame(
            {
                "t": chosen.frame["t"].to_numpy(float),
                "y": y[0],
                "kind": kind[0],
                "model": chosen.frame["model"].astype(str).to_numpy(),
                "family": chosen.frame["family"].to_numpy(object) if "family" in chosen.frame.columns else None,
            }
        )
        found = forecast_windows(
            frame, row=head.name, epoch=epoch, n_boot=DEFAULT_N_BOOT_SIDE, seed=seed, declared=cutoff, grid=grid
        )
    except DensingError as exc:
        return DeclaredForecast(head.name, None, exc)
    return DeclaredForecast(head.name, found)
