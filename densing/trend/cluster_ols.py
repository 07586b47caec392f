"""Ordinary least squares with standard errors clustered by group: the numbers of statsmodels'
``OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)``, without importing statsmodels.

    β̂ = X⁺y,   e = y − Xβ̂,   u_g = Σ_{i∈g} x_i e_i,
    Cov(β̂) = c · (XᵀX)⁻¹ (Σ_g u_g u_gᵀ) (XᵀX)⁻¹,   c = G/(G − 1) · (N − 1)/(N − K)

(the cluster-robust sandwich of Liang & Zeger 1986 with the small-sample factor c of statsmodels'
``sandwich_covariance.cov_cluster``; (XᵀX)⁻¹ is X⁺X⁺ᵀ, as statsmodels' ``normalized_cov_params``), N rows, K columns,
G groups; the interval β̂_j ± t_{G−1}(1 − α/2)·se_j (``use_t=True`` with statsmodels' default ``df_correction``: G − 1
degrees of freedom). ``tests/trend/test_cluster_ols.py`` holds every number to statsmodels on planted data.

The report's two clustered regressions (the size-confounding check, the fixed-size estimator) use it rather than
statsmodels, whose import (scipy.stats and scipy.optimize with it) would run in each process that computes one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ClusterOLS:
    """A clustered OLS fit: ``params`` (K,), ``cov`` (K, K), ``df`` = G − 1 (the t quantile's degrees of freedom)."""

    params: np.ndarray
    cov: np.ndarray
    df: int

    @property
    def bse(self) -> np.ndarray:
        return np.sqrt(np.diag(self.cov))

    def conf_int(self, alpha: float = 0.05) -> np.ndarray:
        """(K, 2): β̂ ± t_{G−1}(1 − α/2)·se, as statsmodels' ``conf_int(alpha)`` of the same fit."""
        from scipy.special import stdtrit  # Student's t quantile (scipy.stats.t.ppf's), without scipy.stats

        half = float(stdtrit(self.df, 1 - alpha / 2)) * self.bse
        return np.column_stack([self.params - half, self.params + half])


def cluster_ols(y, x, groups) -> ClusterOLS:
    """Fit y on the columns of x with errors clustered by ``groups`` (labels, one per row; module docstring)."""
    y, x = np.asarray(y, float), np.asarray(x, float)
    codes, count = _codes(groups)
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


def _codes(groups) -> tuple[np.ndarray, int]:
    """Integer codes 0..G−1 of the group labels, and G."""
    _, codes = np.unique(np.asarray(groups), return_inverse=True)
    codes = codes.ravel()
    return codes, int(codes.max()) + 1 if codes.size else 0


__all__ = ["ClusterOLS", "cluster_ols"]
