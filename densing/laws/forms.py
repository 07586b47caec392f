"""The functional forms of the Densing Law's two-step estimation (Xiao et al. 2024, arXiv 2412.04315).

Step 1, the loss law (their eq. 2, the Kaplan/Chinchilla form):

    L(N, D) = a·N^-α + b·D^-β  [+ E]

with N the parameter count, D the training tokens and the optional irreducible term E of
Hoffmann et al. 2022 (Chinchilla). Step 2, the performance law (their eq. 3):

    S(L) = c / (1 + exp(−γ·(L − l))) + d

mapping conditional loss to a downstream score. Because a score rises as the loss falls, γ < 0
in this parameterisation. Composed for reported scores only (no losses measured):

    S(N, D) = c / (1 + exp(−γ·(a·N^-α + b·D^-β − l))) + d

In the composed law the latent loss has no unit of its own: (a, b, l, 1/γ) can all be scaled by
one factor without changing S, so densing fixes γ = −1 there (the inversion is unaffected).

The inverse (their eq. 4) gives the loss a score needs, then the size a reference model trained
on D0 tokens would need to reach that loss:

    L̂(S) = l − (1/γ)·ln(c/(S − d) − 1)
    N̂(S) = ((L̂ − b·D0^-β − E) / a)^(−1/α)
"""
from __future__ import annotations

import numpy as np


def loss_law(n_params, train_tokens, a, alpha, b, beta, E=0.0):
    """L(N, D) = a·N^-α + b·D^-β + E  (Xiao et al. 2024, eq. 2; E from Hoffmann et al. 2022)."""
    n = np.asarray(n_params, dtype=float)
    t = np.asarray(train_tokens, dtype=float)
    return a * n ** (-alpha) + b * t ** (-beta) + E


def performance_law(loss, c, gamma, l, d):
    """S(L) = c / (1 + exp(−γ·(L − l))) + d  (Xiao et al. 2024, eq. 3)."""
    x = np.asarray(loss, dtype=float)
    z = np.clip(-gamma * (x - l), -700.0, 700.0)
    return c / (1.0 + np.exp(z)) + d


def composed_law(n_params, train_tokens, a, alpha, b, beta, c, gamma, l, d, E=0.0):
    """S(N, D) = c / (1 + exp(−γ·(a·N^-α + b·D^-β + E − l))) + d  (eqs. 2 and 3 composed)."""
    return performance_law(loss_law(n_params, train_tokens, a, alpha, b, beta, E), c, gamma, l, d)


def loss_for_score(score, c, gamma, l, d):
    """L̂(S) = l − (1/γ)·ln(c/(S − d) − 1)  (Xiao et al. 2024, eq. 4, first half).

    Defined for d < S < c + d (with c > 0); elsewhere returns NaN — callers censor those scores.
    """
    s = np.asarray(score, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # S a hair above d: ratio → ∞, L̂ → its limit
        inside = (s - d) / c
        ok = (inside > 0) & (inside < 1)
        ratio = np.where(ok, 1.0 / np.where(ok, inside, 0.5) - 1.0, np.nan)
        return l - np.log(ratio) / gamma


def params_for_loss(loss, train_tokens, a, alpha, b, beta, E=0.0):
    """N̂ = ((L̂ − b·D0^-β − E) / a)^(−1/α)  (Xiao et al. 2024, eq. 4, second half).

    Defined where L̂ exceeds the data-limited floor b·D0^-β + E; elsewhere returns +inf (no finite
    model size reaches that loss at D0 tokens). NaN losses stay NaN.
    """
    x = np.asarray(loss, dtype=float)
    floor = b * np.asarray(train_tokens, dtype=float) ** (-beta) + E
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        excess = (x - floor) / a
        out = np.where(excess > 0, np.power(np.where(excess > 0, excess, 1.0), -1.0 / alpha), np.inf)
    return np.where(np.isnan(x), np.nan, out)


# -- the family law's shapes (densing.laws.family) --------------------------------------------------
#: The family law's shapes: the paper's power form and the logistic in ln N (:mod:`densing.laws.family`).
FAMILY_SHAPES = ("power", "logistic_ln_n")
#: The power shape's unit of size: u = −(N / N_unit)^−α is of order 1 for the families fitted (0.1–100 B parameters).
POWER_N_UNIT = 1e9


def family_covariate(n_params, alpha=None, n_unit=POWER_N_UNIT):
    """The family law's latent covariate: ln N (``alpha`` None: logistic_ln_n), or u = −(N / N_unit)^−α (power).

    S(N) = d + c·σ(γ·(u − l)) is the paper's sigmoid of its loss law at a fixed budget (Xiao et al. 2024, eqs. 2
    and 3, L = a·N^−α + b·D^−β with b·D^−β a constant), with a, b·D^−β and the performance law's l, γ folded into
    the two free parameters (γ, l) of a line in u."""
    n = np.asarray(n_params, dtype=float)
    if alpha is None:
        return np.log(n)
    return -np.power(n / n_unit, -np.asarray(alpha, float))


def family_size(latent, alpha=None, n_unit=POWER_N_UNIT):
    """The inverse of :func:`family_covariate`: N = e^x (logistic_ln_n), or N = N_unit·(−u)^(−1/α) for u < 0 and
    +inf for u ≥ 0 (power: no finite size reaches a latent at or above the law's asymptote). NaN stays NaN."""
    x = np.asarray(latent, dtype=float)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        if alpha is None:
            return np.exp(x)
        alpha = np.asarray(alpha, float)
        out = np.where(x < 0, n_unit * np.power(np.where(x < 0, -x, 1.0), -1.0 / alpha), np.inf)
    return np.where(np.isnan(x), np.nan, out)


def family_asymptote(c, gamma, l, d, alpha=None):
    """The family law's score as N → ∞: c + d (logistic_ln_n), d + c·σ(−γ·l) (power, u → 0)."""
    if alpha is None:
        return np.asarray(c, float) + np.asarray(d, float)
    return performance_law(0.0, c, gamma, l, d)


def family_alpha(p):
    """The power shape's α of a parameter mapping ``p`` (a family fit's params or draw columns), None for
    logistic_ln_n (a family fit without ``alpha``: files written before the power shape existed)."""
    return p.get("alpha") if "a" not in p else None
