"""One way for tests to run the command line in-process: ``run(argv, capsys)`` → (exit code, stdout, stderr); and
:func:`importing`, the moment a script started in a process of its own runs its imports."""

from __future__ import annotations

import time

import pytest

from densing.cli import main


def run(argv, capsys):
    """``densing argv`` through :func:`densing.cli.main`; a command that returns without exiting counts as exit 0."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def importing(process, limit: float = 120.0) -> None:
    """Wait until ``process`` runs the script's imports (numpy mapped into it): the interpreter's own start-up, which
    no script can guard, is over, however loaded the machine."""
    maps, start = f"/proc/{process.pid}/maps", time.monotonic()
    while time.monotonic() - start < limit and process.poll() is None:
        try:
            with open(maps, encoding="utf-8", errors="replace") as handle:
                if "numpy" in handle.read():
                    return
        except OSError:
            pass
        time.sleep(0.01)
