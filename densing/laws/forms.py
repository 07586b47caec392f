"""The functional forms of the Densing Law's two-step estimation (Xiao et al. 2024, arXiv 2412.04315).

The loss law L(N, D) = a·N^-α + b·D^-β [+ E] (their eq. 2; E of Hoffmann et al. 2022), the performance law
S(L) = c / (1 + exp(−γ·(L − l))) + d (eq. 3; γ < 0: a score rises as the loss falls), the two composed for reported
scores only (densing fixes γ = −1 there: (a, b, l, 1/γ) scale together without changing S), and their inverse
(eq. 4: :func:`loss_for_score`, :func:`params_for_loss`); the family law's shapes (:mod:`densing.laws.family`); a
family's members brought to one training budget D0 through a stated loss law (:func:`translate_members`; Hoffmann et
al. 2022, arXiv 2203.15556, approach 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from densing.errors import InputError


def loss_law(n_params, train_tokens, a, alpha, b, beta, E=0.0):
    """L(N, D) = a·N^-α + b·D^-β + E  (Xiao et al. 2024, eq. 2; E from Hoffmann et al. 2022)."""
    return a * np.asarray(n_params, dtype=float) ** (-alpha) + b * np.asarray(train_tokens, dtype=float) ** (-beta) + E


def performance_law(loss, c, gamma, l, d):
    """S(L) = c / (1 + exp(−γ·(L − l))) + d  (Xiao et al. 2024, eq. 3)."""
    z = np.clip(-gamma * (np.asarray(loss, dtype=float) - l), -700.0, 700.0)
    return c / (1.0 + np.exp(z)) + d


def composed_law(n_params, train_tokens, a, alpha, b, beta, c, gamma, l, d, E=0.0):
    """S(N, D) = c / (1 + exp(−γ·(a·N^-α + b·D^-β + E − l))) + d  (eqs. 2 and 3 composed)."""
    return performance_law(loss_law(n_params, train_tokens, a, alpha, b, beta, E), c, gamma, l, d)


def loss_for_score(score, c, gamma, l, d):
    """L̂(S) = l − (1/γ)·ln(c/(S − d) − 1)  (Xiao et al. 2024, eq. 4, first half); defined for d < S < c + d (c > 0),
    NaN elsewhere (callers censor those scores)."""
    s = np.asarray(score, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # S a hair above d: ratio → ∞, L̂ → its limit
        inside = (s - d) / c
        ok = (inside > 0) & (inside < 1)
        ratio = np.where(ok, 1.0 / np.where(ok, inside, 0.5) - 1.0, np.nan)
        return l - np.log(ratio) / gamma


def params_for_loss(loss, train_tokens, a, alpha, b, beta, E=0.0):
    """N̂ = ((L̂ − b·D0^-β − E) / a)^(−1/α)  (Xiao et al. 2024, eq. 4, second half); +inf where L̂ does not exceed the
    data-limited floor b·D0^-β + E (no finite size reaches that loss at D0 tokens); NaN losses stay NaN."""
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
    """The family law's latent covariate: ln N (``alpha`` None: logistic_ln_n), or u = −(N / N_unit)^−α (power: the
    paper's sigmoid of its loss law at a fixed budget, Xiao et al. 2024, eqs. 2 and 3, with a, b·D^−β, l and γ folded
    into the two free parameters (γ, l) of a line in u)."""
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
    """The power shape's α of a family fit's ``p`` (params or draw columns), None for logistic_ln_n."""
    return p.get("alpha") if "a" not in p else None


# -- a family's members brought to one training budget D0 through a stated loss law ------------------------------------


def _positive_counts(values, field: str) -> np.ndarray:
    """``values`` as a float array, or an InputError naming ``field`` and the first bad value."""
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise InputError(f"field '{field}': expected positive finite numbers, got {values!r}") from error
    bad = np.flatnonzero(~(np.isfinite(array) & (array > 0)))
    if bad.size:
        where = f" (member {bad[0]})" if array.ndim else ""
        raise InputError(f"field '{field}': expected positive finite numbers, got {float(array.flat[bad[0]])}{where}")
    return array


@dataclass(frozen=True)
class LossLaw:
    """L(N, D) = E + A·N^-α + B·D^-β with published constants, their ``source`` and a short ``name``."""

    E: float
    A: float
    alpha: float
    B: float
    beta: float
    source: str
    name: str

    def loss(self, params, tokens) -> np.ndarray:
        """L(N, D) = E + A·N^-α + B·D^-β (Hoffmann et al. 2022, arXiv 2203.15556, eq. 2; constants
        from ``self.source``), for N = ``params`` and D = ``tokens`` (broadcast)."""
        params, tokens = _positive_counts(params, "params"), _positive_counts(tokens, "tokens")
        return self.E + self.A * params**-self.alpha + self.B * tokens**-self.beta

    def size_at(self, params, tokens, d0) -> np.ndarray:
        """N' = (A / (A·N^-α + B·(D^-β − D0^-β)))^(1/α): the size that reaches on ``d0`` tokens the loss
        ``params`` reach on ``tokens``; NaN where the denominator is ≤ 0 (no size reaches that loss)."""
        params, tokens = _positive_counts(params, "params"), _positive_counts(tokens, "tokens")
        if np.ndim(d0) != 0:
            raise InputError(f"field 'd0': expected one token count, got {d0!r}")
        d0 = float(_positive_counts(d0, "d0"))
        try:
            params, tokens = np.broadcast_arrays(params, tokens)
        except ValueError as error:
            raise InputError(
                f"fields 'params' and 'tokens': shapes {np.shape(params)} and {np.shape(tokens)} do not match"
            ) from error
        loss_above_floor = self.A * params**-self.alpha + self.B * (tokens**-self.beta - d0**-self.beta)
        reachable = loss_above_floor > 0  # the floor at D0, E + B·D0^-β, is what no finite size reaches
        return np.where(reachable, (self.A / np.where(reachable, loss_above_floor, 1.0)) ** (1.0 / self.alpha), np.nan)


HOFFMANN_2022 = LossLaw(
    E=1.69,
    A=406.4,
    alpha=0.34,
    B=410.7,
    beta=0.28,
    name="hoffmann_2022",
    source=(
        "Hoffmann et al. 2022, Training Compute-Optimal Large Language Models, arXiv 2203.15556, eq. 10 (approach 3)"
    ),
)
# approach 3 refitted to the data of Hoffmann et al.'s figure 4, five outliers dropped
BESIROGLU_2024 = LossLaw(
    E=1.8172,
    A=482.01,
    alpha=0.3478,
    B=2085.43,
    beta=0.3658,
    name="besiroglu_2024",
    source=("Besiroglu et al. 2024, Chinchilla Scaling: A replication attempt, arXiv 2404.10102 (approach 3 refitted)"),
)
LOSS_LAWS = {law.name: law for law in (HOFFMANN_2022, BESIROGLU_2024)}


@dataclass(frozen=True)
class Unreachable:
    """A member with no size at D0 under a loss law (:func:`translate_members`), as values: its index ``member``, its
    N (``params``) and D (``tokens``), its ``loss``, the budget ``d0`` and the ``floor`` E + B·D0^-β every size stays
    above; in words, :func:`densing.present.words.unreachable_words`."""

    member: int
    params: float
    tokens: float
    loss: float
    d0: float
    floor: float


def translate_members(params, tokens, d0, law: LossLaw = HOFFMANN_2022) -> tuple[np.ndarray, list[Unreachable]]:
    """Each member's size at one training budget ``d0`` (tokens) under ``law``, and the values of each member with no
    such size (:class:`Unreachable`; member i is ``params[i]``, trained on ``tokens[i]``).

    N' = (A / (A·N^-α + B·(D^-β − D0^-β)))^(1/α), from L(N, D) = E + A·N^-α + B·D^-β (Hoffmann et al. 2022, arXiv
    2203.15556, approach 3): N' on D0 tokens reaches the loss N reaches on D; none (NaN) where that loss is at or below
    E + B·D0^-β.
    """
    sizes = np.atleast_1d(law.size_at(params, tokens, d0)).ravel()
    params, tokens = (np.ravel(v) for v in np.broadcast_arrays(np.asarray(params, float), np.asarray(tokens, float)))
    losses = law.loss(params, tokens)
    floor = law.E + law.B * float(d0) ** -law.beta
    unreachable = [
        Unreachable(int(i), float(params[i]), float(tokens[i]), float(losses[i]), float(d0), float(floor))
        for i in np.flatnonzero(np.isnan(sizes))
    ]
    return sizes, unreachable
