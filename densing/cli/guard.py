"""What every command runs inside, typer or not (:func:`guarded`): worker processes ended on every exit path,
``SIGTERM`` as an exit; :func:`one_line` is the error line, :func:`refuse` prints it; :func:`print_json` writes every
JSON output; :func:`leave` ends the console script. Only the standard library and :mod:`densing.runtime` are imported
(orjson where JSON is written).
"""

from __future__ import annotations

import atexit
import codecs
import os
import re
import signal
import sys
from contextlib import contextmanager, suppress
from typing import NoReturn

from densing.runtime import processes

#: The longest error line printed: a value echoed in a message (a YAML alias bomb, a pasted table) is cut to this.
MAX_MESSAGE = 600


#: Characters a terminal acts on rather than shows: C0 and C1 controls (escape sequences, bells, carriage returns),
#: DEL, and the bidirectional controls that reorder the rest of a line (embeddings, overrides, isolates, marks).
_ACTING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """``text`` with every character a terminal would act on written as its visible escape (``\\x1b``, ``\\u202e``),
    as ripgrep and git show names: a name cannot clear the screen, retitle the window or reverse a line. Line feeds and
    tabs stay (the layout's own)."""
    return _ACTING.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


def print_json(value) -> None:
    """Print an already JSON-able value (numpy scalars allowed), indented: every JSON output's writer. Each character
    :func:`visible` escapes is written as its JSON escape (``\\u202e``): the same JSON value, read back unchanged, that
    no terminal acts on (orjson already escapes C0 controls)."""
    import orjson

    text = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode()
    sys.stdout.write(_ACTING.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


def one_line(message: str) -> str:
    """The first line of ``message`` (:func:`visible`), its middle cut out past :data:`MAX_MESSAGE` characters."""
    line = visible(message.splitlines()[0]) if message else ""
    if len(line) <= MAX_MESSAGE:
        return line
    return f"{line[: MAX_MESSAGE - 100]} … [{len(line) - MAX_MESSAGE + 97:,} characters cut] … {line[-80:]}"


def refuse(exc: Exception) -> NoReturn:
    """A :class:`~densing.errors.DensingError` as the command line says it: one line on stderr, exit code 2."""
    print(f"error: {one_line(str(exc)) if str(exc) else type(exc).__name__}", file=sys.stderr)
    sys.exit(2)


#: ASCII for the characters densing's output uses most, where the terminal cannot encode them.
ASCII_FOR = {
    "≤": "<=",
    "≥": ">=",
    "∞": "inf",
    "ρ": "rho",
    "±": "+/-",
    "–": "-",
    "—": "-",
    "−": "-",
    "×": "x",
    "·": "*",
    "…": "...",
    "→": "->",
    "←": "<-",
    "≈": "~",
    "≠": "!=",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "σ": "sigma",
    "τ": "tau",
    "Δ": "Delta",
    "μ": "u",
    "µ": "u",
    "²": "^2",
    "³": "^3",
    "√": "sqrt",
    "•": "*",
    "✓": "ok",
    "✗": "x",
}

_SUPERSCRIPTS = "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"
_FROM_SUPERSCRIPT = str.maketrans(_SUPERSCRIPTS, "-0123456789")


def _to_ascii(exc: UnicodeError):
    """The codec error handler ``densing-ascii``: a character the stream cannot encode in ASCII (:data:`ASCII_FOR`,
    é → e, or a ``\\u`` escape)."""
    import unicodedata

    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start : exc.end]
    if all(c in _SUPERSCRIPTS for c in text):  # an exponent, 10⁻⁴: 10^-4
        return "^" + text.translate(_FROM_SUPERSCRIPT), exc.end
    return "".join(
        ASCII_FOR.get(c)
        or unicodedata.normalize("NFKD", c).encode("ascii", "ignore").decode()
        or c.encode("ascii", "backslashreplace").decode()
        for c in text
    ), exc.end


def plain_terminal() -> None:
    """Let stdout and stderr spell in ASCII (:func:`_to_ascii`) what their encoding cannot encode."""
    codecs.register_error("densing-ascii", _to_ascii)
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "").replace("_", "")
        if encoding not in ("utf8", "utf8sig") and hasattr(stream, "reconfigure"):
            with suppress(ValueError, OSError):  # a closed or detached stream
                stream.reconfigure(errors="densing-ascii")


@contextmanager
def guarded():
    """Run a command: ``SIGTERM`` raises :class:`~densing.processes.Terminated` (exit 143, ``error: terminated``) and
    ``SIGINT`` ``KeyboardInterrupt`` (exit 130), each also where a library swallowed the exception it raised and the
    command ran on to its end (the handlers' flags), or where Python could raise none and would print it as ignored
    (:func:`~densing.runtime.processes.quiet_unraisable`); afterwards any worker left alive is ended, the handlers, the
    hook and the flags put back (a sweep run later in the same process, :func:`densing.eval.runner.run_sweep`, reads
    the interrupt's flag)."""
    plain_terminal()
    before = processes.children()  # a caller's own processes (main called from Python) are not the command's
    previous = signal.getsignal(signal.SIGTERM)
    previous_int = signal.getsignal(signal.SIGINT)
    previous_hook = sys.unraisablehook
    processes.terminated = False
    processes.interrupted = False
    processes.exits_on_signals()
    sys.unraisablehook = processes.quiet_unraisable(previous_hook)
    try:
        yield
        if processes.terminated:  # SIGTERM's exception was swallowed where it was raised
            raise processes.Terminated()
        if processes.interrupted:  # so was Ctrl-C's KeyboardInterrupt: the command still ends as interrupted, 130
            print("error: interrupted", file=sys.stderr)
            raise SystemExit(130)  # an exit, as Terminated is: main() called from Python ends 130, not by SIGINT
    except processes.Terminated:
        print("error: terminated", file=sys.stderr)
        raise
    finally:
        processes.end_children(keep=before)  # any worker process the command left alive ends with it
        processes.terminated = processes.interrupted = False  # read during the command only: none stops what follows
        sys.unraisablehook = previous_hook
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if previous_int is not None and previous_int is not signal.getsignal(signal.SIGINT):
            signal.signal(signal.SIGINT, previous_int)


#: The exit code of a command whose reader went away (``densing trend | head -1``): 1, as click and Python's advice.
BROKEN_PIPE_EXIT = 1


def _quiet_stdout() -> None:
    """Point standard output at ``/dev/null``: what is buffered for a reader that went away is dropped at exit."""
    with suppress(AttributeError, ValueError, OSError):  # no stdout, or one without a file descriptor
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _exit_code(main) -> int:
    """Run ``main()``; its exit code."""
    try:
        main()
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)  # sys.exit("message"): Python prints it and exits 1
        return 1
    except BrokenPipeError:
        _quiet_stdout()
        return BROKEN_PIPE_EXIT
    except KeyboardInterrupt:  # Ctrl-C before a command's own handling (its imports, the help): one line, 130
        print("error: interrupted", file=sys.stderr)
        return 130
    return 0


def leave(main) -> None:
    """Run ``main()``, the exit handlers, flush stdout and stderr and end with ``os._exit`` (``main``'s exit code):
    freeing every module's objects at shutdown gives nothing back. A closed stderr takes the error line nowhere, a
    closed stdout is refused (exit 2), a reader that goes away ends the command with :data:`BROKEN_PIPE_EXIT`."""
    if sys.stderr is None:  # print(file=None) would write to stdout
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115  (the process's stderr from here on: never closed)
    if sys.stdout is None:
        print(
            "error: standard output is closed; densing prints its answer there (redirect it to a file or "
            "/dev/null instead)",
            file=sys.stderr,
        )
        code = 2
    else:
        code = _exit_code(main)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BrokenPipeError:  # a reader that went away (| head) while the last lines waited in the buffer
            _quiet_stdout()
            code = code or BROKEN_PIPE_EXIT
        except (ValueError, OSError):  # a closed stream
            pass
    os._exit(code)
