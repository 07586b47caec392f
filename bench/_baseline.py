"""A baseline commit checked out beside this tree for the paired benches (``report_time.py``, ``candidate_tables.py``).

:func:`baseline_tree` resolves ``rev`` to its short commit before anything runs (a branch may move while a bench
runs), checks it out with ``git worktree add --detach`` in a temporary folder, and yields (that folder, the commit,
the folder's package root for ``PYTHONPATH``: its ``src/`` where the package lived there); the worktree is removed
when the block is left, on every path.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_root(tree: Path) -> Path:
    """The folder to put on ``PYTHONPATH`` for ``tree``'s package: ``src/`` in the older layout, else the tree."""
    return tree / "src" if (tree / "src" / "densing").is_dir() else tree


@contextlib.contextmanager
def baseline_tree(rev: str):
    """(folder, short commit, package root) of ``rev`` checked out in a temporary worktree (module docstring)."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True, text=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), commit],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            yield base, commit, package_root(base)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                check=False,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
