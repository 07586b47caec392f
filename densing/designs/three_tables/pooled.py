"""The three tables' pooled law computed beside the report's headline (:func:`side`, registered with the design):
:func:`densing.trend.pooled_trend.pooled_trend` at the report's draws and seed, or why it cannot be measured."""

from __future__ import annotations

from densing.errors import DensingError
from densing.trend.pooled_trend import PooledTrend, pooled_trend


def measured(n_boot: int, seed: int) -> PooledTrend | str:
    """The pooled law at the report's draws and seed, or the message of the
    :class:`~densing.errors.DensingError` that says why it cannot be measured (a table that cannot be put on the common
    scale); its sentence is :func:`densing.present.pooled.not_shown_words`'."""
    try:
        return pooled_trend(n_boot=n_boot, seed=seed)
    except DensingError as error:
        return str(error)


def side(inputs) -> tuple:
    """The pooled law on the report's draws and seed, computed beside the headline (its tables as shipped: --results
    and --since do not reach it)."""
    return measured, {"n_boot": inputs.n_boot, "seed": inputs.seed}
