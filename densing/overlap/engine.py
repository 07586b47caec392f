"""Where per-rank work runs: in this process, in local processes, or on a Dask cluster.

Work is given as :class:`Job` trees (a large file's parts, :func:`densing.overlap.kineto.decode_part`, feed the job
that combines them); every engine answers ``run(jobs)`` with the top jobs' results, in order, and raises a job's
exception. :class:`ProcessEngine` forks one child per leaf but the last (a pool's start-up is a noticeable part of a
file's time, ``bench/overlap_scale.py``) and uses a process pool for more leaves than workers. :func:`make_engine`
turns ``--scheduler`` into an engine (docs/profiling.md says how ``auto`` chooses).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import closing, nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from densing.errors import InputError, WorkerError

PARALLEL_MIN_BYTES = 32 << 20  # a set's compressed size from which its files are decoded in parallel
LOCAL_CLUSTER_MIN_BYTES = 4 << 30  # auto: a local Dask cluster from this many compressed bytes (with dask)
SCHEDULERS = ("auto", "serial", "processes", "local")
TASKS_PER_WORKER = 8  # Dask: jobs without inputs are sent in about this many chunks per worker


@dataclass(frozen=True)
class Job:
    """``fn(*args)``, where an arg that is a Job stands for that job's result."""

    fn: Callable
    args: tuple = ()


def _deps(job: Job) -> list[Job]:
    return [a for a in job.args if isinstance(a, Job)]


def _evaluate(job: Job) -> Any:
    return job.fn(*(_evaluate(a) if isinstance(a, Job) else a for a in job.args))


class SerialEngine:
    """Every job in this process."""

    workers = 1

    def run(self, jobs: list[Job]) -> list:
        return [_evaluate(job) for job in jobs]

    def close(self) -> None:
        pass


class ProcessEngine:
    """A local process pool; see the module docstring."""

    def __init__(self, workers: int | None = None):
        self.workers = max(1, workers or os.cpu_count() or 1)

    def run(self, jobs: list[Job]) -> list:
        leaves = [d for job in jobs for d in (_deps(job) or [job])]
        results = {}
        if len(leaves) > self.workers > 1:
            from concurrent.futures.process import BrokenProcessPool  # here: start-up that small sets do not need

            from densing.runtime.processes import end_pool, process_pool

            pool = process_pool(self.workers)
            try:  # an error, Ctrl-C or SIGTERM (not caught here) ends the workers at once
                futures = [(leaf, pool.submit(leaf.fn, *leaf.args)) for leaf in leaves]
                for leaf, future in futures:
                    try:
                        results[id(leaf)] = future.result()
                    except BrokenProcessPool:
                        raise WorkerError(
                            "a trace worker process died (out of memory or killed); "
                            "try --scheduler serial or fewer --workers"
                        ) from None
                    except Exception as exc:  # any exception: raised in job order below
                        results[id(leaf)] = _Raised(exc)
            finally:
                end_pool(pool)
        else:  # no more leaves than workers; with one worker, each leaf here in turn
            for batch in [leaves] if 0 < len(leaves) <= self.workers else [[leaf] for leaf in leaves]:
                results.update(self._few(batch))
        out = []
        for job in jobs:
            deps = _deps(job)
            for d in deps or [job]:
                if isinstance(results[id(d)], _Raised):
                    raise results[id(d)].exc
            out.append(
                job.fn(*(results[id(a)] if isinstance(a, Job) else a for a in job.args)) if deps else results[id(job)]
            )
        return out

    @staticmethod
    def _few(leaves: list[Job]) -> dict:
        """One forked process per leaf but the last, which runs here; every child reaped on every exit path."""
        started, results = [], {}
        try:
            for leaf in leaves[:-1]:
                started.append((leaf, *_fork(leaf)))
            try:
                results[id(leaves[-1])] = _evaluate(leaves[-1])
            except Exception as exc:  # any exception: raised in job order
                results[id(leaves[-1])] = _Raised(exc)
            for leaf, _, receive in started:  # every child is heard
                results[id(leaf)] = _receive(receive)
        finally:  # after an error, Ctrl-C or SIGTERM a child still running is ended, not waited for
            for _, pid, receive in started:
                _end_child(pid)
                os.close(receive)
        return results

    def close(self) -> None:
        pass


def _fork(job: Job) -> tuple[int, int]:
    """Start ``job`` in a child of a plain ``os.fork``, ``SIGINT`` and ``SIGTERM`` held until the child's
    :func:`densing.runtime.processes.worker_setup` (as ``fork_context`` does); (pid, the pipe's read end)."""
    import signal

    parent = os.getpid()
    receive, send = os.pipe()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        pid = os.fork()
        if pid == 0:
            _child(job, receive, send, parent)  # never returns
    except BaseException:
        os.close(receive)
        raise
    finally:
        os.close(send)
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return pid, receive


def _child(job: Job, receive: int, send: int, parent: int) -> None:
    """The forked child: ``job``'s result or exception, pickled into ``send``; it leaves with ``os._exit``."""
    code = 1
    try:
        import pickle

        from densing.runtime.processes import worker_setup

        os.close(receive)
        worker_setup(parent)
        try:
            payload = (True, _evaluate(job))
        except BaseException as exc:  # any exception: handed to the parent
            payload = (False, exc)
        with os.fdopen(send, "wb", closefd=False) as out:
            out.write(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
        code = 0
    finally:
        os._exit(code)


def _receive(receive: int):
    """A forked child's result read from its pipe, or a :class:`_Raised` of its exception (a WorkerError if it died)."""
    import pickle

    with os.fdopen(receive, "rb", closefd=False) as f:
        data = f.read()
    try:
        ok, value = pickle.loads(data)
    except Exception:  # any exception (nothing or a cut stream): the child died
        return _Raised(WorkerError("a trace worker process died (out of memory or killed); try --scheduler serial"))
    return value if ok else _Raised(value)


def _end_child(pid: int) -> None:
    """Reap forked child ``pid``: at once if it has exited, else after ``SIGTERM``, then ``SIGKILL`` (``GRACE_S``)."""
    import signal
    import time

    from densing.runtime.processes import GRACE_S

    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            with suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + (GRACE_S if sig is not None else 0)
        while True:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    return
            except ChildProcessError:
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(0.005)


@dataclass(frozen=True)
class _Raised:
    exc: BaseException


class DaskEngine:
    """A ``dask.distributed`` client; see the module docstring."""

    def __init__(self, client, cluster=None):
        self.client, self.cluster = client, cluster
        self.workers = max(1, len(client.scheduler_info().get("workers", {})))

    def run(self, jobs: list[Job]) -> list:
        """Jobs with inputs are submitted as a graph; the others in chunks run by one task each (a task costs the
        scheduler milliseconds), about :data:`TASKS_PER_WORKER` chunks per worker."""
        submitted: dict = {}

        def submit(job: Job):
            if id(job) not in submitted:
                args = [submit(a) if isinstance(a, Job) else a for a in job.args]
                submitted[id(job)] = self.client.submit(job.fn, *args, pure=False)
            return submitted[id(job)]

        plain = [i for i, job in enumerate(jobs) if not _deps(job)]
        size = max(1, -(-len(plain) // (self.workers * TASKS_PER_WORKER)))
        chunks = [plain[k : k + size] for k in range(0, len(plain), size)]
        chunk_futures = [
            self.client.submit(SerialEngine().run, [jobs[i] for i in chunk], pure=False) for chunk in chunks
        ]
        graph = {i: submit(job) for i, job in enumerate(jobs) if _deps(job)}
        try:
            done = {
                i: value
                for chunk, values in zip(chunks, self.client.gather(chunk_futures))
                for i, value in zip(chunk, values)
            }
            done.update(zip(graph, self.client.gather(list(graph.values()))))
            return [done[i] for i in range(len(jobs))]
        finally:
            for future in chunk_futures + list(submitted.values()):
                future.release()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _dask():
    try:
        from dask import distributed
    except ImportError:
        raise InputError("--scheduler: a Dask cluster needs dask.distributed (pip install 'densing[scale]')") from None
    return distributed


def local_cluster(workers: int | None = None) -> DaskEngine:
    """A ``LocalCluster`` on this machine: one single-threaded worker process per CPU."""
    distributed = _dask()
    import logging

    logging.getLogger("distributed").setLevel(logging.ERROR)
    cluster = distributed.LocalCluster(
        n_workers=max(1, workers or os.cpu_count() or 1),
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    return DaskEngine(distributed.Client(cluster), cluster)


def borrowed(scheduler, files: list[Path], workers: int | None = None):
    """A context: :func:`make_engine`'s engine for a name (closed after), or an engine given (left open)."""
    return closing(make_engine(scheduler, files, workers)) if isinstance(scheduler, str) else nullcontext(scheduler)


def make_engine(scheduler: str, files: list[Path], workers: int | None = None):
    """The engine for ``--scheduler``: ``auto``, ``serial``, ``processes``, ``local`` (Dask) or a scheduler ADDRESS."""
    if scheduler == "serial":
        return SerialEngine()
    if scheduler in ("processes", "local"):
        return (ProcessEngine if scheduler == "processes" else local_cluster)(workers)
    if scheduler != "auto":
        if ":" not in scheduler:
            raise InputError(
                f"--scheduler: expected {', '.join(SCHEDULERS)} or a Dask scheduler address "
                f"(tcp://host:8786), got {scheduler!r}"
            )
        address = scheduler if "://" in scheduler else f"tcp://{scheduler}"
        distributed = _dask()
        try:  # a client of the running Dask scheduler there
            return DaskEngine(distributed.Client(address, timeout="20s"))
        except (OSError, TimeoutError) as exc:
            raise InputError(f"--scheduler: cannot reach a Dask scheduler at {address} ({exc})") from None
    import importlib.util

    cpus = workers or os.cpu_count() or 1
    total = sum(f.stat().st_size for f in files)
    if total >= LOCAL_CLUSTER_MIN_BYTES and cpus > 1 and importlib.util.find_spec("distributed") is not None:
        return local_cluster(workers)
    if cpus > 1 and sys.platform.startswith("linux") and (len(files) < cpus or total >= PARALLEL_MIN_BYTES):
        return ProcessEngine(cpus)  # (a lone large file is split across the CPUs; fork is unsafe on macOS)
    return SerialEngine()
