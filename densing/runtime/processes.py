"""Worker processes that end with their parent, on every exit path.

densing starts worker processes in five places: the trend's workers
(:mod:`densing.runtime.executor`), the bootstrap's ``--jobs`` processes
(:mod:`densing.laws.bootstrap`), the overlap engine's local processes
(:mod:`densing.overlap.engine`), ``densing eval --isolate``'s process per model (:mod:`densing.eval.isolated`) and ``torchrun`` (:mod:`densing.overlap.train`; its workers enter through
:mod:`densing.overlap.worker`, which ties them to torchrun). Each of them
goes through this module, which gives three guarantees:

* **a worker dies with its parent**: :func:`worker_setup` runs first in every forked worker; on
  Linux it asks the kernel to send the worker ``SIGKILL`` when its parent dies
  (``prctl(PR_SET_PDEATHSIG)``), so neither a ``kill -9`` of the parent nor an ``os._exit``
  leaves a worker waiting on a pipe nobody reads. The worker ignores ``SIGINT``: a terminal's
  Ctrl-C reaches the whole process group, and the parent decides what happens to its workers;
* **every exit path reaps**: the code that starts workers ends them in a ``finally``
  (:func:`end_pool`, :func:`end_process`: terminate, wait a moment, kill), and
  :func:`end_children` — run by the CLI after every command — ends any child still alive;
* **a signal is an exit path**: the CLI turns ``SIGTERM`` into :class:`Terminated` (via
  :func:`terminate_on_sigterm`), so the ``finally`` blocks run as they do on Ctrl-C, and makes ``SIGINT`` raise
  ``KeyboardInterrupt`` even when the process started with it ignored (:func:`interrupt_on_sigint`), so
  ``kill -INT PID`` is Ctrl-C from anywhere.

A worker that dies (out of memory, killed) is reported by the pool at once
(``BrokenProcessPool``); :class:`~densing.errors.WorkerError` turns that into one line.
"""
from __future__ import annotations

import os
import signal
import sys

#: Seconds a terminated worker is given to exit before it is killed.
GRACE_S = 2.0

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class Terminated(SystemExit):
    """``SIGTERM`` arrived: leave as on any exit (``finally`` blocks run), with exit code 143."""

    def __init__(self) -> None:
        super().__init__(128 + signal.SIGTERM)


#: Set by the SIGTERM handler: the CLI exits 143 even where the exception was swallowed (an at-fork hook).
terminated = False


def _raise_terminated(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    global terminated
    terminated = True
    raise Terminated()


def terminate_on_sigterm() -> None:
    """Make ``SIGTERM`` raise :class:`Terminated` in the main thread (so cleanup runs); no-op elsewhere."""
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


def interrupt_on_sigint() -> None:
    """Make ``SIGINT`` raise ``KeyboardInterrupt`` in the main thread (Python's own handler), also where this process
    started with ``SIGINT`` ignored: a shell script's background job or a supervisor passes it on ignored, Python then
    installs no handler, and ``kill -INT PID`` would be dropped. No-op outside the main thread."""
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


def worker_setup(parent: int) -> None:
    """First thing in a worker process: die with ``parent`` (Linux), ignore Ctrl-C, default ``SIGTERM``.

    The worker starts with ``SIGINT`` and ``SIGTERM`` blocked (:func:`fork_context`'s processes), so a
    Ctrl-C that reaches it before this runs is dropped here rather than printing a traceback from its
    start-up, and a ``SIGTERM`` then ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no libc symbol: the parent's finally blocks still reap
            pass
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)


_CONTEXTS: dict = {}


def fork_context(method: str | None = None):
    """A ``multiprocessing`` context of ``method`` (default: ``fork`` on Linux, where a worker inherits the
    parent's imports; ``spawn`` where fork is unsafe). This process holds ``SIGINT`` and ``SIGTERM`` while it
    forks (delivered right after), and the worker starts with them blocked until :func:`worker_setup`
    (a spawned process is pickled, so it keeps the plain class)."""
    import multiprocessing

    method = method or ("fork" if sys.platform.startswith("linux") else "spawn")
    if method != "fork" or not hasattr(signal, "pthread_sigmask"):
        return multiprocessing.get_context(method)
    if method not in _CONTEXTS:
        base = type(multiprocessing.get_context(method))

        class Process(base.Process):
            def start(self) -> None:
                # held while forking: a signal handled inside fork's at-fork hooks would be lost there
                old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
                try:
                    super().start()
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, old)

        _CONTEXTS[method] = type(f"Quiet{base.__name__}", (base,), {"Process": Process})()
    return _CONTEXTS[method]


def process_pool(workers: int, context=None):
    """A ``ProcessPoolExecutor`` of ``workers`` processes, each set up by :func:`worker_setup`."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, mp_context=context or fork_context(),
                               initializer=worker_setup, initargs=(os.getpid(),))


def end_process(process, grace: float = GRACE_S) -> None:
    """Terminate a ``multiprocessing`` process (kill it after ``grace`` seconds) and reap it."""
    if process.is_alive():
        process.terminate()
        process.join(grace)
        if process.is_alive():
            process.kill()
    process.join(grace)


def end_pool(pool, grace: float = GRACE_S) -> None:
    """Stop a ``ProcessPoolExecutor`` now: queued work cancelled, its processes terminated and reaped.

    Safe to call on a pool that has finished (it then only shuts it down) and more than once.
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        end_process(process, grace)
    thread = getattr(pool, "_executor_manager_thread", None)  # it notices the ended processes and stops
    if thread is not None:
        thread.join(grace)


def end_subprocess(process, grace: float = GRACE_S, *, group: bool | None = None) -> None:
    """Terminate a ``subprocess.Popen`` and its process group when it has one (kill after ``grace``).

    ``group``: the process leads its own group (``process_group=0``); None finds out while it runs. The
    group is ended too when its leader has already exited: members it leaves behind (torchrun's workers
    when torchrun itself ends first) get ``SIGTERM``, then ``SIGKILL`` after ``grace``.
    """
    import subprocess

    if group is None:
        group = process.poll() is None and _own_group(process.pid)
    if process.poll() is None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig) if group else process.send_signal(sig)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                process.wait(grace)
                break
            except subprocess.TimeoutExpired:
                continue
    if group:
        _end_group(process.pid, grace)


def _end_group(pgid: int, grace: float) -> None:
    """``SIGTERM`` to what is left of process group ``pgid``, ``SIGKILL`` to what is still there after ``grace``."""
    import time

    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return  # no member left
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except (ProcessLookupError, PermissionError):
                return
            time.sleep(0.05)


def _own_group(pid: int) -> bool:
    try:
        return os.getpgid(pid) == pid
    except (ProcessLookupError, PermissionError):
        return False


def children() -> set:
    """The ``multiprocessing`` children of this process now alive."""
    if "multiprocessing" not in sys.modules:  # nothing was started (and the CLI's start stays quick)
        return set()
    return set(sys.modules["multiprocessing"].active_children())


def end_children(grace: float = GRACE_S, keep: set = frozenset()) -> list[int]:
    """End every ``multiprocessing`` child of this process still alive but those in ``keep`` (children that
    were there before, e.g. a notebook's own); their ids (none in a clean run)."""
    if "multiprocessing" not in sys.modules:  # nothing was started (and the CLI's exit stays quick)
        return []
    children = [c for c in sys.modules["multiprocessing"].active_children() if c not in keep]
    for child in children:
        end_process(child, grace)
    return [child.pid for child in children]
