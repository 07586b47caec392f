"""Each law of :mod:`densing.laws.forms` as a least-squares problem: its internal parameterisation θ, residual,
bounds and starting points (:func:`densing.laws.fit.fit_stage` solves any of them): the loss law in log space, residual
ln L̂ − ln L (log-space fitting as in Hoffmann et al. 2022), the performance law and the composed law (γ = −1) on
scores, residual Ŝ − S.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Real

import numpy as np

from densing.errors import FitError, InputError
from densing.laws import forms
from densing.validation import Interval, validate

#: What the sigmoid's user-fixed amplitudes may be (the performance and composed laws).
SIGMOID_CONSTRAINTS = {
    "chance": [Interval(Real, 0, None), None],
    "ceiling": [Interval(Real, 0, None, closed="neither"), None],
    "max_score": [Interval(Real, 0, None, closed="neither")],
}


def check_sigmoid_options(chance: float | None, ceiling: float | None, max_score: float) -> None:
    """The floor d (``chance``) and ceiling c + d a user fixes: 0 ≤ chance < ceiling ≤ max_score."""
    validate(SIGMOID_CONSTRAINTS, chance=chance, ceiling=ceiling, max_score=max_score)
    if chance is not None and chance >= max_score:
        raise InputError(f"chance: expected a floor below the highest score {max_score:g}, got {chance!r}")
    if ceiling is not None and ceiling > max_score:
        raise InputError(f"ceiling: expected at most the highest score {max_score:g}, got {ceiling!r}")
    if ceiling is not None and chance is not None and ceiling <= chance:
        raise InputError(f"ceiling: {ceiling!r} must exceed chance {chance!r}")


@dataclass(frozen=True)
class Problem:
    """A law in an internal parameterisation θ, ready for least_squares."""

    law: str
    names: tuple[str, ...]  # internal parameter names, in θ order
    to_params: Callable[[np.ndarray], dict[str, float]]  # θ -> natural parameters (incl. fixed)
    residual: Callable[[np.ndarray], np.ndarray]  # θ -> residual vector used by the optimizer
    predict: Callable[[dict[str, float]], np.ndarray]  # natural params -> prediction (natural scale)
    observed: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    starts: list[np.ndarray]
    fixed: dict[str, float] = field(default_factory=dict)
    max_score: float = 1.0
    centres: tuple[float, float] = (0.0, 0.0)  # m_N, m_D subtracted from ln N, ln D
    jacobian: Callable[[np.ndarray], np.ndarray] | str = "2-point"


def _check_points(law: str, n_points: int, n_free: int) -> None:
    if n_points <= n_free:
        raise FitError(
            f"{law}: {n_points} data point(s) for {n_free} free parameter(s); need more points than parameters"
        )


def check_identifiable(law: str, n_params: np.ndarray, train_tokens: np.ndarray) -> None:
    """A FitError when a law with terms a·N^-α and b·D^-β sees one model size or one training budget: its exponent
    is then not determined by the data (any α fits one N), so its interval would be reported as zero-width."""
    for what, values, term in (("model size", n_params, "a·N^-α"), ("training budget", train_tokens, "b·D^-β")):
        distinct = np.unique(np.asarray(values, float))
        if distinct.size < 2:
            shown = f" ({distinct[0]:.3g})" if distinct.size else ""
            raise FitError(
                f"{law}: the points hold one {what}{shown}; the term {term} cannot be determined from "
                f"one {what} (its exponent fits any value): give points at two or more"
            )


def _power_terms(n: np.ndarray, t: np.ndarray):
    """The terms of θ = (ln a − α·m_N, α, ln b − β·m_D, β, …), m_N and m_D the points' mean ln N and ln D (centring
    decorrelates amplitudes and exponents): (m_N, m_D), ln N − m_N, ln D − m_D, θ → (a·N^-α, b·D^-β), θ → params."""
    centres = float(np.mean(np.log(n))), float(np.mean(np.log(t)))
    ln_n, ln_t = np.log(n) - centres[0], np.log(t) - centres[1]

    def terms(theta):
        return np.exp(theta[0] - theta[1] * ln_n), np.exp(theta[2] - theta[3] * ln_t)

    def amplitudes(theta) -> dict[str, float]:
        return {
            "a": math.exp(theta[0] + theta[1] * centres[0]),
            "alpha": float(theta[1]),
            "b": math.exp(theta[2] + theta[3] * centres[1]),
            "beta": float(theta[3]),
        }

    return centres, ln_n, ln_t, terms, amplitudes


# -- loss law ----------------------------------------------------------------------------------------------------------


def loss_problem(n_params, train_tokens, loss, *, irreducible: bool = False) -> Problem:
    """The loss law L = a·N^-α + b·D^-β [+ E] (eq. 2), residual ln L̂ − ln L;
    θ = (ln a − α·m_N, α, ln b − β·m_D, β[, ln E]) (:func:`_power_terms`), α, β ∈ [0.01, 3]."""
    n, t, y = (np.asarray(v, float) for v in (n_params, train_tokens, loss))
    if np.any(y <= 0):
        raise FitError("loss law: every loss must be positive to be fitted in log space")
    log_y = np.log(y)
    centres, ln_n, ln_t, power_terms, amplitudes = _power_terms(n, t)

    def to_params(theta):
        return {**amplitudes(theta), **({"E": math.exp(theta[4])} if irreducible else {})}

    def terms(theta):
        term_n, term_t = power_terms(theta)
        return term_n, term_t, term_n + term_t + (math.exp(theta[4]) if irreducible else 0.0)

    def residual(theta):
        return np.log(terms(theta)[2]) - log_y

    def jacobian(theta):
        term_n, term_t, total = terms(theta)
        cols = [term_n / total, -ln_n * term_n / total, term_t / total, -ln_t * term_t / total]
        if irreducible:
            cols.append(np.full_like(total, math.exp(theta[4])) / total)
        return np.column_stack(cols)

    def predict(p):
        return forms.loss_law(n, t, p["a"], p["alpha"], p["b"], p["beta"], p.get("E", 0.0))

    k = 5 if irreducible else 4
    _check_points("loss law", y.size, k)
    check_identifiable("loss law", n, t)
    lower = np.array([-30.0, 0.01, -30.0, 0.01] + ([-20.0] if irreducible else []))
    upper = np.array([30.0, 3.0, 30.0, 3.0] + ([math.log(max(y.max(), 1e-6))] if irreducible else []))
    scale = float(np.median(y))
    floor_start = [math.log(max(float(y.min()) / 2, 1e-6))] if irreducible else []
    starts = [
        np.array([math.log(scale / 2), alpha, math.log(scale / 2), beta] + floor_start)
        for alpha in (0.1, 0.3, 0.6)
        for beta in (0.1, 0.3, 0.6)
    ]
    return Problem(
        law="loss",
        names=("ln_a", "alpha", "ln_b", "beta") + (("ln_E",) if irreducible else ()),
        centres=centres,
        to_params=to_params,
        residual=residual,
        predict=predict,
        observed=y,
        lower=lower,
        upper=upper,
        starts=starts,
        jacobian=jacobian,
    )


# -- performance law and composed law share the sigmoid's (c, l, d) handling -------------------------------------------


def _sigmoid_layout(chance: float | None, ceiling: float | None, max_score: float):
    """Which sigmoid amplitudes are free, how θ maps to (c, d), and what the user held fixed: ``chance`` fixes the
    floor d, ``ceiling`` fixes c + d (:func:`check_sigmoid_options`); with no ceiling c = (max_score − d)·u, u ∈ (0, 1]
    (the box-bounded form of c + d ≤ max_score)."""
    check_sigmoid_options(chance, ceiling, max_score)
    free = [name for name, fixed in (("d", chance), ("u", ceiling)) if fixed is None]

    def resolve(names: tuple[str, ...], theta) -> dict[str, float]:  # θ's values by name, c and d among them
        values = dict(zip(names, map(float, theta)))
        d = chance if chance is not None else values["d"]
        return {**values, "c": ceiling - d if ceiling is not None else (max_score - d) * values["u"], "d": d}

    return free, resolve, {name: value for name, value in (("d", chance), ("ceiling", ceiling)) if value is not None}


def _sigmoid_bounds_and_start(free, y, chance, ceiling, max_score):
    """(lower, upper, start) of each free sigmoid amplitude: d (a score's floor, 0 ≤ d < c + d ≤ 1) and u."""
    d0 = chance if chance is not None else max(float(y.min()) - 0.01, 0.0)
    columns = [
        (0.0, float(y.min()) + 1e-6 if y.size else 1.0, d0)
        if name == "d"
        else (1e-4, 1.0, min(1.0, max((float(y.max()) - d0) / (max_score - d0) + 0.02, 0.05)))
        for name in free
    ]
    return tuple(list(column) for column in zip(*columns)) if columns else ([], [], [])


def performance_problem(
    loss, score, *, chance: float | None = None, ceiling: float | None = None, max_score: float = 1.0
) -> Problem:
    """The performance law S = c / (1 + e^{−γ(L − l)}) + d (eq. 3), residual Ŝ − S: θ = (γ, l[, d][, u]) with
    γ ∈ [−200, −1e-3] (score rises as loss falls), l ≥ 0 (a loss) and a free d ≥ 0 (a score's floor); ``chance`` and
    ``ceiling`` fix d and c + d (:func:`_sigmoid_layout`)."""
    x, y = np.asarray(loss, float), np.asarray(score, float)
    free, resolve, fixed = _sigmoid_layout(chance, ceiling, max_score)
    names = ("gamma", "l") + tuple(free)

    def to_params(theta):
        v = resolve(names, theta)
        return {"c": v["c"], "gamma": v["gamma"], "l": v["l"], "d": v["d"]}

    def predict(p):
        return forms.performance_law(x, p["c"], p["gamma"], p["l"], p["d"])

    def residual(theta):
        return predict(to_params(theta)) - y

    _check_points("performance law", y.size, len(names))
    span = float(x.max() - x.min()) or 1.0
    extra_lower, extra_upper, extra_start = _sigmoid_bounds_and_start(free, y, chance, ceiling, max_score)
    lower = [-200.0, max(float(x.min()) - 3 * span, 0.0)] + extra_lower  # l is a loss: ≥ 0 (fit_schema.FIT_DOMAIN)
    upper = [-1e-3, max(float(x.max()) + 3 * span, 1e-6)] + extra_upper
    starts = [
        np.array([gamma * 4 / span, float(np.quantile(x, quantile))] + extra_start)
        for gamma in (-0.5, -2.0, -8.0)
        for quantile in (0.25, 0.5, 0.75)
    ]
    return Problem(
        law="performance",
        names=names,
        to_params=to_params,
        residual=residual,
        predict=predict,
        observed=y,
        lower=np.array(lower),
        upper=np.array(upper),
        starts=starts,
        fixed=fixed,
        max_score=max_score,
    )


def composed_problem(
    n_params, train_tokens, score, *, chance: float | None = None, ceiling: float | None = None, max_score: float = 1.0
) -> Problem:
    """The composed law S = c / (1 + e^{−γ(a·N^-α + b·D^-β − l)}) + d on (N, D, S), γ = −1;
    θ = (ln a − α·m_N, α, ln b − β·m_D, β, l[, d][, u]) (:func:`_power_terms`); residual Ŝ − S; an analytic Jacobian."""
    n, t, y = (np.asarray(v, float) for v in (n_params, train_tokens, score))
    centres, ln_n, ln_t, power_terms, amplitudes = _power_terms(n, t)
    free, resolve, fixed = _sigmoid_layout(chance, ceiling, max_score)
    names = ("ln_a", "alpha", "ln_b", "beta", "l") + tuple(free)
    gamma = -1.0
    check_identifiable("composed law", n, t)

    def to_params(theta):
        v = resolve(names, theta)
        return {**amplitudes(theta), "c": v["c"], "gamma": gamma, "l": v["l"], "d": v["d"]}

    def parts(theta):
        term_n, term_t = power_terms(theta)
        z = np.clip(term_n + term_t - theta[4], -700, 700)  # −γ(L − l) with γ = −1
        return term_n, term_t, 1.0 / (1.0 + np.exp(z))

    def residual(theta):
        p = to_params(theta)
        return p["c"] * parts(theta)[2] + p["d"] - y

    def jacobian(theta):
        p = to_params(theta)
        term_n, term_t, sig = parts(theta)
        dsig_dlatent = -sig * (1.0 - sig)  # d sigmoid / dL for γ = −1
        amp = p["c"] * dsig_dlatent
        cols = [amp * term_n, -amp * ln_n * term_n, amp * term_t, -amp * ln_t * term_t, -amp]
        u = dict(zip(names, theta)).get("u")
        cols += [amplitude_column(name, p, sig, u) for name in free]
        return np.column_stack(cols)

    def amplitude_column(name, p, sig, u):
        """The Jacobian column of a free amplitude parameter: ∂S/∂u with c = (max_score − d)·u, or ∂S/∂d with c =
        ceiling − d (a ceiling given) or c = (max_score − d)·u (none)."""
        if name == "u":
            return (max_score - p["d"]) * sig
        if ceiling is not None:
            return 1.0 - sig
        return 1.0 - u * sig

    def predict(p):
        return forms.composed_law(n, t, p["a"], p["alpha"], p["b"], p["beta"], p["c"], p["gamma"], p["l"], p["d"])

    _check_points("composed law", y.size, len(names))
    extra_lower, extra_upper, extra_start = _sigmoid_bounds_and_start(free, y, chance, ceiling, max_score)
    lower = [-30.0, 0.01, -30.0, 0.01, -50.0] + extra_lower
    upper = [30.0, 3.0, 30.0, 3.0, 50.0] + extra_upper
    starts = [
        np.array([math.log(level), alpha, math.log(level), beta, 2 * level] + extra_start)
        for alpha in (0.1, 0.3, 0.6)
        for beta in (0.1, 0.3, 0.6)
        for level in (1.0, 3.0)
    ]
    return Problem(
        law="composed",
        names=names,
        to_params=to_params,
        residual=residual,
        predict=predict,
        observed=y,
        lower=np.array(lower),
        upper=np.array(upper),
        starts=starts,
        fixed={"gamma": gamma, **fixed},
        max_score=max_score,
        centres=centres,
        jacobian=jacobian,
    )


def theta_from_params(problem: Problem, params: dict[str, float]) -> np.ndarray:
    """Map natural parameters back to ``problem``'s internal θ (for warm starts)."""
    mapped = {
        "u": lambda: params["c"] / (problem.max_score - params["d"]),
        "ln_a": lambda: math.log(params["a"]) - params["alpha"] * problem.centres[0],
        "ln_b": lambda: math.log(params["b"]) - params["beta"] * problem.centres[1],
    }

    def internal(name: str) -> float:
        """One θ entry: a mapped one, the log of a natural parameter (``ln_x``), or the parameter itself."""
        if name in mapped:
            return mapped[name]()
        if name.startswith("ln_"):
            return math.log(params[name[3:]])
        return params[name]

    return np.array([internal(name) for name in problem.names], float)
