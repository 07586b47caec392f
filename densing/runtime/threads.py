"""The heap and BLAS threads of the processes that compute: the collector's objects frozen across a fork
(:func:`frozen_heap`), freed memory kept by the allocator (:func:`keep_freed_memory`), one BLAS thread a process
(:func:`one_blas_thread`)."""

from __future__ import annotations

import contextlib
import functools
import gc


@contextlib.contextmanager
def frozen_heap():
    """Within the block, the garbage collector's objects are frozen (``gc.freeze``): a worker forked in it never walks
    (nor copies) their pages; nothing where objects are frozen already."""
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


@functools.cache
def keep_freed_memory() -> None:
    """Ask glibc's allocator (``mallopt``) to serve arrays up to 256 MiB from the heap and keep what is freed: the
    bootstrap reuses pages the kernel would zero again on every draw. Once per process; nothing without glibc."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        libc = ctypes.CDLL(None)
        for option, value in ((_M_MMAP_THRESHOLD, 256 << 20), (_M_TRIM_THRESHOLD, 1 << 30), (_M_TOP_PAD, 64 << 20)):
            libc.mallopt(option, value)


def one_blas_thread(function):
    """Decorator: ``function`` runs with BLAS and OpenMP held to one thread each (threadpoolctl: the measurement runs
    one process per core on matrices of a few columns) and :func:`keep_freed_memory`."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        from threadpoolctl import threadpool_limits

        keep_freed_memory()
        with threadpool_limits(limits=1):
            return function(*args, **kwargs)

    return call
