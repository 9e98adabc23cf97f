"""A seeded fault injector for one direction of a line: corrupt, drop, duplicate, delay, pull.

It is sans-I/O and runs on whatever clock it is given: ``write(data, now)`` puts bytes on the wire,
``read(now)`` returns the bytes that have arrived by then. With ``baud`` set, bytes take their wire
time (10 bits each) and arrive one by one; without it they arrive at once (plus any delay).

Frames are recognised by their start byte (0x7E), so whole frames can be dropped, duplicated or
delayed (a delayed frame may overtake later ones: that is how tests get reordering).
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field

from protocol.framing import START


@dataclass(frozen=True, slots=True)
class Faults:
    """What can go wrong, as probabilities (per byte for corruption, per frame otherwise)."""

    corrupt: float = 0.0
    drop: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    delay_max: float = 0.5  # a delayed frame is held back uniformly 0..delay_max seconds


@dataclass(slots=True)
class FaultStats:
    """What the injector did."""

    bytes_in: int = 0
    bytes_out: int = 0
    corrupted: int = 0
    dropped: int = 0
    duplicated: int = 0
    delayed: int = 0
    pulled: int = 0


@dataclass(slots=True)
class FaultInjector:
    """One direction of a line between two endpoints, with seeded faults."""

    faults: Faults = field(default_factory=Faults)
    seed: int = 0
    baud: int | None = None
    stats: FaultStats = field(default_factory=FaultStats)
    _rng: random.Random = field(init=False)
    _chunks: list[tuple[float, int, bytes, float]] = field(init=False, default_factory=list)
    _order: int = field(init=False, default=0)
    _busy_until: float = field(init=False, default=0.0)
    _pulls: list[tuple[float, float]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def pull_cable(self, start: float, duration: float) -> None:
        """Unplug the cable from ``start`` for ``duration`` seconds: every byte then is lost."""
        self._pulls.append((start, start + duration))

    def plug_back(self, now: float) -> None:
        """End every cable pull at ``now``."""
        self._pulls = [(start, min(end, now)) for start, end in self._pulls if start < now]

    def unplugged(self, when: float) -> bool:
        """Whether the cable is out at ``when``."""
        return any(start <= when < end for start, end in self._pulls)

    def write(self, data: bytes, now: float) -> None:
        """Put bytes on the wire at ``now``."""
        self.stats.bytes_in += len(data)
        for unit in _split_frames(data):
            copies = 1
            if self._rng.random() < self.faults.drop:
                self.stats.dropped += 1
                copies = 0
            elif self._rng.random() < self.faults.duplicate:
                self.stats.duplicated += 1
                copies = 2
            for _ in range(copies):
                self._transmit(unit, now)

    def _transmit(self, unit: bytes, now: float) -> None:
        extra = 0.0
        if self.faults.delay and self._rng.random() < self.faults.delay:
            self.stats.delayed += 1
            extra = self._rng.uniform(0.0, self.faults.delay_max)
        char = 10 / self.baud if self.baud else 0.0
        start = max(now, self._busy_until)
        run = bytearray()
        run_start = 0.0
        for i, byte in enumerate(unit):
            sent = start + i * char
            if self.unplugged(sent):
                self.stats.pulled += 1
                self._queue(run, run_start, char)
                run = bytearray()
                continue
            if self._rng.random() < self.faults.corrupt:
                self.stats.corrupted += 1
                byte ^= self._rng.randrange(1, 256)
            if not run:
                run_start = sent + char + extra
            run.append(byte)
        self._queue(run, run_start, char)
        self._busy_until = start + len(unit) * char

    def _queue(self, run: bytearray, first_arrival: float, char: float) -> None:
        if run:
            heapq.heappush(self._chunks, (first_arrival, self._order, bytes(run), char))
            self._order += 1

    def read(self, now: float) -> bytes:
        """The bytes that have arrived by ``now`` (a frame held back by a delay comes whole)."""
        out = bytearray()
        while self._chunks and self._chunks[0][0] <= now:
            first, order, data, char = heapq.heappop(self._chunks)
            count = len(data) if char == 0 else min(len(data), int((now - first) / char + 1e-6) + 1)
            out += data[:count]
            if count < len(data):
                rest = (first + count * char, order, data[count:], char)
                heapq.heappush(self._chunks, rest)
        self.stats.bytes_out += len(out)
        return bytes(out)

    def next_arrival(self) -> float | None:
        """When the next whole run of bytes (a frame, or what is left of one) has arrived.

        Bytes arrive one by one in between: ``read`` at any earlier time returns those so far.
        """
        if not self._chunks:
            return None
        return min(first + (len(data) - 1) * char for first, _, data, char in self._chunks)

    @property
    def idle_at(self) -> float:
        """When the sender's last byte has left (the line is free for it again)."""
        return self._busy_until


def _split_frames(data: bytes) -> list[bytes]:
    """Cut a byte stream before every start byte; a leading fragment stays a unit of its own."""
    units: list[bytes] = []
    begin = 0
    for i, byte in enumerate(data):
        if byte == START and i > begin:
            units.append(data[begin:i])
            begin = i
    if begin < len(data):
        units.append(data[begin:])
    return units
