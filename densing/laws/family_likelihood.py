"""The family law's binomial maximum likelihood: Fisher scoring over the law's covariate, the dispersion-scaled
covariance, parametric draws (the fit :func:`densing.laws.family.fit_family` makes).

The law is S = d + c·σ(γ·(x − l)), x the shape's covariate of the size (ln N, or u = −(N/N_unit)^−α for the power
shape: :func:`densing.laws.family.covariate`); a member's score S_i is a share of n_i items, so its log-likelihood is
n_i·[S_i·ln p_i + (1 − S_i)·ln(1 − p_i)] with p_i = S(x_i), maximised by Fisher scoring with step halving
(McCullagh & Nelder 1989, §2.5 and §9.2: quasi-likelihood), vectorised over fits. The covariance is φ̂·I(θ̂)⁻¹,
φ̂ = max(1, X²/(m − 2)) the Pearson dispersion (:mod:`densing.laws.family`'s docstring says why).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from densing.runtime.memo import keep, recall

#: Redraws of a parametric draw whose γ is not positive, at most (in rounds).
MAX_REDRAWS = 100
#: Fisher-scoring iterations of the likelihood fit, and step halvings per iteration.
MAX_SCORING_STEPS = 200
MAX_HALVINGS = 40
#: The normal quantile of a two-sided 95% interval (the reference rule's slope test, the held-out z test).
Z_95 = 1.959963984540054


@dataclass(frozen=True)
class LikelihoodFit:
    """The binomial maximum-likelihood family law on one benchmark (module docstring).

    The linear predictor is η = g·(x − ``centre``) + h, x the shape's covariate (ln N or u, centred for conditioning),
    so γ = g and l = centre − h/g. ``covariance`` is φ̂·I(g, h)⁻¹, ``dispersion`` the φ̂ used, ``own_dispersion`` the
    family's own X²/(m − 2) (NaN with two members), ``converged`` whether Fisher scoring met its tolerance.
    """

    slope: float
    offset: float
    centre: float
    covariance: np.ndarray
    dispersion: float
    converged: bool
    own_dispersion: float
    log_likelihood: float
    n_members: int
    chance: float
    scale: float
    information: np.ndarray | None = None

    def with_dispersion_floor(self, dispersion_floor: float) -> LikelihoodFit:
        """The same maximum at another dispersion floor: φ̂ = max(1, ``dispersion_floor``, X²/(m − 2)) (1 in place
        of the Pearson term when m = 2) and the covariance φ̂·I(θ̂)⁻¹, I the ``information`` at θ̂."""
        dispersion = max(1.0, float(dispersion_floor), self.own_dispersion if self.n_members > 2 else 1.0)
        try:
            covariance = dispersion * np.linalg.inv(self.information)
        except np.linalg.LinAlgError:
            covariance = np.full((2, 2), np.inf)
        if not np.all(np.isfinite(covariance)) or covariance[0, 0] <= 0 or covariance[1, 1] <= 0:
            covariance = np.full((2, 2), np.inf)
        return replace(self, dispersion=dispersion, covariance=covariance)

    @property
    def level(self) -> float:
        """l = centre − h/γ (NaN unless γ > 0)."""
        return self.centre - self.offset / self.slope if self.slope > 0 else math.nan

    @property
    def slope_stderr(self) -> float:
        return float(math.sqrt(self.covariance[0, 0])) if np.isfinite(self.covariance[0, 0]) else math.nan

    def slope_interval(self, z: float = Z_95) -> tuple[float, float]:
        """γ̂ ± z·se(γ̂), the Wald interval from the (dispersion-scaled) information."""
        se = self.slope_stderr
        return self.slope - z * se, self.slope + z * se

    def predict(self, covariate) -> tuple[np.ndarray, np.ndarray]:
        """(Ŝ, its standard error by the delta method) at the covariate x (ln N or u, as fitted): Ŝ = d + c·σ(η),
        ∇Ŝ = c·σ(1−σ)·(x − centre, 1)."""
        x = np.asarray(covariate, float) - self.centre
        sig = _expit(self.slope * x + self.offset)
        grad = self.scale * sig * (1 - sig)
        var = grad**2 * (self.covariance[0, 0] * x**2 + 2 * self.covariance[0, 1] * x + self.covariance[1, 1])
        return self.chance + self.scale * sig, np.sqrt(np.maximum(var, 0.0))

    def draws(self, count: int, rng: np.random.Generator) -> tuple[list[tuple[float, float]], int]:
        """``count`` draws of (γ, l) from N((g, h), covariance), redrawn while γ ≤ 0: (draws, redraws)."""
        out: list[tuple[float, float]] = []
        redraws, mean = 0, np.array([self.slope, self.offset])
        for _ in range(MAX_REDRAWS):
            if (need := count - len(out)) <= 0:
                break
            theta = rng.multivariate_normal(mean, self.covariance, size=need, method="cholesky")
            ok = theta[:, 0] > 0
            redraws += int((~ok).sum())
            g, h = theta[ok, 0], theta[ok, 1]
            out.extend(zip(g.tolist(), (self.centre - h / g).tolist()))
        return out[:count], redraws


def _expit(eta):
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(eta, float)))


def _log_likelihood(eta, scores, counts, chance, scale):
    p = np.clip(chance + scale * _expit(eta), 1e-12, 1 - 1e-12)
    return np.sum(counts * (scores * np.log(p) + (1 - scores) * np.log1p(-p)), axis=-1)


def _start(log_n, scores, chance: float, scale: float) -> tuple:
    """One fit's centred covariate x − x̄, clipped scores, x̄ and the start (g₀, h₀) of Fisher scoring: OLS on
    the clipped logits z = logit(clip((S − d)/c, 0.05, 0.95)) (the logit transform only to start), g₀ = 0.5 unless
    the OLS slope exceeds 0.05."""
    x_all = np.asarray(log_n, float)
    s = np.clip(np.asarray(scores, float), 0.0, 1.0)
    centre = float(np.mean(x_all))
    x = x_all - centre
    u = np.clip((s - chance) / scale, 0.05, 0.95)
    z = np.log(u / (1 - u))
    sxx = float(np.sum(x * x))
    g0 = float(np.sum(x * (z - z.mean())) / sxx) if sxx > 0 else 0.0
    return x, s, centre, g0 if g0 > 0.05 else 0.5, float(np.mean(z))


def _scoring(x, s, counts, chance, scale, g, h) -> tuple:
    """Fisher scoring with step halving from θ = (g, h) (B,), each row of ``counts`` (B × m) one fit.

    With p_i = d + c·σ(η_i), η_i = g·x_i + h and ∂p_i/∂θ = c·σ(1 − σ)·(x_i, 1): the score
    U = Σ n_i·(S_i − p_i)/(p_i(1 − p_i))·∂p_i/∂θ, the information I = Σ n_i·(∂p_i/∂θ)(∂p_i/∂θ)ᵀ/(p_i(1 − p_i)),
    and θ ← θ + t·I⁻¹U with t halved until the log-likelihood does not fall (McCullagh & Nelder 1989, §2.5).
    ``x`` and ``s`` are shared (m,) or one row per fit (B × m), ``chance`` and ``scale`` scalars or (B × 1) columns.
    Each row's arithmetic is its own, so a row comes out the same, bit for bit, alone or among others (a stopped row
    is left where it stopped). Returns (g, h, information (B, 2, 2), converged, log-likelihood).
    """
    batch = g.size
    ll = _log_likelihood(g[:, None] * x + h[:, None], s, counts, chance, scale)
    converged = np.zeros(batch, bool)
    info = np.zeros((batch, 2, 2))
    for _ in range(MAX_SCORING_STEPS):
        eta = g[:, None] * x + h[:, None]
        sig = _expit(eta)
        p = np.clip(chance + scale * sig, 1e-12, 1 - 1e-12)
        dp = scale * sig * (1 - sig)
        resid = counts * (s - p) / (p * (1 - p)) * dp
        ww = counts * dp**2 / (p * (1 - p))
        info = np.stack(
            [
                np.stack([np.sum(ww * x * x, -1), np.sum(ww * x, -1)], -1),
                np.stack([np.sum(ww * x, -1), np.sum(ww, -1)], -1),
            ],
            -2,
        )
        grad = np.stack([np.sum(resid * x, -1), np.sum(resid, -1)], -1)
        det = info[:, 0, 0] * info[:, 1, 1] - info[:, 0, 1] ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            step_g = (info[:, 1, 1] * grad[:, 0] - info[:, 0, 1] * grad[:, 1]) / det
            step_h = (info[:, 0, 0] * grad[:, 1] - info[:, 0, 1] * grad[:, 0]) / det
        active = ~converged & np.isfinite(step_g) & np.isfinite(step_h)
        if not active.any():
            break
        step_g, step_h = np.where(active, step_g, 0.0), np.where(active, step_h, 0.0)  # a stopped row stays put
        t = np.ones(batch)
        new_ll = ll.copy()
        for _ in range(MAX_HALVINGS):
            trial = _log_likelihood((g + t * step_g)[:, None] * x + (h + t * step_h)[:, None], s, counts, chance, scale)
            worse = active & ~(trial >= ll - 1e-12)
            new_ll = np.where(active & ~worse, trial, new_ll)
            if not worse.any():
                break
            t = np.where(worse, t / 2, t)
        moved = active & (new_ll >= ll - 1e-12)
        g = np.where(moved, g + t * step_g, g)
        h = np.where(moved, h + t * step_h, h)
        small = np.abs(t * step_g) + np.abs(t * step_h) < 1e-10 * (1 + np.abs(g) + np.abs(h))
        converged |= active & (small | (np.abs(new_ll - ll) < 1e-13 * (1 + np.abs(ll))))
        ll = np.where(moved, new_ll, ll)
    return g, h, info, converged, ll


def likelihood_fit(
    log_n, scores, items, chance: float, scale: float, *, dispersion_floor: float = 1.0
) -> LikelihoodFit:
    """The family law by binomial maximum likelihood (module docstring) on ``log_n``, the shape's covariate of the
    members' sizes: φ̂ = max(1, ``dispersion_floor``, X²/(m − 2)), X² = Σ n_i·(S_i − p̂_i)²/(p̂_i·(1 − p̂_i)) the
    Pearson statistic (left out when m = 2). Inside :func:`densing.runtime.memo.same_tables` a maximum is reused for the
    same inputs (bit for bit)."""
    return likelihood_fits([(log_n, scores, items, chance, scale)], dispersion_floor)[0]


def _key(log_n, scores, items, chance, scale) -> tuple:
    """A fit's inputs in full (their bytes), naming its maximum for :func:`densing.runtime.memo.keep`."""
    return ("family likelihood", log_n.tobytes(), scores.tobytes(), items.tobytes(), float(chance), float(scale))


def likelihood_fits(problems: list[tuple], dispersion_floors) -> list[LikelihoodFit]:
    """:func:`likelihood_fit` of each problem (log_n, scores, items, chance, scale) at its dispersion floor, the same
    bit for bit: the Fisher scoring of problems with the same number of members runs as one batch (:func:`_scoring`)."""
    floors = np.broadcast_to(np.asarray(dispersion_floors, float), (len(problems),))
    prepared, maxima = [], {}
    for i, (log_n, scores, items, chance, scale) in enumerate(problems):
        log_n, scores = np.asarray(log_n, float), np.asarray(scores, float)
        items = np.broadcast_to(np.asarray(items, float), scores.shape)
        prepared.append((log_n, scores, items, chance, scale, _start(log_n, scores, chance, scale)))
        if (found := recall(_key(log_n, scores, items, chance, scale))) is not None:
            maxima[i] = found
    for m in sorted({p[1].size for i, p in enumerate(prepared) if i not in maxima}):
        rows = [i for i, p in enumerate(prepared) if p[1].size == m and i not in maxima]
        pick = [prepared[i] for i in rows]
        g, h, info, converged, ll = _scoring(
            np.stack([p[5][0] for p in pick]),
            np.stack([p[5][1] for p in pick]),
            np.stack([p[2] for p in pick]),
            np.array([[p[3]] for p in pick]),
            np.array([[p[4]] for p in pick]),
            np.array([p[5][3] for p in pick]),
            np.array([p[5][4] for p in pick]),
        )
        for k, i in enumerate(rows):
            maxima[i] = (g[k], h[k], prepared[i][5][2], info[k], converged[k], ll[k])
            keep(_key(*prepared[i][:5]), maxima[i])
    return [_finished(*p[:5], *maxima[i], floors[i]) for i, p in enumerate(prepared)]


def _finished(
    log_n, scores, items, chance, scale, g, h, centre, info, converged, log_likelihood, dispersion_floor
) -> LikelihoodFit:
    """The :class:`LikelihoodFit` at the maximum (g, h) with information ``info`` (:func:`likelihood_fit`)."""
    g, h = float(g), float(h)
    x = log_n - centre
    p = np.clip(chance + scale * _expit(g * x + h), 1e-12, 1 - 1e-12)
    m = scores.size
    pearson = float(np.sum(items * (scores - p) ** 2 / (p * (1 - p))))
    own = pearson / (m - 2) if m > 2 else math.nan
    fit = LikelihoodFit(
        slope=g,
        offset=h,
        centre=centre,
        covariance=np.full((2, 2), np.inf),
        dispersion=1.0,
        converged=bool(converged),
        own_dispersion=own,
        log_likelihood=float(log_likelihood),
        n_members=m,
        chance=chance,
        scale=scale,
        information=info,
    )
    return fit.with_dispersion_floor(dispersion_floor)
