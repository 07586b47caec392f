"""One way for tests to run the command line in-process: ``run(argv, capsys)`` → (exit code, stdout, stderr)."""
from __future__ import annotations

import pytest

from densing.cli import main


def run(argv, capsys):
    """``densing argv`` through :func:`densing.cli.main`; a command that returns without exiting counts as exit 0."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err
