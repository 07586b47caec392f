"""The reference fit as an object: the fitted two-step (or composed) law of a benchmark, its inversion, its file.

A :class:`ReferenceFit` (:func:`densing.laws.reference.fit_reference`, :func:`densing.laws.family.fit_family`, or a
JSON file: :data:`FORMAT`, checked by :func:`check_fit_dict`) predicts scores ``S(N, D)``, inverts a score into the
effective parameter size at D0 tokens (Xiao et al. 2024, eq. 4; :func:`invert_scores`) and carries bootstrap draws.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson
import pandas as pd

from densing.errors import FitError, InputError
from densing.impossible import check_scores
from densing.io import atomic_write_bytes, read_json_object
from densing.laws import forms

# the file's schema is public here too (`name as name` marks a re-export)
from densing.laws.fit_schema import (
    FIT_DOMAIN as FIT_DOMAIN,
    FORMAT,
    KINDS as KINDS,
    LAWS as LAWS,
    POINT_COLUMNS,
    StageFit,
    check_fit_dict,
)
from densing.numbers import format_count
from densing.results import ALPHA_CONSTRAINTS, Result, interval_frame
from densing.validation import D0_TOKENS, MAX_D0_TOKENS, validate_params

DEFAULT_D0 = 1e12


def _counts(values, name: str) -> np.ndarray:
    """``values`` (a count or a sequence of counts) as a float array, each positive and finite, or an InputError."""
    try:
        if isinstance(values, (str, bytes, Mapping)):
            raise TypeError
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a count or a sequence of counts, got {str(values)[:80]!r}") from None
    bad = ~((array > 0) & np.isfinite(array))
    if bad.any() or array.size == 0:
        raise InputError(
            f"{name}: expected positive finite counts, got {array[bad].reshape(-1)[0] if bad.any() else 'none'}"
        )
    return array


@dataclass(frozen=True)
class ReferenceFit(Result):
    """A fitted reference law for one benchmark (or the per-model mean of several, ``benchmarks``, named ``benchmark``).

    ``kind`` is the law; ``loss_unit`` the unit of the two-step law's loss (``nats`` or ``bpb``); ``params`` the natural
    parameters a, alpha, b, beta[, E], c, gamma, l, d; ``stages`` the per-stage fits; ``bootstrap`` one row of
    parameters per resample (columns ``bootstrap_names``); ``points`` the score stage's points, ``loss_points`` the loss
    stage's where they differ (e.g. each run's final checkpoints).
    """

    _dict_exclude = ("stages", "bootstrap", "points", "loss_points", "provenance")

    kind: str
    benchmark: str
    metric: str
    params: dict[str, float]
    stages: tuple[StageFit, ...]
    d0: float
    data_hash: str
    provenance: dict = field(default_factory=dict)
    bootstrap_names: tuple[str, ...] = ()
    bootstrap: tuple[tuple[float, ...], ...] = ()
    points: tuple[tuple, ...] = ()
    benchmarks: tuple[str, ...] = ()
    loss_unit: str | None = None
    loss_points: tuple[tuple, ...] = ()

    def __post_init__(self) -> None:
        if not self.benchmarks:  # fits written before the field existed kept it in provenance
            object.__setattr__(self, "benchmarks", tuple(self.provenance.get("benchmarks") or (self.benchmark,)))

    @property
    def has_data_term(self) -> bool:
        """Whether the law has a data term b·D^-β, so that D0 can differ from the reference's own D."""
        return "b" in self.params

    def _d0(self, d0: float | None) -> float:
        if d0 is None:
            return self.d0
        if not D0_TOKENS.matches(d0):
            raise InputError(
                f"d0: expected a positive number of tokens up to {MAX_D0_TOKENS:g} (MAX_D0_TOKENS), got {d0!r}"
            )
        if not self.has_data_term and not math.isclose(d0, self.d0, rel_tol=1e-6):
            raise InputError(
                f"d0: the {self.kind} reference {self.benchmark!r} ({self.provenance.get('family', '')}) has no data term; "
                f"its D0 is the family's own budget ({self.d0:.3g} tokens), not {d0:.3g}"
            )
        return float(d0)

    # -- the law --------------------------------------------------------------------------
    def predict_loss(self, n_params, train_tokens) -> np.ndarray:
        """L(N, D) = a·N^-α + b·D^-β [+ E]  (eq. 2). For a composed fit, the latent loss; for a family fit, its
        covariate: ln N (shape logistic_ln_n) or u = −(N / N_unit)^−α (shape power; :mod:`densing.laws.family`)."""
        p = self.params
        n_params = _counts(n_params, "n_params")
        if train_tokens is not None or self.has_data_term:  # a family fit reads no budget, but a bad one is still bad
            train_tokens = _counts(train_tokens, "train_tokens")
        if not self.has_data_term:
            return forms.family_covariate(n_params, forms.family_alpha(p), p.get("n_unit", forms.POWER_N_UNIT))
        return forms.loss_law(n_params, train_tokens, p["a"], p["alpha"], p["b"], p["beta"], p.get("E", 0.0))

    def predict_score_from_loss(self, loss) -> np.ndarray:
        """S(L) = c / (1 + e^{−γ(L − l)}) + d  (eq. 3)."""
        p = self.params
        return forms.performance_law(loss, p["c"], p["gamma"], p["l"], p["d"])

    def predict_score(self, n_params, train_tokens) -> np.ndarray:
        """S(N, D), eqs. 2 and 3 composed."""
        return self.predict_score_from_loss(self.predict_loss(n_params, train_tokens))

    def invert(self, scores, d0: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(L̂, N̂, censoring reason) of each score at D0 tokens (eq. 4); see :func:`invert_scores`."""
        return invert_scores(self.params, np.asarray(scores, float), self._d0(d0))

    def effective_params(self, scores, d0: float | None = None) -> np.ndarray:
        """N̂(S) = ((L̂(S) − b·D0^-β − E) / a)^(−1/α)  (eq. 4), with censored values 0 / +inf; ``scores`` checked as a
        table's are (:meth:`checked_scores`; the inside of the laws calls :meth:`invert`, unchecked)."""
        return self.invert(self.checked_scores(scores), d0)[1]

    def checked_scores(self, scores, name: str = "scores") -> np.ndarray:
        """``scores`` as a float array, or an InputError naming ``name`` (:func:`densing.impossible.check_scores`):
        a score outside [0, 1] is impossible when the fit's metric is a fraction."""
        from densing.data.schema import FRACTION_METRICS

        return check_scores(scores, name=name, metric=self.metric, fraction=self.metric in FRACTION_METRICS)

    def draw_columns(self, picks=None) -> dict[str, np.ndarray]:
        """The bootstrap draws ``picks`` (default: all) as (len(picks), 1) columns, fixed parameters repeated."""
        if not self.bootstrap:
            raise FitError(
                f"{self.benchmark}: the reference fit has no bootstrap draws; its uncertainty cannot be carried"
            )
        draws = np.asarray(self.bootstrap, float)
        if picks is not None:
            draws = draws[np.asarray(picks)]
        columns = {name: draws[:, i][:, None] for i, name in enumerate(self.bootstrap_names)}
        return {k: columns.get(k, np.full((len(draws), 1), float(v))) for k, v in self.params.items()}

    @functools.cached_property
    def bootstrap_columns(self) -> dict[str, np.ndarray]:
        """:meth:`draw_columns` of every draw, made once per fit and read-only (the joint inversion's)."""
        columns = self.draw_columns()
        for column in columns.values():
            column.flags.writeable = False
        return columns

    def point_columns(self, rows: int = 1) -> dict[str, np.ndarray]:
        """The point estimate as columns of shape (rows, 1), shaped as :meth:`draw_columns` gives draws."""
        return {k: np.full((rows, 1), float(v)) for k, v in self.params.items()}

    # -- diagnostics ------------------------------------------------------------------------
    @property
    def r_squared(self) -> float:
        """R² of the score fit (the performance stage, or the composed law)."""
        return self.stages[-1].r_squared

    def parameter_ci(self, level: float = 0.95) -> pd.DataFrame:
        """Point estimate and bootstrap percentile interval of every parameter."""
        draws = np.asarray(self.bootstrap, float) if self.bootstrap else None
        ends = (
            {
                name: np.quantile(draws[:, i], [(1 - level) / 2, (1 + level) / 2])
                for i, name in enumerate(self.bootstrap_names)
            }
            if draws is not None
            else {}
        )
        return pd.DataFrame(
            [
                {"parameter": name, "estimate": value, "ci_low": float(low), "ci_high": float(high)}
                for name, value in self.params.items()
                for low, high in [ends.get(name, (math.nan,) * 2)]
            ]
        )

    @validate_params(ALPHA_CONSTRAINTS)
    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Every parameter's (1 − ``alpha``) bootstrap percentile interval, from the draws the fit keeps, in the shape
        of :meth:`densing.results.Result.conf_int` (one row per parameter: ``estimate``, ``ci_low``, ``ci_high``)."""
        return interval_frame(
            {r.parameter: (r.estimate, r.ci_low, r.ci_high) for r in self.parameter_ci(1 - alpha).itertuples()}
        )

    def to_frame(self) -> pd.DataFrame:
        """Tidy one-row-per-parameter table with the fit's identity and diagnostics."""
        frame = self.parameter_ci().assign(r_squared=self.r_squared, n_points=self.stages[-1].n_points)
        frame.insert(0, "benchmark", self.benchmark)
        frame.insert(1, "law", self.kind)
        return frame

    def __repr__(self) -> str:
        fit = ", ".join(f"R² {stage.law} {stage.r_squared:.3f}" for stage in self.stages)
        return (
            f"ReferenceFit({self.kind}, {self.benchmark!r} ({self.metric}), D0 = {format_count(self.d0)} tokens, "
            f"{self.stages[-1].n_points if self.stages else 0} points, {fit}, {len(self.bootstrap)} bootstrap draws)"
        )

    def points_frame(self) -> pd.DataFrame:
        """The reference points the score law was fitted on."""
        return pd.DataFrame(list(self.points), columns=list(POINT_COLUMNS))

    def loss_points_frame(self) -> pd.DataFrame:
        """The reference points the loss law was fitted on (the score points unless they differ)."""
        return pd.DataFrame(list(self.loss_points or self.points), columns=list(POINT_COLUMNS))

    # -- serialisation -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "kind": self.kind,
            "benchmark": self.benchmark,
            "benchmarks": list(self.benchmarks),
            "metric": self.metric,
            "loss_unit": self.loss_unit,
            "params": dict(self.params),
            "d0": self.d0,
            "data_hash": self.data_hash,
            "provenance": dict(self.provenance),
            "stages": [s.to_dict() for s in self.stages],
            "bootstrap_names": list(self.bootstrap_names),
            "bootstrap": [list(r) for r in self.bootstrap],
            "points": [list(p) for p in self.points],
            "loss_points": [list(p) for p in self.loss_points],
        }

    @classmethod
    def from_dict(cls, data: dict, *, source: str = "<fit>") -> ReferenceFit:
        try:
            check_fit_dict(data, source=source)
            return cls(
                kind=str(data["kind"]),
                benchmark=str(data["benchmark"]),
                metric=str(data["metric"]),
                params={k: float(v) for k, v in data["params"].items()},
                stages=tuple(StageFit.from_dict(s) for s in data["stages"]),
                d0=float(data["d0"]),
                data_hash=str(data["data_hash"]),
                provenance=dict(data.get("provenance", {})),
                bootstrap_names=tuple(data.get("bootstrap_names", ())),
                bootstrap=tuple(tuple(float(v) for v in r) for r in data.get("bootstrap", ())),
                points=_points_from_json(data.get("points", ())),
                benchmarks=tuple(data.get("benchmarks") or ()),
                loss_unit=data.get("loss_unit"),
                loss_points=_points_from_json(data.get("loss_points", ())),
            )
        except KeyError as exc:
            raise InputError(f"{source}: field {exc.args[0]!r} is missing") from None
        except (TypeError, ValueError, AttributeError, IndexError) as exc:
            if isinstance(exc, InputError):
                raise
            raise InputError(f"{source}: not a valid densing reference fit ({type(exc).__name__}: {exc})") from None

    def to_json(self) -> bytes:
        return orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2)

    def save(self, path: str | Path) -> Path:
        """Write the fit as JSON, atomically."""
        return atomic_write_bytes(path, self.to_json() + b"\n")

    @classmethod
    def load(cls, path: str | Path) -> ReferenceFit:
        return cls.from_dict(read_json_object(path), source=str(path))


def as_fit(value, name: str = "fit") -> ReferenceFit:
    """A fit argument of the API: a :class:`ReferenceFit`, a fit file's path, or a shipped fit's short name
    (``llama-3.1_mmlu``, resolved by :func:`densing.paths.resolve_fit` as the CLI's ``--fit``); an InputError naming
    ``name`` for anything else."""
    if isinstance(value, ReferenceFit):
        return value
    if not isinstance(value, (str, os.PathLike)) or (isinstance(value, str) and not value.strip()):
        raise InputError(
            f"{name}: expected a ReferenceFit, a fit file or a shipped fit's name (such as "
            f"'llama-3.1_mmlu'), got {value!r}"
        )
    from densing.paths import resolve_fit, shipped_hint

    path = resolve_fit(value, what=name)
    if not path.is_file():
        raise InputError(f"{name}: {str(value)!r}: no such fit file{shipped_hint(path)}")
    try:
        return ReferenceFit.load(path)
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None


def names_a_fit(text: str, name: str = "fit") -> bool:
    """Whether ``text`` is a fit file's path or a shipped fit's short name, as :func:`as_fit` reads it (a family's
    name, ``Llama-3.1``, is neither); ``name``: the argument's, as :func:`as_fit` takes it."""
    if text.strip().endswith(".json"):
        return True
    from densing.paths import resolve_fit

    try:
        return resolve_fit(text, what=name).is_file()
    except InputError:
        return False


def as_fits(value, name: str = "fits") -> list[ReferenceFit]:
    """Several fit arguments: one (a fit, a path or a short name: :func:`as_fit`), a list or tuple of them, or a mapping
    to them; an InputError naming ``name`` (and the item) when there are none or one is not a fit."""
    if isinstance(value, (ReferenceFit, str, os.PathLike)):
        return [as_fit(value, name)]
    if isinstance(value, Mapping):
        items = [(f"{name}[{key!r}]", fit) for key, fit in value.items()]
    elif isinstance(value, (list, tuple)):
        items = [(f"{name}[{i}]", fit) for i, fit in enumerate(value)]
    else:
        raise InputError(
            f"{name}: expected a ReferenceFit, a fit file, a shipped fit's name, or a list of them, got {value!r}"
        )
    if not items:
        raise InputError(f"{name}: no reference fit given")
    return [as_fit(fit, where) for where, fit in items]


def _points_from_json(rows) -> tuple[tuple, ...]:
    """Points as stored: (model, N, D, score, loss[, run]); older files have no run."""
    return tuple(
        (
            str(p[0]),
            float(p[1]),
            float(p[2]),
            float(p[3]),
            None if p[4] is None else float(p[4]),
            str(p[5]) if len(p) > 5 and p[5] is not None else str(p[0]),
        )
        for p in rows
    )


BELOW_FLOOR = "below_floor"
ABOVE_CEILING = "above_ceiling"
BEYOND_DATA_LIMIT = "beyond_data_limit"


def invert_scores(p, scores: np.ndarray, d0: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Score → (L̂, N̂, reason) under parameters ``p`` at D0 tokens (Xiao et al. 2024, eq. 4).

        L̂(S) = l − (1/γ)·ln(c/(S − d) − 1),   N̂ = ((L̂ − b·D0^-β − E) / a)^(−1/α)

    For a family law (``p`` without ``a``: :mod:`densing.laws.family`) L̂ is the shape's covariate, with no data
    term: N̂ = exp(L̂) (logistic_ln_n) or N_unit·(−L̂)^(−1/α) (power; none at or above its asymptote d + c·σ(−γ·l)).

    The one place the censoring rules live: N̂ = 0 at or below the floor d (``below_floor``); N̂ = +inf at or above
    the ceiling c + d or a family law's asymptote (``above_ceiling``), or where L̂ is at or below the data-limited
    floor b·D0^-β + E, which no finite model trained on D0 tokens reaches (``beyond_data_limit``; a negative L̂ is
    returned as NaN there: −log P ≥ 0); '' elsewhere. ``p``'s values may be arrays (one row per bootstrap draw)
    that broadcast against ``scores``.
    """
    loss_hat, size, code = censored_inversion(p, scores, d0)
    return loss_hat, size, REASONS[code.ravel()].reshape(code.shape)


#: The censoring reasons of :func:`invert_scores` by their code in :func:`censored_inversion`.
REASONS = np.array(["", BEYOND_DATA_LIMIT, ABOVE_CEILING, BELOW_FLOOR], dtype=object)


def censored_inversion(p, scores: np.ndarray, d0: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`invert_scores` with each reason as its code, the position in :data:`REASONS` (0 for none)."""
    loss_hat = forms.loss_for_score(scores, p["c"], p["gamma"], p["l"], p["d"])
    family = "a" not in p  # the family law (densing.laws.family): the latent loss is its covariate, no data term
    if family:
        alpha = forms.family_alpha(p)
        size = forms.family_size(loss_hat, alpha, p.get("n_unit", forms.POWER_N_UNIT))
        top = forms.family_asymptote(p["c"], p["gamma"], p["l"], p["d"], alpha)
    else:
        size = forms.params_for_loss(loss_hat, d0, p["a"], p["alpha"], p["b"], p["beta"], p.get("E", 0.0))
        top = p["c"] + p["d"]
    below = scores <= p["d"]
    above = (scores >= top) & ~below
    size = np.asarray(size)  # a new array: N̂ = +inf above the ceiling, 0 at or below the floor
    np.copyto(size, np.inf, where=above)
    np.copyto(size, 0.0, where=below)
    code = np.zeros(np.shape(size), np.int8)
    if not family:
        floor = p["b"] * d0 ** (-np.asarray(p["beta"])) + p.get("E", 0.0)
        code[np.broadcast_to(np.asarray(loss_hat <= floor), code.shape)] = 1
    code[np.broadcast_to(above, code.shape)] = 2
    code[np.broadcast_to(below, code.shape)] = 3
    if not family:  # no loss is negative (−log P ≥ 0): such a score is beyond the data limit, its L̂ NaN
        with np.errstate(invalid="ignore"):
            loss_hat = np.where(loss_hat < 0, np.nan, loss_hat)
    return loss_hat, size, code
