"""Reading trace files: raw bytes, gzip inflated with ISA-L (``isal``, zlib-compatible and about twice as fast as
zlib's inflate), whole or piece by piece. Every failure is a :class:`~densing.errors.TraceError` naming the file."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from isal import isal_zlib

from densing.errors import TraceError

PIECE_BYTES = 1 << 20


def is_gzip(path: Path) -> bool:
    return path.name.endswith(".gz")


@contextmanager
def _reading(path: Path):
    """An OSError inside is a TraceError naming ``path``."""
    try:
        yield
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_pieces(path: Path, piece_bytes: int = PIECE_BYTES) -> Iterator[bytes]:
    """The decompressed file in pieces of at most ``piece_bytes``, read as needed (memory: one piece of each)."""
    with _reading(path), path.open("rb") as fh:
        if not is_gzip(path):
            while chunk := fh.read(piece_bytes):
                yield chunk
            return
        d = isal_zlib.decompressobj(31)
        started = False
        try:
            while True:
                chunk = d.unused_data or fh.read(piece_bytes)
                if not started and not chunk:
                    raise TraceError(f"{path}: truncated gzip (an empty file)")
                started = True
                if d.eof:  # another gzip member may follow, after any run of zero padding (read piece by piece)
                    chunk = chunk.lstrip(b"\0")
                    while not chunk:
                        if not (more := fh.read(piece_bytes)):
                            return
                        chunk = more.lstrip(b"\0")
                    d = isal_zlib.decompressobj(31)
                if not chunk:
                    raise TraceError(f"{path}: truncated gzip (stream ends before its end marker)")
                while chunk:
                    if out := d.decompress(chunk, piece_bytes):
                        yield out
                    chunk = d.unconsumed_tail
        except isal_zlib.error as exc:
            raise TraceError(f"{path}: corrupt gzip ({exc})") from None


def read_whole(path: Path) -> bytes:
    """The whole decompressed file: the first gzip member inflated in one call when it ends the file (bar zero
    padding), else every member through :func:`read_pieces`, which also names a truncated or corrupt stream."""
    with _reading(path):
        raw = path.read_bytes()
    if not is_gzip(path):
        return raw
    try:
        d = isal_zlib.decompressobj(31)
        data = d.decompress(raw)
        if d.eof and not d.unused_data.strip(b"\0"):
            return data
    except isal_zlib.error:
        pass
    return b"".join(read_pieces(path))


def expected_size(path: Path) -> int:
    """The file's decompressed size, a hint for planning reads: its size, or a gzip trailer's ISIZE (mod 2**32; a
    multi-member gzip's last member's). The last part of a split always runs to the end: an underestimate costs
    memory, never data."""
    with _reading(path):
        size = path.stat().st_size
        if not is_gzip(path) or size < 18:
            return size
        with path.open("rb") as fh:
            fh.seek(-4, os.SEEK_END)
            return int.from_bytes(fh.read(4), "little")


def read_head(path: Path, limit: int = 1 << 16) -> bytes:
    """At most the first ``limit`` decompressed bytes (less when the file is shorter)."""
    with _reading(path), path.open("rb") as fh:
        raw = fh.read(limit if not is_gzip(path) else max(limit // 4, 1 << 14))
    if not is_gzip(path):
        return raw
    try:
        return isal_zlib.decompressobj(31).decompress(raw, limit)
    except isal_zlib.error:
        return b""  # the real read names the problem
