"""Side computations in one forked worker process while this one computes the headline.

``batch(jobs, *args)`` is a module-level function (a fork pickles it by name); :func:`start`
hands it to the worker, :func:`finish` takes its result or, where there was no worker or it
died, computes it here — the same seeds, so the same numbers either way. :func:`cancel` ends the
worker without waiting for it, and a function decorated with :func:`reaped` ends every worker it
started when it leaves by an exception (an error, Ctrl-C, ``SIGTERM`` turned into
:class:`densing.workers.Terminated`), so no worker outlives the call that started it. The worker
itself dies with this process (:func:`densing.workers.worker_setup`).
"""
from __future__ import annotations

import functools

#: The pools of :func:`start` not yet finished or cancelled, oldest first.
_open: list = []


def start(batch, jobs: list, *args, at_least: int = 2):
    """``batch(jobs, *args)`` submitted to one forked worker process while this one goes on (on two cores
    the wall time drops by the batch's share); None where fork is missing, one core, or fewer than ``at_least``
    jobs (one short job is not worth a process)."""
    import os

    if len(jobs) < at_least or (os.cpu_count() or 1) < 2 or not hasattr(os, "fork") or os.environ.get("DENSING_SERIAL"):
        return None
    from densing.workers import end_pool, fork_context, process_pool

    try:
        pool = process_pool(1, fork_context("fork"))
    except (OSError, ValueError):
        return None
    _open.append(pool)
    try:
        return pool, pool.submit(batch, jobs, *args)
    except BaseException:
        _close(pool, end_pool)
        raise


def _close(pool, how) -> None:
    if pool in _open:
        _open.remove(pool)
    how(pool)


def finish(pending, batch, jobs: list, *args) -> dict:
    """``batch``'s result: the worker's (the same seeds, so the same numbers), or computed here."""
    if pending is not None:
        from concurrent.futures.process import BrokenProcessPool

        from densing.workers import end_pool

        pool, future = pending
        try:
            result = future.result()
        except BrokenProcessPool:  # the worker died (e.g. out of memory): it costs time, not the result
            _close(pool, end_pool)
        except BaseException:  # an error in the batch, Ctrl-C, SIGTERM: the worker ends now
            _close(pool, end_pool)
            raise
        else:
            _close(pool, lambda p: p.shutdown(wait=True))
            return result
    return batch(jobs, *args)


def cancel(pending) -> None:
    """End the worker of ``pending`` now, its result unwanted (None: nothing to do)."""
    if pending is not None:
        from densing.workers import end_pool

        _close(pending[0], end_pool)


def reaped(function):
    """Decorator: when ``function`` leaves by an exception, every worker it started and left running ends."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        mark = len(_open)
        try:
            return function(*args, **kwargs)
        except BaseException:
            from densing.workers import end_pool

            while len(_open) > mark:
                _close(_open[-1], end_pool)
            raise

    return call


#: glibc's ``mallopt`` parameters (malloc.h): M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD.
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
_heap_kept = False


def keep_freed_memory() -> None:
    """Ask glibc's allocator to serve arrays up to 256 MiB from the heap and keep what is freed (``mallopt``).

    The bootstrap allocates and frees arrays of a few MiB thousands of times; by default each comes from a fresh
    ``mmap`` and goes back to the kernel when freed, and the kernel zeroes its pages again on the next one (about
    0.4 s of system time in ``densing report`` on two cores, half of it). Kept, the pages are reused; the process
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

    The measurement runs in two processes (this one and its side worker) whose linear algebra is on matrices of a
    few columns: BLAS threads only oversubscribe the cores (L-BFGS-B's steps of the Tobit line ran about four
    times slower with them on a busy two-core machine)."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        from threadpoolctl import threadpool_limits

        keep_freed_memory()
        with threadpool_limits(limits=1):
            return function(*args, **kwargs)

    return call
