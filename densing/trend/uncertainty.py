"""The doubling time with every source of uncertainty carried: fit, score noise, sampling of models.

One bootstrap draw k of the trend (ln ρ = A·t + B, Xiao et al. 2024 eq. 5) redraws:

(a) **fit** — the reference law's parameters: one of the fit's own bootstrap draws (resampled
    reference models), picked uniformly at random;
(b) **score** — each target's score: S + σ·z, z ~ N(0, 1), σ the score's standard error (the
    table's, or binomial from the benchmark's item count, :mod:`densing.data.item_counts`);
(c) **models** — the set of targets: families resampled with replacement, every member of a drawn family
    entering once per draw (a one-stage family-cluster bootstrap, :mod:`densing.trend.design` step 3);
(d) **reference** — where several references are candidates (rule v2 of
    :mod:`densing.laws.eligibility`), which one: picked with its weight (equal by default), so the
    interval carries the choice (:func:`carry_over_references`);

then inverts every score into ln ρ or a bound (per benchmark or jointly,
:mod:`densing.laws.inversion`) and fits the frontier line with bounds as bounds (a rule of
:mod:`densing.trend.rules`). The percentile interval of A over the
draws, mapped through ln 2 / A, is the doubling time's interval. Each source is also drawn alone
(the other two held at their point values); its **share** is its slope variance over the sum of
the three, so the output says which source dominates.

Frontier rules: ``quantile`` (Powell's censored q-th regression quantile, q = 0.9), ``all`` (Tobit, the mean line),
``envelope`` (the paper's record-setters, fitted by OLS, bounds entering at their bound value: its points are chosen
on the response, and its interval is optimistic).

Coverage on planted data (``studies/trend_full_coverage.py``, 100 replicates of the whole pipeline:
a reference family fitted with its bootstrap, 90 targets with binomial score noise; nominal 0.95):
quantile 0.99, all (Tobit) 0.99, envelope 0.65 — against 0.82, 0.72 and 0.24 for an interval
from resampling models only. The envelope's interval is optimistic and is labelled so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from numbers import Integral, Real

import numpy as np
import pandas as pd

from densing.errors import FitError, InputError
from densing.laws.inversion import arrays, as_inversion
from densing.results import Result
from densing.trend import rules
from densing.trend.censored import EXACT, LOWER, UPPER
from densing.trend.targets import family_clusters
from densing.trend.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, MIN_POINTS, PAPER
from densing.trend.lines import doubling_interval, doubling_months, envelope_index, slope_band
from densing.trend.scope import dates_as_days, parse_epoch
from densing.validation import DRAWS, Interval, validate_params

SOURCES = ("fit", "score", "models")
#: every source a draw redraws when several references are candidates (:func:`carry_over_references`)
ALL_SOURCES = SOURCES + ("reference",)


def frontier_slope(rule: str, t: np.ndarray, y: np.ndarray, kind: np.ndarray, labels: np.ndarray,
                   quantile: float = 0.9) -> float:
    """Slope A per day of one frontier rule on points some of which are bounds (NaN if unfittable)."""
    return rules.frontier_line(rule, t, y, kind, labels, quantile)[0]


@dataclass(frozen=True)
class TrendUncertainty(Result):
    """Point line (slope and intercept), the slope's full-uncertainty interval, and each source's share.

    The line is ln ρ = A·t + B, t in days since ``epoch``: :meth:`predict` draws it and
    :meth:`confidence_band` its slope's interval; ``frontier_models`` are the points it goes through
    (the envelope's record-setters; every usable model for the other rules) under the lead reference,
    ``r_squared`` the envelope's OLS R² through them (NaN for the censored rules).
    """

    rule: str
    inversion: str
    slope_per_day: float
    intercept: float
    slope_ci_low: float
    slope_ci_high: float
    doubling_time_months: float
    doubling_time_months_ci_low: float
    doubling_time_months_ci_high: float
    n_models: int
    n_exact: int
    n_lower_bounds: int
    n_upper_bounds: int
    n_dropped: int
    n_boot: int
    level: float
    share_fit: float
    share_score: float
    share_models: float
    slope_sd_fit: float
    slope_sd_score: float
    slope_sd_models: float
    slope_sd_all: float
    failed_draws: int
    models: tuple[str, ...] = field(repr=False, default=())
    draws: np.ndarray = field(repr=False, compare=False, default_factory=lambda: np.empty(0))
    share_reference: float = 0.0
    slope_sd_reference: float = 0.0
    n_references: int = 1
    reference_names: tuple[str, ...] = field(repr=False, default=())
    reference_weights: tuple[float, ...] = field(repr=False, default=())
    reference_slopes: tuple[float, ...] = field(repr=False, default=())
    epoch: str = field(repr=False, default=DEFAULT_EPOCH)
    frontier_models: tuple[str, ...] = field(repr=False, default=())
    centre_days: float = field(repr=False, default=math.nan)
    r_squared: float = field(repr=False, default=math.nan)
    #: the common design's heterogeneity test (densing.trend.design): Cochran's Q with the paired draws' covariance,
    #: its degrees of freedom (R − 1; 0 with one reference) and p-value, τ² (per day², Paule–Mandel) and I²
    heterogeneity_q: float = math.nan
    heterogeneity_df: int = 0
    heterogeneity_p: float = math.nan
    tau_squared: float = 0.0
    i_squared: float = math.nan
    #: each reference's own doubling-time interval (months), in the order of ``reference_names``
    reference_months_low: tuple[float, ...] = field(repr=False, default=())
    reference_months_high: tuple[float, ...] = field(repr=False, default=())
    #: "measured", "bounded: why" or "not measured: why" (:func:`densing.trend.design.status_words`); "" where no
    #: status was judged
    status: str = ""
    #: the 95% Monte Carlo range of each end of the doubling time's interval (months; the spread reseeding the draws
    #: gives it) and whether the end is determined (:data:`densing.trend.design.END_STABILITY`)
    months_low_mc_low: float = math.nan
    months_low_mc_high: float = math.nan
    months_high_mc_low: float = math.nan
    months_high_mc_high: float = math.nan
    low_determined: bool = False
    high_determined: bool = False
    #: the point doubling time with no target entered as a ceiling bound, and the targets each reference bounds
    months_without_ceilings: float = math.nan
    ceiling_bounds: tuple[int, ...] = field(repr=False, default=())
    n_ceiling_bounds: int = 0
    #: leave one family out (each family's removal, the estimate without it, its move); one model out (the largest)
    influence: tuple = ()
    most_influential_model: str = ""
    months_without_model: float = math.nan

    # the bulky per-model names and per-draw slopes, and the line's drawing aids, stay out of JSON
    _dict_exclude = ("models", "draws", "reference_names", "reference_weights", "reference_slopes", "epoch",
                     "frontier_models", "centre_days", "r_squared", "reference_months_low", "reference_months_high",
                     "ceiling_bounds")
    _ci_estimates = {"slope": "slope_per_day"}

    @property
    def state(self) -> str:
        """"measured", "bounded" or "not measured": the status's first words ("" where no status was judged)."""
        return self.status.split(":")[0]

    def influence_frame(self) -> pd.DataFrame:
        """The leave-one-family-out table as a DataFrame, the largest move first."""
        columns = ["family", "n_models", "doubling_time_months", "move_months"]
        frame = pd.DataFrame([[getattr(item, c) for c in columns] for item in self.influence], columns=columns)
        frame = frame.astype({"n_models": int, "doubling_time_months": float, "move_months": float})
        # the largest move first; a removal that leaves no rising line (an infinite or undefined estimate) moves most
        order = np.argsort(-np.nan_to_num(np.abs(frame["move_months"].to_numpy()), nan=np.inf), kind="stable")
        return frame.iloc[order].reset_index(drop=True)

    @property
    def reference_months(self) -> dict[str, float]:
        """Each candidate reference's own point doubling time (months), by name."""
        return {name: _months(slope) for name, slope in zip(self.reference_names, self.reference_slopes)}

    def determined(self) -> str:
        """What the draws determine, in words (:func:`densing.trend.verdict.determined_words`)."""
        from densing.trend.verdict import determined_words

        return determined_words(self)

    def _summary_items(self) -> list[tuple[str, object]]:
        """The state and what is determined first (:func:`densing.trend.verdict.summary_items`), then the fields."""
        from densing.trend.verdict import summary_items

        return summary_items(self) + [(n, v) for n, v in super()._summary_items() if n != "influence"]

    def __repr__(self) -> str:
        return (f"TrendUncertainty({self.rule}, {self.state or 'state not judged'}: doubling time {self.determined()}, "
                f"A = {self.slope_per_day:.3g}/day [{self.slope_ci_low:.3g}, {self.slope_ci_high:.3g}], "
                f"{self.n_models} models, {self.n_references} reference(s)"
                + (f"; Q p = {self.heterogeneity_p:.2g}, I² = {self.i_squared:.0%}" if self.heterogeneity_df else "")
                + (f"; {self.status}" if ":" in self.status else "") + ")")

    @validate_params({"paper_months": [Interval(Real, 0, None, closed="neither"), None]})
    def plot(self, *, paper_months: float | None = None, title: str | None = None):
        """A plotly ``Figure`` of what this result holds (:func:`densing.trend.figures.uncertainty_figure`): the
        doubling time with its interval over every source, each candidate reference's own point estimate beside it and
        the paper's 3.3 months (``paper_months`` another); beside them each source's share of the slope variance
        (reference fit, score noise, sampling of models, choice of reference). The line itself over the models' points
        is :meth:`densing.trend.measurement.TrendMeasurement.plot` (this result keeps no per-model densities)."""
        from densing.trend import figures

        return figures.uncertainty_figure(self, PAPER["doubling_time_months"] if paper_months is None else paper_months,
                                          title=title)

    def _days(self, dates) -> np.ndarray:
        return dates_as_days(dates, parse_epoch(self.epoch))  # InputError for what is not a date

    def predict(self, dates) -> np.ndarray:
        """ln ρ̂ = A·t + B on ``dates`` (t in days since ``epoch``)."""
        return self.slope_per_day * self._days(dates) + self.intercept

    def confidence_band(self, dates) -> tuple[np.ndarray, np.ndarray]:
        """Lines through the frontier points' centre with the slope at the ends of its interval (pointwise min, max).

        It shows the slope's uncertainty (what the doubling time's interval says), not the intercept's.
        """
        centre = self.centre_days if math.isfinite(self.centre_days) else 0.0
        return slope_band(self._days(dates), centre, self.slope_per_day, self.intercept, self.slope_ci_low, self.slope_ci_high)


def _months(slope: float) -> float:
    return doubling_months(slope)


def carry_uncertainty(models: pd.DataFrame, reference, *, d0: float | None = None, **options) -> TrendUncertainty:
    """The trend's slope with (a) fit, (b) score and (c) model-sampling uncertainty (module docstring).

    ``models``: one row per target with ``model``, ``params``, ``t`` (days since the epoch) and
    the scores of the inversion's benchmarks (``score:<b>``, ``stderr:<b>``; or ``score`` and
    ``stderr`` for one benchmark). ``reference``: an inversion (:mod:`densing.laws.inversion`)
    or a :class:`ReferenceFit` (inverted per benchmark at ``d0``). One reference is
    :func:`carry_over_references` with one member; ``options`` are its keywords (``rule``, ``quantile``,
    ``n_boot``, ``n_boot_share``, ``level``, ``seed``, ``epoch``) with its defaults.
    """
    return carry_over_references([(as_inversion(reference, d0), models)], **options)


@validate_params({"level": [Interval(Real, 0, 1, closed="neither")], "n_boot": [DRAWS],
                  "n_boot_share": [Interval(Integral, 0, None)]})
def carry_over_references(
    members: list[tuple[object, pd.DataFrame]],
    *,
    weights: tuple[float, ...] | None = None,
    rule: str = "quantile",
    quantile: float = 0.9,
    n_boot: int = 1000,
    n_boot_share: int = 300,
    level: float = 0.95,
    seed: int = 0,
    epoch: str = DEFAULT_EPOCH,
) -> TrendUncertainty:
    """The slope with fit, score, model-sampling **and reference-choice** uncertainty.

    ``members``: (inversion, its targets) per candidate reference — each reference has its own
    targets, since a family's own models are never its targets. Each draw (d) picks a reference
    with probability ``weights`` (default equal), then (a)–(c) as in the module docstring within it.
    The point line is the weighted mean of the references' point lines; each reference's own
    point slope is kept (``reference_slopes``). The shares: each source drawn alone, the others at
    their point values — for the reference, that point is the first member (the lead). ``epoch``: the
    t = 0 of the frames' ``t`` (kept, so the result can draw its line over dates).
    """
    rules.get(rule)
    if not members:
        raise InputError("references: no reference to carry the trend's uncertainty over")
    count_refs = len(members)
    w = np.full(count_refs, 1.0 / count_refs) if weights is None else np.asarray(weights, float) / float(np.sum(weights))
    prepared = [_prepared(inversion, frame, rule, quantile) for inversion, frame in members]
    slopes0 = np.array([m["line0"][0] for m in prepared])
    slope0, intercept0 = float(w @ slopes0), float(w @ np.array([m["line0"][1] for m in prepared]))
    rng = np.random.default_rng(seed)

    def draw(sources: tuple[str, ...], count: int) -> np.ndarray:
        return _draw(rng, prepared, w, slopes0, rule, quantile, sources, count)

    combined = draw(ALL_SOURCES, n_boot)
    ok = combined[np.isfinite(combined)]
    if ok.size < 2:
        raise FitError(f"{rule} frontier: the bootstrap could not fit a line in any draw")
    tail = (1 - level) / 2
    low, high = np.quantile(ok, [tail, 1 - tail])
    # n_boot_share = 0: the shares are not wanted (NaN), their draws are skipped
    sources = SOURCES + (("reference",) if count_refs > 1 else ())
    sds = {s: (float(np.nanstd(draw((s,), n_boot_share))) if n_boot_share else math.nan) for s in sources}
    if count_refs == 1:
        sds["reference"] = 0.0 if n_boot_share else math.nan
    return _carried(rule, prepared, w, slopes0, (slope0, intercept0), (float(low), float(high)), sds, combined, ok,
                    n_boot=n_boot, level=level, epoch=epoch)


def _prepared(inversion, frame: pd.DataFrame, rule: str, quantile: float) -> dict:
    """One member of :func:`carry_over_references`: its targets' arrays, point densities and point line."""
    if inversion.n_draws < 1:
        raise FitError(f"{inversion.name}: the reference fit has no bootstrap draws; its uncertainty cannot be carried")
    frame = _with_score_columns(frame, inversion.benchmarks)
    scores, sigma = arrays(frame, inversion.benchmarks)
    item = {"inversion": inversion, "t": frame["t"].to_numpy(float), "scores": scores, "sigma": sigma,
            "params": frame["params"].to_numpy(float), "labels": frame["model"].astype(str).to_numpy(), "n": len(frame)}
    clusters = family_clusters(frame["family"] if "family" in frame.columns else [None] * len(frame))
    item["members"] = [np.flatnonzero(clusters == g) for g in range(int(clusters.max()) + 1 if len(frame) else 0)]
    item["y0"], item["kind0"] = inversion.point(scores, sigma, item["params"]) if len(frame) else (np.empty(0), np.empty(0))
    item["line0"] = rules.frontier_line(rule, item["t"], item["y0"], item["kind0"], item["labels"], quantile)
    if not math.isfinite(item["line0"][0]):
        raise FitError(f"{rule} frontier under {inversion.name}: fewer than {MIN_POINTS} usable models "
                       f"(of {len(frame)} targets); no trend line")
    item["extra"] = {"weights": inversion.weights(scores, sigma)} if hasattr(inversion, "weights") else {}
    return item


def family_index(members: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """One family-cluster resample of the targets as row indices: G families drawn with replacement, every member of
    a drawn family once per draw (:func:`densing.trend.targets.family_clusters` groups them)."""
    picks = rng.integers(len(members), size=len(members))
    return np.concatenate([members[g] for g in picks]) if len(members) else np.empty(0, np.intp)


def _draw_in(rng, m: dict, rule: str, quantile: float, sources: tuple[str, ...], count: int) -> np.ndarray:
    """``count`` slopes under one member, ``sources`` redrawn (``fit``, ``score``, ``models``), the rest at their points."""
    inversion, scores, sigma, n = m["inversion"], m["scores"], m["sigma"], m["n"]
    picks = rng.integers(inversion.n_draws, size=count) if "fit" in sources else None
    noise = rng.standard_normal((count, *scores.shape)) * np.nan_to_num(sigma) if "score" in sources else 0.0
    drawn = np.broadcast_to(scores[None] + noise, (count, *scores.shape))
    y, kind = inversion.draws(picks, np.ascontiguousarray(drawn), sigma, m["params"], **m["extra"])
    y = np.broadcast_to(y, (count, n))
    kind = np.broadcast_to(kind, (count, n))
    t, labels = m["t"], m["labels"]
    problems = []
    for k in range(count):  # the targets drawn as families (densing.trend.design, step 3)
        index = family_index(m["members"], rng) if "models" in sources else np.arange(n)
        problems.append((t[index], y[k, index], kind[k, index], labels[index]))
    return rules.frontier_lines(rule, problems, quantile, start=m["line0"])[:, 0]  # the draws' lines solved together


def _draw(rng, prepared: list[dict], w: np.ndarray, slopes0: np.ndarray, rule: str, quantile: float,
          sources: tuple[str, ...], count: int) -> np.ndarray:
    """``count`` slopes with ``sources`` redrawn; with ``reference`` among them each draw first picks a member (``w``)."""
    if "reference" not in sources or len(prepared) == 1:
        if sources == ("reference",):
            return np.full(count, slopes0[0])
        return _draw_in(rng, prepared[0], rule, quantile, sources, count)
    which = rng.choice(len(prepared), size=count, p=w)
    out = np.empty(count)
    for r in range(len(prepared)):
        chosen = np.flatnonzero(which == r)
        if chosen.size:
            out[chosen] = _draw_in(rng, prepared[r], rule, quantile, sources, chosen.size) if sources != ("reference",) else slopes0[r]
    return out


def _carried(rule: str, prepared: list[dict], w: np.ndarray, slopes0: np.ndarray, line0: tuple[float, float],
             interval: tuple[float, float], sds: dict, combined: np.ndarray, ok: np.ndarray, *, n_boot: int,
             level: float, epoch: str) -> TrendUncertainty:
    """The :class:`TrendUncertainty` of :func:`carry_over_references` from its point line, interval and draws."""
    slope0, intercept0 = line0
    total = sum(v ** 2 for v in sds.values())
    shares = {s: (sds[s] ** 2 / total if total > 0 else math.nan) for s in sds}  # NaN propagates when skipped
    dt_low, dt_high = doubling_interval(*interval)
    lead = prepared[0]
    kinds = lead["kind0"][np.isfinite(lead["kind0"])]
    front, r_squared = _frontier_points(rule, lead, slope0, intercept0)
    labels = sorted(set().union(*(set(m["labels"]) for m in prepared)))
    from densing.trend.verdict import determined_ends, end_range, status_words

    tail = (1 - level) / 2
    ends = determined_ends((end_range(ok, tail), end_range(ok, 1 - tail)), *interval)
    result = TrendUncertainty(
        rule=rule, inversion=" | ".join(m["inversion"].name for m in prepared), slope_per_day=slope0, intercept=intercept0,
        slope_ci_low=interval[0], slope_ci_high=interval[1],
        doubling_time_months=_months(slope0),
        doubling_time_months_ci_low=dt_low / DAYS_PER_MONTH, doubling_time_months_ci_high=dt_high / DAYS_PER_MONTH,
        n_models=len(labels), n_exact=int((kinds == EXACT).sum()), n_lower_bounds=int((kinds == LOWER).sum()),
        n_upper_bounds=int((kinds == UPPER).sum()), n_dropped=int((~np.isfinite(lead["kind0"])).sum()),
        n_boot=n_boot, level=level,
        share_fit=shares["fit"], share_score=shares["score"], share_models=shares["models"],
        slope_sd_fit=sds["fit"], slope_sd_score=sds["score"], slope_sd_models=sds["models"],
        slope_sd_all=float(np.std(ok)), failed_draws=int(n_boot - ok.size), models=tuple(labels), draws=combined,
        share_reference=shares["reference"], slope_sd_reference=sds["reference"], n_references=len(prepared),
        reference_names=tuple(m["inversion"].name for m in prepared), reference_weights=tuple(float(v) for v in w),
        reference_slopes=tuple(float(v) for v in slopes0), epoch=epoch,
        frontier_models=tuple(str(v) for v in lead["labels"][front]),
        centre_days=float(np.mean(lead["t"][front])) if front.size else math.nan, r_squared=r_squared,
        **ends,
    )
    return replace(result, status=status_words(result))


def _frontier_points(rule: str, lead: dict, slope: float, intercept: float) -> tuple[np.ndarray, float]:
    """The lead reference's points the line goes through (the envelope's record-setters, else every usable model)
    and, for the envelope, the OLS R² of the line through them."""
    t, y, kind, labels = lead["t"], lead["y0"], lead["kind0"], lead["labels"]
    usable = np.flatnonzero(np.isfinite(y) & np.isfinite(kind))
    if rule != "envelope":
        return usable, math.nan
    index = usable[envelope_index(t[usable], y[usable], labels[usable])]
    total = float(np.sum((y[index] - y[index].mean()) ** 2))
    fitted = slope * t[index] + intercept
    return index, (1 - float(np.sum((y[index] - fitted) ** 2)) / total if total > 0 else math.nan)


def _with_score_columns(models: pd.DataFrame, benchmarks: tuple[str, ...]) -> pd.DataFrame:
    """A one-benchmark table with plain ``score``/``stderr`` columns gets the ``score:<b>`` form too."""
    if all(f"score:{b}" in models.columns for b in benchmarks):
        return models
    if len(benchmarks) == 1 and "score" in models.columns:
        b = benchmarks[0]
        stderr = models["stderr"] if "stderr" in models.columns else np.nan
        return models.assign(**{f"score:{b}": models["score"], f"stderr:{b}": stderr})
    raise InputError(f"models: no scores for {', '.join(benchmarks)}")


__all__ = ["ALL_SOURCES", "SOURCES", "TrendUncertainty", "carry_over_references", "carry_uncertainty",
           "frontier_slope"]
