"""The power world of ``studies/capability_coverage.py`` (``--world power``, the default): the public table's shape,
the paper's family law.

**The table's shape is the public table's** (``results/public_models.csv``): its dated models (the 13 undated ones
left out: they are no target and no planted date gives them a density), each with its own family, size, token
count and release date, and a score on benchmark b exactly where the public table has one (the leaderboard-v2
benchmarks, BBH and MATH-hard, for the later models only; HumanEval for most). Only the scores are planted.

**The latent scale is the paper's law.** Benchmark b's canonical curve of the effective size N̂ is

    S_b(N̂) = d_b + (1 − d_b)·σ(γ_b·(u − l_b)),   u = −(N̂ / 10⁹)^−α,   α = 0.34

(:data:`densing.laws.family.POWER_ALPHA`; d_b the registry's chance level), the power shape densing fits, with
(γ_b, l_b) rounded from Qwen1.5's power-shape fits on the public table (:data:`BENCHMARKS`). Its asymptote
d_b + (1 − d_b)·σ(−γ_b·l_b) lies below a perfect score (0.80–0.92 of the way from chance to the top): frontier
targets saturate near it, as real ones do, and a score above it inverts to a lower bound.

**Densities.** Model m of family f, released t_m days after the epoch, has on benchmark b

    ln ρ_{m,b} = A_b·(t_m − t_ref) + B − g_f + δ_{f,b} + ε_{m,b},

t_ref = 2024-02-05 (Qwen1.5's release), B = 0.5, g_f ~ Exponential(mean 1) the family's gap below the frontier
(one recipe: shared by its members), δ_{f,b} ~ N(0, 0.3²) the family's skill on b (a code family's HumanEval),
ε_{m,b} ~ N(0, 0.15²) a member's departure from its family's curve, all redrawn in each replicate; its score is
Binomial(n_b, S_b(N_m·ρ_{m,b})) / n_b, n_b the registry's item count. Planted doubling times ln 2 / A_b:
4 months on MMLU, BBH, MATH-hard and HumanEval (one slope on the paper-like set, so the set's row has a planted
slope), 2 on GSM8K, 8 on HellaSwag.

Whatever its gap and skill, a family released on one date follows the power law exactly: N·ρ scales N, and
u(N·ρ) = ρ^−α·u(N), so S_b(N·ρ) = d_b + (1 − d_b)·σ(γ'·(u(N) − l')), γ' = γ_b·ρ^−α, l' = l_b·ρ^α — the law densing
fits, with (γ', l') its own (families at other budgets and recipes sit at other (γ', l')). *Departures* the real
table shows and this world keeps: a family whose members were released on several dates (Qwen1.5-32B and -110B,
CodeLlama-70B, H2O-Danube 1–3, …) has its later members denser by A_b·(t_m − t_f), so it is not one curve; families
sit at every distance from the frontier (some on its floor); the latest families (Qwen2, Llama-3.1, Gemma-2) are
references whose members are the frontier's targets, inverted by the other references (leave-one-family-out).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy.special import expit

from densing.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, LN2
from densing.data.benchmarks import CHANCE_LEVELS
from densing.laws.family import POWER_ALPHA
from densing.laws.forms import POWER_N_UNIT
from densing.paths import RESULTS
from densing.trend.targets import with_stderr
from studies import _planted

SHAPE = "power"
EPOCH = DEFAULT_EPOCH
T_REF = "2024-02-05"  # t_ref: Qwen1.5's release, where the frontier's ln ρ is B
FRONTIER = 0.5  # B
GAP_MEAN = 1.0  # g_f ~ Exponential(mean 1)
SKILL_SD = 0.3  # δ_{f,b} ~ N(0, 0.3²)
MEMBER_SD = 0.15  # ε_{m,b} ~ N(0, 0.15²)
#: Planted threats (``studies/gate_calibration.py``; 0 and 1 in the coverage study): a size term
#: SIZE_SLOPE·(ln N − ln 7·10⁹) added to every ln ρ (density that depends on size at a fixed date), and every γ_b
#: scaled by GAMMA_SCALE (flatter curves: a score moves less with density, the inversion is ill-conditioned).
SIZE_SLOPE = 0.0
GAMMA_SCALE = 1.0
SIZE_CENTRE = math.log(7e9)


@dataclass(frozen=True)
class Benchmark:
    months: float  # planted doubling time ln 2 / A_b, months
    gamma: float  # γ_b of the canonical curve, per unit of u
    level: float  # l_b: the canonical u at the curve's midpoint
    column: str  # the public table's column

    @property
    def slope(self) -> float:
        return LN2 / (self.months * DAYS_PER_MONTH)


#: The canonical curves ((γ_b, l_b) rounded from Qwen1.5's power fits on the public table) and planted doubling times.
BENCHMARKS: dict[str, Benchmark] = {
    "mmlu": Benchmark(4.0, 2.5, -0.55, "MMLU"),
    "leaderboard_bbh": Benchmark(4.0, 3.7, -0.19, "leaderboard_bbh"),
    "math_hard": Benchmark(4.0, 6.7, -0.15, "leaderboard_math_hard"),
    "humaneval": Benchmark(4.0, 2.0, -0.15, "HumanEval"),
    "gsm8k": Benchmark(2.0, 2.3, -0.60, "GSM8K"),
    "hellaswag": Benchmark(8.0, 2.3, -0.87, "HellaSwag"),
}
#: The headline row: the public table's paper-like set (:data:`densing.registry.TABLES`), one planted slope.
HEADLINE_SET: tuple[str, ...] = ("mmlu", "leaderboard_bbh", "math_hard", "humaneval")
#: No budget rows: every family's law is the canonical one at its own density, so no budget needs translating.
BUDGET_ROWS: tuple[str, ...] = ()


def power_u(log_n) -> np.ndarray:
    """u = −(N / 10⁹)^−α of ln N (0 for N = ∞)."""
    return -np.exp(-POWER_ALPHA * (np.asarray(log_n, float) - math.log(POWER_N_UNIT)))


def curve(benchmark: str, x) -> np.ndarray:
    """S_b(x) = d_b + (1 − d_b)·σ(γ_b·(u(x) − l_b)) of x = ln N̂ (module docstring)."""
    b, d = BENCHMARKS[benchmark], CHANCE_LEVELS[benchmark]
    return d + (1.0 - d) * expit(GAMMA_SCALE * b.gamma * (power_u(x) - b.level))


WORLD = _planted.World(tuple(BENCHMARKS), {}, curve, None, EPOCH, MEMBER_SD)


@lru_cache(maxsize=1)
def public_frame() -> pd.DataFrame:
    """The public table's dated models: model, family, params, train_tokens, release_date, t (days since the epoch),
    t_ref (days since t_ref) and ``present:b`` where the table has a score on b."""
    wide = pd.read_csv(RESULTS / "public_models.csv")
    wide = wide[wide["release_date"].notna()].reset_index(drop=True)
    date = pd.to_datetime(wide["release_date"])
    frame = pd.DataFrame(
        {
            "model": wide["model"].astype(str),
            "family": wide["family"].astype(str),
            "params": wide["params"].astype(float),
            "train_tokens": wide["train_tokens"].astype(float),
            "release_date": date,
            "t": (date - pd.Timestamp(EPOCH)).dt.days.astype(float),
            "t_ref": (date - pd.Timestamp(T_REF)).dt.days.astype(float),
        }
    )
    for name, b in BENCHMARKS.items():
        frame[f"present:{name}"] = wide[b.column].notna().to_numpy()
    return frame


def with_densities(frame: pd.DataFrame, rng: np.random.Generator, *, own_family: bool = True) -> pd.DataFrame:
    """``frame`` with ``log_rho:b`` drawn (module docstring); ``own_family=False``: every model its own family."""
    out = frame.copy()
    groups = out["family"] if own_family else out["model"]
    codes, names = pd.factorize(groups)
    gap = rng.exponential(GAP_MEAN, len(names))[codes]
    for name, b in BENCHMARKS.items():
        skill = SKILL_SD * rng.standard_normal(len(names))[codes]
        out[f"log_rho:{name}"] = (
            b.slope * out["t_ref"].to_numpy(float)
            + FRONTIER
            - gap
            + skill
            + MEMBER_SD * rng.standard_normal(len(out))
            + SIZE_SLOPE * (np.log(out["params"].to_numpy(float)) - SIZE_CENTRE)
        )
    return out


def target_rows(frame: pd.DataFrame, rng: np.random.Generator | None) -> pd.DataFrame:
    """The models' tidy rows (:func:`studies._planted.target_rows`); ``rng=None``: noise-free scores."""
    return _planted.target_rows(WORLD, frame, rng)


def replicate_table(rng: np.random.Generator, count: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One replicate's tidy table (the public table's models, planted binomial scores, stderr from the item counts)
    and its frame (``count`` is the table's own; the argument is the logistic world's)."""
    frame = with_densities(public_frame(), rng)
    table = target_rows(frame, rng)
    table["stderr"] = np.nan
    return with_stderr(table), frame


def true_rows(name: str) -> pd.DataFrame:
    """Family ``name``'s noise-free rows with gap, skill and member departures zero (ln ρ = A_b·(t_m − t_ref) + B):
    the law a reference's population slope is computed under (``studies/capability_coverage.py``, the estimands)."""
    frame = public_frame()
    members = frame[frame["family"] == name].copy()
    for bench, b in BENCHMARKS.items():
        members[f"log_rho:{bench}"] = b.slope * members["t_ref"].to_numpy(float) + FRONTIER
        members[f"present:{bench}"] = True
    return target_rows(members, None)


def population_frame(rng: np.random.Generator, count: int) -> pd.DataFrame:
    """``count`` targets drawn from the public table's models since the epoch (size, date, which benchmarks), each its
    own family with a fresh gap and skill: the population of the claimed estimand."""
    frame = public_frame()
    frame = frame[frame["t"] >= 0].reset_index(drop=True)
    picked = frame.iloc[rng.integers(len(frame), size=count)].reset_index(drop=True)
    picked["model"] = [f"p{i}" for i in range(count)]
    return with_densities(picked, rng, own_family=False)


def latent(benchmarks: tuple[str, ...]) -> float:
    """The planted slope A of a row: A_b of its benchmark, or of the set's (one slope on the set)."""
    slopes = {BENCHMARKS[b].slope for b in benchmarks}
    if len(slopes) != 1:
        raise ValueError(f"{', '.join(benchmarks)}: no one planted slope on the set")
    return slopes.pop()


def missing_share(frame: pd.DataFrame) -> float:
    """The share of the window's targets without a MATH-hard score."""
    window = frame[frame["t"] >= 0]
    return float(1 - window["present:math_hard"].mean())


#: The families whose verdicts the study lists: every family of the table with three dated models.
FAMILY_NAMES: tuple[str, ...] = tuple(
    sorted(name for name, n in public_frame()["family"].value_counts().items() if n >= 3)
)
