"""The pooling of a row's references' slopes and the decision of its interval's ends (:mod:`densing.trend.pooling`,
steps 4 and 5): the generalised random-effects model over the paired draws (DerSimonian & Laird 1986; Gleser &
Olkin 2009), its heterogeneity test as a check, each end's Monte Carlo range and whether the draws decide it."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import fdtrc, ndtri  # F's survival function, the normal quantile (no scipy.stats)

from densing.constants import DAYS_PER_MONTH, END_STABILITY, HETEROGENEITY_ALPHA
from densing.errors import FitError
from densing.trend import checks
from densing.trend.rules import doubling_interval, doubling_months


def end_range(draws: np.ndarray, q: float, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` Monte Carlo range of the q-quantile of K ``draws`` (step 5): the order statistics at ranks
    K·q ∓ z·√(K·q·(1 − q)), the distribution-free interval of a quantile (Hyndman & Fan 1996)."""
    values = np.sort(np.asarray(draws, float))
    k = values.size
    if k < 2:
        return math.nan, math.nan
    half = float(ndtri(0.5 + level / 2)) * math.sqrt(k * q * (1 - q))
    low, high = math.floor(k * q - half), math.ceil(k * q + half)
    return float(values[max(low, 0)]), float(values[min(high, k - 1)])


def months_interval(low: float, high: float) -> tuple[float, float]:
    """A slope interval (per day) as a doubling-time interval in months (an interval reaching 0 is unbounded)."""
    a, b = doubling_interval(low, high)
    return a / DAYS_PER_MONTH, b / DAYS_PER_MONTH


def heterogeneity_check(result):
    """The heterogeneity test as a Check: failed when Q's p-value < :data:`HETEROGENEITY_ALPHA`, untestable with one."""
    facts = checks.Heterogeneity(
        float(result.heterogeneity_q),
        int(result.heterogeneity_df),
        float(result.heterogeneity_p),
        float(result.i_squared),
        float(result.tau_squared),
        int(result.heterogeneity_draws),
        tuple(dict.fromkeys(result.reference_labs)),
        int(result.n_references),
    )
    if result.heterogeneity_df == 0:
        return checks.Check("heterogeneity", math.nan, checks.UNTESTABLE, facts)
    status = checks.FAILED if result.heterogeneity_p < HETEROGENEITY_ALPHA else checks.PASSED
    return checks.Check("heterogeneity", float(result.heterogeneity_p), status, facts)


def undecided(mc_range: tuple[float, float]) -> bool:
    """Whether a Monte Carlo range [a, b] (:func:`end_range`) has a ≤ 0 < b: the draws do not decide its sign."""
    return bool(mc_range[0] <= 0 < mc_range[1])


def precise(mc_low: float, mc_high: float, value: float) -> bool:
    """Whether an end of the doubling time's interval, ``value`` months, is fixed by the draws (step 5): its 95% Monte
    Carlo range in months (:func:`end_range` through ln 2 / A, the unit it is printed in) has

        (mc_high − mc_low) / value ≤ END_STABILITY  (0.25: the range 12.8–150 of an end of 18.4 spans 7.5 of it);

    a range or an end that is not finite is not precise."""
    width = mc_high - mc_low
    return bool(math.isfinite(width) and math.isfinite(value) and value > 0 and width <= END_STABILITY * value)


def determined_ends(ends_mc: tuple, slope_low: float, slope_high: float) -> dict:
    """The interval ends' Monte Carlo ranges in months and decisions (step 5) from the slope's ends' ranges ``ends_mc``:
    ``{end}_determined`` (the whole range above 0), ``{end}_undecided`` (:func:`undecided`), ``{end}_precise``
    (:func:`precise`; False for an end not determined: a precision is a fact about a determined end, never a state)."""
    (low_a, low_b), (high_a, high_b) = ends_mc  # the slope's low end's range, the slope's high end's
    out = {
        "months_low_mc_low": doubling_months(high_b),
        "months_low_mc_high": doubling_months(high_a),
        "months_high_mc_low": doubling_months(low_b),
        "months_high_mc_high": doubling_months(low_a),
    }
    values = {"low": doubling_months(slope_high), "high": doubling_months(slope_low)}
    for end, (a, b) in {"low": (high_a, high_b), "high": (low_a, low_b)}.items():
        out[f"{end}_determined"] = bool(a > 0)
        out[f"{end}_undecided"] = undecided((a, b))
        out[f"{end}_precise"] = out[f"{end}_determined"] and precise(
            out[f"months_{end}_mc_low"], out[f"months_{end}_mc_high"], values[end]
        )
    return out


def draws_needed(ends: dict, made: int, draws_cap: int, precision_cap: int) -> int:
    """How many draws a judged row asks for (step 5): twice ``made``, at most ``draws_cap``, while an end is undecided,
    at most ``precision_cap`` while a determined end is not precise; else ``made``."""
    if any(ends[f"{end}_undecided"] for end in ("low", "high")):
        return max(made, min(2 * made, draws_cap))
    if any(ends[f"{end}_determined"] and not ends[f"{end}_precise"] for end in ("low", "high")):
        return max(made, min(2 * made, precision_cap, draws_cap))
    return made


@dataclass(frozen=True)
class Pooled:
    """The random-effects pooling of R slopes (module docstring, step 4)."""

    slope: float
    weights: np.ndarray
    q: float
    df: int
    p_value: float
    tau_squared: float
    i_squared: float
    #: K, the paired draws Σ is estimated from (its finite columns): Q's reference distribution is T²(df, K − 1)
    draws: int = 0
    #: each lab's weight W_l (:func:`pool_by_lab`; with one reference a lab, the references' weights)
    lab_weights: np.ndarray | None = None


def pool_slopes(points: np.ndarray, draws: np.ndarray) -> Pooled:
    """Pool ``points`` (R,) whose paired draws are ``draws`` (R, K) by the generalised random-effects model.

    Σ = the draws' covariance (finite columns only, K of them), V(τ²) = Σ + τ²I; Q = (A − Â1)ᵀΣ⁻¹(A − Â1) on
    p = R − 1 degrees of freedom (Â the GLS mean under Σ). Σ is estimated from the draws (m = K − 1 degrees of
    freedom, independent of A), so under one common slope Q is Hotelling's T²(p, m), not χ²(p): its p-value is
    F(p, m − p + 1)'s survival function at Q·(m − p + 1)/(p·m) (Hotelling 1931; Anderson 2003, §5.2.2), and its mean
    E_Q = p·m/(m − p − 1) (χ²'s p as K → ∞; with χ² the test rejects a true common slope in about half the rows at
    R = 56 and K = 200, ``tests/trend/test_pooling.py``). τ² is Paule–Mandel's, Q(τ²) = E_Q (0 where Q(0) ≤ E_Q),
    I² = max(0, (Q − E_Q)/Q); the pooled slope wᵀA with w_r ∝ 1/(Σ_rr + τ²)."""
    a = np.asarray(points, float)
    count = a.size
    if count == 1:
        return Pooled(float(a[0]), np.ones(1), math.nan, 0, math.nan, 0.0, math.nan)
    ok = np.all(np.isfinite(draws), axis=0)
    if ok.sum() < count + 2:
        raise FitError("pooling: too few paired draws fit a line under every reference")
    sigma = np.atleast_2d(np.cov(draws[:, ok]))
    sigma = sigma + np.eye(count) * 1e-9 * max(float(np.trace(sigma)) / count, 1e-300)
    ones = np.ones(count)

    def q_at(tau2: float) -> float:
        """Q(τ²): the residuals from the GLS mean under V(τ²) = Σ + τ²I, weighted by V⁻¹."""
        inv = np.linalg.inv(sigma + tau2 * np.eye(count))
        resid = a - float(inv @ ones / float(ones @ inv @ ones) @ a)
        return float(resid @ inv @ resid)

    q = q_at(0.0)
    df = count - 1
    m = int(ok.sum()) - 1  # Σ's degrees of freedom: m − df − 1 ≥ 1 with the K ≥ R + 2 draws asked above
    expected = df * m / (m - df - 1)
    tau2 = 0.0
    if q > expected:
        low, high = 0.0, max(float(np.var(a)) * 10, float(np.max(np.diag(sigma))) * 10, 1e-300)
        while q_at(high) > expected:
            high *= 4
        for _ in range(80):
            mid = 0.5 * (low + high)
            low, high = (mid, high) if q_at(mid) > expected else (low, mid)
        tau2 = high
    # inverse-variance weights, all positive (GLS weights can be negative: pooling, step 4)
    w = 1.0 / (np.diag(sigma) + tau2)
    w = w / w.sum()
    # Hotelling's T²(df, m) as F(df, m − df + 1); 1 below its support
    p_value = 1.0 if q < 0 else float(fdtrc(df, m - df + 1, q * (m - df + 1) / (df * m)))
    return Pooled(float(w @ a), w, q, df, p_value, tau2, max(0.0, (q - expected) / q) if q > 0 else 0.0, m + 1)


def pool_by_lab(points: np.ndarray, draws: np.ndarray, labs: np.ndarray) -> Pooled:
    """Pool ``points`` (R,) with paired ``draws`` (R, K) by lab (``labs``: each reference's lab code, 0 … L − 1 by first
    appearance): labs, not references, are the units the random-effects model pools and tests (step 4).

    Within lab l, A_l = Σ_r v_r·A_r with v_r ∝ 1/Σ_rr over its references (the same paired draws give A_l^(k)); their
    spread is not independent evidence, so no τ enters within a lab. Across the labs, :func:`pool_slopes` on
    (A_l, A_l^(k)): Q on L − 1 df (0 with one lab), τ² between labs, W_l ∝ 1/(Σ_ll + τ²); each reference's weight is
    W_l·v_r, the pooled slope Σ_r W_l·v_r·A_r. With one reference a lab this is :func:`pool_slopes`, to the bit."""
    a = np.asarray(points, float)
    labs = np.asarray(labs, dtype=np.intp)
    count = int(labs.max()) + 1 if labs.size else 0
    if count == a.size:  # one reference a lab (codes by first appearance: 0 … R − 1 in order)
        pooled = pool_slopes(a, draws)
        return replace(pooled, lab_weights=pooled.weights)
    ok = np.all(np.isfinite(draws), axis=0)
    within = np.zeros(a.size)
    lab_points, lab_draws = np.zeros(count), np.zeros((count, draws.shape[1]))
    for lab in range(count):
        members = np.flatnonzero(labs == lab)
        if members.size == 1:
            within[members] = 1.0
        else:
            var = np.var(draws[np.ix_(members, ok)], axis=1, ddof=1) if ok.sum() > 1 else np.ones(members.size)
            v = 1.0 / np.maximum(var, 1e-300)
            within[members] = v / v.sum()
        lab_points[lab] = float(within[members] @ a[members])
        lab_draws[lab] = within[members] @ draws[members]
    pooled = pool_slopes(lab_points, lab_draws)
    weights = pooled.weights[labs] * within
    return replace(pooled, slope=float(weights @ a), weights=weights, lab_weights=pooled.weights)
