"""Common targets for every reference of a row: the same benchmarks, the same targets, paired draws, a pooled slope.

A row (one benchmark, or a set) is measured against several reference families; docs/method.md ("Common targets per
row", "Ceilings as bounds", "Floors as bounds") gives each step's equations and reasons. The steps, as cited:

1. **The targets**, complete cases on the row's benchmarks, and 2. **each reference's own members**, taken from the
   other references (:mod:`densing.trend.selection`).
3. **Paired draws** (:func:`_family_weights`): labs, families within them, each score's noise and each reference's
   fit draw; each reference's frontier line (:mod:`densing.trend.rules`) gives its slope A_r^(k). A target at a
   reference's ceiling (:func:`at_ceiling`) enters its line as a lower bound, one at a chance level as an upper bound
   (:mod:`densing.trend.floors`); the estimate without each kind is reported beside the number.
4. **Random-effects pooling** by lab (:mod:`densing.trend.random_effects`): the pooled draws wᵀA^(k) + τ·‖w‖·ε_k,
   ε ~ N(0, 1); each source's share of the variance from its draws alone, τ²‖w‖² for the reference.
5. **The interval's ends**: each end's 95% Monte Carlo range (:func:`end_range`) says whether it is determined,
   undecided or precise; a judged row's draws are doubled up to :data:`DRAWS_CAP` until they say (:func:`more_draws`).
6. **The row's state** (:func:`densing.trend.uncertainty.state_of`); the heterogeneity test is the one gate.
7. **Influence**: each family, lab and model left out in turn (:mod:`densing.trend.influence`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from numbers import Integral, Real

import numpy as np
import pandas as pd

from densing.constants import (
    CEILING_STDERRS,
    DRAWS_CAP,
    END_STABILITY,
    HETEROGENEITY_ALPHA,
    MIN_POINTS,
    PRECISION_DRAWS_CAP,
    PRECISION_GROWTH,
)
from densing.data.labs import family_lab, labs_of
from densing.data.schema import LAB_COLUMN
from densing.errors import FitError, InputError
from densing.laws.bounds import EXACT, LOWER, UPPER, score_cap
from densing.laws.inversion import arrays
from densing.laws.region import Reason, member_log_sizes, within_members
from densing.trend import rules
from densing.trend.floors import at_floor, chance_caps, chance_levels, floor_plan, floor_scores

# step 7 (influence), steps 4 and 5 (random effects), and the names the package reads here
from densing.trend.influence import (
    FamilyInfluence,
    family_influence,
    frontier_slopes,
    influence_items,
    most_influential_model,
    open_draws,
)
from densing.trend.random_effects import (
    Pooled,
    determined_ends,
    draws_needed,
    end_range,
    heterogeneity_check,
    months_interval,
    pool_by_lab,
    pool_slopes,
    undecided,
)
from densing.trend.selection import CommonTargets, own_from_others
from densing.trend.targets import family_clusters
from densing.validation import MAX_DRAWS, Interval, Options, validate_params


def _prepared(common: CommonTargets) -> dict:
    for inv in common.inversions:
        if inv.n_draws < 1:
            raise FitError(f"{inv.name}: the reference fit has no bootstrap draws; its uncertainty cannot be carried")
    frame = common.frame
    scores, sigma = arrays(frame, common.benchmarks)
    families = frame["family"].to_numpy(object) if "family" in frame.columns else [None] * len(frame)
    clusters = family_clusters(families)
    named = np.where(
        pd.isna(pd.Series(list(families), dtype=object)),
        frame["model"].astype(str).to_numpy(),
        np.asarray(list(families), dtype=object),
    )
    cells = frame[LAB_COLUMN].to_numpy(object) if LAB_COLUMN in frame.columns else None  # the table's own labs
    labs = labs_of(families, cells, common.family_labs or None)
    labs = np.where(labs == "", named, labs)  # a model with no family and no lab: a lab of its own
    caps = [reference_caps(inv, scores.shape[1]) for inv in common.inversions]
    return {
        "t": frame["t"].to_numpy(float),
        "scores": scores,
        "sigma": sigma,
        "params": frame["params"].to_numpy(float),
        "labels": frame["model"].astype(str).to_numpy(),
        "n": len(frame),
        "clusters": clusters,
        "families": named,
        "labs": labs,
        "lab_clusters": lab_clusters(labs, clusters),
        "caps": caps,
        **_floor_data(common, scores, sigma, frame["params"].to_numpy(float)),
    }


def _floor_data(common: CommonTargets, scores: np.ndarray, sigma: np.ndarray, params: np.ndarray) -> dict:
    """What the identified region and the chance floors need (docs/method.md, "The identified region", "Direction by
    what the score does"): each reference's region in ln N (``regions``), the observed scores that leave a joint
    inversion (``dropped``, (n, B)), and per reference the ln N̂ cap those scores set and the benchmark that sets it
    (``chance_caps``, ``chance_cap_benchmark``, (R, n))."""
    chance = chance_levels(common.benchmarks)
    joint = all(getattr(inv, "kind", "") == "joint" for inv in common.inversions)
    dropped = floor_plan(scores, sigma, chance, joint)
    regions = [member_log_sizes(inv) for inv in common.inversions]
    caps = [
        chance_caps(inv.fits, scores, sigma, dropped, low)
        if dropped.any()
        else (np.full(len(params), np.inf), np.full(len(params), -1))
        for inv, (low, _) in zip(common.inversions, regions)
    ]
    return {
        "regions": regions,
        "dropped": dropped,
        "multi_floor": not joint and scores.shape[1] > 1,
        "chance_caps": np.array([c for c, _ in caps], float).reshape(len(regions), -1),
        "chance_cap_benchmark": np.array([b for _, b in caps], int).reshape(len(regions), -1),
        "masked_scores": np.where(dropped, np.nan, scores),
    }


def _floored(scores: np.ndarray, sigma: np.ndarray, benchmarks, data: dict) -> np.ndarray:
    """Which targets are at the floor on every benchmark of their inversion (:func:`densing.trend.floors.at_floor`);
    a per-benchmark mean inversion over several benchmarks, which can leave no score out, on any of them."""
    chance = chance_levels(benchmarks)
    if data["multi_floor"]:
        return floor_scores(scores, sigma, chance).any(axis=-1)
    return at_floor(scores, sigma, chance)


def _bounded(
    data: dict,
    r: int,
    y: np.ndarray,
    kind: np.ndarray,
    scores: np.ndarray,
    floor,
    ceilings: bool = True,
    floors: bool = True,
    region: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reference r's densities ``y`` and kinds with every rule of bounds applied, in order (docs/method.md): the
    identified region, the cap a left-out floor score sets (``floors``), the ceiling (lower bound at its value;
    ``ceilings``), every score at the floor (upper bound at its value: ``floor``, per target); ``region=False`` leaves
    the identified region out (the estimate without it). Returns (y, kind, reason)
    (:class:`densing.laws.region.Reason`)."""
    log_params = np.log(data["params"])
    y, kind, reason = within_members(y, kind, log_params, data["regions"][r] if region else (-np.inf, np.inf))
    cap = (data["chance_caps"][r] if floors else np.inf) - log_params  # ln ρ at the cap, +∞ where no score is left out
    capped = (kind == EXACT) & (y > cap)
    y = np.where(capped, cap, y)
    kind = np.where(capped, UPPER, kind)
    reason = np.where(capped, int(Reason.CHANCE_CAP), reason)
    if ceilings:
        top = at_ceiling(scores, data["sigma"], data["caps"][r]) & (kind == EXACT)
        kind = np.where(top, LOWER, kind)
        reason = np.where(top, int(Reason.AT_CEILING), reason)
    chance = np.asarray(floor, bool) & (kind == EXACT)
    kind = np.where(chance, UPPER, kind)
    reason = np.where(chance, int(Reason.AT_CHANCE), reason)
    return y, kind, reason


def reference_labs(common: CommonTargets) -> tuple[str, ...]:
    """Each reference's lab (step 4): the lab the table's own ``lab`` column gives the rows of its family
    (``common.family_labs``), else ``labs.csv``'s (:func:`densing.data.labs.lab_of`), else its family, a lab of its
    own."""
    return tuple(family_lab(name.family, common.family_labs) or name.family for name in common.names)


def lab_clusters(labs: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """Each target's lab code by first appearance, a family in its first member's lab (labs nest families)."""
    first = np.unique(clusters, return_index=True)[1]
    family_lab = np.asarray(labs, dtype=object)[first][clusters] if clusters.size else np.asarray(labs, dtype=object)
    return family_clusters(family_lab)


def reference_caps(inversion, columns: int) -> np.ndarray:
    """The highest score each benchmark's law of ``inversion`` expresses (:func:`densing.laws.bounds.score_cap`)."""
    if getattr(inversion, "kind", "") == "joint":
        return np.array([float(score_cap({k: float(v) for k, v in f.params.items()}, f.d0)) for f in inversion.fits])
    return np.full(columns, float(inversion.cap()))


def at_ceiling(scores: np.ndarray, sigma: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Whether any score of a target has S_b ≥ S_cap,b − 2σ_b (step 3): ``scores`` (..., n, B) → (..., n)."""
    with np.errstate(invalid="ignore"):
        near = scores >= caps - CEILING_STDERRS * np.nan_to_num(sigma)
    return np.any(near & np.isfinite(scores), axis=-1)


def _family_weights(
    clusters: np.ndarray, count: int, rng: np.random.Generator, labs: np.ndarray | None = None
) -> np.ndarray:
    """``count`` two-stage cluster bootstrap draws as counts per target, (count, n) (step 3; Davison & Hinkley 1997,
    §3.8): the L labs with replacement, then for lab l drawn c times its families ~ Multinomial(c·F_l, 1/F_l), every
    member counted once per draw of its family; ``labs`` None (or one family a lab): the one-stage family bootstrap."""
    groups = int(clusters.max()) + 1 if clusters.size else 0
    labs = np.arange(groups)[clusters] if labs is None else labs
    first = np.unique(clusters, return_index=True)[1]
    family_lab = labs[first] if clusters.size else np.zeros(0, np.intp)  # each family's lab
    count_labs = int(labs.max()) + 1 if labs.size else 0
    picks = rng.integers(count_labs, size=(count, count_labs))
    counts = np.zeros((count, count_labs))
    np.add.at(counts, (np.arange(count)[:, None], picks), 1.0)
    if count_labs == groups:  # every lab one family (both numbered by first appearance): the labs' counts are theirs
        return counts[:, clusters]
    families = np.zeros((count, groups))
    for lab in range(count_labs):
        members = np.flatnonzero(family_lab == lab)
        if members.size == 1:
            families[:, members[0]] = counts[:, lab]
        else:
            drawn = counts[:, lab].astype(np.int64) * members.size
            families[:, members] = rng.multinomial(drawn, np.full(members.size, 1.0 / members.size))
    return families[:, clusters]


#: The most densities (references × draws × targets) a set of paired draws holds at once, about 8 MB an array; a set
#: with more keeps its random numbers alone and computes its densities a chunk of draws at a time wherever they are
#: read (each draw is its own arithmetic: the same numbers). Every shipped row's first 600 draws fit (the public
#: table's HellaSwag row's hold 1.05 million); a row grown past it keeps the densities of the draws it adds for their
#: slopes (:func:`_grown`), so that no draw's are computed twice.
DRAW_CELLS = 2**20


@dataclass(frozen=True)
class Draws:
    """``len`` paired draws of ``sources`` (step 3): score noise, counts of every target ``weight``, fit draws, and ln ρ
    and kinds (R, draws, n) where they fit in :data:`DRAW_CELLS` (else None: :func:`_slopes` computes them)."""

    sources: tuple[str, ...]
    noise: np.ndarray | float = field(repr=False)
    weight: np.ndarray = field(repr=False)
    picks: tuple = field(repr=False)
    y: np.ndarray | None = field(repr=False, default=None)
    kind: np.ndarray | None = field(repr=False, default=None)

    def __len__(self) -> int:
        return len(self.weight)

    def part(self, low: int, high: int) -> Draws:
        """Draws ``low`` to ``high`` (their densities, where held, as views)."""

        def cut(a):
            return None if a is None else a[:, low:high]

        return Draws(
            self.sources,
            self.noise[low:high] if np.ndim(self.noise) else self.noise,
            self.weight[low:high],
            tuple(None if p is None else p[low:high] for p in self.picks),
            cut(self.y),
            cut(self.kind),
        )


def _random_draws(
    common: CommonTargets, data: dict, sources: tuple[str, ...], count: int, rng: np.random.Generator
) -> Draws:
    """``count`` paired draws of ``sources`` from ``rng``, their densities held where they fit."""
    scores, sigma, n = data["scores"], data["sigma"], data["n"]
    noise = rng.standard_normal((count, *scores.shape)) * np.nan_to_num(sigma) if "score" in sources else 0.0
    weight = (
        _family_weights(data["clusters"], count, rng, data["lab_clusters"])
        if "models" in sources
        else np.ones((count, n))
    )
    picks = tuple(rng.integers(inv.n_draws, size=count) if "fit" in sources else None for inv in common.inversions)
    draws = Draws(tuple(sources), noise, weight, picks)
    if count > _held_draws(common, data):
        return draws
    y, kind = _densities(common, data, draws)
    return replace(draws, y=y, kind=kind)


def _held_draws(common: CommonTargets, data: dict) -> int:
    """How many draws' densities fit in :data:`DRAW_CELLS` (0 where not one draw's does)."""
    return DRAW_CELLS // max(len(common.inversions) * data["n"], 1)


def _densities(common: CommonTargets, data: dict, draws: Draws) -> tuple[np.ndarray, np.ndarray]:
    """ln ρ and kinds (R, K, n) of the K paired ``draws``."""
    scores, sigma, n = data["scores"], data["sigma"], data["n"]
    count = len(draws)
    drawn = np.ascontiguousarray(np.broadcast_to(scores[None] + draws.noise, (count, *scores.shape)))
    # without score noise and fit draws every draw inverts the same scores under the same fit: one inversion serves
    # them all (each model's inversion is its own arithmetic, so the same numbers)
    once = "score" not in draws.sources and "fit" not in draws.sources
    ys, kinds = [], []
    inverted = drawn[:1] if once else drawn
    if data["dropped"].any():  # the scores a joint inversion leaves out (the floor's direction rule)
        inverted = np.where(data["dropped"], np.nan, inverted)
    floor = _floored(inverted, sigma, common.benchmarks, data)
    for r, (inv, picks) in enumerate(zip(common.inversions, draws.picks)):
        extra = {"weights": inv.weights(data["masked_scores"], sigma)} if hasattr(inv, "weights") else {}
        y, kind = inv.draws(picks, inverted, sigma, data["params"], **extra)
        y, kind, _ = _bounded(data, r, y, kind, inverted, floor)  # step 3
        ys.append(np.broadcast_to(y, (count, n)))
        kinds.append(np.broadcast_to(kind, (count, n)))
    y, kind, _ = own_from_others(np.array(ys, float), np.array(kinds, float), common.own)
    return y, kind


def _slopes(rule: str, quantile: float, common: CommonTargets, data: dict, draws: Draws, start) -> np.ndarray:
    """Each reference's frontier slope in each of ``draws``, (R, K) (:func:`densing.trend.influence.frontier_slopes`),
    from their held densities at once, else a chunk of draws at a time."""
    if draws.y is not None:
        return frontier_slopes(rule, quantile, data, draws.y, draws.kind, draws.weight, start)
    step = max(1, _held_draws(common, data))
    parts = [draws.part(low, low + step) for low in range(0, len(draws), step)]
    return np.concatenate(
        [frontier_slopes(rule, quantile, data, *_densities(common, data, part), part.weight, start) for part in parts],
        axis=1,
    )


def _point(
    common: CommonTargets,
    data: dict,
    ceilings: bool = True,
    floors: bool = True,
    region: bool = True,
    inverted: list | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every reference's point ln ρ and kind (R, 1, n) and offsets, the region, ceilings and floors as bounds where
    asked (``inverted``: :func:`_point_inversions`' for ``floors``, where made already)."""
    ys, kinds, _ = _point_readings(common, data, ceilings, floors, region, inverted)
    return own_from_others(np.array(ys)[:, None, :], np.array(kinds)[:, None, :], common.own)


def _point_inversions(common: CommonTargets, data: dict, floors: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every reference's point ln ρ and kind per target as its inversion gives them, before any rule of bounds: the
    scores a joint inversion leaves out left out (``floors``), or every score. Each rule of bounds makes new arrays
    from them (:func:`_bounded`), so the point and its variants read one list."""
    scores = data["masked_scores"] if floors else data["scores"]  # without floors no score leaves an inversion
    return [
        tuple(np.asarray(v, float) for v in inv.point(scores, data["sigma"], data["params"]))
        for inv in common.inversions
    ]


def _point_readings(
    common: CommonTargets,
    data: dict,
    ceilings: bool = True,
    floors: bool = True,
    region: bool = True,
    inverted: list | None = None,
) -> tuple:
    """Every reference's point ln ρ, kind and reason (:class:`densing.laws.region.Reason`) per target, before its own
    members are taken from the others: three lists of (n,) arrays (``inverted``: :func:`_point_inversions`' for
    ``floors``, where made already)."""
    scores = data["masked_scores"] if floors else data["scores"]  # without floors no score leaves an inversion
    floor = _floored(scores, data["sigma"], common.benchmarks, data) if floors else np.zeros(data["n"], bool)
    inverted = _point_inversions(common, data, floors) if inverted is None else inverted
    ys, kinds, reasons = [], [], []
    for r, (y, kind) in enumerate(inverted):
        y, kind, reason = _bounded(data, r, y, kind, scores, floor, ceilings, floors, region)
        ys.append(y)
        kinds.append(kind)
        reasons.append(reason)
    return ys, kinds, reasons


def point_readings(common: CommonTargets, data: dict | None = None, inverted: list | None = None) -> tuple:
    """How each target is read under each reference at the point (docs/method.md, "The identified region"): one
    (model, reference family, kind, reason, benchmark, ln ρ) per target and reference, kind ``exact``, ``lower`` or
    ``upper`` (``dropped`` where the law gives nothing), reason a :class:`densing.laws.region.Reason` code (an own
    member: ``None``, its density taken from the other references), benchmark the one that decided it or "", ln ρ the
    value or the bound's (NaN for an own member or a dropped density). ``inverted``: :func:`_point_inversions`', where
    made already."""
    data = _prepared(common) if data is None else data
    ys, kinds, reasons = _point_readings(common, data, inverted=inverted)
    benchmarks = common.benchmarks
    words = {EXACT: "exact", LOWER: "lower", UPPER: "upper"}
    floor = floor_scores(data["masked_scores"], data["sigma"], chance_levels(benchmarks))
    ceiling = [data["scores"] >= caps - CEILING_STDERRS * np.nan_to_num(data["sigma"]) for caps in data["caps"]]
    found = []
    for i, model in enumerate(data["labels"]):
        for r, name in enumerate(common.names):
            if common.own[r, i]:
                found.append((str(model), name.family, "from the others", None, "", math.nan))
                continue
            kind, reason = kinds[r][i], Reason(int(reasons[r][i]))
            decided = ""
            if reason is Reason.CHANCE_CAP:
                decided = benchmarks[int(data["chance_cap_benchmark"][r, i])]
            elif reason is Reason.AT_CHANCE:
                decided = ",".join(b for b, near in zip(benchmarks, floor[i]) if near)
            elif reason is Reason.AT_CEILING:
                decided = ",".join(b for b, near in zip(benchmarks, ceiling[r][i]) if near)
            found.append(
                (str(model), name.family, words.get(float(kind), "dropped"), int(reason), decided, float(ys[r][i]))
            )
    return tuple(found)


def point_densities(common: CommonTargets) -> tuple[np.ndarray, np.ndarray]:
    """Every reference's point ln ρ and kind for every target of the row, (R, n): its own members from the others."""
    y, kind, _ = _point(common, _prepared(common))
    return y[:, 0], kind[:, 0]


@dataclass(frozen=True)
class RowTrend:
    """A row's pooled trend under its common targets: the pooled line, its interval, each reference's own, heterogeneity."""

    common: CommonTargets = field(repr=False)
    rule: str
    slope_per_day: float
    intercept: float
    slope_ci_low: float
    slope_ci_high: float
    reference_slopes: tuple[float, ...]
    reference_ci: tuple[tuple[float, float], ...]
    weights: tuple[float, ...]
    pooled: Pooled
    shares: dict
    sds: dict
    draws: np.ndarray = field(repr=False)
    failed_draws: int
    n_boot: int
    level: float
    y0: np.ndarray = field(repr=False)
    kind0: np.ndarray = field(repr=False)
    offsets: tuple[float, ...]
    #: below, per day, what :class:`densing.trend.uncertainty.TrendUncertainty` says in months: the ends' 95% Monte
    #: Carlo ranges (step 5), the slope without ceiling and without floor bounds (step 3), leave one family, model and
    #: lab out (:func:`family_influence`, step 7), the open draws' families (:func:`open_draws`), the labs
    ends_mc: tuple = ((math.nan, math.nan), (math.nan, math.nan))
    slope_without_ceilings: float = math.nan
    ceiling_bounds: tuple[int, ...] = ()
    slope_without_floors: float = math.nan
    floor_bounds: tuple[int, ...] = ()
    influence: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    model_influence: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    open_families: tuple = ()
    lab_influence: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    reference_labs: tuple[str, ...] = ()
    lab_weights: tuple[float, ...] = ()
    target_labs: tuple = ()
    #: the identified region (docs/method.md): the slope without it, per reference the targets it bounds, and every
    #: target's reading under every reference (:func:`point_readings`)
    slope_without_region: float = math.nan
    region_bounds: tuple[int, ...] = ()
    readings: tuple = ()


#: The sources each drawn alone for the shares of the pooled slope's variance (module docstring, step 4).
SHARE_SOURCES = ("fit", "score", "models")


@dataclass(frozen=True)
class PairedDraws:
    """The common targets' paired draws (step 3), made once and read by every frontier rule: the first ``n_boot`` and
    ``n_boot_share`` of them are a smaller bootstrap of the same kind, so the rules share common random numbers."""

    common: CommonTargets = field(repr=False)
    data: dict = field(repr=False)
    point: tuple = field(repr=False)  # (y0, kind0, δ0) of _point
    main: Draws = field(repr=False)  # every source drawn together
    normals: np.ndarray = field(repr=False)  # ε_k of the between-reference spread
    shares: dict = field(repr=False)  # source → Draws of that source alone
    seed: int = 0

    @property
    def n_boot(self) -> int:
        return len(self.normals)

    @property
    def n_boot_share(self) -> int:
        return len(self.shares[SHARE_SOURCES[0]]) if self.shares else 0


@validate_params({"n_boot": [Interval(Integral, 2, None)], "n_boot_share": [Interval(Integral, 0, None)]})
def paired_draws(common: CommonTargets, *, n_boot: int, n_boot_share: int, seed: int = 0) -> PairedDraws:
    """``n_boot`` paired draws of every source, their spread's ε, then ``n_boot_share`` of each source alone."""
    data = _prepared(common)
    return _drawn(common, data, _point(common, data), n_boot, n_boot_share, seed)


def _drawn(common: CommonTargets, data: dict, point: tuple, n_boot: int, n_boot_share: int, seed: int) -> PairedDraws:
    rng = np.random.default_rng(seed)
    main = _random_draws(common, data, SHARE_SOURCES, n_boot, rng)
    normals = rng.standard_normal(n_boot)
    shares = (
        {source: _random_draws(common, data, (source,), n_boot_share, rng) for source in SHARE_SOURCES}
        if n_boot_share
        else {}
    )
    return PairedDraws(common, data, point, main, normals, shares, seed)


def more_draws(draws: PairedDraws, n_boot: int) -> PairedDraws:
    """``draws`` grown to ``n_boot`` (step 5), by a generator seeded (seed, draws made): 1,200 are 600 and 600 more."""
    return _grown(draws, n_boot, draws.n_boot)[0]


def _grown(draws: PairedDraws, n_boot: int, start: int) -> tuple[PairedDraws, Draws]:
    """(:func:`more_draws`' draws, their draws ``start`` to ``n_boot``). Where ``start`` is where the added draws begin,
    the second is the added draws themselves, their densities held where they fit in :data:`DRAW_CELLS` whether or
    not the whole set's do: a row that grows past what it can hold computes each new draw's densities once."""
    have = draws.n_boot
    if n_boot <= have:
        return draws, draws.main.part(start, n_boot)
    rng = np.random.default_rng([draws.seed, have])
    old, added = draws.main, _random_draws(draws.common, draws.data, SHARE_SOURCES, n_boot - have, rng)
    main = Draws(
        old.sources,
        np.concatenate([old.noise, added.noise]),
        np.concatenate([old.weight, added.weight]),
        tuple(np.concatenate(pair) for pair in zip(old.picks, added.picks)),
    )
    if n_boot <= _held_draws(draws.common, draws.data):  # the densities of both parts are held
        main = replace(
            main, y=np.concatenate([old.y, added.y], axis=1), kind=np.concatenate([old.kind, added.kind], axis=1)
        )
    grown = replace(draws, main=main, normals=np.concatenate([draws.normals, rng.standard_normal(n_boot - have)]))
    return grown, added if start == have else grown.main.part(start, n_boot)


@validate_params(
    {
        "n_boot": [Interval(Integral, 2, MAX_DRAWS)],
        "n_boot_share": [Interval(Integral, 0, MAX_DRAWS)],
        "quantile": [Interval(Real, 0, 1, closed="neither")],
        "level": [Interval(Real, 0, 1, closed="neither")],
        "seed": [Interval(Integral, 0, None)],
        "draws_cap": [Interval(Integral, 2, MAX_DRAWS), None],
        "precision_cap": [Interval(Integral, 2, MAX_DRAWS), None],
        "details": [Options((False, True))],
    }
)
def pooled_trend(
    common: CommonTargets,
    *,
    rule: str = "quantile",
    quantile: float = 0.9,
    n_boot: int = 1000,
    n_boot_share: int = 300,
    level: float = 0.95,
    seed: int = 0,
    draws: PairedDraws | None = None,
    draws_cap: int | None = None,
    precision_cap: int | None = None,
    details: bool = True,
) -> RowTrend:
    """The row's pooled slope with paired draws over every reference (module docstring, steps 3–5). ``draws``: the
    common targets' :func:`paired_draws`, made once for several rules (their first ``n_boot`` and ``n_boot_share``
    used, their seed ``seed``). ``draws_cap`` (:data:`DRAWS_CAP` for a judged row): the draws double up to it while an
    end is undecided, up to ``precision_cap`` (default :data:`~densing.constants.PRECISION_DRAWS_CAP` or
    :data:`~densing.constants.PRECISION_GROWTH` × ``n_boot``, the smaller) while a determined end is not precise.
    ``details`` False leaves out what reads the point alone (:func:`_detail_fields`: their fields keep their
    defaults), for a caller that shows none of it."""
    if not isinstance(common, CommonTargets):
        raise InputError(f"targets: expected a row's common targets (common_targets), got {common!r}")
    rules.get(rule)
    if len(common.frame) < MIN_POINTS:
        raise FitError(
            f"{rule} frontier: fewer than {MIN_POINTS} usable models (of {len(common.frame)} targets with "
            f"every score of {', '.join(common.benchmarks)}); no trend line"
        )
    data = draws.data if draws is not None else _prepared(common)
    inverted = None if draws is not None else _point_inversions(common, data)  # the point's, read again by details
    point = draws.point if draws is not None else _point(common, data, inverted=inverted)
    y0, kind0, delta0 = point
    count = len(common.inversions)
    lines0 = rules.frontier_lines_weighted(
        rule, data["t"], y0[:, 0], kind0[:, 0], np.ones(y0[:, 0].shape), data["labels"], quantile
    )  # every reference's point line, (R, 2)
    points = np.ascontiguousarray(lines0[:, 0])
    if not np.all(np.isfinite(points)):
        bad = [str(common.names[r]) for r in range(count) if not math.isfinite(points[r])]
        raise FitError(
            f"{rule} frontier under {', '.join(bad)}: fewer than {MIN_POINTS} usable models "
            f"(of {data['n']} targets with every score of {', '.join(common.benchmarks)}); no trend line"
        )
    if draws is None:
        draws = _drawn(common, data, point, n_boot, n_boot_share, seed)
    elif draws.common is not common:
        raise ValueError("pooled_trend: the draws were made for other targets")
    elif draws.n_boot < n_boot or draws.n_boot_share < n_boot_share:
        raise ValueError(
            f"pooled_trend: {n_boot} draws and {n_boot_share} of each source asked, {draws.n_boot} and "
            f"{draws.n_boot_share} made"
        )
    tail = (1 - level) / 2
    precision_cap = min(PRECISION_DRAWS_CAP, PRECISION_GROWTH * n_boot) if precision_cap is None else precision_cap
    slopes = _slopes(rule, quantile, common, data, draws.main.part(0, n_boot), lines0)
    ref_labs = reference_labs(common)
    lab_codes = family_clusters(ref_labs)  # each reference's lab, numbered by first appearance (pool_by_lab)
    while True:
        pooled = pool_by_lab(points, slopes, lab_codes)
        w = pooled.weights
        spread = math.sqrt(pooled.tau_squared * float(pooled.lab_weights @ pooled.lab_weights))  # τ is between labs
        combined = w @ slopes + spread * draws.normals[: slopes.shape[1]]
        ok = combined[np.isfinite(combined)]
        if ok.size < 2:
            raise FitError(f"{rule} frontier: the bootstrap could not fit a line in any draw")
        ends_mc = (end_range(ok, tail), end_range(ok, 1 - tail))
        low, high = np.quantile(ok, [tail, 1 - tail])
        made = slopes.shape[1]
        # step 5: an undecided end, twice the draws up to the cap; a decided but imprecise one, up to precision_cap
        more = (
            made
            if draws_cap is None
            else draws_needed(determined_ends(ends_mc, low, high), made, draws_cap, precision_cap)
        )
        if more <= made:
            break
        draws, added = _grown(draws, more, made)
        slopes = np.concatenate([slopes, _slopes(rule, quantile, common, data, added, lines0)], axis=1)
    n_boot = slopes.shape[1]
    per_ref = tuple(
        (float(np.nanquantile(slopes[r], tail)), float(np.nanquantile(slopes[r], 1 - tail))) for r in range(count)
    )
    sds = {
        source: float(
            np.nanstd(w @ _slopes(rule, quantile, common, data, draws.shares[source].part(0, n_boot_share), lines0))
        )
        if n_boot_share
        else math.nan
        for source in SHARE_SOURCES
    }
    sds["reference"] = spread if n_boot_share else math.nan
    total = sum(v**2 for v in sds.values())
    shares = {s: (v**2 / total if total > 0 else math.nan) for s, v in sds.items()}
    intercept = float(w @ np.ascontiguousarray(lines0[:, 1]))
    shown = _detail_fields(rule, quantile, common, data, w, y0, kind0, lines0, inverted) if details else {}
    pairs = dict.fromkeys(zip(map(str, data["labs"]), map(str, data["families"])))  # (lab, family) in order
    return RowTrend(
        common,
        rule,
        pooled.slope,
        intercept,
        float(low),
        float(high),
        tuple(map(float, points)),
        per_ref,
        tuple(map(float, w)),
        pooled,
        shares,
        sds,
        combined,
        int(n_boot - ok.size),
        n_boot,
        level,
        y0[:, 0],
        kind0[:, 0],
        tuple(map(float, delta0[:, 0])),
        ends_mc=ends_mc,
        reference_labs=ref_labs,
        lab_weights=tuple(map(float, pooled.lab_weights)),
        target_labs=tuple(
            (lab, tuple(f for at, f in pairs if at == lab)) for lab in dict.fromkeys(at for at, _ in pairs)
        ),
        open_families=open_draws(data, draws.main.weight[:n_boot], combined),
        **shown,
    )


def _detail_fields(
    rule: str,
    quantile: float,
    common: CommonTargets,
    data: dict,
    w: np.ndarray,
    y0: np.ndarray,
    kind0: np.ndarray,
    lines0: np.ndarray,
    inverted: list | None = None,
) -> dict:
    """The fields of a :class:`RowTrend` that read the point alone (steps 3 and 7): the pooled point slope without
    ceiling bounds, without floor bounds and without the identified region, the targets each kind bounds, every
    target's reading, and the leave-one-family, model and lab out tables (removals from the point lines ``lines0``).
    The point's inversions (``inverted``, made here where not given) are read by every variant but the one without
    floor bounds, which inverts every score."""
    inverted = _point_inversions(common, data) if inverted is None else inverted
    without, bounded = _without_bounds(rule, quantile, common, data, w, kind0, LOWER, inverted, ceilings=False)
    without_floors, floored = _without_bounds(rule, quantile, common, data, w, kind0, UPPER, floors=False)
    at_point = (rule, quantile, data, y0[:, 0], kind0[:, 0], w, lines0)
    return {
        "slope_without_ceilings": without,
        "ceiling_bounds": bounded,
        "slope_without_floors": without_floors,
        "floor_bounds": floored,
        "influence": family_influence(*at_point),
        "model_influence": family_influence(*at_point, by="model"),
        "lab_influence": family_influence(*at_point, by="lab"),
        **_region_fields(rule, quantile, common, data, w, kind0, inverted),
    }


def _region_fields(
    rule: str,
    quantile: float,
    common: CommonTargets,
    data: dict,
    w: np.ndarray,
    kind0: np.ndarray,
    inverted: list | None = None,
) -> dict:
    """The identified region's fields of a :class:`RowTrend`: the pooled point slope without the region, the targets
    it bounds under each reference (below the smallest member or above the top one), and every target's reading
    (:func:`point_readings`); ``inverted``: the point's :func:`_point_inversions`, where made already."""
    without_region, _ = _without_bounds(rule, quantile, common, data, w, kind0, UPPER, inverted, region=False)
    readings = point_readings(common, data, inverted)
    outside = (int(Reason.BELOW_SMALLEST), int(Reason.ABOVE_TOP))
    region_bounds = tuple(
        sum(1 for _, family, _, why, *_ in readings if family == name.family and why in outside)
        for name in common.names
    )
    return {"slope_without_region": without_region, "region_bounds": region_bounds, "readings": readings}


def _without_bounds(
    rule: str,
    quantile: float,
    common: CommonTargets,
    data: dict,
    w: np.ndarray,
    kind0: np.ndarray,
    bound: int,
    inverted: list | None = None,
    **which: bool,
) -> tuple[float, tuple[int, ...]]:
    """The pooled point slope with one kind of bound left out (``ceilings=False``, ``floors=False`` or
    ``region=False``), and per reference the targets that kind makes a ``bound`` (``inverted``: the point's
    :func:`_point_inversions` for ``floors``, where made already)."""
    bare, bare_kind, _ = _point(common, data, inverted=inverted, **which)
    slope = float(
        w
        @ np.ascontiguousarray(
            rules.frontier_lines_weighted(
                rule, data["t"], bare[:, 0], bare_kind[:, 0], np.ones(bare[:, 0].shape), data["labels"], quantile
            )[:, 0]
        )
    )
    return slope, tuple(int(np.sum((kind0[r, 0] == bound) & (bare_kind[r, 0] == EXACT))) for r in range(len(kind0)))


__all__ = [
    "CEILING_STDERRS",
    "END_STABILITY",
    "HETEROGENEITY_ALPHA",
    "DRAWS_CAP",
    "FamilyInfluence",
    "PairedDraws",
    "Pooled",
    "RowTrend",
    "at_ceiling",
    "determined_ends",
    "end_range",
    "family_clusters",
    "family_influence",
    "heterogeneity_check",
    "influence_items",
    "months_interval",
    "more_draws",
    "most_influential_model",
    "open_draws",
    "paired_draws",
    "point_readings",
    "pool_slopes",
    "pooled_trend",
    "reference_caps",
    "undecided",
]
