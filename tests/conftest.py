"""Shared test helpers: run the CLI in-process and capture its exit code and output."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("DENSING_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
PYTHIA = SHARED_DATA / "pythia_evals" / "pythia-v1"


@pytest.fixture
def run_cli(capsys):
    """Call ``densing.cli.main(args)``; return (exit_code, stdout, stderr) (:func:`tests.cli_run.run`, a
    non-integer exit code read as 1)."""
    from tests.cli_run import run as run_argv

    def run(*args: str):
        code, out, err = run_argv([str(a) for a in args], capsys)
        return (code if isinstance(code, int) else 1), out, err

    return run


needs_pythia = pytest.mark.skipif(not PYTHIA.is_dir(), reason=f"public Pythia evals not found at {PYTHIA}")
OLMO_LADDER = SHARED_DATA / "olmo_ladder"
needs_olmo = pytest.mark.skipif(not OLMO_LADDER.is_dir(), reason=f"OLMo ladder data not found at {OLMO_LADDER}")
