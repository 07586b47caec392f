"""A store's lm-eval request cache merged from the stores that shards of one sweep filled on several machines
(:func:`merge_request_caches`, ``densing eval merge-cache``).

lm-eval caches each request's answer in ``STORE/.cache/MODEL-ID/requests_rank0.db`` (an
``sqlitedict`` table ``unnamed``: key = ``lm_eval.api.model.hash_args(request type, args)``, value =
the pickled answer).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from densing.errors import InputError
from densing.eval.store import CACHE_DIRECTORY
from densing.io import check_writable_folder
from densing.results import Result


@dataclass(frozen=True)
class MergedCache(Result):
    """One request cache of a merged store: its folder under ``.cache``, the requests it holds, how many came
    from each source, how many a source repeated with the same answer, and how many it repeated with another
    (the first source's answer is kept)."""

    folder: str
    requests: int
    added: tuple[int, ...]
    same: int
    different: int


def merge_request_caches(sources, into: str | os.PathLike) -> list[MergedCache]:
    """Merge the request caches of the stores ``sources`` into store ``into`` (``densing eval merge-cache``).

    The shards of one sweep run on several machines (``densing eval --shard K/N``, each into a store on its
    own local disk) each fill a request cache with a disjoint share of the requests; merged, the sweep run
    without ``--shard`` on ``into`` scores every pair from the cache. Each cache folder
    (``.cache/MODEL-ID``, where ID names the model, backend and decoding code, so only caches of the same
    decoder meet) becomes one ``requests_rank0.db`` in ``into`` holding the union of the sources' requests
    (every ``requests_rank*.db`` of the folder; ``into``'s own cache first, then ``sources`` in order). A
    request two sources hold with different answers keeps the first answer and is counted. Each database is
    written to a temporary file beside it and moved into place whole. Raises
    :class:`~densing.errors.InputError` naming a source that is not a store with a request cache."""
    from sqlitedict import SqliteDict

    into = check_writable_folder(into)
    stores = [Path(source) for source in sources]
    if not stores:
        raise InputError("merge-cache: no source store given")
    folders: dict[str, list[tuple[int, Path]]] = {}
    for position, store in enumerate(stores):
        if not store.is_dir():
            raise InputError(f"{store}: not a directory (expected a store written by densing eval --shard)")
        databases = sorted(store.glob(f"{CACHE_DIRECTORY}/*/requests_rank*.db"))
        if not databases:
            raise InputError(f"{store}: no request cache ({CACHE_DIRECTORY}/*/requests_rank*.db): not a store a "
                             "--backend densing-hf or --shard run wrote")
        for database in databases:
            folders.setdefault(database.parent.name, []).append((position, database))
    merged = []
    for folder, databases in sorted(folders.items()):
        target = into / CACHE_DIRECTORY / folder / "requests_rank0.db"
        own = target.parent.resolve()  # into's own cache comes first, and once (into may be a source too)
        inputs = ([(-1, path) for path in sorted(target.parent.glob("requests_rank*.db"))]
                  + [(position, path) for position, path in databases if path.parent.resolve() != own])
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
        temporary = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            with SqliteDict(str(temporary), flag="n", autocommit=False) as table:
                for key, value in answers.items():
                    table[key] = value
                table.commit()
            os.replace(temporary, target)
        finally:
            if temporary.exists():
                temporary.unlink()
        for stale in target.parent.glob("requests_rank*.db"):
            if stale != target:
                stale.unlink()
        merged.append(MergedCache(folder=folder, requests=len(answers), added=tuple(added), same=same,
                                  different=different))
    return merged
