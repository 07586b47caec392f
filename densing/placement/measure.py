"""Your models on the density chart: ``densing measure`` and :func:`measure` (``densing.measure``).

A user's models are evaluated on a public protocol (``--suite leaderboard-v1``, ``leaderboard-v2`` or
``swallow-en``, :data:`densing.eval.benchmarks.SUITES`) through the eval runner and its store, and placed against
the headline measurement of ``densing trend`` (:func:`densing.trend.measure.measure_trend` on the suite's target
table, :data:`densing.eval.benchmarks.SUITE_TABLES`: the shipped public table for the leaderboard suites, the
Swallow LLM Leaderboard's table ``results/swallow/swallow_2025-06.csv`` for ``swallow-en``).

The steps, each said in full in docs/measure.md: (1) every input checked before any evaluation; (2) the evaluation
through :func:`densing.eval.runner.run_sweep` into a store (a rerun reuses it); (3) each suite benchmark's headline
metric as the public table's benchmark (:data:`densing.eval.benchmarks.PUBLIC_TABLE_BENCHMARKS`), with the binomial
standard error of the items actually scored; (4) the headline's own inversion; (5) the model against the headline
rule's frontier line ln ρmax = A·t + B at its release date. A density is a bound by the one rule of
:func:`densing.display.density_reading`.

The steps live in :mod:`densing.placement.plan` (1), :mod:`densing.placement.scores` (3) and
:mod:`densing.placement.place` (4, 5); this module holds the result and the entry point.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import pandas as pd

from densing.numbers import format_number
from densing.placement.place import ABOVE, BELOW, CHANCE_STDERRS, UNDETERMINED, line_dates, place_models
from densing.placement.plan import Plan, check_offline_source, hub_offline, plan
from densing.placement.scores import binomial_items_stderr, public_scores
from densing.results import Result

if TYPE_CHECKING:
    from densing.present.summary import Summary

__all__ = ["ABOVE", "BELOW", "CHANCE_STDERRS", "UNDETERMINED", "MeasureResult", "Plan", "binomial_items_stderr",
           "check_offline_source", "hub_offline", "measure", "place_models", "plan", "public_scores"]


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
    #: the slope A's 95% interval (the headline rule's), so the line's A never stands without it
    slope_ci_low: float = math.nan
    slope_ci_high: float = math.nan
    #: False where the scores were given (:func:`densing.placement.own_scores.place`), not evaluated on ``suite``
    evaluated: bool = True
    models: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    scores: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    measurement: object = field(repr=False, default=None)

    _dict_exclude = ("models", "scores", "measurement")
    _ci_estimates = {"slope": "slope_per_day"}

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
        if not self.evaluated:
            return self.suite
        limit = "the full splits" if self.limit is None else f"at most {self.limit:g} items per task (--limit)"
        return f"{self.suite} on {limit}"

    def summary(self) -> Summary:
        """The placement in words, one paragraph per model."""
        lines = [f"{self.protocol()}; inverted on {', '.join(self.inverted_benchmarks)} through {self.reference}, "
                 f"the headline's reference; frontier: the {self.frontier_rule} line ln ρmax = A·t + B."]
        if self.left_out:
            lines.append(f"Left out (no local split): {', '.join(self.left_out)}.")
        for r in self.models.to_dict("records"):
            scores = ", ".join(f"{k.removeprefix('score:')} {format_number(v)}{_items(r.get('items:' + k.removeprefix('score:')))}"
                               for k, v in r.items() if k.startswith("score:") and not pd.isna(v))
            lines.append(f"{r['model']}: {scores}. {r['words']}.")
        from densing.present.summary import Summary

        return Summary(lines[0], lines=tuple(lines[1:]))

    def __str__(self) -> str:
        return str(self.summary())


def _items(count) -> str:
    """`` (n items)`` where the scores say how many items were scored, else nothing."""
    return "" if count is None or pd.isna(count) else f" ({int(count)} items)"


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
    from densing.paths import default_store

    say = on_progress or (lambda line: None)
    store = default_store() if store is None else store
    checked = plan(models, suite, limit=limit, local_data=local_data, data_root=data_root, backend=backend, device=device,
                   store=store)
    rows = run_sweep(list(checked.specs), list(checked.benchmarks), store, backend=backend, limit=checked.limit,
                     device=device, batch_size=batch_size, on_progress=_pair_progress(say), local_data=local_data,
                     data_root=checked.data_root, prefix_cache=prefix_cache, allow_unsafe_code=allow_unsafe_code,
                     check_source=check_offline_source)
    scores = public_scores(rows, checked.specs)
    if measurement is None:
        measurement = _headline(checked.suite, results, n_boot, seed, say)
    return place_against(measurement, scores, _population(checked.suite, results, measurement), seed=seed,
                         suite=checked.suite, limit=checked.limit, left_out=checked.left_out)


def place_against(measurement, scores: pd.DataFrame, population: pd.DataFrame | None, *, seed: int, suite: str,
                  **fields) -> MeasureResult:
    """``scores``' models placed against ``measurement``'s headline line (:func:`place_models`, inverted beside
    ``population``) as a :class:`MeasureResult` of ``suite``; ``fields``: its other fields."""
    from densing.trend.measure import HEADLINE_RULE

    line = measurement.rules[HEADLINE_RULE]
    placed = place_models(scores, measurement.inversion, line, seed=seed, span=line_dates(measurement, HEADLINE_RULE),
                          population=population)
    return MeasureResult(
        suite=suite, reference=measurement.inversion.name,
        inverted_benchmarks=tuple(b for b in measurement.inversion.benchmarks if b in set(scores["benchmark"])),
        frontier_rule=HEADLINE_RULE, slope_per_day=line.slope_per_day, intercept=line.intercept, epoch=line.epoch,
        slope_ci_low=getattr(line, "slope_ci_low", math.nan), slope_ci_high=getattr(line, "slope_ci_high", math.nan),
        models=placed, scores=scores, measurement=measurement, **fields)


def _pair_progress(say: ProgressCallback):
    """The sweep's progress (model, benchmark, status) as a line of words for ``say``."""
    def progress(model: str, benchmark: str, status: str) -> None:
        say(f"{model} / {benchmark}: " + {"skipped": "in the store, reused", "running": "evaluating …"}.get(status, status))

    return progress


def _population(suite: str, results, measurement) -> pd.DataFrame | None:
    """The score rows of the models the headline inverts (:func:`place_models`' ``population``), from the suite's
    target table (or ``results``)."""
    from densing.data import read_results
    from densing.eval.benchmarks import suite_table

    densities = getattr(measurement, "densities", None)
    if densities is None:  # a measurement that keeps no per-model densities: the models are inverted alone
        return None
    table = read_results(results or suite_table(suite))
    return table[table["model"].isin(set(densities["model"]))]


def _headline(suite: str, results, n_boot: int | None, seed: int, say: ProgressCallback):
    """The headline measurement of ``densing trend`` on the suite's target table (or ``results``)."""
    from densing.constants import DEFAULT_N_BOOT
    from densing.data import read_results
    from densing.eval.benchmarks import suite_table
    from densing.registry import table_for_path as for_path
    from densing.trend.measure import measure_trend

    draws = DEFAULT_N_BOOT if n_boot is None else n_boot
    say(f"measuring the headline trend on the suite's target table ({draws} draws) …")
    path = results or suite_table(suite)
    return measure_trend(read_results(path), n_boot=draws, seed=seed, table=for_path(path))
