"""One process per model: each model of a sweep evaluated in a child process of its own (docs/evaluation.md, "One
process per model": vLLM frees its GPU memory only when its process exits). ``run_sweep(..., isolate=True)`` runs
each model with pairs to do as::

    python -m densing.eval.isolated_child JOB EVENTS_FD

in its own process group, dying with its parent. ``JOB`` is a pickle of the child's ``run_sweep`` arguments (that
model, its pending benchmarks, ``isolate=False``); the child writes each event as one JSON line
``["progress", model, benchmark, status]`` (a reuse of kept requests ``["reuse", model, benchmark, file, requests]``,
requests handed to the model ``["requests", model, benchmark, {HandedRequests' fields}]``) to the inherited descriptor
``EVENTS_FD``, its last line ``["done"]`` or
``["error", class name, message]``; its stdout goes to the parent's stderr. The parent (:func:`run_isolated`)
replays the events and raises the child's error again (a silent death: an ``EvalError`` naming the exit status).
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from densing.errors import EvalError, InputError
from densing.runtime.processes import worker_setup

#: The error classes a child passes back by name (anything else arrives as an EvalError).
ERRORS = {"InputError": InputError, "EvalError": EvalError}


def run_isolated(
    model_name: str,
    arguments: dict[str, Any],
    on_progress: Callable | None = None,
    on_reuse: Callable | None = None,
    on_requests: Callable | None = None,
) -> None:
    """Run ``run_sweep(**arguments)`` for one model in a child process; replay its progress, reuses and requests
    handed to the model; raise its error."""
    from functools import partial

    from densing.runtime.processes import end_subprocess

    read_end, write_end = os.pipe()
    with tempfile.NamedTemporaryFile(prefix="densing-job-", suffix=".pickle", delete=False) as job:
        pickle.dump({**arguments, "isolate": False}, job)
    process = None
    try:
        # its own process group, ended with everything it started on any way out of here
        process = subprocess.Popen(
            [sys.executable, "-m", "densing.eval.isolated_child", job.name, str(write_end)],
            stdout=sys.stderr.fileno() if _has_fileno(sys.stderr) else None,
            pass_fds=(write_end,),
            preexec_fn=partial(_own_group_dying_with, os.getpid()),
            env=_child_environment(),
        )
        # each end changes owner whole: a Ctrl-C in between would have the cleanup below close it twice
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            os.close(write_end)
            write_end = None
            events = os.fdopen(read_end, "r", encoding="utf-8")
            read_end = None
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        last = None
        with events:
            for line in events:
                try:
                    event = json.loads(line)
                except ValueError:  # a line cut short by the child's death: the exit status says it
                    continue
                _replay(event, on_progress, on_reuse, on_requests)
                if event[0] not in ("progress", "reuse", "requests"):
                    last = event
        code = process.wait()
    finally:
        for descriptor in (read_end, write_end):
            if descriptor is not None:
                os.close(descriptor)
        if process is not None:
            end_subprocess(process)
        os.unlink(job.name)
    if last is not None and last[0] == "error":
        raise ERRORS.get(last[1], EvalError)(last[2])
    if code != 0 or last != ["done"]:
        raise EvalError(
            f"model {model_name!r}: its evaluation process ended with exit status {code} before "
            "finishing (killed, or out of memory?); the pairs it wrote are kept, run again to resume"
        )


def _replay(event: list, on_progress: Callable | None, on_reuse: Callable | None, on_requests: Callable | None) -> None:
    """Call ``on_progress`` with a child's progress event, ``on_reuse`` with its reuse event (the file as a path),
    ``on_requests`` with its requests event (a :class:`~densing.eval.deferred.HandedRequests`)."""
    from pathlib import Path

    if event[0] == "progress" and on_progress is not None:
        on_progress(*event[1:])
    elif event[0] == "reuse" and on_reuse is not None:
        model, benchmark, file, requests = event[1:]
        on_reuse(model, benchmark, Path(file), requests)
    elif event[0] == "requests" and on_requests is not None:
        from densing.eval.deferred import HandedRequests

        model, benchmark, handed = event[1:]
        on_requests(model, benchmark, HandedRequests(**handed))


def _child_environment() -> dict:
    """This process's environment, with the folder holding this ``densing`` first on PYTHONPATH."""
    from pathlib import Path

    import densing

    root = str(Path(densing.__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([root, path]) if path else root}


def _has_fileno(stream) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):  # a notebook's or pytest's captured stream
        return False
    return True


def _own_group_dying_with(parent: int) -> None:
    """In the child before it runs Python: lead a process group of its own, and :func:`densing.runtime.processes.worker_setup`."""
    os.setpgid(0, 0)
    worker_setup(parent)
