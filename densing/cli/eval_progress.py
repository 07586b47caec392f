"""What ``densing eval`` shows while it works, on stderr (stdout carries only the results).

On a terminal, a rich progress bar whose description names the step under way (the task index, a model's load, a
pair). On a stream that is not a terminal (a pipe, a log file), plain lines without cursor codes
(:class:`PlainLines`): one as each step begins, then one every :data:`HEARTBEAT_SECONDS` while it lasts, so a log
shows what is being loaded from the first slow step on. A stream without a file descriptor (a notebook's, a test's
captured one) gets the bar, which draws nothing until the end there.

Both say when a pair's requests are read from the store's kept build instead of built (:class:`PairReuse`): the
first such task of a pair in one line as it happens, the pair's count when it is done. Both say the first request
each pair hands its model (:func:`first_request_line`): for a model's first pair, before its weights load.
"""

from __future__ import annotations

import abc
import contextlib
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

#: Seconds between two plain lines while one step lasts.
HEARTBEAT_SECONDS = 10.0
#: Each plain line begins with the command's name, so that a log mixing several commands says whose line it is.
PREFIX = "densing eval: "


def stream_is_plain(stream: TextIO) -> bool:
    """Whether ``stream`` is a real file descriptor that is not a terminal (a pipe, a file): plain lines there."""
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):  # a notebook's or a test's captured stream: no descriptor
        return False
    return not stream.isatty()


class PlainLines:
    """Progress as plain lines on ``stream``: :meth:`step` prints a line as a step begins; a daemon thread prints
    ``… still <step> (N s)`` once ``every`` seconds pass without a line, until :meth:`close`."""

    def __init__(
        self, stream: TextIO, every: float = HEARTBEAT_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.stream = stream
        self.every = every
        self.clock = clock
        self._lock = threading.Lock()
        self._step = ""
        self._began = clock()
        self._last_line = clock()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def for_stderr(cls) -> PlainLines | None:
        """Plain lines on ``sys.stderr`` where it is a pipe or a file (:func:`stream_is_plain`), else None."""
        return cls(sys.stderr) if stream_is_plain(sys.stderr) else None

    def step(self, text: str) -> None:
        """Say that the step ``text`` begins (``densing eval: <text> …``); the heartbeat names it from now on."""
        with self._lock:
            self._step, self._began = text, self.clock()
            self._write(f"{PREFIX}{text} …")
        if self._thread is None:
            self._thread = threading.Thread(target=self._beat, name="densing-eval-progress", daemon=True)
            self._thread.start()

    def line(self, text: str) -> None:
        """Print ``densing eval: <text>`` without changing the step under way."""
        with self._lock:
            self._write(f"{PREFIX}{text}")

    def close(self) -> None:
        """Stop the heartbeat (no line after this one returns)."""
        self._closed.set()
        if self._thread is not None:
            self._thread.join()

    def _beat(self) -> None:
        """The heartbeat: the step under way and how long it has lasted, once ``every`` seconds pass without a
        line."""
        while not self._closed.wait(max(0.05, self._last_line + self.every - self.clock())):
            with self._lock:
                now = self.clock()
                if not self._closed.is_set() and now - self._last_line >= self.every:
                    self._write(f"{PREFIX}… still {self._step} ({now - self._began:.0f} s)")

    def _write(self, text: str) -> None:
        """Print one line (the lock held) and note its time for the heartbeat."""
        self._last_line = self.clock()
        # the reader went away (a closed pipe): progress is not worth an error
        with contextlib.suppress(OSError, ValueError):
            print(text, file=self.stream, flush=True)


@dataclass
class PairReuse:
    """The kept builds one pair's tasks were read from: how many tasks, how many requests, the first file."""

    tasks: int = 0
    requests: int = 0
    first: Path | None = None

    def add(self, file: Path, requests: int) -> bool:
        """Count one task read from ``file``; True for the pair's first."""
        self.tasks += 1
        self.requests += requests
        if self.first is None:
            self.first = file
            return True
        return False


def reuse_line(model: str, benchmark: str, file: Path, requests: int) -> str:
    """The line said as a pair's first task is read from its kept build (``file``) instead of built."""
    return f"{model} / {benchmark}: reusing the built requests in {file} ({requests:,} requests)"


#: Characters of a request's context shown in its line: its end, where the question is.
CONTEXT_SHOWN = 80


def first_request_line(model: str, benchmark: str, handed) -> str:
    """The line said as a pair hands its model its first requests (a :class:`densing.eval.deferred.HandedRequests`):
    how many and of which kind, the end of the first one's context and its continuation, as JSON strings."""
    context = handed.context if len(handed.context) <= CONTEXT_SHOWN else "…" + handed.context[-CONTEXT_SHOWN:]
    shown = json.dumps(context, ensure_ascii=False)
    if handed.continuation is not None:
        shown += " → " + json.dumps(handed.continuation, ensure_ascii=False)
    return f"{model} / {benchmark}: {handed.count:,} {handed.request_type} requests, the first: {shown}"


def done_line(model: str, benchmark: str, finished: int, total: int, reuse: PairReuse | None) -> str:
    """The line said as a pair is done: its place among the pairs, and its kept builds where it read several."""
    reused = (
        ""
        if reuse is None or reuse.tasks < 2
        else f"; the built requests of {reuse.tasks} tasks reused from {reuse.first.parent} ({reuse.requests:,} requests)"
    )
    return f"{model} / {benchmark}: done ({finished} of {total} pairs){reused}"


class SweepShow(abc.ABC):
    """A sweep's progress as :func:`densing.eval.runner.run_sweep` reports it (``on_progress``, ``on_reuse``):
    the pairs counted by status, each pair's reuse of kept builds; the subclasses say it on a bar or in lines."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.counts = {"skipped": 0, "done": 0, "sharded": 0, "stopped": 0}
        self.reuse: dict[tuple[str, str], PairReuse] = {}
        self.requests_said: set[tuple[str, str]] = set()

    def on_progress(self, model: str, benchmark: str, status: str) -> None:
        """``run_sweep``'s progress: a pair begun, a model's load in it, or a pair finished (counted)."""
        if status == "loading":
            self.show_step(f"loading model {model}")
        elif status == "loaded":
            self.show_step(f"{model} / {benchmark}: evaluating")
        elif status == "running":
            self.show_step(f"{model} / {benchmark}: building the requests and evaluating")
        else:
            self.counts[status] += 1
            self.show_finished(model, benchmark, status)

    def on_reuse(self, model: str, benchmark: str, file: Path, requests: int) -> None:
        """``run_sweep``'s reuse of a task's kept build: the pair's first said at once, the rest counted."""
        if self.reuse.setdefault((model, benchmark), PairReuse()).add(file, requests):
            self.show_line(reuse_line(model, benchmark, file, requests))

    def on_requests(self, model: str, benchmark: str, handed) -> None:
        """``run_sweep``'s requests handed to a model: the pair's first call said at once, the rest not."""
        if (model, benchmark) not in self.requests_said:
            self.requests_said.add((model, benchmark))
            self.show_line(first_request_line(model, benchmark, handed))

    def finished(self) -> int:
        """The pairs finished so far, whatever their status."""
        return sum(self.counts.values())

    @abc.abstractmethod
    def show_step(self, text: str) -> None:
        """Say that the step ``text`` begins."""

    @abc.abstractmethod
    def show_line(self, text: str) -> None:
        """Say ``text`` once, the step under way unchanged."""

    @abc.abstractmethod
    def show_finished(self, model: str, benchmark: str, status: str) -> None:
        """Say that a pair finished with ``status`` (:attr:`counts` already holds it)."""

    @abc.abstractmethod
    def stop(self) -> None:
        """End the display (on every way out of the sweep)."""


class PlainShow(SweepShow):
    """The sweep's progress as :class:`PlainLines`: each step, each pair finished, each pair's reuse."""

    def __init__(self, total: int, lines: PlainLines) -> None:
        super().__init__(total)
        self.lines = lines

    def show_step(self, text: str) -> None:
        self.lines.step(text)

    def show_line(self, text: str) -> None:
        self.lines.line(text)

    def show_finished(self, model: str, benchmark: str, status: str) -> None:
        if status == "done":
            self.lines.line(
                done_line(model, benchmark, self.finished(), self.total, self.reuse.get((model, benchmark)))
            )
        else:
            words = {
                "skipped": "in the store, skipped",
                "sharded": "this shard's share computed",
                "stopped": "stopped at the time limit",
            }
            self.lines.line(f"{model} / {benchmark}: {words[status]} ({self.finished()} of {self.total} pairs)")

    def stop(self) -> None:
        self.lines.close()


class BarShow(SweepShow):
    """The sweep's progress as a rich bar on stderr, its description the step under way; lines above it."""

    def __init__(self, total: int) -> None:
        super().__init__(total)
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(  # on stderr: stdout carries only the results (--format csv > scores.csv)
            TextColumn("[bold]sweep"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
        )
        self.bar = self.progress.add_task("", total=total)
        if self.progress.console.is_terminal:  # at once on a terminal: lm-eval's task index is read first
            self.progress.update(self.bar, description="reading lm-eval's task index …")
            self.progress.start()

    def _started(self) -> None:
        """The bar shown (once the inputs are checked and work begins, where it was not at once)."""
        if not self.progress.live.is_started:
            self.progress.start()

    def show_step(self, text: str) -> None:
        self._started()
        self.progress.update(self.bar, description=f"{text} …")

    def show_line(self, text: str) -> None:
        self._started()
        self.progress.console.print(text, markup=False, highlight=False, soft_wrap=True)  # a path is never broken

    def show_finished(self, model: str, benchmark: str, status: str) -> None:
        self._started()
        self.progress.advance(self.bar)
        reuse = self.reuse.get((model, benchmark))
        if status == "done" and reuse is not None and reuse.tasks > 1:
            self.show_line(done_line(model, benchmark, self.finished(), self.total, reuse))

    def stop(self) -> None:
        if self.progress.live.is_started:  # a bar never shown leaves no blank line before an error
            self.progress.stop()
