"""The job executor (:func:`run`): one process per core, or here (one core or job, no ``fork``, ``DENSING_SERIAL``
set), the same numbers either way; a job has a ``key``, the keys it ``needs`` and ``run(context, needed)``
(docs/extending.md). :class:`Beside` runs one function in a forked worker meanwhile.
"""

from __future__ import annotations

import contextlib
import os
from typing import Self

from densing.runtime.memo import same_tables
from densing.runtime.processes import close_pool, end_pool, fork_context, process_pool
from densing.runtime.progress import job_finished
from densing.runtime.threads import frozen_heap

#: The context of the :func:`run` in progress; forked workers inherit it.
_context = None


def _workers(jobs: int) -> int:
    """How many processes compute ``jobs`` jobs, this one among them: one per core and job; 0 where it forks none."""
    cores = os.cpu_count() or 1
    serial = cores < 2 or jobs < 2 or not hasattr(os, "fork") or os.environ.get("DENSING_SERIAL")
    return 0 if serial else min(cores, jobs)


#: :func:`_run_one`'s context where it is not given: the one the worker inherited (:data:`_context`).
_INHERITED = object()

#: In a worker of a pool of one: the results it was sent or computed that a later job needs, by key.
_kept: dict = {}


def _run_one(job, needed: dict, context=_INHERITED, keep: bool = False):
    """One job in a worker (the context the one it inherited; a result it needs and was not sent is one kept before;
    ``keep``: keep this one's too) or here (``context`` given), in a memo (:func:`same_tables`)."""
    if context is _INHERITED:
        _kept.update(needed)
        needed = {n: _kept[n] for n in job.needs}
    with same_tables():
        value = job.run(_context if context is _INHERITED else context, needed)
    if keep:
        _kept[job.key] = value
    return value


def run(jobs: list, context) -> dict:
    """Every job's result by its key (the job executor: module docstring)."""
    global _context
    count = _workers(len(jobs))
    if not count:
        return _here(jobs, context, {})
    _context = context
    try:
        pool = process_pool(count - 1, fork_context("fork"))
    except (OSError, ValueError):
        _context = None
        return _here(jobs, context, {})
    try:
        with frozen_heap():  # the workers are forked at the first submit
            done = _beside_pool(pool, jobs, context, count - 1)
    except BaseException:
        end_pool(pool)
        raise
    finally:
        _context = None
    close_pool(pool)
    return done if len(done) == len(jobs) else _here(jobs, context, done)


def _beside_pool(pool, jobs: list, context, workers: int) -> dict:
    """The results of ``jobs``, computed by ``pool`` (``workers`` processes) and by this process beside it
    (:class:`_Board`); the jobs a dead worker held are computed here."""
    board = _Board(pool, jobs, workers)
    with board.turn:
        board.feed()
    while (taken := board.next_here()) is not None:  # (job, what it needs)
        board.finished(taken[0], _run_one(*taken, context))  # as a worker computes it
    if board.broken:
        end_pool(pool)
    return board.done


class _Board:
    """The jobs of one :func:`run` (waiting, held by workers, done), shared under ``turn`` with the pool's thread; a
    pool of one worker is sent each needed result once and keeps those a later job needs (:data:`_kept`, ``there``)."""

    def __init__(self, pool, jobs: list, workers: int) -> None:
        import threading

        self.pool, self.workers = pool, workers
        self.waiting = list(jobs)
        self.done, self.held, self.errors, self.broken = {}, {}, [], False  # held: future → the job a worker computes
        self.turn = threading.Condition(threading.RLock())  # the callback may run at once, in the thread that adds it
        self.needs = {n for job in jobs for n in job.needs}
        self.there: set = set()
        self.total = len(jobs)

    def ready(self):
        """The first waiting job whose needs are met, taken off the list (under ``turn``)."""
        job = next((job for job in self.waiting if all(n in self.done for n in job.needs)), None)
        if job is not None:
            self.waiting.remove(job)
        return job

    def feed(self) -> None:
        """A job for each idle worker (under ``turn``)."""
        from concurrent.futures.process import BrokenProcessPool

        while not self.broken and not self.errors and len(self.held) < self.workers:
            if (job := self.ready()) is None:
                return
            keep = self.workers == 1 and job.key in self.needs
            try:
                future = self.pool.submit(
                    _run_one, job, {n: self.done[n] for n in job.needs if n not in self.there}, keep=keep
                )
            except (BrokenProcessPool, RuntimeError):
                self.lost(job)
                return
            if self.workers == 1:  # its next job is sent after this one's result arrives
                self.there.update(job.needs, (job.key,) if keep else ())
            self.held[future] = job
            future.add_done_callback(self.landed)

    def lost(self, job) -> None:
        """The pool broke: ``job`` and every job the workers held go back to the front of the list, computed here."""
        self.broken = True
        self.waiting[:0] = [job, *self.held.values()]
        self.held.clear()

    def landed(self, future) -> None:
        """A worker's result (the pool's callback): kept, and its next job sent."""
        from concurrent.futures.process import BrokenProcessPool

        with self.turn:
            if (job := self.held.pop(future, None)) is not None:
                try:
                    self.done[job.key] = future.result()
                    job_finished(len(self.done), self.total)
                except BrokenProcessPool:  # a worker died: its jobs are computed here
                    self.lost(job)
                except BaseException as error:  # any exception: raised in the caller's thread
                    self.errors.append(error)
                self.feed()
            self.turn.notify_all()

    def next_here(self):
        """(job, what it needs) for this process, waiting while the workers hold jobs and none is ready; None when
        nothing is left that can be started here; a worker's error raised."""
        with self.turn:
            while not self.errors:
                job = self.ready()
                if job is not None or not self.held:
                    break
                self.turn.wait()
            if self.errors:
                raise self.errors[0]
            return None if job is None else (job, {n: self.done[n] for n in job.needs})

    def finished(self, job, value) -> None:
        """This process's result of ``job``, and work for an idle worker."""
        with self.turn:
            self.done[job.key] = value
            job_finished(len(self.done), self.total)
            self.feed()


def _here(jobs: list, context, done: dict) -> dict:
    """The jobs not in ``done`` computed in this process, in order (each job after those it needs)."""
    done = dict(done)
    for job in jobs:
        if job.key not in done:
            done[job.key] = job.run(context, {n: done[n] for n in job.needs})
            job_finished(len(done), len(jobs))
    return done


class Beside:
    """``function(**arguments)`` in one forked worker, owned by the ``with`` block, while the caller goes on;
    :meth:`result` takes it, or computes it here where there was no worker or it died."""

    def __init__(self, function, arguments: dict) -> None:
        self.function, self.arguments, self._pool, self._future = function, arguments, None, None

    def __enter__(self) -> Self:
        if _workers(2):
            try:
                self._pool = process_pool(1, fork_context("fork"))
                with frozen_heap():  # the worker is forked at the submit
                    self._future = self._pool.submit(self.function, **self.arguments)
            except (OSError, ValueError):
                self._pool = None
        return self

    def result(self):
        if self._future is not None:
            from concurrent.futures.process import BrokenProcessPool

            with contextlib.suppress(BrokenProcessPool):  # the worker died: computed here
                return self._future.result()
        return self.function(**self.arguments)

    def __exit__(self, kind, value, traceback) -> None:
        if self._pool is not None:
            (close_pool if kind is None else end_pool)(self._pool)
            self._pool = None
