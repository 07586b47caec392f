"""The planted worlds' tidy tables, shared by ``studies/capability_coverage.py`` and ``studies/swallow_coverage.py``.

A world (:class:`World`) is a study's benchmarks with their canonical curves S_b(x), x = ln N̂ on benchmark b's
canonical scale, and its reference families with their effective sizes h_{f,b}(ln N) (each study's module docstring
states both). From it:

- a target's score on b is S_b(ln N + ln ρ_b), ln ρ_b its latent log density (a column ``log_rho:b`` of the targets'
  frame, drawn by the study); a frame with a column ``present:b`` scores b only where it is true;
- a family member's score is S_b(h_{f,b}(ln N) + ε), ε ~ N(0, member_sd²) (none for ``rng=None``);
- a score is binomial on the benchmark's item count (:func:`score`); ``rng=None`` gives the probability itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from densing.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, LN2
from densing.data.benchmarks import item_count
from densing.laws.inversion import arrays
from densing.trend import rules
from densing.trend.targets import trend_targets, with_stderr

BLOCK = 2000  # targets per block of a population slope


@dataclass(frozen=True)
class World:
    benchmarks: tuple[str, ...]
    families: dict  # name -> the study's Family (sizes, tokens, released: days after ``start``, …)
    curve: Callable  # curve(benchmark, x) -> S_b(x)
    effective: Callable  # effective(family, benchmark, ln N) -> h_{f,b}(ln N)
    start: str  # day 0 of a family's ``released``
    member_sd: float  # sd of ε, a member's deviation from its family's smooth curve, in ln N


def score(rng: np.random.Generator | None, benchmark: str, p: np.ndarray) -> np.ndarray:
    """A binomial score on the benchmark's items (noise-free: the probability itself, for ``rng=None``)."""
    if rng is None:
        return np.asarray(p, float)
    items = item_count(benchmark)
    return rng.binomial(items, np.clip(p, 0.0, 1.0)) / items


def target_rows(world: World, frame: pd.DataFrame, rng: np.random.Generator | None) -> pd.DataFrame:
    """The targets' tidy rows (one per scored benchmark); ``rng=None``: noise-free scores. A frame with columns
    ``family`` and ``train_tokens`` names each target's family and budget (else a target is its own family)."""
    parts = []
    for name in world.benchmarks:
        sub = frame[frame[f"present:{name}"].to_numpy(bool)] if f"present:{name}" in frame.columns else frame
        p = world.curve(name, np.log(sub["params"].to_numpy(float)) + sub[f"log_rho:{name}"].to_numpy(float))
        family = sub["family"] if "family" in sub.columns else sub["model"]
        tokens = sub["train_tokens"] if "train_tokens" in sub.columns else np.nan
        parts.append(
            pd.DataFrame(
                {
                    "model": sub["model"],
                    "family": family,
                    "benchmark": name,
                    "metric": "acc",
                    "value": score(rng, name, p),
                    "params": sub["params"],
                    "train_tokens": tokens,
                    "active_params": np.nan,
                    "release_date": sub["release_date"],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def family_rows(world: World, name: str, family, rng: np.random.Generator | None) -> pd.DataFrame:
    """A family's tidy rows on every benchmark, its models named ``name``; ``rng=None``: noise-free scores on the
    smooth curve."""
    sizes = np.asarray(family.sizes, float)
    parts = []
    for bench in world.benchmarks:
        x = world.effective(family, bench, np.log(sizes))
        if rng is not None:
            x = x + world.member_sd * rng.standard_normal(sizes.size)
        parts.append(
            pd.DataFrame(
                {
                    "model": [f"{name}-{n / 1e9:g}B" for n in sizes],
                    "family": name,
                    "benchmark": bench,
                    "metric": "acc",
                    "value": score(rng, bench, world.curve(bench, x)),
                    "params": sizes,
                    "train_tokens": family.tokens,
                    "active_params": np.nan,
                    "release_date": pd.Timestamp(world.start) + pd.Timedelta(days=family.released),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def replicate_table(world: World, frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """One replicate's tidy table: every family, then the targets of ``frame``, binomial scores, stderr from the item
    counts (the families' draws come first, in the order of ``world.families``)."""
    parts = [family_rows(world, name, family, rng) for name, family in world.families.items()] + [
        target_rows(world, frame, rng)
    ]
    table = pd.concat(parts, ignore_index=True)
    table["stderr"] = np.nan
    return with_stderr(table)


def frontier_line(rule: str, t, y, kind, labels, quantile: float = 0.9) -> tuple[float, float]:
    """(A per day, B) of one frontier rule on the usable points (finite y and kind), each once: one row of
    :func:`densing.trend.rules.frontier_lines_weighted`; NaNs if unfittable (fewer than ``MIN_POINTS`` usable points,
    or one date)."""
    t, y, kind = np.asarray(t, float), np.asarray(y, float), np.asarray(kind, float)
    line = rules.frontier_lines_weighted(
        rule, t, y[None], kind[None], np.ones((1, t.size)), np.asarray(labels), quantile
    )
    return float(line[0, 0]), float(line[0, 1])


def population_slope(inversion, table: pd.DataFrame, epoch: str = DEFAULT_EPOCH) -> tuple[float, float]:
    """(slope, its standard error over blocks): the frontier_line slope (censored 0.9 quantile) of the inversion's ln ρ
    over blocks of :data:`BLOCK` targets of ``table``, averaged (densing's exact quantile solver is pairwise in n)."""
    models, _ = trend_targets(table, inversion, since=epoch, epoch=epoch)
    scores, sigma = arrays(models, inversion.benchmarks)
    y, kind = inversion.point(scores, sigma, models["params"].to_numpy(float))
    t, labels = models["t"].to_numpy(float), models["model"].astype(str).to_numpy()
    blocks = max(1, len(models) // BLOCK)
    slopes = np.array(
        [
            frontier_line("quantile", t[i::blocks], y[i::blocks], kind[i::blocks], labels[i::blocks])[0]
            for i in range(blocks)
        ]
    )
    return float(np.mean(slopes)), float(np.std(slopes, ddof=1) / math.sqrt(blocks)) if blocks > 1 else math.nan


def coverage(hits: list[bool]) -> tuple[float, float]:
    """(share, binomial Monte Carlo standard error √(p(1 − p)/R)) of R replicates' hits."""
    count = len(hits)
    if not count:
        return math.nan, math.nan
    p = float(np.mean(hits))
    return p, math.sqrt(p * (1 - p) / count)


def months(slope: float) -> str:
    """A slope per day as a doubling time in months (∞ for a slope at or below zero)."""
    return f"{LN2 / slope / DAYS_PER_MONTH:.2f}" if slope > 0 else "∞"


def family_of(inversion) -> str:
    """The family an inversion's fits were made from."""
    return str(inversion.fits[0].provenance["family"])
