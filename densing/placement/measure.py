"""Your models on the density chart: ``densing measure`` and :func:`measure` (``densing.measure``).

A user's models are evaluated on a public protocol (``--suite leaderboard-v1``, ``leaderboard-v2`` or
``swallow-en``, :data:`densing.eval.benchmarks.SUITES`) through the eval runner and its store, and placed against
the headline measurement of ``densing trend`` (:func:`densing.trend.measure.measure_trend` on the suite's target
table, :data:`densing.eval.benchmarks.SUITE_TABLES`: the shipped public table for the leaderboard suites, the
Swallow LLM Leaderboard's table ``results/swallow/swallow_2025-06.csv`` for ``swallow-en``):

1. **Checks first.** The models file, the suite, ``limit``, every model's source (a local path must
   exist; with ``HF_HUB_OFFLINE`` set, a Hub id needs its local copy), the local data folder, the
   report's path, the suite's target table (one other than the public table must be shipped): each bad input is
   an :class:`~densing.errors.InputError` or
   :class:`~densing.errors.EvalError` before any evaluation starts.
2. **Evaluation** through :func:`densing.eval.runner.run_sweep` into a store (a rerun reuses it; by default
   :func:`densing.paths.default_store`, a folder of the user's cache).
3. **Scores onto the public table.** Each suite benchmark's headline metric becomes the public table's
   benchmark (:data:`densing.eval.benchmarks.PUBLIC_TABLE_BENCHMARKS`, metric ``score``). Its standard
   error is binomial over the items actually scored, √(p(1 − p)/n) with n the store's item count (with
   ``limit`` N: N per task, so MMLU's 57 subjects give 57·N), p the score held within [0.5/n, 1 − 0.5/n]
   so that a score of 0 or 1 keeps an error of half an item.
4. **The inversion** is the headline's own (``TrendMeasurement.inversion``: its lead reference, per
   benchmark or jointly over the benchmarks rule v3 makes it a reference on), applied by
   :func:`densing.laws.density.density_table` as for the public models: ρ, or a bound where the score is
   censored, and a 95% interval over the reference's bootstrap draws and the score noise. Scores on
   benchmarks outside that inversion are shown, not inverted.
5. **The frontier.** The headline rule's line ln ρmax = A·t + B (the 0.9 regression quantile) at the
   model's release date (the models file's ``release_date``; today's date where it has none, said so):
   a model lies above or below it; a bound on the wrong side of the line leaves it undetermined.

A density whose interval reaches 0, or whose inverted score lies within two standard errors of the
benchmark's chance level, is reported as an upper bound in words, never as a precise number.
"""
from __future__ import annotations

import datetime as _datetime
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from densing.errors import EvalError, InputError
from densing.results import Result

#: Standard errors between a score and its benchmark's chance level below which the density is a bound.
CHANCE_STDERRS = 2.0
#: The verdicts against the frontier line.
ABOVE, BELOW, UNDETERMINED = "above", "below", "undetermined"
_TRUE = {"1", "on", "yes", "true"}


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) asks for no Hub access."""
    return any(os.environ.get(name, "").strip().lower() in _TRUE for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def check_offline_source(spec) -> None:
    """EvalError when ``spec`` names a Hub id whose files are not in the local cache while the Hub is offline."""
    from densing.eval.loading import check_model_source
    from densing.eval.models import PACKAGE_PREFIX

    check_model_source(spec)  # a missing local path or GGUF file, an uninstalled package
    if spec.model.startswith(PACKAGE_PREFIX) or Path(spec.model).expanduser().exists() or not hub_offline():
        return
    from huggingface_hub import try_to_load_from_cache

    wanted = spec.gguf_file or "config.json"
    try:
        found = try_to_load_from_cache(spec.model, wanted, revision=spec.revision)
    except Exception:  # an id the Hub client rejects (two slashes, odd characters)
        found = None
    if not isinstance(found, str):
        raise EvalError(f"model {spec.name!r}: {spec.model}: no local copy of {wanted} and HF_HUB_OFFLINE is set "
                        "(download it first, or give a local path)")


@dataclass(frozen=True)
class Plan:
    """What :func:`measure` will run, every input checked."""

    specs: tuple
    suite: str
    benchmarks: tuple[str, ...]
    left_out: tuple[str, ...]
    limit: float | None
    data_root: Path | None


def plan(models, suite: str, *, limit: float | None = None, local_data: bool = False,
         data_root: str | Path | None = None, backend: str = "hf", device: str | None = None,
         store: str | Path | None = None) -> Plan:
    """Check every input of :func:`measure` (module docstring, step 1) without evaluating anything.

    A model with a part in ``store`` for each of the suite's benchmarks has its source checked by the sweep instead,
    once the parts' config hashes are read (still before anything is evaluated): a model whose pairs are all in the
    store is not needed, and need not be installed."""
    from densing.eval.benchmarks import PUBLIC_TABLE_BENCHMARKS, suite_benchmarks, suite_table
    from densing.eval.loading import SWEEP_CONSTRAINTS
    from densing.eval.runner import as_model_specs
    from densing.paths import RESULTS
    from densing.validation import validate

    if not isinstance(models, (str, Path, list, tuple)):
        raise InputError(f"models: expected a models file or a list of model specs, got {models!r}")
    if isinstance(models, (str, Path)) and not Path(models).is_file():
        raise InputError(f"{models}: no such models file")
    specs = as_model_specs(models)
    if not isinstance(suite, str):
        raise InputError(f"suite: expected a suite name, got {suite!r}")
    names, left_out = suite_benchmarks(suite.strip(), local_data=local_data)
    validate({k: SWEEP_CONSTRAINTS[k] for k in ("backend", "limit", "device")}, limit=limit, device=device, backend=backend)
    from densing.eval.store import part_path

    for spec in specs:
        if store is None or not all(part_path(store, spec.name, name).is_file() for name in names):
            check_offline_source(spec)
    root = None
    if local_data:
        from densing.paths import SHARED_DATA

        root = Path(data_root if data_root is not None else SHARED_DATA)
        if not (root / "benchmarks").is_dir():
            raise InputError(f"{root}: --data-root has no benchmarks/ folder (the local benchmark splits)")
    table = suite_table(suite.strip())
    if not table.is_file():  # a suite of another table than the public one (SUITE_TABLES) needs that table shipped
        raise InputError(f"--suite {suite.strip()}: its target table results/{table.relative_to(RESULTS).as_posix()} "
                         "is not shipped, so there is no table to place the models against")
    # the headline is measured on the first benchmark set that rule v3 gives a reference (the table's sets)
    from densing.trend.tables import for_path

    inverted = {b for _, members in for_path(table).sets.values() for b in members}
    if not inverted & {PUBLIC_TABLE_BENCHMARKS[b] for b in names}:
        raise InputError(f"--suite {suite.strip()}: none of its benchmarks ({', '.join(names)}) is in a benchmark set the "
                         f"headline is measured on ({', '.join(sorted(inverted))}), so no score could be inverted")
    return Plan(tuple(specs), suite.strip(), tuple(names), tuple(left_out), None if limit is None else float(limit), root)


# ---------------------------------------------------------------------------------------------
# scores onto the public table


def binomial_items_stderr(score, items) -> np.ndarray:
    """√(p(1 − p)/n) with p the score held within [0.5/n, 1 − 0.5/n] (module docstring, step 3)."""
    n = np.asarray(items, float)
    p = np.clip(np.asarray(score, float), 0.5 / n, 1 - 0.5 / n)
    return np.sqrt(p * (1 - p) / n)


def public_scores(rows: pd.DataFrame, specs: Sequence, *, today: str | None = None) -> pd.DataFrame:
    """The store's rows of a suite as the public table's: ``model, benchmark, metric, value, stderr, items, params,
    release_date, release_date_source, family, suite_benchmark`` (one row per model × suite benchmark)."""
    from densing.eval.benchmarks import KNOWN_BENCHMARKS, PUBLIC_TABLE_BENCHMARKS

    today = today or _datetime.date.today().isoformat()
    by_name = {s.name: s for s in specs}
    out = []
    for (model, bench), group in rows.groupby(["model", "benchmark"], sort=False):
        if bench not in PUBLIC_TABLE_BENCHMARKS:
            continue
        metric = KNOWN_BENCHMARKS[bench].metric
        chosen = group[group["metric"] == metric]
        if chosen.empty:
            raise EvalError(f"{model} / {bench}: the store has no {metric!r} row (metrics: {', '.join(group['metric'])})")
        row = chosen.iloc[0]
        spec = by_name.get(model)
        dated = spec is not None and spec.release_date is not None
        items = float(row["items"])
        out.append({
            "model": model, "benchmark": PUBLIC_TABLE_BENCHMARKS[bench], "metric": "score", "value": float(row["value"]),
            "stderr": float(binomial_items_stderr(row["value"], items)), "items": int(items),
            "params": float(row["params"]), "release_date": spec.release_date if dated else today,
            "release_date_source": "models file" if dated else "today (no release_date in the models file)",
            "family": (spec.family if spec is not None and spec.family else model), "suite_benchmark": bench,
        })
    return pd.DataFrame(out)


# ---------------------------------------------------------------------------------------------
# the placement


def _chance_note(scores: pd.DataFrame, benchmarks: Sequence[str]) -> dict[str, str]:
    """Per model, the inverted scores within :data:`CHANCE_STDERRS` standard errors of chance, in words."""
    from densing.data.benchmarks import CHANCE_LEVELS

    notes: dict[str, list[str]] = {}
    for row in scores[scores["benchmark"].isin(benchmarks)].itertuples():
        chance = CHANCE_LEVELS.get(str(row.benchmark))
        if chance is not None and row.value - chance < CHANCE_STDERRS * row.stderr:
            notes.setdefault(str(row.model), []).append(
                f"{row.benchmark} {row.value:.3f} is within {CHANCE_STDERRS:g} standard errors ({row.stderr:.3f}) of "
                f"chance ({chance:g})")
    return {m: "; ".join(v) for m, v in notes.items()}


def _g(value: float) -> str:
    from densing.numbers import format_number

    return format_number(value, ".3g")


def place_models(scores: pd.DataFrame, inversion, line, *, seed: int = 0) -> pd.DataFrame:
    """One row per model of ``scores`` (:func:`public_scores`' table) under ``inversion``, against the frontier ``line``.

    ``line`` is the headline's :class:`~densing.trend.uncertainty.TrendUncertainty` (anything with ``predict(dates)``
    → ln ρmax and ``epoch``). Columns: the model, its date and where the date comes from, its scores and item counts
    (``score:<b>``, ``items:<b>``), the benchmarks inverted, ρ (``density``; a bound where ``bound`` says so), its 95%
    interval, ``reading`` (``value``, ``upper bound``, ``lower bound``), ``frontier_density`` (ρmax of the line at the
    date), ``frontier`` (above, below, undetermined) and ``words``.
    """
    from densing.laws.density import density_table
    from densing.trend.targets import trend_targets

    used = [b for b in inversion.benchmarks if b in set(scores["benchmark"])]
    if not used:
        raise InputError(f"scores: none of the inversion's benchmarks ({', '.join(inversion.benchmarks)}) has a score")
    epoch = getattr(line, "epoch", None)
    models, left = trend_targets(scores, inversion, since=None, **({"epoch": epoch} if epoch else {}))
    table = density_table(models, inversion, seed=seed) if len(models) else pd.DataFrame(columns=["model"])
    chance = _chance_note(scores, inversion.benchmarks)
    first = scores.drop_duplicates("model").set_index("model")
    rows = []
    for model in first.index:
        meta = first.loc[model]
        own = scores[scores["model"] == model]
        record = {"model": model, "params": float(meta["params"]), "release_date": str(meta["release_date"])[:10],
                  "release_date_source": meta.get("release_date_source", "")}
        for r in own.itertuples():
            record[f"score:{r.benchmark}"] = r.value
            record[f"items:{r.benchmark}"] = int(r.items) if "items" in own.columns else math.nan
        record["inverted"] = ",".join(b for b in inversion.benchmarks if b in set(own["benchmark"]))
        record["reference"] = inversion.name
        found = table[table["model"] == model]
        if found.empty:
            reason = left.loc[left["model"] == model, "reason"]
            record.update(density=math.nan, bound="", density_ci_low=math.nan, density_ci_high=math.nan, reading="none",
                          frontier_density=math.nan, frontier=UNDETERMINED,
                          words=f"not inverted: {reason.iloc[0] if len(reason) else 'no score on ' + ', '.join(inversion.benchmarks)}")
            rows.append(record)
            continue
        d = found.iloc[0]
        frontier = float(np.exp(line.predict(pd.to_datetime([record["release_date"]]))[0]))
        record.update(density=float(d["density"]), bound=str(d["bound"]), density_ci_low=float(d["density_ci_low"]),
                      density_ci_high=float(d["density_ci_high"]), frontier_density=frontier)
        record.update(_verdict(record, chance.get(model)))
        rows.append(record)
    return pd.DataFrame(rows)


def _verdict(r: dict, near_chance: str | None) -> dict:
    """``reading``, ``frontier`` and ``words`` of one placed model."""
    rho, low, high, bound, line = r["density"], r["density_ci_low"], r["density_ci_high"], r["bound"], r["frontier_density"]
    interval = f"95% CI {_g(low)}–{_g(high)}"
    if bound == "upper bound":
        reading, said = "upper bound", f"ρ ≤ {_g(rho)} (an upper bound: the score is at or below what the reference can resolve)"
        value = rho
    elif bound == "lower bound":
        reading, said = "lower bound", f"ρ ≥ {_g(rho)} (a lower bound: the score is beyond what the reference can resolve)"
        value = rho
    elif near_chance or not low > 0:
        why = near_chance or "the 95% interval reaches 0"
        reading, said = "upper bound", f"ρ ≤ {_g(high)} (the 95% interval's upper end; {why}, so the density is a bound, not a number)"
        value = high
    else:
        reading, said, value = "value", f"ρ = {_g(rho)} ({interval})", rho
    if reading == "lower bound":
        side = ABOVE if value > line else UNDETERMINED
    elif reading == "upper bound":
        side = BELOW if value < line else UNDETERMINED
    else:
        side = ABOVE if value > line else BELOW
    where = {ABOVE: "above", BELOW: "below"}.get(side)
    date = f"{r['release_date']}" + (" (today: no release_date given)" if str(r.get("release_date_source", "")).startswith("today") else "")
    against = f"the frontier line's ρmax {_g(line)} at {date}"
    if where is None:
        verdict = f"undetermined against {against} (a bound on the line's far side)"
    elif reading == "value" and low <= line <= high:
        verdict = f"{where} {against}, though the 95% interval includes the line"
    else:
        verdict = f"{where} {against}"
    return {"reading": reading, "frontier": side, "words": f"{said}; {verdict}"}


# ---------------------------------------------------------------------------------------------
# the result and the entry point


@dataclass(frozen=True)
class MeasureResult(Result):
    """What :func:`measure` returns: the user's models placed against the headline measurement.

    ``to_frame()``: one row per model (:func:`place_models`' columns); ``summary()``: the same in words;
    ``scores``: the suite's scores on the public table's names; ``measurement``: the headline's
    :class:`~densing.trend.measurement.TrendMeasurement`.
    """

    suite: str
    limit: float | None
    reference: str
    inverted_benchmarks: tuple[str, ...]
    frontier_rule: str
    slope_per_day: float
    intercept: float
    epoch: str
    left_out: tuple[str, ...] = ()
    models: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    scores: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    measurement: object = field(repr=False, default=None)

    _dict_exclude = ("models", "scores", "measurement")

    def to_frame(self) -> pd.DataFrame:
        """One row per model: scores, items, density, its 95% interval, the reading and the frontier verdict."""
        return self.models.copy()

    def plot(self):
        """The report's density figure (a plotly ``Figure``) with these models drawn as labelled stars against the
        headline's frontier line (:meth:`densing.trend.measurement.TrendMeasurement.plot`)."""
        from densing.errors import InputError

        if self.measurement is None:
            raise InputError("measurement: this result keeps no headline measurement to draw against")
        return self.measurement.plot("density", rule=self.frontier_rule, highlight=self.models)

    def to_dict(self) -> dict:
        rows = self.models.astype(object).where(self.models.notna(), None).to_dict("records")
        return {**super().to_dict(), "models": rows}

    def protocol(self) -> str:
        """The suite as evaluated, in words: its name and how many items per task."""
        limit = "the full splits" if self.limit is None else f"at most {self.limit:g} items per task (--limit)"
        return f"{self.suite} on {limit}"

    def summary(self) -> str:
        """The placement in words, one paragraph per model."""
        lines = [f"{self.protocol()}; inverted on {', '.join(self.inverted_benchmarks)} through {self.reference}, "
                 f"the headline's reference; frontier: the {self.frontier_rule} line ln ρmax = A·t + B."]
        if self.left_out:
            lines.append(f"Left out (no local split): {', '.join(self.left_out)}.")
        for r in self.models.to_dict("records"):
            scores = ", ".join(f"{k.removeprefix('score:')} {v:.3f} ({int(r['items:' + k.removeprefix('score:')])} items)"
                               for k, v in r.items() if k.startswith("score:") and not pd.isna(v))
            lines.append(f"{r['model']}: {scores}. {r['words']}.")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


ProgressCallback = Callable[[str], None]


def measure(
    models,
    suite: str = "leaderboard-v1",
    *,
    limit: float | None = None,
    local_data: bool = False,
    data_root: str | Path | None = None,
    store: str | Path | None = None,
    results: str | Path | None = None,
    n_boot: int | None = None,
    seed: int = 0,
    backend: str = "hf",
    device: str | None = None,
    batch_size: int | str = 1,
    prefix_cache: bool = False,
    on_progress: ProgressCallback | None = None,
    measurement=None,
    allow_unsafe_code: bool = False,
) -> MeasureResult:
    """Evaluate ``models`` on ``suite`` and place them on the density chart (module docstring) → :class:`MeasureResult`.

    ``models``: a models file or a list of model specs / mappings (as ``densing eval``). ``limit``: at most N items per
    task (the standard errors and the intervals are those of N items). ``store``: the results store, a folder (a rerun
    reuses its pairs; default :func:`densing.paths.default_store`, ``$XDG_CACHE_HOME/densing/store`` or
    ``~/.cache/densing/store``). ``results``: the target table (default the suite's, :data:`densing.eval.benchmarks.SUITE_TABLES`: the
    shipped ``results/public_models.csv`` for the leaderboard suites); ``n_boot`` and
    ``seed``: the headline's draws (default the CLI's). ``measurement``: a headline
    :class:`~densing.trend.measurement.TrendMeasurement` already computed on that table, to reuse.
    ``on_progress(line)``: progress in words. ``backend``: any name in lm-eval's model registry, as ``densing eval
    --backend`` (``densing-hf``: densing's prefix engine; ``prefix_cache=True`` is its deprecated spelling).
    ``allow_unsafe_code``: run benchmarks that execute model-written code
    (HumanEval), as ``densing eval --allow-unsafe-code``.
    """
    from densing.eval.runner import run_sweep
    from densing.trend.constants import DEFAULT_N_BOOT
    from densing.trend.measure import HEADLINE_RULE, measure_trend

    say = on_progress or (lambda line: None)
    if store is None:
        from densing.paths import default_store

        store = default_store()
    checked = plan(models, suite, limit=limit, local_data=local_data, data_root=data_root, backend=backend, device=device,
                   store=store)

    def progress(model: str, benchmark: str, status: str) -> None:
        say(f"{model} / {benchmark}: " + {"skipped": "in the store, reused", "running": "evaluating …"}.get(status, status))

    rows = run_sweep(list(checked.specs), list(checked.benchmarks), store, backend=backend, limit=checked.limit,
                     device=device, batch_size=batch_size, on_progress=progress, local_data=local_data,
                     data_root=checked.data_root, prefix_cache=prefix_cache, allow_unsafe_code=allow_unsafe_code,
                     check_source=check_offline_source)
    scores = public_scores(rows, checked.specs)
    if measurement is None:
        from densing.data import read_results
        from densing.eval.benchmarks import suite_table

        draws = DEFAULT_N_BOOT if n_boot is None else n_boot
        say(f"measuring the headline trend on the suite's target table ({draws} draws) …")
        from densing.trend.tables import for_path

        path = results or suite_table(checked.suite)
        measurement = measure_trend(read_results(path), n_boot=draws, seed=seed, table=for_path(path))
    line = measurement.rules[HEADLINE_RULE]
    placed = place_models(scores, measurement.inversion, line, seed=seed)
    return MeasureResult(
        suite=checked.suite, limit=checked.limit, reference=measurement.inversion.name,
        inverted_benchmarks=tuple(b for b in measurement.inversion.benchmarks if b in set(scores["benchmark"])),
        frontier_rule=HEADLINE_RULE, slope_per_day=line.slope_per_day, intercept=line.intercept, epoch=line.epoch,
        left_out=checked.left_out, models=placed, scores=scores, measurement=measurement,
    )
