"""``densing overlap analyze PATH --format json``, parsed without building the typer app (whose start-up costs a
small set as much CPU as its decoding: docs/profiling_internals.md): :func:`parse` recognises that command line (with
``--kernel-rules``, ``--stream``/``--no-stream``, ``--scheduler`` and ``--workers``, each at most once) and :func:`run`
answers it as :func:`densing.cli.overlap.analyze` does; any other goes to typer unchanged (usage errors in its words).
"""

from __future__ import annotations

import sys
from pathlib import Path

from densing.cli.guard import guarded, print_json, refuse
from densing.errors import DensingError
from densing.runtime import processes

_VALUED = {"--format": "fmt", "--kernel-rules": "rules", "--scheduler": "scheduler", "--workers": "workers"}
_FLAGS = {"--stream": True, "--no-stream": False}
#: The values this parser takes; another value is left to typer (its refusal, or a format needing pandas).
_CHOICES = {"fmt": ("json",), "rules": ("hta", "traceinsight")}


def _value(key: str, text: str):
    """``text`` as option ``key``'s value, or None when typer should judge it."""
    if key in _CHOICES:
        return text if text in _CHOICES[key] else None
    if key == "workers":  # at least one (typer refuses 0 in its own words)
        return int(text) if text.isascii() and text.isdigit() and int(text) >= 1 else None
    return text if text and not text.startswith("-") else None


def parse(argv: list[str]) -> dict | None:
    """The options of a plain ``overlap analyze … --format json`` command line, or None for anything else."""
    if len(argv) < 3 or argv[0] != "overlap" or argv[1] != "analyze":
        return None
    found: dict = {}
    words = iter(argv[2:])
    for word in words:
        name, eq, inline = word.partition("=")
        if word in _FLAGS:
            key, value = "stream", _FLAGS[word]
        elif name in _VALUED:
            key = _VALUED[name]
            value = _value(key, inline if eq else next(words, ""))
        elif word and not word.startswith("-"):
            key, value = "path", word
        else:
            return None
        if value is None or key in found:
            return None
        found[key] = value
    return found if "path" in found and found.pop("fmt", None) == "json" else None


def run(options: dict) -> None:
    """Answer a command line :func:`parse` read: the rows as JSON on stdout; a
    :class:`~densing.errors.DensingError` is one line on stderr and exit code 2, Ctrl-C exit code 130."""
    with guarded():
        try:  # what densing.cli.overlap.analyze does with --format json (its option checks hold by construction here)
            from densing.overlap.analysis import analyze_rows

            print_json(
                analyze_rows(
                    Path(options["path"]),
                    options.get("scheduler", "auto"),
                    options.get("workers"),
                    options.get("rules", "hta"),
                    options.get("stream"),
                )
            )
        except DensingError as exc:
            if not processes.interrupted:
                refuse(exc)
            print("error: interrupted", file=sys.stderr)  # Ctrl-C, made into an error where it was raised
            sys.exit(130)
        except KeyboardInterrupt:
            print("error: interrupted", file=sys.stderr)
            sys.exit(130)
