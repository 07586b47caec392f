"""Family references: one model family of one recipe, fitted as S(N) at the family's own budget.

The paper's loss→score step is fitted on strong models of one recipe (Xiao et al. 2024, arXiv 2412.04315, §2.2); a
public family plays that role here at its own budget D_f (docs/method.md, "The reference"). At fixed D the paper's two
steps become a sigmoid of a power law of the size; two shapes (``shape=``), each with free (γ, l):

    power:          S(N) = d + c·σ(γ·(u − l)),   u = −(N / N_unit)^−α      (the paper's eqs. 2 and 3 at fixed D)
    logistic_ln_n:  S(N) = d + c·σ(γ·(ln N − l))                           (Ruan et al. 2024, arXiv 2405.10938, eq. 3)

with d the chance level, c + d = 1, γ > 0; power (the default, chosen by ``studies/family_law_shape.py``) fixes
α = 0.34 (Hoffmann et al. 2022, approach 3: :data:`densing.laws.forms.HOFFMANN_2022`) and N_unit = 10⁹, and flattens
toward its asymptote d + c·σ(−γ·l). The fit is by binomial maximum likelihood (:mod:`densing.laws.family_likelihood`,
item counts :data:`densing.data.benchmarks.ITEM_COUNTS`); its uncertainty parametric, (γ, l) drawn from
N(θ̂, φ̂·I(θ̂)⁻¹), φ̂ = max(1, X²/(m − 2)) the Pearson dispersion, draws with γ ≤ 0 redrawn (counted). The inverse,

    x̂(S) = l + logit((S − d)/c) / γ,      N̂ = e^x̂ (logistic_ln_n) or N_unit·(−x̂)^(−1/α) (power),   ρ = N̂ / N

(:func:`densing.laws.reference_fit.invert_scores`; at or above the power asymptote: ``above_ceiling``, a lower bound),
is at D0 = D_f, the geometric mean of the members' token counts: the law has no data term, so no other D0.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from densing.data.benchmarks import CHANCE_LEVELS, ITEM_COUNTS
from densing.errors import FitError, InputError
from densing.laws import forms

# Z_95, LikelihoodFit and metric_for are public here too (`name as name` marks a re-export)
from densing.laws.family_likelihood import Z_95 as Z_95, LikelihoodFit as LikelihoodFit, likelihood_fit
from densing.laws.family_rows import (
    family_arrays,
    family_columns,
    family_order_note,
    metric_for as metric_for,
    table_metric,
)
from densing.laws.fit_schema import POINT_COLUMNS, StageFit, data_hash, r_squared
from densing.laws.forms import HOFFMANN_2022
from densing.laws.reference_fit import ReferenceFit
from densing.validation import BOOTSTRAP_CONSTRAINTS, validate_params

KIND = "family"
#: The family law's shapes (module docstring) and the default.
SHAPES = forms.FAMILY_SHAPES
DEFAULT_SHAPE = "power"
#: The power shape's fixed exponent α and its source (module docstring).
POWER_ALPHA = HOFFMANN_2022.alpha
POWER_ALPHA_SOURCE = f"{HOFFMANN_2022.source}: alpha = {HOFFMANN_2022.alpha}"
LAW_FORMS = {
    "power": "S(N) = c/(1 + exp(-gamma (u - l))) + d, u = -(N / n_unit)^-alpha, d = chance, c + d = 1",
    "logistic_ln_n": "S(N) = c/(1 + exp(-gamma (ln N - l))) + d, d = chance, c + d = 1",
}


def shape_constants(shape: str) -> dict[str, float]:
    """The fixed parameters a family fit of ``shape`` carries: α and N_unit for ``power``, none for ``logistic_ln_n``."""
    if shape not in SHAPES:
        raise InputError(f"shape: expected one of {', '.join(SHAPES)}, got {shape!r}")
    return {"alpha": POWER_ALPHA, "n_unit": forms.POWER_N_UNIT} if shape == "power" else {}


def covariate(sizes, shape: str) -> np.ndarray:
    """The law's covariate of sizes N under ``shape``: ln N, or u = −(N / N_unit)^−α (forms.family_covariate)."""
    fixed = shape_constants(shape)
    return forms.family_covariate(sizes, fixed.get("alpha"), fixed.get("n_unit", forms.POWER_N_UNIT))


@validate_params({"n_boot": BOOTSTRAP_CONSTRAINTS["n_boot"], "seed": BOOTSTRAP_CONSTRAINTS["seed"]})
def fit_family(
    table: pd.DataFrame,
    family: str,
    benchmark: str,
    *,
    metric: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    sizes: dict[str, float] | None = None,
    d0: float | None = None,
    dispersion_floor: float = 1.0,
    provenance: dict | None = None,
    shape: str = DEFAULT_SHAPE,
) -> ReferenceFit:
    """Fit S(N) = c/(1 + e^{−γ(x − l)}) + d on one family at its own budget (module docstring), x = u = −(N/N_unit)^−α
    (``shape="power"``) or ln N (``shape="logistic_ln_n"``); needs two distinct sizes.

    ``table``: a tidy results table with ``family`` (and ``active_params`` for mixtures of experts). ``sizes`` replaces
    members' N (:func:`densing.laws.forms.translate_members`; NaN leaves a member out), ``d0`` the budget they stand at;
    ``dispersion_floor``: the least φ̂. A :class:`ReferenceFit` of kind ``family`` at the family's budget (or ``d0``)
    whose ``provenance`` lists the dropped members and the slope test.
    """
    fixed = shape_constants(shape)
    metric = metric if metric is not None else table_metric(table, benchmark)
    points, dropped = _member_arrays(table, family, benchmark, metric, sizes=sizes)
    chance = CHANCE_LEVELS[benchmark]
    scale = 1.0 - chance
    log_n = covariate(points["params"], shape)
    scores = points["score"]
    where = f"family {family!r}, {benchmark}"
    if np.unique(log_n).size < 2:
        raise FitError(f"{where}: {np.unique(log_n).size} distinct size(s); a family law needs 2")
    found = likelihood_fit(
        log_n, scores, float(ITEM_COUNTS[benchmark]), chance, scale, dispersion_floor=dispersion_floor
    )
    if not found.converged or not math.isfinite(found.slope):
        raise FitError(f"{where}: the likelihood fit does not converge (the scores do not determine the law)")
    if not (found.slope > 0 and math.isfinite(found.level)):
        raise FitError(f"{where}: the score does not rise with size (slope {found.slope:.3g})")
    stage = _stage(log_n, scores, chance, scale, found.slope, found.level, fixed, n_points=scores.size)
    # parametric draws from N(θ̂, φ̂·I⁻¹)
    draws, redraws = (
        found.draws(n_boot, np.random.default_rng(seed))
        if n_boot and np.all(np.isfinite(found.covariance))
        else ([], 0)
    )
    if len(draws) < n_boot:
        raise FitError(f"{where}: the fit's uncertainty cannot be drawn (no rising line)")
    budget = float(np.exp(np.mean(np.log(points["train_tokens"])))) if d0 is None else float(d0)
    record = _record(
        table,
        family,
        benchmark,
        metric,
        points,
        dropped,
        found,
        fixed,
        shape=shape,
        d0=d0,
        n_boot=n_boot,
        redraws=redraws,
        seed=seed,
        dispersion_floor=dispersion_floor,
    )
    record.update(provenance or {})
    return ReferenceFit(
        kind=KIND,
        benchmark=benchmark,
        metric=metric,
        params=dict(stage.params),
        stages=(stage,),
        d0=budget,
        data_hash=data_hash(points, list(POINT_COLUMNS[:4])),
        provenance=record,
        bootstrap_names=("gamma", "l"),
        bootstrap=tuple(draws),
        benchmarks=(benchmark,),
        points=tuple(
            (model, params, tokens, score, None, model)
            for model, params, tokens, score in zip(
                *(points[c].tolist() for c in ("model", "params", "train_tokens", "score"))
            )
        ),
    )


def _member_arrays(table, family, benchmark, metric, *, sizes) -> tuple[dict[str, np.ndarray], dict]:
    """The members :func:`fit_family` fits (:func:`family_arrays`' arrays by size, then name) at the translated
    ``sizes`` when given (one mapped to NaN dropped, under ``no_size_at_d0``), and the dropped lists."""
    members, dropped = family_arrays(table, family, benchmark, metric=metric)
    if sizes is not None:
        translated = np.array([sizes.get(m, np.nan) for m in members["model"].tolist()], float)
        if untranslated := sorted(members["model"][np.isnan(translated)].tolist()):
            dropped["no_size_at_d0"] = untranslated
        keep = ~np.isnan(translated)
        members = {**{k: v[keep] for k, v in members.items()}, "params": translated[keep]}
        order = np.lexsort((members["model"], members["params"]))
        members = {k: v[order] for k, v in members.items()}
    return members, dropped


def _stage(log_n, scores, chance, scale, gamma: float, l: float, fixed: dict, *, n_points: int) -> StageFit:
    """The fitted law as one stage, with its R² and residuals on the members."""
    predicted = forms.performance_law(log_n, scale, gamma, l, chance)
    residuals = predicted - scores
    return StageFit(
        law=KIND,
        params={"c": scale, "gamma": gamma, "l": l, "d": chance, **fixed},
        fixed={"c": scale, "d": chance, **fixed},
        r_squared=r_squared(scores, predicted),
        rmse=float(np.sqrt(np.mean(residuals**2))),
        residuals=tuple(float(v) for v in residuals),
        converged=True,
        message="binomial maximum likelihood (Fisher scoring), covariance φ̂·I⁻¹",
        n_points=n_points,
        cost=float(0.5 * np.sum(residuals**2)),
    )


def _record(
    table,
    family,
    benchmark,
    metric,
    points,
    dropped,
    found,
    fixed,
    *,
    shape,
    d0,
    n_boot,
    redraws,
    seed,
    dispersion_floor,
) -> dict:
    """The fit's provenance: the law, the rule of its budget, the members dropped and kept, the bootstrap, the
    likelihood fit ``found`` (its dispersion and slope test)."""
    from densing import __version__

    low, high = found.slope_interval()
    tokens = np.asarray(points["train_tokens"], float)
    chance = CHANCE_LEVELS[benchmark]
    return {
        "family": family,
        "families": family,
        "benchmarks": [benchmark],
        "metric": metric,
        "chance": chance,
        "ceiling": 1.0,
        "law_form": LAW_FORMS[shape],
        "shape": shape,
        "asymptote": float(forms.family_asymptote(1.0 - chance, found.slope, found.level, chance, fixed.get("alpha"))),
        **({"alpha_source": POWER_ALPHA_SOURCE, **fixed} if fixed else {}),
        "method": "binomial",
        "d0_rule": (
            "geometric mean of the fitted members' training tokens"
            if d0 is None
            else "the budget the members' sizes were translated to"
        ),
        "token_ratio": float(tokens.max() / tokens.min()),
        "dropped": {k: v for k, v in dropped.items() if v},
        "excluded": [],  # a field of every family fit file: no member is left out by name
        "order_breaks": family_order_note(table, family, points["model"]),  # flagged members: kept or left out
        "members": family_columns(table, family)["members"].tolist(),
        "n_boot": n_boot,
        "n_boot_redrawn": redraws,
        "bootstrap_unit": "parametric: N(θ̂, φ̂·I⁻¹) of the likelihood",
        "seed": seed,
        "densing_version": __version__,
        "items": float(ITEM_COUNTS[benchmark]),
        "dispersion": found.dispersion,
        "own_dispersion": found.own_dispersion,
        "dispersion_floor": float(dispersion_floor),
        "slope_stderr": found.slope_stderr,
        "slope_ci": [low, high],
        "log_likelihood": found.log_likelihood,
    }


# -- a family law's held-out check: refit without its largest member, predict that member ------------------------------


def held_out_problem(members: dict, family: str, benchmark: str, items: float, shape: str) -> tuple:
    """The reference rule's held-out refit (R5z) as (covariate, scores, items) of every member but the largest (the last
    of ``members``, sorted by size); FitError with fewer than 3 sizes."""
    params = np.asarray(members["params"], float)
    if np.unique(params).size < 3:
        raise FitError(
            f"family {family!r}, {benchmark}: {np.unique(params).size} size(s); holding the largest out needs 3"
        )
    return covariate(params[:-1], shape), np.asarray(members["score"], float)[:-1], items


def held_out_result(found, members: dict, family: str, benchmark: str, items: float, shape: str) -> dict:
    """The held-out test of the largest member from the refit ``found`` (a :class:`LikelihoodFit` of
    :func:`held_out_problem`): its score within noise,

        z = (Ŝ − S) / √(se(Ŝ)² + φ̂·S(1 − S)/n)

    Ŝ the refit's prediction at the held-out size, se(Ŝ) its delta-method standard error from φ̂·I⁻¹, φ̂ = max(1,
    the dispersion floor, the refit's own), n the item count (|z| ≤ 1.96 with probability about 0.95 for a family
    that follows the law). Returns ``held_out``, ``measured``, ``predicted``, ``predicted_stderr``, ``measured_stderr``,
    ``z``, ``relative_error``, ``dispersion`` (φ̂), ``items`` (n) and ``slope`` (γ).
    """
    largest_model, largest_params = str(members["model"][-1]), float(members["params"][-1])
    if not found.converged:
        raise FitError(f"family {family!r}, {benchmark}: the refit without {largest_model} does not converge")
    predicted, spread = found.predict(covariate(largest_params, shape))
    measured = float(members["score"][-1])
    noise = math.sqrt(found.dispersion * measured * (1 - measured) / items)
    total = math.sqrt(float(spread) ** 2 + noise**2)
    z = (float(predicted) - measured) / total if total > 0 else math.inf
    return {
        "held_out": largest_model,
        "measured": measured,
        "predicted": float(predicted),
        "predicted_stderr": float(spread),
        "measured_stderr": noise,
        "z": z,
        "relative_error": abs(float(predicted) - measured) / measured if measured > 0 else math.inf,
        "dispersion": found.dispersion,
        "items": items,
        "slope": found.slope,
    }
