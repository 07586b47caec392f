"""Atomic file writes: a reader never sees a half-written output file, nor one file of a set without the others."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename it into place."""
    from densing.errors import InputError

    path = check_writable(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise InputError(f"{path}: cannot write here ({exc.strerror or type(exc).__name__})") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual mode
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise InputError(f"{path}: cannot write here ({exc.strerror or type(exc).__name__})") from None
        raise
    return path


def write_file_set(folder: str | Path, texts: dict[str, str]) -> list[Path]:
    """Write the files ``texts`` (file name → text) into ``folder`` as a set: each to a temporary folder inside
    ``folder`` first, then every one moved into place (``os.replace``, atomic within one file system) only once all
    are written, so a failure leaves none of them; returns the paths written. ``folder`` '' is refused (it would mean
    the working folder)."""
    import shutil

    from densing.errors import InputError
    from densing.validation import as_path

    folder = check_writable_folder(as_path(folder, "out"))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".densing-set.", dir=folder))
    except OSError as exc:
        raise InputError(f"{folder}: cannot write here ({exc.strerror or type(exc).__name__})") from None
    try:
        for name, text in texts.items():
            if (folder / name).is_dir():
                raise InputError(f"{folder / name}: is a folder; expected a file to write")
            atomic_write_text(staging / name, text)
        written = []
        for name in texts:
            os.replace(staging / name, folder / name)
            written.append(folder / name)
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def check_writable(path: str | Path) -> Path:
    """Fail early (InputError) when ``path`` cannot be written: a directory, or a folder we may not write in."""
    from densing.errors import InputError

    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give a file name to write")
    parent = path.parent if str(path.parent) else Path(".")
    if _writable_ancestor(parent) is None:
        raise InputError(f"{path}: cannot write here (no writable folder {parent})")
    return path


def _writable_ancestor(folder: Path) -> Path | None:
    """The nearest of ``folder`` and its parents that exists, where it is a folder this process may write in (so
    ``folder`` can be made below it); None otherwise (a file in the way, no right to write, nothing exists)."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is None or not existing.is_dir() or not os.access(existing, os.W_OK):
        return None
    try:  # access() says yes to root everywhere (/proc, a read-only mount): a file made and gone at once says for sure
        tempfile.TemporaryFile(dir=existing).close()
    except OSError:
        return None
    return existing


def check_writable_folder(path: str | Path) -> Path:
    """Fail early (InputError) when the folder ``path`` (a results store, say) cannot be made or written: a file
    there, a file where one of its parents should be, or a nearest existing parent not writable."""
    from densing.errors import InputError

    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError(f"{path}: exists and is not a folder")
    if _writable_ancestor(path) is None:
        existing = next((p for p in (path, *path.parents) if p.exists()), None)
        raise InputError(f"{path}: cannot make or write this folder (nearest existing: {existing})")
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Text version of :func:`atomic_write_bytes` (UTF-8)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def read_text(path: str | Path) -> str:
    """A user's text file as UTF-8: bytes that are no UTF-8 text are an InputError naming the file and where; an
    ``OSError`` (no such file, a folder) is the caller's to word."""
    from densing.errors import InputError

    path = Path(path)
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def read_json_object(path: str | Path) -> dict:
    """Parse a JSON file whose top level is an object; InputError naming the file otherwise."""
    import orjson

    from densing.errors import InputError
    from densing.paths import shipped_hint

    path = Path(path)
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise InputError(f"{path}: no such file{shipped_hint(path)}") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a JSON file") from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path}: malformed JSON ({exc})") from None
    except OSError as exc:  # a symlink loop, a permission, a name too long
        raise InputError(f"{path}: cannot read ({exc.strerror or type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object at the top level")
    return data


def frame_to_csv(frame) -> str:
    """A DataFrame as CSV text: header row, no index, dates as YYYY-MM-DD, ``\\n`` line ends."""
    import io

    import pandas as pd

    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_datetime64_any_dtype(out[column]):
            out[column] = out[column].dt.strftime("%Y-%m-%d")
    buffer = io.StringIO()
    out.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()


def command_line(argv: list[str] | None = None) -> str | None:
    """The ``densing …`` invocation, for a fit's provenance; None when not run as ``densing``.

    ``argv`` defaults to ``sys.argv``; the command is recorded only when the program is the
    ``densing`` console script (or the root ``cli.py``), not a test runner or a notebook.
    """
    import sys

    argv = sys.argv if argv is None else argv
    if not argv or not any(name in Path(argv[0]).name for name in ("densing", "cli.py")):
        return None
    return "densing " + " ".join(argv[1:])
