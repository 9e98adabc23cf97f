"""Keypad frames without I/O: encode one frame to bytes, decode a byte stream back into frames.

Wire format (see protocol/README.md for the byte-level worked example)::

    0x7E | stuffed( LEN SEQ ADDR TYPE PAYLOAD[LEN] CRC_HI CRC_LO )

* ``0x7E`` starts every frame and never occurs anywhere else: inside the stuffed part ``0x7E`` is
  sent as ``0x7D 0x5E`` and ``0x7D`` as ``0x7D 0x5D`` (HDLC-style byte stuffing, XOR 0x20).
* ``LEN`` is the payload length, 0..255 (:data:`MAX_PAYLOAD`).
* ``SEQ`` is the 8-bit sequence number (the link layer's, it wraps 255 -> 0).
* ``ADDR`` is the keypad's bus address 1..127 in the low 7 bits; bit 7 (:data:`FROM_DEVICE`) is
  set on frames sent by the keypad and clear on frames sent by the gateway.
* ``TYPE`` is the message type: 0x01..0x0F link control (:class:`FrameType`), 0x10..0x7F
  application messages (``protocol.keypad_codec.MessageType``).
* CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR; check value
  0x29B1 for ``b"123456789"``) over the unstuffed ``LEN .. PAYLOAD``, sent high byte first.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, Literal

START: Final = 0x7E
ESCAPE: Final = 0x7D
ESCAPE_XOR: Final = 0x20
MAX_PAYLOAD: Final = 255
MAX_ADDRESS: Final = 127
FROM_DEVICE: Final = 0x80
HEADER_LEN: Final = 4  # LEN, SEQ, ADDR, TYPE
CRC_LEN: Final = 2
#: The longest frame on the wire: start byte plus every body byte escaped.
MAX_WIRE_LEN: Final = 1 + 2 * (HEADER_LEN + MAX_PAYLOAD + CRC_LEN)
#: Message types from this value up are application messages; below it, link control.
FIRST_MESSAGE_TYPE: Final = 0x10


class FrameType(IntEnum):
    """Link-control frame types (the application's types start at 0x10)."""

    ACK = 0x01  # SEQ = the data frame acknowledged
    NAK = 0x02  # "the last frame I received from you was damaged"
    POLL = 0x03  # gateway -> keypad on a bus: your turn to send
    SYNC = 0x04  # SEQ = sender's next data SEQ; payload = 4-byte session id
    SYNC_ACK = 0x05  # SEQ and payload echo the SYNC
    EMPTY = 0x06  # keypad -> gateway on a bus: nothing to send, turn over


class FramingError(ValueError):
    """A frame that cannot be encoded (a field out of range, a payload too long)."""


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (pass a previous result as ``crc`` to continue it).

    The standard library's ``binascii.crc_hqx`` is this CRC (poly 0x1021, no reflection, no final
    XOR) once started at 0xFFFF; it runs in C, about 30 times faster than a table in Python.
    """
    return binascii.crc_hqx(data, crc)


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded (or to-be-encoded) frame."""

    address: int
    seq: int
    type: int
    payload: bytes = b""
    from_device: bool = False

    def encode(self) -> bytes:
        """The frame as it goes on the wire."""
        return encode(self)

    @property
    def is_control(self) -> bool:
        """Whether this is a link-control frame rather than an application message."""
        return self.type < FIRST_MESSAGE_TYPE


@dataclass(frozen=True, slots=True)
class CorruptFrame:
    """A damaged frame seen by the decoder: reported so the link can NAK, never raised."""

    reason: Literal["crc", "truncated", "escape"]
    raw: bytes  # the unstuffed bytes received after the start byte


DecodeResult = Frame | CorruptFrame


def _stuff(body: bytes) -> bytes:
    out = bytearray()
    for byte in body:
        if byte in (START, ESCAPE):
            out += bytes((ESCAPE, byte ^ ESCAPE_XOR))
        else:
            out.append(byte)
    return bytes(out)


def encode(frame: Frame) -> bytes:
    """Encode a frame; raises FramingError if a field is out of range."""
    if not 0 <= frame.address <= MAX_ADDRESS:
        raise FramingError(f"address {frame.address} is outside 0..{MAX_ADDRESS}")
    if not 0 <= frame.seq <= 0xFF:
        raise FramingError(f"sequence number {frame.seq} is outside 0..255")
    if not 1 <= frame.type <= 0xFF:
        raise FramingError(f"message type {frame.type} is outside 1..255")
    if len(frame.payload) > MAX_PAYLOAD:
        raise FramingError(f"payload of {len(frame.payload)} bytes exceeds {MAX_PAYLOAD}")
    addr = frame.address | (FROM_DEVICE if frame.from_device else 0)
    body = bytes((len(frame.payload), frame.seq, addr, frame.type)) + bytes(frame.payload)
    crc = crc16(body)
    return bytes((START,)) + _stuff(body + bytes((crc >> 8, crc & 0xFF)))


class Decoder:
    """Turns a byte stream, in chunks of any size, into frames; resyncs on every start byte.

    ``feed`` never raises for any input bytes: damaged frames come back as CorruptFrame items in
    stream order, and bytes outside any frame are skipped (counted in ``garbage_bytes``).
    """

    def __init__(self) -> None:
        self._body = bytearray()
        self._in_frame = False
        self._escaped = False
        self.garbage_bytes = 0
        self.frames = 0
        self.errors = 0

    def feed(self, data: bytes) -> list[DecodeResult]:
        """Consume bytes; return the frames (and damaged frames) completed by them."""
        results: list[DecodeResult] = []
        for byte in data:
            if byte == START:
                if self._in_frame and self._body:
                    results.append(self._error("truncated"))
                self._start()
            elif not self._in_frame:
                self.garbage_bytes += 1
            elif self._escaped:
                self._escaped = False
                if byte not in (START ^ ESCAPE_XOR, ESCAPE ^ ESCAPE_XOR):
                    results.append(self._error("escape"))
                    self._in_frame = False
                    continue
                self._append(byte ^ ESCAPE_XOR, results)
            elif byte == ESCAPE:
                self._escaped = True
            else:
                self._append(byte, results)
        return results

    @property
    def in_frame(self) -> bool:
        """Whether part of a frame has been received (the link may time it out)."""
        return self._in_frame and bool(self._body)

    def abandon(self) -> CorruptFrame | None:
        """Give up the frame in progress (the line went quiet mid-frame): report it truncated."""
        if not self.in_frame:
            return None
        self._in_frame = False
        return self._error("truncated")

    def _start(self) -> None:
        self._body.clear()
        self._in_frame = True
        self._escaped = False

    def _error(self, reason: Literal["crc", "truncated", "escape"]) -> CorruptFrame:
        self.errors += 1
        return CorruptFrame(reason, bytes(self._body))

    def _append(self, byte: int, results: list[DecodeResult]) -> None:
        self._body.append(byte)
        if len(self._body) < HEADER_LEN + CRC_LEN:
            return
        if len(self._body) < HEADER_LEN + self._body[0] + CRC_LEN:
            return
        self._in_frame = False
        body = bytes(self._body)
        if crc16(body) != 0:
            # Running the CRC over the body and its own big-endian CRC leaves zero residue.
            results.append(self._error("crc"))
            return
        length, seq, addr, frame_type = body[:HEADER_LEN]
        self.frames += 1
        results.append(
            Frame(
                address=addr & MAX_ADDRESS,
                seq=seq,
                type=frame_type,
                payload=body[HEADER_LEN : HEADER_LEN + length],
                from_device=bool(addr & FROM_DEVICE),
            )
        )
