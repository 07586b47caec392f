"""Byte-level cutting of a Kineto trace's ``traceEvents`` array at event boundaries.

Kineto writes one event per block: ``},\\n`` closes an event and, after whitespace, ``{`` opens
the next. A newline cannot occur inside a JSON string, so such a place is always a boundary
between two events of the array (never inside one). Compact one-line JSON has no cut points;
callers then decode the document whole.
"""
from __future__ import annotations


class Unsplittable(Exception):
    """The events array could not be cut here; decode the document whole."""


def events_start(buf) -> int:
    """Position of the ``[`` that opens the ``traceEvents`` array; -1 if not (yet) found;
    raises :class:`Unsplittable` if the key is not followed by ``:`` and ``[``."""
    key = buf.find(b'"traceEvents"')
    bracket = buf.find(b"[", key) if key >= 0 else -1
    if bracket >= 0 and buf[key + 13:bracket].strip() != b":":
        raise Unsplittable
    return bracket


def cut_before(buf, lo: int, hi: int, forward: bool = False) -> tuple[int, int]:
    """The last (or with ``forward`` the first) event boundary in ``buf[lo:hi]``: ``(cut, nxt)``
    with ``buf[cut:cut + 2] == b"},"`` closing one event and ``buf[nxt] == "{"`` opening the next
    after a newline and whitespace; ``(-1, -1)`` when there is none."""
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


