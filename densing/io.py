"""Atomic file writes: a reader never sees a half-written output file, nor one file of a set without the others; an
output path is written only where it names a regular file or nothing (:func:`check_writable`), a link written through.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from pathlib import Path

from densing import paths
from densing.errors import InputError
from densing.validation import as_path

#: The longest file name (bytes) most file systems take (ext4, XFS, btrfs, tmpfs, APFS, NTFS in UTF-16 units).
NAME_MAX = 255
#: Bytes of the output's name kept in its temporary file's name (``.<name>.XXXXXXXX.tmp`` stays under NAME_MAX).
_TEMP_NAME_BYTES = 200


def _cannot(path: Path, exc: OSError):
    return InputError(f"{path}: cannot write here ({exc.strerror or type(exc).__name__})")


def _stage(target: Path, data: bytes) -> str:
    """``data`` in a new temporary file beside ``target``, fsynced, with the usual mode; its path."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        short = target.name.encode()[:_TEMP_NAME_BYTES].decode(errors="ignore")
        fd, tmp = tempfile.mkstemp(prefix=f".{short}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _cannot(target, exc) from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual mode
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _cannot(target, exc) from None
        raise
    return tmp


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to a temporary file beside ``path``'s target (the file a symbolic link points to), fsync it,
    then rename it into place; ``path`` is checked first (:func:`check_writable`)."""
    path = check_writable(path)
    _write_all([(Path(os.path.realpath(path)), data, path)])  # a dangling link's target is made
    return path


def create_new_text(path: str | Path, text: str, option: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` only where no file has that name, atomically and exclusively: staged in a
    temporary file beside it, then hard-linked to the name (a link refuses a name taken, in one step), so that of
    processes racing for one new name exactly one writes and each other is told the file exists (an InputError
    naming ``option``); ``path`` is checked first (:func:`check_writable`)."""
    path = check_writable(path)
    target = Path(os.path.realpath(path))
    temporary = _stage(target, text.encode("utf-8"))
    try:
        os.link(temporary, target)
    except FileExistsError:
        raise InputError(
            f"{path}: {option}: the file exists; give a new file name (densing never overwrites it)"
        ) from None
    except OSError as exc:
        raise _cannot(path, exc) from None
    finally:
        Path(temporary).unlink(missing_ok=True)
    return path


def _write_all(files: list[tuple[Path, bytes, Path]]) -> None:
    """Each (target, data, name shown in an error) staged (:func:`_stage`), then all moved into place."""
    staged: list[tuple[str, Path, Path]] = []
    try:
        for target, data, shown in files:
            staged.append((_stage(target, data), target, shown))
        for tmp, target, shown in staged:
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise _cannot(shown, exc) from None
    finally:
        for tmp, _, _ in staged:
            Path(tmp).unlink(missing_ok=True)  # gone once moved


def write_file_set(folder: str | Path, texts: dict[str, str]) -> list[Path]:
    """Write the files ``texts`` (file name → text) into ``folder`` as a set (each checked by :func:`check_writable`),
    every one staged before any is moved into place, so a failure leaves none of them; the paths written."""
    folder = check_writable_folder(as_path(folder, "out"))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot(folder, exc) from None
    written = [check_writable(folder / name) for name in texts]
    targets = [Path(os.path.realpath(path)) for path in written]
    _write_all([(target, text.encode("utf-8"), target) for target, text in zip(targets, texts.values())])
    return written


def check_writable(path: str | Path) -> Path:
    """``path`` as a :class:`~pathlib.Path`; an InputError (one line) where it cannot be written as a regular file (a
    directory, a device, a pipe, a socket, a read-only file, a name too long, a link loop, a folder not writable)."""
    path = Path(path)
    _check_name_lengths(path)
    target = Path(os.path.realpath(path))
    where = f"{path} (a link to {target})" if os.path.islink(path) else path
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:  # a link loop, a file where a folder should be, a name too long
        raise _cannot(where, exc) from None
    kind = None if mode is None else kind_of_file(mode)
    if kind == "a directory":
        raise InputError(f"{where}: is a directory; give a file name to write")
    if kind is not None:
        raise InputError(f"{where}: is {kind}; densing writes only regular files (give a file name)")
    if mode is not None and (not mode & 0o222 or not os.access(path, os.W_OK)):  # a shell's > refuses it too
        raise InputError(
            f"{where}: the file is read-only; densing does not replace it (make it writable, or give another name)"
        )
    _check_name_lengths(target)
    if _writable_ancestor(target.parent) is None:
        raise InputError(f"{where}: cannot write here (no writable folder {target.parent})")
    return path


#: The kinds of file other than a regular one, in words.
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def kind_of_file(mode: int) -> str | None:
    """What a file of ``mode`` (``os.stat``'s ``st_mode``) is, in words, where it is not a regular file; else None."""
    if stat.S_ISREG(mode):
        return None
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def output_file(value: str, default_name: str) -> str:
    """The file an output option names: ``value`` as given, or, where it ends in a path separator (``DIR/``: a folder,
    made where missing), the file ``default_name`` in that folder; the one rule of densing's commands and the
    repository's tools. ``/`` alone is left as it is, and refused as a directory where it is written."""
    if value.endswith(("/", os.sep)) and value.strip("/" + os.sep):
        return value + default_name
    return value


def check_outputs_apart(outputs: dict[str, object], inputs: dict[str, object]) -> None:
    """InputError when two of ``outputs`` ({option: path or None}), or an output and one of ``inputs``, are one file:
    an output never replaces an input nor another output."""
    seen: dict[str, str] = {}
    for role, given in [*inputs.items(), *outputs.items()]:
        if given is None or str(given) == "-":
            continue
        key = _file_identity(given)
        if key in seen and role in outputs:
            raise InputError(f"{given}: {role} is also {seen[key]}; give {role} a file of its own")
        seen.setdefault(key, role)


def _file_identity(path: object) -> object:
    """What names one file whatever the path: its device and inode where it exists (a hard link is the file it links
    to), else its resolved path (a file not yet made)."""
    try:
        found = os.stat(str(path))
    except OSError:
        return os.path.realpath(str(path))
    return (found.st_dev, found.st_ino)


def _check_name_lengths(path: Path) -> None:
    """InputError when a name in ``path`` is longer than :data:`NAME_MAX` bytes or the whole than the path limit."""
    for part in path.parts:
        if (size := len(os.fsencode(part))) > NAME_MAX:
            raise InputError(
                f"{part[:40]}…: a file or folder name of {size} bytes; the file system takes at most {NAME_MAX}"
            )
    try:
        limit = os.pathconf("/", "PC_PATH_MAX")
    except (OSError, ValueError):
        limit = None
    size = len(os.fsencode(str(path.absolute())))
    if limit and size >= limit:
        raise InputError(f"{str(path)[:40]}…: a path of {size} bytes; the system takes at most {limit - 1}")


def _writable_ancestor(folder: Path) -> Path | None:
    """The nearest existing of ``folder`` and its parents, where it is a folder this process may write in; else None."""
    existing = next((p for p in (folder, *folder.parents) if _exists(p)), None)
    if existing is None or not existing.is_dir() or not os.access(existing, os.W_OK):
        return None
    try:  # access() says yes to root everywhere (/proc, a read-only mount): a file made and gone at once says for sure
        tempfile.TemporaryFile(dir=existing).close()
    except OSError:
        return None
    return existing


def _exists(path: Path) -> bool:
    """``path.exists()``, False where the name cannot be looked up at all (too long, a loop, a file in the way)."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP, errno.EACCES):
            return False
        raise
    return True


def check_writable_folder(path: str | Path) -> Path:
    """``path``; an InputError where the folder (a results store, a run folder) cannot be made or written."""
    path = Path(path)
    _check_name_lengths(path)
    if _exists(path) and not path.is_dir():
        raise InputError(f"{path}: exists and is not a folder")
    if _writable_ancestor(path) is None:
        existing = next((p for p in (path, *path.parents) if _exists(p)), None)
        raise InputError(f"{path}: cannot make or write this folder (nearest existing: {existing})")
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Text version of :func:`atomic_write_bytes` (UTF-8)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def read_text(path: str | Path) -> str:
    """A user's text file as UTF-8 (else an InputError naming the file and where); an ``OSError`` is the caller's."""
    path = Path(path)
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def read_input_bytes(path: str | Path, what: str = "file") -> bytes:
    """The bytes of the input file ``path``, read once (a named pipe gives its stream once: a reader that opened it
    twice would wait for a second writer); an InputError naming the file where it cannot be read (``what`` names the
    kind of file expected, for a folder given instead)."""
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file{paths.shipped_hint(path)}") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a {what}") from None
    except OSError as exc:  # a symlink loop, a permission, a name too long
        raise InputError(f"{path}: cannot read ({exc.strerror or type(exc).__name__})") from None


def read_json_object(path: str | Path) -> dict:
    """Parse a JSON file whose top level is an object; InputError naming the file otherwise."""
    return parse_json_object(read_input_bytes(path, "JSON file"), path)


def parse_json_object(raw: bytes, path: str | Path) -> dict:
    """The JSON object in ``raw``, the bytes of the file ``path`` (named in the InputError where they are not one)."""
    import orjson

    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path}: malformed JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object at the top level")
    return data


def frame_to_csv(frame) -> str:
    """A DataFrame as CSV text: header row, no index, dates as YYYY-MM-DD, ``\\n`` line ends."""
    import pandas as pd

    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_datetime64_any_dtype(out[column]):
            out[column] = out[column].dt.strftime("%Y-%m-%d")
    return out.to_csv(index=False, lineterminator="\n")


def command_line() -> str | None:
    """The ``densing …`` invocation, for a fit's provenance; None when not run as ``densing`` or ``cli.py``."""
    argv = sys.argv
    if not argv or not any(name in Path(argv[0]).name for name in ("densing", "cli.py")):
        return None
    return "densing " + " ".join(argv[1:])


def read_stored_record(
    path: str | Path,
    command: str,
    *,
    keys: tuple[str, ...] = ("rows",),
    rows: str | None = "rows",
    row_keys: tuple[str, ...] = ("row",),
) -> tuple[dict | None, str]:
    """A stored record the package ships (``keys``; its ``rows`` objects with ``row_keys``) → (record, "") or (None,
    one line naming the file, what is wrong and the ``command`` that makes it again): never raised."""
    path = Path(path)
    root = paths.RESULTS.parent  # a shipped file's path from the repository root where it lies in it, else as given
    where = path.name if not path.is_absolute() else str(path.relative_to(root) if path.is_relative_to(root) else path)
    if not path.exists():
        return None, f"{where} is not there (made by {command}); its section is left out."
    try:
        record = read_json_object(path)
    except InputError as exc:
        reason = str(exc).removeprefix(f"{path}: ")
        return None, f"{where} cannot be read ({reason}); {command} makes it again; its section is left out."
    missing = [k for k in keys if k not in record]
    found = record.get(rows) if rows is not None else None
    if (
        not missing
        and rows is not None
        and not (
            isinstance(found, list)
            and found
            and all(isinstance(r, dict) and all(k in r for k in row_keys) for r in found)
        )
    ):
        missing = [f"{rows} (a list of rows with {', '.join(row_keys)})"]
    if missing:
        return None, (
            f"{where} is not a record densing wrote (no {', '.join(missing)}); {command} makes it again; "
            "its section is left out."
        )
    return record, ""
