"""Property tests of the framer: round trips under any chunking, and a fuzzed decoder."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.framing import (
    MAX_ADDRESS,
    MAX_PAYLOAD,
    START,
    CorruptFrame,
    Decoder,
    Frame,
    encode,
)

frames = st.builds(
    Frame,
    address=st.integers(0, MAX_ADDRESS),
    seq=st.integers(0, 255),
    type=st.integers(1, 255),
    payload=st.binary(max_size=MAX_PAYLOAD),
    from_device=st.booleans(),
)


def _chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


@given(st.lists(frames, max_size=8), st.lists(st.integers(0, 10_000), max_size=30))
def test_frames_survive_any_chunking(batch: list[Frame], cuts: list[int]) -> None:
    stream = b"".join(encode(f) for f in batch)
    decoder = Decoder()
    out = []
    for chunk in _chunked(stream, cuts):
        out += decoder.feed(chunk)
    assert out == batch
    assert decoder.garbage_bytes == 0


@given(st.lists(st.tuples(st.binary(max_size=20), frames), max_size=6))
def test_garbage_without_start_bytes_never_hides_a_frame(items: list[tuple[bytes, Frame]]) -> None:
    stream = b"".join(junk.replace(bytes([START]), b"") + encode(f) for junk, f in items)
    out = Decoder().feed(stream)
    assert [x for x in out if isinstance(x, Frame)] == [f for _, f in items]


@settings(max_examples=300)
@given(st.binary(max_size=600), st.lists(st.integers(0, 1000), max_size=10))
def test_fuzz_random_bytes_never_raise(data: bytes, cuts: list[int]) -> None:
    """Decoder.feed documents that it raises nothing: every bad byte becomes a report."""
    decoder = Decoder()
    for chunk in _chunked(data, cuts):
        for item in decoder.feed(chunk):
            assert isinstance(item, Frame | CorruptFrame)
            if isinstance(item, Frame):
                assert len(item.payload) <= MAX_PAYLOAD
                assert 0 <= item.address <= MAX_ADDRESS


@given(frames, st.integers(0, 600), st.integers(1, 255))
def test_a_damaged_byte_is_caught_and_the_next_frame_survives(
    frame: Frame, where: int, flip: int
) -> None:
    wire = bytearray(encode(frame))
    where = 1 + where % (len(wire) - 1)  # never the start byte itself (then it is just garbage)
    wire[where] ^= flip
    after = Frame(address=5, seq=1, type=0x20, payload=b"after")
    out = Decoder().feed(bytes(wire) + encode(after))
    assert out[-1] == after
    assert frame not in out[:-1] or bytes(wire) == encode(frame)
