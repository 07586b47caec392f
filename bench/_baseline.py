"""A baseline commit checked out beside this tree for the paired benches (``report_time.py``, ``candidate_tables.py``),
or unpacked from ``git archive`` with the shared data beside it (``report_cpu.py``, ``report_shares.py``).

:func:`baseline_tree` resolves ``rev`` to its short commit before anything runs (a branch may move while a bench
runs), checks it out with ``git worktree add --detach`` in a temporary folder, and yields (that folder, the commit,
the folder's package root for ``PYTHONPATH``: its ``src/`` where the package lived there); the worktree is removed
when the block is left, on every path.
"""

from __future__ import annotations

import contextlib
import subprocess
import tarfile
import tempfile
from io import BytesIO
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


def baseline_folder(revision: str, folder: Path) -> Path:
    """``git archive revision`` unpacked under ``folder``/baseline, ``folder``/shared linked to the shared data's
    folder (the tree reads ``../shared/data``)."""
    from densing import paths

    tree = folder / "baseline"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", revision], capture_output=True, check=True, cwd=ROOT).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    (folder / "shared").symlink_to(paths.SHARED_DATA.resolve().parent, target_is_directory=True)
    return tree
