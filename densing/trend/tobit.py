"""The Tobit line: ln ρ = A·t + B through points some of which are bounds, by the Gaussian censored-regression
likelihood (Tobin 1958, "Estimation of relationships for limited dependent variables", Econometrica 26:24–36;
Amemiya 1973).

    y* = A·t + B + σ·ε, ε ~ N(0, 1); z = (y − A·t − B)/σ

an exact point (``kind`` 0) adds log φ(z) − log σ, a lower bound (+1) log(1 − Φ(z)), an upper bound (−1) log Φ(z),
maximised over (A, B, ln σ): the ``all`` frontier rule's line, :func:`tobit_line` one problem (L-BFGS-B),
:func:`tobit_lines_weighted` a bootstrap's resamples together (Newton; the same optimum, its likelihood never lower).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from densing.laws.bounds import EXACT, LOWER, UPPER

#: Below this s, φ(s)/Φ(s) comes from erfcx (:func:`_mills`): ln φ(s) and ln Φ(s) both lie near −s²/2 there, and their
#: difference keeps about ε·s²/2 of absolute error (6·10⁻⁹ of relative error at s = −10⁴), growing until e^(…) overflows.
FAR_TAIL = -1e4
HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _mills(s: np.ndarray, log_cdf: np.ndarray) -> np.ndarray:
    """λ(s) = φ(s)/Φ(s), the inverse Mills ratio, given ``log_cdf`` = ln Φ(s): e^(ln φ − ln Φ), below :data:`FAR_TAIL`
    √(2/π) / erfcx(−s/√2) (erfcx(x) = e^(x²)·erfc(x): no difference of large logs)."""
    s = np.asarray(s, float)
    with np.errstate(over="ignore", invalid="ignore"):  # s² beyond the doubles only where s is far on either side:
        arg = -0.5 * s * s - HALF_LOG_2PI - log_cdf  # there e^(−∞) is 0 (s → +∞), or erfcx takes over (s → −∞)
    far = s < FAR_TAIL
    out = np.exp(arg, out=np.empty_like(arg), where=~far)
    out[far] = math.sqrt(2 / math.pi) / special.erfcx(-s[far] / math.sqrt(2))
    return out


def tobit_line(t, y, kind, start: tuple[float, float] | None = None) -> tuple[float, float, float]:
    """(A, B, σ) maximising the censored Gaussian likelihood; ``start`` (A, B) replaces the OLS start."""
    t, y, kind = np.asarray(t, float), np.asarray(y, float), np.asarray(kind, int)
    if t.size < 3 or np.unique(t).size < 2:
        return math.nan, math.nan, math.nan
    centre, scale = float(t.mean()), float(t.std()) or 1.0
    u = (t - centre) / scale
    exact, lower, upper = kind == EXACT, kind == LOWER, kind == UPPER
    start_points = exact if exact.sum() >= 3 else np.ones_like(exact)
    if start is not None and all(math.isfinite(v) for v in start):
        slope0, intercept0 = start[0] * scale, start[1] + start[0] * centre
    else:
        slope0, intercept0 = np.polyfit(u[start_points], y[start_points], 1)
    sigma0 = max(float(np.std(y[start_points] - slope0 * u[start_points] - intercept0)), 1e-3)

    exact_at, lower_at, upper_at, bound_at = (np.flatnonzero(m) for m in (exact, lower, upper, lower | upper))
    n_exact = exact.sum()

    def negative_loglik(theta: np.ndarray) -> tuple[float, np.ndarray]:
        a, b, log_sigma = theta
        sigma = math.exp(log_sigma)
        z = (y - a * u - b) / sigma
        # d/dμ of each term, μ = a·u + b: exact z/σ; lower bound φ(z)/(σ(1 − Φ(z))); upper −φ(z)/(σΦ(z))
        log_pdf = -0.5 * z * z - HALF_LOG_2PI
        z_exact, log_sf, log_cdf = z[exact_at], special.log_ndtr(-z[lower_at]), special.log_ndtr(z[upper_at])
        total = np.sum(log_pdf[exact_at]) - n_exact * log_sigma
        total += np.sum(log_sf) + np.sum(log_cdf)
        dmu = np.zeros_like(z)
        dmu[exact_at] = z_exact / sigma
        dmu[lower_at] = _mills(-z[lower_at], log_sf) / sigma
        dmu[upper_at] = -_mills(z[upper_at], log_cdf) / sigma
        dlog_sigma = np.sum(z_exact**2) - n_exact + np.sum(dmu[bound_at] * sigma * z[bound_at])
        grad = np.array([np.sum(dmu * u), np.sum(dmu), dlog_sigma])
        return -float(total), -grad

    from scipy import optimize  # imported here: the report's path never reaches this reference fit

    # L-BFGS-B (unbounded here): the same optimum as BFGS to ~1e-7, 2.6× faster per fit (the report's Tobit bootstrap)
    result = optimize.minimize(
        negative_loglik,
        np.array([slope0, intercept0, math.log(sigma0)]),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-8, "ftol": 1e-12, "maxiter": 500},
    )
    a, b, log_sigma = result.x
    slope = a / scale
    return float(slope), float(b - slope * centre), float(math.exp(log_sigma))


def tobit_lines_weighted(
    t, y, kind, weight, start: tuple[float, float] | None = None, max_iter: int = 100
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, B, σ) of each row of (y, kind, weight) (problems, n) over the dates ``t`` (n,): :func:`tobit_line` of the
    row's points, each counted ``weight`` times (weight 0: absent), all rows solved together.

    Newton's method in Olsen's parameters (Olsen 1978, "Note on the uniqueness of the maximum likelihood estimator for
    the Tobit model", Econometrica 46:1211–1215): δ = (A', B')/σ, γ = 1/σ over centred dates u, z = γ·y − δ·(u, 1),

        ℓ = Σ w·[exact: ln γ − z²/2; lower bound: ln Φ(−z); upper bound: ln Φ(z)],

    concave in (δ, γ), so each row's Newton steps, halved until ℓ does not fall, reach its one maximum. With
    ∂ℓ/∂z = g₁ and ∂²ℓ/∂z² = g₂ per point (exact: −z, −1; lower: −λ(−z), −λ(−z)(λ(−z) − z); upper: λ(z),
    −λ(z)(z + λ(z)); λ = φ/Φ), ∇_δ = −Σ w·g₁·x, ∇_γ = Σ w·(g₁·y + [exact]/γ), H_δδ = Σ w·g₂·x xᵀ,
    H_δγ = −Σ w·g₂·x·y, H_γγ = Σ w·(g₂·y² − [exact]/γ²). A row with fewer than 3 distinct exact points (whose
    likelihood may have no maximum), or whose steps do not settle in ``max_iter``, falls back to :func:`tobit_line` on
    its repeated points (the reference these rows are tested against).
    """
    t, kind = np.asarray(t, float), np.asarray(kind, float)
    weight = np.where(np.isfinite(kind) & np.isfinite(y), np.asarray(weight, float), 0.0)
    y = np.where(weight > 0, np.asarray(y, float), 0.0)
    kind = np.where(weight > 0, kind, EXACT).astype(int)
    total = weight.sum(axis=1)
    centre = weight @ t / total
    scale = np.sqrt(np.maximum(weight @ (t * t) / total - centre**2, 0.0))
    scale = np.where(scale > 0, scale, 1.0)
    u = (t[None, :] - centre[:, None]) / scale[:, None]
    theta = _olsen_start(u, y, kind, weight, start, centre, scale)
    data = (u, y, kind == EXACT, kind == LOWER, kind == UPPER, weight)
    distinct_exact = np.count_nonzero((kind == EXACT) & (weight > 0), axis=1)
    settled = _newton(theta, data, max_iter, distinct_exact >= 3)
    gamma = theta[:, 2]
    slope = theta[:, 0] / gamma / scale
    intercept = theta[:, 1] / gamma - slope * centre
    sigma = 1.0 / gamma
    for r in np.flatnonzero(~settled):
        index = np.repeat(np.arange(t.size), weight[r].astype(int))
        row_start = None if start is None else tuple(np.broadcast_to(v, len(y))[r] for v in start)
        slope[r], intercept[r], sigma[r] = tobit_line(t[index], y[r, index], kind[r, index], row_start)
    return slope, intercept, sigma


def _olsen_start(u, y, kind, weight, start, centre, scale) -> np.ndarray:
    """Each row's start (δ_A, δ_B, γ): the line ``start`` (else the weighted least-squares line through the exact
    points, or through all where fewer than 3 are exact), σ the weighted spread of its residuals there (≥ 1e-3)."""
    exact_w = np.where(kind == EXACT, weight, 0.0)
    fit_w = np.where((exact_w.sum(axis=1) >= 3)[:, None], exact_w, weight)
    sw = fit_w.sum(axis=1)
    if start is not None and np.all(np.isfinite(start)):  # numbers, or one each per row
        slope0 = np.asarray(start[0], float) * scale
        intercept0 = start[1] + start[0] * centre
    else:
        mu, my = (fit_w * u).sum(axis=1) / sw, (fit_w * y).sum(axis=1) / sw
        slope0 = (fit_w * (u - mu[:, None]) * (y - my[:, None])).sum(axis=1) / (fit_w * (u - mu[:, None]) ** 2).sum(
            axis=1
        )
        intercept0 = my - slope0 * mu
    resid = y - slope0[:, None] * u - intercept0[:, None]
    mean = (fit_w * resid).sum(axis=1) / sw
    sigma0 = np.maximum(np.sqrt((fit_w * (resid - mean[:, None]) ** 2).sum(axis=1) / sw), 1e-3)
    return np.stack([slope0 / sigma0, intercept0 / sigma0, 1.0 / sigma0], axis=1)


def _loglik(theta, data, need: int = 0):
    """ℓ of each row (and with ``need`` ≥ 1 the gradient, ≥ 2 the Hessian) of :func:`tobit_lines_weighted`."""
    u, y, exact, lower, upper, w = data
    da, db, gamma = theta[:, :1], theta[:, 1:2], theta[:, 2:]
    with np.errstate(invalid="ignore", divide="ignore"):
        z = gamma * y - da * u - db
        log_gamma = np.log(gamma)
    signed = np.where(lower, -z, z)
    log_cdf = special.log_ndtr(signed)
    point = np.where(exact, log_gamma - 0.5 * z * z, log_cdf)
    value = np.sum(w * point, axis=1)
    value = np.where(gamma[:, 0] > 0, value, -np.inf)
    if not need:
        return value, None, None
    mills = _mills(signed, log_cdf)
    g1 = np.where(exact, -z, np.where(lower, -mills, mills))
    g2 = np.where(exact, -1.0, -mills * (mills + signed))
    wg1, wg2, we = w * g1, w * g2, np.where(exact, w, 0.0).sum(axis=1)
    grad = np.stack([-(wg1 * u).sum(axis=1), -wg1.sum(axis=1), (wg1 * y).sum(axis=1) + we / gamma[:, 0]], axis=1)
    h = np.empty((len(theta), 3, 3))
    h[:, 0, 0], h[:, 0, 1], h[:, 1, 1] = (wg2 * u * u).sum(axis=1), (wg2 * u).sum(axis=1), wg2.sum(axis=1)
    h[:, 0, 2], h[:, 1, 2] = -(wg2 * u * y).sum(axis=1), -(wg2 * y).sum(axis=1)
    h[:, 2, 2] = (wg2 * y * y).sum(axis=1) - we / gamma[:, 0] ** 2
    h[:, 1, 0], h[:, 2, 0], h[:, 2, 1] = h[:, 0, 1], h[:, 0, 2], h[:, 1, 2]
    return value, grad, h


def _newton(theta: np.ndarray, data, max_iter: int, solvable: np.ndarray) -> np.ndarray:
    """Damped Newton ascent of :func:`_loglik` in place over the ``solvable`` rows of ``theta``; which rows settled
    (Newton's decrement ∇ᵀ(−H)⁻¹∇ below 1e-12·(1 + |ℓ|), the last full step taken; a singular Hessian stops a row)."""
    settled = np.zeros(len(theta), bool)
    active = np.flatnonzero(solvable)
    for _ in range(max_iter):
        if not active.size:
            break
        part = tuple(a[active] for a in data)
        value, grad, h = _loglik(theta[active], part, need=2)
        with np.errstate(invalid="ignore", over="ignore"):
            regular = np.isfinite(h).all(axis=(1, 2)) & (np.abs(np.linalg.det(np.where(np.isfinite(h), h, 0.0))) > 0)
            step = np.full(grad.shape, np.nan)
            step[regular] = -np.linalg.solve(h[regular], grad[regular, :, None])[:, :, 0]
        decrement = np.sum(grad * step, axis=1)
        todo = np.isfinite(step).all(axis=1) & np.isfinite(value) & (decrement >= 0)
        done = todo & (decrement <= 1e-12 * (1.0 + np.abs(value)))
        theta[active[done]] += step[done]
        settled[active[done]] = True
        todo &= ~done
        size = np.ones(active.size)
        for _ in range(60):
            better = _loglik(theta[active] + size[:, None] * step, part)[0] >= value
            fail = todo & ~better
            if not fail.any():
                break
            size[fail] *= 0.5
        todo &= size > 2.0**-59
        theta[active[todo]] += size[todo, None] * step[todo]
        active = active[todo]
    return settled
