"""One trace file's events array in parts: each part a task that reads the file itself.

A large file is decoded by ``parts`` independent tasks (:mod:`densing.overlap.engine`) that share only its path. Part
k of n covers the events from the first event boundary (:func:`densing.overlap.kineto.cut_before`) at or after
t_k = a + k·(L − a)/n of the decompressed stream (a: the ``[`` that opens ``traceEvents``; L: the decompressed size,
the gzip trailer's ISIZE). A task inflates the stream from its start (gzip cannot seek; ISA-L inflates several times
faster than msgspec decodes) and decodes only its own events, batch by batch. Part 0 is the document's head and its
first events, closed with ``]}``; a middle part ``{"traceEvents": [`` + its events + ``]}``; the last part the head +
``[`` + its events + the rest of the document (so its DecodeInfo is the file's). The parts' columns concatenated in
order are the whole file's, row for row; where a boundary cannot be found (compact JSON, a stream shorter than its
trailer says) a part raises :class:`~densing.overlap.kineto.Unsplittable` and the file is decoded in one task.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from densing.overlap.gzipio import expected_size, read_pieces
from densing.overlap.kineto import GPU, Unsplittable, cut_before, decode_stream, events_start


class _Stream:
    """The decompressed file as a growing buffer of which only a window is kept."""

    def __init__(self, path: Path):
        self.pieces, self.buf, self.offset = read_pieces(path), bytearray(), 0  # offset: stream position of buf[0]

    def more(self) -> bool:
        if (piece := next(self.pieces, None)) is not None:
            self.buf += piece
        return piece is not None

    def boundary(self, target: int) -> tuple[int, int]:
        """The first event boundary at or after stream position ``target``: ``(cut, nxt)``."""
        lo = max(target, self.offset)
        while True:
            cut, nxt = cut_before(self.buf, lo - self.offset, len(self.buf) - 1, forward=True)
            if cut >= 0 and nxt < len(self.buf):
                return cut + self.offset, nxt + self.offset
            if not self.more():
                raise Unsplittable


def part_pieces(path: Path, part: int, parts: int) -> Iterator[bytes]:
    """The bytes of part ``part`` of ``parts`` as a JSON document (see the module docstring)."""
    stream = _Stream(path)
    bracket = -1
    while bracket < 0:
        if not stream.more():
            raise Unsplittable
        bracket = events_start(stream.buf)
    head = bytes(stream.buf[:bracket + 1])  # up to and including "["
    size = expected_size(path)
    targets = [bracket + k * (size - bracket) // parts for k in range(parts)]  # t_k (module docstring)
    start = bracket + 1 if part == 0 else stream.boundary(max(targets[part], bracket + 1))[1]
    yield head if part in (0, parts - 1) else b'{"traceEvents": ['
    del stream.buf[:start - stream.offset]  # (start is never before the buffer's first byte)
    stream.offset = start
    if part == parts - 1:  # to the end of the document
        yield bytes(stream.buf)
        stream.buf.clear()
        yield from stream.pieces
        return
    cut, _ = stream.boundary(max(targets[part + 1], start))
    while stream.offset + len(stream.buf) < cut + 1:
        head_bytes = bytes(stream.buf)
        stream.offset += len(stream.buf)
        stream.buf.clear()
        yield head_bytes
        if not stream.more():
            raise Unsplittable
    yield bytes(stream.buf[:cut + 1 - stream.offset])  # up to the "}" that closes the part's last event
    yield b"]}"


def decode_part(path: str | Path, part: int, parts: int, kind: str = GPU):
    """Columns and info (None but for the last part) of part ``part`` of ``parts`` of one file, or Unsplittable."""
    path = Path(path)
    return decode_stream(part_pieces(path, part, parts), path, kind)
