"""Validity checks of a density trend: can this reference measure the frontier at all?

Each check returns a :class:`Check` whose ``status`` is ``passed``, ``failed``, ``untestable`` (the data cannot decide,
said so) or ``reported`` (a finding, not a gate); docs/method.md ("Gates and findings") says when and why each
threshold was fixed: :func:`saturation` (near the cap, :func:`densing.laws.bounds.score_cap`), :func:`conditioning`
(:func:`densing.laws.inversion.conditioning`), :func:`size_confounding`, :func:`size_dependence`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtri, stdtrit  # the normal and t quantiles, without importing scipy.stats

from densing.constants import (
    FAILED,
    MAX_MEDIAN_CONDITIONING,
    MIN_SIZE_FAMILIES,
    PASSED,
    REPORTED,
    SATURATION_STDERRS,
    SIZE_SLOPE_MARGIN,
    UNTESTABLE,
)
from densing.numbers import json_value
from densing.results import Result

# the facts CALIBRATED, SIZE_FINDING and Heterogeneity are public here too (`name as name` marks a re-export)
from densing.states import (
    CALIBRATED as CALIBRATED,
    SIZE_FINDING as SIZE_FINDING,
    Conditioned,
    Heterogeneity as Heterogeneity,
    NoFrontier,
    Saturated,
    Slope,
    TooFew,
)
from densing.trend.targets import family_clusters

MIN_SIZE_CONFOUNDING_MODELS = 10
#: Clustered errors need several clusters (their degrees of freedom are the clusters less one).
MIN_SIZE_CONFOUNDING_CLUSTERS = 3


@dataclass(frozen=True)
class Check(Result):
    """A validity check's ``value``, ``status`` and ``facts`` (a record of :mod:`densing.states`); ``across``: each
    candidate reference's own check, ``finding``: why it is a finding, not a gate ("" for a gate; :data:`CALIBRATED` or
    :data:`SIZE_FINDING`), ``fired``: whether a finding fires where it would have failed."""

    name: str
    value: float
    status: str
    facts: object = None
    across: tuple = ()
    finding: str = ""
    fired: bool = False

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def failed(self) -> bool:
        return self.status == FAILED

    def to_dict(self) -> dict:
        """The check's name, value, status and whether it passed, as values (with what it tests against and what it
        found, in words: :func:`densing.present.records.record`)."""
        return {"name": self.name, "value": json_value(self.value), "status": self.status, "passed": self.passed}


def saturation(scores, stderr, cap, models, benchmarks=None) -> Check:
    """Frontier models with S ≥ S_cap − 2σ (a finding); ``cap`` one or one per score (of ``benchmarks``' caps)."""
    scores, sigma = np.asarray(scores, float), np.nan_to_num(np.asarray(stderr, float))
    caps = np.broadcast_to(np.asarray(cap, float), scores.shape)
    if scores.size == 0:
        return Check("saturation", math.nan, UNTESTABLE, NoFrontier())
    near = scores >= caps - SATURATION_STDERRS * sigma
    where = list(benchmarks) if benchmarks is not None else [None] * len(scores)
    named = tuple((str(m), b, float(c)) for m, b, c, flag in zip(models, where, caps, near) if flag)
    return Check(
        "saturation",
        float(near.sum()),
        REPORTED,
        Saturated(int(near.sum()), len(scores), float(caps.min()), float(caps.max()), named),
    )


def conditioning(kappa, models) -> Check:
    """Median κ over the frontier models (fails above :data:`MAX_MEDIAN_CONDITIONING`); an infinite κ stays infinite."""
    kappa = np.asarray(kappa, float)
    if kappa.size == 0:
        return Check("conditioning", math.nan, UNTESTABLE, NoFrontier())
    kappa = np.where(np.isnan(kappa), np.inf, kappa)
    median = float(np.median(kappa))
    worst = int(np.argmax(kappa))
    return Check(
        "conditioning",
        median,
        PASSED if median <= MAX_MEDIAN_CONDITIONING else FAILED,
        Conditioned(median, int(kappa.size), str(models[worst]), float(kappa[worst])),
    )


def size_dependence(frame: pd.DataFrame, level: float = 0.95, margin: float = SIZE_SLOPE_MARGIN) -> Check:
    """Within-family slope of ln ρ on ln N (one intercept per family with ≥ 2 sizes, HC3 interval) as an equivalence
    test: ``frame`` has ``family``, ``params``, ``log_density`` (exact densities); passes when the ``level`` interval
    lies inside ±``margin``; untestable with fewer than :data:`MIN_SIZE_FAMILIES` such families."""
    data = frame.dropna(subset=["family", "log_density"])
    sizes = data.groupby("family")["params"].nunique()
    data = data[data["family"].isin(sizes[sizes >= 2].index)]
    families = data["family"].nunique()
    if families < MIN_SIZE_FAMILIES or len(data) < families + 2:
        return Check(
            "size_dependence",
            math.nan,
            UNTESTABLE,
            Slope(math.nan, math.nan, math.nan, level, margin, len(data), families=int(families)),
        )
    regressors = pd.get_dummies(data["family"].astype(str), dtype=float)
    regressors.insert(0, "log_params", np.log(data["params"].to_numpy(float)))
    slope, low, high = ols_hc3_first(regressors.to_numpy(float), data["log_density"].to_numpy(float), level)
    return Check(
        "size_dependence",
        slope,
        PASSED if -margin <= low and high <= margin else FAILED,
        Slope(slope, low, high, level, margin, len(data), families=int(families)),
    )


def size_confounding(t, y, kind, params, families=None) -> Check:
    """The size coefficient β_N of ln ρ_i = β₀ + β_t·t_i + β_N·ln N_i + ε_i by OLS on the exact densities
    (:func:`cluster_ols` by ``families``, else by model; t on G − 1 df): fails only when its 95% interval excludes 0
    *and* |β̂_N| > :data:`SIZE_SLOPE_MARGIN`; untestable with fewer than :data:`MIN_SIZE_CONFOUNDING_MODELS` exact
    densities or one size. ``kind`` 0/+1/−1 (NaN dropped)."""
    t, y, kind, params = (np.asarray(a, float) for a in (t, y, kind, params))
    groups = np.arange(t.size) if families is None else family_clusters(families)
    use = np.isfinite(y) & (kind == 0) & np.isfinite(t) & np.isfinite(params) & (params > 0)
    bounds = int((np.isfinite(y) & np.isfinite(kind) & (kind != 0)).sum())
    if int(use.sum()) < MIN_SIZE_CONFOUNDING_MODELS or np.ptp(np.log(params[use])) == 0:
        return Check(
            "size_confounding",
            math.nan,
            UNTESTABLE,
            TooFew("exact densities", int(use.sum()), MIN_SIZE_CONFOUNDING_MODELS),
        )
    t, y, log_n, groups = t[use], y[use], np.log(params[use]), pd.factorize(groups[use])[0]
    if groups.max() + 1 < MIN_SIZE_CONFOUNDING_CLUSTERS:
        return Check(
            "size_confounding",
            math.nan,
            UNTESTABLE,
            TooFew("clusters", int(groups.max() + 1), MIN_SIZE_CONFOUNDING_CLUSTERS),
        )
    x = np.column_stack([np.ones_like(t), t, log_n - log_n.mean()])
    fit = cluster_ols(y, x, groups)  # statsmodels' OLS(...).fit(cov_type="cluster", use_t=True), tested against it
    coefficient = float(fit.params[2])
    low, high = (float(v) for v in fit.conf_int(0.05)[2])
    excludes, material = low > 0 or high < 0, abs(coefficient) > SIZE_SLOPE_MARGIN
    return Check(
        "size_confounding",
        coefficient,
        FAILED if excludes and material else PASSED,
        Slope(
            coefficient,
            low,
            high,
            0.95,
            SIZE_SLOPE_MARGIN,
            int(t.size),
            clusters="family" if families is not None else "model",
            n_clusters=int(groups.max() + 1),
            bounds=bounds,
        ),
    )


def under_references(found: dict[str, Check]) -> Check:
    """One check over several references: failed under any, passed under every one that tests it, else untestable."""
    items = list(found.items())
    first = items[0][1]
    if len(items) == 1:
        return first
    statuses = [c.status for _, c in items]
    if FAILED in statuses:
        status = FAILED
    elif all(s == UNTESTABLE for s in statuses):
        status = UNTESTABLE
    elif REPORTED in statuses:
        status = REPORTED
    else:
        status = PASSED
    values = [c.value for _, c in items if isinstance(c.value, (int, float)) and math.isfinite(c.value)]
    worst = max(values, key=abs if first.name == "size_confounding" else None) if values else math.nan
    return Check(first.name, float(worst), status, first.facts, across=tuple(items), finding=first.finding)


def ols_hc3_first(x: np.ndarray, y: np.ndarray, level: float) -> tuple[float, float, float]:
    """OLS coefficient of the first column of ``x`` and its normal-theory interval with HC3 errors (MacKinnon & White
    1985): β̂ = (XᵀX)⁻¹Xᵀy, Cov_HC3 = (XᵀX)⁻¹ Xᵀ diag(e_i² / (1 − h_ii)²) X (XᵀX)⁻¹; the numbers of statsmodels'
    ``OLS(y, x).fit(cov_type="HC3")`` (tested against it), without importing statsmodels."""
    xtx_inv = np.linalg.pinv(x.T @ x)
    beta = xtx_inv @ x.T @ y
    resid = y - x @ beta
    leverage = np.einsum("ij,jk,ik->i", x, xtx_inv, x)
    omega = (resid / (1.0 - leverage)) ** 2
    cov = xtx_inv @ (x.T * omega) @ x @ xtx_inv
    z = float(ndtri(0.5 + level / 2))
    se = float(np.sqrt(cov[0, 0]))
    return float(beta[0]), float(beta[0] - z * se), float(beta[0] + z * se)


@dataclass(frozen=True)
class ClusterOLS:
    """A clustered OLS fit: ``params`` (K,), ``cov`` (K, K), ``df`` = G − 1 (the t quantile's degrees of freedom)."""

    params: np.ndarray
    cov: np.ndarray
    df: int

    def conf_int(self, alpha: float = 0.05) -> np.ndarray:
        """(K, 2): β̂ ± t_{G−1}(1 − α/2)·se, as statsmodels' ``conf_int(alpha)`` of the same fit."""
        half = float(stdtrit(self.df, 1 - alpha / 2)) * np.sqrt(np.diag(self.cov))
        return np.column_stack([self.params - half, self.params + half])


def cluster_ols(y, x, groups) -> ClusterOLS:
    """Fit y on the columns of x with errors clustered by ``groups`` (labels, one per row): the numbers of statsmodels'
    ``OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)`` without importing statsmodels::

        β̂ = X⁺y,   e = y − Xβ̂,   u_g = Σ_{i∈g} x_i e_i,
        Cov(β̂) = c · (XᵀX)⁻¹ (Σ_g u_g u_gᵀ) (XᵀX)⁻¹,   c = G/(G − 1) · (N − 1)/(N − K)

    (the cluster-robust sandwich of Liang & Zeger 1986 with the small-sample factor c of statsmodels'
    ``sandwich_covariance.cov_cluster``; (XᵀX)⁻¹ is X⁺X⁺ᵀ), N rows, K columns, G groups; the interval
    β̂_j ± t_{G−1}(1 − α/2)·se_j. ``tests/trend/test_cluster_ols.py`` holds every number to statsmodels."""
    y, x = np.asarray(y, float), np.asarray(x, float)
    codes = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()  # integer codes 0..G−1 of the groups
    count = int(codes.max()) + 1 if codes.size else 0
    if count < 2:
        raise ValueError("cluster_ols: clustered errors need at least two groups")
    pinv = np.linalg.pinv(x)
    params = pinv @ y
    bread = pinv @ pinv.T
    scores = x * (y - x @ params)[:, None]
    summed = np.zeros((count, x.shape[1]))
    np.add.at(summed, codes, scores)
    rows, columns = x.shape
    factor = count / (count - 1.0) * (rows - 1.0) / (rows - columns)
    cov = factor * (bread @ (summed.T @ summed) @ bread)
    return ClusterOLS(params, cov, count - 1)
