"""Reading trace files: raw bytes, gzip inflated with ISA-L (``isal``, zlib-compatible and about
twice as fast as zlib's inflate), whole or piece by piece. Every failure is a
:class:`~densing.errors.TraceError` naming the file."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from isal import isal_zlib

from densing.errors import TraceError

PIECE_BYTES = 1 << 20


def is_gzip(path: Path) -> bool:
    return path.name.endswith(".gz")


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None


def inflate_pieces(path: Path, data: bytes, piece_bytes: int = PIECE_BYTES) -> Iterator[bytes]:
    """``data``, the bytes of ``path``, decompressed from ``piece_bytes`` pieces if it is gzip
    (every member of a multi-member file); the bytes themselves otherwise."""
    if not is_gzip(path):
        yield data
        return
    try:
        while data:
            d = isal_zlib.decompressobj(31)
            pos = 0
            while not d.eof and pos < len(data):
                yield d.decompress(data[pos:pos + piece_bytes])
                pos += piece_bytes
            if not d.eof:
                raise TraceError(f"{path}: truncated gzip (stream ends before its end marker)")
            data = d.unused_data.lstrip(b"\0")  # another gzip member may follow
    except isal_zlib.error as exc:
        raise TraceError(f"{path}: corrupt gzip ({exc})") from None


def read_pieces(path: Path, piece_bytes: int = PIECE_BYTES) -> Iterator[bytes]:
    """The decompressed file in pieces of at most ``piece_bytes``, read from the file as they are
    needed: memory holds one compressed and one decompressed piece, whatever the file's size."""
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    with fh:
        if not is_gzip(path):
            while chunk := _read(fh, path, piece_bytes):
                yield chunk
            return
        d = isal_zlib.decompressobj(31)
        try:
            while True:
                chunk = d.unused_data or _read(fh, path, piece_bytes)
                if d.eof:  # another gzip member may follow
                    chunk = chunk.lstrip(b"\0")
                    if not chunk:
                        chunk = _read(fh, path, piece_bytes).lstrip(b"\0")
                        if not chunk:
                            return
                    d = isal_zlib.decompressobj(31)
                if not chunk:
                    raise TraceError(f"{path}: truncated gzip (stream ends before its end marker)")
                while chunk:
                    out = d.decompress(chunk, piece_bytes)
                    if out:
                        yield out
                    chunk = d.unconsumed_tail
        except isal_zlib.error as exc:
            raise TraceError(f"{path}: corrupt gzip ({exc})") from None


def _read(fh, path: Path, size: int) -> bytes:
    try:
        return fh.read(size)
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_whole(path: Path) -> bytes:
    """The whole decompressed file. A single-member gzip is inflated in one call into a buffer
    of the size its trailer states (ISIZE, RFC 1952), which is about twice as fast as growing
    the output; anything else (several members, a truncated or corrupt stream) goes through
    :func:`inflate_pieces`, which also names the problem."""
    raw = read_bytes(path)
    if not is_gzip(path):
        return raw
    isize = int.from_bytes(raw[-4:], "little") if len(raw) >= 18 else 0
    try:
        data = isal_zlib.decompress(raw, 31, max(isize, 1 << 16))
        if len(data) % (1 << 32) == isize:
            return data
    except isal_zlib.error:
        pass
    return b"".join(inflate_pieces(path, raw))


def read_prefix(path: Path, size: int) -> bytes:
    """The first ``size`` decompressed bytes of the file (fewer when it is shorter); a gzip is
    inflated only that far, in one call."""
    raw = read_bytes(path)
    if not is_gzip(path):
        return raw[:size]
    try:
        return isal_zlib.decompressobj(31).decompress(raw, size)
    except isal_zlib.error:
        return read_whole(path)[:size]  # names the problem, if it is the file's


def expected_size(path: Path) -> int:
    """The file's decompressed size: its size, or for gzip the trailer's ISIZE (mod 2**32)."""
    try:
        size = path.stat().st_size
        if not is_gzip(path) or size < 18:
            return size
        with path.open("rb") as fh:
            fh.seek(-4, os.SEEK_END)
            return int.from_bytes(fh.read(4), "little")
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_head(path: Path, limit: int = 1 << 16) -> bytes:
    """At most the first ``limit`` decompressed bytes (less when the file is shorter)."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(limit if not is_gzip(path) else max(limit // 4, 1 << 14))
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not is_gzip(path):
        return raw
    try:
        return isal_zlib.decompressobj(31).decompress(raw, limit)
    except isal_zlib.error:
        return b""  # the real read names the problem
