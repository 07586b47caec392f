"""Coverage of densing's capability-trend intervals (the headline set and each benchmark's row) on planted data
built like the public table, its departures from the model included; prints a table, asserts nothing.

**The planted world** (fixed; each replicate redraws every random part of it):

- *Latent scale.* Benchmark b has a true canonical curve of the effective size x = ln N̂ (the targets' recipe),
  S_b(x) = d_b + (1 − d_b)·σ(γ_b·(x − l_b)), σ the logistic function, d_b the registry's chance level
  (:data:`BENCHMARKS`: MMLU, HellaSwag, GSM8K, HumanEval and MATH-hard, with the registry's item counts
  n_b = 14,042, 10,042, 1,319, 164 and 1,324).
- *Targets* (``--targets``, default 120), each its own family: t ~ Uniform(0, 800) in whole days since
  2023-02-24; log10 N = 9.85 + 0.75·(0.2·z_t + √0.96·z), z ~ N(0, 1), z_t = (t − 400)/231 (the table's sizes
  since the epoch: mean 9.85, sd 0.75, correlation 0.2 with the date), clipped to [7.85, 11.6];

      ln ρ_{m,b} = A_b·(t_m − 800) + B − u_m + δ_{m,b},   u_m ~ Exponential(mean 1),  δ_{m,b} ~ N(0, 0.3²),

  B = 0.5, so that the 0.9 quantile of ln ρ_b given t is a line of slope A_b, and A_b is benchmark-specific:
  doubling times ln 2 / A_b of 2 (GSM8K), 3 (MATH-hard), 4 (MMLU), 6 (HumanEval) and 12 (HellaSwag) months.
  Score: S_{m,b} = Binomial(n_b, S_b(ln N_m + ln ρ_{m,b})) / n_b. *Missing scores*, as in the table: MATH-hard
  (a leaderboard-v2 benchmark) is present with probability 0.2 + 0.65·t/800 (about half; older models less
  often), HumanEval with probability 0.9; the leaderboard-v1 benchmarks always.
- *Reference families* (:data:`FAMILIES`), each at one token budget and released on one date t_f: family f's
  members have, on benchmark b, the canonical effective size

      h_{f,b}(ln N) = ln N_f* + c_{f,b} + k_f·(ln N − ln N_f*),   c_{f,b} = A_b·(t_f − 800) + B − g_f

  (its pivot member N_f* sits g_f below the frontier of its date on every benchmark) and score
  Binomial(n_b, S_b(h_{f,b}(ln N_i) + ε_{i,b})) / n_b, ε ~ N(0, 0.15²) (a family is not on a smooth curve). Three
  families have the targets' shape (k_f = 1); ``overtrained`` (5 sizes 1B–405B at 15T tokens, like Llama-3.1) has
  k_f = 0.75 — its small members are trained far past compute-optimal, so its effective size grows more slowly in
  ln N than the targets' recipe, ln N̂ under it is the affine map ln N_f* + (x − ln N_f* − c_{f,b})/k_f of the
  latent x, and the densities it gives trend with slope ≈ A_b/k_f (plus (1/k_f − 1) times the drift of ln N with
  the date). As in densing, a family's own models are never its targets; they are targets of the other
  references, dated t_f.

*Departures a reference rule must face* (families beside the four above): ``floor`` sits on the floor of the
reasoning benchmarks (OPT-like, far below the frontier of its date: its best member reaches a few percent of the way
from chance to the top decile; rule v3 must refuse it); ``kinked`` follows a law of another shape (k_f = 1.6 below its
pivot, 0.4 above: no sigmoid in ln N fits it; refused, or covered where accepted); ``overtrained_law`` is
over-trained *through the loss law* — h_{f,b} = ln N_f* + c_{f,b} + ln N'(N) − ln N'(N_f*), N' the size that reaches
at D0 = 10¹² tokens the loss the member reaches on its 15T tokens under Hoffmann et al. 2022 — the case the budget
translation (:func:`densing.trend.capability.budget_fits`) is made for.

**The measurement** is densing's own code: the candidate table of the rule ``--rule`` (v3, densing's; v2 kept as a
labelled variant) (:func:`densing.laws.eligibility.candidate_table`), every eligible (family, benchmark) fitted with its bootstrap
(:func:`densing.laws.eligibility.eligible_fits`, ``--ref-boot`` draws), then
:func:`densing.trend.capability.trend_row` for the headline set (:data:`HEADLINE_SET`, MMLU, MATH-hard, HumanEval:
the paper-like set without BBH, three benchmarks of different item counts and missingness; a joint inversion over
the benchmarks each reference is eligible on, references drawn per draw by :func:`densing.trend.uncertainty.carry_over_references`) and for each
benchmark (one per-benchmark inversion per eligible reference, references drawn), ``--n-boot`` draws, the quantile
rule; each source's share from ``--n-share`` draws of it alone; and the *budget rows* (:data:`BUDGET_ROWS`: every
eligible reference refitted over its members' sizes at D0 = 10¹² through Hoffmann et al.'s law, as ``densing trend
--by benchmark`` does), whose claimed estimand uses each reference's true curves refitted the same way. Below the
coverage table, the rule's verdict on every planted (family, benchmark) candidate: the share of replicates it is
eligible, its median reach share and its commonest refusal.

**The estimands**, per row and replicate:

- *claimed* — what densing's interval claims to cover: the equal-weight mean, over the row's references, of each
  reference's **population slope**: the slope of :func:`densing.trend.rules.frontier_line` (censored 0.9 quantile)
  of ln ρ under the reference's *true* curves S_b∘h_f — fitted by :func:`densing.laws.family.fit_family` on its
  members' noise-free scores, which recovers them exactly — inverted by the same inversion (per benchmark, or joint
  over the benchmarks the reference covers) from the noise-free scores of ``--population`` targets drawn with the
  same design (missing scores included) and the standard errors densing attaches to them (binomial at the true
  score). densing's exact quantile solver is pairwise in n, so the population slope is the mean over blocks of
  2,000 targets (its standard error, over blocks, is printed).
- *latent* — a row's planted A_b; the headline's, the set's population slope under the canonical curves S_b
  themselves (a reference whose shape is the targets').

Canonical-shaped references have population slope A_b; the over-trained one does not, so the two columns show
what the mismatch of reference shape costs. A third column says how often the interval holds *every* reference's
population slope (the reference is drawn in the bootstrap, so the interval spans the references' spread). Below the
table, per row: the bias and standard deviation over replicates of the point slope against the claimed estimand,
the median bootstrap standard deviation and each source's mean variance share (which source the interval carries,
and whether it carries more or less than the point slope actually varies), the *score-noise bias* (the claimed
estimand recomputed from the population's binomial scores — the limit of the point estimator, which a percentile
bootstrap does not correct — less the noise-free one), the references used, and every population slope. Coverage is at nominal 0.95, with the Monte Carlo standard error
√(p(1 − p)/R) over the R replicates a row was measured in; a row not measured (no reference passes the rule, or
the fit fails) is counted with its reason. Replicate r draws from ``numpy.random.SeedSequence([seed, r])``, so
replicates are deterministic and independent of each other; ``--store`` keeps one JSON line per replicate and a
rerun skips the replicates already there.

    PYTHONPATH=. OMP_NUM_THREADS=1 python studies/capability_coverage.py --replicates 100 --store STORE  [--rule v2]
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from densing.data.benchmarks import CHANCE_LEVELS
from densing.errors import DensingError
from densing.laws.family import fit_family
from densing.laws import eligibility
from densing.trend import capability, rules
from densing.trend.capability import BUDGET_D0
from densing.trend.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, LN2
from densing.laws.inversion import Joint, PerBenchmark, arrays
from densing.trend.targets import trend_targets, with_stderr
from studies import _planted
from studies.replicates import run_replicates

EPOCH = DEFAULT_EPOCH
WINDOW_DAYS = 800.0
FRONTIER_END = 0.5      # B: the frontier's level (ln ρ on the canonical scale) at the window's end
GAP_MEAN = 1.0          # u ~ Exponential(mean 1): the gap below the frontier
SKILL_SD = 0.3          # δ ~ N(0, 0.3²): a target's benchmark-specific skill, in ln N
MEMBER_SD = 0.15        # ε ~ N(0, 0.15²): a family member's deviation from its family's smooth curve, in ln N
SIZE_MEAN, SIZE_SD, SIZE_DATE_CORR, SIZE_RANGE = 9.85, 0.75, 0.2, (7.85, 11.6)  # log10 N of the targets
V2_PRESENT = (0.2, 0.65)  # P(MATH-hard present) = 0.2 + 0.65·t/800
HUMANEVAL_PRESENT = 0.9
BLOCK = 2000            # targets per block of the population slope


@dataclass(frozen=True)
class Benchmark:
    months: float   # planted doubling time ln 2 / A_b, months
    gamma: float    # γ_b of the canonical curve, per unit ln N
    level: float    # l_b: the canonical ln N̂ at the curve's midpoint
    v2: bool        # a leaderboard-v2 benchmark: present for about half the targets

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
    gap: float       # g_f: how far its pivot member sits below the frontier of its date, in ln ρ
    shape: float     # k_f: d h_f / d ln N (1: the targets' shape); below the pivot where ``kink`` is set
    pivot: float     # N_f*
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
        from densing.laws.budget import HOFFMANN_2022

        at = lambda n: np.log(HOFFMANN_2022.size_at(n, family.tokens, BUDGET_D0))  # noqa: E731
        return pivot + family.offset(benchmark) + at(np.exp(log_n)) - at(np.asarray(family.pivot))
    slope = family.shape if family.kink is None else np.where(log_n < pivot, family.shape, family.kink)
    return pivot + family.offset(benchmark) + slope * (log_n - pivot)


WORLD = _planted.World(tuple(BENCHMARKS), FAMILIES, curve, effective, EPOCH, MEMBER_SD)


def draw_targets(rng: np.random.Generator, count: int, prefix: str = "m") -> pd.DataFrame:
    """``count`` targets (module docstring): model, params, t, release date, latent ln ρ_b and whether b is scored."""
    t = np.floor(rng.uniform(0, WINDOW_DAYS, count))
    z_t = (t - WINDOW_DAYS / 2) / (WINDOW_DAYS / math.sqrt(12))
    log10_n = SIZE_MEAN + SIZE_SD * (SIZE_DATE_CORR * z_t + math.sqrt(1 - SIZE_DATE_CORR ** 2) * rng.standard_normal(count))
    params = 10.0 ** np.clip(log10_n, *SIZE_RANGE)
    gap = rng.exponential(GAP_MEAN, count)
    frame = pd.DataFrame({"model": [f"{prefix}{i}" for i in range(count)], "params": params, "t": t,
                          "release_date": pd.Timestamp(EPOCH) + pd.to_timedelta(t, unit="D")})
    v2 = rng.uniform(size=count) < V2_PRESENT[0] + V2_PRESENT[1] * t / WINDOW_DAYS
    humaneval = rng.uniform(size=count) < HUMANEVAL_PRESENT
    for name, b in BENCHMARKS.items():
        frame[f"log_rho:{name}"] = b.slope * (t - WINDOW_DAYS) + FRONTIER_END - gap + SKILL_SD * rng.standard_normal(count)
        frame[f"present:{name}"] = v2 if b.v2 else (humaneval if name == "humaneval" else np.ones(count, bool))
    return frame


def target_rows(frame: pd.DataFrame, rng: np.random.Generator | None) -> pd.DataFrame:
    """The targets' tidy rows (:func:`studies._planted.target_rows`); ``rng=None``: noise-free scores."""
    return _planted.target_rows(WORLD, frame, rng)


def family_rows(name: str, family: Family, rng: np.random.Generator | None) -> pd.DataFrame:
    """A family's tidy rows (:func:`studies._planted.family_rows`); ``rng=None``: noise-free scores."""
    return _planted.family_rows(WORLD, name, family, rng)


def replicate_table(rng: np.random.Generator, count: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One replicate's tidy table (families and targets, binomial scores, stderr from the item counts) and its targets."""
    frame = draw_targets(rng, count)
    return _planted.replicate_table(WORLD, frame, rng), frame


# ---------------------------------------------------------------------------------------------------------------
# the estimands


@lru_cache(maxsize=None)
def true_fit(name: str, benchmark: str, budget: bool = False):
    """The family's true curve S_b∘h_f as densing's family law: fit_family on its members' noise-free scores
    (``budget``: over its members' sizes at D0, as :func:`densing.trend.capability.budget_fits` refits it)."""
    family = CANONICAL if name == "canonical" else FAMILIES[name]
    rows = family_rows(name, family, None)
    fit = fit_family(rows, name, benchmark, n_boot=0, shape="logistic_ln_n")  # the planted curves: sigmoids in ln N
    if budget:
        found, notes = capability.budget_fits(rows, {(name, benchmark): fit})
        if (name, benchmark) not in found:
            raise DensingError(f"{name}:{benchmark} at D0: {notes.get(f'{name}:{benchmark}', 'no fit')}")
        fit = found[(name, benchmark)]
    return fit


@lru_cache(maxsize=4)
def population(seed: int, count: int, noisy: bool = False) -> pd.DataFrame:
    """``count`` targets of the same design with noise-free scores (``noisy``: the same targets' binomial scores)
    and binomial standard errors at them."""
    frame = draw_targets(np.random.default_rng(np.random.SeedSequence([seed, 2 ** 31 - 1])), count, prefix="p")
    table = target_rows(frame, np.random.default_rng(np.random.SeedSequence([seed, 2 ** 31 - 1, 1])) if noisy else None)
    table["stderr"] = np.nan
    return with_stderr(table)


def population_slope(inversion, table: pd.DataFrame) -> tuple[float, float]:
    """(slope, its standard error over blocks): the frontier_line slope of the inversion's ln ρ over blocks of
    :data:`BLOCK` targets of ``table``, averaged."""
    models, _ = trend_targets(table, inversion, since=EPOCH, epoch=EPOCH)
    scores, sigma = arrays(models, inversion.benchmarks)
    y, kind = inversion.point(scores, sigma, models["params"].to_numpy(float))
    t, labels = models["t"].to_numpy(float), models["model"].astype(str).to_numpy()
    blocks = max(1, len(models) // BLOCK)
    slopes = np.array([rules.frontier_line("quantile", t[i::blocks], y[i::blocks], kind[i::blocks], labels[i::blocks])[0]
                       for i in range(blocks)])
    return float(np.mean(slopes)), float(np.std(slopes, ddof=1) / math.sqrt(blocks)) if blocks > 1 else math.nan


_SLOPES: dict = {}


def reference_slope(family: str, benchmarks: tuple[str, ...], joint: bool, seed: int, count: int,
                    noisy: bool = False, budget: bool = False) -> tuple[float, float]:
    """A reference's population slope (cached): its true curves, inverted per benchmark or jointly; ``noisy``: from
    binomial scores, the limit of the point estimator itself (a diagnostic, not an estimand); ``budget``: its true
    curves refitted over its members' sizes at D0 (the budget rows' estimand)."""
    key = (family, benchmarks, joint, seed, count, noisy, budget)
    if key not in _SLOPES:
        fits = tuple(true_fit(family, b, budget) for b in benchmarks)
        inversion = Joint(fits) if joint else PerBenchmark(fits[0], fits[0].d0)
        _SLOPES[key] = population_slope(inversion, population(seed, count, noisy))
    return _SLOPES[key]


def noisy_claimed(row: dict, args) -> float:
    """The claimed estimand's counterpart from binomial scores: the equal-weight mean of the references' noisy limits."""
    slopes = []
    for ref in row["references"]:
        family, benchmarks = ref.split(":")
        found = tuple(benchmarks.split(","))
        slopes.append(reference_slope(family, found, len(found) > 1, args.seed, args.population,
                                      noisy=True, budget=row.get("budget", False))[0])
    return float(np.mean(slopes))


def _family_of(inversion) -> str:
    return str(inversion.fits[0].provenance["family"])


# ---------------------------------------------------------------------------------------------------------------
# one replicate


def rows_measured() -> list[tuple[str, tuple[str, ...]]]:
    """(row name, benchmarks): the headline set, one row per benchmark, then the budget rows (``budget:<b>``)."""
    return ([("headline", HEADLINE_SET)] + [(b, (b,)) for b in BENCHMARKS]
            + [(f"budget:{b}", (b,)) for b in BUDGET_ROWS])


def _candidate_record(candidates: pd.DataFrame) -> dict:
    """Each planted (family, benchmark) candidate's verdict: eligible, reach share, and the rule's first failed code."""
    out = {}
    for row in candidates[candidates["kind"] == "family"].itertuples(index=False):
        why = str(row.why or "")
        code = why.split(":")[0] if why and not row.eligible else ""
        out[f"{row.family}:{row.benchmark}"] = {"eligible": bool(row.eligible), "code": code,
                                                "reach": float(getattr(row, "reach_share", math.nan))}
    return out


def run_replicate(r: int, args) -> dict:
    """One replicate: the planted table, the rule (``--rule``), every row measured; a JSON-able record per row."""
    rng = np.random.default_rng(np.random.SeedSequence([args.seed, r]))
    table, frame = replicate_table(rng, args.targets)
    record = {"replicate": r, "rows": {},
              "missing_share": float(1 - frame["present:math_hard"].mean()),
              "targets": int(len(frame))}
    try:
        candidates = eligibility.candidate_table(table, since=EPOCH, rule=args.rule)
        fits = eligibility.eligible_fits(table, candidates, seed=r, family_boot=args.ref_boot)
    except DensingError as exc:
        record["error"] = f"rule {args.rule}: {exc}"
        return record
    record["eligible"] = sorted(f"{f}:{b}" for f, b in fits)
    record["candidates"] = _candidate_record(candidates)
    budget_fits: dict = {}
    if any(name.startswith("budget:") for name, _ in rows_measured()):
        wanted = {k: f for k, f in fits.items() if k[1] in BUDGET_ROWS}
        budget_fits, _ = capability.budget_fits(table, wanted, seed=r) if args.rule == "v3" else ({}, {})
    for name, benchmarks in rows_measured():
        budget = name.startswith("budget:")
        if budget and args.rule != "v3":
            continue
        try:
            row = capability.trend_row(name, name, "planted", benchmarks, table, candidates, budget_fits if budget else fits,
                                       since=EPOCH, epoch=EPOCH, n_boot=args.n_boot,
                                       n_boot_share=0 if budget else args.n_share, seed=r)
        except (DensingError, ValueError, FloatingPointError) as exc:  # counted with its reason, never hidden
            record["rows"][name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        if row.result is None:
            record["rows"][name] = {"error": row.error or "not measured", "no_reference": not row.references}
            continue
        res = row.result
        joint = len(benchmarks) > 1
        own = [(_family_of(inv), tuple(inv.benchmarks)) for inv, _ in row.members]
        pop = [reference_slope(f, bs, joint, args.seed, args.population, budget=budget) for f, bs in own]
        weights = np.asarray(res.reference_weights, float)
        claimed = float(weights @ np.array([p[0] for p in pop]))
        claimed_se = float(math.sqrt(float(np.sum(np.square(weights * np.array([p[1] for p in pop]))))))
        latent = (reference_slope("canonical", benchmarks, True, args.seed, args.population)[0] if joint
                  else BENCHMARKS[benchmarks[0]].slope)
        record["rows"][name] = {
            "references": [f"{f}:{','.join(bs)}" for f, bs in own], "point": res.slope_per_day,
            "low": res.slope_ci_low, "high": res.slope_ci_high, "claimed": claimed, "claimed_se": claimed_se,
            "reference_slopes": [p[0] for p in pop],
            "latent": latent, "n_models": res.n_models, "failed_draws": res.failed_draws,
            "sd_all": res.slope_sd_all, "sd": {s: getattr(res, f"slope_sd_{s}") for s in ("fit", "score", "models", "reference")},
            "share": {s: getattr(res, f"share_{s}") for s in ("fit", "score", "models", "reference")},
            "n_lower": res.n_lower_bounds, "n_upper": res.n_upper_bounds, "n_dropped": res.n_dropped,
            "budget": budget,
        }
    return record


# ---------------------------------------------------------------------------------------------------------------
# the table


def _coverage(hits: list[bool]) -> tuple[float, float]:
    count = len(hits)
    if not count:
        return math.nan, math.nan
    p = float(np.mean(hits))
    return p, math.sqrt(p * (1 - p) / count)


def _mean_finite(values) -> float:
    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    return float(values.mean()) if values.size else math.nan


def _months(slope: float) -> str:
    return f"{LN2 / slope / DAYS_PER_MONTH:.2f}" if slope > 0 else "∞"


def summarise(records: list[dict], args) -> list[str]:
    out = []
    total = len(records)
    whole = [r for r in records if "error" in r]
    out.append(f"{total} replicates ({len(whole)} with no candidate table: "
               + ("; ".join(sorted({r['error'] for r in whole})) if whole else "none") + "); "
               f"{args.targets} targets each, MATH-hard missing for {np.mean([r['missing_share'] for r in records]):.2f} "
               f"of them (mean), n_boot {args.n_boot}, shares from {args.n_share} draws per source, "
               f"reference bootstrap {args.ref_boot}, population {args.population}")
    head = (f"{'row':<10} {'planted':>7} {'fitted':>6} {'failed':>6}  {'cover claimed':>13} {'± MC SE':>7}  "
            f"{'cover latent':>12} {'± MC SE':>7}  {'cover each ref':>14} {'± MC SE':>7}  {'median width':>12}  "
            f"{'claimed (mo)':>12} {'latent (mo)':>11}")
    out.append("coverage at nominal 0.95 (slopes per day; doubling times in months)")
    out.append(head)
    diagnostics = []
    reasons_out = []
    for name, benchmarks in rows_measured():
        rows = [r["rows"][name] for r in records if "rows" in r and name in r["rows"]]
        good = [x for x in rows if "error" not in x]
        bad = [x for x in rows if "error" in x]
        cover_c = [x["low"] <= x["claimed"] <= x["high"] for x in good]
        cover_l = [x["low"] <= x["latent"] <= x["high"] for x in good]
        cover_a = [x["low"] <= min(x["reference_slopes"]) and max(x["reference_slopes"]) <= x["high"] for x in good]
        pc, sc = _coverage(cover_c)
        pl, sl = _coverage(cover_l)
        pa, sa = _coverage(cover_a)
        width = float(np.median([x["high"] - x["low"] for x in good])) if good else math.nan
        claimed = float(np.median([x["claimed"] for x in good])) if good else math.nan
        latent = float(np.median([x["latent"] for x in good])) if good else math.nan
        planted = "joint" if len(benchmarks) > 1 else f"{BENCHMARKS[benchmarks[0]].months:g} mo"
        out.append(f"{name:<10} {planted:>7} {len(good):>6} {len(bad) + total - len(rows):>6}  {pc:>13.3f} {sc:>7.3f}  "
                   f"{pl:>12.3f} {sl:>7.3f}  {pa:>14.3f} {sa:>7.3f}  {width:>12.5f}  {_months(claimed):>12} {_months(latent):>11}")
        if bad:
            counts = pd.Series([x["error"].split(":")[0] if not x.get("no_reference") else f"no reference passes rule {args.rule}"
                                for x in bad]).value_counts()
            reasons_out.append(f"  {name}: " + ", ".join(f"{n} × {why}" for why, n in counts.items()))
        if good:
            point = np.array([x["point"] for x in good])
            target = np.array([x["claimed"] for x in good])
            noise_bias = np.array([noisy_claimed(x, args) for x in good]) - target
            refs = pd.Series([len(x["references"]) for x in good]).value_counts().sort_index()
            uses = pd.Series([ref.split(":")[0] for x in good for ref in x["references"]]).value_counts()
            shares = {s: _mean_finite([x["share"][s] for x in good]) for s in ("fit", "score", "models", "reference")}
            diagnostics.append(
                f"{name:<10} bias {np.mean(point - target):+.5f}  sd(point − claimed) "
                f"{np.std(point - target, ddof=1) if len(good) > 1 else math.nan:.5f}"
                f"  median bootstrap sd {np.median([x['sd_all'] for x in good]):.5f}"
                f"  estimand se {np.median([x['claimed_se'] for x in good]):.6f}"
                f"  score-noise bias {np.mean(noise_bias):+.5f}"
                f"  shares fit {shares['fit']:.2f} score {shares['score']:.2f} models {shares['models']:.2f}"
                f" reference {shares['reference']:.2f}")
            diagnostics.append(f"{'':<10} references per replicate " + ", ".join(f"{k}: {v}" for k, v in refs.items())
                               + "; used " + ", ".join(f"{k} {v}" for k, v in uses.items())
                               + f"; bounds per replicate (lead reference) lower {np.mean([x['n_lower'] for x in good]):.1f}"
                               f" upper {np.mean([x['n_upper'] for x in good]):.1f}")
    out.append("claimed: the equal-weight mean of the row's references' population slopes; latent: the planted A_b (headline: "
               "the set's population slope under the canonical curves); each ref: the interval holds every one of the row's "
               "references' population slopes; failed: not measured")
    if reasons_out:
        out.append("not measured, and why:")
        out.extend(reasons_out)
    out.append("where the interval's width comes from (mean over fitted replicates; bias and sd of the point slope"
               " against the claimed estimand):")
    out.extend(diagnostics)
    out.extend(acceptance(records))
    pops = sorted({k[:3] for k in _SLOPES if not k[5] and not k[6]})
    if pops:
        out.append("population slopes (per day; doubling months) under each true reference curve, from noise-free scores "
                   "(the estimand) and, beside it, from binomial scores (the point estimator's limit):")
        for family, benchmarks, joint in pops:
            kind = "joint" if joint else "per-benchmark"
            slope, se = reference_slope(family, benchmarks, joint, args.seed, args.population)
            noisy, noisy_se = reference_slope(family, benchmarks, joint, args.seed, args.population, noisy=True)
            out.append(f"  {family:<11} {kind:<13} {','.join(benchmarks):<25} {slope:.5f} ± {se:.5f} ({_months(slope):>5} mo)"
                       f"   binomial scores {noisy:.5f} ± {noisy_se:.5f} ({_months(noisy):>5} mo)")
    return out


def acceptance(records: list[dict]) -> list[str]:
    """The rule's verdict on each planted candidate: how often it is eligible, its median reach share, and the
    commonest reason it is refused."""
    found: dict[str, list[dict]] = {}
    for rec in records:
        for name, verdict in rec.get("candidates", {}).items():
            found.setdefault(name, []).append(verdict)
    if not found:
        return []
    out = ["the rule's verdict on each planted candidate (share of replicates eligible ± MC SE; median reach share, the "
           "best member's way from chance to the top decile; commonest refusal)"]
    for family in FAMILIES:
        cells = []
        for bench in BENCHMARKS:
            verdicts = found.get(f"{family}:{bench}", [])
            if not verdicts:
                continue
            p, se = _coverage([v["eligible"] for v in verdicts])
            codes = pd.Series([v["code"] for v in verdicts if v["code"]])
            why = codes.value_counts().index[0] if len(codes) else "—"
            cells.append(f"{bench} {p:.2f}±{se:.2f} reach {np.nanmedian([v['reach'] for v in verdicts]):.2f} {why}")
        out.append(f"  {family:<16} " + "; ".join(cells))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--targets", type=int, default=120)
    parser.add_argument("--n-boot", type=int, default=200, help="bootstrap draws of each row's interval")
    parser.add_argument("--n-share", type=int, default=40, help="draws of each source alone (the variance shares)")
    parser.add_argument("--ref-boot", type=int, default=1000, help="bootstrap draws of each family fit")
    parser.add_argument("--population", type=int, default=20000, help="targets of the population slopes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rule", choices=("v2", "v3"), default="v3", help="the reference rule (v3: densing's)")
    parser.add_argument("--store", default=None, help="JSON lines, one per replicate: a rerun skips those already there")
    args = parser.parse_args()
    chosen, fresh, elapsed = run_replicates(args.replicates, lambda r: run_replicate(r, args), _config(args), args.store)
    for name, benchmarks in rows_measured():  # every population slope the table lists, also for stored replicates
        for rec in chosen:
            for ref in rec.get("rows", {}).get(name, {}).get("references", []):
                family, bs = ref.split(":")
                reference_slope(family, tuple(bs.split(",")), len(benchmarks) > 1, args.seed, args.population,
                                budget=name.startswith("budget:"))
    print(f"{fresh} replicates run in {elapsed:.0f} s, {len(chosen) - fresh} read from the store")
    print("\n".join(summarise(chosen, args)))


def _config(args) -> str:
    return (f"seed={args.seed} targets={args.targets} n_boot={args.n_boot} n_share={args.n_share} ref_boot={args.ref_boot} "
            f"population={args.population} rule={args.rule} families={','.join(FAMILIES)}")


if __name__ == "__main__":
    main()
