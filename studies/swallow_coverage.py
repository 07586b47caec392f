"""Coverage of densing's capability-trend intervals, the rows' status and the forecast check on planted data shaped like
the Swallow table (``results/swallow/swallow_2025-06.csv``); prints a table, asserts nothing.

The measurement is the one ``densing trend --table swallow --by benchmark`` makes; the planted world is built like
:mod:`studies.capability_coverage`'s (same latent scale, same estimands, its functions reused where they fit), with
the Swallow table's window, sizes, benchmarks and reference families.

**The real table, as the planted world copies it** (72 pre-trained models, all five scores each). Release dates run
from 2023-12-19 to 2025-06-25: a window of W = 554 days. Sizes: log10 of the ``params`` column (total parameters,
mixtures of experts included) over the 72 rows has mean 9.967, standard deviation 0.605 (ddof 1) and Pearson
correlation −0.338 with the release date in days since 2023-12-19 (newer models are smaller on this leaderboard), range
8.69–11.15. The benchmarks, with the registry's chance levels and item counts (:data:`BENCHMARKS`): swallow_mmlu
(0.25, 14,042 items), swallow_bbh (0, 6,511), swallow_math (0, 5,000), swallow_gsm8k (0, 1,319), swallow_humaneval
(0, 164).

**The planted world** (fixed; each replicate redraws every random part of it):

- *Targets* (``--targets``, default 72), each its own family: t ~ whole days Uniform{0, …, 554} since 2023-12-19;
  log10 N = 9.967 + 0.605·(−0.338·z_t + √(1 − 0.338²)·z), z ~ N(0, 1), z_t = (t − 277)/(554/√12), clipped to the
  table's range [8.69, 11.15] (the clip takes the standard deviation to about 0.58; the correlation stays −0.34);

      ln ρ_{m,b} = A_b·(t_m − 554) + B − u_m + δ_{m,b},   u_m ~ Exponential(mean 1),  δ_{m,b} ~ N(0, 0.3²),

  B = 0.5, so the 0.9 quantile of ln ρ_b given t is a line of slope A_b. Planted doubling times ln 2 / A_b (not the
  real ones): MMLU 6, BBH 4, MATH 3, GSM8K 3, HumanEval 4 months. Canonical curve of the effective size x = ln N̂,
  S_b(x) = d_b + (1 − d_b)·σ(γ_b·(x − l_b)); score Binomial(n_b, S_b(ln N + ln ρ_b))/n_b on every benchmark (no
  missing score, as in the table). γ_b and l_b (:data:`BENCHMARKS`) were chosen by matching the planted targets'
  score quantiles 0.1, 0.25, 0.5, 0.75, 0.9 to the real table's (least squares, then rounded); the printed table
  lists both sets of quantiles, so the match is checked on every run.
- *Reference families* (:data:`FAMILIES`), each at one token budget and released on one date t_f; member i of
  family f has, on benchmark b, the canonical effective size h_{f,b}(ln N_i) + ε_{i,b}, ε ~ N(0, 0.15²),

      h_{f,b}(ln N) = ln N_f* + A_b·(t_f − 554) + B − g_f + k_f·(ln N − ln N_f*)

  (its pivot member N_f* sits g_f below the frontier of its date). ``Qwen2.5-like``: 0.49, 1.54, 3.09, 7.61, 14.7,
  32.5, 72.7 B at 18T tokens, released 2024-09-19 (day 275, mid-window), g = 0 at 7.61B, k = 1 (the targets' shape).
  ``Qwen3-like``: 0.6, 1.7, 4.0, 8.2, 14.8 B at 36T tokens, released 2025-04-29 (day 497, late), g = 0 at its 8.2B
  member and k = 0.6 (a heavily over-trained recipe: its effective size grows more slowly in ln N than the targets',
  so its smaller members lie above the frontier of its date). As in densing, a family's own models are never its
  targets; they are targets of the other reference, dated t_f.

**The measurement** is densing's own: the reference rule's candidate table over the Swallow profile's candidate benchmarks
(:func:`densing.laws.eligibility.candidate_table` with ``benchmarks=registry.table("swallow").candidates``), every
eligible (family, benchmark) fitted (:func:`densing.laws.eligibility.eligible_fits`, ``--ref-boot`` draws), then
:func:`densing.trend.capability.trend_row` for each benchmark and for the paper-like set ``paper`` (swallow_mmlu,
swallow_bbh, swallow_math, swallow_humaneval; a joint inversion), ``--n-boot`` draws, no share draws, since and
epoch 2023-02-24 as ``densing trend`` uses them; each row's ``status`` ("measured" or "not measured: …") is
recorded. Then :func:`studies._forecast_check.forecast_check` on the paper-like row's members with the cutoff at the
window's first third, day 185 = 2024-06-21 (:data:`CUTOFF`; the real check's is 2024-06-30), ``--n-boot`` draws:
the planted law goes on unchanged after it, so a verdict other than "the forecast holds" is a false alarm. Beside the
verdicts, the share of later models above the carried line (0.10 if the line were the true 0.9 quantile), over all
later models and over the later planted targets alone (the other reference's members, which sit at the frontier of
their date, left out).

**The estimands** (as in :mod:`studies.capability_coverage`), per row and replicate:

- *claimed* — the equal-weight mean, over the row's references, of each reference's population slope: the slope of
  :func:`studies._planted.frontier_line` (censored 0.9 quantile) of ln ρ under the reference's *true* curves
  (``fit_family`` on its members' noise-free scores, which recovers S_b∘h_f exactly), inverted per benchmark or
  jointly over the benchmarks the reference covers, from the noise-free scores of ``--population`` targets of the
  same design (mean over blocks of 2,000: :func:`studies._planted.population_slope`).
- *latent* — a row's planted A_b; the paper-like row's, the set's population slope under the canonical curves S_b.

The Qwen2.5-like reference has population slope A_b; the Qwen3-like one about A_b/k_f plus (1/k_f − 1) times the
drift of ln N with the date (negative here), so the rows that draw it claim a faster trend than the planted one.
Coverage is at nominal 0.95, with the Monte Carlo standard error √(p(1 − p)/R) over the R replicates a row was
fitted in, overall and split by the row's status. Replicate r draws from ``numpy.random.SeedSequence([seed, r])``;
``--store`` keeps one JSON line per replicate (:func:`studies.replicates.run_replicates`) and a rerun skips those
already there.

    PYTHONPATH=. OMP_NUM_THREADS=1 python studies/swallow_coverage.py --replicates 200 --store STORE
"""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
import pandas as pd

from densing import registry
from densing.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, LN2
from densing.data.benchmarks import CHANCE_LEVELS
from densing.errors import DensingError
from densing.laws import eligibility
from densing.laws.family import fit_family
from densing.laws.inversion import Joint, PerBenchmark
from densing.present.shown import row_error, status
from densing.trend import capability
from densing.trend.targets import with_stderr
from studies import _planted
from studies._forecast_check import _counts, forecast_check
from studies._planted import coverage as _coverage, family_of as _family_of, months as _months, population_slope
from studies.replicates import run_replicates

EPOCH = DEFAULT_EPOCH  # since and epoch of the measurement, as ``densing trend`` uses them
START = "2023-12-19"  # the window's first release date (day 0)
WINDOW_DAYS = 554.0  # to 2025-06-25
CUTOFF_DAY = 185  # the forecast's cutoff: the window's first third
CUTOFF = str((pd.Timestamp(START) + pd.Timedelta(days=CUTOFF_DAY)).date())
CUTOFF_T = (pd.Timestamp(CUTOFF) - pd.Timestamp(EPOCH)).days  # the cutoff in the measurement's t (days since EPOCH)
FRONTIER_END = 0.5  # B
GAP_MEAN = 1.0  # u ~ Exponential(mean 1)
SKILL_SD = 0.3  # δ ~ N(0, 0.3²)
MEMBER_SD = 0.15  # ε ~ N(0, 0.15²)
#: log10 N of the real table's 72 models (module docstring): mean, sd (ddof 1), correlation with the date, range.
SIZE_MEAN, SIZE_SD, SIZE_DATE_CORR, SIZE_RANGE = 9.967, 0.605, -0.338, (8.69, 11.15)
BLOCK = 2000
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


@dataclass(frozen=True)
class Benchmark:
    months: float  # planted doubling time ln 2 / A_b, months
    gamma: float  # γ_b
    level: float  # l_b

    @property
    def slope(self) -> float:
        return LN2 / (self.months * DAYS_PER_MONTH)


#: Planted doubling times and canonical curves (levels matched to the real table's score quantiles).
BENCHMARKS: dict[str, Benchmark] = {
    "swallow_mmlu": Benchmark(6.0, 0.6, 21.5),
    "swallow_bbh": Benchmark(4.0, 0.5, 20.5),
    "swallow_math": Benchmark(3.0, 0.6, 22.2),
    "swallow_gsm8k": Benchmark(3.0, 0.85, 20.3),
    "swallow_humaneval": Benchmark(4.0, 0.5, 22.2),
}
PAPER_SET: tuple[str, ...] = registry.table("swallow").sets["paper"][1]


@dataclass(frozen=True)
class Family:
    sizes: tuple[float, ...]
    tokens: float
    released: float  # t_f, days since the window's start
    gap: float  # g_f
    shape: float  # k_f
    pivot: float  # N_f*

    def offset(self, benchmark: str) -> float:
        return BENCHMARKS[benchmark].slope * (self.released - WINDOW_DAYS) + FRONTIER_END - self.gap


FAMILIES: dict[str, Family] = {
    "Qwen2.5-like": Family((0.49e9, 1.54e9, 3.09e9, 7.61e9, 14.7e9, 32.5e9, 72.7e9), 18e12, 275.0, 0.0, 1.0, 7.61e9),
    "Qwen3-like": Family((0.6e9, 1.7e9, 4.0e9, 8.2e9, 14.8e9), 36e12, 497.0, 0.0, 0.6, 8.2e9),
}
#: The targets' own curves (k = 1, offset 0): the latent estimand's reference of the joint row.
CANONICAL = Family(tuple(10.0 ** np.arange(8.0, 12.01, 0.5)), 1e12, WINDOW_DAYS, FRONTIER_END, 1.0, 7e9)


def curve(benchmark: str, x) -> np.ndarray:
    b, d = BENCHMARKS[benchmark], CHANCE_LEVELS[benchmark]
    return d + (1.0 - d) / (1.0 + np.exp(-b.gamma * (np.asarray(x, float) - b.level)))


def effective(family: Family, benchmark: str, log_n) -> np.ndarray:
    pivot = math.log(family.pivot)
    return pivot + family.offset(benchmark) + family.shape * (np.asarray(log_n, float) - pivot)


WORLD = _planted.World(tuple(BENCHMARKS), FAMILIES, curve, effective, START, MEMBER_SD)


def _date(t) -> pd.Series:
    return pd.Timestamp(START) + pd.to_timedelta(t, unit="D")


def draw_targets(rng: np.random.Generator, count: int, prefix: str = "m") -> pd.DataFrame:
    """``count`` targets (module docstring): model, params, t (days since the window's start), date, latent ln ρ_b."""
    t = np.floor(rng.uniform(0, WINDOW_DAYS + 1, count))
    z_t = (t - WINDOW_DAYS / 2) / (WINDOW_DAYS / math.sqrt(12))
    z = SIZE_DATE_CORR * z_t + math.sqrt(1 - SIZE_DATE_CORR**2) * rng.standard_normal(count)
    params = 10.0 ** np.clip(SIZE_MEAN + SIZE_SD * z, *SIZE_RANGE)
    gap = rng.exponential(GAP_MEAN, count)
    frame = pd.DataFrame(
        {"model": [f"{prefix}{i}" for i in range(count)], "params": params, "t": t, "release_date": _date(t)}
    )
    for name, b in BENCHMARKS.items():
        frame[f"log_rho:{name}"] = (
            b.slope * (t - WINDOW_DAYS) + FRONTIER_END - gap + SKILL_SD * rng.standard_normal(count)
        )
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


@cache
def true_fit(name: str, benchmark: str):
    family = CANONICAL if name == "canonical" else FAMILIES[name]
    # the planted curves are sigmoids in ln N: their own shape recovers them exactly
    return fit_family(family_rows(name, family, None), name, benchmark, n_boot=0, shape="logistic_ln_n")


@lru_cache(maxsize=2)
def population(seed: int, count: int) -> pd.DataFrame:
    frame = draw_targets(np.random.default_rng(np.random.SeedSequence([seed, 2**31 - 1])), count, prefix="p")
    table = target_rows(frame, None)
    table["stderr"] = np.nan
    return with_stderr(table)


_SLOPES: dict = {}


def reference_slope(
    family: str, benchmarks: tuple[str, ...], joint: bool, seed: int, count: int
) -> tuple[float, float]:
    key = (family, benchmarks, joint, seed, count)
    if key not in _SLOPES:
        fits = tuple(true_fit(family, b) for b in benchmarks)
        inversion = Joint(fits) if joint else PerBenchmark(fits[0], fits[0].d0)
        _SLOPES[key] = population_slope(inversion, population(seed, count))
    return _SLOPES[key]


# ---------------------------------------------------------------------------------------------------------------
# one replicate


def rows_measured() -> list[tuple[str, tuple[str, ...]]]:
    return [("paper", PAPER_SET)] + [(b, (b,)) for b in BENCHMARKS]


def status_kind(status: str) -> str:
    """A row's status in a word: "measured" (its ratio high/low left out), or the reason(s) of "not measured: …"
    without their numbers."""
    if status.startswith("measured"):
        return "measured"
    words, done = status.removeprefix("not measured: "), ""
    while words != done:  # innermost parentheses first: "(Qwen3 ∞ (no trend), …)"
        words, done = re.sub(r"\s*\([^()]*\)", "", words), words
    return words


def run_replicate(r: int, args) -> dict:
    rng = np.random.default_rng(np.random.SeedSequence([args.seed, r]))
    table, frame = replicate_table(rng, args.targets)
    record = {"replicate": r, "rows": {}, "targets": int(len(frame))}
    try:
        candidates = eligibility.candidate_table(table, benchmarks=registry.table("swallow").candidates)
        fits = eligibility.eligible_fits(table, candidates, seed=r, family_boot=args.ref_boot)
    except DensingError as exc:
        record["error"] = f"candidate table: {exc}"
        return record
    record["eligible"] = sorted(f"{f}:{b}" for f, b in fits)
    record["candidates"] = {
        f"{x.family}:{x.benchmark}": (str(x.code) if not x.eligible else "")
        for x in candidates[candidates["kind"] == "family"].itertuples(index=False)
    }
    paper = None
    for name, benchmarks in rows_measured():
        try:
            row = capability.trend_row(
                capability.RowSpec(name, name, "planted", benchmarks),
                table,
                candidates,
                fits,
                since=EPOCH,
                epoch=EPOCH,
                n_boot=args.n_boot,
                n_boot_share=0,
                seed=r,
            )
        except (DensingError, ValueError, FloatingPointError) as exc:
            record["rows"][name] = {"error": f"{type(exc).__name__}: {exc}", "status": f"not measured: {exc}"}
            continue
        if name == "paper":
            paper = row
        if row.result is None:
            record["rows"][name] = {"error": row_error(row) or "not measured", "status": status(row)}
            continue
        res = row.result
        joint = len(benchmarks) > 1
        own = [(_family_of(inv), tuple(inv.benchmarks)) for inv, _ in row.members]
        pop = [reference_slope(f, bs, joint, args.seed, args.population) for f, bs in own]
        weights = np.asarray(res.reference_weights, float)
        latent = (
            reference_slope("canonical", benchmarks, True, args.seed, args.population)[0]
            if joint
            else BENCHMARKS[benchmarks[0]].slope
        )
        record["rows"][name] = {
            "status": status(row),
            "references": [f"{f}:{','.join(bs)}" for f, bs in own],
            "point": res.slope_per_day,
            "low": res.slope_ci_low,
            "high": res.slope_ci_high,
            "claimed": float(weights @ np.array([p[0] for p in pop])),
            "reference_slopes": [p[0] for p in pop],
            "own_months": {k.family: v for k, v in res.reference_months.items()},
            "latent": latent,
            "n_models": res.n_models,
            "sd_all": res.slope_sd_all,
        }
    if paper is not None and paper.members:
        try:
            found = forecast_check("paper", list(paper.members), CUTOFF, n_boot=args.n_boot, seed=r, epoch=EPOCH)
            record["forecast"] = []
            for (inversion, models), f in zip(paper.members, found.references):
                entry = {
                    "reference": f.reference.split(":")[0],
                    "verdict": f.verdict or f.note,
                    "n_later": f.n_later,
                    "above_line": f.above_line,
                    "above_low": f.above_low,
                    "above_high": f.above_high,
                    "n_before": f.before.n_models if f.before is not None else 0,
                }
                if f.before is not None:  # the same count over the later planted targets alone (no reference member)
                    late = models[(models["t"] > CUTOFF_T) & ~models["family"].isin(list(FAMILIES))]
                    entry["targets_later"], entry["targets_above_line"] = _counts(late, inversion, f.before)[:2]
                record["forecast"].append(entry)
        except DensingError as exc:
            record["forecast"] = [{"reference": "—", "verdict": f"not computed: {exc}"}]
    return record


# ---------------------------------------------------------------------------------------------------------------
# the table


def score_quantiles(seed: int, count: int = 20000) -> list[str]:
    """The planted targets' binomial score quantiles beside the real table's (the levels' check)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 2**31 - 2]))
    planted = target_rows(draw_targets(rng, count), rng)
    real = pd.read_csv(registry.table("swallow").path)
    out = [
        f"score quantiles {', '.join(f'{q:g}' for q in QUANTILES)} (and min, max): the real table's 72 models beside "
        f"{count} planted targets"
    ]
    for b in BENCHMARKS:
        mine = planted.loc[planted["benchmark"] == b, "value"].to_numpy(float)
        theirs = real[b].to_numpy(float)

        def fmt(v):
            return " ".join(f"{x:.3f}" for x in v)

        out.append(
            f"  {b:<18} real {fmt(np.quantile(theirs, QUANTILES))} ({theirs.min():.3f}, {theirs.max():.3f})"
            f"   planted {fmt(np.quantile(mine, QUANTILES))} ({mine.min():.3f}, {mine.max():.3f})"
        )
    drawn = draw_targets(np.random.default_rng(np.random.SeedSequence([seed, 2**31 - 3])), count)
    size = np.log10(drawn["params"].to_numpy(float))
    out.append(
        f"  log10 N: real mean {SIZE_MEAN:.3f} sd {SIZE_SD:.3f} correlation with the date {SIZE_DATE_CORR:+.3f}; "
        f"planted mean {size.mean():.3f} sd {size.std(ddof=1):.3f} correlation "
        f"{np.corrcoef(drawn['t'].to_numpy(float), size)[0, 1]:+.3f} (after the clip)"
    )
    return out


def summarise(records: list[dict], args) -> list[str]:
    total = len(records)
    whole = [r for r in records if "error" in r]
    out = [
        f"{total} replicates ({len(whole)} with no candidate table); {args.targets} targets each, no missing score, "
        f"n_boot {args.n_boot}, reference bootstrap {args.ref_boot}, population {args.population}, seed {args.seed}"
    ]
    out.append("coverage at nominal 0.95 (slopes per day; doubling times in months; ± the Monte Carlo SE)")
    out.append(
        f"{'row':<18} {'planted':>7} {'fitted':>6} {'measured':>8}  {'cover claimed':>15}  {'cover latent':>15}  "
        f"{'latent | measured':>17}  {'latent | disagree':>17}  {'median width':>12}  {'claimed':>7} {'latent':>6}"
    )
    statuses, diagnostics = [], []
    for name, benchmarks in rows_measured():
        rows = [r["rows"][name] for r in records if name in r.get("rows", {})]
        good = [x for x in rows if "error" not in x]
        measured = [x for x in good if x["status"] == "measured"]
        disagree = [x for x in good if "its references disagree" in x["status"]]

        def cover(xs, key):
            return _coverage([x["low"] <= x[key] <= x["high"] for x in xs])

        def cell(p):
            return f"{p[0]:.3f} ± {p[1]:.3f}" if math.isfinite(p[0]) else "—"

        planted = "joint" if len(benchmarks) > 1 else f"{BENCHMARKS[benchmarks[0]].months:g} mo"
        width = float(np.median([x["high"] - x["low"] for x in good])) if good else math.nan
        claimed = float(np.median([x["claimed"] for x in good])) if good else math.nan
        latent = float(np.median([x["latent"] for x in good])) if good else math.nan
        out.append(
            f"{name:<18} {planted:>7} {len(good):>6} {len(measured):>8}  {cell(cover(good, 'claimed')):>15}  "
            f"{cell(cover(good, 'latent')):>15}  {cell(cover(measured, 'latent')):>17}  "
            f"{cell(cover(disagree, 'latent')):>17}  {width:>12.5f}  {_months(claimed):>7} {_months(latent):>6}"
        )
        counts = pd.Series([status_kind(x["status"]) for x in rows]).value_counts()
        statuses.append(
            f"  {name:<18} " + "; ".join(f"{n} ({n / max(total, 1):.2f}) {why}" for why, n in counts.items())
        )
        if good:
            point = np.array([x["point"] for x in good])
            target = np.array([x["claimed"] for x in good])
            refs = pd.Series([ref.split(":")[0] for x in good for ref in x["references"]]).value_counts()
            own = {}
            for x in good:
                for k, v in x["own_months"].items():
                    own.setdefault(k, []).append(v)
            diagnostics.append(
                f"  {name:<18} bias {np.mean(point - target):+.5f}  sd(point − claimed) "
                f"{np.std(point - target, ddof=1) if len(good) > 1 else math.nan:.5f}  median bootstrap sd "
                f"{np.median([x['sd_all'] for x in good]):.5f}  references used: "
                + ", ".join(f"{k} {v}" for k, v in refs.items())
                + "; median own doubling time: "
                + ", ".join(f"{k} {np.median(v):.1f} mo" for k, v in own.items())
            )
    out.append(
        "claimed: the equal-weight mean of the row's references' population slopes; latent: the planted A_b "
        "(paper: the set's population slope under the canonical curves); latent | measured, latent | disagree: "
        "coverage of the latent slope among the replicates whose row is 'measured', and 'not measured: its "
        "references disagree'"
    )
    out.append("each row's status over the replicates (count, share):")
    out.extend(statuses)
    out.append("the point slope against the claimed estimand, and the references:")
    out.extend(diagnostics)
    out.extend(forecast_summary(records))
    out.extend(candidate_summary(records))
    pops = sorted(k[:3] for k in _SLOPES)
    if pops:
        out.append(
            "population slopes (per day; doubling months) under each true reference curve, from noise-free scores:"
        )
        for family, benchmarks, joint in pops:
            slope, se = reference_slope(family, benchmarks, joint, args.seed, args.population)
            out.append(
                f"  {family:<13} {'joint' if joint else 'per-benchmark':<13} {','.join(benchmarks):<60} "
                f"{slope:.5f} ± {se:.5f} ({_months(slope):>5} mo)"
            )
    out.extend(score_quantiles(args.seed))
    return out


def forecast_summary(records: list[dict]) -> list[str]:
    """How often each verdict of the forecast check occurs, per reference of the paper-like row."""
    found: dict[str, list[dict]] = {}
    for rec in records:
        for f in rec.get("forecast", []):
            found.setdefault(f["reference"], []).append(f)
    if not found:
        return []
    out = [
        f"forecast check on the paper-like row (cutoff {CUTOFF}, the window's first third; the planted law goes on "
        "unchanged, so any verdict but 'holds' is a false alarm): share of replicates ± MC SE"
    ]
    for reference, checks in sorted(found.items()):
        verdicts = [c["verdict"] if not c["verdict"].startswith("untestable") else "untestable" for c in checks]
        counts = pd.Series(verdicts).value_counts()
        shares = {why: _coverage([x == why for x in verdicts]) for why in counts.index}
        out.append(
            f"  {reference:<13} {len(checks)} replicates: "
            + "; ".join(f"{why} {share:.3f} ± {se:.3f}" for why, (share, se) in shares.items())
        )
        n_later = [c.get("n_later", 0) for c in checks]
        shares = [c["above_line"] / c["n_later"] for c in checks if c.get("n_later")]
        alone = [c["targets_above_line"] / c["targets_later"] for c in checks if c.get("targets_later")]
        out.append(
            f"  {'':<13} models before the cutoff {np.median([c.get('n_before', 0) for c in checks]):.0f}, later "
            f"{np.median(n_later):.0f} (medians); share of later models above the carried line: mean "
            f"{np.mean(shares) if shares else math.nan:.3f} (0.10 expected), of the later planted targets alone "
            f"(the other reference's members left out) {np.mean(alone) if alone else math.nan:.3f}"
        )
    return out


def candidate_summary(records: list[dict]) -> list[str]:
    """Rule v3's verdict on each planted (family, benchmark): share of replicates eligible, commonest refusal."""
    found: dict[str, list[str]] = {}
    for rec in records:
        for key, code in rec.get("candidates", {}).items():
            found.setdefault(key, []).append(code)
    if not found:
        return []
    out = ["the reference rule's verdict on each planted reference (share of replicates eligible; commonest refusal)"]
    for family in FAMILIES:
        cells = []
        for bench in BENCHMARKS:
            codes = found.get(f"{family}:{bench}", [])
            if codes:
                refused = pd.Series([c for c in codes if c])
                cells.append(
                    f"{bench.removeprefix('swallow_')} {np.mean([not c for c in codes]):.2f}"
                    + (f" ({refused.value_counts().index[0]})" if len(refused) else "")
                )
        out.append(f"  {family:<13} " + "; ".join(cells))
    return out


def _config(args) -> str:
    return (
        f"seed={args.seed} targets={args.targets} n_boot={args.n_boot} ref_boot={args.ref_boot} "
        f"population={args.population} families={','.join(FAMILIES)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=60)
    parser.add_argument("--targets", type=int, default=72)
    parser.add_argument("--n-boot", type=int, default=200, help="bootstrap draws of each row and of the forecast")
    parser.add_argument("--ref-boot", type=int, default=1000, help="draws of each family fit")
    parser.add_argument("--population", type=int, default=20000, help="targets of the population slopes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--store", default=None, help="JSON lines, one per replicate: a rerun skips those already there"
    )
    args = parser.parse_args()
    chosen, fresh, elapsed = run_replicates(
        args.replicates, lambda r: run_replicate(r, args), _config(args), args.store
    )
    print(f"{fresh} replicates run in {elapsed:.0f} s, {len(chosen) - fresh} read from the store")
    print("\n".join(summarise(chosen, args)))


if __name__ == "__main__":
    main()
