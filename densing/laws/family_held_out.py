"""A family law's held-out checks: refit without the family's largest member and compare its predicted score with
the measured one (R5 of rules v1 and v2 by relative error, ``tools/build_tables.py``; R5z of rule v3 within noise,
:mod:`densing.laws.eligibility`).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from densing.data.benchmarks import CHANCE_LEVELS, ITEM_COUNTS
from densing.errors import FitError
from densing.laws.family import DEFAULT_SHAPE, covariate, family_points, fit_family, metric_for, shape_constants
from densing.laws.family_likelihood import likelihood_fit
from densing.laws.family_rows import family_arrays


def held_out_test(table: pd.DataFrame, family: str, benchmark: str, *, metric: str | None = None,
                  sizes: dict[str, float] | None = None, dispersion_floor: float = 1.0, shape: str = DEFAULT_SHAPE) -> dict:
    """Refit without the largest member by likelihood under ``shape`` and test its score within noise (rule v3 of
    :mod:`densing.laws.eligibility`).

    z = (Ŝ − S) / √(se(Ŝ)² + φ̂·S(1 − S)/n): Ŝ the refit's prediction at the held-out size, se(Ŝ) its
    delta-method standard error from φ̂·I⁻¹, φ̂ = max(1, ``dispersion_floor``, the refit's own), n
    the benchmark's item count. A family whose members follow the law within their noise has
    |z| ≤ 1.96 with probability about 0.95. Returns ``held_out``, ``measured``, ``predicted``,
    ``predicted_stderr``, ``measured_stderr``, ``z``, ``relative_error``, ``dispersion`` (φ̂), ``items`` (n)
    and ``slope`` (the refit's γ).
    """
    shape_constants(shape)

    metric = metric_for(table, benchmark, metric)
    members, _ = family_arrays(table, family, benchmark, metric=metric, keep_floor=True)
    if sizes is not None:
        points = pd.DataFrame({c: members[c] for c in ("model", "params", "score")})
        points = points.assign(params=points["model"].map(sizes).astype(float))
        points = points[points["params"].notna()].sort_values(["params", "model"]).reset_index(drop=True)
        members = {c: points[c].to_numpy() for c in ("model", "params", "score")}
    chance = CHANCE_LEVELS[benchmark]
    items = float(ITEM_COUNTS[benchmark])
    problem = held_out_problem(members, family, benchmark, items, shape)
    found = likelihood_fit(*problem, chance, 1 - chance, dispersion_floor=dispersion_floor)
    return held_out_result(found, members, family, benchmark, items, shape)


def held_out_problem(members: dict, family: str, benchmark: str, items: float, shape: str) -> tuple:
    """The refit of :func:`held_out_test` as (covariate, scores, items) of every member but the largest (the last of
    ``members``, :func:`densing.laws.family_rows.family_arrays`' arrays); FitError with fewer than 3 sizes."""
    params = np.asarray(members["params"], float)
    if np.unique(params).size < 3:
        raise FitError(f"family {family!r}, {benchmark}: {np.unique(params).size} size(s); holding the "
                       "largest out needs 3")
    return covariate(params[:-1], shape), np.asarray(members["score"], float)[:-1], items


def held_out_result(found, members: dict, family: str, benchmark: str, items: float, shape: str) -> dict:
    """:func:`held_out_test`'s answer from the refit ``found`` (a :class:`LikelihoodFit` of :func:`held_out_problem`):
    z = (Ŝ − S) / √(se(Ŝ)² + φ̂·S(1 − S)/n) of the largest member."""
    largest_model, largest_params = str(members["model"][-1]), float(members["params"][-1])
    if not found.converged:
        raise FitError(f"family {family!r}, {benchmark}: the refit without {largest_model} does not converge")
    predicted, spread = found.predict(covariate(largest_params, shape))
    measured = float(members["score"][-1])
    noise = math.sqrt(found.dispersion * measured * (1 - measured) / items)
    total = math.sqrt(float(spread) ** 2 + noise ** 2)
    z = (float(predicted) - measured) / total if total > 0 else math.inf
    return {"held_out": largest_model, "measured": measured, "predicted": float(predicted),
            "predicted_stderr": float(spread), "measured_stderr": noise, "z": z,
            "relative_error": abs(float(predicted) - measured) / measured if measured > 0 else math.inf,
            "dispersion": found.dispersion, "items": items, "slope": found.slope}


def held_out_error(table: pd.DataFrame, family: str, benchmark: str, *, metric: str | None = None,
                   method: str = "ols", shape: str = "logistic_ln_n") -> dict:
    """Refit without the largest member, predict its score (rule R5 of rules v1 and v2, with their fit by least
    squares on logits).

    Returns ``held_out`` (model), ``measured``, ``predicted`` and ``relative_error`` |Ŝ − S| / S.
    """
    points, _ = family_points(table, family, benchmark, metric=metric)
    if len(points) < 3:
        raise FitError(f"family {family!r}, {benchmark}: {len(points)} member(s); holding one out needs 3")
    largest = points.iloc[-1]
    fit = fit_family(table, family, benchmark, metric=metric, exclude=(str(largest["model"]),), n_boot=0, method=method,
                     shape=shape)
    predicted = float(fit.predict_score(float(largest["params"]), float(largest["train_tokens"])))
    measured = float(largest["score"])
    return {"held_out": str(largest["model"]), "measured": measured, "predicted": predicted,
            "relative_error": abs(predicted - measured) / measured}
