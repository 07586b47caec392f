"""Fitting a reference: the two-step (or composed) law of a benchmark fitted on a tidy table of *reference* models
(one training recipe, many sizes N and token counts D), with its bootstrap: :func:`fit_reference` → an immutable
:class:`~densing.laws.reference_fit.ReferenceFit`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd

from densing.data.benchmarks import CHANCE_LEVELS
from densing.data.schema import table_argument
from densing.errors import InputError
from densing.laws import fit as _fit
from densing.laws.fit_schema import (
    POINT_COLUMNS,
    data_hash,
    final_points,
    past_run_fraction,
    point_tuples,
    select_points,
)
from densing.laws.reference_fit import DEFAULT_D0, LAWS, ReferenceFit
from densing.validation import BOOTSTRAP_CONSTRAINTS, D0_TOKENS, Interval, Options, Text, as_names, validate_params


def _resolve_chance(chance: float | str | None, benchmarks: list[str]) -> float | None:
    if chance is None or chance == "none":
        return None
    if chance == "auto":
        if missing := [name for name in benchmarks if name not in CHANCE_LEVELS]:
            raise InputError(f"benchmark {missing[0]!r}: no known chance level; give chance as a number")
        return float(np.mean([CHANCE_LEVELS[name] for name in benchmarks]))
    try:
        return float(chance)
    except ValueError:
        raise InputError(f"chance: expected 'auto', 'none' or a number, got {chance!r}") from None


_POSITIVE = [Interval(Real, 0, None, closed="neither")]
#: What :func:`fit_reference`'s arguments may be (with the bootstrap's, :data:`densing.validation.BOOTSTRAP_CONSTRAINTS`).
FIT_CONSTRAINTS = {
    **BOOTSTRAP_CONSTRAINTS,
    "law": [Options(LAWS)],
    "d0": [D0_TOKENS],
    "loss_points": [Options({"all", "final"})],
    "bootstrap_unit": [Options({"auto", *_fit.UNITS})],
    "metric": [Text()],
    "n_shot": [Interval(Integral, 0, None), None],
    "ceiling": [*_POSITIVE, None],
    "irreducible": [Options({True, False})],
    "max_score": _POSITIVE,
    "min_train_tokens": [Interval(Real, 0, None), None],
    "final_checkpoints": [Interval(Integral, 1, None)],
    "min_run_fraction": [Interval(Real, 0, 1, closed="left")],
    "robust_loss": [Options({"linear", "soft_l1", "huber", "cauchy", "arctan"})],
    "score_scale": _POSITIVE,
    "loss_scale": _POSITIVE,
}


@validate_params(FIT_CONSTRAINTS)
def fit_reference(
    frame: pd.DataFrame,
    benchmark: str | list[str],
    *,
    law: str = "two-step",
    metric: str = "acc",
    n_shot: int | None = None,
    chance: float | str | None = None,
    ceiling: float | None = None,
    irreducible: bool = False,
    max_score: float = 1.0,
    min_train_tokens: float | None = None,
    loss_points: str = "all",
    final_checkpoints: int = 5,
    min_run_fraction: float = 0.0,
    d0: float = DEFAULT_D0,
    n_boot: int = 200,
    seed: int = 0,
    bootstrap_unit: str = "auto",
    jobs: int = 1,
    robust_loss: str = "soft_l1",
    score_scale: float = 0.02,
    loss_scale: float = 0.05,
    provenance: dict | None = None,
) -> ReferenceFit:
    """A :class:`ReferenceFit`: the Densing Law fitted on reference models, with its bootstrap.

    ``frame``: a tidy table of the reference models (counts written ``7B`` are parsed); ``benchmark``: a name, or a
    non-empty list or tuple of names (their mean is fitted). ``law="two-step"`` fits L(N, D) = a·N^-α + b·D^-β [+E] on
    (N, D, loss) in log space, then S(L) = c/(1 + e^{−γ(L − l)}) + d on (loss, score) (Xiao et al. 2024, eqs. 2–3);
    ``law="composed"`` fits S(N, D) on (N, D, score). ``chance`` fixes d ("auto": the benchmark's chance level),
    ``ceiling`` c + d; else c + d ≤ ``max_score``. ``min_train_tokens`` drops points trained on fewer tokens,
    ``min_run_fraction`` checkpoints before that fraction of their run's tokens; ``loss_points="final"`` fits the loss
    law on one point per run (:func:`final_points` of its last ``final_checkpoints``), ``"all"`` both laws on the same
    points. Robust loss ``robust_loss`` with scales ``score_scale`` (score units) and ``loss_scale`` (log-loss units).
    ``n_boot`` resamples are refitted from the point estimate: ``bootstrap_unit="series"`` resamples whole runs (the
    ``run`` column), ``"point"`` points, ``"auto"`` runs when some run has several checkpoints; ``jobs`` > 1 spreads
    them over processes, the draws the same.
    """
    names = list(as_names(benchmark, "benchmark"))
    frame = table_argument(frame, "frame", reference=True)
    if law == "two-step" and "loss" not in frame.columns:
        raise InputError("frame: no 'loss' column; the two-step law needs conditional losses (use law='composed')")
    label, points = select_points(frame, names, metric=metric, n_shot=n_shot, need_loss=law == "two-step")
    loss_set = final_points(points, final_checkpoints) if loss_points == "final" else None  # one point per run
    if min_train_tokens is not None:
        points = points[points["train_tokens"] >= min_train_tokens].reset_index(drop=True)
    if min_run_fraction:
        points = past_run_fraction(points, min_run_fraction)
    loss_set = points if loss_points == "all" else loss_set
    chance_level = _resolve_chance(chance, names)
    stage_sets = (loss_set, points) if law == "two-step" else (points,)
    data = tuple(
        tuple(part[c].to_numpy(float) for c in ("params", "train_tokens", "score", "loss")) for part in stage_sets
    )
    options = dict(law=law, irreducible=irreducible, chance=chance_level, ceiling=ceiling, max_score=max_score)
    scales = (loss_scale, score_scale) if law == "two-step" else (score_scale,)
    problems = _fit.stage_problems(data, tuple(np.arange(len(part[0])) for part in data), **options)  # every point
    stages = tuple(_fit.fit_stage(problem, loss=robust_loss, f_scale=scale) for problem, scale in zip(problems, scales))
    params = {name: value for stage in stages for name, value in stage.params.items()}
    boot_names = tuple(params)
    runs = list(dict.fromkeys(points["run"].astype(str)))
    unit, resamples = _fit.plan(stage_sets, runs, n_boot=n_boot, seed=seed, unit=bootstrap_unit)
    task = _fit.RefitTask(data, options, tuple(st.params for st in stages), boot_names, robust_loss, scales)
    draws = [d for d in _fit.run(task, resamples, jobs=jobs) if d is not None]
    from densing import __version__

    record = dict(
        benchmarks=names,
        metric=metric,
        n_shot=n_shot,
        chance=chance_level,
        ceiling=ceiling,
        irreducible=irreducible,
        max_score=max_score,
        min_train_tokens=min_train_tokens,
        min_run_fraction=min_run_fraction,
        loss_points=loss_points,
        final_checkpoints=final_checkpoints if loss_points == "final" else None,
        robust_loss=robust_loss,
        score_scale=score_scale,
        loss_scale=loss_scale,
        n_boot=n_boot,
        n_boot_failed=n_boot - len(draws),
        bootstrap_unit=unit,
        n_runs=len(runs),
        seed=seed,
        densing_version=__version__,
    )
    record.update(provenance or {})
    units = frame.loc[frame["benchmark"].isin(names), "loss_unit"] if "loss_unit" in frame.columns else pd.Series()
    loss_unit = str(units.dropna().iloc[0]) if units.notna().any() else "nats"  # the table's, nats where it has none
    return ReferenceFit(
        kind=law,
        benchmark=label,
        metric=metric,
        params=params,
        stages=stages,
        d0=float(d0),
        data_hash=data_hash(pd.concat(list(stage_sets), ignore_index=True), list(POINT_COLUMNS[:5])),
        provenance=record,
        bootstrap_names=boot_names,
        bootstrap=tuple(draws),
        points=point_tuples(points),
        benchmarks=tuple(names),
        loss_unit=loss_unit if law == "two-step" else None,
        loss_points=point_tuples(loss_set) if law == "two-step" and loss_points == "final" else (),
    )
