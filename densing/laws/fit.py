"""Fitting the Densing Law's forms with ``scipy.optimize.least_squares``.

One fitting routine (:func:`fit_stage`) serves every law: it takes the law's residual function in
an internal parameterisation, several starting points and bounds, runs ``least_squares`` with a
robust loss from each start and keeps the lowest cost. The laws themselves are in
:mod:`densing.laws.forms`, each one's parameterisation as a problem in :mod:`densing.laws.problems`; this module
fits a problem (the verdicts on a fitted reference are :mod:`densing.laws.fit_schema`'s).

A fit is a frozen :class:`densing.laws.fit_schema.StageFit` that knows its diagnostics (R², RMSE, residuals,
convergence).
"""
from __future__ import annotations

import numpy as np

from densing.errors import FitError
from densing.laws.fit_schema import StageFit, r_squared
from densing.laws.problems import Problem, theta_from_params


def fit_stage(
    problem: Problem, *, loss: str = "soft_l1", f_scale: float = 1.0, x_scale="jac"
) -> StageFit:
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
        if not np.isfinite(result.cost):
            continue
        if best is None or result.cost < best.cost:
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
    """Refit ``problem`` from one warm start at ``params`` (used by the bootstrap).

    Unit variable scaling: from a warm start it needs about half the evaluations of Jacobian
    scaling (measured on the Pythia composed fits, bench/bootstrap_density.py).
    """
    warm = Problem(**{**problem.__dict__, "starts": [theta_from_params(problem, params)]})
    return fit_stage(warm, loss=loss, f_scale=f_scale, x_scale=1.0)
