"""Family references: one model family of one recipe, fitted as S(N) at the family's own budget.

The Densing Law paper (Xiao et al. 2024, arXiv 2412.04315, §2.2) fits its loss→score step on
strong, well-trained models of one recipe (MiniCPM-3 checkpoints up to tens of billions of
parameters) so that the performance law never has to be extrapolated to frontier scores. A public
family of one recipe, evaluated in the same format as the targets, plays that role here, at the
family's own training budget D_f. At fixed D the loss law's data term b·D^-β is a constant, and
the two steps collapse to one sigmoid of the model size; densing takes it over ln N, as
observational scaling laws do (Ruan et al. 2024, arXiv 2405.10938, eq. 3: a sigmoid of a linear
function of log compute, floored at chance):

    S(N) = c / (1 + exp(−γ·(ln N − l))) + d          (eq. 3 of Xiao et al. with L := ln N)

with d the benchmark's chance level and c + d = 1 (the same choice as the shipped composed fits:
a perfect score is the ceiling), γ > 0 (a larger family member scores higher). In logit space the
law is a line, logit((S − d)/c) = γ·ln N − γ·l, fitted by ordinary least squares over the
family's members (points at or below chance carry no logit and are left out, counted). Its
inverse is the effective size at the family's budget:

    ln N̂(S) = l + logit((S − d)/c) / γ,      ρ = N̂ / N

which is :func:`densing.laws.forms.loss_for_score` with the latent "loss" ln N. D0 is D_f, the
geometric mean of the fitted members' token counts; the law has no data term, so densities at
another D0 are not defined by it (asking for one is an error).

Uncertainty: the bootstrap resamples the family's members with replacement (a resample with
fewer than 2 distinct sizes cannot fit a line and is redrawn, and so is one whose line does not
rise), refitting each by OLS; the draws carry
the fit's uncertainty into densities and trends.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from densing.data.benchmarks import CHANCE_LEVELS
from densing.laws.reference_fit import data_hash
from densing.errors import FitError, InputError
from densing.laws import fit as _fit
from densing.laws import forms
from densing.laws.points import POINT_COLUMNS
from densing.laws.reference_fit import ReferenceFit

KIND = "family"
MAX_REDRAWS = 100


def _line(log_n: np.ndarray, z: np.ndarray) -> tuple[float, float]:
    """(γ, l) of the OLS line z = γ·ln N − γ·l; NaN when the sizes do not vary."""
    if np.unique(log_n).size < 2:
        return math.nan, math.nan
    slope, intercept = np.polyfit(log_n, z, 1)
    if not slope > 0:
        return float(slope), math.nan
    return float(slope), float(-intercept / slope)


def _bootstrap(log_n: np.ndarray, z: np.ndarray, n_boot: int, rng: np.random.Generator) -> tuple[list, int]:
    """``n_boot`` resamples of the members (redrawn while a resample has < 2 distinct sizes or no rising
    line), each refitted by OLS in closed form, vectorised over resamples: ([(γ, l), …], redraws)."""
    draws: list[tuple[float, float]] = []
    redraws = 0
    n = log_n.size
    for _ in range(MAX_REDRAWS):
        need = n_boot - len(draws)
        if need <= 0:
            break
        pick = rng.integers(0, n, (need, n))
        x, y = log_n[pick], z[pick]
        xc = x - x.mean(axis=1, keepdims=True)
        sxx = np.sum(xc * xc, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.sum(xc * (y - y.mean(axis=1, keepdims=True)), axis=1) / sxx
            intercept = y.mean(axis=1) - slope * x.mean(axis=1)
            level = -intercept / slope
        ok = (sxx > 1e-12 * max(float(np.ptp(log_n)) ** 2, 1e-300)) & (slope > 0) & np.isfinite(level)
        redraws += int((~ok).sum())
        draws.extend(zip(slope[ok].tolist(), level[ok].tolist()))
    return draws[:n_boot], redraws


def logit_scores(scores, chance: float, scale: float) -> np.ndarray:
    """logit((S − d)/c); NaN at or below the floor d or at or above the ceiling c + d."""
    u = (np.asarray(scores, float) - chance) / scale
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((u > 0) & (u < 1), np.log(u / (1 - u)), np.nan)


def metric_for(table: pd.DataFrame, benchmark: str, metric: str | None) -> str:
    """``metric``, or the one metric the table has for ``benchmark``."""
    if metric is not None:
        return metric
    found = sorted(table.loc[table["benchmark"] == benchmark, "metric"].astype(str).unique())
    if not found:
        raise InputError(f"benchmark {benchmark!r}: no rows in the table")
    if len(found) != 1:
        raise InputError(f"benchmark {benchmark!r}: metrics {', '.join(found)} in the table; name one (metric=...)")
    return found[0]


def family_points(table: pd.DataFrame, family: str, benchmark: str, *, metric: str | None = None) -> tuple[pd.DataFrame, dict]:
    """The family's members usable for a fit of ``benchmark`` and what was dropped, and why.

    Returns the points (``POINT_COLUMNS``) and a dict of dropped model lists: ``moe`` (an
    ``active_params`` value: not dense), ``no_tokens`` (unknown training budget), ``no_score``,
    ``at_chance`` (score at or below the chance level: no logit).
    """
    metric = metric_for(table, benchmark, metric)
    mine = table[table["family"].astype(object) == family]
    members = np.unique(mine["model"].astype(str).to_numpy())
    if not len(members):
        raise InputError(f"family {family!r}: no models of that family in the table")
    chance = CHANCE_LEVELS.get(benchmark)
    if chance is None:
        raise InputError(f"benchmark {benchmark!r}: no chance level in the registry; a family reference needs its floor")
    pick = (mine["benchmark"].astype(object).to_numpy() == benchmark) & (mine["metric"].astype(object).to_numpy() == metric)
    model = mine["model"].astype(str).to_numpy()[pick]
    value = mine["value"].to_numpy(float)[pick]
    params = mine["params"].to_numpy(float)[pick]
    tokens = mine["train_tokens"].to_numpy(float)[pick]
    active = mine["active_params"].to_numpy(float)[pick] if "active_params" in mine.columns else np.full(model.size, np.nan)
    moe = ~np.isnan(active)
    no_tokens = ~moe & np.isnan(tokens)
    at_chance = ~moe & ~no_tokens & (value <= chance)
    dropped = {"moe": sorted(model[moe]), "no_tokens": sorted(model[no_tokens]), "no_score": sorted(set(members) - set(model)),
               "at_chance": sorted(model[at_chance])}
    keep = ~(moe | no_tokens | at_chance)
    order = np.lexsort((model[keep], params[keep]))
    points = pd.DataFrame({
        "model": model[keep][order], "params": params[keep][order], "train_tokens": tokens[keep][order],
        "score": value[keep][order], "loss": np.nan, "run": model[keep][order],
    })
    return points[list(POINT_COLUMNS)], dropped


def fit_family(
    table: pd.DataFrame,
    family: str,
    benchmark: str,
    *,
    metric: str | None = None,
    exclude: tuple[str, ...] = (),
    n_boot: int = 1000,
    seed: int = 0,
    provenance: dict | None = None,
) -> ReferenceFit:
    """Fit S(N) = c/(1 + e^{−γ(ln N − l)}) + d on one family at its own budget (module docstring).

    ``table`` is a tidy results table with ``family`` (and ``active_params`` for mixtures of
    experts); ``exclude`` names members to leave out (the held-out check). Needs at least two
    distinct sizes above chance. Returns a :class:`ReferenceFit` of kind ``family`` whose
    ``d0`` is the family's budget and whose ``provenance`` lists the dropped members.
    """
    from densing import __version__

    from densing.validation import validate

    validate(_fit.BOOTSTRAP_CONSTRAINTS, n_boot=n_boot, seed=seed)
    metric = metric_for(table, benchmark, metric)
    points, dropped = family_points(table, family, benchmark, metric=metric)
    if exclude:
        points = points[~points["model"].isin(exclude)].reset_index(drop=True)
    chance = CHANCE_LEVELS[benchmark]
    scale = 1.0 - chance
    log_n = np.log(points["params"].to_numpy(float))
    z = logit_scores(points["score"], chance, scale)
    if np.unique(log_n).size < 2:
        raise FitError(f"family {family!r}, {benchmark}: {np.unique(log_n).size} distinct size(s) above chance; a family law needs 2")
    gamma, l = _line(log_n, z)
    if not (gamma > 0 and math.isfinite(l)):
        raise FitError(f"family {family!r}, {benchmark}: the score does not rise with size (logit slope {gamma:.3g})")
    scores = points["score"].to_numpy(float)
    predicted = forms.performance_law(log_n, scale, gamma, l, chance)
    residuals = predicted - scores
    total = float(np.sum((scores - scores.mean()) ** 2))
    r2 = 1.0 - float(np.sum(residuals ** 2)) / total if total > 0 else math.nan
    stage = _fit.StageFit(law=KIND, params={"c": scale, "gamma": gamma, "l": l, "d": chance},
                          fixed={"c": scale, "d": chance}, r_squared=r2, rmse=float(np.sqrt(np.mean(residuals ** 2))),
                          residuals=tuple(float(v) for v in residuals), converged=True,
                          message="ordinary least squares in logit space (closed form)", n_points=len(points),
                          cost=float(0.5 * np.sum(residuals ** 2)))
    draws, redraws = _bootstrap(log_n, z, n_boot, np.random.default_rng(seed))
    if len(draws) < n_boot:
        raise FitError(f"family {family!r}, {benchmark}: no bootstrap resample fits a rising line")
    tokens = points["train_tokens"].to_numpy(float)
    d0 = float(np.exp(np.mean(np.log(tokens))))
    record = {
        "family": family, "families": family, "benchmarks": [benchmark], "metric": metric, "chance": chance,
        "ceiling": 1.0, "law_form": "S(N) = c/(1 + exp(-gamma (ln N - l))) + d, d = chance, c + d = 1",
        "d0_rule": "geometric mean of the fitted members' training tokens",
        "token_ratio": float(tokens.max() / tokens.min()), "dropped": {k: v for k, v in dropped.items() if v},
        "excluded": list(exclude),
        "members": sorted(table.loc[table["family"].astype("string") == family, "model"].astype(str).unique()),
        "n_boot": n_boot, "n_boot_redrawn": redraws, "bootstrap_unit": "model",
        "seed": seed, "densing_version": __version__,
    }
    record.update(provenance or {})
    return ReferenceFit(
        kind=KIND, benchmark=benchmark, metric=metric, params=dict(stage.params), stages=(stage,), d0=d0,
        data_hash=data_hash(points, list(POINT_COLUMNS[:4])), provenance=record,
        bootstrap_names=("gamma", "l"), bootstrap=tuple(draws),
        points=tuple((r.model, float(r.params), float(r.train_tokens), float(r.score), None, r.run)
                     for r in points.itertuples(index=False)),
        benchmarks=(benchmark,),
    )


def held_out_error(table: pd.DataFrame, family: str, benchmark: str, *, metric: str | None = None) -> dict:
    """Refit without the largest member, predict its score (rule R5 of :mod:`densing.trend.references`).

    Returns ``held_out`` (model), ``measured``, ``predicted`` and ``relative_error`` |Ŝ − S| / S.
    """
    points, _ = family_points(table, family, benchmark, metric=metric)
    if len(points) < 3:
        raise FitError(f"family {family!r}, {benchmark}: {len(points)} member(s); holding one out needs 3")
    largest = points.iloc[-1]
    fit = fit_family(table, family, benchmark, metric=metric, exclude=(str(largest["model"]),), n_boot=0)
    predicted = float(fit.predict_score(float(largest["params"]), float(largest["train_tokens"])))
    measured = float(largest["score"])
    return {"held_out": str(largest["model"]), "measured": measured, "predicted": predicted,
            "relative_error": abs(predicted - measured) / measured}
