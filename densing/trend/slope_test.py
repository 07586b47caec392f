"""One slope across tables: the pooled law's common-slope test and the smallest difference it detects
(results/three_tables/DECLARATION.md, "One slope across tables"; docs/method.md).

Each table's own frontier slope on the common scale, drawn in the pooled law's draws
(:mod:`densing.trend.pooled_tables`), is tested by Cochran's Q on T − 1 df with the draws' covariance, read as
Hotelling's T² (:func:`densing.trend.random_effects.pool_slopes`). A test that is not rejected says nothing unless it
could have seen a difference of the size that matters, so beside Q the record gives, per table, the slope difference
the test detects at :data:`DETECT_POWER` (:func:`detectable_differences`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import fdtri, ncfdtrinc

from densing.constants import HETEROGENEITY_ALPHA
from densing.trend.random_effects import pool_slopes

#: The power at which the common-slope test's detectable slope difference is stated (:func:`detectable_differences`).
DETECT_POWER = 0.8
#: The slope ratio between tables the declaration sizes the test's power at ("Calibration": a 1.5× slope).
DECLARED_RATIO = 1.5


def common_slope_test(points: np.ndarray, draws: np.ndarray) -> dict:
    """Cochran's Q of the tables' own slopes on the common scale with their draws' covariance, on T − 1 df, read as
    Hotelling's T² (:func:`densing.trend.random_effects.pool_slopes`), rejected at :data:`HETEROGENEITY_ALPHA`; with
    each table's smallest slope difference the test detects at :data:`DETECT_POWER` (:func:`detectable_differences`)."""
    pooled = pool_slopes(points, draws)
    return {
        "q": pooled.q,
        "df": pooled.df,
        "p_value": pooled.p_value,
        "alpha": HETEROGENEITY_ALPHA,
        "rejected": bool(pooled.df > 0 and pooled.p_value < HETEROGENEITY_ALPHA),
        "draws": pooled.draws,
        "tau_squared": pooled.tau_squared,
        "i_squared": pooled.i_squared,
        "power": DETECT_POWER,
        "detectable_per_day": detectable_differences(draws),
    }


def detectable_differences(draws: np.ndarray) -> list[float]:
    """Each table's smallest slope difference δ_T (per day) the common-slope test rejects with probability
    :data:`DETECT_POWER` at :data:`HETEROGENEITY_ALPHA`: table T's slope δ above the others' common one, A + δ·e_T.

    With Σ the draws' covariance of the T slopes (finite draws, K of them, m = K − 1) and M = Σ⁻¹ − Σ⁻¹11ᵀΣ⁻¹ /
    (1ᵀΣ⁻¹1) (Q's form about the GLS mean, :func:`densing.trend.random_effects.pool_slopes`), the shift δ·e_T gives Q
    the noncentrality λ = δ²·M_TT; Hotelling's T²(p, m) with p = T − 1 then reads as a noncentral F(p, m − p + 1, λ)
    (Anderson 2003, §5.4), so δ_T = √(λ*/M_TT) with λ* the noncentrality at which that F exceeds its central
    1 − α quantile with probability :data:`DETECT_POWER`. Σ is the draws' own: where the draws are wider than the
    slopes' spread, δ_T is as wide as the test. NaN where the draws do not identify Σ."""
    drawn = np.asarray(draws, float)
    ok = np.all(np.isfinite(drawn), axis=0)
    count = drawn.shape[0]
    if count < 2 or ok.sum() < count + 2:
        return [math.nan] * count
    sigma = np.atleast_2d(np.cov(drawn[:, ok]))
    inverse = np.linalg.inv(sigma + np.eye(count) * 1e-9 * max(float(np.trace(sigma)) / count, 1e-300))
    ones = np.ones(count)
    form = inverse - np.outer(inverse @ ones, ones @ inverse) / float(ones @ inverse @ ones)
    df, m = count - 1, int(ok.sum()) - 1
    critical = float(fdtri(df, m - df + 1, 1 - HETEROGENEITY_ALPHA))
    noncentrality = float(ncfdtrinc(df, m - df + 1, 1 - DETECT_POWER, critical))
    return [float(math.sqrt(noncentrality / form[i, i])) if form[i, i] > 0 else math.nan for i in range(count)]
