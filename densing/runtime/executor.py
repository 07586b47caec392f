"""The processes that compute declared jobs: :func:`run` for a measurement's jobs (and the report's sections laid
out, :func:`densing.report.render.render`), :class:`Beside` for one computation beside the caller's.

A job (:mod:`densing.trend.plan`) is a typed value with a ``key``, the keys it ``needs`` and ``run(context,
needed)``. :func:`run` forks one worker per core (``concurrent.futures`` with the ``fork`` start method: the
workers inherit the context, which is never pickled), starts every job whose needs are met in the order given,
passes each job the results it needs, and returns every result by key. Where there is one core, no ``fork`` or
``DENSING_SERIAL`` is set, the jobs run here in the same order; a job's result depends only on its fields, the
context and what it needs, so the numbers are the same either way.

The executor owns its processes: they end when :func:`run` returns or leaves by an exception (an error, Ctrl-C,
``SIGTERM`` turned into :class:`densing.runtime.processes.Terminated`), and a worker dies with this process
(:func:`densing.runtime.processes.worker_setup`). A worker that dies (out of memory, killed) costs time, not the result: the
jobs it left are computed here.
"""
from __future__ import annotations

import contextlib
import functools
import gc
import os

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
    from densing.runtime.memo import same_tables

    with same_tables():
        return job.run(_context, needed)


def run(jobs: list, context) -> dict:
    """Every job's result by its key (module docstring)."""
    global _context
    count = _workers(len(jobs))
    if not count:
        return _here(jobs, context, {})
    from densing.runtime.processes import end_pool, fork_context, process_pool

    _context = context
    try:
        pool = process_pool(count, fork_context("fork"))
    except (OSError, ValueError):
        _context = None
        return _here(jobs, context, {})
    try:
        with frozen_heap():  # the workers are forked at the first submit
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

    from densing.runtime.processes import end_pool

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
            from densing.runtime.processes import fork_context, process_pool

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

            try:
                return self._future.result()
            except BrokenProcessPool:
                pass
        return self.function(**self.arguments)

    def __exit__(self, kind, value, traceback) -> None:
        if self._pool is not None:
            from densing.runtime.processes import end_pool

            if kind is None:
                self._pool.shutdown(wait=True)
            else:
                end_pool(self._pool)
            self._pool = None


@contextlib.contextmanager
def frozen_heap():
    """Within the block, the objects the garbage collector tracks are frozen (``gc.freeze``): a worker forked in it
    never walks them in its own collections, so it neither spends its time on this process's objects (the imported
    libraries, the table) nor copies every page that holds one (a collection writes to each object it walks, and a
    forked page is copied on its first write). Unfrozen when the block is left; nothing where something else has
    frozen objects already (``gc.get_freeze_count``), whose freezing is its own to undo."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


#: glibc's ``mallopt`` parameters (malloc.h): M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD.
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
_heap_kept = False


def keep_freed_memory() -> None:
    """Ask glibc's allocator to serve arrays up to 256 MiB from the heap and keep what is freed (``mallopt``).

    The bootstrap allocates and frees arrays of a few MiB thousands of times; by default each comes from a fresh
    ``mmap`` and goes back to the kernel when freed, and the kernel zeroes its pages again on the next one, in
    system time on every draw. Kept, the pages are reused; the process
    holds its peak memory until it ends. Once per process, inherited by forked workers; nothing where the C library
    has no ``mallopt`` (not glibc)."""
    global _heap_kept
    if _heap_kept:
        return
    _heap_kept = True
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        for option, value in ((_M_MMAP_THRESHOLD, 256 << 20), (_M_TRIM_THRESHOLD, 1 << 30), (_M_TOP_PAD, 64 << 20)):
            libc.mallopt(option, value)
    except (OSError, AttributeError):
        pass


def one_blas_thread(function):
    """Decorator: ``function`` runs with BLAS and OpenMP held to one thread each (threadpoolctl), restored after,
    and with the allocator keeping freed memory (:func:`keep_freed_memory`).

    The measurement runs in one process per core whose linear algebra is on matrices of a few columns: BLAS
    threads only oversubscribe the cores (L-BFGS-B's steps of the Tobit line ran about four times slower with them
    on a busy two-core machine)."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        from threadpoolctl import threadpool_limits

        keep_freed_memory()
        with threadpool_limits(limits=1):
            return function(*args, **kwargs)

    return call
