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
from densing.laws.joint_law import (  # the shared arithmetic, named here for the callers of this module
    LOG_SIZE_HIGH as LOG_SIZE_HIGH,
    LOG_SIZE_LOW as LOG_SIZE_LOW,
    _inverted,
    _predict,
    family_columns as family_columns,
    prediction_variance,
    readings,
    start_points,
)
from densing.laws.joint_score import (  # the score-space versions, kept beside the rule
    ITERATIONS as ITERATIONS,
    MAX_ROUNDS as MAX_ROUNDS,
    MAX_STEP as MAX_STEP,
    TOLERANCE as TOLERANCE,
    _effective_weights,
    _solve_at_solution,
    solve,
)
from densing.laws.reference_fit import ReferenceFit
from densing.results import Result
from densing.validation import Options, validate_params

#: Where the weights are taken (module docstring): at the joint solution (the rule) or at the start point (the first
#: version).
WEIGHTS_AT = ("solution", "start")


#: Where the readings are pooled (module docstring): in ln N (the rule) or in score (the first two versions).
SPACES = ("ln_n", "score")


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
    if skill == "none":
        s2 = 0.0
    elif skill2 is None:
        s2 = skill_variance(fits, scores, stderr)
    else:
        s2 = float(skill2)
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
