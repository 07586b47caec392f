"""A family's members brought to one training budget D0 through a stated loss law.

The law is the parametric form of Hoffmann et al. 2022, "Training Compute-Optimal Large Language
Models" (arXiv 2203.15556), approach 3:

    L(N, D) = E + A·N^-α + B·D^-β

A member with N parameters trained on D tokens reaches L(N, D); its size at D0 is the N' that
reaches the same loss on D0 tokens:

    A·N'^-α = A·N^-α + B·(D^-β − D0^-β),   N' = (A / (A·N^-α + B·(D^-β − D0^-β)))^(1/α)

Where the right-hand side is ≤ 0 the member's loss is at or below E + B·D0^-β, which no finite
size reaches at D0: that member has no N' (NaN, with a reason in words).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from densing.numbers import format_count
from densing.errors import InputError
from densing.numbers import format_number


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

    def __post_init__(self):
        for field in ("A", "alpha", "B", "beta"):
            if not (math.isfinite(getattr(self, field)) and getattr(self, field) > 0):
                raise InputError(f"loss law {self.name!r}, field '{field}': expected a positive finite number")
        if not math.isfinite(self.E):
            raise InputError(f"loss law {self.name!r}, field 'E': expected a finite number")

    def loss(self, params, tokens) -> np.ndarray:
        """L(N, D) = E + A·N^-α + B·D^-β (Hoffmann et al. 2022, arXiv 2203.15556, eq. 2; constants
        from ``self.source``), for N = ``params`` and D = ``tokens`` (broadcast)."""
        params, tokens = _positive_counts(params, "params"), _positive_counts(tokens, "tokens")
        return self.E + self.A * params ** -self.alpha + self.B * tokens ** -self.beta

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
            raise InputError(f"fields 'params' and 'tokens': shapes {np.shape(params)} and "
                             f"{np.shape(tokens)} do not match") from error
        loss_above_floor = self.A * params ** -self.alpha + self.B * (tokens ** -self.beta - d0 ** -self.beta)
        reachable = loss_above_floor > 0  # the floor at D0, E + B·D0^-β, is what no finite size reaches
        return np.where(reachable, (self.A / np.where(reachable, loss_above_floor, 1.0)) ** (1.0 / self.alpha), np.nan)


# Hoffmann et al. 2022, "Training Compute-Optimal Large Language Models", arXiv 2203.15556,
# approach 3, the fitted law of eq. 10: E = 1.69, A = 406.4, B = 410.7, α = 0.34, β = 0.28.
HOFFMANN_2022 = LossLaw(
    E=1.69, A=406.4, alpha=0.34, B=410.7, beta=0.28, name="hoffmann_2022",
    source="Hoffmann et al. 2022, Training Compute-Optimal Large Language Models, arXiv 2203.15556, "
           "eq. 10 (approach 3)",
)
# Besiroglu et al. 2024, "Chinchilla Scaling: A replication attempt", arXiv 2404.10102: approach 3
# refitted to the data of Hoffmann et al.'s figure 4 (five outliers dropped): E = 1.8172,
# A = 482.01, B = 2085.43, α = 0.3478, β = 0.3658.
BESIROGLU_2024 = LossLaw(
    E=1.8172, A=482.01, alpha=0.3478, B=2085.43, beta=0.3658, name="besiroglu_2024",
    source="Besiroglu et al. 2024, Chinchilla Scaling: A replication attempt, arXiv 2404.10102 "
           "(approach 3 refitted)",
)
LOSS_LAWS = {law.name: law for law in (HOFFMANN_2022, BESIROGLU_2024)}


def translate_members(params, tokens, d0, law: LossLaw = HOFFMANN_2022) -> tuple[np.ndarray, list[str]]:
    """Each member's size at one training budget ``d0`` (tokens) under ``law``, and one sentence per
    member with no such size (member i is ``params[i]``, trained on ``tokens[i]``).

    N' = (A / (A·N^-α + B·(D^-β − D0^-β)))^(1/α), from L(N, D) = E + A·N^-α + B·D^-β (Hoffmann et
    al. 2022, arXiv 2203.15556, approach 3): N' on D0 tokens reaches the loss N reaches on D.
    A member whose loss is at or below E + B·D0^-β has none: NaN, and the sentence says why.
    """
    sizes = np.atleast_1d(law.size_at(params, tokens, d0)).ravel()
    params, tokens = (np.ravel(v) for v in np.broadcast_arrays(np.asarray(params, float), np.asarray(tokens, float)))
    losses = law.loss(params, tokens)
    floor = law.E + law.B * float(d0) ** -law.beta
    reasons = [
        f"member {i} (N = {format_count(params[i])}, D = {format_count(tokens[i])}): its loss "
        f"{format_number(losses[i], digits=4)} is below what any size reaches at D0 = {format_count(float(d0))} "
        f"(every size stays above {format_number(floor, digits=4)})"
        for i in np.flatnonzero(np.isnan(sizes))
    ]
    return sizes, reasons
