"""How a model's scores become ln ρ (or a bound on it) for the trend: one benchmark, or all jointly.

An inversion takes the targets' scores (models × benchmarks, with standard errors) and gives,
for the point parameters or for bootstrap draws of the reference and of the scores, ln ρ per
model and its ``kind`` (0 exact, +1 lower bound, −1 upper bound, NaN dropped):

- :class:`PerBenchmark` — one reference fit, the paper's inversion (Xiao et al. 2024, eq. 4),
  censored scores as bounds (:func:`densing.trend.bounds.log_density_bounds`);
- :class:`Joint` — several family fits of one family, the joint maximum-likelihood size
  (:mod:`densing.laws.joint`); an x̂ at the edge of its range is a bound.

Both share one interface, so the trend's uncertainty (:mod:`densing.trend.uncertainty`) and the
checks treat them alike.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from densing.errors import InputError
from densing.laws.inversion import conditioning
from densing.laws.reference import ReferenceFit
from densing.trend.bounds import log_density_bounds, score_cap
from densing.trend.censored import EXACT, LOWER, UPPER


def _family_label(fit: ReferenceFit) -> str:
    families = sorted({m for m in str(fit.provenance.get("families", fit.provenance.get("family", ""))).split(",") if m})
    return ", ".join(families) or "?"


@dataclass(frozen=True)
class PerBenchmark:
    """The paper's inversion through one reference fit at D0."""

    fit: ReferenceFit
    d0: float

    @property
    def fits(self) -> tuple[ReferenceFit, ...]:
        return (self.fit,)

    @property
    def benchmarks(self) -> tuple[str, ...]:
        return tuple(self.fit.benchmarks)

    @property
    def name(self) -> str:
        return f"{_family_label(self.fit)}:{self.fit.benchmark}"

    @staticmethod
    def _mean(scores: np.ndarray, stderr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A mean fit's score is the mean over its benchmarks, σ = √(Σσ²)/B; one benchmark passes through."""
        count = scores.shape[-1]
        return scores.mean(axis=-1), np.sqrt(np.nansum(np.square(stderr), axis=-1)) / count

    @property
    def kind(self) -> str:
        return "per-benchmark"

    #: a model enters only with every benchmark's score (a mean fit averages them)
    require = "all"

    @property
    def n_draws(self) -> int:
        return len(self.fit.bootstrap)

    def point(self, scores: np.ndarray, stderr: np.ndarray, params: np.ndarray):
        p = {k: float(v) for k, v in self.fit.params.items()}
        s, se = self._mean(scores, stderr)
        return log_density_bounds(p, s, se, params, self.d0)

    def draws(self, picks, scores: np.ndarray, stderr: np.ndarray, params: np.ndarray):
        """``scores`` (draws, models, 1): ln ρ and kind of shape (draws, models)."""
        p = self.fit.draw_columns(picks) if picks is not None else self.fit.point_columns(scores.shape[0])
        s, _ = self._mean(scores, stderr)
        return log_density_bounds(p, s, self._mean(stderr, stderr)[1], params, self.d0)

    def cap(self) -> float:
        return float(score_cap({k: float(v) for k, v in self.fit.params.items()}, self.d0))

    def conditioning(self, scores: np.ndarray, stderr: np.ndarray) -> np.ndarray:
        s, se = self._mean(scores, stderr)
        return conditioning(self.fit, s, se, self.d0)


@dataclass(frozen=True)
class Joint:
    """The joint maximum-likelihood size over the family fits of one family (:mod:`densing.laws.joint`)."""

    fit_list: tuple[ReferenceFit, ...]
    skill: str = "pooled"  # the between-benchmark variance (densing.laws.joint): "pooled" or "none"

    def __post_init__(self) -> None:
        families = {_family_label(f) for f in self.fit_list}
        if len(families) != 1 or any(f.has_data_term for f in self.fit_list):
            raise InputError("fits: the joint inversion takes family references of one family")
        counts = {len(f.bootstrap) for f in self.fit_list}
        if len(counts) != 1:
            raise InputError("fits: the family fits of a joint inversion need the same number of bootstrap draws")

    @property
    def fits(self) -> tuple[ReferenceFit, ...]:
        return self.fit_list

    @property
    def benchmarks(self) -> tuple[str, ...]:
        return tuple(f.benchmark for f in self.fit_list)

    @property
    def name(self) -> str:
        suffix = "" if self.skill == "pooled" else f"[skill {self.skill}: first version]"
        return f"{_family_label(self.fit_list[0])}:joint({','.join(self.benchmarks)}){suffix}"

    @property
    def kind(self) -> str:
        return "joint"

    #: a model enters with any of the benchmarks' scores (the others missing)
    require = "any"

    @property
    def d0(self) -> float:
        return self.fit_list[0].d0

    @property
    def n_draws(self) -> int:
        return len(self.fit_list[0].bootstrap)

    def solve_point(self, scores, stderr):
        from densing.laws.joint import invert_joint

        return invert_joint(list(self.fit_list), scores, stderr, skill=self.skill)

    def point(self, scores: np.ndarray, stderr: np.ndarray, params: np.ndarray):
        result = self.solve_point(scores, stderr)
        y = result.log_size - np.log(params)
        kind = np.where(result.censored == "below_range", UPPER, np.where(result.censored == "above_range", LOWER, EXACT)).astype(float)
        return y, kind

    def weights(self, scores, stderr) -> np.ndarray:
        return self.solve_point(scores, stderr).weights

    def draws(self, picks, scores: np.ndarray, stderr: np.ndarray, params: np.ndarray, *, weights: np.ndarray):
        """``scores`` (draws, models, B) solved with ``weights`` (models, B): those of the *observed* scores
        (:meth:`weights`), fixed across draws."""
        from densing.laws.joint import LOG_SIZE_HIGH, LOG_SIZE_LOW, family_columns, solve, start_points

        w = weights
        p = family_columns(list(self.fit_list), picks) if picks is not None else family_columns(list(self.fit_list))
        w = np.broadcast_to(w[None], scores.shape)
        x = solve(p, scores, w, start_points(p, scores, w))
        kind = np.where(x <= LOG_SIZE_LOW + 1e-9, UPPER, np.where(x >= LOG_SIZE_HIGH - 1e-9, LOWER, EXACT)).astype(float)
        return x - np.log(params)[None, :], kind

    def cap(self) -> float:
        return float(min(score_cap({k: float(v) for k, v in f.params.items()}, f.d0) for f in self.fit_list))

    def conditioning(self, scores: np.ndarray, stderr: np.ndarray) -> np.ndarray:
        """How many-fold the joint ρ moves for one standard error: exp of |Δx̂| when every score moves by +σ or −σ."""
        base = self.solve_point(scores, stderr).log_size
        sigma = np.nan_to_num(stderr)
        up = self.solve_point(scores + sigma, stderr).log_size
        down = self.solve_point(scores - sigma, stderr).log_size
        return np.exp(np.maximum(np.abs(up - base), np.abs(base - down)))


def score_matrix(targets: pd.DataFrame, benchmarks: tuple[str, ...], metric: str | None = None,
                 require: str = "all") -> pd.DataFrame:
    """One row per model with every benchmark's score and standard error (``score:<b>``, ``stderr:<b>``).

    ``require="all"``: models missing any of ``benchmarks`` are left out; ``"any"`` (the joint
    inversion): a model with at least one of them is kept, NaN where it has no score. Carries ``params``, ``family``,
    ``release_date``, ``active_params`` and ``train_tokens`` where the table has them.
    """
    rows = targets[targets["benchmark"].isin(benchmarks)]
    if metric is not None:
        rows = rows[rows["metric"] == metric]
    if rows.empty:
        return pd.DataFrame(columns=["model", "params"])
    scores = rows.pivot_table(index="model", columns="benchmark", values="value", aggfunc="mean")
    errors = rows.pivot_table(index="model", columns="benchmark", values="stderr", aggfunc="mean", dropna=False) \
        if "stderr" in rows.columns else pd.DataFrame(index=scores.index)
    keep = [b for b in benchmarks]
    scores = scores.reindex(columns=keep).dropna(how="all" if require == "any" else "any")
    out = pd.DataFrame({"model": scores.index.astype(str)})
    for b in keep:
        out[f"score:{b}"] = scores[b].to_numpy(float)
        out[f"stderr:{b}"] = errors.reindex(index=scores.index, columns=[b]).iloc[:, 0].to_numpy(float) if b in errors.columns else math.nan
    first = rows.drop_duplicates("model").set_index("model")
    for column in ("params", "family", "release_date", "active_params", "train_tokens"):
        if column in first.columns:
            out[column] = first.loc[out["model"], column].to_numpy()
    if len(keep) == 1:
        out["score"], out["stderr"] = out[f"score:{keep[0]}"], out[f"stderr:{keep[0]}"]
    return out


def arrays(models: pd.DataFrame, benchmarks: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(scores, stderr) of shape (models, B) from :func:`score_matrix`'s columns."""
    scores = np.column_stack([models[f"score:{b}"].to_numpy(float) for b in benchmarks])
    stderr = np.column_stack([models[f"stderr:{b}"].to_numpy(float) for b in benchmarks])
    return scores, stderr
