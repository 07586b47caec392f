"""densing.overlap.gzipio: every reader gives back the bytes written, plain or gzip (one member or
several), whole, in pieces or as a head; a bad file is a TraceError naming it."""

from __future__ import annotations

import gzip
import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from densing.errors import TraceError
from densing.overlap import gzipio

FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
payloads = st.one_of(st.binary(max_size=3000), st.text(alphabet="ab{}\n ", max_size=6000).map(str.encode))


def _write(folder, name: str, raw: bytes):
    path = folder / name
    path.write_bytes(raw)
    return path


def _all_readers(path, piece: int) -> dict[str, bytes]:
    return {"read_whole": gzipio.read_whole(path), "read_pieces": b"".join(gzipio.read_pieces(path, piece))}


@FUZZ
@given(data=payloads, piece=st.integers(1, 5000), gz=st.booleans())
def test_any_bytes_round_trip_through_every_reader(tmp_path_factory, data, piece, gz):
    folder = tmp_path_factory.mktemp("one")
    path = _write(folder, "r.json.gz" if gz else "r.json", gzip.compress(data) if gz else data)
    assert gzipio.is_gzip(path) == gz
    for name, out in _all_readers(path, piece).items():
        assert out == data, name
    assert all(len(p) <= piece for p in gzipio.read_pieces(path, piece))  # memory holds one piece
    assert gzipio.expected_size(path) == len(data)
    head = gzipio.read_head(path, 64)
    assert head == data[: len(head)] and len(head) == min(64, len(data))


@FUZZ
@given(
    data=payloads,
    cuts=st.lists(st.integers(0, 6000), max_size=4),
    padding=st.integers(0, 3),
    piece=st.integers(1, 5000),
)
def test_several_gzip_members_read_as_their_concatenation(tmp_path_factory, data, cuts, padding, piece):
    """Members split anywhere, some empty, zero bytes between them (as some writers pad): the joined bytes."""
    bounds = [0, *sorted(min(c, len(data)) for c in cuts), len(data)]
    members = [gzip.compress(data[a:b]) for a, b in zip(bounds, bounds[1:])]
    path = _write(tmp_path_factory.mktemp("many"), "r.json.gz", (b"\0" * padding).join(members))
    out = {"read_whole": gzipio.read_whole(path), "read_pieces": b"".join(gzipio.read_pieces(path, piece))}
    assert out["read_pieces"] == data
    assert b"".join(gzipio.read_pieces(path, len(path.read_bytes()) + 1)) == data  # in one piece
    assert out["read_whole"] == data


def test_read_whole_reads_every_member_when_the_first_and_last_are_the_same_size(tmp_path):
    path = _write(tmp_path, "r.json.gz", gzip.compress(b"first") + gzip.compress(b"--and--") + gzip.compress(b"last!"))
    assert gzipio.read_whole(path) == b"first--and--last!"


@pytest.mark.parametrize("piece", [1, 4])
def test_read_pieces_reads_every_member_whatever_the_piece_size(tmp_path, piece):
    path = _write(tmp_path, "r.json.gz", gzip.compress(b"hello ") + gzip.compress(b"world"))
    assert b"".join(gzipio.read_pieces(path, piece)) == b"hello world"


def test_expected_size_is_exact_for_one_member_and_the_last_members_for_several(tmp_path):
    """A hint for planning reads (its docstring): the trailer's ISIZE."""
    one = _write(tmp_path, "one.json.gz", gzip.compress(b"abcdefgh"))
    several = _write(tmp_path, "r.json.gz", gzip.compress(b"abc") + gzip.compress(b"defgh"))
    assert gzipio.expected_size(one) == 8 and gzipio.expected_size(several) == 5


def test_read_head_reads_only_the_head_of_a_large_file(tmp_path):
    text = b'{"traceEvents": [\n' + b"".join(b'  {"ph": "X", "ts": %d},\n' % i for i in range(200_000))
    path = _write(tmp_path, "r.json.gz", gzip.compress(text))
    assert gzipio.read_head(path, 1000) == text[:1000]
    assert gzipio.read_head(path) == text[: 1 << 16]  # compressible text: the whole limit
    assert gzipio.expected_size(path) == len(text)


@pytest.mark.parametrize(
    "raw, words",
    [
        (gzip.compress(bytes(range(256)) * 40)[:-12], "truncated gzip"),
        (b"\x1f\x8b" + b"not a deflate stream at all" * 3, "corrupt gzip"),
        (b"plain text named .gz", "corrupt gzip"),
    ],
    ids=["truncated", "bad-deflate", "not-gzip"],
)
def test_a_bad_gzip_is_a_trace_error_naming_the_file(tmp_path, raw, words):
    path = _write(tmp_path, "r.json.gz", raw)
    for read in (gzipio.read_whole, lambda p: b"".join(gzipio.read_pieces(p, 256))):
        with pytest.raises(TraceError) as raised:
            read(path)
        message = str(raised.value)
        assert message.startswith(f"{path}: ") and words in message and "\n" not in message
    if words == "corrupt gzip":
        assert gzipio.read_head(path) == b""  # the head leaves naming the problem to the real read


def test_an_unreadable_file_is_a_trace_error_naming_it(tmp_path):
    for name in ("absent.json", "absent.json.gz"):
        path = tmp_path / name
        for read in (gzipio.read_whole, gzipio.expected_size, gzipio.read_head, lambda p: list(gzipio.read_pieces(p))):
            with pytest.raises(TraceError, match=f"^{path}: cannot read"):
                read(path)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    with pytest.raises(TraceError, match="cannot read"):
        list(gzipio.read_pieces(folder))


def test_sizes_of_plain_and_tiny_files(tmp_path):
    plain = _write(tmp_path, "r.json", b"0123456789")
    assert gzipio.expected_size(plain) == 10
    assert gzipio.read_head(plain, 3) == b"012" and list(gzipio.read_pieces(plain, 4)) == [b"0123", b"4567", b"89"]
    assert gzipio.expected_size(_write(tmp_path, "e.json.gz", b"")) == 0
    assert os.path.getsize(_write(tmp_path, "z.json.gz", gzip.compress(b""))) >= 18
    assert gzipio.read_whole(tmp_path / "z.json.gz") == b"" and gzipio.expected_size(tmp_path / "z.json.gz") == 0


def test_an_empty_gz_file_is_a_truncated_gzip_whole_and_in_pieces(tmp_path):
    empty = _write(tmp_path, "e.json.gz", b"")
    for read in (gzipio.read_whole, lambda p: b"".join(gzipio.read_pieces(p))):
        with pytest.raises(TraceError, match=r"e\.json\.gz: truncated gzip \(an empty file\)"):
            read(empty)
