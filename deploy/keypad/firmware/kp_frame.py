"""Keypad frames for MicroPython: encode one frame, decode a byte stream (protocol/framing.py).

0x7E, then stuffed LEN SEQ ADDR TYPE PAYLOAD CRC_HI CRC_LO; CRC-16/CCITT-FALSE over LEN..PAYLOAD.
The constants and the CRC table come from kp_tables (generated from protocol/).
"""

import kp_tables as T

START = T.START
ESCAPE = T.ESCAPE
_XOR = T.ESCAPE_XOR
_CRC = T.CRC_TABLE
_HEADER = T.HEADER_LEN


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data``."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC[((crc >> 8) ^ byte) & 0xFF]
    return crc


def encode(address, seq, kind, payload=b"", from_device=True):
    """One frame's bytes on the wire."""
    if len(payload) > T.MAX_PAYLOAD:
        raise ValueError("payload too long")
    addr = address | (T.FROM_DEVICE if from_device else 0)
    body = bytes((len(payload), seq & 0xFF, addr, kind)) + bytes(payload)
    crc = crc16(body)
    body += bytes((crc >> 8, crc & 0xFF))
    out = bytearray((START,))
    for byte in body:
        if byte in (START, ESCAPE):
            out.append(ESCAPE)
            out.append(byte ^ _XOR)
        else:
            out.append(byte)
    return bytes(out)


class Frame:
    """A decoded frame."""

    def __init__(self, address, seq, kind, payload, from_device):
        self.address = address
        self.seq = seq
        self.type = kind
        self.payload = payload
        self.from_device = from_device


class Corrupt:
    """A damaged frame: ``reason`` is truncated, escape or crc."""

    def __init__(self, reason):
        self.reason = reason


class Decoder:
    """Bytes in any chunking -> Frame and Corrupt items; never raises."""

    def __init__(self):
        self._buf = bytearray()
        self._in_frame = False
        self._escaped = False
        self.frames = 0
        self.errors = 0
        self.garbage_bytes = 0

    @property
    def in_frame(self):
        """Whether part of a frame has been received (the link may time it out)."""
        return self._in_frame and len(self._buf) > 0

    def abandon(self):
        """Give up a half-received frame (a quiet line): a Corrupt, or None."""
        if not self.in_frame:
            return None
        self._in_frame = False
        self.errors += 1
        return Corrupt("truncated")

    def feed(self, data):
        out = []
        for byte in data:
            if byte == START:
                if self.in_frame:
                    self.errors += 1
                    out.append(Corrupt("truncated"))
                self._in_frame = True
                self._buf = bytearray()
                self._escaped = False
                continue
            if not self._in_frame:
                self.garbage_bytes += 1
                continue
            if self._escaped:
                self._escaped = False
                if byte not in (START ^ _XOR, ESCAPE ^ _XOR):
                    self._in_frame = False
                    self.errors += 1
                    out.append(Corrupt("escape"))
                    continue
                byte ^= _XOR
            elif byte == ESCAPE:
                self._escaped = True
                continue
            self._buf.append(byte)
            buf = self._buf
            if len(buf) >= 1 and len(buf) == _HEADER + buf[0] + 2:
                self._in_frame = False
                if crc16(buf) != 0:
                    self.errors += 1
                    out.append(Corrupt("crc"))
                else:
                    self.frames += 1
                    addr = buf[2]
                    out.append(
                        Frame(
                            addr & 0x7F,
                            buf[1],
                            buf[3],
                            bytes(buf[_HEADER : len(buf) - 2]),
                            bool(addr & T.FROM_DEVICE),
                        )
                    )
        return out
