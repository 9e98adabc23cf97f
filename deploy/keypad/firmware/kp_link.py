"""The reliable link for MicroPython, the keypad's end (protocol/link.py): stop-and-wait with
sequence numbers, ACK/NAK, retransmission with backoff, the duplicate filter and the session
SYNC, point to point (USB CDC or a UART) or as a device on the RS-485 bus. Times are whole
milliseconds from a clock the caller passes in; the timings come from kp_tables.

Events (``events()``): ("delivered", type, payload), ("up",), ("down",), ("restarted",).
"""

import kp_tables as T
from kp_frame import Corrupt, Decoder, encode

FT = T.FRAME_TYPES
ACK, NAK, POLL, SYNC, SYNC_ACK, EMPTY = (
    FT["ACK"],
    FT["NAK"],
    FT["POLL"],
    FT["SYNC"],
    FT["SYNC_ACK"],
    FT["EMPTY"],
)
MS = T.LINK_MS
FIRST = T.FIRST_MESSAGE_TYPE


def wire_ms(nbytes, baud=T.LINK_BAUD):
    """Milliseconds ``nbytes`` take on the wire (10 bits a byte)."""
    return nbytes * 10000 // baud if baud else 0


def timeout_ms(attempt):
    wait = MS["ack_timeout"] * T.LINK_BACKOFF ** max(attempt - 1, 0)
    return min(wait, MS["max_timeout"])


class _Out:
    def __init__(self, seq, kind, payload, due):
        self.seq = seq
        self.type = kind
        self.payload = payload
        self.attempts = 0
        self.due = due
        self.timeouts = 0
        self.hurry = False
        self.hurried = 0
        self.on_wire_until = 0


class _Endpoint:
    def __init__(self, address, session):
        self.address = address
        self.session = session & 0xFFFFFFFF
        self.decoder = Decoder()
        self.next_seq = 0
        self.queue = []
        self.current = None
        self.synced = False
        self.peer_session = None
        self.expected = None
        self.duplicates = 0
        self._events = []
        self._up = None

    @property
    def up(self):
        return bool(self._up)

    @property
    def pending(self):
        cur = self.current
        return (1 if cur is not None and cur.type != SYNC else 0) + len(self.queue)

    def send(self, kind, payload=b""):
        if not FIRST <= kind <= 0xFF or len(payload) > T.MAX_PAYLOAD:
            raise ValueError("not a message")
        self.queue.append((kind, bytes(payload)))

    def events(self):
        events, self._events = self._events, []
        return events

    def _set_up(self, up):
        if self._up is not up:
            self._up = up
            self._events.append(("up",) if up else ("down",))

    def _take(self, now):
        if self.current is None:
            if not self.synced:
                self.current = _Out(self.next_seq, SYNC, self.session.to_bytes(4, "big"), now)
            elif self.queue:
                kind, payload = self.queue.pop(0)
                self.current = _Out(self.next_seq, kind, payload, now)
                self.next_seq = (self.next_seq + 1) & 0xFF
        return self.current

    def _busy(self):
        return self.current is not None or bool(self.queue) or not self.synced

    def _mine(self, frame):
        return not frame.from_device and frame.address == self.address

    def _on_sync(self, frame):
        if len(frame.payload) != 4:
            return False
        session = int.from_bytes(frame.payload, "big")
        if session == self.peer_session:
            return True
        known = self.peer_session is not None
        self.peer_session = session
        self.expected = frame.seq
        if known:
            self._events.append(("restarted",))
        return True

    def _on_data(self, frame):
        """Deliver a new frame; True if it must be acknowledged."""
        seq = frame.seq
        if self.expected is None or seq == self.expected:
            self.expected = (seq + 1) & 0xFF
            self._events.append(("delivered", frame.type, frame.payload))
            return True
        if 1 <= (self.expected - seq) & 0xFF <= 128:
            self.duplicates += 1
            return True
        return False

    def _on_ack(self, frame):
        cur = self.current
        if cur is not None and cur.type != SYNC and cur.seq == frame.seq:
            self.current = None

    def _on_sync_ack(self, frame):
        cur = self.current
        if (
            cur is not None
            and cur.type == SYNC
            and (cur.seq, cur.payload)
            == (
                frame.seq,
                frame.payload,
            )
        ):
            self.current = None
            self.synced = True

    def _reply(self, seq, kind, payload=b""):
        return encode(self.address, seq, kind, payload, True)


class PointToPointLink(_Endpoint):
    """The keypad's end of a point-to-point link (USB CDC serial, or a UART)."""

    def __init__(self, address, session):
        super().__init__(address, session)
        self._control = []
        self._nak = False
        self._last_rx = 0
        self._garbage = 0

    def receive_bytes(self, data, now):
        if data:
            self._last_rx = now
        for item in self.decoder.feed(data):
            if isinstance(item, Corrupt):
                self._damaged(now)
            elif self._mine(item):
                self._on_frame(item, now)

    def _damaged(self, now):
        self._nak = True
        self._hurry(now)

    def _hurry(self, now):
        cur = self.current
        if cur is not None and cur.attempts and cur.hurried < T.LINK_FAST_RESENDS:
            cur.due = max(now, cur.on_wire_until)
            cur.hurry = True
            cur.hurried += 1

    def _on_frame(self, frame, now):
        self._set_up(True)
        kind = frame.type
        if kind == ACK:
            self._on_ack(frame)
        elif kind == NAK:
            self._hurry(now)
        elif kind == SYNC:
            if self._on_sync(frame):
                self._control.append(self._reply(frame.seq, SYNC_ACK, frame.payload))
        elif kind == SYNC_ACK:
            self._on_sync_ack(frame)
        elif kind >= FIRST and self._on_data(frame):
            self._control.append(self._reply(frame.seq, ACK))

    def poll(self, now):
        """The bytes to write now (often none)."""
        out = bytearray(b"".join(self._control))
        self._control = []
        if now >= self._last_rx + MS["frame_gap"]:
            garbage = self.decoder.garbage_bytes
            if self.decoder.abandon() is not None or garbage != self._garbage:
                self._damaged(now)
            self._garbage = garbage
        if self._nak:
            out += self._reply(self.expected or 0, NAK)
        self._nak = False
        cur = self.current
        if cur is not None and cur.attempts and now >= cur.due and not cur.hurry:
            cur.hurried = 0
            cur.timeouts += 1
            if cur.timeouts >= T.LINK_RETRY_LIMIT:
                self._set_up(False)
        cur = self._take(now)
        if cur is not None and now >= cur.due:
            out += self._reply(cur.seq, cur.type, cur.payload)
            cur.attempts += 1
            cur.hurry = False
            cur.on_wire_until = now + wire_ms(len(out))
            wait = MS["max_timeout"] if self._up is False else timeout_ms(cur.timeouts + 1)
            cur.due = now + wait + wire_ms(len(out) + T.CONTROL_FRAME_LEN)
        return bytes(out)


class BusDevice(_Endpoint):
    """A keypad on the RS-485 bus: answers each frame addressed to it that grants a turn."""

    def __init__(self, address, session):
        super().__init__(address, session)
        self._answer = None
        self._last_addressed = None

    def receive_bytes(self, data, now):
        for item in self.decoder.feed(data):
            if not isinstance(item, Corrupt) and self._mine(item):
                self._on_frame(item, now)

    def _on_frame(self, frame, now):
        self._last_addressed = now
        self._set_up(True)
        kind = frame.type
        if kind == ACK:
            self._on_ack(frame)
        elif kind == SYNC_ACK:
            self._on_sync_ack(frame)
        elif kind == SYNC:
            if self._on_sync(frame):
                self._answer = self._reply(frame.seq, SYNC_ACK, frame.payload)
        elif kind in (POLL, NAK):
            cur = self._take(now)
            if cur is None:
                self._answer = self._reply(0, EMPTY)
            else:
                cur.attempts += 1
                self._answer = self._reply(cur.seq, cur.type, cur.payload)
        elif kind >= FIRST:
            if self._on_data(frame):
                self._answer = self._reply(frame.seq, ACK)
            else:
                self._answer = self._reply(0, EMPTY)

    def poll(self, now):
        last = self._last_addressed
        if self._up and last is not None and now >= last + MS["silence_timeout"]:
            self._set_up(False)
        answer, self._answer = self._answer, None
        return answer or b""
