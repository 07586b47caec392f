"""The results store: one directory of Parquet parts, each a tidy table for one unit of work.

A part holds every row of one (model, benchmark) evaluation, or of one ingested lm-eval results file, written
atomically (a kill -9 loses at most the part in flight; several writers may share a store). Each row carries the
``config_hash`` of its run; a sweep skips a part stored under the hash it would write. lm-eval caches each request's
answer in ``STORE/.cache/MODEL-ID/requests_rank0.db`` (an ``sqlitedict`` table ``unnamed``: key =
``lm_eval.api.model.hash_args(request type, args)``, value = the pickled answer).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from densing.data.schema import validate_results
from densing.errors import InputError
from densing.io import check_writable_folder
from densing.results import Result

CACHE_DIRECTORY = ".cache"
#: the folder under :data:`CACHE_DIRECTORY` of the built requests (:func:`serve_built_requests`)
BUILT_DIRECTORY = "built"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")[:80] or "x"


def part_path(store: str | Path, model: str, benchmark: str) -> Path:
    """Where the part of (model, benchmark) lives: ``<store>/<model>/<benchmark>-<hash of the exact names>.parquet``."""
    digest = hashlib.sha256(f"{model}\x1f{benchmark}".encode()).hexdigest()[:10]
    return Path(store) / _slug(model) / f"{_slug(benchmark)}-{digest}.parquet"


def read_part_hash(path: Path) -> str | None:
    """The config hash stored in a part's file metadata, or None if the part is absent/unreadable."""
    try:
        value = (pq.read_schema(path).metadata or {}).get(b"densing.config_hash") if path.is_file() else None
    except Exception:  # a foreign or damaged file: treat as not done, it will be rewritten
        return None
    return value.decode() if value else None


def is_done(store: str | Path, model: str, benchmark: str, config_hash: str) -> bool:
    """True when the part of (model, benchmark) exists and was written with ``config_hash``."""
    return read_part_hash(part_path(store, model, benchmark)) == config_hash


def write_part(
    store: str | Path, model: str, benchmark: str, rows: pd.DataFrame, config_hash: str, *, validated: bool = False
) -> Path:
    """Validate ``rows`` (unless ``validated``) and write them as the part of (model, benchmark), atomically."""
    path = part_path(store, model, benchmark)
    frame = rows if validated else validate_results(rows, source=f"{model} / {benchmark}")
    _write_table(path, pa.Table.from_pandas(frame, preserve_index=False), config_hash)
    return path


def rewrite_key(path: Path, config_hash: str) -> None:
    """Give the part at ``path`` the key ``config_hash`` (metadata and column), atomically; nothing else changes."""
    table = pq.read_table(path)
    if "config_hash" in table.column_names:
        index = table.column_names.index("config_hash")
        column = pa.array([config_hash] * table.num_rows, type=table.schema.field(index).type)
        table = table.set_column(index, table.schema.field(index), column)
    _write_table(path, table, config_hash)


def _write_table(path: Path, table: pa.Table, config_hash: str) -> None:
    """Write ``table`` as the part at ``path`` with its key in the file metadata, atomically."""
    metadata = {**(table.schema.metadata or {}), b"densing.config_hash": config_hash.encode()}
    table = table.replace_schema_metadata(metadata)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{path.name}.*.tmp"):  # left by a process killed mid-write
        if not _writer_alive(stale):  # (another writer's file in flight is left alone)
            stale.unlink(missing_ok=True)
    with _replacing(path) as temporary, open(temporary, "wb") as handle:
        pq.write_table(table, handle)
        handle.flush()
        os.fsync(handle.fileno())


@contextlib.contextmanager
def _replacing(path: Path, ending: str = "tmp"):
    """A temporary file beside ``path`` (``.<name>.<pid>.<ending>``) that replaces ``path`` when the block ends
    without an error; it is removed on every way out."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{ending}")
    try:
        yield temporary
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def serve_built_requests(
    task: Any, folder: Path, key: str, on_reuse: Callable[[Path, int], None] | None = None
) -> None:
    """Make ``task.build_all_requests`` (lm-eval's) keep its requests in ``folder`` and reuse them;
    ``on_reuse(file, requests)`` is told each time a kept file is read instead of a build.

    The file is ``<task>-<digest>.pickle``, the digest of ``key`` (the benchmark's
    :func:`~densing.eval.harness.requests_key` and the few-shot seed), the task's shots, the limit and the rank among
    ``world_size`` ranks; it is written atomically once built. A file that does not read back as a non-empty list
    of lm-eval ``Instance`` objects is rebuilt and replaced (a warning); a build with a chat template, a system
    instruction, chosen samples or lm-eval's own request cache is not kept."""
    import pickle

    from lm_eval.api.instance import Instance

    build = task.build_all_requests
    name = task.config.task

    def cached(*, limit: int | None = None, rank: int = 0, world_size: int = 1, **options: Any) -> None:
        if any(options.get(k) for k in ("samples", "system_instruction", "apply_chat_template", "cache_requests")):
            return build(limit=limit, rank=rank, world_size=world_size, **options)
        digest = hashlib.sha256(
            json.dumps([key, name, task.config.num_fewshot, limit, rank, world_size], default=str).encode()
        ).hexdigest()[:16]
        path = folder / f"{_slug(name)}-{digest}.pickle"
        try:
            with open(path, "rb") as handle:
                instances = pickle.load(handle)
            if isinstance(instances, list) and instances and all(isinstance(i, Instance) for i in instances):
                task._instances = instances
                if on_reuse is not None:
                    on_reuse(path, len(instances))
                return None
            raise ValueError("not a list of lm-eval requests")
        except FileNotFoundError:
            pass
        except Exception as exc:  # a damaged or foreign file: built again and replaced
            logging.getLogger("densing.eval").warning(
                "%s: built requests unreadable (%s: %s); built again", path, type(exc).__name__, exc
            )
        build(limit=limit, rank=rank, world_size=world_size, **options)
        usable_folder(folder, "built-requests folder")
        try:
            with _replacing(path) as temporary, open(temporary, "wb") as handle:
                pickle.dump(list(task.instances), handle, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # requests that do not pickle are built each run
            logging.getLogger("densing.eval").warning(
                "%s: built requests not kept (%s: %s)", path, type(exc).__name__, exc
            )
        return None

    task.build_all_requests = cached


def set_aside(path: Path, damage: str) -> Path:
    """Rename the damaged ``path`` (a cache densing rebuilds) to ``<name>.damaged`` beside it (``.damaged-2``, … where
    that is taken), kept for a look rather than deleted, with a one-line warning naming it and ``damage``; the new
    name."""
    aside, count = path.with_name(f"{path.name}.damaged"), 1
    while os.path.lexists(aside):
        count += 1
        aside = path.with_name(f"{path.name}.damaged-{count}")
    os.replace(path, aside)
    logging.getLogger("densing.eval").warning("%s: %s; set aside as %s and built again", path, damage, aside.name)
    return aside


def usable_folder(folder: Path, what: str) -> None:
    """Make the cache folder ``folder`` (``what``, for the warning), a file of its name set aside first
    (:func:`set_aside`)."""
    if os.path.lexists(folder) and not folder.is_dir():
        set_aside(folder, f"the {what} is a file, not a folder")
    folder.mkdir(parents=True, exist_ok=True)


#: How long the check of a request database waits for another shard's transaction to end (they last milliseconds).
LOCK_WAIT_SECONDS = 60.0


def usable_request_cache(path: Path) -> None:
    """Set aside (:func:`set_aside`) lm-eval's request database ``path`` where it is no SQLite database that reads
    whole: a folder of its name, garbage, a file cut mid-write. SQLite's ``PRAGMA quick_check`` reads every page of it
    once; a missing or empty file is a new database."""
    import sqlite3

    if not os.path.lexists(path):
        return
    if path.is_dir():
        set_aside(path, "the request database is a folder, not a file")
        return
    try:
        with contextlib.closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=LOCK_WAIT_SECONDS)
        ) as database:
            verdict = database.execute("PRAGMA quick_check").fetchone()
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            return  # another shard writing it: in use, not damaged
        verdict = (str(exc),)
    if verdict != ("ok",):
        set_aside(path, f"the request database is damaged ({verdict[0]})")


def _writer_alive(temporary: Path) -> bool:
    """Whether the process named in a temporary part's name (``.<part>.<pid>.tmp``) still runs."""
    pid = temporary.name.rsplit(".", 2)[-2]
    if not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        pass
    return True


def read_store(store: str | Path) -> pd.DataFrame:
    """Every row of a store, validated, with its extra columns (config_hash, loss_per_byte, …)."""
    store = Path(store)
    if not store.is_dir():
        raise InputError(f"{store}: no such results store directory")
    if next(store.rglob("*.parquet"), None) is None:
        raise InputError(f"{store}: the results store has no parts (*.parquet)")
    from densing.data.readers import read_results_store

    return read_results_store(store)  # each part validated as it is read


class CachedOnly(Exception):
    """A run that put ``computed`` of ``total`` uncached requests into the request cache and stops without scoring
    (:func:`densing.eval.runner.run_sweep` writes no part; running again resumes). ``status``: its progress status."""

    status = "stopped"

    def __init__(self, computed: int, total: int) -> None:
        super().__init__(f"{self.status}: {computed} of {total} uncached requests computed into the request cache")
        self.computed, self.total = computed, total


class ShardFinished(CachedOnly):
    """The prefix engine's share of a request batch is in the request cache (``densing eval --shard K/N``)."""

    status = "sharded"


class TimeLimitReached(CachedOnly):
    """The prefix engine's generation reached its time limit and drained the requests in flight (``--time-limit``)."""


def request_shard(args: Sequence[Any], shards: int) -> int:
    """The shard (``0 … shards−1``) of a request with arguments ``args``: CRC-32 of their JSON (stable across runs)."""
    return zlib.crc32(json.dumps(list(args), sort_keys=True, default=str).encode()) % shards


@dataclass(frozen=True)
class MergedCache(Result):
    """One merged request cache: its folder, its requests, those from each source, and the repeats (same, other)."""

    folder: str
    requests: int
    added: tuple[int, ...]
    same: int
    different: int


def merge_request_caches(sources, into: str | os.PathLike) -> list[MergedCache]:
    """Merge the request caches of the stores ``sources`` into store ``into`` (``densing eval merge-cache``).

    Each cache folder (``.cache/MODEL-ID``, ID naming the model, backend and decoding code) becomes one
    ``requests_rank0.db`` in ``into`` holding the union of that folder's ``requests_rank*.db`` (``into``'s own first,
    then ``sources`` in order), moved into place whole. A source that is not a store with a request cache is an
    :class:`~densing.errors.InputError`."""
    from sqlitedict import SqliteDict

    into = check_writable_folder(into)
    stores = [Path(source) for source in sources]
    if not stores:
        raise InputError("merge-cache: no source store given")
    folders: dict[str, list[tuple[int, Path]]] = {}  # cache folder → (its store's position, a database of it)
    for position, store in enumerate(stores):
        if not store.is_dir():
            raise InputError(f"{store}: not a directory (expected a store written by densing eval --shard)")
        databases = sorted(store.glob(f"{CACHE_DIRECTORY}/*/requests_rank*.db"))
        if not databases:
            raise InputError(
                f"{store}: no request cache ({CACHE_DIRECTORY}/*/requests_rank*.db): not a store a "
                "--backend densing-hf or --shard run wrote"
            )
        for database in databases:
            folders.setdefault(database.parent.name, []).append((position, database))
    merged = []
    for folder, databases in sorted(folders.items()):
        target = into / CACHE_DIRECTORY / folder / "requests_rank0.db"
        own = target.parent.resolve()  # into's own cache comes first, and once (into may be a source too)
        inputs = [(-1, path) for path in sorted(target.parent.glob("requests_rank*.db"))] + [
            (position, path) for position, path in databases if path.parent.resolve() != own
        ]
        answers: dict = {}
        added = [0] * len(stores)
        same = different = 0
        for position, path in inputs:
            with SqliteDict(str(path), flag="r") as table:
                for key, value in table.items():
                    if key not in answers:
                        answers[key] = value
                        if position >= 0:
                            added[position] += 1
                    elif answers[key] == value:
                        same += 1
                    else:
                        different += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        with (
            _replacing(target, "partial") as temporary,
            SqliteDict(str(temporary), flag="n", autocommit=False) as table,
        ):
            table.update(answers)
            table.commit()
        for stale in (stale for stale in target.parent.glob("requests_rank*.db") if stale != target):
            stale.unlink()
        merged.append(
            MergedCache(folder=folder, requests=len(answers), added=tuple(added), same=same, different=different)
        )
    return merged


#: the longest a computed answer waits in memory before it is written to the request cache
COMMIT_SECONDS = 1.0
#: The lm-eval releases :func:`request_cache_in_transactions` is written for: it subclasses ``CachingLM`` and
#: ``CacheHook`` and relies on their attributes (``lm``, ``cache_db``, ``dbdict``, ``add_partial``, ``hash_args``) as
#: these releases define them; pyproject.toml bounds the requirement alike.
CACHE_WRITTEN_FOR = ("0.4.8", "0.5")


def cache_written_for(version: str) -> bool:
    """Whether lm-eval ``version`` lies in :data:`CACHE_WRITTEN_FOR` (from the first, before the second; a pre-release
    of the second, 0.5.0rc1, counts as that release)."""
    from packaging.version import InvalidVersion, Version

    try:
        found = Version(Version(version).base_version)
    except InvalidVersion:
        return False
    low, high = (Version(v) for v in CACHE_WRITTEN_FOR)
    return low <= found < high


def installed_lm_eval_fits() -> bool:
    """Whether the installed lm-eval release lies in :data:`CACHE_WRITTEN_FOR`; where it does not, a one-line warning
    says that lm-eval's own request cache stays."""
    from importlib.metadata import version

    installed = version("lm_eval")
    if cache_written_for(installed):
        return True
    logging.getLogger("densing.eval").warning(
        "lm-eval %s: the request cache is lm-eval's own (densing's transactions are written for %s to before %s)",
        installed,
        *CACHE_WRITTEN_FOR,
    )
    return False


@contextlib.contextmanager
def request_cache_in_transactions():
    """lm-eval's request cache (``CachingLM``: the same file, keys and answers) inside, written in short transactions.

    lm-eval opens its ``SqliteDict`` with ``autocommit=True``: every answer is written twice (the backend's partial
    hook, then the wrapper), each write a transaction of its own that the caller waits on, each statement recording
    the caller's stack (``outer_stack``). Here the partial hook keeps answers in memory and writes those it holds in one
    transaction once :data:`COMMIT_SECONDS` have passed since the last (a kill -9 loses at most that much work) and
    when a call raises (a time limit or a shard's end keeps all it computed); lm-eval's own writes of every answer
    after a call go in one transaction. A transaction is open only while its writes run: processes sharing the file
    (``--shard``) hold its lock no longer than that. Each cache opened inside is closed when the block is left, on
    every path (its writer thread ends: a model that fails to load on its first request leaves none running).

    Under an lm-eval release outside :data:`CACHE_WRITTEN_FOR` the block leaves lm-eval's own cache in place (each
    answer its own transaction: slower, the same file) and says so once in a warning."""
    from lm_eval.api import model

    if not installed_lm_eval_fits():
        yield
        return

    class TransactionHook(model.CacheHook):
        def __init__(self, owner: Any) -> None:
            super().__init__(owner)
            self.held: dict = {}
            self.written = time.monotonic()

        def add_partial(self, attr: str, req: Any, res: Any) -> None:
            self.held[model.hash_args(attr, req)] = res
            if time.monotonic() - self.written >= COMMIT_SECONDS:
                self.write(blocking=False)

        def write(self, blocking: bool) -> None:
            for key, answer in self.held.items():
                self.dbdict[key] = answer
            self.dbdict.commit(blocking=blocking)
            self.held, self.written = {}, time.monotonic()

    class TransactionCachingLM(model.CachingLM):
        def __init__(self, lm: Any, cache_db: str) -> None:  # lm-eval's, with the table opened for transactions
            from sqlitedict import SqliteDict

            self.lm, self.cache_db = lm, cache_db
            usable_folder(Path(cache_db).parent, "request cache folder")
            usable_request_cache(Path(cache_db))
            self.dbdict = SqliteDict(cache_db, autocommit=False, outer_stack=False)
            opened.append(self.dbdict)
            self.hook = TransactionHook(self)
            lm.set_cache_hook(self.hook)

        def __getattr__(self, attr: str) -> Any:
            run = super().__getattr__(attr)
            if attr not in ("loglikelihood", "loglikelihood_rolling", "generate_until"):
                return run

            def written(requests: list) -> list:
                try:
                    answers = run(requests)
                except BaseException:
                    self.hook.write(blocking=True)
                    raise
                self.hook.held = {}  # lm-eval's wrapper has written every answer
                return answers

            return written

    opened: list = []  # each SqliteDict opened inside, closed on leaving
    saved = model.CachingLM
    model.CachingLM = TransactionCachingLM
    try:
        yield
    finally:
        model.CachingLM = saved
        for table in opened:
            table.close()
