"""The schema of a fit file (:data:`FORMAT`, checked by :func:`check_fit_dict` against the law's domain
:data:`FIT_DOMAIN`), the points a reference fit is made on (:func:`select_points` and the cuts of them), one fitted
stage (:class:`StageFit`) and the verdicts on a fit as values (:func:`poor_fit`, :func:`misplaced_intervals`; their
words are made in :mod:`densing.present.laws`).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from densing.errors import InputError
from densing.results import Result
from densing.validation import D0_TOKENS, MAX_D0_TOKENS

LAWS = ("two-step", "composed")
#: Kinds a fit file may hold: the two laws fitted here and the family law (:mod:`densing.laws.family`).
KINDS = (*LAWS, "family")

FORMAT = "densing.reference_fit/1"
#: The parameters each kind of fit holds (E, the irreducible loss, is optional for the two laws).
_REQUIRED_PARAMS = {
    **dict.fromkeys(LAWS, ("a", "alpha", "b", "beta", "c", "gamma", "l", "d")),
    "family": ("c", "gamma", "l", "d"),
}
#: A family fit of the power shape also holds α and N_unit (both or neither: a file without them is logistic_ln_n).
_FAMILY_SHAPE_PARAMS = ("alpha", "n_unit")
_POSITIVE_PARAMS = ("a", "alpha", "b", "beta", "c", "n_unit")
#: Tolerance of the bound c + d ≤ 1 (a fitted ceiling at 1 lands a rounding error above it).
_CEILING_TOLERANCE = 1e-9

#: The domain of a fit's law, checked on the point estimate and every bootstrap draw: S = c·σ(−γ(L − l)) + d maps onto
#: scores in [0, 1]; γ < 0 for the loss-based laws (the score rises as the loss falls), > 0 for the family law; l, the
#: sigmoid's midpoint, is a loss for the two-step law (−log P ≥ 0, maybe below E), any finite number otherwise.
FIT_DOMAIN = {
    "a": "positive (> 0)",
    "alpha": "positive (> 0)",
    "n_unit": "positive (> 0)",
    "b": "positive (> 0)",
    "beta": "positive (> 0)",
    "E": "non-negative (≥ 0)",
    "c": "in (0, 1]",
    "d": "0 ≤ d < c + d ≤ 1",
    "gamma": "< 0 (two-step, composed), > 0 (family)",
    "l": "≥ 0 (two-step), finite (composed, family)",
    "d0": f"in (0, {MAX_D0_TOKENS:g}] tokens",
    "metric": "a score in [0, 1], higher better (a fraction metric)",
}


def _finite(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def _law_domain_error(kind: str, p: dict) -> tuple[str, object] | None:
    """The first parameter of ``p`` (one fit's values) outside :data:`FIT_DOMAIN`, with its value; None if none is."""
    bad = next((n for n, v in p.items() if not _finite(v)), None) or next(
        (n for n in _POSITIVE_PARAMS if n in p and p[n] <= 0), None
    )
    if bad:
        return bad, p[bad]
    if p.get("E", 0.0) < 0:
        return "E", p["E"]
    if not 0 <= p["d"] < p["c"] + p["d"] <= 1 + _CEILING_TOLERANCE:
        return ("d" if p["d"] < 0 or p["d"] >= 1 else "c"), p["d"] if p["d"] < 0 or p["d"] >= 1 else p["c"]
    if (kind == "family") != (p["gamma"] > 0) or p["gamma"] == 0:
        return "gamma", p["gamma"]
    if kind == "two-step" and p["l"] < 0:
        return "l", p["l"]
    return None


def _domain_words(kind: str, name: str, p: dict) -> str:
    if not _finite(p[name]):
        return "expected a finite number"
    if name in ("c", "d"):
        return f"c = {p['c']!r}, d = {p['d']!r}, c + d = {p['c'] + p['d']!r}; expected 0 ≤ d < c + d ≤ 1"
    if name == "gamma":
        return f"a {kind} fit has a {'positive' if kind == 'family' else 'negative'} gamma"
    return f"expected {FIT_DOMAIN[name]}"


def check_fit_dict(data: dict, *, source: str = "<fit>") -> None:
    """Check a fit file's content against its schema (format version, kind, parameters inside the law's domain
    :data:`FIT_DOMAIN` in the point estimate and every bootstrap draw, D0, metric, benchmark label, bootstrap shape)
    before it is used; InputError naming file, field, value and domain."""
    from densing.data.schema import FRACTION_METRICS

    fmt = data.get("format")
    if not isinstance(fmt, str) or not fmt.startswith("densing.reference_fit/"):
        raise InputError(f"{source}: field 'format': not a densing reference fit (expected {FORMAT!r})")
    if fmt != FORMAT:
        raise InputError(f"{source}: field 'format': {fmt!r} is not a version this densing reads (expected {FORMAT!r})")
    kind = data.get("kind")
    if kind not in KINDS:
        raise InputError(f"{source}: field 'kind': expected one of {', '.join(KINDS)}, got {kind!r}")
    params = data.get("params")
    if not isinstance(params, dict):
        raise InputError(f"{source}: field 'params': expected a mapping of parameter names to numbers")
    allowed = set(_REQUIRED_PARAMS[kind]) | ({"E"} if kind != "family" else set(_FAMILY_SHAPE_PARAMS))
    if kind == "family" and len(set(_FAMILY_SHAPE_PARAMS) & set(params)) == 1:
        raise InputError(
            f"{source}: field 'params': a family fit of the power shape needs both {' and '.join(_FAMILY_SHAPE_PARAMS)}"
        )
    if missing := [p for p in _REQUIRED_PARAMS[kind] if p not in params]:
        raise InputError(f"{source}: field 'params': a {kind} fit needs {', '.join(missing)}")
    if extra := sorted(set(params) - allowed):
        raise InputError(f"{source}: field 'params': a {kind} fit has no parameter(s) {', '.join(extra)}")
    if (bad := _law_domain_error(kind, params)) is not None:
        raise InputError(
            f"{source}: field 'params.{bad[0]}': {bad[1]!r} is outside the law's domain "
            f"({_domain_words(kind, bad[0], params)})"
        )
    d0 = data.get("d0")
    if not D0_TOKENS.matches(d0):
        raise InputError(
            f"{source}: field 'd0': expected a positive number of tokens up to {MAX_D0_TOKENS:g} "
            f"(the bound of --d0), got {d0!r}"
        )
    metric = data.get("metric")
    if "metric" in data and metric not in FRACTION_METRICS:
        raise InputError(
            f"{source}: field 'metric': {metric!r} is not a score the law inverts; expected "
            f"{FIT_DOMAIN['metric']}: one of {', '.join(sorted(FRACTION_METRICS))}"
        )
    if benchmarks := data.get("benchmarks") or (data.get("provenance") or {}).get("benchmarks"):
        label = benchmarks[0] if len(benchmarks) == 1 else f"mean({','.join(benchmarks)})"
        if data.get("benchmark") != label:
            raise InputError(
                f"{source}: field 'benchmark': {data.get('benchmark')!r} does not match the benchmarks "
                f"the fit was made on ({label!r}); refit rather than rename"
            )
    names = data.get("bootstrap_names") or []
    if unknown := sorted(set(names) - set(params)):
        raise InputError(f"{source}: field 'bootstrap_names': {', '.join(unknown)} not among the fit's parameters")
    for i, row in enumerate(data.get("bootstrap") or [], start=1):
        if not isinstance(row, list) or len(row) != len(names):
            raise InputError(
                f"{source}: field 'bootstrap': draw {i} has {len(row) if isinstance(row, list) else 'no'} "
                f"values for {len(names)} parameter(s)"
            )
    for i, row in enumerate(data.get("bootstrap") or [], start=1):  # every draw inside the domain, the point's
        draw = {**params, **dict(zip(names, row))}  # values where a draw has none
        if (bad := _law_domain_error(kind, draw)) is not None:
            raise InputError(
                f"{source}: field 'bootstrap': draw {i}: {bad[0]} = {bad[1]!r} is outside the law's "
                f"domain ({_domain_words(kind, bad[0], draw)})"
            )
    if not data.get("stages"):
        raise InputError(f"{source}: field 'stages': the fit has no fitted stage")


# -- the points a reference fit is made on: which rows of a tidy table, averaged how, cut where ------------------------

#: The columns of a reference point (a fit file stores its points in this order).
POINT_COLUMNS = ("model", "params", "train_tokens", "score", "loss", "run")


def select_points(
    frame: pd.DataFrame,
    benchmark: str | list[str],
    *,
    metric: str = "acc",
    n_shot: int | None = None,
    need_loss: bool = False,
) -> tuple[str, pd.DataFrame]:
    """Reference points (model, params, train_tokens, score, loss, run) for a benchmark, or the per-model mean of a list
    of benchmarks (models with all of them, as the paper fits the average score), named ``mean(b1,b2,…)``. ``run`` is
    the table's ``run`` column where set (checkpoints of one training run), else the model."""
    names = [benchmark] if isinstance(benchmark, str) else list(benchmark)
    rows = frame[frame["benchmark"].isin(names) & (frame["metric"] == metric)]
    if n_shot is not None:
        rows = rows[rows["n_shot"] == n_shot]
    if rows.empty:
        have = ", ".join(sorted(frame["benchmark"].unique())[:12])
        raise InputError(
            f"benchmark {'/'.join(names)!r} with metric {metric!r}: no rows in the data (benchmarks: {have})"
        )
    missing_tokens = rows[rows["train_tokens"].isna()]
    if len(missing_tokens):
        raise InputError(
            f"model {missing_tokens['model'].iloc[0]!r}: field 'train_tokens' is empty; "
            "reference points need both params and train_tokens"
        )
    if need_loss and rows["loss"].isna().any():
        bad = rows[rows["loss"].isna()]["model"].iloc[0]
        raise InputError(
            f"model {bad!r}: field 'loss' is empty; the two-step law needs conditional losses (use --law composed)"
        )
    if "loss_unit" in rows.columns and rows["loss"].notna().any():
        units = set(rows.loc[rows["loss"].notna(), "loss_unit"].fillna("nats"))
        if len(units) > 1:
            raise InputError(
                f"benchmark {'/'.join(names)!r}: losses in several units ({', '.join(sorted(units))}); fit one unit at a time"
            )
    run = rows["run"] if "run" in rows.columns else pd.Series(pd.NA, index=rows.index)
    rows = rows.assign(run=run.astype("string").fillna(rows["model"].astype("string")))
    grouped = rows.groupby("model", sort=True).agg(
        params=("params", "first"),
        train_tokens=("train_tokens", "first"),
        score=("value", "mean"),
        loss=("loss", "mean"),
        run=("run", "first"),
        n=("benchmark", "nunique"),
    )
    grouped = grouped[grouped["n"] == len(names)].drop(columns="n").reset_index()
    label = names[0] if len(names) == 1 else f"mean({','.join(names)})"
    return label, grouped[list(POINT_COLUMNS)]


def final_points(points: pd.DataFrame, last: int = 5) -> pd.DataFrame:
    """One point per run: the mean score and loss of its last ``last`` checkpoints, at the last D (earlier ones sit
    inside its learning-rate schedule; AI2's ladder step 1: allenai/OLMo-ladder ``--moving_avg 5``)."""
    if last < 1:
        raise InputError(f"final checkpoints: expected a positive count, got {last!r}")
    tails = [group.sort_values("train_tokens").tail(last) for _, group in points.groupby("run", sort=True)]
    rows = [
        tail.iloc[-1].to_dict()
        | {
            "score": float(tail["score"].mean()),
            "loss": float(tail["loss"].mean()) if tail["loss"].notna().all() else np.nan,
        }
        for tail in tails
    ]
    return pd.DataFrame(rows, columns=list(POINT_COLUMNS))


def past_run_fraction(points: pd.DataFrame, fraction: float) -> pd.DataFrame:
    """Checkpoints at or past ``fraction`` of their run's final token count (AI2 skips the first 10% of each ladder run
    in its step 2, ``--skip_perc 0.1``: early checkpoints are far from the trained models the law is used for)."""
    if not 0.0 <= fraction < 1.0:
        raise InputError(f"run fraction: expected a number in [0, 1), got {fraction!r}")
    final = points.groupby("run")["train_tokens"].transform("max")
    return points[points["train_tokens"] >= fraction * final].reset_index(drop=True)


def point_tuples(points: pd.DataFrame) -> tuple[tuple, ...]:
    return tuple(
        (
            str(r.model),
            float(r.params),
            float(r.train_tokens),
            float(r.score),
            None if pd.isna(r.loss) else float(r.loss),
            str(r.run),
        )
        for r in points.itertuples(index=False)
    )


def reference_subset(
    frame: pd.DataFrame, *, max_params: float | None = None, families: list[str] | None = None, source: str = "<data>"
) -> pd.DataFrame:
    """The rows of ``frame`` below ``max_params`` and of ``families`` (an unknown one: InputError naming ``source``)."""
    if max_params is not None:
        frame = frame[frame["params"] < max_params]
    if families is not None:
        if unknown := sorted(set(families) - set(frame["family"].dropna().unique())):
            raise InputError(f"{source}: field 'family': no models of family {', '.join(unknown)}")
        frame = frame[frame["family"].isin(families)]
    return frame


def _as_text(column: pd.Series) -> list[str]:
    """A column's cells as pandas' ``astype("string")`` writes them, missing ones ``<NA>``: ``str`` of each value for
    64-bit floats and integers, booleans and strings (the same text, faster), pandas itself for any other dtype."""
    kind = column.dtype.kind
    if kind in "fiub" and column.dtype.itemsize in (1, 8) or kind in "OUT" or str(column.dtype) in ("str", "string"):
        return [
            "<NA>" if v is None or v is pd.NA or (isinstance(v, float) and v != v) else str(v) for v in column.tolist()
        ]
    return column.astype("string").fillna("<NA>").tolist()


def data_hash(frame, columns: list[str] | None = None) -> str:
    """The ``data_hash`` a fit records of its points: SHA-256 (first 16 hex digits) of the given columns' values, row
    order independent; ``frame`` a DataFrame, or columns by name as arrays of 64-bit floats or text (the same hash)."""
    rows = sorted("\x1f".join(r) for r in zip(*(_as_text(frame[c]) for c in columns or list(frame.columns))))
    return hashlib.sha256("\x1e".join(rows).encode()).hexdigest()[:16]


# -- one fitted stage of a fit file, and the verdicts on a fitted reference --------------------------------------------


def r_squared(observed: np.ndarray, predicted: np.ndarray) -> float:
    """R² = 1 − Σ(S − Ŝ)² / Σ(S − S̄)² of a fitted stage (NaN when the observations do not vary)."""
    ss_res = float(np.sum((observed - predicted) ** 2))
    ss_tot = float(np.sum((observed - observed.mean()) ** 2))
    return 1.0 - ss_res / ss_tot if ss_tot > 0 else float("nan")


@dataclass(frozen=True)
class StageFit(Result):
    """One fitted law: parameters, what was held fixed, and goodness-of-fit diagnostics: ``r_squared``, ``rmse`` and
    ``residuals`` (prediction − observation, in input order) on the natural scale of the fitted loss or score."""

    _dict_exclude = ("residuals",)

    law: str
    params: dict[str, float]
    fixed: dict[str, float]
    r_squared: float
    rmse: float
    residuals: tuple[float, ...]
    converged: bool
    message: str
    n_points: int
    cost: float

    def to_dict(self) -> dict:
        return {**asdict(self), "residuals": list(self.residuals)}

    @classmethod
    def from_dict(cls, data: dict) -> StageFit:
        def numbers(values: dict) -> dict[str, float]:
            return {k: float(v) for k, v in values.items()}

        read = {
            "law": str,
            "params": numbers,
            "fixed": numbers,
            "r_squared": float,
            "rmse": float,
            "residuals": lambda values: tuple(float(v) for v in values),
            "converged": bool,
            "message": str,
            "n_points": int,
            "cost": float,
        }
        return cls(**{name: kind(data.get(name, {}) if name == "fixed" else data[name]) for name, kind in read.items()})


#: A score law that explains less than half of its points' variance (R² < 0.5) is not one to invert
#: through: the report marks it "do not invert" and ``compute_density`` leaves it out of aggregates.
POOR_FIT_R2 = 0.5


def score_r_squared(fit) -> float:
    """R² of the score stage of ``fit`` (a ReferenceFit; its last stage), NaN without a stage."""
    return fit.stages[-1].r_squared if fit.stages else math.nan


def poor_fit(fit) -> bool:
    """Whether the score stage of ``fit`` explains too little to invert through: R² below :data:`POOR_FIT_R2` or NaN
    (its verdict in words: :func:`densing.present.laws.fit_verdict`)."""
    r2 = score_r_squared(fit)
    return math.isnan(r2) or r2 < POOR_FIT_R2


def misplaced_intervals(fit, level: float = 0.95) -> pd.DataFrame:
    """The rows of ``fit.parameter_ci(level)`` whose bootstrap percentile interval misses the point estimate (most refits
    settle elsewhere: a flat or multi-modal cost surface); such an interval is reported as it is, with a note
    (:func:`densing.present.laws.interval_notes`)."""
    frame = fit.parameter_ci(level)
    inside = frame["ci_low"].isna() | ((frame["ci_low"] <= frame["estimate"]) & (frame["estimate"] <= frame["ci_high"]))
    return frame[~inside].reset_index(drop=True)
