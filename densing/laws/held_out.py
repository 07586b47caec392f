"""Held-out checks of a reference law: fit on the small models, predict the large ones (Xiao et al. 2024, Fig. 2b),
from a table (:func:`held_out_validation`) or from a path of any format (:func:`validate_held_out`). The summary a
reader reads beside the table is :func:`densing.present.laws.held_out_summary`'s, from the values returned here.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real
from pathlib import Path

import pandas as pd

from densing.data.formats import read_reference_data, sniff_format
from densing.data.olmo import ladder_benchmarks, read_olmo_ladder
from densing.data.schema import table_argument
from densing.errors import InputError
from densing.laws.fit_schema import select_points
from densing.laws.olmo.check import LadderValidation, validate_ladder
from densing.laws.reference import fit_reference
from densing.laws.reference_fit import ReferenceFit
from densing.validation import Interval, as_names, validate_params


@dataclass(frozen=True)
class HeldOutCut:
    """What :func:`validate_held_out`'s table of a format other than the OLMo ladder leaves out of the check's summary:
    the cut ``max_params`` (the OLMo ladder's: :class:`densing.laws.olmo.check.LadderValidation`)."""

    max_params: float


@validate_params({"max_params": [Interval(Real, 0, None, closed="neither")]})
def held_out_validation(
    frame: pd.DataFrame,
    benchmark: str | list[str],
    *,
    max_params: float,
    targets: pd.DataFrame | None = None,
    **fit_options,
) -> tuple[ReferenceFit, pd.DataFrame]:
    """(fit, table): a fit on the reference models with N < ``max_params`` and its predictions of the larger ones:
    ``frame``'s rows with N ≥ ``max_params``, or ``targets``' (models of the same recipe outside the reference, e.g.
    OLMo-2 7B and 13B beside AI2's ladder). One row per held-out point: measured and predicted score (and loss for the
    two-step law), the errors and the relative score error |Ŝ − S| / S.
    """
    as_names(benchmark, "benchmark")
    frame = table_argument(frame, "frame", reference=True)
    if targets is not None:
        targets = table_argument(targets, "targets", reference=True)
    train = frame[frame["params"] < max_params]
    pool = frame if targets is None else targets
    test = pool[pool["params"] >= max_params]
    if test.empty:
        raise InputError(f"max_params {max_params:.3g}: no model is that large; nothing is held out")
    if train.empty:
        raise InputError(f"max_params {max_params:.3g}: no reference model is smaller; nothing to fit")
    fit = fit_reference(train, benchmark, **fit_options)
    _, points = select_points(test, list(fit.benchmarks), metric=fit.metric, n_shot=fit.provenance.get("n_shot"))
    points = points.rename(columns={"score": "measured_score", "loss": "measured_loss"})
    points["predicted_score"] = fit.predict_score(points["params"], points["train_tokens"])
    points["score_error"] = points["predicted_score"] - points["measured_score"]
    points["relative_error"] = points["score_error"].abs() / points["measured_score"]
    if fit.kind == "two-step":
        points["predicted_loss"] = fit.predict_loss(points["params"], points["train_tokens"])
        points["loss_error"] = points["predicted_loss"] - points["measured_loss"]
    else:
        points = points.drop(columns="measured_loss")
    points.insert(1, "benchmark", fit.benchmark)
    return fit, points


def validate_held_out(
    path: str | Path,
    benchmark: str | list[str],
    *,
    max_params: float,
    law: str = "two-step",
    metric: str | None = None,
    chance: float | str | None = "none",
    min_train_tokens: float | str | None = "auto",
    final_only: bool = False,
    suite: str = "standard",
) -> tuple[pd.DataFrame, HeldOutCut | LadderValidation]:
    """The held-out check of the reference data at ``path``, whatever its format: (table, the values of its summary).

    AI2's OLMo ladder by its own rules (:func:`densing.laws.olmo.check.validate_ladder`; ``metric`` the task's own);
    any other format by :func:`held_out_validation` without bootstrap (``metric`` default ``acc``), checkpoints below
    ``min_train_tokens`` left out of fit and table (``"auto"``: the format's default, 3e9 on the Pythia folder; ``None``
    keeps all), rows by run, then tokens, ``final_only`` keeping each held-out run's last. The summary
    (:func:`densing.present.laws.held_out_summary`) gives the count, the mean and the largest relative score error
    |Ŝ − S| / S.
    """
    path = Path(path)
    data_format = sniff_format(path)
    if data_format.name == "olmo_ladder":
        if not isinstance(benchmark, str):
            raise InputError("benchmark: the OLMo ladder's check takes one benchmark")
        return validate_ladder(
            read_olmo_ladder(path),
            benchmark,
            metric or ladder_benchmarks().get(benchmark, "len_norm"),
            max_params=max_params,
        )
    tokens = data_format.min_train_tokens if min_train_tokens == "auto" else min_train_tokens
    _, table = held_out_validation(
        read_reference_data(path, suite=suite),
        benchmark,
        max_params=max_params,
        min_train_tokens=tokens,
        law=law,
        metric=metric or "acc",
        chance=chance,
        n_boot=0,
    )
    if tokens is not None:
        table = table[table["train_tokens"] >= tokens]
    if table.empty:
        raise InputError(f"min_train_tokens {tokens:.3g}: no held-out checkpoint is trained that long")
    if final_only:
        table = table.loc[table.groupby("run")["train_tokens"].idxmax()]
    table = table.sort_values(["params", "run", "train_tokens"], kind="stable").reset_index(drop=True)
    return table, HeldOutCut(max_params)
