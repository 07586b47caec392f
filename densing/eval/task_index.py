"""The folders of task files that lm-eval's task manager indexes for a run: those its tasks are defined in, not
lm-eval's ~15,000 built-in configs (which take tens of seconds to index).

lm-eval's ``TaskManager`` indexes the ``*.yaml`` files under each root (its own task folder, then each
``include_path``): within a root the first file (in path order) to define a name keeps it, a later root's entry
replaces an earlier root's. :func:`task_folders` gives roots that index every name a run reaches as the whole index:

- each name from the last root that defines it (a top-level ``task:``, ``group:`` or ``tag:`` key, each file's keys
  over those of the files it includes: :class:`TaskFiles`), in the deepest folder holding every file that defines it;
- the names a run reaches are its tasks and, recursively, its groups' and tags' members (:func:`reached`, read from
  the index built so far); the index is built again until no member adds a folder.

A task of the run that no file defines but some file mentions gives ``None`` (the caller builds the whole index); a
group's member that no file defines is left out, as the whole index leaves it. ``tests/eval/test_task_index.py``
checks every name of the whole index against the files found for it.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: A top-level key of a task file (quoted or not) and the rest of its line.
_TOP_LEVEL = re.compile(r"""^["']?(task|group|tag|include)["']?[ \t]*:[ \t]*(.*)$""", re.M)
#: An item of a block list under a top-level key (indented or not).
_LIST_ITEM = re.compile(r"""^[ \t]*-[ \t]*(.*)$""")
_COMMENT = re.compile(r"""[ \t]+#.*$""")


def _scalar(text: str) -> str:
    """A YAML scalar as written on one line: without a trailing comment and its quotes."""
    text = _COMMENT.sub("", text).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return text


def _block_items(text: str, start: int) -> list[str]:
    """The ``- item`` lines of a block list that begins at offset ``start`` of ``text``, blanks and comments skipped."""
    items = []
    for line in text[start:].split("\n"):
        item = _LIST_ITEM.match(line)
        if item is not None:
            items.append(item.group(1))
        elif line.strip() and not line.lstrip().startswith("#"):
            break
    return items


def _values(first: str, items: list[str]) -> list[str]:
    """The names a top-level key gives: its scalar, its flow list ``[a, b]``, or the scalars of its block list."""
    first = _scalar(first)
    if not first:
        return [_scalar(item) for item in items if _scalar(item)]
    if first.startswith("["):
        return [_scalar(part) for part in first.strip("[]").split(",") if _scalar(part)]
    return [first]


@dataclass(frozen=True)
class FileKeys:
    """What one task file says at its top level: the names each of its ``task``, ``group`` and ``tag`` keys defines
    (a ``task:`` list of a group's members defines none) and the files it includes (normalised paths)."""

    names: dict[str, tuple[str, ...]]
    includes: tuple[str, ...]


def read_keys(path: str | Path, text: str) -> FileKeys:
    """:class:`FileKeys` of the task file ``path`` whose content is ``text`` (read as lines, not parsed as YAML)."""
    names: dict[str, tuple[str, ...]] = {}
    includes: list[str] = []
    folder = os.path.dirname(str(path))
    for match in _TOP_LEVEL.finditer(text):
        key, rest = match.groups()
        items = _block_items(text, match.end() + 1) if not _scalar(rest) else []
        if key == "include":
            includes.extend(os.path.normpath(os.path.join(folder, name)) for name in _values(rest, items))
        elif key == "tag" or (_scalar(rest) and not _scalar(rest).startswith("[")):
            names[key] = tuple(_values(rest, items))
        else:  # a task: list, a group's members
            names[key] = ()
    return FileKeys(names, tuple(includes))


@dataclass
class TaskFiles:
    """The task files under one root, and the ``*.yaml`` files that define each name (:meth:`definitions`)."""

    root: Path
    texts: dict[str, str] = field(default_factory=dict)
    _keys: dict[str, FileKeys | None] = field(default_factory=dict)
    _merged: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    _defined: dict[str, list[Path]] | None = None

    @classmethod
    def scan(cls, root: str | Path) -> TaskFiles:
        """Read every file under ``root`` whose name says YAML, skipping the folders lm-eval's index skips."""
        files = cls(Path(root))
        for folder, folders, names in os.walk(files.root):
            folders[:] = [name for name in folders if name not in ("__pycache__", ".ipynb_checkpoints")]
            for name in names:
                if "yaml" in name or name.endswith(".yml"):
                    files._read(os.path.join(folder, name))
        return files

    def _read(self, path: str) -> FileKeys | None:
        """The keys of ``path``, read on first use (an include named without "yaml" is read when included)."""
        if path not in self._keys:
            try:
                self.texts[path] = Path(path).read_bytes().decode("utf-8", "ignore")
            except OSError:
                self._keys[path] = None
            else:
                self._keys[path] = read_keys(path, self.texts[path])
        return self._keys[path]

    def _effective(self, path: str, seen: frozenset[str] = frozenset()) -> dict[str, tuple[str, ...]]:
        """The ``task``, ``group`` and ``tag`` keys of ``path`` over its includes' (recursively), as lm-eval merges."""
        if path in self._merged:
            return self._merged[path]
        keys = self._read(path)
        if keys is None or path in seen:  # a cycle: lm-eval refuses the file
            return {}
        merged: dict[str, tuple[str, ...]] = {}
        for included in keys.includes:
            merged.update(self._effective(included, seen | {path}))
        merged.update(keys.names)
        self._merged[path] = merged
        return merged

    def definitions(self) -> dict[str, list[Path]]:
        """Each name defined under the root, with the ``*.yaml`` files that define it (in path order)."""
        if self._defined is None:
            self._defined = {}
            for path in sorted(path for path in self.texts if path.endswith(".yaml")):
                for name in {name for names in self._effective(path).values() for name in names}:
                    self._defined.setdefault(name, []).append(Path(path))
        return self._defined

    def folder_of(self, name: str) -> Path | None:
        """The deepest folder holding every file that defines ``name`` (None: no file here defines it)."""
        paths = self.definitions().get(name)
        return Path(os.path.commonpath([str(path.parent) for path in paths])) if paths else None

    def mentions(self, name: str) -> bool:
        """Whether any file under the root holds ``name`` at all (a superset of those that define it)."""
        return any(name in text for text in self.texts.values())


def builtin_root() -> Path:
    """lm-eval's own task folder (``lm_eval/tasks``)."""
    import lm_eval

    return Path(lm_eval.__file__).parent / "tasks"


def _files(root: Path) -> TaskFiles:
    """The task files under ``root``, read once per process for lm-eval's own folder, else at each call."""
    return _builtin_files(root) if root == builtin_root() else TaskFiles.scan(root)


@functools.cache
def _builtin_files(root: Path) -> TaskFiles:
    return TaskFiles.scan(root)


def reached(index: dict[str, Any], names: Iterable[str]) -> set[str]:
    """``names`` and every name their entries in lm-eval's task ``index`` lead to (members, tags), recursively."""
    seen: set[str] = set()
    pending = list(names)
    while pending:
        name = pending.pop()
        entry = None if name in seen else index.get(name)
        seen.add(name)
        if entry is None:
            continue
        kind = getattr(entry.kind, "name", str(entry.kind))
        if kind == "TAG":
            pending.extend(entry.tags)
        members = (entry.cfg or {}).get("task") if kind == "GROUP" else None
        if not members:
            members = []
        elif not isinstance(members, list):
            members = [members]
        for member in members:
            if isinstance(member, str):
                pending.append(member)
            elif isinstance(member, dict):
                pending.extend(member[key] for key in ("task", "group") if isinstance(member.get(key), str))
    return seen


def task_folders(
    names: Sequence[str],
    roots: Sequence[str | Path],
    whole: int,
    build: Callable[[list[str]], Any],
    optional: Sequence[str] = (),
) -> tuple[list[str], Any] | None:
    """(the folders to index, the index ``build`` makes of them) for a run of the tasks ``names`` and, where some
    file defines them, ``optional``; None to index everything (module docstring). ``roots`` are in lm-eval's order;
    the last ``whole`` of them (the user's include paths) are indexed whole. A root is read only once a name is
    defined in none after it."""
    roots = [Path(root) for root in roots]
    files: dict[int, TaskFiles] = {}
    chosen: dict[int, set[Path]] = {}
    looked: set[str] = set()
    first_whole = len(roots) - whole

    def add(name: str) -> bool:
        """Choose the folder of ``name``; False when it is one of ``names``, mentioned but not defined."""
        for i in range(len(roots) - 1, -1, -1):
            if i not in files:
                files[i] = _files(roots[i])
            folder = files[i].folder_of(name)
            if folder is not None:
                if i < first_whole:
                    chosen.setdefault(i, set()).add(folder)
                return True
        return name not in names or not any(root.mentions(name) for root in files.values())

    pending = set(names) | set(optional)
    while True:
        for name in sorted(pending - looked):
            looked.add(name)
            if not add(name):
                return None
        folders = [str(folder) for i in sorted(chosen) for folder in _outermost(chosen[i])]
        index = build(folders + [str(root) for root in roots[first_whole:]])
        pending = reached(index.task_index, [*names, *optional])
        if pending <= looked:
            return folders, index


def _outermost(folders: set[Path]) -> list[Path]:
    """``folders`` without those inside another of them, sorted."""
    kept = []
    for folder in sorted(folders, key=lambda path: len(path.parts)):
        if not any(folder == other or other in folder.parents for other in kept):
            kept.append(folder)
    return sorted(kept)
