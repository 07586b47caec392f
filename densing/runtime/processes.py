"""The processes densing starts and how each ends on every path: a worker dies with its parent
(:func:`worker_setup`), every exit path reaps (:func:`end_pool`, :func:`end_process`, :func:`end_children`,
:func:`close_pool`), a signal is an exit path (:func:`exits_on_signals`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import weakref

#: Seconds a terminated worker is given to exit before it is killed.
GRACE_S = 2.0

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class Terminated(SystemExit):
    """``SIGTERM`` arrived: leave as on any exit (``finally`` blocks run), with exit code 143."""

    def __init__(self) -> None:
        super().__init__(128 + signal.SIGTERM)


#: Set by the SIGTERM handler: the CLI exits 143 even where the exception was swallowed (an at-fork hook).
terminated = False
#: Set by the SIGINT handler: an error a library made of Ctrl-C's ``KeyboardInterrupt`` where it was raised (pandas'
#: C reader reports one raised inside its read as "Calling read(nbytes) on source failed") is read as the interrupt
#: it was, exit 130 (:func:`densing.cli.app.main`).
interrupted = False


def _raise_terminated(signum, frame) -> None:  # a signal handler's signature (signum, frame)
    global terminated
    terminated = True
    raise Terminated()


def _raise_interrupted(signum, frame) -> None:  # a signal handler's signature (signum, frame)
    global interrupted
    interrupted = True
    raise KeyboardInterrupt


def quiet_unraisable(previous):
    """A ``sys.unraisablehook`` that drops the exception a handler above raised where Python cannot raise one and
    prints it as ignored instead ("Exception ignored in: <function _releaseLock>": an at-fork hook that ``os.fork``
    runs, which the fork's held signals do not cover where another thread took the signal; a finaliser): the handler's
    flag ends the command as interrupted or terminated (:func:`densing.cli.guard.guarded`), in its one line. Every
    other unraisable exception goes to ``previous``."""

    def hook(unraisable) -> None:
        signalled = (issubclass(unraisable.exc_type, KeyboardInterrupt) and interrupted) or (
            issubclass(unraisable.exc_type, Terminated) and terminated
        )
        if not signalled:
            previous(unraisable)

    return hook


def exits_on_signals() -> None:
    """In the main thread: ``SIGTERM`` raises :class:`Terminated` (so cleanup runs), and ``SIGINT``
    ``KeyboardInterrupt``, also where the process started with it ignored (a shell's background job)."""
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)
        signal.signal(signal.SIGINT, _raise_interrupted)


def worker_setup(parent: int) -> None:
    """First thing in a worker process: on Linux the kernel sends it ``SIGKILL`` when ``parent`` dies
    (``prctl(PR_SET_PDEATHSIG)``); it ignores Ctrl-C (the parent decides) and takes ``SIGTERM``'s default, both
    blocked until now (:func:`fork_context`), so a Ctrl-C before this is dropped rather than a start-up traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # no libc symbol: the parent's finally blocks still reap
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)


_CONTEXTS: dict = {}


def fork_context(method: str | None = None):
    """A ``multiprocessing`` context of ``method`` (default: ``fork`` on Linux, else ``spawn``) whose forks hold
    ``SIGINT`` and ``SIGTERM``, the worker starting with them blocked until :func:`worker_setup`."""
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

    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context or fork_context(), initializer=worker_setup, initargs=(os.getpid(),)
    )


def end_process(process, grace: float = GRACE_S) -> None:
    """Terminate a ``multiprocessing`` process (kill it after ``grace`` seconds) and reap it."""
    if process.is_alive():
        process.terminate()
        process.join(grace)
        if process.is_alive():
            process.kill()
    process.join(grace)


def end_pool(pool, grace: float = GRACE_S) -> None:
    """Stop a ``ProcessPoolExecutor`` now: queued work cancelled, its processes terminated and reaped, its manager
    thread joined, an error it meets on their closed pipes unreported (:func:`_quiet_ending`); safe more than once."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    thread = getattr(pool, "_executor_manager_thread", None)  # read before shutdown, which drops it
    if thread is not None:
        _quiet_ending(thread)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in [p for p in processes if p.is_alive()]:
        process.terminate()
    for process in processes:
        end_process(process, grace)
    if thread is not None:
        thread.join(grace)


def close_pool(pool) -> None:
    """Let a finished ``ProcessPoolExecutor``'s workers exit while the caller goes on (``shutdown`` without waiting;
    the manager thread reaps them), the thread joined where the process leaves (:func:`join_closed`)."""
    thread = getattr(pool, "_executor_manager_thread", None)  # read before shutdown, which drops it
    pool.shutdown(wait=False)
    if thread is not None:
        _CLOSED.add(thread)


def join_closed(grace: float = GRACE_S) -> None:
    """Join the manager threads of the pools :func:`close_pool` closed: each returns once its workers are reaped."""
    for thread in list(_CLOSED):
        thread.join(grace)


#: The manager threads of the pools :func:`close_pool` closed and not yet joined.
_CLOSED: weakref.WeakSet = weakref.WeakSet()
atexit.register(join_closed)

#: The manager threads of the pools :func:`end_pool` ends.
_ENDING: weakref.WeakSet = weakref.WeakSet()


def _quiet_ending(thread) -> None:
    """Leave an error of ``thread`` unreported (a chained ``threading.excepthook``, installed once): a pool's manager
    thread may fail on a pipe of a worker :func:`end_pool` has just terminated, an error of the ending."""
    import threading

    if getattr(threading.excepthook, "__name__", "") != "_unless_ending":
        previous = threading.excepthook

        def _unless_ending(args) -> None:
            if args.thread is None or args.thread not in _ENDING:
                previous(args)

        threading.excepthook = _unless_ending
    _ENDING.add(thread)


def end_subprocess(process, grace: float = GRACE_S) -> None:
    """Terminate a ``subprocess.Popen`` that leads its own process group (``process_group=0``) and the group (kill
    after ``grace``), the group also where its leader has exited (torchrun's workers after torchrun)."""
    import subprocess
    import time

    if process.poll() is None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(grace)
                break
    for sig in (signal.SIGTERM, signal.SIGKILL):  # what is left of the group: SIGKILL to what is there after grace
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            return  # no member left
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)
            except (ProcessLookupError, PermissionError):
                return
            time.sleep(0.05)


def children() -> set:
    """The ``multiprocessing`` children of this process now alive."""
    if "multiprocessing" not in sys.modules:  # nothing was started (and the CLI's start stays quick)
        return set()
    return set(sys.modules["multiprocessing"].active_children())


def end_children(grace: float = GRACE_S, keep: set = frozenset()) -> list[int]:
    """End every ``multiprocessing`` child still alive but those in ``keep`` (a notebook's own); their ids."""
    ended = [c for c in children() if c not in keep]
    for child in ended:
        end_process(child, grace)
    return [child.pid for child in ended]
