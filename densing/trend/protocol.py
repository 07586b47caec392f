"""The Densing Law on another target table, as one JSON-able record: ``densing trend --table NAME --by benchmark``.

:func:`measure_table`: :func:`densing.trend.measure.measure_trend` on a registered table with its forecast check
(:func:`declared_forecast`); :func:`without_continual` drops the models marked as continual pre-training (the
``derivation`` column). ``python tools/build_tables.py protocol --out results/swallow/trend`` writes the Swallow
tables' records, which ``tests/trend/test_protocol.py`` holds to a fresh computation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from densing import registry
from densing.constants import DEFAULT_EPOCH, DEFAULT_N_BOOT, DEFAULT_N_BOOT_SIDE
from densing.data.schema import DERIVATIONS
from densing.errors import DensingError, InputError
from densing.numbers import json_value
from densing.trend import pooling, selection
from densing.trend.forecast import forecast_windows

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


def _clean(value):
    """:func:`densing.numbers.json_value` of every value in nested dicts and lists (NaN as None, numpy as Python)."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return [_clean(v) for v in value] if isinstance(value, (list, tuple)) else json_value(value)


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
    """(the measurement, its record): the trend by benchmark on ``table`` and its forecast check (module docstring)."""
    from densing.trend.measure import measure_trend

    profile = registry.table(table)
    if not continual:
        targets = without_continual(targets)
    measured = measure_trend(targets, table=profile, since=since, epoch=epoch, n_boot=n_boot, seed=seed)
    # each row's references as a list of their names (a reader takes them as values, never out of joined text)
    names = {row.name: [str(name) for name in row.references] for row in (*measured.benchmark_rows, *measured.set_rows)}
    record = {
        "table": profile.name,
        "words": profile.words,
        "continual_pretraining": "kept" if continual else "dropped",
        "n_models": int(targets["model"].nunique()),
        "verdict": measured.verdict,
        "rows": [{**r, "reference_names": names.get(r["row"], [])} for r in measured.by_benchmark().to_dict("records")],
        "at_budget": measured.by_benchmark_at_budget().to_dict("records"),
        "at_budget_notes": measured.budget_notes,
        "cross_check": measured.cross_check().to_dict("records"),
    }
    found = declared_forecast(targets, measured, profile.name, since=since, epoch=epoch, seed=seed)
    if found is not None:
        record["forecast"] = found
    return measured, _clean(record)


def declared_forecast(
    targets: pd.DataFrame, measured, table: str, *, since, epoch: str = DEFAULT_EPOCH, seed: int = 0, grid: bool = True
) -> dict | None:
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
        return _clean({"row": head.name, "summary": f"Forecast not computed: {exc}", "declared": None, "cutoffs": []})
    return _clean(
        {
            "row": head.name,
            "summary": str(found.summary()),
            "declared": found.declared.to_dict() if found.declared is not None else None,
            "cutoffs": [c.to_dict() for c in found.cutoffs],
        }
    )
