"""Planted family tables shared by the trend tests (imported as a plain module, as ``overlap_tracegen`` is), and the
models on a density table's envelope."""

from __future__ import annotations

import numpy as np
import pandas as pd

from densing.trend.rules import envelope_index
from densing.trend.targets import days_since, density_points, parse_epoch


def envelope_models(frame: pd.DataFrame) -> tuple[str, ...]:
    """The models on the density envelope of a ``model, release_date, density`` frame, in release order
    (:func:`densing.trend.rules.envelope_index`)."""
    points, _ = density_points(frame)
    return tuple(
        points.labels[envelope_index(days_since(points.dates, parse_epoch("2023-02-24")), points.y, points.labels)]
    )


def family_table(seed: int = 0, noise: float = 0.0) -> pd.DataFrame:
    """Two planted families on two benchmarks (logit-linear in ln N, chance 0.25 and 0.5) and outside targets."""
    rng = np.random.default_rng(seed)
    rows = []
    laws = {"mmlu": (0.25, 0.9, 23.0), "winogrande": (0.5, 0.7, 22.0)}
    for family, sizes, tokens in (("Good", (1e9, 3e9, 1e10, 3e10, 7e10), 2e12), ("Narrow", (7e9, 1.3e10), 2e12)):
        for n in sizes:
            for bench, (chance, gamma, level) in laws.items():
                u = 1 / (1 + np.exp(-gamma * (np.log(n) - level)))
                rows.append(
                    {
                        "model": f"{family}-{n:.0e}",
                        "family": family,
                        "benchmark": bench,
                        "metric": "score",
                        "value": chance + (1 - chance) * u + noise * rng.standard_normal(),
                        "params": n,
                        "train_tokens": tokens,
                        "release_date": "2024-01-01",
                    }
                )
    for i in range(30):
        n = 10 ** rng.uniform(9, 10.8)
        for bench, (chance, gamma, level) in laws.items():
            u = 1 / (1 + np.exp(-gamma * (np.log(n) + rng.normal(0, 0.5) - level)))
            rows.append(
                {
                    "model": f"t{i}",
                    "family": f"T{i}",
                    "benchmark": bench,
                    "metric": "score",
                    "value": chance + (1 - chance) * u,
                    "params": n,
                    "train_tokens": 1e12,
                    "release_date": "2024-01-01",
                }
            )
    table = pd.DataFrame(rows)
    table["stderr"] = 0.004
    return table
