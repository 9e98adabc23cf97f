"""The reliable keypad link, sans I/O: sequence numbers, ACK/NAK, retransmission, duplicate filter.

Three endpoints share one sender and one receiver state machine (stop-and-wait, window 1):

* :class:`PointToPointLink`: one end of a cable (RS-232 / USB serial, full duplex). Either side
  may send at any time; unacknowledged frames are resent after a timeout with exponential backoff,
  a NAK (sent on every damaged frame) triggers an immediate resend.
* :class:`BusDevice`: a keypad on an RS-485 multi-drop bus. It only ever answers a frame the
  gateway addressed to it, with exactly one frame, and never NAKs.
* :class:`BusMaster`: the gateway end of that bus; it gives each keypad a turn in rotation.

Nothing here does I/O or reads a clock by itself: bytes come in through ``receive_bytes``, bytes
to write come out of ``poll``, and time comes from the ``now`` callable passed in. The rules are
written out in protocol/README.md.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, NamedTuple

from .framing import (
    FIRST_MESSAGE_TYPE,
    MAX_ADDRESS,
    MAX_PAYLOAD,
    CorruptFrame,
    Decoder,
    Frame,
    FrameType,
    encode,
)

Clock = Callable[[], float]

#: Bytes on the wire of a frame with an empty payload (before any escaping).
CONTROL_FRAME_LEN = 7


@dataclass(frozen=True, slots=True)
class Delivered:
    """A message received from the peer, in order, exactly once."""

    msg_type: int
    payload: bytes


@dataclass(frozen=True, slots=True)
class Acked:
    """The peer acknowledged one of our messages."""

    msg_type: int
    payload: bytes


@dataclass(frozen=True, slots=True)
class LinkUp:
    """The peer answered (first contact, or again after LinkDown)."""


@dataclass(frozen=True, slots=True)
class LinkDown:
    """The peer stopped answering; queued messages are kept and retried."""


@dataclass(frozen=True, slots=True)
class PeerRestarted:
    """The peer started a new session (it restarted) after we had seen an earlier one."""

    session: int


LinkEvent = Delivered | Acked | LinkUp | LinkDown | PeerRestarted


class BusEvent(NamedTuple):
    """A link event of one keypad on a bus, as the master reports it."""

    address: int
    event: LinkEvent


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """Timing and retry limits; the defaults suit 9600 baud."""

    ack_timeout: float = 0.15  # first wait for an ACK, on top of the frames' wire time
    backoff: float = 2.0  # each further wait is this many times longer...
    max_timeout: float = 2.0  # ...up to this
    retry_limit: int = 6  # timeouts in a row before the link is reported down
    baud: int | None = 9600  # to add wire time to timeouts; None ignores it
    reply_timeout: float = 0.03  # bus: a keypad must start its answer within this
    dead_poll_interval: float = 1.0  # bus: how often a keypad reported down is still polled
    silence_timeout: float = 3.0  # bus keypad: down when not addressed for this long
    # Point to point: a quiet line this long ends a half-received frame. Above the 16 ms latency
    # timer of common USB-serial adapters, which can pause a frame that long.
    frame_gap: float = 0.05
    fast_resends: int = 3  # point to point: resends a NAK may prompt before the next timeout
    # Point to point, the gateway's end: after this long with nothing from the keypad it sends
    # a SYNC of its own session (the keypad answers SYNC_ACK; nothing else changes), so an
    # idle keypad is known to be there and a pulled cable is reported down within this plus
    # the retries (about 7 s). None: no keepalive.
    keepalive: float | None = 20.0

    def wire_time(self, nbytes: int) -> float:
        """Seconds that ``nbytes`` take on the wire (10 bits per byte: start, 8 data, stop)."""
        return nbytes * 10 / self.baud if self.baud else 0.0

    def timeout(self, attempt: int) -> float:
        """The wait for an answer to the ``attempt``-th timed send (1: the first send)."""
        return min(self.ack_timeout * self.backoff ** max(attempt - 1, 0), self.max_timeout)


def _new_session() -> int:
    return secrets.randbits(32)


def _check_message(msg_type: int, payload: bytes) -> None:
    if not FIRST_MESSAGE_TYPE <= msg_type <= 0xFF:
        raise ValueError(f"message type {msg_type:#x} is not an application type (0x10..0xFF)")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")


@dataclass(slots=True)
class _Outgoing:
    seq: int
    type: int
    payload: bytes
    attempts: int = 0  # sends so far
    due: float = 0.0  # when to send it (again)
    timeouts: int = 0  # waits that ran out; NAK-prompted resends do not count (no backoff)
    hurry: bool = False  # the next send was prompted by a NAK or a damaged frame
    hurried: int = 0  # prompted resends during this wait (capped: no resend storms)
    on_wire_until: float = 0.0  # when its last copy has left our UART


class _Sender:
    """Our half of stop-and-wait: the queue, the one frame in flight, and the session SYNC."""

    def __init__(self, session: int) -> None:
        self.session = session
        self.next_seq = 0
        self.queue: deque[tuple[int, bytes]] = deque()
        self.current: _Outgoing | None = None
        self.synced = False

    @property
    def busy(self) -> bool:
        return self.current is not None or bool(self.queue) or not self.synced

    @property
    def has_new(self) -> bool:
        """A data frame is ready and none is in flight."""
        return self.current is None and self.synced and bool(self.queue)

    def take(self, now: float) -> _Outgoing | None:
        """The frame in flight, starting the next one (SYNC first in a session) if none."""
        if self.current is None:
            if not self.synced:
                session = self.session.to_bytes(4, "big")
                self.current = _Outgoing(self.next_seq, FrameType.SYNC, session, due=now)
            elif self.queue:
                msg_type, payload = self.queue.popleft()
                self.current = _Outgoing(self.next_seq, msg_type, payload, due=now)
                self.next_seq = (self.next_seq + 1) & 0xFF
        return self.current

    def on_ack(self, seq: int) -> _Outgoing | None:
        cur = self.current
        if cur is not None and cur.type != FrameType.SYNC and cur.seq == seq:
            self.current = None
            return cur
        return None

    def on_sync_ack(self, seq: int, payload: bytes) -> bool:
        cur = self.current
        if (
            cur is not None
            and cur.type == FrameType.SYNC
            and (cur.seq, cur.payload)
            == (
                seq,
                payload,
            )
        ):
            self.current = None
            self.synced = True
            return True
        return False


class _Receiver:
    """The peer's half: which sequence number is new, which a duplicate, and its session."""

    def __init__(self) -> None:
        self.peer_session: int | None = None
        self.expected: int | None = None
        self.duplicates = 0
        self.ignored = 0

    def on_sync(self, seq: int, payload: bytes) -> Literal["new", "restart", "same", "bad"]:
        if len(payload) != 4:
            return "bad"
        session = int.from_bytes(payload, "big")
        if session == self.peer_session:
            return "same"
        known = self.peer_session is not None
        self.peer_session = session
        self.expected = seq
        return "restart" if known else "new"

    def on_data(self, seq: int) -> Literal["new", "duplicate", "ignore"]:
        if self.expected is None or seq == self.expected:
            self.expected = (seq + 1) & 0xFF
            return "new"
        if 1 <= (self.expected - seq) & 0xFF <= 128:
            self.duplicates += 1
            return "duplicate"
        # Ahead of what stop-and-wait allows: stale or forged; the sender's retry will resolve it.
        self.ignored += 1
        return "ignore"


def _frame(address: int, seq: int, kind: int, payload: bytes, from_device: bool) -> bytes:
    return encode(Frame(address, seq, kind, payload, from_device))


class _Endpoint:
    """What PointToPointLink and BusDevice share: one peer, one decoder, events and status."""

    def __init__(
        self,
        address: int | None,
        now: Clock,
        *,
        from_device: bool,
        config: LinkConfig | None,
        session: int | None,
    ) -> None:
        if address is not None and not 1 <= address <= MAX_ADDRESS:
            raise ValueError(f"address {address} is outside 1..{MAX_ADDRESS}")
        self.address = address
        self.config = config or LinkConfig()
        self._now = now
        self._from_device = from_device
        self._decoder = Decoder()
        self._sender = _Sender(_new_session() if session is None else session)
        self._receiver = _Receiver()
        self._events: list[LinkEvent] = []
        self._up: bool | None = None

    @property
    def session(self) -> int:
        """Our session id, sent in SYNC; a restarted endpoint has a new one."""
        return self._sender.session

    @property
    def up(self) -> bool:
        """Whether the peer has answered and not since stopped answering."""
        return bool(self._up)

    @property
    def pending(self) -> int:
        """Messages queued or in flight (not yet acknowledged)."""
        cur = self._sender.current
        in_flight = 1 if cur is not None and cur.type != FrameType.SYNC else 0
        return in_flight + len(self._sender.queue)

    @property
    def stats(self) -> dict[str, int]:
        """Counters for logs and tests."""
        return {
            "frames": self._decoder.frames,
            "corrupt": self._decoder.errors,
            "garbage_bytes": self._decoder.garbage_bytes,
            "duplicates": self._receiver.duplicates,
            "ignored": self._receiver.ignored,
        }

    def send(self, msg_type: int, payload: bytes = b"") -> None:
        """Queue an application message; it is delivered once, in order, while the peer lives."""
        _check_message(msg_type, payload)
        self._sender.queue.append((msg_type, bytes(payload)))

    def events(self) -> list[LinkEvent]:
        """Take the events since the last call: Delivered, Acked, LinkUp/Down, PeerRestarted."""
        events, self._events = self._events, []
        return events

    def delivered(self) -> list[Delivered]:
        """Take the events, keeping only the delivered messages (drops the others)."""
        return [event for event in self.events() if isinstance(event, Delivered)]

    def _set_up(self, up: bool) -> None:
        if self._up is not up:
            self._up = up
            self._events.append(LinkUp() if up else LinkDown())

    def _mine(self, frame: Frame) -> bool:
        if frame.from_device == self._from_device:
            return False  # our own direction: an echo, or another keypad on the bus
        if self.address is None:
            self.address = frame.address  # a point-to-point gateway learns its keypad
        return frame.address == self.address

    def _on_sync(self, frame: Frame) -> bool:
        verdict = self._receiver.on_sync(frame.seq, frame.payload)
        if verdict == "restart":
            self._events.append(PeerRestarted(self._receiver.peer_session or 0))
        return verdict != "bad"

    def _on_data(self, frame: Frame) -> bool:
        """Handle a data frame; True if it must be acknowledged."""
        verdict = self._receiver.on_data(frame.seq)
        if verdict == "new":
            self._events.append(Delivered(frame.type, frame.payload))
        return verdict != "ignore"

    def _on_ack(self, frame: Frame) -> None:
        done = self._sender.on_ack(frame.seq)
        if done is not None:
            self._events.append(Acked(done.type, done.payload))

    def _reply(self, seq: int, kind: int, payload: bytes = b"") -> bytes:
        assert self.address is not None
        return _frame(self.address, seq, kind, payload, self._from_device)


class PointToPointLink(_Endpoint):
    """A point-to-point reliable link endpoint (full duplex, stop-and-wait, window 1).

    ``role`` says which end this is: "device" (the keypad, sets the FROM_DEVICE address bit) or
    "gateway". A gateway may pass ``address=None`` to learn the keypad's address from its first
    frame. ``session`` (random by default) identifies this run of the endpoint.
    """

    def __init__(
        self,
        address: int | None,
        now: Clock,
        *,
        role: Literal["device", "gateway"] = "device",
        config: LinkConfig | None = None,
        session: int | None = None,
    ) -> None:
        if address is None and role == "device":
            raise ValueError("a keypad needs its address")
        super().__init__(address, now, from_device=role == "device", config=config, session=session)
        self._control: list[bytes] = []
        self._nak = False
        self._last_rx = 0.0
        self._garbage = 0
        self._keepalive = self.config.keepalive if role == "gateway" else None
        self._heard: float | None = None  # the last valid frame from the peer

    def receive_bytes(self, data: bytes) -> None:
        """Feed bytes read from the wire (any chunking)."""
        if data:
            self._last_rx = self._now()
        for item in self._decoder.feed(data):
            if isinstance(item, CorruptFrame):
                self._damaged()
            elif self._mine(item):
                self._on_frame(item)

    def _damaged(self) -> None:
        """Something from the peer was damaged: NAK it, and resend ours at once.

        The damaged frame may have been the ACK of our frame in flight; resending is cheaper
        than waiting for the timeout, and the peer drops a duplicate.
        """
        self._nak = True
        self._hurry()

    def _hurry(self) -> None:
        cur = self._sender.current
        if cur is not None and cur.attempts and cur.hurried < self.config.fast_resends:
            cur.due = max(self._now(), cur.on_wire_until)
            cur.hurry = True
            cur.hurried += 1

    def _on_frame(self, frame: Frame) -> None:
        self._set_up(True)
        self._heard = self._now()
        kind = frame.type
        if kind == FrameType.ACK:
            self._on_ack(frame)
        elif kind == FrameType.NAK:
            self._hurry()
        elif kind == FrameType.SYNC:
            if self._on_sync(frame):
                self._control.append(self._reply(frame.seq, FrameType.SYNC_ACK, frame.payload))
        elif kind == FrameType.SYNC_ACK:
            self._sender.on_sync_ack(frame.seq, frame.payload)
        elif kind >= FIRST_MESSAGE_TYPE and self._on_data(frame):
            self._control.append(self._reply(frame.seq, FrameType.ACK))

    def poll(self, now: float | None = None) -> bytes:
        """The bytes to write to the wire now (often none); ``now`` defaults to the clock."""
        now = self._now() if now is None else now
        out = bytearray(b"".join(self._control))
        self._control.clear()
        if now >= self._last_rx + self.config.frame_gap:
            # A quiet line after a partial frame or stray bytes: something was lost, say so now
            # rather than let the sender wait for its timeout.
            garbage = self._decoder.garbage_bytes
            if self._decoder.abandon() is not None or garbage != self._garbage:
                self._damaged()
            self._garbage = garbage
        if self._nak and self.address is not None:
            out += self._reply(self._receiver.expected or 0, FrameType.NAK)
        self._nak = False
        if self.address is None:
            return bytes(out)
        cur = self._sender.current
        if cur is not None and cur.attempts and now >= cur.due and not cur.hurry:
            cur.hurried = 0
            cur.timeouts += 1
            if cur.timeouts >= self.config.retry_limit:
                self._set_up(False)
        keepalive = self._keepalive_at()
        if keepalive is not None and now >= keepalive:
            self._sender.synced = False  # a SYNC of the same session: "are you there?"
        cur = self._sender.take(now)
        if cur is not None and now >= cur.due:
            out += self._reply(cur.seq, cur.type, cur.payload)
            cur.attempts += 1
            cur.hurry = False
            cur.on_wire_until = now + self.config.wire_time(len(out))
            config = self.config
            wait = config.max_timeout if self._up is False else config.timeout(cur.timeouts + 1)
            cur.due = now + wait + config.wire_time(len(out) + CONTROL_FRAME_LEN)
        return bytes(out)

    def next_deadline(self) -> float | None:
        """When ``poll`` next has something to write, if nothing arrives before; None: idle."""
        if self._control or self._nak:
            return self._now()
        gap = None
        if self._decoder.in_frame or self._decoder.garbage_bytes != self._garbage:
            gap = self._last_rx + self.config.frame_gap
        if self.address is None:
            return gap
        cur = self._sender.current
        due = cur.due if cur is not None else self._now() if self._sender.busy else None
        if due is None:
            due = self._keepalive_at()
        if gap is None or due is None:
            return due if gap is None else gap
        return min(gap, due)

    def _keepalive_at(self) -> float | None:
        """When an idle line gets its keepalive SYNC (the gateway's end, once the keypad has
        been heard); None while something is queued or in flight, which answers as well."""
        if self._keepalive is None or self._heard is None or self._sender.busy:
            return None
        return self._heard + self._keepalive


class BusDevice(_Endpoint):
    """A keypad on an RS-485 bus: answers each frame addressed to it that grants a turn.

    Turn-granting frames are POLL, NAK, SYNC and data. The answer is exactly one frame: ACK to
    data, SYNC_ACK to SYNC, and to POLL/NAK our SYNC or data frame in flight, else EMPTY. A
    damaged frame is never answered (it might not have been ours).
    """

    def __init__(
        self,
        address: int,
        now: Clock,
        *,
        config: LinkConfig | None = None,
        session: int | None = None,
    ) -> None:
        super().__init__(address, now, from_device=True, config=config, session=session)
        self._answer: bytes | None = None
        self._last_addressed: float | None = None

    def receive_bytes(self, data: bytes) -> None:
        """Feed bytes heard on the bus (from the gateway and from the other keypads)."""
        for item in self._decoder.feed(data):
            if isinstance(item, Frame) and self._mine(item):
                self._on_frame(item)

    def _on_frame(self, frame: Frame) -> None:
        self._last_addressed = self._now()
        self._set_up(True)
        kind = frame.type
        if kind == FrameType.ACK:
            self._on_ack(frame)
        elif kind == FrameType.SYNC_ACK:
            self._sender.on_sync_ack(frame.seq, frame.payload)
        elif kind == FrameType.SYNC:
            if self._on_sync(frame):
                self._answer = self._reply(frame.seq, FrameType.SYNC_ACK, frame.payload)
        elif kind in (FrameType.POLL, FrameType.NAK):
            cur = self._sender.take(self._now())
            if cur is None:
                self._answer = self._reply(0, FrameType.EMPTY)
            else:
                cur.attempts += 1
                self._answer = self._reply(cur.seq, cur.type, cur.payload)
        elif kind >= FIRST_MESSAGE_TYPE:
            if self._on_data(frame):
                self._answer = self._reply(frame.seq, FrameType.ACK)
            else:
                self._answer = self._reply(0, FrameType.EMPTY)

    def poll(self, now: float | None = None) -> bytes:
        """The answer to write now, if a turn was granted; also notices a silent gateway."""
        now = self._now() if now is None else now
        last = self._last_addressed
        # The same sum as next_deadline: a difference could round below it and never fire.
        if self._up and last is not None and now >= last + self.config.silence_timeout:
            self._set_up(False)
        answer, self._answer = self._answer, None
        return answer or b""

    def next_deadline(self) -> float | None:
        """When ``poll`` next matters: at once with an answer due, else the silence check."""
        if self._answer is not None:
            return self._now()
        if self._up and self._last_addressed is not None:
            return self._last_addressed + self.config.silence_timeout
        return None


@dataclass(slots=True)
class _Peer:
    address: int
    sender: _Sender
    receiver: _Receiver
    up: bool | None = None
    silent: int = 0  # turns in a row it did not answer at all
    retries: int = 0  # immediate retries in a row (a damaged or missing answer)
    next_probe: float = 0.0
    retry: bool = False  # its last turn failed: it gets the next one
    last_grant: int = 0  # the frame type that granted its last turn


@dataclass(slots=True)
class _Turn:
    peer: _Peer
    deadline: float
    heard: bool = False  # some answer arrived, if only a damaged one


class BusMaster:
    """The gateway end of an RS-485 bus: one turn at a time, each keypad polled in rotation.

    A turn is one frame from the master that grants it (data, SYNC, POLL or NAK) and one answer
    from the addressed keypad, or silence until the reply timeout. ACKs for the keypads' data go
    out at once, ahead of the next turn. A keypad with a new message waiting for it gets the next
    turn (at most every other turn, so polling never starves); a keypad that missed
    ``retry_limit`` turns in a row is reported down and then polled only every
    ``dead_poll_interval`` seconds.
    """

    def __init__(
        self,
        addresses: Iterable[int],
        now: Clock,
        *,
        config: LinkConfig | None = None,
        session: int | None = None,
    ) -> None:
        self.config = config or LinkConfig()
        self.session = _new_session() if session is None else session
        self._now = now
        self._decoder = Decoder()
        self._peers: dict[int, _Peer] = {}
        self._control: list[bytes] = []
        self._turn: _Turn | None = None
        self._last: int | None = None
        self._priority_used = False
        self._events: list[BusEvent] = []
        self.stray_frames = 0
        for address in addresses:
            self.add(address)

    @property
    def addresses(self) -> list[int]:
        """The keypad addresses being polled."""
        return sorted(self._peers)

    def add(self, address: int) -> None:
        """Start polling a keypad address."""
        if not 1 <= address <= MAX_ADDRESS:
            raise ValueError(f"address {address} is outside 1..{MAX_ADDRESS}")
        if address not in self._peers:
            self._peers[address] = _Peer(address, _Sender(self.session), _Receiver())

    def remove(self, address: int) -> None:
        """Stop polling a keypad address (its queued messages are dropped)."""
        self._peers.pop(address, None)
        if self._turn is not None and self._turn.peer.address == address:
            self._turn = None

    def is_up(self, address: int) -> bool:
        """Whether the keypad at ``address`` answers."""
        peer = self._peers.get(address)
        return bool(peer and peer.up)

    def pending(self, address: int) -> int:
        """Messages for ``address`` queued or in flight."""
        peer = self._peers[address]
        cur = peer.sender.current
        return (1 if cur is not None and cur.type != FrameType.SYNC else 0) + len(peer.sender.queue)

    def send(self, address: int, msg_type: int, payload: bytes = b"") -> None:
        """Queue a message for the keypad at ``address``."""
        _check_message(msg_type, payload)
        self._peers[address].sender.queue.append((msg_type, bytes(payload)))

    def events(self) -> list[BusEvent]:
        """Take the events since the last call, each with its keypad's address."""
        events, self._events = self._events, []
        return events

    def _emit(self, peer: _Peer, event: LinkEvent) -> None:
        self._events.append(BusEvent(peer.address, event))

    def _set_up(self, peer: _Peer, up: bool) -> None:
        if peer.up is not up:
            peer.up = up
            self._emit(peer, LinkUp() if up else LinkDown())

    def receive_bytes(self, data: bytes) -> None:
        """Feed bytes heard on the bus."""
        turn = self._turn
        if turn is not None and data:
            # The answer is still arriving: the reply timeout counts from its latest byte.
            turn.deadline = max(turn.deadline, self._now() + self.config.reply_timeout)
            turn.heard = True
        for item in self._decoder.feed(data):
            if isinstance(item, CorruptFrame):
                continue  # a damaged answer: wait out the line, then retry the turn at once
            if item.from_device:
                self._on_frame(item)

    def _on_frame(self, frame: Frame) -> None:
        turn = self._turn
        if turn is None or frame.address != turn.peer.address:
            self.stray_frames += 1  # out of turn: a collision-rule breach or a late answer
            return
        peer = turn.peer
        kind = frame.type
        if kind == FrameType.ACK:
            done = peer.sender.on_ack(frame.seq)
            if done is not None:
                self._emit(peer, Acked(done.type, done.payload))
        elif kind == FrameType.SYNC_ACK:
            peer.sender.on_sync_ack(frame.seq, frame.payload)
        elif kind == FrameType.SYNC:
            verdict = peer.receiver.on_sync(frame.seq, frame.payload)
            if verdict == "restart":
                self._emit(peer, PeerRestarted(peer.receiver.peer_session or 0))
            if verdict != "bad":
                self._control.append(
                    _frame(peer.address, frame.seq, FrameType.SYNC_ACK, frame.payload, False)
                )
        elif kind >= FIRST_MESSAGE_TYPE:
            verdict_data = peer.receiver.on_data(frame.seq)
            if verdict_data == "new":
                self._emit(peer, Delivered(frame.type, frame.payload))
            if verdict_data != "ignore":
                self._control.append(_frame(peer.address, frame.seq, FrameType.ACK, b"", False))
        self._end_turn(answered=True)

    def _end_turn(self, *, answered: bool) -> None:
        turn = self._turn
        assert turn is not None
        self._turn = None
        peer = turn.peer
        now = self._now()
        limit = self.config.retry_limit
        if answered:
            peer.silent = peer.retries = 0
            self._set_up(peer, True)
            return
        # A damaged answer shows the keypad is there: only silence counts towards "down".
        peer.silent = 0 if turn.heard else peer.silent + 1
        if peer.silent >= limit:
            peer.retry = False
            self._set_up(peer, False)
            peer.next_probe = now + self.config.dead_poll_interval
        else:
            peer.retry = peer.retries < limit  # then it waits for its turn in the rotation
            peer.retries = peer.retries + 1 if peer.retry else 0

    def _rotation(self) -> list[_Peer]:
        order = sorted(self._peers)
        if self._last is not None:
            later = [a for a in order if a > self._last]
            order = later + [a for a in order if a <= self._last]
        return [self._peers[a] for a in order]

    def _choose(self, now: float) -> tuple[_Peer, bool] | None:
        """The next keypad to get a turn, and whether it is a priority turn."""
        for peer in self._peers.values():
            if peer.retry:
                return peer, True
        rotation = self._rotation()
        if not self._priority_used:
            for peer in rotation:
                if peer.up and peer.sender.has_new:
                    return peer, True
        for peer in rotation:
            if peer.up is not False or now >= peer.next_probe:
                return peer, False
        return None

    def poll(self, now: float | None = None) -> bytes:
        """The bytes to write now: pending ACKs and, when the bus is free, the next turn."""
        now = self._now() if now is None else now
        out = bytearray(b"".join(self._control))
        self._control.clear()
        if self._turn is not None:
            if now < self._turn.deadline:
                return bytes(out)
            self._end_turn(answered=False)
        choice = self._choose(now)
        if choice is None:
            return bytes(out)
        peer, priority = choice
        self._priority_used = priority
        if not priority:
            self._last = peer.address
        out += self._grant(peer, now)
        self._decoder = Decoder()  # anything half-heard before this turn is dead
        deadline = now + self.config.wire_time(len(out)) + self.config.reply_timeout
        self._turn = _Turn(peer, deadline)
        return bytes(out)

    def _grant(self, peer: _Peer, now: float) -> bytes:
        """The turn-granting frame for ``peer``: a retry, SYNC or data in flight, new data, POLL.

        After a failed turn the same frame goes again if it was ours (SYNC or data: the keypad
        missed it, or its ACK was lost), else a NAK asks the keypad to repeat its answer.
        """
        cur = peer.sender.current
        kind: int
        if peer.retry:
            peer.retry = False
            kind = cur.type if cur is not None and peer.last_grant == cur.type else FrameType.NAK
        elif cur is None and peer.last_grant >= FIRST_MESSAGE_TYPE and peer.sender.synced:
            kind = FrameType.POLL  # the keypad answered our data last time: let it talk
        else:
            cur = peer.sender.take(now)
            kind = FrameType.POLL if cur is None else cur.type
        peer.last_grant = kind
        if kind in (FrameType.POLL, FrameType.NAK):
            return _frame(peer.address, 0, kind, b"", False)
        assert cur is not None
        cur.attempts += 1
        return _frame(peer.address, cur.seq, cur.type, cur.payload, False)

    def next_deadline(self) -> float | None:
        """When ``poll`` next has something to do; None when every keypad is down and waiting."""
        now = self._now()
        if self._control:
            return now
        if self._turn is not None:
            return self._turn.deadline
        if not self._peers:
            return None
        if any(peer.up is not False for peer in self._peers.values()):
            return now
        return min(peer.next_probe for peer in self._peers.values())
