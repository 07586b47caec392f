"""How far the job executor has come, for the estimate a long command prints while it works
(:func:`densing.cli.output.timed`).

The executor (:func:`densing.runtime.executor.run`) calls :func:`job_finished` each time one of its jobs finishes, in
this process or in a worker, with the count finished and the count it was given; a caller that wants to know
installs a listener for a block (:func:`listening`). The listener is one module-level slot rather than a context
variable because a worker's result lands in the pool's own thread, which does not see the caller's context; it is
called under a lock, one finished job at a time.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

#: The listener of the block in progress (:func:`listening`), or None.
_listener: Callable[[int, int], None] | None = None
_lock = threading.Lock()


@contextlib.contextmanager
def listening(listener: Callable[[int, int], None]) -> Iterator[None]:
    """Within the block, ``listener(finished, total)`` is called after each job the executor finishes (an outer
    block's listener is set aside and put back after)."""
    global _listener
    before = _listener
    _listener = listener
    try:
        yield
    finally:
        _listener = before


def job_finished(finished: int, total: int) -> None:
    """The executor has finished ``finished`` of its ``total`` jobs: the listener, if any, is told."""
    with _lock:
        if _listener is not None:
            _listener(finished, total)
