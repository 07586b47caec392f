"""Your models on the density chart: ``densing measure`` and :func:`measure` (``densing.measure``), in the steps
docs/measure.md says in full: inputs checked (:func:`plan`), evaluated (:func:`densing.eval.runner.run_sweep`),
scored as the public table (:func:`public_scores`), then inverted and placed (:mod:`densing.placement.place`).
"""

from __future__ import annotations

import datetime as _datetime
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from densing.errors import EvalError, InputError
from densing.placement.place import DateSource, line_dates, place_models
from densing.registry import Target, TrendTable, given_or_resolved
from densing.results import Result, displayed_text


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) asks for no Hub access."""
    return any(
        os.environ.get(name, "").strip().lower() in {"1", "on", "yes", "true"}
        for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


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
        raise EvalError(
            f"model {spec.name!r}: {spec.model}: no local copy of {wanted} and HF_HUB_OFFLINE is set "
            "(download it first, or give a local path)"
        )


@dataclass(frozen=True)
class Plan:
    """What :func:`measure` will run, every input checked."""

    specs: tuple
    suite: str
    benchmarks: tuple[str, ...]
    left_out: tuple[str, ...]
    limit: float | None
    data_root: Path | None
    target: Target | None = None  # the table placed against (:func:`densing.registry.resolve_table`)


def plan(
    models,
    suite: str,
    *,
    limit: float | None = None,
    local_data: bool = False,
    data_root: str | Path | None = None,
    backend: str = "hf",
    device: str | None = None,
    store: str | Path | None = None,
    results: str | Path | None = None,
    table: str | TrendTable | None = None,
    target: Target | None = None,
) -> Plan:
    """Check every input of :func:`measure` (docs/measure.md, step 1) without evaluating anything; a model stored for
    every benchmark of the suite has its source checked by the sweep instead (it need not be installed).
    ``results``, ``table``: the target table (:func:`densing.registry.resolve_table`; neither: the suite's);
    ``target``: that table resolved already, as a command hands it down."""
    from densing.eval.benchmarks import PUBLIC_TABLE_BENCHMARKS, suite_benchmarks, suite_table
    from densing.eval.loading import SWEEP_CONSTRAINTS
    from densing.eval.runner import as_model_specs, sweep_data_root
    from densing.eval.store import part_path
    from densing.paths import RESULTS
    from densing.validation import validate

    if not isinstance(models, (str, Path, list, tuple)):
        raise InputError(f"models: expected a models file or a list of model specs, got {models!r}")
    if isinstance(models, (str, Path)) and not Path(models).is_file():
        raise InputError(f"{models}: no such models file")
    specs = as_model_specs(models)
    if not isinstance(suite, str):
        raise InputError(f"suite: expected a suite name, got {suite!r}")
    suite = suite.strip()
    names, left_out = suite_benchmarks(suite, local_data=local_data)
    validate({k: SWEEP_CONSTRAINTS[k] for k in ("limit", "device")}, limit=limit, device=device)
    for spec in specs:  # before the backend's name, which imports lm-eval (seconds) to read its registry
        if store is None or not all(part_path(store, spec.name, name).is_file() for name in names):
            check_offline_source(spec)
    validate({"backend": SWEEP_CONSTRAINTS["backend"]}, backend=backend)
    root = sweep_data_root(names, local_data, data_root)  # the local splits' folder, checked; None from the Hub
    suites_own = target is None and results is None and table is None  # nothing names the table: the suite's
    target = given_or_resolved(target, suite_table(suite) if suites_own else results, table)
    # a suite of another table than the public one (SUITE_TABLES) needs that table shipped
    if not target.path.is_file():
        shown = (
            f"results/{target.path.relative_to(RESULTS).as_posix()}"
            if target.path.is_relative_to(RESULTS)
            else str(target.path)
        )
        if suites_own:
            named = f"--suite {suite}: its"
        elif results:
            named = "results:"
        else:
            named = "--table:"
        raise InputError(
            f"{named} target table {shown} is not {'shipped' if results is None else 'there'}, so there is "
            "no table to place the models against"
        )
    # the headline is measured on the first benchmark set that the reference rule gives a reference (the table's sets)
    inverted = {b for _, members in target.table.sets.values() for b in members}
    if not inverted & {PUBLIC_TABLE_BENCHMARKS[b] for b in names}:
        raise InputError(
            f"--suite {suite}: none of its benchmarks ({', '.join(names)}) is in a benchmark set the "
            f"headline is measured on ({', '.join(sorted(inverted))}: {target.table.words}), so no "
            "score could be inverted"
        )
    return Plan(
        tuple(specs), suite, tuple(names), tuple(left_out), None if limit is None else float(limit), root, target
    )


def binomial_items_stderr(score, items) -> np.ndarray:
    """√(p(1 − p)/n), p the score held in [0.5/n, 1 − 0.5/n] (docs/measure.md, step 3): 0 or 1 keeps half an item."""
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
            raise EvalError(
                f"{model} / {bench}: the store has no {metric!r} row (metrics: {', '.join(group['metric'])})"
            )
        row = chosen.iloc[0]
        spec = by_name.get(model)
        dated = spec is not None and spec.release_date is not None
        items = float(row["items"])
        out.append(
            {
                "model": model,
                "benchmark": PUBLIC_TABLE_BENCHMARKS[bench],
                "metric": "score",
                "value": float(row["value"]),
                "stderr": float(binomial_items_stderr(row["value"], items)),
                "items": int(items),
                "params": float(row["params"]),
                "release_date": spec.release_date if dated else today,
                "release_date_source": (DateSource.MODELS_FILE if dated else DateSource.TODAY).value,
                "family": (spec.family if spec is not None and spec.family else model),
                "suite_benchmark": bench,
            }
        )
    return pd.DataFrame(out)


@dataclass(frozen=True)
class MeasureResult(Result):
    """What :func:`measure` returns: the models placed against the headline, a row each (``to_frame()``: the columns of
    :func:`place_models`), the suite's ``scores`` under the public table's names, the headline (``measurement``)."""

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

    def benchmarks_of(self, model: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(inverted, missing): the headline's benchmarks ``model`` has a score on, and those it has none on."""
        have = set(self.scores.loc[self.scores["model"].astype(str) == str(model), "benchmark"].astype(str))
        every = self.measurement.inversion.benchmarks if self.measurement is not None else self.inverted_benchmarks
        return tuple(b for b in every if b in have), tuple(b for b in every if b not in have)

    def to_dict(self) -> dict:
        rows = self.models.astype(object).where(self.models.notna(), None).to_dict("records")
        return {**super().to_dict(), "models": rows}

    def __str__(self) -> str:
        """The placement in words, as the installed display writes it (:func:`densing.results.displayed_text`)."""
        return displayed_text(self)


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
    table: str | TrendTable | None = None,
    target: Target | None = None,
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
    """Evaluate ``models`` on ``suite`` and place them on the density chart → :class:`MeasureResult`.

    ``models``: a models file or a list of specs, as ``densing eval``; ``limit``: at most N items per task; ``store``:
    the results store (default :func:`densing.paths.default_store`); ``results``, ``table``: the target table
    (:func:`densing.registry.resolve_table`; neither: the suite's; ``table="openllm_v2"``: the Open LLM Leaderboard
    v2's); ``target``: that table resolved already, as a command hands it down; ``n_boot``, ``seed``: the headline's
    draws (default the CLI's); ``measurement``: a headline already measured on that table; ``on_progress(line)``: progress in words; the rest as ``densing eval``'s options."""
    from densing.eval.runner import run_sweep
    from densing.paths import default_store

    check_draws(n_boot, seed)
    say = on_progress or (lambda line: None)
    store = default_store() if store is None else store
    checked = plan(
        models,
        suite,
        limit=limit,
        local_data=local_data,
        data_root=data_root,
        backend=backend,
        device=device,
        store=store,
        results=results,
        table=table,
        target=target,
    )
    words = {"skipped": "in the store, reused", "loading": "loading the model …", "running": "evaluating …"}
    rows = run_sweep(
        list(checked.specs),
        list(checked.benchmarks),
        store,
        backend=backend,
        limit=checked.limit,
        device=device,
        batch_size=batch_size,
        local_data=local_data,
        data_root=checked.data_root,
        on_progress=lambda model, bench, status: say(f"{model} / {bench}: " + words.get(status, status)),
        prefix_cache=prefix_cache,
        allow_unsafe_code=allow_unsafe_code,
        check_source=check_offline_source,
    )
    scores = public_scores(rows, checked.specs)
    return place_against(
        checked.target,
        scores,
        measurement,
        n_boot=n_boot,
        seed=seed,
        say=say,
        suite=checked.suite,
        limit=checked.limit,
        left_out=checked.left_out,
    )


def check_draws(n_boot, seed) -> None:
    """The headline's draws (None: the CLI's default; else :data:`~densing.validation.INTERVAL_DRAWS`) and a seed ≥ 0,
    as the command line takes them; an InputError in one line else."""
    from densing.validation import BOOTSTRAP_CONSTRAINTS, INTERVAL_DRAWS, validate

    validate({"n_boot": [INTERVAL_DRAWS, None], "seed": BOOTSTRAP_CONSTRAINTS["seed"]}, n_boot=n_boot, seed=seed)


def place_against(
    target: Target,
    scores: pd.DataFrame,
    measurement,
    *,
    n_boot: int | None,
    seed: int,
    suite: str,
    say: ProgressCallback | None = None,
    **fields,
) -> MeasureResult:
    """``scores``' models placed against the headline of ``target``, the table its caller resolved
    (:func:`densing.registry.resolve_table`): ``measurement``, or one measured with ``n_boot`` draws; a
    :class:`MeasureResult` of ``suite`` with ``fields``."""
    from densing import registry
    from densing.constants import DEFAULT_N_BOOT
    from densing.data import read_results
    from densing.trend.measure import HEADLINE_RULE, measure_trend

    profile, path = target
    name = getattr(measurement, "table_name", None)  # TrendMeasurement.table_name: the registered table measured
    if measurement is not None and isinstance(name, str) and name != profile.name:
        measured = registry.tables().get(name, None)  # the message names both tables by their registered words
        on = (name or "no registered table") if measured is None else measured.words
        raise InputError(
            f"measurement: a headline measured on {on}, not on {profile.words}, the table the scores are placed "
            "against; give that table's measurement, or none"
        )

    if measurement is None:
        draws = DEFAULT_N_BOOT if n_boot is None else n_boot
        if say is not None:
            say(f"measuring the headline trend on the suite's target table ({draws} draws) …")
        measurement = measure_trend(read_results(path), n_boot=draws, seed=seed, table=profile)
    elif getattr(measurement, "densities", None) is None:  # the models are inverted beside the table's own
        raise InputError(
            "measurement: measured without its 'densities' section, which placing needs (your models are "
            "inverted beside the table's own); give densing.measure_trend(table) or one with 'densities' "
            "among its sections, or no measurement"
        )
    rows = read_results(path)
    population = rows[rows["model"].isin(set(measurement.densities["model"]))]
    line = measurement.rules[HEADLINE_RULE]
    placed = place_models(
        scores,
        measurement.inversion,
        line,
        seed=seed,
        span=line_dates(measurement, HEADLINE_RULE),
        population=population,
    )
    return MeasureResult(
        suite=suite,
        reference=measurement.inversion.name,
        inverted_benchmarks=tuple(b for b in measurement.inversion.benchmarks if b in set(scores["benchmark"])),
        frontier_rule=HEADLINE_RULE,
        slope_per_day=line.slope_per_day,
        intercept=line.intercept,
        epoch=line.epoch,
        slope_ci_low=getattr(line, "slope_ci_low", math.nan),
        slope_ci_high=getattr(line, "slope_ci_high", math.nan),
        models=placed,
        scores=scores,
        measurement=measurement,
        **fields,
    )
