"""The jobs of one trend measurement, declared: what each computes, from what, under which variant of the fits.

Every row of ``densing trend`` — each benchmark, each set, and the sensitivity rows of the headline set (every
family law logistic in ln N; every reference brought to D0 = 1T) — is one :class:`RowJob`: the same function
(:func:`densing.trend.capability.trend_row`) on one :class:`Variant` of the references' fits. The fits of a variant
other than the default are a :class:`FitsJob` its rows wait for. The headline adds its frontier rules, checks and
breakpoint (:class:`HeadlineJob`, :func:`densing.trend.headline.measure_headline`); the fixed-size estimator
needs no reference (:class:`FixedSizeJob`). :func:`plan` lists the jobs of a :class:`Context`;
:func:`run` computes them, one process per core, and returns each result by its job's key (it also lays out the
report's sections, :func:`densing.report.render.render`; :class:`Beside` runs one computation beside the caller's).

A job is a typed value with a ``key``, the keys it ``needs`` and ``run(context,
needed)``. :func:`run` forks one worker per core (``concurrent.futures`` with the ``fork`` start method: the
workers inherit the context, which is never pickled), starts every job whose needs are met in the order given,
passes each job the results it needs, and returns every result by key. Where there is one core, no ``fork`` or
``DENSING_SERIAL`` is set, the jobs run here in the same order; a job's result depends only on its fields, the
context and what it needs, so the numbers are the same either way.

The executor owns its processes: they end when :func:`run` returns or leaves by an exception (an error, Ctrl-C,
``SIGTERM`` turned into :class:`densing.runtime.Terminated`), and a worker dies with this process
(:func:`densing.runtime.worker_setup`). A worker that dies (out of memory, killed) costs time, not the result: the jobs
it left are computed here.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import pandas as pd

from densing import runtime
from densing.laws import eligibility
from densing.numbers import format_count
from densing.registry import TrendTable
from densing.trend import capability


@dataclass(frozen=True)
class Variant:
    """Which family fits a row's references use: the family law's shape (``power``, the default, or
    ``logistic_ln_n``) and the budget ``d0`` every reference is brought to (None: each family at its own budget,
    :func:`densing.trend.capability.budget_fits` otherwise)."""

    shape: str = "power"
    d0: float | None = None

    @property
    def key(self) -> str:
        """The key of the :class:`FitsJob` that fits this variant ("" for the default: the context's fits)."""
        if self == DEFAULT:
            return ""
        return "fits:" + ("shape" if self.d0 is None else f"budget@{self.d0:g}")

    def label(self, label: str) -> str:
        """A row's label under this variant."""
        if self.d0 is not None:
            return f"{label} at D0 = {format_count(self.d0)}"
        return label if self.shape == DEFAULT.shape else f"{label}, family law logistic in ln N"

    def row_key(self, name: str) -> str:
        """A row's key under this variant (its name for the default)."""
        if self == DEFAULT:
            return name
        return ("budget:" if self.d0 is not None else "shape:") + name


DEFAULT = Variant()
LOGISTIC = Variant(shape="logistic_ln_n")
BUDGET = Variant(d0=capability.BUDGET_D0)


@dataclass
class Context:
    """What every job reads: the checked target table, rule v3's candidates and eligible fits, the options.

    ``fits`` grows as rows fit a set's references on benchmarks they are not eligible on alone (one fit per
    family and benchmark, the same seed: the same fit wherever it is made); ``eligible`` is the eligible fits as
    they were before any row ran (the budget variant refits those)."""

    targets: pd.DataFrame
    candidates: pd.DataFrame
    fits: dict
    profile: TrendTable
    since: str | None
    epoch: str
    seed: int
    n_boot: int
    n_boot_side: int
    fit: object = None       # the user's ReferenceFit (--fit), None for rule v3's references
    d0: float | None = None  # the D0 of the user's fit
    #: what the caller asks for: "all" (every row, the report's and the notebook's measurement) or "headline" (the
    #: headline with its sensitivity rows: what ``densing trend`` prints); :func:`plan` makes those jobs only
    scope: str = "all"
    eligible: dict = field(init=False)

    def __post_init__(self) -> None:
        self.eligible = dict(self.fits)


@dataclass(frozen=True)
class FitsJob:
    """The candidates, fits and notes of one :class:`Variant`: rule v3's candidate table under another law shape
    (its fits made by the rows that need them), or the eligible fits of the budget benchmarks refitted at one D0.

    ``benchmarks`` (the other shape's job only): its rows' benchmarks, in the table's candidate order; its candidate
    table has rows for these only (rule v3 judges each benchmark on its own families and pooled dispersion, so a
    benchmark's rows are the same numbers in a table of fewer benchmarks). The budget variant refits the eligible fits
    of the table's budget benchmarks."""

    variant: Variant
    benchmarks: tuple[str, ...] = ()
    needs: tuple = ()

    @property
    def key(self) -> str:
        return self.variant.key

    def run(self, c: Context, needed: dict) -> tuple[pd.DataFrame, dict, dict]:
        if self.variant.d0 is not None:
            wanted = {k: f for k, f in c.eligible.items() if k[1] in c.profile.budget_benchmarks}
            fits, notes = capability.budget_fits(c.targets, wanted, d0=self.variant.d0, seed=c.seed)
            return c.candidates, fits, notes
        candidates = eligibility.candidate_table(c.targets, since=c.since, composed=None, rule=eligibility.DEFAULT_RULE,
                                                 shape=self.variant.shape, benchmarks=self.benchmarks)
        return candidates, {}, {}


@dataclass(frozen=True)
class RowJob:
    """One row: a benchmark or a set, its references under ``variant``, its pooled trend over the headline's number of
    draws (an end of a row's interval is determined only where the draws pin it: densing.trend.design, step 5)
    (:func:`densing.trend.capability.trend_row`)."""

    name: str
    label: str
    capability: str
    benchmarks: tuple[str, ...]
    variant: Variant = DEFAULT

    @property
    def key(self) -> str:
        return self.variant.row_key(self.name)

    @property
    def needs(self) -> tuple[str, ...]:
        return (self.variant.key,) if self.variant.key else ()

    def run(self, c: Context, needed: dict) -> capability.Row:
        candidates, fits = (c.candidates, c.fits) if not self.needs else needed[self.variant.key][:2]
        return capability.trend_row(self.name, self.variant.label(self.label), self.capability, self.benchmarks,
                                    c.targets, candidates, fits, since=c.since, epoch=c.epoch, n_boot=c.n_boot,
                                    n_boot_share=0, seed=c.seed)


@dataclass(frozen=True)
class HeadlineJob:
    """The headline row with its frontier rules, checks, breakpoint and densities."""

    key: str = "headline"
    needs: tuple = ()

    def run(self, c: Context, needed: dict):
        from densing.trend.headline import measure_headline

        return measure_headline(c)


@dataclass(frozen=True)
class FixedSizeJob:
    """The second estimator: the fixed-size time regression on the same table (:mod:`densing.trend.fixed_size`)."""

    key: str = "fixed_size"
    needs: tuple = ()

    def run(self, c: Context, needed: dict) -> pd.DataFrame:
        from densing.trend.fixed_size import fixed_size_rows

        return fixed_size_rows(c.targets, c.profile, since=c.since, epoch=c.epoch, n_boot=c.n_boot_side, seed=c.seed)


def plan(c: Context) -> list:
    """The jobs the caller asks for (``c.scope``), the longest first (an executor starts them in this order): the
    headline, the variants' fits (the rows of a variant wait for them), the fixed-size estimator, the sets, the
    benchmarks, the sensitivity rows; for ``scope="headline"`` the headline and its own sensitivity rows only (the
    headline set under the other law shape and at one budget, with the fits they need)."""
    present = set(c.targets["benchmark"].astype(str))
    headline = c.profile.headline_set if c.fit is None else None  # a given fit: the table's headline set is a row
    sets = [RowJob(name, label, "set", benchmarks) for name, (label, benchmarks) in c.profile.sets.items()
            if name != headline]
    singles = [RowJob(b, b, capability.CAPABILITY[b], (b,)) for b in capability.row_benchmarks() if b in present]
    budget = [RowJob(b, b, capability.CAPABILITY[b], (b,), BUDGET) for b in c.profile.budget_benchmarks if b in present]
    budget += [RowJob(name, c.profile.sets[name][0], "set", c.profile.sets[name][1], BUDGET)
               for name in c.profile.budget_sets]
    shape = [] if headline is None else [RowJob(headline, c.profile.sets[headline][0], "set", c.profile.sets[headline][1],
                                                LOGISTIC)]
    read = {b for job in shape for b in job.benchmarks}  # what the other shape's candidate table is needed for
    fits = [FitsJob(LOGISTIC, tuple(b for b in c.profile.candidates if b in read) or c.profile.candidates)] if shape else []
    if c.scope == "headline":
        budget = [job for job in budget if job.name == headline]
    fits += [FitsJob(BUDGET)] if budget else []
    if c.scope == "headline":
        return [HeadlineJob(), *fits, *shape, *budget]
    return [HeadlineJob(), *fits, FixedSizeJob(), *sets, *singles, *shape, *budget]

# --------------------------------------------------------------------------------------------------------------------
# Computing the jobs: one process per core, or here
# --------------------------------------------------------------------------------------------------------------------

#: The context of the :func:`run` in progress; forked workers inherit it.
_context = None


def _workers(jobs: int) -> int:
    """How many processes :func:`run` forks for ``jobs`` jobs: one per core, at most one per job; 0 for none."""
    cores = os.cpu_count() or 1
    if cores < 2 or jobs < 2 or not hasattr(os, "fork") or os.environ.get("DENSING_SERIAL"):
        return 0
    return min(cores, jobs)


def _run_one(job, needed: dict):
    """One job in a worker (module level: the pool pickles it by name), the per-table memo kept across its jobs."""
    from densing.runtime import same_tables

    with same_tables():
        return job.run(_context, needed)


def run(jobs: list, context) -> dict:
    """Every job's result by its key (module docstring)."""
    global _context
    count = _workers(len(jobs))
    if not count:
        return _here(jobs, context, {})
    from densing.runtime import end_pool, fork_context, process_pool

    _context = context
    try:
        pool = process_pool(count, fork_context("fork"))
    except (OSError, ValueError):
        _context = None
        return _here(jobs, context, {})
    try:
        with runtime.frozen_heap():  # the workers are forked at the first submit
            done = _in_pool(pool, jobs)
    except BaseException:
        end_pool(pool)
        raise
    finally:
        _context = None
    pool.shutdown(wait=True)
    return done if len(done) == len(jobs) else _here(jobs, context, done)


def _in_pool(pool, jobs: list) -> dict:
    """The results of ``jobs`` computed by ``pool``; where a worker dies, those finished so far."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    from densing.runtime import end_pool

    done: dict = {}
    waiting, running = list(jobs), {}
    while waiting or running:
        for job in [j for j in waiting if all(n in done for n in j.needs)]:
            waiting.remove(job)
            running[pool.submit(_run_one, job, {n: done[n] for n in job.needs})] = job
        finished, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in finished:
            job = running.pop(future)
            try:
                done[job.key] = future.result()
            except BrokenProcessPool:  # a worker died: the rest is computed here
                end_pool(pool)
                return done
    return done


def _here(jobs: list, context, done: dict) -> dict:
    """The jobs not in ``done`` computed in this process, in order (each job after those it needs)."""
    done = dict(done)
    for job in jobs:
        if job.key not in done:
            done[job.key] = job.run(context, {n: done[n] for n in job.needs})
    return done


class Beside:
    """One computation, ``function(**arguments)``, in one forked worker while the caller goes on (the report's OLMES
    design); :meth:`result` takes it, or computes it here where there was no worker or it died. A ``with`` block
    owns the worker: it ends when the block is left, on every path."""

    def __init__(self, function, arguments: dict) -> None:
        self.function, self.arguments, self._pool, self._future = function, arguments, None, None

    def __enter__(self) -> Beside:
        if _workers(2):
            from densing.runtime import fork_context, process_pool

            try:
                self._pool = process_pool(1, fork_context("fork"))
                with runtime.frozen_heap():  # the worker is forked at the submit
                    self._future = self._pool.submit(self.function, **self.arguments)
            except (OSError, ValueError):
                self._pool = None
        return self

    def result(self):
        if self._future is not None:
            from concurrent.futures.process import BrokenProcessPool

            try:
                return self._future.result()
            except BrokenProcessPool:
                pass
        return self.function(**self.arguments)

    def __exit__(self, kind, value, traceback) -> None:
        if self._pool is not None:
            from densing.runtime import end_pool

            if kind is None:
                self._pool.shutdown(wait=True)
            else:
                end_pool(self._pool)
            self._pool = None
