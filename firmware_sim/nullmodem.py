"""In-memory serial lines in virtual time: a null-modem cable and an RS-485 bus, with faults.

Endpoints are sans-I/O objects with ``receive_bytes``, ``poll`` and ``next_deadline`` (protocol.link
PointToPointLink, BusDevice, BusMaster). The simulation jumps the clock from one event to the next,
so tests and benchmarks of many simulated minutes run in a fraction of a second without sleeping.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from .faults import FaultInjector


class Endpoint(Protocol):
    """What the simulation drives: a sans-I/O link endpoint."""

    def receive_bytes(self, data: bytes) -> None:
        """Feed received bytes."""

    def poll(self, now: float | None = None) -> bytes:
        """Bytes to write now."""

    def next_deadline(self) -> float | None:
        """When poll next has something to do."""


class VirtualClock:
    """A clock that only moves when told; pass it as the endpoints' ``now``."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t


Hook = Callable[[], float | None]
_EPSILON = 1e-9  # float rounding of wire times must not count as overlap


class _Medium:
    """Steps endpoints and lines in virtual time; subclasses say where written bytes go."""

    def __init__(self, clock: VirtualClock, hooks: Sequence[Hook]) -> None:
        self.clock = clock
        self.hooks = list(hooks)
        self.steps = 0

    def _deliver(self, now: float) -> None:
        raise NotImplementedError

    def _transmit(self, now: float) -> None:
        raise NotImplementedError

    def _deadlines(self) -> list[float | None]:
        raise NotImplementedError

    def _tick(self) -> float | None:
        """Deliver what has arrived, run the hooks, write what is due; when is the next event."""
        self.steps += 1
        now = self.clock.t
        self._deliver(now)
        wants = [hook() for hook in self.hooks]
        self._transmit(now)
        times = [t for t in (*self._deadlines(), *wants) if t is not None]
        return max(now, min(times)) if times else None

    def step(self) -> bool:
        """One round of delivery, hooks and writes, then the clock jumps to the next event.

        A hook is the application on top of an endpoint (it takes events and queues replies);
        it returns when it next wants to run, or None. False when nothing at all is pending.
        """
        when = self._tick()
        if when is None:
            return False
        self.clock.t = when
        return True

    def run(
        self, until: Callable[[], bool], *, max_time: float, max_steps: int = 2_000_000
    ) -> bool:
        """Step until ``until()`` holds (True), or the clock passes ``max_time`` (False)."""
        for _ in range(max_steps):
            if until():
                return True
            if self.clock.t > max_time or not self.step():
                return until()
        return until()

    def advance(self, to: float, *, max_steps: int = 2_000_000) -> None:
        """Run every event up to time ``to``, then leave the clock at ``to``."""
        for _ in range(max_steps):
            when = self._tick()
            if when is None or when > to:
                break
            self.clock.t = when
        self.clock.t = max(self.clock.t, to)


class NullModem(_Medium):
    """Two endpoints on a crossed cable; each direction is a FaultInjector."""

    def __init__(
        self,
        a: Endpoint,
        b: Endpoint,
        clock: VirtualClock,
        *,
        a_to_b: FaultInjector | None = None,
        b_to_a: FaultInjector | None = None,
        hooks: Sequence[Hook] = (),
    ) -> None:
        super().__init__(clock, hooks)
        self.a, self.b = a, b
        self.a_to_b = a_to_b or FaultInjector()
        self.b_to_a = b_to_a or FaultInjector(seed=1)

    def _deliver(self, now: float) -> None:
        for wire, dst in ((self.a_to_b, self.b), (self.b_to_a, self.a)):
            data = wire.read(now)
            if data:
                dst.receive_bytes(data)

    def _transmit(self, now: float) -> None:
        for src, wire in ((self.a, self.a_to_b), (self.b, self.b_to_a)):
            out = src.poll(now)
            if out:
                wire.write(out, now)

    def _deadlines(self) -> list[float | None]:
        return [
            self.a.next_deadline(),
            self.b.next_deadline(),
            self.a_to_b.next_arrival(),
            self.b_to_a.next_arrival(),
        ]


class SharedBus(_Medium):
    """An RS-485 bus: whatever one node sends, every other node hears.

    Each node's transmitter is a FaultInjector (faults happen on the line, so every listener
    hears the same damaged bytes). ``collisions`` counts transmissions that overlapped in time:
    the protocol's rules say it must stay zero.
    """

    def __init__(
        self,
        nodes: Sequence[Endpoint],
        clock: VirtualClock,
        *,
        lines: Sequence[FaultInjector] | None = None,
        hooks: Sequence[Hook] = (),
    ) -> None:
        super().__init__(clock, hooks)
        self.nodes = list(nodes)
        self.lines = list(lines) if lines is not None else [FaultInjector() for _ in nodes]
        if len(self.lines) != len(self.nodes):
            raise ValueError("one line (transmitter) per node")
        self._on_air: list[tuple[float, float]] = [(0.0, 0.0) for _ in nodes]
        self.collisions = 0

    def _deliver(self, now: float) -> None:
        for i, line in enumerate(self.lines):
            data = line.read(now)
            if data:
                for j, node in enumerate(self.nodes):
                    if j != i:
                        node.receive_bytes(data)

    def _transmit(self, now: float) -> None:
        for i, (node, line) in enumerate(zip(self.nodes, self.lines, strict=True)):
            out = node.poll(now)
            if not out:
                continue
            start = max(now, line.idle_at)
            line.write(out, now)
            end = max(line.idle_at, start)
            for j, (other_start, other_end) in enumerate(self._on_air):
                if j != i and start < other_end - _EPSILON and other_start < end - _EPSILON:
                    self.collisions += 1
            self._on_air[i] = (start, end)

    def _deadlines(self) -> list[float | None]:
        return [node.next_deadline() for node in self.nodes] + [
            line.next_arrival() for line in self.lines
        ]


class Network(_Medium):
    """Several lines (NullModems, buses) run on one clock, as one simulation.

    Give the hooks to the Network, not to its lines: a line's own hooks are not run.
    """

    def __init__(
        self, lines: Sequence[_Medium], clock: VirtualClock, *, hooks: Sequence[Hook] = ()
    ) -> None:
        super().__init__(clock, hooks)
        self.lines = list(lines)

    def _deliver(self, now: float) -> None:
        for line in self.lines:
            line._deliver(now)

    def _transmit(self, now: float) -> None:
        for line in self.lines:
            line._transmit(now)

    def _deadlines(self) -> list[float | None]:
        return [t for line in self.lines for t in line._deadlines()]
