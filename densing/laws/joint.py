"""One effective size per model from all of its scores at once (beyond the paper; docs/method.md, "One inversion over
all benchmarks").

Given one family law per benchmark b, S_b(x) = d_b + c_b·σ(γ_b·(v(x) − l_b)) with x = ln N̂ and v(x) = x
(logistic_ln_n) or u(x) = −exp(−α·(x − ln N_unit)), u' = −α·u, u'' = α²·u (power; :mod:`densing.laws.family`), a
model's scores S_b with standard errors σ_b give one size x̂ (docs/method.md, "Each benchmark read in ln N"):

**The rule, in ln N** (``space="ln_n"``). Each benchmark's score is read alone, x_b = l_b + logit(u_b)/γ_b (power: its
ln N), u_b = (S_b − d_b)/c_b clipped to [10⁻⁶, 1 − 10⁻⁶], and the readings are pooled by their random-effects weights
taken at each reading (DerSimonian & Laird 1986; the delta method for a reading's measurement variance):

    x̂ = Σ_b w_b·x_b / Σ_b w_b,     w_b = 1 / (s² + (σ_b² + τ_b²(x_b)) / S_b'(x_b)²),     τ_b² = Var_k[S_b^(k)(x_b)]

τ_b² the variance of the prediction over the fit's bootstrap draws k. A reading on a flat part of its law (near a
floor or a ceiling) has a small slope and so a small weight. Closed form, within [ln 10⁵, ln 10¹⁵] (an x̂ at an edge is
censored); χ² is Σ_b w_b (x_b − x̂)².

**The score-space versions** (``space="score"``), kept beside it: x̂ minimises the effective-variance chi-square
(Orear 1982, Am. J. Phys. 50)

    χ²(x) = Σ_b (S_b − S_b(x))² / (σ_b² + τ_b² + S_b'(x*)²·s²),

by safeguarded Newton steps, with τ_b² and S_b' taken at x* = the start point x₀ (the weighted mean of the
per-benchmark inversions; ``weights_at="start"``, the first version, one solve) or at the solution itself
(``weights_at="solution"``, the second: weights at x₀, solve, weights at that x̂, solve again from it, until no
model's x̂ moves by more than :data:`ROUND_TOLERANCE`, at most :data:`MAX_ROUNDS` rounds; a model still moving then is
solved once more with the mean of its last two rounds' weights).
The benchmarks' disagreement is a random effect (DerSimonian & Laird 1986): x_b = x + δ_b + noise, δ_b ~ N(0, s²), the
*skill variance* s² pooled over the models by the method of moments,

    s² = max(0, mean over models of [Var_b(x_b) − mean_b (σ_b / S_b'(x_b))²])

(models whose every score lies inside (d + 2σ, c + d − 2σ)); the per-model interval draws it too (score noise of sd
√(σ_b² + S_b'(x̂)²·s²)). The Birge ratio √(χ²/(B − 1)) (Birge 1932) is kept as a diagnostic. ``skill="none"`` is the
first version (no s², the interval's noise scaled by the Birge ratio where it exceeds 1), kept as a variant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from densing.errors import InputError
from densing.laws import forms
from densing.laws.reference_fit import ReferenceFit
from densing.results import Result
from densing.validation import Options, validate_params

LOG_SIZE_LOW = math.log(1e5)
LOG_SIZE_HIGH = math.log(1e15)
ITERATIONS = 30
MAX_STEP = 2.0
#: A (draw, model) whose Newton step moves ln N̂ by less than this has converged (:func:`solve`).
TOLERANCE = 1e-8
#: Where the weights are taken (module docstring): at the joint solution (the rule) or at the start point (the first
#: version).
WEIGHTS_AT = ("solution", "start")
#: Where the readings are pooled (module docstring): in ln N (the rule) or in score (the first two versions).
SPACES = ("ln_n", "score")
#: The most rounds of weights-then-solve (:func:`invert_joint`), and how far a model's x̂ may move in its last round
#: and count as settled.
MAX_ROUNDS = 20
ROUND_TOLERANCE = 1e-6


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
        out[:, j] = np.var(pred, axis=0)
    return out


def _nansum(terms: np.ndarray) -> np.ndarray:
    """np.nansum over the first axis (a few benchmarks), keeping it: where no term is NaN, the terms added first to
    last, as numpy's sum adds so few (the same number: ``tests/laws/test_joint.py`` holds the solve to np.nansum's)."""
    if not len(terms):
        return np.nansum(terms, axis=0, keepdims=True)
    total = terms[:1] + terms[1:2] if len(terms) > 1 else terms[:1].copy()
    for b in range(2, len(terms)):
        total += terms[b : b + 1]
    return np.nansum(terms, axis=0, keepdims=True) if np.isnan(total).any() else total


def _moved(p: dict[str, np.ndarray], x: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """x after one safeguarded Newton step (:func:`solve`), arrays broadcast to (B, ...), x of shape (1, ...)."""
    pred, slope, curve = _predict(p, x, second=True)
    residual = np.subtract(scores, pred, out=pred)
    weighted = weights * slope
    gauss = _nansum(np.multiply(weighted, slope, out=slope))
    num = _nansum(np.multiply(weighted, residual, out=weighted))
    residual *= weights
    residual *= curve
    newton = gauss - _nansum(residual)
    den = np.where(newton > 0.1 * gauss, newton, gauss)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(den > 0, num / den, np.sign(num) * MAX_STEP)
    step[np.isnan(step)] = 0.0
    np.clip(step, -MAX_STEP, MAX_STEP, out=step)
    step += x
    return np.clip(step, LOG_SIZE_LOW, LOG_SIZE_HIGH, out=step)


def solve(p: dict[str, np.ndarray], scores: np.ndarray, weights: np.ndarray, start: np.ndarray) -> np.ndarray:
    """x̂ minimising Σ_b w_b (S_b − S_b(x))² by safeguarded Newton steps; arrays broadcast to (draws, models, B).

    The curvature is Σ w (S'² − r·S''), r = S − S(x) (Newton: quadratic convergence even when the benchmarks
    disagree), or the Gauss–Newton Σ w S'² where it is not positive. Steps are clipped to ±2 in ln N and x to its
    range. Each (draw, model) stops on its own, once a step moves it by less than :data:`TOLERANCE` (that step kept)
    or after 30 steps, so its value never depends on the others solved beside it. The arrays are held benchmarks
    first, (B, draws, models), a constant along an axis cut to length 1 there (a power law's α); the rows still
    moving are gathered from them.
    """
    x = np.clip(np.asarray(start, float), LOG_SIZE_LOW, LOG_SIZE_HIGH)[..., None]
    if x.size == 0:  # no model: nothing to solve
        return x[..., 0]
    shape = np.broadcast_shapes(x.shape, np.shape(scores), np.shape(weights), *(np.shape(v) for v in p.values()))
    models = shape[-2] if len(shape) > 1 else 1

    def cube(a):  # a as (B, draws, models), contiguous; an axis it is broadcast along (stride 0) of length 1
        a = np.asarray(a, float)
        a = a[tuple(slice(0, 1) if step == 0 else slice(None) for step in a.strides)]
        return np.ascontiguousarray(np.moveaxis(a.reshape((-1,) + ((1, 1) + a.shape)[-2:]), -1, 0))

    def gathered(a):  # (B or 1, rows or 1): the active (draw, model) rows
        at = (active if a.shape[2] > 1 else draw) if a.shape[1] > 1 else (model if a.shape[2] > 1 else None)
        return a.reshape(len(a), -1) if at is None else np.take(a.reshape(len(a), -1), at, axis=1)

    law = {k: _single(cube(v)) for k, v in _constants(p).items()}
    law_scores, law_weights = cube(scores), cube(weights)
    pa, sa, wa = law, law_scores, law_weights
    xa = np.broadcast_to(cube(x), (1, math.prod(shape[:-2]), models)).copy()  # one row per (draw, model)
    out, active = xa.reshape(-1), np.arange(xa.size)
    done = np.zeros(len(out), bool)  # rows of the arrays that have converged: they stay where they are
    for _ in range(ITERATIONS):
        moved = _moved(pa, xa, sa, wa)
        flat, xa = moved.reshape(-1), xa.reshape(-1)
        np.copyto(flat, xa, where=done)  # before out is written: xa may be out itself
        done |= np.abs(flat - xa) < TOLERANCE  # a size pinned at the range's edge no longer moves
        out[active] = flat
        if done.all():
            break
        if done.sum() > 0.3 * len(done):  # the converged rows leave the arrays, gathered from the whole ones
            going = np.flatnonzero(~done)
            active, xa, done = active[going], flat[going][None], np.zeros(len(going), bool)
            draw = active // models
            model = active - draw * models
            pa = {k: gathered(v) for k, v in law.items()}
            sa, wa = gathered(law_scores), gathered(law_weights)
        else:
            xa = moved
    return out.reshape(shape[:-1])


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
    """x₀: the weighted mean of the per-benchmark inversions x_b of l_b + logit((S_b − d_b)/c_b)/γ_b (clipped to the grid)."""
    u = np.clip((scores - p["d"]) / p["c"], 1e-6, 1 - 1e-6)
    x = np.clip(_inverted(p, u), LOG_SIZE_LOW, LOG_SIZE_HIGH)
    w = np.where(np.isnan(scores), 0.0, weights)
    return np.sum(w * np.nan_to_num(x), axis=-1) / np.maximum(np.sum(w, axis=-1), 1e-300)


SKILLS = ("pooled", "none")


@dataclass(frozen=True)
class JointInversion(Result):
    """The joint effective size of each model: x̂ = ln N̂, its censoring, τ², the skill variance, χ², Birge ratio,
    and beside it each benchmark's own inversion (the paper's, one benchmark at a time).

    ``to_dict()``: every field, arrays as nested lists (a non-finite number as None); ``to_frame()``: one row per
    model — ``log_size``, ``effective_params`` (N̂ = e^x̂), ``censored``, ``chi2``, ``birge_ratio``, ``rounds``,
    ``settled``, then per
    benchmark b (0-based, in the fits' order) ``per_benchmark_size_b``, ``weight_b``, ``tau2_b``, ``slope_b``;
    ``summary()``: the counts, s² and the Birge ratios' median; ``conf_int()``: no rows (a point solve has no
    intervals)."""

    log_size: np.ndarray  # (models,)
    censored: np.ndarray  # (models,) '' / 'below_range' / 'above_range'
    tau2: np.ndarray  # (models, B): at each reading x_b (ln N) or where the weights are taken (score)
    skill2: float  # s², (ln N)²
    weights: np.ndarray  # (models, B): ln N: 1 / (s² + (σ² + τ²)/S'(x_b)²); score: 1 / (σ² + τ² + S'²·s²)
    slope: np.ndarray  # (models, B): S_b'(x̂)
    chi2: np.ndarray  # (models,)
    birge_ratio: np.ndarray  # (models,) sqrt(χ²/(B − 1)), NaN for B = 1
    per_benchmark_size: np.ndarray  # (models, B): N̂_b, benchmark b's score inverted alone at its fit's D0
    rounds: np.ndarray  # (models,) rounds of weights-then-solve the model took (1 in ln N and with weights_at="start")
    settled: np.ndarray  # (models,) bool: its last round moved x̂ by at most ROUND_TOLERANCE

    _PER_BENCHMARK = (
        ("per_benchmark_size", "per_benchmark_size"),
        ("weight", "weights"),
        ("tau2", "tau2"),
        ("slope", "slope"),
    )

    def to_dict(self) -> dict:
        def plain(value):
            if isinstance(value, np.ndarray):
                return [plain(v) for v in value.tolist()]
            if isinstance(value, list):
                return [plain(v) for v in value]
            return None if isinstance(value, float) and not math.isfinite(value) else value

        return {name: plain(getattr(self, name)) for name in self._fields()}

    def to_frame(self):
        """One row per model (class docstring)."""
        import pandas as pd

        columns = {
            "log_size": self.log_size,
            "effective_params": np.exp(self.log_size),
            "censored": self.censored,
            "chi2": self.chi2,
            "birge_ratio": self.birge_ratio,
            "rounds": self.rounds,
            "settled": self.settled,
        }
        for prefix, name in self._PER_BENCHMARK:
            values = np.asarray(getattr(self, name))
            for b in range(values.shape[1] if values.ndim == 2 else 0):
                columns[f"{prefix}_{b}"] = values[:, b]
        return pd.DataFrame(columns)

    def _summary_items(self) -> list[tuple[str, object]]:
        censored = list(self.censored)
        birge = self.birge_ratio[np.isfinite(self.birge_ratio)]
        return [
            ("models", len(self.log_size)),
            ("benchmarks", int(np.shape(self.weights)[-1])),
            ("skill2", float(self.skill2)),
            ("below_range", censored.count("below_range")),
            ("above_range", censored.count("above_range")),
            ("median_birge_ratio", float(np.median(birge)) if len(birge) else math.nan),
            ("unsettled", int(np.sum(~np.asarray(self.settled, bool)))),
        ]


def skill_variance(fits: list[ReferenceFit], scores, stderr) -> float:
    """s², the between-benchmark variance of a model's per-benchmark sizes (module docstring); 0 if not estimable."""
    scores = np.asarray(scores, float)
    sigma = np.nan_to_num(np.asarray(stderr, float))
    if scores.shape[1] < 2:
        return 0.0
    p = family_columns(fits)
    point = {k: v[0] for k, v in p.items()}
    d, c = point["d"], point["c"]
    top = forms.family_asymptote(c, point["gamma"], point["l"], d, point.get("alpha"))
    inside = np.all((scores > d + 2 * sigma) & (scores < top - 2 * sigma), axis=1)
    if inside.sum() < 3:
        return 0.0
    x = _inverted(point, (scores[inside] - d) / c)
    slope = _predict(point, x)[1]
    measurement = np.mean(np.square(sigma[inside] / slope), axis=1)
    return float(max(0.0, np.mean(np.var(x, axis=1, ddof=1) - measurement)))


def _effective_weights(
    fits: list[ReferenceFit], p: dict[str, np.ndarray], x: np.ndarray, sigma2: np.ndarray, s2: float
) -> tuple[np.ndarray, np.ndarray]:
    """(τ², weights) at x (models,): τ_b²(x) the fits' bootstrap variance of S_b(x) and the effective-variance
    weights 1 / (σ_b² + τ_b²(x) + S_b'(x)²·s²) (Orear 1982), each of shape (models, B)."""
    tau2 = prediction_variance(fits, x)
    _, slope = _predict(p, np.asarray(x, float)[None, :, None])
    return tau2, 1.0 / np.maximum(sigma2 + tau2 + np.square(slope[0]) * s2, 1e-12)


def _solve_at_solution(
    fits: list[ReferenceFit],
    p: dict[str, np.ndarray],
    scores: np.ndarray,
    sigma2: np.ndarray,
    s2: float,
    x: np.ndarray,
    weights: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The weights-then-solve rounds of ``weights_at="solution"`` (module docstring), from the first round's ``x``
    (solved with ``weights``, those at x₀): returns (x̂, τ², weights, rounds, settled), the weights those x̂ was
    solved with. Each model's rounds are its own: a settled model stops, so its x̂ never depends on the models beside
    it. A model still moving after :data:`MAX_ROUNDS` rounds is solved once more with the mean of its last two
    rounds' weights (the two points of a cycle), and stays marked unsettled."""
    models = len(x)
    x = np.array(x, float)
    weights = np.array(weights, float)
    tau2 = np.zeros_like(weights)
    rounds = np.ones(models, int)
    settled = np.zeros(models, bool)
    active = np.arange(models)
    previous = weights.copy()  # each model's weights of its round before the last
    for _ in range(MAX_ROUNDS - 1):
        if not len(active):
            break
        new_tau2, new_weights = _effective_weights(fits, p, x[active], sigma2[active], s2)
        moved_x = solve(p, scores[None, active], new_weights[None], x[None, active])[0]
        previous[active], weights[active], tau2[active] = weights[active], new_weights, new_tau2
        rounds[active] += 1
        now_settled = np.abs(moved_x - x[active]) <= ROUND_TOLERANCE
        x[active] = moved_x
        settled[active[now_settled]] = True
        active = active[~now_settled]
    if len(active):  # a cycle: once more, with the mean of its two points' weights
        weights[active] = 0.5 * (weights[active] + previous[active])
        x[active] = solve(p, scores[None, active], weights[None, active], x[None, active])[0]
        tau2[active] = prediction_variance(fits, x[active])
    return x, tau2, weights, rounds, settled


def readings(p: dict[str, np.ndarray], scores: np.ndarray) -> np.ndarray:
    """x_b, each benchmark's score read alone (module docstring), shape of ``scores``: the share clipped to
    [10⁻⁶, 1 − 10⁻⁶] and the size to the grid, as :func:`start_points` reads them."""
    u = np.clip((scores - p["d"]) / p["c"], 1e-6, 1 - 1e-6)
    return np.clip(_inverted(p, u), LOG_SIZE_LOW, LOG_SIZE_HIGH)


def reading_weights(
    fits: list[ReferenceFit], p: dict[str, np.ndarray], x_b: np.ndarray, sigma2: np.ndarray, s2: float
) -> tuple[np.ndarray, np.ndarray]:
    """(τ², weights) of the readings ``x_b`` (models, B): τ_b²(x_b) the fits' bootstrap variance of S_b at the
    reading, and the random-effects weights 1 / (s² + (σ_b² + τ_b²(x_b)) / S_b'(x_b)²) (module docstring)."""
    tau2 = np.column_stack([prediction_variance([fit], x_b[:, j])[:, 0] for j, fit in enumerate(fits)])
    _, slope = _predict(p, x_b[None])
    measurement = (sigma2 + tau2) / np.maximum(np.square(slope[0]), 1e-300)
    return tau2, 1.0 / np.maximum(s2 + measurement, 1e-12)


def _pooled_readings(
    fits: list[ReferenceFit], p: dict[str, np.ndarray], scores: np.ndarray, sigma2: np.ndarray, s2: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rule in ln N (module docstring): (x̂, τ², weights, χ²) per model; a benchmark without a score has no
    weight."""
    x_b = readings(p, scores[None])[0]
    tau2, weights = reading_weights(fits, p, np.nan_to_num(x_b), sigma2, s2)
    weights = np.where(np.isnan(scores), 0.0, weights)
    x = start_points(p, scores[None], weights[None])[0]
    chi2 = np.nansum(weights * np.square(x_b - x[:, None]), axis=-1)
    return x, tau2, weights, chi2


@validate_params({"skill": [Options(SKILLS)], "weights_at": [Options(WEIGHTS_AT)], "space": [Options(SPACES)]})
def invert_joint(
    fits: list[ReferenceFit],
    scores,
    stderr,
    *,
    skill: str = "pooled",
    skill2: float | None = None,
    weights_at: str = "solution",
    space: str = "ln_n",
) -> JointInversion:
    """x̂ per model (module docstring); ``scores`` and ``stderr`` of shape (models, B), B = len(fits).

    A missing score (NaN) is a benchmark the model was not scored on: no term in χ², no weight in the start point, and
    the model left out of the skill variance's estimate; a model needs one score. ``skill="pooled"`` estimates s² from
    these models (or takes ``skill2``); ``"none"`` sets it to 0. ``space="ln_n"`` (the rule) pools the benchmarks'
    own readings in ln N; ``space="score"`` solves the score-space chi-square with each benchmark's effective variance
    at the model's own x̂, iterated (``weights_at="solution"``, the second version), or at x₀, one solve
    (``"start"``, the first).
    """
    if not isinstance(fits, (list, tuple)) or not fits or not all(isinstance(f, ReferenceFit) for f in fits):
        raise InputError(f"fits: expected a non-empty list of ReferenceFit, got {str(fits)[:80]}")
    try:
        scores, stderr = np.asarray(scores, float), np.asarray(stderr, float)
    except (TypeError, ValueError):
        raise InputError("scores, stderr: expected numbers (arrays of shape (models, len(fits)))") from None
    for name, array, bad in (
        ("scores", scores, (scores < 0) | (scores > 1) | np.isinf(scores)),
        ("stderr", stderr, (stderr < 0) | np.isinf(stderr)),
    ):
        if np.any(bad):  # the first one named: its model (row) and benchmark (column, fits' order)
            at = tuple(int(i) for i in np.argwhere(np.atleast_1d(bad))[0])
            named = len(at) > 1 and at[1] < len(fits)
            where = f"model {at[0]}" + (f", benchmark {fits[at[1]].benchmark}" if named else "")
            expected = "a score in [0, 1]" if name == "scores" else "a standard error ≥ 0 (NaN for none)"
            raise InputError(f"{name} ({where}): expected {expected}, got {np.atleast_1d(array)[at]:g}")
    sigma2 = np.square(np.nan_to_num(stderr))
    if scores.ndim != 2 or scores.shape[1] != len(fits):
        raise InputError(f"scores: expected shape (models, {len(fits)}), got {scores.shape}")
    s2 = 0.0 if skill == "none" else (skill_variance(fits, scores, stderr) if skill2 is None else float(skill2))
    p = family_columns(fits)
    rounds, settled = np.ones(len(scores), int), np.ones(len(scores), bool)
    if space == "ln_n":
        x, tau2, weights, chi2 = _pooled_readings(fits, p, scores, sigma2, s2)
        _, slope = _predict(p, x[None, :, None])
    else:
        first = start_points(p, scores[None], 1.0 / np.maximum(sigma2, 1e-12)[None])[0]
        tau2, weights = _effective_weights(fits, p, first, sigma2, s2)
        x = solve(p, scores[None], weights[None], start_points(p, scores[None], weights[None]))[0]
        if weights_at == "solution":
            x, tau2, weights, rounds, settled = _solve_at_solution(fits, p, scores, sigma2, s2, x, weights)
        pred, slope = _predict(p, x[None, :, None])
        chi2 = np.nansum(weights * (scores - pred[0]) ** 2, axis=-1)
    n_b = np.sum(~np.isnan(scores), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        birge = np.where(n_b > 1, np.sqrt(chi2 / np.maximum(n_b - 1, 1)), np.nan)
    censored = np.where(x <= LOG_SIZE_LOW + 1e-9, "below_range", np.where(x >= LOG_SIZE_HIGH - 1e-9, "above_range", ""))
    alone = np.full(scores.shape, np.nan)  # N̂_b of each benchmark's scores inverted alone; NaN where a model has none
    for b, fit in enumerate(fits):
        scored = ~np.isnan(scores[:, b])
        if scored.any():
            alone[scored, b] = fit.invert(scores[scored, b])[1]
    return JointInversion(
        log_size=x,
        censored=censored.astype(object),
        tau2=tau2,
        skill2=s2,
        weights=weights,
        slope=slope[0],
        chi2=chi2,
        birge_ratio=birge,
        per_benchmark_size=alone,
        rounds=rounds,
        settled=settled,
    )
