"""Inversion of a reference fit: score → effective parameter size at D0 → capacity density.

ρ = N̂ / N, N̂ the size a reference model trained on D0 tokens would need to score S (Xiao et al. 2024, eq. 4:
:func:`densing.laws.reference_fit.invert_scores`; a score without a finite N̂ is *censored*, with a reason). **The
inversion protocol**: the targets' scores (models × benchmarks, with standard errors) → ln ρ per model and its ``kind``
(0 exact, +1 lower bound, −1 upper bound, NaN dropped; :mod:`densing.laws.bounds`), under the point parameters or
bootstrap draws. :class:`PerBenchmark` is the paper's inversion through one reference fit, :class:`Joint` the joint
maximum-likelihood size over one family's fits (:mod:`densing.laws.joint`); the tables, the trend and the checks
treat both alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from densing.data.schema import LAB_COLUMN
from densing.errors import InputError
from densing.laws.bounds import EXACT, LOWER, UPPER, log_density_bounds, score_cap

# the reference's limits are public here too (`name as name` marks a re-export)
from densing.laws.reference_fit import (
    ABOVE_CEILING as ABOVE_CEILING,
    BELOW_FLOOR as BELOW_FLOOR,
    BEYOND_DATA_LIMIT as BEYOND_DATA_LIMIT,
    ReferenceFit,
    as_fit,
)
from densing.runtime.memo import per_table
from densing.states import ReferenceName


def invert(fit, scores, d0: float | None = None) -> pd.DataFrame:
    """Score → (L̂, N̂, censored) under ``fit`` at D0 tokens (eq. 4); one row per score.

    ``fit``: a :class:`ReferenceFit`, a fit file or a shipped fit's short name (``"llama-3.1_mmlu"``, as the CLI's
    ``--fit``). ``scores``: a score or a sequence of scores, checked as a table's are (a NaN, an infinity or, for a
    fraction metric, a score outside [0, 1] is an InputError naming ``scores``)."""
    fit = as_fit(fit)
    scores = np.atleast_1d(fit.checked_scores(scores))
    loss_hat, size, reasons = fit.invert(scores, d0)
    return pd.DataFrame({"score": scores, "loss_hat": loss_hat, "effective_params": size, "censored": reasons})


@dataclass(frozen=True, order=True)
class ExtrapolationNote:
    """One reason an inversion leaves the reference's data, as values: ``value`` against the reference's ``limit``; its
    kind is its class, so that what a note says is never read back out of words (its words:
    :func:`densing.present.laws.extrapolation_text`)."""

    value: float
    limit: float


class TokensBeyondData(ExtrapolationNote):
    """D0 (``value``) beyond the reference's largest D (``limit``): the same for every size of one fit at one D0."""


class SizeBelowData(ExtrapolationNote):
    """N̂ (``value``) below the reference's smallest N (``limit``)."""


class SizeAboveData(ExtrapolationNote):
    """N̂ (``value``) above the reference's largest N (``limit``)."""


class ComponentExtrapolates(ExtrapolationNote):
    """A geometric mean's component leaves its reference's data (no numbers of its own: NaN, NaN)."""


def extrapolation_notes(
    fit: ReferenceFit, effective_params, d0: float | None = None
) -> list[tuple[ExtrapolationNote, ...] | None]:
    """Where an inversion leaves the reference's data: per size its reasons (:class:`ExtrapolationNote`, D0's first);
    ``None`` inside.
    N̂ (eq. 4) interpolates only while N̂ lies between the fitted points' smallest and largest N and D0 is at most
    their largest D; outside, it rests on the law's form alone. Censored values (N̂ = 0 or ∞) get no note here."""
    sizes = np.asarray(effective_params, float)
    points = fit.loss_points_frame()
    if points.empty:
        return [None] * sizes.size
    tokens = fit.d0 if d0 is None else d0
    n_low, n_high = float(points["params"].min()), float(points["params"].max())
    d_high = float(points["train_tokens"].max())
    common = [TokensBeyondData(float(tokens), d_high)] if tokens > d_high else []
    notes: list[tuple[ExtrapolationNote, ...] | None] = []
    for size in sizes:
        parts = list(common)
        if np.isfinite(size) and 0 < size < n_low:
            parts.append(SizeBelowData(float(size), n_low))
        elif np.isfinite(size) and size > n_high:
            parts.append(SizeAboveData(float(size), n_high))
        notes.append(tuple(parts) or None)
    return notes


def conditioning(fit: ReferenceFit, scores, stderr, d0: float | None = None) -> np.ndarray:
    """How many-fold the density moves for one standard error σ of the score.

        κ(S) = max(ρ(S + σ) / ρ(S), ρ(S) / ρ(S − σ))   (≥ 1; +inf where S ± σ is censored)

    The inversion N̂ = ((L̂(S) − b·D0^-β − E)/a)^(−1/α) divides by the excess of L̂ over the data-limited floor, which
    nears zero for strong models, so a small error in S becomes a large factor in ρ. NaN where σ is unknown or ρ(S) is
    censored.
    """
    s, sigma = np.asarray(scores, float), np.asarray(stderr, float)
    step = np.nan_to_num(sigma)
    with np.errstate(divide="ignore", invalid="ignore"):  # unchecked: s ± σ may leave [0, 1], where N̂ is censored
        mid, up, down = (fit.invert(v, d0)[1] for v in (s, s + step, s - step))
        kappa = np.maximum(up / mid, mid / down)
    return np.where(np.isnan(sigma) | ~(np.isfinite(mid) & (mid > 0)), np.nan, kappa)


# -- the protocol: one benchmark, or all jointly -----------------------------------------------------------------------


def _family_label(fit: ReferenceFit) -> str:
    families = sorted(
        {m for m in str(fit.provenance.get("families", fit.provenance.get("family", ""))).split(",") if m}
    )
    return ", ".join(families) or "?"


def mean_score(scores: np.ndarray, stderr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A mean fit's score is the mean over its benchmarks (the last axis), σ = √(Σσ²)/B (a missing σ counted as 0);
    one benchmark passes through."""
    return scores.mean(axis=-1), np.sqrt(np.nansum(np.square(stderr), axis=-1)) / scores.shape[-1]


@dataclass(frozen=True)
class PerBenchmark:
    """The paper's inversion through one reference fit at D0 (default, and without a data term only, its own)."""

    fit: ReferenceFit
    d0: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "d0", self.fit._d0(None if self.d0 is None else float(self.d0)))

    @property
    def fits(self) -> tuple[ReferenceFit, ...]:
        return (self.fit,)

    @property
    def benchmarks(self) -> tuple[str, ...]:
        return tuple(self.fit.benchmarks)

    @property
    def reference(self) -> ReferenceName:
        return ReferenceName(_family_label(self.fit), self.fit.benchmark)

    @property
    def name(self) -> str:
        return str(self.reference)

    kind = "per-benchmark"
    #: a model enters only with every benchmark's score (a mean fit averages them)
    require = "all"

    @property
    def n_draws(self) -> int:
        return len(self.fit.bootstrap)

    def point(self, scores: np.ndarray, stderr: np.ndarray, params: np.ndarray):
        s, se = mean_score(scores, stderr)
        return log_density_bounds({k: float(v) for k, v in self.fit.params.items()}, s, se, params, self.d0)

    def draws(self, picks, scores: np.ndarray, stderr: np.ndarray, params: np.ndarray):
        """``scores`` (draws, models, 1): ln ρ and kind of shape (draws, models)."""
        p = self.fit.draw_columns(picks) if picks is not None else self.fit.point_columns(scores.shape[0])
        return log_density_bounds(p, mean_score(scores, stderr)[0], mean_score(stderr, stderr)[1], params, self.d0)

    def cap(self) -> float:
        return float(score_cap({k: float(v) for k, v in self.fit.params.items()}, self.d0))

    def conditioning(self, scores: np.ndarray, stderr: np.ndarray) -> np.ndarray:
        return conditioning(self.fit, *mean_score(scores, stderr), self.d0)


@dataclass(frozen=True)
class Joint:
    """The joint maximum-likelihood size over the family fits of one family (:mod:`densing.laws.joint`)."""

    fits: tuple[ReferenceFit, ...]
    skill: str = "pooled"  # the between-benchmark variance (densing.laws.joint): "pooled" or "none"
    #: With ``skill="pooled"``: s² held fixed (a placement's: the headline's, :func:`densing.placement.place.
    #: place_models`), so a model's density does not move with the rows solved beside it; None: s² pooled over them.
    skill2: float | None = None
    #: Where each benchmark's effective variance is taken (:data:`densing.laws.joint.WEIGHTS_AT`): "solution" (the
    #: rule, docs/method.md "The weights at the solution") or "start" (the first version).
    weights_at: str = "solution"
    #: Where the benchmarks' readings are pooled (:data:`densing.laws.joint.SPACES`): "ln_n" (the rule, docs/method.md
    #: "Each benchmark read in ln N") or "score" (the first two versions, with ``weights_at``).
    space: str = "ln_n"
    #: The last 64 joint inversions of point scores, by (shape, scores, stderr): :meth:`solve_point`'s.
    solved: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len({_family_label(f) for f in self.fits}) != 1 or any(f.has_data_term for f in self.fits):
            raise InputError("fits: the joint inversion takes family references of one family")
        if len({len(f.bootstrap) for f in self.fits}) != 1:
            raise InputError("fits: the family fits of a joint inversion need the same number of bootstrap draws")

    @property
    def benchmarks(self) -> tuple[str, ...]:
        return tuple(f.benchmark for f in self.fits)

    @property
    def reference(self) -> ReferenceName:
        suffix = "" if self.skill == "pooled" else f"[skill {self.skill}: first version]"
        if self.space != "ln_n":
            version = "first" if self.weights_at == "start" else "second"
            suffix += f"[in score, weights at the {self.weights_at}: {version} version]"
        return ReferenceName(_family_label(self.fits[0]), f"joint({','.join(self.benchmarks)}){suffix}")

    @property
    def name(self) -> str:
        return str(self.reference)

    kind = "joint"
    #: a model enters with any of the benchmarks' scores (the others missing)
    require = "any"

    @property
    def d0(self) -> float:
        return self.fits[0].d0

    @property
    def n_draws(self) -> int:
        return len(self.fits[0].bootstrap)

    def solve_point(self, scores, stderr):
        """:func:`densing.laws.joint.invert_joint` of these scores; the same arrays asked again (a row's densities,
        weights and conditioning) get the kept result, its arrays read-only."""
        from densing.laws.joint import invert_joint

        scores, stderr = np.asarray(scores, float), np.asarray(stderr, float)
        key = (scores.shape, scores.tobytes(), stderr.tobytes())
        if key not in self.solved:
            if len(self.solved) >= 64:
                self.solved.pop(next(iter(self.solved)))
            self.solved[key] = found = invert_joint(
                list(self.fits),
                scores,
                stderr,
                skill=self.skill,
                skill2=self.skill2,
                weights_at=self.weights_at,
                space=self.space,
            )
            for value in vars(found).values():
                if isinstance(value, np.ndarray):
                    value.flags.writeable = False
        return self.solved[key]

    def point(self, scores: np.ndarray, stderr: np.ndarray, params: np.ndarray):
        found = self.solve_point(scores, stderr)
        kind = np.select([found.censored == "below_range", found.censored == "above_range"], [UPPER, LOWER], EXACT)
        return found.log_size - np.log(params), kind.astype(float)

    def weights(self, scores, stderr) -> np.ndarray:
        return self.solve_point(scores, stderr).weights

    def draws(self, picks, scores: np.ndarray, stderr: np.ndarray, params: np.ndarray, *, weights: np.ndarray):
        """``scores`` (draws, models, B) read with ``weights`` (models, B): those of the *observed* scores
        (:meth:`weights`), fixed across draws; in ln N the drawn readings' weighted mean, in score the chi-square's
        solution (:mod:`densing.laws.joint`)."""
        from densing.laws.joint import LOG_SIZE_HIGH, LOG_SIZE_LOW, family_columns, solve, start_points

        p = family_columns(list(self.fits), picks)
        w = np.broadcast_to(weights[None], scores.shape)
        x = start_points(p, scores, w)
        if self.space == "score":
            x = solve(p, scores, w, x)
        kind = np.where(x <= LOG_SIZE_LOW + 1e-9, UPPER, np.where(x >= LOG_SIZE_HIGH - 1e-9, LOWER, EXACT)).astype(
            float
        )
        return x - np.log(params)[None, :], kind

    def cap(self) -> float:
        return float(min(score_cap({k: float(v) for k, v in f.params.items()}, f.d0) for f in self.fits))

    def conditioning(self, scores: np.ndarray, stderr: np.ndarray) -> np.ndarray:
        """How many-fold the joint ρ moves for one standard error: exp of |Δx̂| when every score moves by +σ or −σ,
        the moved score kept in [0, 1] (0.999 + σ is 1, not a score no benchmark gives)."""
        sigma = np.nan_to_num(stderr)
        base, up, down = (
            self.solve_point(s, stderr).log_size
            for s in (scores, np.clip(scores + sigma, 0, 1), np.clip(scores - sigma, 0, 1))
        )
        return np.exp(np.maximum(np.abs(up - base), np.abs(base - down)))


def score_matrix(
    targets: pd.DataFrame, benchmarks: tuple[str, ...], metric: str | None = None, require: str = "all"
) -> pd.DataFrame:
    """One row per model with every benchmark's score and standard error (``score:<b>``, ``stderr:<b>``): with
    ``require="all"`` only models with all of ``benchmarks``, with ``"any"`` (the joint inversion) those with one (NaN
    where none), carrying ``params``, ``family``, ``release_date``, ``active_params`` and ``train_tokens`` where
    present."""
    found = _by_model(targets, metric)
    keep = list(benchmarks)
    at = [found["column"].get(b) for b in keep]
    if all(j is None for j in at):  # no row of these benchmarks (under the metric)
        return pd.DataFrame(columns=["model", "params"])
    count = len(found["models"])
    scores = np.column_stack([_column(found["scores"], j, count) for j in at])
    present = ~np.isnan(scores)
    kept = present.any(axis=1) if require == "any" else present.all(axis=1)
    columns: dict = {"model": found["models"][kept]}
    for b, j, score in zip(keep, at, scores.T):
        columns[f"score:{b}"] = score[kept]
        columns[f"stderr:{b}"] = _column(found["errors"], j, count)[kept] if found["errors"] is not None else math.nan
    # each model's first row on any of the benchmarks carries its size, family, date, tokens and lab
    first = np.column_stack([_column(found["first"], j, count) for j in at])[kept]
    first_row = np.nanmin(first, axis=1).astype(np.int64) if first.size else np.zeros(0, np.int64)
    for column, values in found["carried"].items():
        columns[column] = values[first_row]
    if len(keep) == 1:
        columns["score"], columns["stderr"] = columns[f"score:{keep[0]}"], columns[f"stderr:{keep[0]}"]
    return pd.DataFrame(columns)


def _column(matrix: np.ndarray, j: int | None, count: int) -> np.ndarray:
    """Column ``j`` of one of :func:`_by_model`'s matrices; NaNs where the table has no row of that benchmark (None)."""
    return matrix[:, j] if j is not None else np.full(count, np.nan)


@per_table
def _by_model(targets: pd.DataFrame, metric: str | None) -> dict:
    """What :func:`score_matrix` selects from, for every benchmark of the table at once: ``models`` (those with a row
    under ``metric``, sorted, as text), ``column`` (benchmark → its column), ``scores`` and ``errors`` (models ×
    benchmarks: mean score and mean standard error, NaN where no row; ``errors`` None without standard errors),
    ``first`` (the position of each model's first row on each benchmark) and ``carried`` (each row's size, family,
    date, tokens, lab). Once per table and metric inside :func:`densing.runtime.memo.same_tables` (callers must not change it)."""
    rows = targets if metric is None else targets[targets["metric"] == metric]
    grouped = rows.groupby(["model", "benchmark"], sort=True)  # the mean of a model's rows on a benchmark
    scores = grouped["value"].mean().unstack("benchmark")
    errors = (
        grouped["stderr"].mean().unstack("benchmark").reindex(index=scores.index, columns=scores.columns)
        if "stderr" in rows.columns
        else None
    )
    keys = [rows[c].reset_index(drop=True) for c in ("model", "benchmark")]  # by position: the table's index may repeat
    first = pd.Series(np.arange(len(rows))).groupby(keys, sort=True).min().unstack("benchmark")
    first = first.reindex(index=scores.index, columns=scores.columns)
    carried = [
        c
        for c in ("params", "family", "release_date", "active_params", "train_tokens", LAB_COLUMN)
        if c in rows.columns
    ]
    return {
        "models": scores.index.astype(str),
        "column": {b: j for j, b in enumerate(scores.columns)},
        "scores": scores.to_numpy(float),
        "errors": None if errors is None else errors.to_numpy(float),
        "first": first.to_numpy(float),
        "carried": {c: rows[c].to_numpy() for c in carried},
    }


def arrays(models: pd.DataFrame, benchmarks: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(scores, stderr) of shape (models, B) from :func:`score_matrix`'s columns."""
    return tuple(np.column_stack([models[f"{k}:{b}"].to_numpy(float) for b in benchmarks]) for k in ("score", "stderr"))


def as_inversion(reference, d0: float | None = None):
    """A :class:`ReferenceFit` becomes its per-benchmark inversion at D0; an inversion passes through."""
    if isinstance(reference, ReferenceFit):
        return PerBenchmark(reference, d0)
    if not all(hasattr(reference, name) for name in ("point", "draws", "benchmarks", "fits", "n_draws")):
        raise InputError(
            f"reference: expected a ReferenceFit or an inversion (PerBenchmark, Joint), got {type(reference).__name__}"
        )
    return reference
