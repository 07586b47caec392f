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


def split_spans(data, parts: int) -> tuple[list[tuple[int, int]], int]:
    """Cut the events array of the whole document ``data`` into about ``parts`` spans of equal
    size: ``(spans, tail)`` where each span ``(start, cut)`` covers ``data[start:cut + 2]``
    (``data[start]`` precedes the span's first ``{``, ``data[cut:cut + 2] == b"},"`` ends its last
    event) and the events from ``data[tail + 1]`` on are left for the document's last part.
    Raises :class:`Unsplittable` when there is no array or no cut point."""
    bracket = events_start(data)
    if bracket < 0:
        raise Unsplittable
    spans, lo = [], bracket
    for k in range(1, parts):
        target = max(lo + 1, bracket + k * (len(data) - bracket) // parts)
        cut, nxt = cut_before(data, target, len(data), forward=True)
        if cut < 0:
            break
        spans.append((lo, cut))
        lo = nxt - 1
    if not spans:
        raise Unsplittable
    return spans, lo
