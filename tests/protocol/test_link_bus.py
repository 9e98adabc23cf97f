"""The RS-485 bus: the master gives turns in rotation, only the addressed keypad answers."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_sim.faults import FaultInjector, Faults
from firmware_sim.nullmodem import SharedBus, VirtualClock
from protocol.framing import Decoder, Frame, FrameType, encode
from protocol.link import (
    BusDevice,
    BusEvent,
    BusMaster,
    Delivered,
    LinkConfig,
    LinkDown,
    LinkEvent,
    LinkUp,
    PeerRestarted,
)


def frames(data: bytes) -> list[Frame]:
    return [f for f in Decoder().feed(data) if isinstance(f, Frame)]


class Rig:
    """A master and keypads on one simulated bus, recording what each side delivered."""

    def __init__(
        self,
        addresses: list[int],
        *,
        faults: Faults | None = None,
        seed: int = 0,
        present: list[int] | None = None,
    ) -> None:
        self.clock = VirtualClock()
        self.master = BusMaster(addresses, self.clock, session=seed + 1000)
        present = addresses if present is None else present
        self.devices = {a: BusDevice(a, self.clock, session=seed + a) for a in present}
        self.up: dict[int, list[bytes]] = {a: [] for a in addresses}
        self.down: dict[int, list[bytes]] = {a: [] for a in addresses}
        self.master_events: list[BusEvent] = []
        self.device_events: dict[int, list[LinkEvent]] = {a: [] for a in present}
        lines = [
            FaultInjector(faults or Faults(), seed=seed * 31 + i, baud=9600)
            for i in range(1 + len(self.devices))
        ]
        self.bus = SharedBus(
            [self.master, *self.devices.values()], self.clock, lines=lines, hooks=[self.app]
        )

    def app(self) -> float | None:
        for event in self.master.events():
            self.master_events.append(event)
            if isinstance(event.event, Delivered):
                self.up[event.address].append(event.event.payload)
        for address, device in self.devices.items():
            events = device.events()
            self.device_events[address] += events
            self.down[address] += [e.payload for e in events if isinstance(e, Delivered)]
        return None


class Tap(FaultInjector):
    """A clean line that remembers every frame written to it."""

    def __init__(self) -> None:
        super().__init__(baud=9600)
        self.sent: list[Frame] = []

    def write(self, data: bytes, now: float) -> None:
        self.sent += frames(data)
        super().write(data, now)


def test_idle_master_polls_every_address_in_rotation() -> None:
    clock = VirtualClock()
    master = BusMaster([5, 2, 9], clock, session=1)
    devices = [BusDevice(a, clock, session=a) for a in (5, 2, 9)]
    tap = Tap()
    bus = SharedBus([master, *devices], clock, lines=[tap, *(FaultInjector() for _ in devices)])
    bus.advance(1.0)
    grants = [
        (f.address, FrameType(f.type).name)
        for f in tap.sent
        if f.type in (FrameType.POLL, FrameType.SYNC)
    ]
    assert grants[:3] == [(2, "SYNC"), (5, "SYNC"), (9, "SYNC")]  # each session starts with SYNC
    polls = [a for a, kind in grants[-12:] if kind == "POLL"]
    following = {2: 5, 5: 9, 9: 2}
    assert len(polls) == 12
    assert all(following[a] == b for a, b in itertools.pairwise(polls))
    assert bus.collisions == 0


def test_silent_keypad_gets_retries_then_is_down_and_probed_slowly() -> None:
    clock = VirtualClock()
    config = LinkConfig(retry_limit=3, dead_poll_interval=1.0, reply_timeout=0.05)
    master = BusMaster([2, 5], clock, config=config, session=1)
    granted = []
    for _ in range(40):
        out = frames(master.poll())
        if out:
            granted.append((round(clock.t, 2), out[-1].address))
        clock.t += 0.1  # nobody ever answers
    # Each keypad: its turn and 2 immediate retries (3 silent turns), then down.
    assert [a for _, a in granted[:6]] == [2, 2, 2, 5, 5, 5]
    assert [e.event for e in master.events()] == [LinkDown(), LinkDown()]
    # Then each is probed about once a second, not on every free turn.
    later = [t for t, a in granted[6:] if a == 2]
    assert all(b - a >= 1.0 for a, b in itertools.pairwise(later))


def test_damaged_answer_gets_an_immediate_nak_and_never_counts_as_down() -> None:
    clock = VirtualClock()
    master = BusMaster([3, 4], clock, config=LinkConfig(retry_limit=2), session=1)
    device = BusDevice(3, clock, session=9)
    device.send(0x13, b"entry")
    answers = 0
    for _ in range(10):
        out = frames(master.poll())
        if not out or out[-1].address != 3:
            clock.t += 1.0  # keypad 4 is absent
            continue
        device.receive_bytes(b"".join(encode(f) for f in out))
        answer = bytearray(device.poll())
        answer[-2] ^= 0x55  # every answer from keypad 3 is damaged on the way
        master.receive_bytes(bytes(answer))
        answers += 1
        clock.t += 1.0
    assert answers >= 4
    assert not any(e.address == 3 and isinstance(e.event, LinkDown) for e in master.events())


def test_master_waits_for_the_answer_before_the_next_turn() -> None:
    clock = VirtualClock()
    master = BusMaster([1, 2], clock, config=LinkConfig(reply_timeout=0.05), session=1)
    first = master.poll()
    assert master.poll() == b""  # the turn is open
    clock.t += len(first) * 10 / 9600 + 0.049
    assert master.poll() == b""
    clock.t += 0.002
    assert frames(master.poll())[-1].address == 1  # no answer: keypad 1 is tried again at once


def test_keypad_speaks_only_when_addressed_by_a_valid_frame() -> None:
    clock = VirtualClock()
    device = BusDevice(3, clock, session=7)
    device.send(0x13, b"entry")
    assert device.poll() == b""
    device.receive_bytes(encode(Frame(4, 0, FrameType.POLL)))
    assert device.poll() == b""  # another keypad's turn
    damaged = bytearray(encode(Frame(3, 0, FrameType.POLL)))
    damaged[-1] ^= 1
    device.receive_bytes(bytes(damaged))
    assert device.poll() == b""  # it might not have been ours: never answer, never NAK
    device.receive_bytes(encode(Frame(3, 0, FrameType.ACK)))
    assert device.poll() == b""  # an ACK does not grant a turn
    device.receive_bytes(encode(Frame(3, 0, FrameType.POLL)))
    answer = frames(device.poll())
    assert [(f.type, f.from_device) for f in answer] == [(FrameType.SYNC, True)]
    assert device.poll() == b""  # one answer per turn


def test_keypad_answers_a_poll_with_empty_when_it_has_nothing() -> None:
    clock = VirtualClock()
    device = BusDevice(3, clock, session=7)
    device.receive_bytes(encode(Frame(3, 0, FrameType.POLL)))
    device.receive_bytes(encode(Frame(3, 0, FrameType.SYNC_ACK, (7).to_bytes(4, "big"))))
    device.receive_bytes(encode(Frame(3, 0, FrameType.POLL)))
    assert [f.type for f in frames(device.poll())] == [FrameType.EMPTY]


def test_messages_flow_both_ways_with_no_collisions() -> None:
    rig = Rig([1, 2, 3])
    for a in (1, 2, 3):
        for i in range(10):
            rig.devices[a].send(0x13, b"%d:%d" % (a, i))
            rig.master.send(a, 0x22, b"to %d:%d" % (a, i))
    done = rig.bus.run(
        lambda: all(len(rig.up[a]) == len(rig.down[a]) == 10 for a in (1, 2, 3)), max_time=60
    )
    assert done
    for a in (1, 2, 3):
        assert rig.up[a] == [b"%d:%d" % (a, i) for i in range(10)]
        assert rig.down[a] == [b"to %d:%d" % (a, i) for i in range(10)]
    assert rig.bus.collisions == 0
    assert rig.master.stray_frames == 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([0.0, 0.002, 0.01, 0.02]),
    st.sampled_from([0.0, 0.05, 0.15]),
    st.integers(0, 10_000),
)
def test_bus_exactly_once_under_corruption_and_loss(corrupt: float, drop: float, seed: int) -> None:
    rig = Rig([1, 2, 3, 4], faults=Faults(corrupt=corrupt, drop=drop), seed=seed)
    for a in rig.devices:
        for i in range(8):
            rig.devices[a].send(0x13, bytes([a, i]))
            rig.master.send(a, 0x22, bytes([i, a]))
    rig.bus.run(
        lambda: all(len(rig.up[a]) == len(rig.down[a]) == 8 for a in rig.devices), max_time=600
    )
    rig.bus.advance(rig.clock.t + 2.0)  # late duplicates would show up now
    for a in rig.devices:
        assert rig.up[a] == [bytes([a, i]) for i in range(8)]
        assert rig.down[a] == [bytes([i, a]) for i in range(8)]
    assert rig.bus.collisions == 0


def test_missing_keypad_is_reported_down_and_polled_less_often() -> None:
    rig = Rig([1, 2], present=[1])
    rig.bus.advance(10.0)
    down = [e for e in rig.master_events if e.address == 2]
    assert down == [BusEvent(2, LinkDown())]
    assert rig.master.is_up(1)
    assert not rig.master.is_up(2)
    # After it is down, keypad 2 is polled about once a second, so keypad 1 gets the bus.
    rig.devices[1].send(0x13, b"still fine")
    assert rig.bus.run(lambda: rig.up[1] == [b"still fine"], max_time=12.0)


def test_keypad_plugged_in_later_comes_up() -> None:
    rig = Rig([1, 2], seed=3)
    line = rig.bus.lines[2]  # keypad 2's transmitter
    line.pull_cable(0.0, 5.0)
    rig.devices[2].send(0x13, b"hello")
    assert rig.bus.run(lambda: rig.up[2] == [b"hello"], max_time=20.0)
    assert rig.clock.t > 5.0
    assert [e.event for e in rig.master_events if e.address == 2] == [
        LinkDown(),
        LinkUp(),
        Delivered(0x13, b"hello"),
    ]


def test_keypad_notices_a_silent_gateway() -> None:
    clock = VirtualClock()
    device = BusDevice(3, clock, config=LinkConfig(silence_timeout=2.0), session=7)
    device.receive_bytes(encode(Frame(3, 0, FrameType.POLL)))
    device.poll()
    clock.t = 1.9
    device.poll()
    clock.t = 2.0
    device.poll()
    assert device.events() == [LinkUp(), LinkDown()]


def test_gateway_restart_is_seen_by_the_keypads() -> None:
    rig = Rig([1], seed=9)
    rig.devices[1].send(0x13, b"a")
    assert rig.bus.run(lambda: rig.up[1] == [b"a"], max_time=5)
    rig.device_events[1].clear()
    new_master = BusMaster([1], rig.clock, session=4242)
    rig.bus.nodes[0] = rig.master = new_master
    rig.devices[1].send(0x13, b"b")
    new_master.send(1, 0x21, b"round")
    assert rig.bus.run(lambda: rig.up[1] == [b"a", b"b"] and rig.down[1] == [b"round"], max_time=10)
    assert PeerRestarted(4242) in rig.device_events[1]


def test_a_message_for_a_keypad_gets_the_next_turn() -> None:
    """Reply latency: after a keypad's message, the gateway's answer does not wait a rotation."""
    rig = Rig(list(range(1, 11)))
    assert rig.bus.run(lambda: all(rig.master.is_up(a) for a in range(1, 11)), max_time=5)
    answered: list[float] = []
    start = rig.clock.t
    rig.devices[7].send(0x13, b"entry")

    def gateway() -> float | None:
        if rig.up[7] == [b"entry"] and not answered:
            rig.master.send(7, 0x22, b"stored")
            answered.append(rig.clock.t)
        return None

    rig.bus.hooks.append(gateway)
    assert rig.bus.run(lambda: rig.down[7] == [b"stored"], max_time=start + 5)
    # One rotation of 10 idle keypads takes about 10 x 15 ms; the reply must not wait another.
    assert rig.clock.t - answered[0] < 0.06
