"""The tree is laid out by ``ruff format`` and passes ``ruff check``: the rule set, its exceptions (each with its
reason) and the line length live in pyproject.toml's ``[tool.ruff]``. A failure prints ruff's own findings; the fix is
``ruff format`` and ``ruff check --fix`` (or the change by hand that a finding asks for), never a wider exception.

ruff comes with the ``test`` extra; run as ``python -m ruff`` from this interpreter, or the ``ruff`` beside it. Neither
writes into the tree (``--no-cache``)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    """The command that runs ruff: this interpreter's ruff module, else the ruff executable beside the interpreter."""
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    beside = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if beside is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' installs it)")
    return [beside]


def _run(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*_ruff(), *arguments, "--no-cache", "."], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )


def test_the_tree_is_laid_out_by_ruff_format():
    done = _run("format", "--check")
    assert done.returncode == 0, (
        "ruff format would change these files (run `ruff format`):\n" + done.stdout + done.stderr
    )


def test_the_tree_passes_ruff_check():
    done = _run("check", "--output-format", "concise")
    assert done.returncode == 0, "ruff check finds:\n" + done.stdout + done.stderr
