"""Fitting the Densing Law's forms with ``scipy.optimize.least_squares``.

One fitting routine (:func:`fit_stage`) serves every law: it takes the law's residual function in
an internal parameterisation, several starting points and bounds, runs ``least_squares`` with a
robust loss from each start and keeps the lowest cost. The laws themselves are in
:mod:`densing.laws.forms`, each one's parameterisation as a problem in :mod:`densing.laws.problems`
(its names stay importable from here); this module fits a problem and judges the fitted reference.

A fit is a frozen :class:`StageFit` that knows its diagnostics (R², RMSE, residuals, convergence).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from densing.results import Result
from densing.errors import FitError
from densing.laws.problems import Problem, theta_from_params


@dataclass(frozen=True)
class StageFit(Result):
    """One fitted law: parameters, what was held fixed, and goodness-of-fit diagnostics.

    ``r_squared`` and ``rmse`` are on the natural scale of the fitted quantity (loss or score);
    ``residuals`` are prediction − observation in that scale, in input order.
    """
    _dict_exclude = ("residuals",)

    law: str
    params: dict[str, float]
    fixed: dict[str, float]
    r_squared: float
    rmse: float
    residuals: tuple[float, ...]
    converged: bool
    message: str
    n_points: int
    cost: float

    def to_dict(self) -> dict:
        return {
            "law": self.law,
            "params": dict(self.params),
            "fixed": dict(self.fixed),
            "r_squared": self.r_squared,
            "rmse": self.rmse,
            "residuals": list(self.residuals),
            "converged": self.converged,
            "message": self.message,
            "n_points": self.n_points,
            "cost": self.cost,
        }

    @classmethod
    def from_dict(cls, data: dict) -> "StageFit":
        return cls(
            law=str(data["law"]),
            params={k: float(v) for k, v in data["params"].items()},
            fixed={k: float(v) for k, v in data.get("fixed", {}).items()},
            r_squared=float(data["r_squared"]),
            rmse=float(data["rmse"]),
            residuals=tuple(float(v) for v in data["residuals"]),
            converged=bool(data["converged"]),
            message=str(data["message"]),
            n_points=int(data["n_points"]),
            cost=float(data["cost"]),
        )


def _r_squared(observed: np.ndarray, predicted: np.ndarray) -> float:
    ss_res = float(np.sum((observed - predicted) ** 2))
    ss_tot = float(np.sum((observed - observed.mean()) ** 2))
    return 1.0 - ss_res / ss_tot if ss_tot > 0 else float("nan")


def fit_stage(
    problem: Problem, *, loss: str = "soft_l1", f_scale: float = 1.0, max_nfev: int | None = None, x_scale="jac"
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
                max_nfev=max_nfev,
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
        r_squared=_r_squared(problem.observed, predicted),
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


# --------------------------------------------------------------------------------------------
# verdicts on a fitted reference

#: A score law that explains less than half of its points' variance (R² < 0.5) is not one to invert
#: through: the report marks it "do not invert" and ``compute_density`` leaves it out of aggregates.
POOR_FIT_R2 = 0.5


def fit_verdict(fit) -> str | None:
    """'poor fit: R² … < 0.5' when the score stage of ``fit`` (a ReferenceFit) explains too little, else None."""
    r2 = fit.stages[-1].r_squared if fit.stages else math.nan
    if math.isnan(r2) or r2 < POOR_FIT_R2:
        return f"poor fit: R² {r2:.3f} < {POOR_FIT_R2}"
    return None


def interval_notes(fit, level: float = 0.95) -> list[str]:
    """One sentence per parameter whose bootstrap percentile interval does not contain its point estimate.

    The draws are refits of resampled points started from the point fit; when most of them settle
    elsewhere (a flat or multi-modal cost surface: the parameter is poorly determined by the data),
    their percentile interval can miss the point estimate. Such an interval is reported as it is,
    with this note, rather than re-centred.
    """
    table = fit.parameter_ci(level)
    notes = []
    for row in table.itertuples(index=False):
        if math.isnan(row.ci_low) or row.ci_low <= row.estimate <= row.ci_high:
            continue
        notes.append(f"{row.parameter} = {row.estimate:.4g} lies outside its bootstrap interval "
                     f"[{row.ci_low:.4g}, {row.ci_high:.4g}]: the resampled fits settle elsewhere, "
                     f"so {row.parameter} is poorly determined by these points")
    return notes
