"""Keypad frames: CRC vectors, the worked example of the README, stuffing, chunking, resync."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.framing import (
    ESCAPE,
    MAX_PAYLOAD,
    MAX_WIRE_LEN,
    START,
    CorruptFrame,
    Decoder,
    Frame,
    FrameType,
    FramingError,
    crc16,
    encode,
)


@pytest.mark.parametrize(
    ("data", "crc"),
    [
        (b"123456789", 0x29B1),  # the catalogue check value of CRC-16/CCITT-FALSE
        (b"", 0xFFFF),  # nothing processed: the initial value
        (b"A", 0xB915),
    ],
)
def test_crc16_ccitt_false_known_vectors(data: bytes, crc: int) -> None:
    assert crc16(data) == crc


def test_crc16_with_zero_init_is_xmodem() -> None:
    assert crc16(b"123456789", 0) == 0x31C3  # CRC-16/XMODEM check value, same polynomial


def _bitwise_crc(data: bytes, crc: int = 0xFFFF) -> int:
    """The CRC as the spec states it, one bit at a time (what the firmware's table encodes)."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


@given(st.binary(max_size=300), st.integers(0, 0xFFFF))
def test_crc16_agrees_with_the_bitwise_definition(data: bytes, start: int) -> None:
    assert crc16(data) == _bitwise_crc(data)
    assert crc16(data, start) == _bitwise_crc(data, start)


def test_crc16_can_be_continued_over_chunks() -> None:
    assert crc16(b"56789", crc16(b"1234")) == 0x29B1


def test_readme_worked_example_bytes() -> None:
    """The byte-level example in protocol/README.md, so the document cannot drift."""
    get_round = Frame(address=3, seq=0x7E, type=0x12, payload=b"", from_device=True)
    assert encode(get_round).hex(" ") == "7e 00 7d 5e 83 12 3b 71"
    ack = Frame(address=3, seq=0x7E, type=FrameType.ACK)
    assert encode(ack).hex(" ") == "7e 00 7d 5e 03 01 02 bb"
    payload = bytes.fromhex("096b7030332d3030303100050003345358030000 08ff".replace(" ", ""))
    enter = Frame(address=3, seq=5, type=0x13, payload=payload, from_device=True)
    assert crc16(bytes.fromhex("16058313") + payload) == 0x5ADA
    assert encode(enter).hex(" ") == (
        "7e 16 05 83 13 09 6b 70 30 33 2d 30 30 30 31 00 05 00 03 34 53 58 03 00 00 08 ff 5a da"
    )


def test_start_and_escape_bytes_never_appear_inside_a_frame() -> None:
    frame = Frame(address=0x7E & 0x7F, seq=0x7D, type=0x7E, payload=bytes([START, ESCAPE] * 50))
    wire = encode(frame)
    assert wire[0] == START
    assert START not in wire[1:]
    assert Decoder().feed(wire) == [frame]


def test_largest_frame_round_trips_and_fits_the_documented_bound() -> None:
    frame = Frame(address=0x7E, seq=0x7E, type=0x7D, payload=bytes([START]) * MAX_PAYLOAD)
    wire = encode(frame)
    assert len(wire) >= 1 + 1 + 2 * (3 + MAX_PAYLOAD)
    assert len(wire) <= MAX_WIRE_LEN
    assert Decoder().feed(wire) == [frame]


@pytest.mark.parametrize(
    "frame",
    [
        Frame(address=128, seq=0, type=0x10),
        Frame(address=-1, seq=0, type=0x10),
        Frame(address=1, seq=256, type=0x10),
        Frame(address=1, seq=0, type=0),
        Frame(address=1, seq=0, type=0x100),
        Frame(address=1, seq=0, type=0x10, payload=bytes(MAX_PAYLOAD + 1)),
    ],
)
def test_encode_refuses_fields_out_of_range(frame: Frame) -> None:
    with pytest.raises(FramingError):
        encode(frame)


FRAMES = [
    Frame(
        address=3,
        seq=i,
        type=0x10 + i % 3,
        payload=bytes(range(i * 7 % 40)),
        from_device=bool(i % 2),
    )
    for i in range(12)
]
STREAM = b"".join(encode(f) for f in FRAMES)


def test_one_byte_at_a_time() -> None:
    decoder = Decoder()
    out = []
    for byte in STREAM:
        out += decoder.feed(bytes([byte]))
    assert out == FRAMES


def test_many_frames_in_one_chunk() -> None:
    assert Decoder().feed(STREAM) == FRAMES


@pytest.mark.parametrize("size", [2, 3, 5, 8, 13, 64, 1000])
def test_fixed_chunk_sizes(size: int) -> None:
    decoder = Decoder()
    out = []
    for i in range(0, len(STREAM), size):
        out += decoder.feed(STREAM[i : i + size])
    assert out == FRAMES


def test_garbage_between_frames_is_skipped_and_counted() -> None:
    garbage = [b"", b"hello", bytes([0x00, 0xFF, ESCAPE]), b"\x01\x02\x03"]
    stream = b"".join(garbage[i % len(garbage)] + encode(f) for i, f in enumerate(FRAMES))
    decoder = Decoder()
    assert decoder.feed(stream) == FRAMES
    assert decoder.garbage_bytes == sum(len(garbage[i % 4]) for i in range(len(FRAMES)))


def test_repeated_start_bytes_are_idle_fill() -> None:
    stream = bytes([START] * 5) + encode(FRAMES[0]) + bytes([START] * 3) + encode(FRAMES[1])
    assert Decoder().feed(stream) == FRAMES[:2]


def test_crc_error_is_reported_and_the_next_frame_still_decodes() -> None:
    bad = bytearray(encode(FRAMES[4]))
    bad[6] ^= 0x01  # a payload byte
    out = Decoder().feed(bytes(bad) + encode(FRAMES[5]))
    assert isinstance(out[0], CorruptFrame)
    assert out[0].reason == "crc"
    assert out[1:] == [FRAMES[5]]


def test_truncated_frame_is_reported_when_the_next_start_byte_arrives() -> None:
    cut = encode(FRAMES[6])[:-3]
    decoder = Decoder()
    assert decoder.feed(cut) == []
    out = decoder.feed(encode(FRAMES[7]))
    assert [type(x) for x in out] == [CorruptFrame, Frame]
    assert isinstance(out[0], CorruptFrame)
    assert out[0].reason == "truncated"
    assert out[1] == FRAMES[7]


def test_bad_escape_is_reported_and_the_decoder_hunts_for_the_next_frame() -> None:
    bad = bytes([START, 0x00, ESCAPE, 0x41])
    out = Decoder().feed(bad + b"rest" + encode(FRAMES[0]))
    assert isinstance(out[0], CorruptFrame)
    assert out[0].reason == "escape"
    assert out[1:] == [FRAMES[0]]


def test_corrupted_length_loses_only_that_frame() -> None:
    wire = bytearray(encode(FRAMES[8]))
    wire[1] = 0x70  # claims 112 payload bytes: the next start byte cuts it short
    out = Decoder().feed(bytes(wire) + encode(FRAMES[9]) + encode(FRAMES[10]))
    assert [x for x in out if isinstance(x, Frame)] == FRAMES[9:11]
    assert len(out) == 3


def test_control_frames_are_told_apart_from_messages() -> None:
    assert Frame(1, 0, FrameType.POLL).is_control
    assert not Frame(1, 0, 0x10).is_control
