"""Decoding one large file in several forked processes (Linux): the events array is cut at
event boundaries (:func:`densing.overlap.cutting.split_spans`); forked children decode the first
spans while this process decodes the last one together with the document's other keys. A child
shares the parent's memory copy-on-write, so the file's bytes are not copied; its (small)
columns come back pickled through a pipe."""
from __future__ import annotations

import atexit
import os
import pickle
import sys
from pathlib import Path

import msgspec

from densing.errors import TraceError
from densing.overlap.cutting import Unsplittable, split_spans
from densing.overlap.kineto import decode_span, decode_tail


def fork_ok() -> bool:
    """Whether decoding may fork worker processes (Linux only: fork is unsafe on macOS)."""
    return sys.platform.startswith("linux") and (os.cpu_count() or 1) > 1


def in_child(func, *args):
    """Run ``func(*args)`` in a forked child process; returns a callable that waits for it and
    returns ``(True, result)`` or ``(False, exception)``."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns
        code = 0
        try:
            os.close(read_fd)
            try:
                result = (True, func(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the parent
                result, code = (False, exc), 1
            with os.fdopen(write_fd, "wb") as fh:
                pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
        finally:
            os._exit(code)
    os.close(write_fd)

    def wait():
        try:
            with os.fdopen(read_fd, "rb") as fh:
                return pickle.load(fh)
        except (EOFError, pickle.UnpicklingError):
            return False, TraceError("decoding worker process died")
        finally:
            _reap(pid)
    return wait


UNREAPED: list[int] = []


def _reap(pid: int) -> None:
    """Collect the exit status of ``pid`` (and of earlier children) without waiting for it."""
    UNREAPED.append(pid)
    for child in list(UNREAPED):
        try:
            done, _ = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            done = child
        if done:
            UNREAPED.remove(child)


@atexit.register
def reap_all() -> None:
    for child in UNREAPED:
        try:
            os.waitpid(child, 0)
        except ChildProcessError:
            pass
    UNREAPED.clear()


def split_decode(path: Path, data: bytes, parts: int, kind: str, span_decoder=decode_span):
    """Columns and info of the document ``data`` decoded in ``parts`` processes. Raises
    :class:`~densing.overlap.cutting.Unsplittable` when the document is to be decoded whole."""
    spans, tail = split_spans(data, parts)
    waits = [in_child(span_decoder, data, start, cut, kind) for start, cut in spans]
    try:
        last, info = decode_tail(data, tail, path, kind)
    except TraceError:
        last = info = None
    finally:
        outcomes = [wait() for wait in waits]  # every child is waited for, whatever happened
    failed = [value for ok, value in outcomes if not ok]
    if last is None or any(isinstance(e, (msgspec.DecodeError, msgspec.ValidationError)) for e in failed):
        raise Unsplittable  # decoded whole again, which names the problem and its position
    if failed:
        raise failed[0]
    cols = outcomes[0][1]
    for other in [value for _, value in outcomes[1:]] + [last]:
        cols.extend(other)
    return cols, info
