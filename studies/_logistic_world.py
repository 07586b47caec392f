"""The logistic world of ``studies/capability_coverage.py`` (``--world logistic_ln_n``): the study's earlier planted
world, whose families' true curves are sigmoids in ln N.

It is kept so that the misspecification result stays reproducible: densing's default family law is the power shape
(:mod:`densing.laws.family`), so every reference of this world is fitted by a law of another shape. The world itself
(targets drawn by a stated design, seven planted families with their departures, the canonical curves
S_b(x) = d_b + (1 − d_b)·σ(γ_b·(x − l_b)) in x = ln N̂) is described in ``studies/capability_coverage.py``'s
docstring, section *the logistic world*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from densing.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, LN2
from densing.data.benchmarks import CHANCE_LEVELS
from densing.trend.capability import BUDGET_D0
from studies import _planted

#: The shape of the planted families' true curves (their noise-free fits, the claimed estimand, use it).
SHAPE = "logistic_ln_n"
EPOCH = DEFAULT_EPOCH
WINDOW_DAYS = 800.0
FRONTIER_END = 0.5  # B: the frontier's level (ln ρ on the canonical scale) at the window's end
GAP_MEAN = 1.0  # u ~ Exponential(mean 1): the gap below the frontier
SKILL_SD = 0.3  # δ ~ N(0, 0.3²): a target's benchmark-specific skill, in ln N
MEMBER_SD = 0.15  # ε ~ N(0, 0.15²): a family member's deviation from its family's smooth curve, in ln N
SIZE_MEAN, SIZE_SD, SIZE_DATE_CORR, SIZE_RANGE = 9.85, 0.75, 0.2, (7.85, 11.6)  # log10 N of the targets
V2_PRESENT = (0.2, 0.65)  # P(MATH-hard present) = 0.2 + 0.65·t/800
HUMANEVAL_PRESENT = 0.9


@dataclass(frozen=True)
class Benchmark:
    months: float  # planted doubling time ln 2 / A_b, months
    gamma: float  # γ_b of the canonical curve, per unit ln N
    level: float  # l_b: the canonical ln N̂ at the curve's midpoint
    v2: bool  # a leaderboard-v2 benchmark: present for about half the targets

    @property
    def slope(self) -> float:
        return LN2 / (self.months * DAYS_PER_MONTH)


#: The canonical curves and planted doubling times; chance levels and item counts come from densing's registry.
BENCHMARKS: dict[str, Benchmark] = {
    "gsm8k": Benchmark(2.0, 0.5, 21.8, False),
    "math_hard": Benchmark(3.0, 0.7, 25.3, True),
    "mmlu": Benchmark(4.0, 0.45, 22.6, False),
    "humaneval": Benchmark(6.0, 0.45, 23.4, False),
    "hellaswag": Benchmark(12.0, 0.35, 20.2, False),
}
HEADLINE_SET: tuple[str, ...] = ("mmlu", "math_hard", "humaneval")


@dataclass(frozen=True)
class Family:
    sizes: tuple[float, ...]
    tokens: float
    released: float  # t_f: days since the epoch (its models are targets of the other references, dated so)
    gap: float  # g_f: how far its pivot member sits below the frontier of its date, in ln ρ
    shape: float  # k_f: d h_f / d ln N (1: the targets' shape); below the pivot where ``kink`` is set
    pivot: float  # N_f*
    kink: float | None = None  # d h_f / d ln N above the pivot: a law of another shape (misspecified)
    law: bool = False  # planted through the loss law: h_f = ln N_f* + c_{f,b} + ln N'(N) − ln N'(N_f*), N' at D0

    def offset(self, benchmark: str) -> float:
        """ln ρ of the pivot member on benchmark b: the frontier of its date, A_b·(t_f − 800) + B, less g_f."""
        return BENCHMARKS[benchmark].slope * (self.released - WINDOW_DAYS) + FRONTIER_END - self.gap


#: The candidate reference families (names planted; each at one budget, sizes spanning ≥ 20×). The first four
#: inform; ``floor`` sits on the floor of the reasoning benchmarks (OPT-like: 8 sizes to 66B on 180B tokens, far
#: below the frontier: its best member reaches a few percent of the way from chance to the top decile on MMLU,
#: MATH-hard, GSM8K and HumanEval); ``kinked`` follows a law of another shape (its effective size grows 1.6× as fast
#: as the targets' below its pivot and 0.4× above); ``overtrained_law`` is over-trained through the loss law itself
#: (Hoffmann et al. 2022 at 15T tokens, brought to D0 = 1T; sizes to 20B, each of which has a size at D0 under that
#: law), the case the budget translation is made for.
FAMILIES: dict[str, Family] = {
    "old": Family((0.16e9, 0.41e9, 1e9, 2.8e9, 6.9e9, 12e9), 3e11, 40.0, 0.5, 1.0, 7e9),
    "mid": Family((1.5e9, 6e9, 9e9, 34e9), 3.6e12, 300.0, 0.3, 1.0, 7e9),
    "wide": Family((0.5e9, 1.8e9, 4e9, 7e9, 14e9, 32e9, 72e9), 3e12, 450.0, 0.0, 1.0, 7e9),
    "overtrained": Family((1e9, 3e9, 8e9, 70e9, 405e9), 15e12, 700.0, 0.0, 0.75, 8e9),
    "floor": Family((0.125e9, 0.35e9, 1.3e9, 2.7e9, 6.7e9, 13e9, 30e9, 66e9), 1.8e11, 0.0, 5.0, 1.0, 7e9),
    "kinked": Family((0.5e9, 1.5e9, 4e9, 9e9, 20e9, 40e9), 2e12, 500.0, 0.3, 1.6, 7e9, kink=0.4),
    "overtrained_law": Family((0.4e9, 1e9, 3e9, 8e9, 20e9), 15e12, 650.0, 0.0, 1.0, 8e9, law=True),
}
#: The budget rows: every reference brought to densing's budget D0 (:data:`densing.trend.capability.BUDGET_D0`)
#: through the loss law before its family law is refitted, as ``densing trend --by benchmark`` does.
BUDGET_ROWS: tuple[str, ...] = ("mmlu", "humaneval")
#: A family with the targets' own curves (k = 1, offset 0 on every benchmark): the latent estimand's reference.
CANONICAL = Family(tuple(10.0 ** np.arange(8.0, 12.01, 0.5)), 1e12, WINDOW_DAYS, FRONTIER_END, 1.0, 7e9)


def curve(benchmark: str, x) -> np.ndarray:
    """S_b(x) = d_b + (1 − d_b)·σ(γ_b·(x − l_b)): benchmark b's canonical curve of the effective size x = ln N̂."""
    b, d = BENCHMARKS[benchmark], CHANCE_LEVELS[benchmark]
    return d + (1.0 - d) / (1.0 + np.exp(-b.gamma * (np.asarray(x, float) - b.level)))


def effective(family: Family, benchmark: str, log_n) -> np.ndarray:
    """h_{f,b}(ln N) = ln N_f* + c_{f,b} + k_f·(ln N − ln N_f*): a family member's size on benchmark b's canonical
    scale (``kink``: k_f below the pivot, the kink's slope above; ``law``: ln N'(N) − ln N'(N_f*) in place of
    k_f·(ln N − ln N_f*), N' the size at D0 that reaches the member's loss under Hoffmann et al. 2022)."""
    pivot = math.log(family.pivot)
    log_n = np.asarray(log_n, float)
    if family.law:
        from densing.laws.forms import HOFFMANN_2022

        def at(n):
            return np.log(HOFFMANN_2022.size_at(n, family.tokens, BUDGET_D0))

        return pivot + family.offset(benchmark) + at(np.exp(log_n)) - at(np.asarray(family.pivot))
    slope = family.shape if family.kink is None else np.where(log_n < pivot, family.shape, family.kink)
    return pivot + family.offset(benchmark) + slope * (log_n - pivot)


WORLD = _planted.World(tuple(BENCHMARKS), FAMILIES, curve, effective, EPOCH, MEMBER_SD)


def draw_targets(rng: np.random.Generator, count: int, prefix: str = "m") -> pd.DataFrame:
    """``count`` targets (module docstring): model, params, t, release date, latent ln ρ_b and whether b is scored."""
    t = np.floor(rng.uniform(0, WINDOW_DAYS, count))
    z_t = (t - WINDOW_DAYS / 2) / (WINDOW_DAYS / math.sqrt(12))
    log10_n = SIZE_MEAN + SIZE_SD * (
        SIZE_DATE_CORR * z_t + math.sqrt(1 - SIZE_DATE_CORR**2) * rng.standard_normal(count)
    )
    params = 10.0 ** np.clip(log10_n, *SIZE_RANGE)
    gap = rng.exponential(GAP_MEAN, count)
    frame = pd.DataFrame(
        {
            "model": [f"{prefix}{i}" for i in range(count)],
            "params": params,
            "t": t,
            "release_date": pd.Timestamp(EPOCH) + pd.to_timedelta(t, unit="D"),
        }
    )
    v2 = rng.uniform(size=count) < V2_PRESENT[0] + V2_PRESENT[1] * t / WINDOW_DAYS
    humaneval = rng.uniform(size=count) < HUMANEVAL_PRESENT
    for name, b in BENCHMARKS.items():
        frame[f"log_rho:{name}"] = (
            b.slope * (t - WINDOW_DAYS) + FRONTIER_END - gap + SKILL_SD * rng.standard_normal(count)
        )
        frame[f"present:{name}"] = v2 if b.v2 else (humaneval if name == "humaneval" else np.ones(count, bool))
    return frame


#: The targets' and a family's tidy rows (:func:`studies._planted.target_rows`, :func:`~studies._planted.family_rows`);
#: ``rng=None``: noise-free scores.
target_rows = partial(_planted.target_rows, WORLD)
family_rows = partial(_planted.family_rows, WORLD)


def replicate_table(rng: np.random.Generator, count: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One replicate's tidy table (families and targets, binomial scores, stderr from the item counts) and its targets."""
    frame = draw_targets(rng, count)
    return _planted.replicate_table(WORLD, frame, rng), frame


def true_rows(name: str) -> pd.DataFrame:
    """The noise-free rows of family ``name`` (``"canonical"``: the targets' own curves) on every benchmark."""
    return family_rows(name, CANONICAL if name == "canonical" else FAMILIES[name], None)


def population_frame(rng: np.random.Generator, count: int) -> pd.DataFrame:
    """``count`` targets of the same design as a replicate's (the population of the claimed estimand)."""
    return draw_targets(rng, count, prefix="p")


def latent(benchmarks: tuple[str, ...]) -> float | None:
    """The planted A_b of a one-benchmark row; None for a set (its latent slope is the canonical reference's
    population slope)."""
    return BENCHMARKS[benchmarks[0]].slope if len(benchmarks) == 1 else None


def missing_share(frame: pd.DataFrame) -> float:
    return float(1 - frame["present:math_hard"].mean())


#: The planted candidate families, in the order the rule's verdicts are listed.
FAMILY_NAMES: tuple[str, ...] = tuple(FAMILIES)
