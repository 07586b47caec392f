"""The family laws' arithmetic that every version of the joint inversion (:mod:`densing.laws.joint`) shares.

A family law per benchmark b, S_b(x) = d_b + c_b·σ(γ_b·(v(x) − l_b)), x = ln N̂, v(x) = x (logistic_ln_n) or
u(x) = −exp(−α·(x − ln N_unit)), u' = −α·u, u'' = α²·u (power; :mod:`densing.laws.family`): its parameters as arrays
(:func:`family_columns`), its value and derivatives (:func:`_predict`), the fit's bootstrap variance of its prediction
(:func:`prediction_variance`), each score read alone (:func:`readings`) and the weighted mean of such readings
(:func:`start_points`). Every function works elementwise per (draw, model), so a model's numbers never depend on the
models beside it.
"""

from __future__ import annotations

import math

import numpy as np

from densing.errors import InputError
from densing.laws import forms
from densing.laws.reference_fit import ReferenceFit

LOG_SIZE_LOW = math.log(1e5)
LOG_SIZE_HIGH = math.log(1e15)


def family_columns(fits: list[ReferenceFit], picks: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The family laws' parameters as arrays of shape (draws, 1, B): point values, or the draws ``picks``; with
    ``alpha`` and ``n_unit`` when the laws are of the power shape (every fit of one shape)."""
    for fit in fits:
        if fit.has_data_term:
            raise InputError(
                f"fits: the joint inversion takes family references; {fit.kind}:{fit.benchmark} is not one"
            )
    shapes = {"alpha" in fit.params for fit in fits}
    if len(shapes) > 1:
        raise InputError("fits: the joint inversion takes family laws of one shape; these mix power and logistic_ln_n")
    names = ("c", "gamma", "l", "d") + (("alpha", "n_unit") if shapes == {True} else ())
    if picks is None:
        return {k: np.array([[[float(f.params[k]) for f in fits]]]) for k in names}
    picks = np.asarray(picks)
    return {k: np.stack([f.bootstrap_columns[k][picks].reshape(-1) for f in fits], axis=-1)[:, None, :] for k in names}


def _constants(p: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The law's parameters as :func:`_latent` and :func:`_predict` use them: l, d, −γ, c·γ and, for power laws,
    −α, ln N_unit and α² (computed once per solve, not once per step; a dict that has them passes through)."""
    if "c·gamma" in p:
        return p
    q = {
        "l": p["l"],
        "d": p["d"],
        "c": p["c"],
        "gamma": p["gamma"],
        "-gamma": -p["gamma"],
        "c·gamma": p["c"] * p["gamma"],
    }
    if "alpha" in p:
        q.update({"-alpha": -p["alpha"], "ln n_unit": np.log(p["n_unit"]), "alpha²": p["alpha"] * p["alpha"]})
    return q


def _latent(q: dict[str, np.ndarray], x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The law's covariate at x = ln N and its first two derivatives: (x, 1, 0) for logistic_ln_n;
    u = −exp(−α·(x − ln N_unit)), u' = −α·u, u'' = α²·u for power (module docstring); ``q`` from :func:`_constants`."""
    x = np.asarray(x, float)
    if "-alpha" not in q:
        return x, np.ones_like(x), np.zeros_like(x)
    u = np.exp(np.clip(q["-alpha"] * (x - q["ln n_unit"]), -700, 700))
    np.negative(u, out=u)
    return u, q["-alpha"] * u, q["alpha²"] * u


def _predict(p: dict[str, np.ndarray], x: np.ndarray, second: bool = False):
    """S_b(x) and dS_b/dx (and d²S_b/dx² with ``second``) for x of shape (draws, models, 1).

    S = d + c·σ(γ·(v − l)), v the covariate (:func:`_latent`): S' = c·γ·σ(1−σ)·v',
    S'' = c·γ·σ(1−σ)·(γ·(1 − 2σ)·v'² + v'')."""
    q = _constants(p)
    v, dv, d2v = _latent(q, x)
    s = q["-gamma"] * (v - q["l"])  # −γ·(v − l): σ = 1 / (1 + e^(−γ·(v − l)))
    np.clip(s, -700, 700, out=s)
    np.exp(s, out=s)
    s += 1.0
    np.divide(1.0, s, out=s)
    core = q["c·gamma"] * s
    rest = np.subtract(1, s)
    core *= rest
    curve = None
    if second:
        curve = np.multiply(2, s, out=rest)
        np.subtract(1, curve, out=curve)
        curve *= q["gamma"]
        curve *= dv
        curve *= dv
        curve += d2v
        curve *= core
    slope = np.multiply(core, dv, out=core)
    value = np.multiply(q["c"], s, out=s)
    value += q["d"]
    return (value, slope, curve) if second else (value, slope)


def prediction_variance(fits: list[ReferenceFit], x: np.ndarray) -> np.ndarray:
    """τ_b² at x (models,): the variance of S_b(x) over each fit's bootstrap draws, shape (models, B)."""
    out = np.zeros((np.size(x), len(fits)))
    for j, fit in enumerate(fits):
        if not fit.bootstrap:
            continue
        p = fit.bootstrap_columns
        alpha, unit = forms.family_alpha(p), p.get("n_unit", forms.POWER_N_UNIT)  # without n_unit: the default
        if alpha is not None:  # α fixed (not drawn): one covariate per model
            alpha, unit = _single(np.asarray(alpha, float)), _single(np.asarray(unit, float))
        v = forms.family_covariate(np.exp(np.asarray(x, float))[None, :], alpha, unit)
        pred = forms.performance_law(v, p["c"], p["gamma"], p["l"], p["d"])
        # each model's variance over its own contiguous row of draws: the same bits whatever models stand beside it
        out[:, j] = np.var(np.ascontiguousarray(np.broadcast_to(pred, (len(pred), np.size(x))).T), axis=1)
    return out


def _single(a: np.ndarray) -> np.ndarray:
    """``a`` with each axis along which it holds one number (the same bits) cut to length 1."""
    for axis in range(a.ndim):
        first = a[(slice(None),) * axis + (slice(0, 1),)]
        if a.shape[axis] > 1 and np.all((a == first) & (np.signbit(a) == np.signbit(first))):
            a = first
    return a


def _inverted(p: dict[str, np.ndarray], u: np.ndarray) -> np.ndarray:
    """x_b = ln N̂_b of the shares u = (S_b − d_b)/c_b: v = l_b + logit(u)/γ_b (power: ln N_unit − ln(−v)/α)."""
    v = p["l"] + np.log(u / (1 - u)) / p["gamma"]
    if "alpha" not in p:
        return v
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v < 0, np.log(p["n_unit"]) - np.log(np.where(v < 0, -v, 1.0)) / p["alpha"], np.inf)


def start_points(p: dict[str, np.ndarray], scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """x₀: the weighted mean of the per-benchmark inversions x_b of l_b + logit((S_b − d_b)/c_b)/γ_b (:func:`readings`,
    clipped to the grid)."""
    x = readings(p, scores)
    w = np.where(np.isnan(scores), 0.0, weights)
    return _in_order(w * np.nan_to_num(x)) / np.maximum(_in_order(w), 1e-300)


def _in_order(terms: np.ndarray) -> np.ndarray:
    """The sum over the last axis (the benchmarks), added first to last for every element alike: numpy's own
    reduction may add a few terms in another order depending on the array's shape, and a model's size must not
    depend on the models and draws solved beside it."""
    terms = np.asarray(terms, float)
    total = terms[..., 0].copy()
    for b in range(1, terms.shape[-1]):
        total += terms[..., b]
    return total


def readings(p: dict[str, np.ndarray], scores: np.ndarray) -> np.ndarray:
    """x_b, each benchmark's score read alone (module docstring), shape of ``scores``: the share clipped to
    [10⁻⁶, 1 − 10⁻⁶] and the size to the grid (the readings :func:`start_points` averages)."""
    u = np.clip((scores - p["d"]) / p["c"], 1e-6, 1 - 1e-6)
    return np.clip(_inverted(p, u), LOG_SIZE_LOW, LOG_SIZE_HIGH)
