"""The package's runtime, apart from the science: the processes densing starts and how each ends on every path, the
job executor, the heap and BLAS threads of the processes that compute, and the memo of values derived from a table.

**Processes.** Every worker densing starts (the executor's, the bootstrap's, the overlap engine's, ``densing eval
--isolate``'s, ``torchrun``'s) goes through this module: a worker dies with its parent (:func:`worker_setup`), every
exit path reaps (:func:`end_pool`, :func:`end_process`, :func:`end_children`; a finished pool's workers exit beside
the caller's next step and are reaped by the exit handlers at the latest, :func:`close_pool`), a signal is an exit path
(:func:`exits_on_signals`).

**The job executor** (:func:`run`). A job is a typed value with a ``key``, the keys it ``needs`` and ``run(context,
needed)``. :func:`run` forks one worker per core but one (they inherit the context, never pickled) and computes
beside them: each process takes the next job whose needs are met as it comes free, and every result is returned by
key; with one core or one job, no ``fork`` or ``DENSING_SERIAL`` set, the jobs run here in the same order, with the
same numbers. The jobs a dead worker left are computed here.

**The memo.** One measurement asks the same questions of one table many times: :func:`same_tables` opens a memo for a
block (a :class:`contextvars.ContextVar`, as :mod:`decimal` holds its context) that keeps each answer per (table, key),
the table weakly referenced; outside a block nothing is kept, so a table changed in place is read afresh.
"""
from __future__ import annotations

import atexit
import contextlib
import contextvars
import functools
import gc
import os
import signal
import sys
import weakref
from typing import Self

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


def exits_on_signals() -> None:
    """In the main thread: ``SIGTERM`` raises :class:`Terminated` (so cleanup runs), and ``SIGINT``
    ``KeyboardInterrupt``, also where the process started with it ignored (a shell's background job)."""
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)
        signal.signal(signal.SIGINT, signal.default_int_handler)


def worker_setup(parent: int) -> None:
    """First thing in a worker process: on Linux the kernel sends it ``SIGKILL`` when ``parent`` dies
    (``prctl(PR_SET_PDEATHSIG)``: no worker is left waiting on a pipe nobody reads); it ignores Ctrl-C (which reaches
    the whole process group: the parent decides) and takes ``SIGTERM``'s default. It starts with both blocked
    (:func:`fork_context`), so a Ctrl-C before this runs is dropped rather than printing a start-up traceback."""
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
    """A ``multiprocessing`` context of ``method`` (default: ``fork`` on Linux, else ``spawn``) whose forks hold
    ``SIGINT`` and ``SIGTERM`` (delivered right after), the worker starting with them blocked until
    :func:`worker_setup`."""
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
    """Stop a ``ProcessPoolExecutor`` now: queued work cancelled, its processes terminated and reaped, its manager
    thread joined (safe on a finished pool, and more than once). The manager thread notices the ended processes and
    stops; an error it meets on their closed pipes meanwhile is not reported (:func:`_quiet_ending`)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    thread = getattr(pool, "_executor_manager_thread", None)  # read before shutdown, which drops it
    if thread is not None:
        _quiet_ending(thread)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        end_process(process, grace)
    if thread is not None:
        thread.join(grace)


def close_pool(pool) -> None:
    """Let a finished ``ProcessPoolExecutor``'s workers exit while the caller goes on: ``shutdown`` without waiting
    sends each its end, and the pool's manager thread reaps them as they exit (the kernel's unmapping of a forked
    worker's copy of the parent runs on another core beside the caller's next step, not before it). The thread is
    joined where the process leaves (:func:`join_closed`, an exit handler), so every worker has ended by then."""
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
    """Leave an error of ``thread`` unreported (``threading.excepthook``, chained to the hook before it, installed
    once): a pool's manager thread may fail on a pipe of a worker :func:`end_pool` has just terminated, an error of
    the ending, not of the work."""
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

    if process.poll() is None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                process.wait(grace)
                break
            except subprocess.TimeoutExpired:
                continue
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


# --------------------------------------------------------------------------------------------------------------------
# The heap and BLAS threads of the processes that compute
# --------------------------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def frozen_heap():
    """Within the block, the garbage collector's objects are frozen (``gc.freeze``): a worker forked in it never walks
    (nor copies) their pages. Nothing where something else has frozen objects already (its freezing to undo)."""
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
    """Ask glibc's allocator to serve arrays up to 256 MiB from the heap and keep what is freed (``mallopt``): the
    bootstrap's arrays of a few MiB reuse pages the kernel would zero again on every draw (the process holds its peak
    memory). Once per process, inherited by forked workers; nothing without glibc's ``mallopt``."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        for option, value in ((_M_MMAP_THRESHOLD, 256 << 20), (_M_TRIM_THRESHOLD, 1 << 30), (_M_TOP_PAD, 64 << 20)):
            libc.mallopt(option, value)
    except (OSError, AttributeError):
        pass


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


# --------------------------------------------------------------------------------------------------------------------
# The memo of values derived from a table (module docstring)
# --------------------------------------------------------------------------------------------------------------------

#: The memo open in this context (None outside :func:`same_tables`): (id of the table, key) → (weak reference to the
#: table, the value) for :func:`derived`; ("value", key) → the value for :func:`keep`. The caller must not change a
#: value it gets back (copy it where it may).
_OPEN: contextvars.ContextVar[dict | None] = contextvars.ContextVar("densing_table_memo", default=None)


@contextlib.contextmanager
def same_tables():
    """Within the block, the :func:`per_table` functions keep their values in a new memo; a block inside another one
    uses the outer block's memo."""
    memo = _OPEN.get()
    token = _OPEN.set({} if memo is None else memo)
    try:
        yield
    finally:
        _OPEN.reset(token)


def keeping() -> bool:
    """Whether a memo is open (inside :func:`same_tables`)."""
    return _OPEN.get() is not None


def recall(key: tuple):
    """The value :func:`keep` put under ``key`` (plain inputs named in full) in the open memo, or None."""
    memo = _OPEN.get()
    return None if memo is None else memo.get(("value", key))


def keep(key: tuple, value) -> None:
    """Keep ``value`` under ``key`` in the open memo; nothing is kept outside :func:`same_tables`."""
    memo = _OPEN.get()
    if memo is not None:
        memo[("value", key)] = value


def derived(table, key: tuple, compute):
    """``compute()``, a value of ``table`` named by ``key``, computed once for this very table object in the open
    memo; afresh outside :func:`same_tables`."""
    memo = _OPEN.get()
    if memo is None:
        return compute()
    slot = (id(table), key)
    found = memo.get(slot)
    if found is not None and found[0]() is table:
        return found[1]
    value = compute()
    memo[slot] = (weakref.ref(table), value)
    return value


def per_table(function):
    """``function(table, *args)`` kept per (table, args) in the open memo (:func:`derived`; ``args`` hashable; the
    caller must not change the value it gets back)."""
    name = (function.__module__, function.__qualname__)

    @functools.wraps(function)
    def kept(table, *args):
        return derived(table, (name, *args), lambda: function(table, *args))

    return kept


# --------------------------------------------------------------------------------------------------------------------
# The job executor: one process per core, or here (module docstring)
# --------------------------------------------------------------------------------------------------------------------

#: The context of the :func:`run` in progress; forked workers inherit it.
_context = None


def _workers(jobs: int) -> int:
    """How many processes compute :func:`run`'s ``jobs`` jobs, this one among them: one per core, at most one per job;
    0 where it forks none."""
    cores = os.cpu_count() or 1
    if cores < 2 or jobs < 2 or not hasattr(os, "fork") or os.environ.get("DENSING_SERIAL"):
        return 0
    return min(cores, jobs)


#: :func:`_run_one`'s context where it is not given: the one the worker inherited (:data:`_context`).
_INHERITED = object()

#: In a worker of a pool of one: the results it was sent or computed that a later job needs, by key
#: (:func:`_beside_pool` sends each of them to it once).
_kept: dict = {}


def _run_one(job, needed: dict, context=_INHERITED, keep: bool = False):
    """One job in a worker (module level: the pool pickles it by name; the context the one it inherited) or in this
    process beside them (``context`` given), in the memo open there (:func:`same_tables`). In a worker, a result the
    job needs and was not sent is one kept before; ``keep``: keep this job's result too."""
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
    """The results of ``jobs``, computed by ``pool`` (``workers`` processes) and by this process beside it: each takes
    the first job whose needs are met as it comes free (:class:`_Board`). Where a worker dies, the jobs it held are
    computed here."""
    board = _Board(pool, jobs, workers)
    with board.turn:
        board.feed()
    while (taken := board.next_here()) is not None:
        job, needed = taken
        board.finished(job, _run_one(job, needed, context))  # as a worker computes it
    if board.broken:
        end_pool(pool)
    return board.done


class _Board:
    """The jobs of one :func:`run`, shared under ``turn`` by this process and the pool's thread: those waiting, those
    the workers hold, the results. A worker's next job is sent as its last one's result arrives (:meth:`landed`, the
    pool's callback). A pool of one worker is sent each result a job needs once, and keeps those it computes that a
    later job needs (:data:`_kept`; ``there``: what it holds, known here only with one worker)."""

    def __init__(self, pool, jobs: list, workers: int) -> None:
        import threading

        self.pool, self.workers = pool, workers
        self.done: dict = {}
        self.waiting = list(jobs)
        self.held: dict = {}  # future → the job a worker computes
        self.errors: list = []
        self.broken = False
        self.turn = threading.Condition(threading.RLock())  # the callback may run at once, in the thread that adds it
        self.needs = {n for job in jobs for n in job.needs}
        self.there: set = set()

    def ready(self):
        """The first waiting job whose needs are met, taken off the list (under ``turn``)."""
        for job in self.waiting:
            if all(n in self.done for n in job.needs):
                self.waiting.remove(job)
                return job
        return None

    def feed(self) -> None:
        """A job for each idle worker (under ``turn``)."""
        from concurrent.futures.process import BrokenProcessPool

        while not self.broken and not self.errors and len(self.held) < self.workers:
            job = self.ready()
            if job is None:
                return
            keep = self.workers == 1 and job.key in self.needs
            try:
                future = self.pool.submit(_run_one, job, {n: self.done[n] for n in job.needs if n not in self.there},
                                          keep=keep)
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
            job = self.held.pop(future, None)
            if job is not None:
                try:
                    self.done[job.key] = future.result()
                except BrokenProcessPool:  # a worker died: its jobs are computed here
                    self.lost(job)
                except BaseException as error:  # noqa: BLE001 - raised in the caller's thread
                    self.errors.append(error)
                self.feed()
            self.turn.notify_all()

    def next_here(self):
        """(job, what it needs) for this process, waiting while the workers hold jobs and none is ready; None when
        nothing is left here (or nothing left can have its needs met: :func:`run` computes those here); a worker's
        error raised."""
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
            self.feed()


def _here(jobs: list, context, done: dict) -> dict:
    """The jobs not in ``done`` computed in this process, in order (each job after those it needs)."""
    done = dict(done)
    for job in jobs:
        if job.key not in done:
            done[job.key] = job.run(context, {n: done[n] for n in job.needs})
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

            try:
                return self._future.result()
            except BrokenProcessPool:
                pass
        return self.function(**self.arguments)

    def __exit__(self, kind, value, traceback) -> None:
        if self._pool is not None:
            if kind is None:
                close_pool(self._pool)
            else:
                end_pool(self._pool)
            self._pool = None
