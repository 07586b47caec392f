"""Where the shipped reference fits and results live (the repository's top-level folders)."""

from __future__ import annotations

import os
from pathlib import Path

from densing.errors import InputError
from densing.validation import as_path

#: The source tree root (densing is installed editable from it, as the README says): the folder holding the package.
REPO_ROOT = Path(os.environ.get("DENSING_HOME", Path(__file__).resolve().parents[1]))


def _shipped(name: str) -> Path:
    """The top-level folder ``name`` of the source tree (:data:`REPO_ROOT`), or its copy inside an installed wheel
    (``densing/_shipped/``, pyproject.toml's force-include)."""
    tree = REPO_ROOT / name
    if tree.is_dir() or "DENSING_HOME" in os.environ:
        return tree
    from importlib.resources import files

    return Path(str(files("densing") / "_shipped" / name))


REFERENCE_FITS = _shipped("reference_fits")
RESULTS = _shipped("results")
SHARED_DATA = Path(os.environ.get("DENSING_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


def default_store() -> Path:
    """Where ``densing measure`` keeps its results store unless told otherwise: ``$XDG_CACHE_HOME/densing/store``, or
    ``~/.cache/densing/store`` where ``XDG_CACHE_HOME`` is unset or not absolute (the XDG base directory rule)."""
    cache = os.environ.get("XDG_CACHE_HOME", "").strip()
    if cache and Path(cache).is_absolute():
        return Path(cache) / "densing" / "store"
    try:
        home = Path.home()
    except RuntimeError:  # no HOME and no user entry to read it from
        raise InputError(
            "no home folder and no XDG_CACHE_HOME to hold the default results store; give --store DIR"
        ) from None
    return home / ".cache" / "densing" / "store"


#: The public table: the targets of ``densing density`` without ``--targets``, the report's without ``--results``.
DEFAULT_DENSITY_TARGETS = RESULTS / "public_models.csv"


def shipped_hint(path) -> str:
    """`` (…the shipped NAME is densing.paths.RESULTS / 'NAME', …)`` when a relative ``path`` that does not exist
    names a shipped table or fit (a notebook started outside the repository); else ``""``."""
    path = Path(path)
    if path.is_absolute():
        return ""
    for name, folder in (("RESULTS", RESULTS), ("REFERENCE_FITS", REFERENCE_FITS)):
        found = folder / path.name
        if found.exists():
            return f" (relative to the working folder; the shipped {path.name} is densing.paths.{name} / {path.name!r}: {found})"
    return ""


def source_commit() -> str:
    """The git commit of the source tree (12 hex digits, then `` with changes`` if tracked files differ from it), or
    ``not a git checkout`` for an installed wheel; ``git`` runs with a 5 s limit."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return "not a git checkout"
    git, run = ["git", "-C", str(root)], {"capture_output": True, "text": True, "timeout": 5, "check": True}
    try:
        head = subprocess.run([*git, "rev-parse", "--short=12", "HEAD"], **run).stdout.strip()
        dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"], **run).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + (" with changes" if dirty else "")


def resolve_fit(text: str | os.PathLike, *, what: str | None = None) -> Path:
    """A reference fit given as a path or by a shipped fit's short name (``NAME``, ``family_NAME``, ``NAME_two_step``
    or ``NAME_composed``: ``llama-3.1_mmlu``); a path that does not exist is refused, never replaced by a shipped fit.
    An unknown name is an :class:`~densing.errors.InputError` naming ``what`` (default ``--fit``) and the closest."""
    import difflib

    path = as_path(text, "--fit" if what is None else what)  # '' would be the working folder
    given = f"--fit {text}" if what is None else f"{what}: {str(text)!r}"
    if path.exists() or path.is_symlink():  # a broken link or a loop: the reader says which
        return path
    if path.parent != Path(".") or path.suffix == ".json":  # a path, never a shipped fit's name
        raise InputError(
            f"{given}: no such file (a path is read as given; a shipped fit is named without a folder or .json)"
        )
    name = path.name.removesuffix(".json")
    for candidate in (name, f"family_{name}", f"{name}_two_step", f"{name}_composed"):
        found = REFERENCE_FITS / f"{candidate}.json"
        if found.is_file():
            return found
    shipped = sorted(p.stem for p in REFERENCE_FITS.glob("*.json"))
    close = difflib.get_close_matches(name, shipped, n=3, cutoff=0.5) or difflib.get_close_matches(
        f"family_{name}", shipped, n=3, cutoff=0.5
    )
    hint = f"; close: {', '.join(close)}" if close else f"; the shipped fits are in {REFERENCE_FITS}"
    raise InputError(f"{given}: no such file, nor a shipped fit of that name{hint}")
