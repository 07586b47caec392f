"""Fitting the Densing Law's forms with ``scipy.optimize.least_squares``, and the bootstrap of a reference fit.

One routine (:func:`fit_stage`: ``least_squares`` with a robust loss from several starts, the lowest cost kept) fits
every law, each posed as a problem in :mod:`densing.laws.problems`. The bootstrap of
:func:`densing.laws.reference.fit_reference`: :func:`plan` draws the resamples with one seeded generator, :func:`run`
refits each from the point estimate, in one process or several, the draws in resample order whatever ``jobs``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from densing.errors import FitError, WorkerError
from densing.laws import problems as _problems
from densing.laws.fit_schema import StageFit, r_squared
from densing.laws.problems import Problem, theta_from_params


def fit_stage(problem: Problem, *, loss: str = "soft_l1", f_scale: float = 1.0, x_scale="jac") -> StageFit:
    """Run least_squares from every start of ``problem`` and keep the lowest-cost solution."""
    from scipy.optimize import least_squares  # imported here: loading a stored fit needs no optimiser

    best = None
    for start in problem.starts:
        x0 = np.clip(start, problem.lower + 1e-9, problem.upper - 1e-9)
        try:
            result = least_squares(
                problem.residual,
                x0,
                jac=problem.jacobian,
                bounds=(problem.lower, problem.upper),
                loss=loss,
                f_scale=f_scale,
                x_scale=x_scale,
            )
        except (ValueError, FloatingPointError):
            continue
        if np.isfinite(result.cost) and (best is None or result.cost < best.cost):
            best = result
    if best is None:
        raise FitError(f"{problem.law}: least_squares failed from every starting point")
    params = problem.to_params(best.x)
    predicted = problem.predict(params)
    residuals = predicted - problem.observed
    if not np.all(np.isfinite(residuals)):
        raise FitError(f"{problem.law}: the fitted law gives non-finite predictions")
    return StageFit(
        law=problem.law,
        params=params,
        fixed=dict(problem.fixed),
        r_squared=r_squared(problem.observed, predicted),
        rmse=float(np.sqrt(np.mean(residuals**2))),
        residuals=tuple(float(r) for r in residuals),
        converged=bool(best.status > 0),
        message=str(best.message),
        n_points=int(problem.observed.size),
        cost=float(best.cost),
    )


def refit_from(problem: Problem, params: dict[str, float], *, loss: str, f_scale: float) -> StageFit:
    """Refit ``problem`` from one warm start at ``params`` (the bootstrap's refit), with unit variable scaling: from a
    warm start it needs about half the evaluations of Jacobian scaling (bench/bootstrap_density.py)."""
    warm = Problem(**{**problem.__dict__, "starts": [theta_from_params(problem, params)]})
    return fit_stage(warm, loss=loss, f_scale=f_scale, x_scale=1.0)


UNITS = ("series", "point")


def stage_problems(data, picks, *, law, irreducible, chance, ceiling, max_score):
    """The least-squares problems of ``law``: stage k on the points ``picks[k]`` of ``data[k]``, (params, train_tokens,
    score, loss); the two-step law's stages L(N, D) = a·N^-α + b·D^-β [+E] then S(L) = c/(1 + e^{−γ(L − l)}) + d, the
    composed law's one stage S(N, D) (Xiao et al. 2024, eqs. 2–3)."""
    if law == "two-step":
        n, t, _, x = (a[picks[0]] for a in data[0])
        _, _, s2, x2 = (a[picks[1]] for a in data[1])
        return [
            _problems.loss_problem(n, t, x, irreducible=irreducible),
            _problems.performance_problem(x2, s2, chance=chance, ceiling=ceiling, max_score=max_score),
        ]
    n, t, s, _ = (a[picks[0]] for a in data[0])
    return [_problems.composed_problem(n, t, s, chance=chance, ceiling=ceiling, max_score=max_score)]


def plan(
    stage_sets: tuple[pd.DataFrame, ...], runs: list[str], *, n_boot: int, seed: int, unit: str = "auto"
) -> tuple[str, list[tuple[np.ndarray, ...]]]:
    """The resampling unit and ``n_boot`` resamples (each stage's picked rows): ``unit="auto"`` resamples runs where
    some run has several checkpoints (fewer runs than points of the last stage), points otherwise."""
    if unit != "auto":
        chosen = unit
    elif len(runs) < len(stage_sets[-1]):
        chosen = "series"
    else:
        chosen = "point"
    rng = np.random.default_rng(seed)
    if chosen == "point":
        return chosen, [tuple(rng.integers(0, len(part), len(part)) for part in stage_sets) for _ in range(n_boot)]
    members = [{run: np.flatnonzero(part["run"].astype(str).to_numpy() == run) for run in runs} for part in stage_sets]
    picks = ([runs[i] for i in rng.integers(0, len(runs), len(runs))] for _ in range(n_boot))
    return chosen, [tuple(np.concatenate([m[r] for r in picked]) for m in members) for picked in picks]


class RefitTask(NamedTuple):
    """What a refit needs (picklable, for worker processes)."""

    data: tuple
    options: dict
    stage_params: tuple[dict, ...]
    names: tuple[str, ...]
    robust_loss: str
    scales: tuple[float, ...]


def refit_chunk(task: RefitTask, resamples) -> list:
    """Refit every resample from the point estimate; a failed refit gives None (counted)."""
    out = []
    for picks in resamples:
        try:
            merged: dict[str, float] = {}
            for problem, start, scale in zip(
                stage_problems(task.data, picks, **task.options), task.stage_params, task.scales
            ):
                merged.update(refit_from(problem, start, loss=task.robust_loss, f_scale=scale).params)
            out.append(tuple(merged[k] for k in task.names))
        except FitError:
            out.append(None)
    return out


def run(task: RefitTask, resamples: list, *, jobs: int = 1) -> list:
    """The refitted parameters of every resample in resample order (None where a refit failed); with ``jobs`` > 1 (and
    two resamples a process) dealt round-robin to ``jobs`` processes, the order restored: the same for any ``jobs``."""
    n_boot = len(resamples)
    chunks = [resamples[i::jobs] for i in range(jobs)] if jobs > 1 and n_boot >= 2 * jobs else [resamples]
    if len(chunks) == 1:
        return refit_chunk(task, resamples)
    from concurrent.futures.process import BrokenProcessPool

    from densing.runtime.processes import end_pool, process_pool

    pool = process_pool(len(chunks))
    try:
        parts = list(pool.map(refit_chunk, [task] * len(chunks), chunks))
    except BrokenProcessPool:
        raise WorkerError(
            "jobs: a bootstrap worker process died (out of memory or killed); run again with fewer --jobs"
        ) from None
    finally:  # an error, Ctrl-C or SIGTERM ends the other workers now
        end_pool(pool)
    ordered = [None] * n_boot
    for offset, part in enumerate(parts):
        ordered[offset :: len(chunks)] = part
    return ordered
