"""The Kineto (PyTorch-profiler Chrome-trace JSON) decoder: bytes → numpy columns of one file.

Decoding is typed (msgspec): only ``ph, cat, name, ts, dur, tid`` and a few ``args`` fields are read, a batch at a
time, each batch reduced at once to a collector's numpy columns (:mod:`densing.overlap.columns`); the file's
``distributedInfo`` comes beside them as a :class:`DecodeInfo`. Fast paths take the types real traces use (integer µs
or, PyTorch ≥ 2.3, float timestamps): ``gc=False`` structs (~1.5x faster) whose absent fields share sentinel defaults,
so each column is one C-level ``attrgetter``/``np.fromiter`` pass; a batch that fits neither is decoded tolerantly.

**Parts** (:func:`decode_part`): a large file is decoded by independent tasks (:mod:`densing.overlap.engine`) that
share only its path. Part k of n covers the events from the first event boundary (:func:`cut_before`) at or after
t_k = a + k·(L − a)/n of the decompressed stream (a: the ``[`` that opens ``traceEvents``; L: the decompressed size,
the gzip trailer's ISIZE). A task inflates the stream from its start (gzip cannot seek; ISA-L inflates several times
faster than msgspec decodes) and decodes only its own events. Part 0 is the document's head and its first events,
closed with ``]}``; a middle part ``{"traceEvents": [`` + its events + ``]}``; the last part the head + ``[`` + its
events + the rest of the document (so its DecodeInfo is the file's). The parts' columns concatenated in order are the
whole file's, row for row; where a boundary cannot be found (compact JSON, a stream shorter than its trailer says) a
part raises :class:`Unsplittable` and the file is decoded in one task.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from densing.errors import InputError, TraceError
from densing.overlap.columns import NO_CAT, KernelColumns, OpColumns
from densing.overlap.gzipio import expected_size, read_pieces, read_whole
from densing.validation import Text, WholeNumber, validate

GPU, CPU = "gpu", "cpu"  # what a set's files are decoded for (see densing.overlap.columns)
_COLUMNS = {GPU: KernelColumns, CPU: OpColumns}  # each kind's collector
BATCH_BYTES = 8 << 20  # decompressed bytes decoded at a time when a file is streamed


class Unsplittable(Exception):
    """The events array could not be cut here (compact JSON has no cut points); decode the document whole. Kineto
    writes ``},\n`` then whitespace and ``{`` between events; a newline cannot occur inside a JSON string, so such a
    place is always a boundary between two events."""


def events_start(buf) -> int:
    """Position of the ``[`` that opens ``traceEvents``; -1 if not (yet) found; Unsplittable if no ``:`` and ``[``."""
    key = buf.find(b'"traceEvents"')
    bracket = buf.find(b"[", key) if key >= 0 else -1
    if bracket >= 0 and buf[key + 13 : bracket].strip() != b":":
        raise Unsplittable
    return bracket


def cut_before(buf, lo: int, hi: int, forward: bool = False) -> tuple[int, int]:
    """The last (with ``forward`` the first) event boundary in ``buf[lo:hi]``: ``(cut, nxt)``, ``buf[cut:cut + 2] ==
    b"},"`` closing one event and ``buf[nxt] == "{"`` opening the next after a newline; ``(-1, -1)`` if none."""
    while True:
        cut = buf.find(b"},\n", lo, hi) if forward else buf.rfind(b"},\n", lo, hi)
        if cut < 0:
            return -1, -1
        nxt = cut + 3
        while nxt < len(buf) and buf[nxt] in b" \t\r\n":
            nxt += 1
        if nxt < len(buf) and buf[nxt] == 0x7B:  # "{"
            return cut, nxt
        if forward:
            lo = cut + 1
        else:
            hi = cut + 2


#: The fields of ``distributedInfo`` densing reads (each may be absent; no other metadata is read): rank and world
#: size whole numbers in the 32-bit range NCCL and gloo hold them in, written as numbers; the backend a name.
DISTRIBUTED_CONSTRAINTS = {
    "distributedInfo.rank": [WholeNumber(0, 2**31 - 2), None],
    "distributedInfo.world_size": [WholeNumber(1, 2**31 - 1), None],
    "distributedInfo.backend": [Text(), None],
}


@dataclass(frozen=True)
class DecodeInfo:
    """The file's ``distributedInfo`` fields, as written (None where absent)."""

    rank: Any = None
    world_size: Any = None
    backend: Any = None

    def checked(self, path, default_rank: int) -> DecodeInfo:
        """Rank and world size as ints (``default_rank`` and None where absent), the backend a string or None; else a
        :class:`TraceError` naming the file and the field (a negative rank, a rank not below the world size, …)."""
        try:
            validate(
                DISTRIBUTED_CONSTRAINTS,
                **{f"distributedInfo.{k}": getattr(self, k) for k in ("rank", "world_size", "backend")},
            )
        except InputError as exc:
            raise TraceError(f"{path}: {exc}") from None
        rank = default_rank if self.rank is None else int(self.rank)
        world_size = None if self.world_size is None else int(self.world_size)
        if world_size is not None and rank >= world_size:
            raise TraceError(
                f"{path}: distributedInfo.rank: {rank} is not below distributedInfo.world_size "
                f"{world_size} (a job's ranks run from 0 to world_size − 1)"
            )
        return DecodeInfo(rank, world_size, self.backend)


def prefixed(path, exc: TraceError) -> TraceError:
    """``exc`` as a TraceError whose message starts with ``path`` (added when it does not already)."""
    return TraceError(str(exc) if str(exc).startswith(str(path)) else f"{path}: {exc}")


class _Args(msgspec.Struct):
    stream: Any = None
    correlation: Any = None
    in_nelems: Any = msgspec.field(default=None, name="In msg nelems")
    dtype: Any = None


class _Event(msgspec.Struct):  # tolerant CPU types
    ph: Any = None
    cat: Any = None
    name: Any = None
    ts: Any = None
    dur: Any = None
    tid: Any = None
    args: _Args | None = None


class _GpuEvent(_Event):  # tolerant GPU types: cat a string, ts/dur numbers, or absent
    cat: str | None = None
    ts: int | float | None = None
    dur: int | float | None = None


class _FastArgs(msgspec.Struct, gc=False, frozen=True):
    stream: int = -1
    correlation: int = -1
    in_nelems: int = msgspec.field(default=-1, name="In msg nelems")
    dtype: str | None = None


class _IntTsEvent(msgspec.Struct, gc=False):
    ts: int  # required: an absent ts makes HTA's ts column float (so rounded), as the float variant does
    cat: str = NO_CAT
    name: str | None = None
    dur: float = math.nan  # absent: not a duration event, dropped
    args: _FastArgs = _FastArgs()  # one shared instance for every event without args


class _FloatTsEvent(_IntTsEvent):
    ts: float = math.nan


class _CpuEvent(msgspec.Struct, gc=False):
    ph: str | None = None
    cat: str | None = None
    name: Any = None
    ts: float = math.nan
    dur: float = math.nan
    tid: int | str | None = None
    args: _FastArgs = _FastArgs()


def _doc_type(event_type: type) -> type:
    return msgspec.defstruct(
        "_Doc",
        [("traceEvents", list[event_type] | None, None), ("distributedInfo", DecodeInfo | None, None)],
        gc=False,
    )


# per kind, the decode modes tried in order: (event type, tolerant, float timestamps); the last one is tolerant
INT_TS, FLOAT_TS, TOLERANT = 0, 1, 2  # a GPU set's modes
_MODES = {
    GPU: [(_IntTsEvent, False, False), (_FloatTsEvent, False, True), (_GpuEvent, True, True)],
    CPU: [(_CpuEvent, False, True), (_Event, True, True)],
}
_DECODERS = {
    kind: [
        (msgspec.json.Decoder(_doc_type(t)), msgspec.json.Decoder(list[t]), tolerant, float_ts)
        for t, tolerant, float_ts in modes
    ]
    for kind, modes in _MODES.items()
}


def _decode(data, kind: str, mode: int, whole: bool):
    """Decode ``data`` (a whole document, or one batch of the events array) with the first decode mode from ``mode``
    on whose types fit; returns ``(value, mode)``. Raises msgspec's errors (in a batch: the cut was wrong)."""
    decoders = _DECODERS[kind]
    last = len(decoders) - 1
    for m in range(mode, last):
        with suppress(msgspec.ValidationError):
            return decoders[m][0 if whole else 1].decode(data), m
    return decoders[last][0 if whole else 1].decode(data), last


def _add(cols, events: list, kind: str, mode: int):
    """``cols`` with ``events`` (decoded in ``mode``) added."""
    cols.add(events, *_DECODERS[kind][mode][2:])
    return cols


def _decode_doc(data, kind: str, path: Path, mode: int = 0):
    try:
        return _decode(data, kind, mode, whole=True)
    except msgspec.ValidationError as exc:
        raise TraceError(f"{path}: unexpected trace structure ({exc})") from None
    except msgspec.DecodeError as exc:
        raise TraceError(f"{path}: malformed JSON ({exc})") from None


def event_batches(
    pieces: Iterable[bytes], path: Path, kind: str = GPU, batch_bytes: int = BATCH_BYTES
) -> Iterator[tuple[list, int, DecodeInfo | None]]:
    """Yield ``(events, mode, info)`` batches of the ``traceEvents`` of the document arriving in ``pieces``, cut at
    event boundaries (:func:`cut_before`) once ``batch_bytes`` are buffered; the last batch, decoded with the other
    keys, alone has an ``info``. :class:`Unsplittable` when it cannot be read so (compact JSON, a wrong cut)."""
    buf, prefix, mode = bytearray(), None, 0
    searched = 0  # buf[:searched] holds no usable cut point
    for piece in pieces:
        buf += piece
        if prefix is None:
            bracket = events_start(buf)
            if bracket < 0:
                continue
            prefix = bytes(buf[:bracket])
            del buf[:bracket]  # buf[0] is now the "[" that opens the array
        if len(buf) < batch_bytes:
            continue
        cut, nxt = cut_before(buf, max(1, searched - 3), len(buf) - 1)
        searched = len(buf)
        if cut < 0:
            continue
        buf[0], buf[cut + 1] = 0x5B, 0x5D  # buf[:cut + 2] decoded in place as "[{...}, … {...}]" ("," → "]")
        try:
            with memoryview(buf) as view:
                events, mode = _decode(view[: cut + 2], kind, mode, whole=False)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise Unsplittable from None
        del buf[: nxt - 1]  # keep one byte before the next "{" to hold the next "["
        searched = 0
        yield events, mode, None
    if prefix is None:
        raise Unsplittable
    try:
        buf[0] = 0x5B
        doc, mode = _decode_doc(prefix + bytes(buf), kind, path, mode)
    except TraceError:
        raise Unsplittable from None
    yield (doc.traceEvents or []), mode, doc.distributedInfo or DecodeInfo()


def decode_stream(pieces: Iterable[bytes], path: Path, kind: str = GPU, batch_bytes: int = BATCH_BYTES):
    """Columns and info of a document streamed batch by batch (:func:`event_batches`)."""
    cols, info = _COLUMNS[kind](), None
    for events, mode, batch_info in event_batches(pieces, path, kind, batch_bytes):
        _add(cols, events, kind, mode)
        info = batch_info  # the last batch alone has one
    return cols, info


def decode_file(path: Path, kind: str = GPU, batch_bytes: int = BATCH_BYTES):
    """Columns and info of one file: decoded whole up to ``batch_bytes`` decompressed, else streamed if it can be."""
    if expected_size(path) > batch_bytes:
        try:
            return decode_stream(read_pieces(path), path, kind, batch_bytes)
        except Unsplittable:
            pass
    doc, mode = _decode_doc(read_whole(path), kind, path)
    return _add(_COLUMNS[kind](), doc.traceEvents or [], kind, mode), doc.distributedInfo or DecodeInfo()


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
    """The bytes of part ``part`` of ``parts`` as a JSON document (module docstring)."""
    stream = _Stream(path)
    bracket = -1
    while bracket < 0:
        if not stream.more():
            raise Unsplittable
        bracket = events_start(stream.buf)
    head = bytes(stream.buf[: bracket + 1])  # up to and including "["
    size = expected_size(path)
    targets = [bracket + k * (size - bracket) // parts for k in range(parts)]  # t_k (module docstring)
    start = bracket + 1 if part == 0 else stream.boundary(max(targets[part], bracket + 1))[1]
    yield head if part in (0, parts - 1) else b'{"traceEvents": ['
    del stream.buf[: start - stream.offset]  # (start is never before the buffer's first byte)
    stream.offset = start
    if part == parts - 1:  # to the end of the document
        yield bytes(stream.buf)
        stream.buf.clear()
        yield from stream.pieces
        return
    cut, _ = stream.boundary(max(targets[part + 1], start))
    while stream.offset + len(stream.buf) < cut + 1:
        yield bytes(stream.buf)
        stream.offset += len(stream.buf)
        stream.buf.clear()
        if not stream.more():
            raise Unsplittable
    yield bytes(stream.buf[: cut + 1 - stream.offset])  # up to the "}" that closes the part's last event
    yield b"]}"


def decode_part(path: str | Path, part: int, parts: int, kind: str = GPU):
    """Columns and info (None but for the last part) of part ``part`` of ``parts`` of one file, or Unsplittable."""
    path = Path(path)
    return decode_stream(part_pieces(path, part, parts), path, kind)
