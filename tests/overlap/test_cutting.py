"""densing.overlap.kineto's cutting a Kineto ``traceEvents`` array at event boundaries, checked against
documents whose event offsets are known (generated here) and a brute-force boundary search."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from densing.overlap.kineto import Unsplittable, cut_before, events_start

# event fields: strings that look like JSON punctuation (a raw newline cannot occur in a JSON string)
texts = st.text(alphabet=st.sampled_from(list('ab{}[],:" \n\t\\é')), max_size=12)
scalars = st.one_of(st.integers(-(10**6), 10**6), texts, st.booleans(), st.none())
events = st.fixed_dictionaries(
    {"ph": st.sampled_from(["X", "i"]), "name": texts, "ts": st.integers(0, 10**9)},
    optional={
        "args": st.dictionaries(texts, st.one_of(scalars, st.dictionaries(texts, scalars, max_size=2)), max_size=3)
    },
)


def kineto(evs: list[dict], indent: int | None = 2) -> tuple[bytes, list[tuple[int, int]]]:
    """A document as Kineto writes it, one event per block, and each event's (start, end) byte span."""
    head = b'{\n  "schemaVersion": 1,\n  "traceEvents": [\n'
    out, spans = bytearray(head), []
    for i, e in enumerate(evs):
        text = json.dumps(e, indent=indent).replace("\n", "\n  ").encode()
        out += b"  "
        spans.append((len(out), len(out) + len(text)))
        out += text + (b",\n" if i < len(evs) - 1 else b"\n")
    out += b'  ],\n  "displayTimeUnit": "ms"\n}\n'
    return bytes(out), spans


def boundaries(buf: bytes) -> list[int]:
    """Every i with buf[i:i + 3] == b'},\\n' followed, after whitespace, by '{' (brute force)."""
    found = []
    for i in range(len(buf) - 2):
        if buf[i : i + 3] == b"},\n":
            rest = buf[i + 3 :].lstrip(b" \t\r\n")
            if rest[:1] == b"{":
                found.append(i)
    return found


def split_spans(data, parts: int) -> tuple[list[tuple[int, int]], int]:
    """Cut the events array of the whole document ``data`` at :func:`cut_before`'s boundaries into about ``parts``
    spans of equal size: ``(spans, tail)``, each span ``(start, cut)`` covering ``data[start:cut + 2]`` and the
    events from ``data[tail + 1]`` on left for the last part. :class:`Unsplittable` when there is no array or no cut
    point."""
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


@settings(max_examples=150, deadline=None)
@given(evs=st.lists(events, min_size=2, max_size=25), parts=st.integers(2, 8), indent=st.sampled_from([None, 2]))
def test_spans_joined_with_the_tail_are_the_whole_array_cut_at_event_boundaries(evs, parts, indent):
    data, offsets = kineto(evs, indent)
    ends = {end - 1 for _, end in offsets}  # the "}" closing each event
    starts = {start for start, _ in offsets}
    bracket = data.index(b"[")
    try:
        spans, tail = split_spans(data, parts)
    except Unsplittable:  # only when no boundary lies at or after the first part's target size
        first_target = bracket + (len(data) - bracket) // parts
        assert not [b for b in boundaries(data) if b >= first_target]
        return
    assert 1 <= len(spans) <= parts - 1
    assert spans[0][0] == events_start(data) == data.index(b"[")
    positions = [p for span in spans for p in span] + [tail]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    decoded = []
    for start, cut in spans:
        assert data[cut : cut + 2] == b"}," and cut in ends  # ends the span's last event
        assert data[start + 1 :].lstrip()[:1] == b"{" and len(data) - len(data[start + 1 :].lstrip()) in starts
        decoded += json.loads(b"[" + data[start + 1 : cut + 1] + b"]")
    assert data[tail + 1 :].lstrip()[:1] == b"{"
    decoded += json.loads(b'{"traceEvents": [' + data[tail + 1 :])["traceEvents"]
    assert decoded == evs  # every event once, in order


def test_spans_are_about_equal_in_size():
    evs = [{"ph": "X", "name": f"k{i}", "ts": i, "dur": 1} for i in range(400)]
    data, _ = kineto(evs)
    spans, tail = split_spans(data, 4)
    assert len(spans) == 3
    sizes = [cut - start for start, cut in spans] + [len(data) - tail]
    assert max(sizes) < 1.1 * min(sizes)


@pytest.mark.parametrize(
    "data",
    [
        b'{"schemaVersion": 1}',  # no array
        json.dumps({"traceEvents": [{"ph": "X", "ts": i} for i in range(50)]}).encode(),  # compact: no cut point
        kineto([{"ph": "X", "ts": 1}])[0],  # one event: nothing to cut between
    ],
    ids=["no-array", "compact", "one-event"],
)
def test_a_document_without_cut_points_is_unsplittable(data):
    with pytest.raises(Unsplittable):
        split_spans(data, 4)


def test_events_start_finds_the_array_or_waits_or_refuses():
    assert events_start(b'{"traceEvents" :\n [\n{') == 18
    assert events_start(b'{"schemaVersion": 1, "traceEv') == -1  # the key not yet read
    assert events_start(b'{"traceEvents": ') == -1  # the bracket not yet read
    with pytest.raises(Unsplittable):
        events_start(b'{"traceEvents": 5, "other": [1]}')
    assert events_start(bytearray(b'{"x": [], "traceEvents": [')) == 25


@settings(max_examples=400, deadline=None)
@given(
    buf=st.binary(max_size=60).map(lambda b: bytes(b"{}, \n\tx"[c % 7] for c in b)),
    lo=st.integers(0, 70),
    hi=st.integers(0, 70),
)
def test_cut_before_finds_the_last_or_first_boundary_in_range(buf, lo, hi):
    inside = [i for i in boundaries(buf) if lo <= i and i + 3 <= hi]
    for forward in (False, True):
        cut, nxt = cut_before(buf, lo, hi, forward=forward)
        if not inside:
            assert (cut, nxt) == (-1, -1)
            continue
        assert cut == (inside[0] if forward else inside[-1])
        assert buf[nxt : nxt + 1] == b"{" and buf[cut + 3 : nxt].strip(b" \t\r\n") == b""
    assert cut_before(bytearray(buf), lo, hi) == cut_before(buf, lo, hi)


def test_cut_before_skips_a_nested_object_closing_before_a_key():
    buf = b'[\n{"args": {"a": 1},\n "b": 2},\n {"c": 3}\n]'
    assert cut_before(buf, 0, len(buf)) == (buf.index(b"2},") + 1, buf.index(b'{"c"'))
    assert cut_before(buf, 0, len(buf), forward=True) == cut_before(buf, 0, len(buf))
