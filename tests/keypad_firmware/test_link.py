"""The firmware's link (kp_link, under MicroPython) against protocol/link.py's other end, in
virtual time, on a line that corrupts and drops bytes: point to point against the gateway's
PointToPointLink, and on the bus against the BusMaster. Every message arrives once, in order;
an idle point-to-point link stays up on the gateway's keepalive SYNC, answered as protocol/
link.py's keypad end answers it."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from protocol.framing import Decoder, Frame, FrameType
from protocol.link import (
    BusMaster,
    Delivered,
    LinkConfig,
    LinkDown,
    PeerRestarted,
    PointToPointLink,
)
from tests.support.micropython import MicroPython

pytestmark = pytest.mark.subprocess

STEP_MS = 5
ADDRESS = 5


@pytest.fixture
def mp() -> Iterator[MicroPython]:
    with MicroPython() as interpreter:
        interpreter.run("import kp_host")
        yield interpreter


class Line:
    """One direction of the wire: flips a bit or drops what was written, now and then
    (``damage``: the share of writes hit; seeded)."""

    def __init__(self, rng: random.Random, damage: float) -> None:
        self.rng = rng
        self.damage = damage

    def carry(self, data: bytes) -> bytes:
        if not data or self.rng.random() >= self.damage:
            return data
        if self.rng.random() < 0.5:
            return b""  # lost
        buf = bytearray(data)
        buf[self.rng.randrange(len(buf))] ^= 1 << self.rng.randrange(8)
        return bytes(buf)


def _messages(prefix: bytes, n: int) -> list[tuple[int, bytes]]:
    return [(0x13 + i % 5, prefix + bytes([i]) * (1 + i % 40)) for i in range(n)]


def _run(mp: MicroPython, bus: bool, damage: float, seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    now = [0.0]
    config = LinkConfig()
    gateway: PointToPointLink | BusMaster = (
        BusMaster([ADDRESS], lambda: now[0], config=config, session=77)
        if bus
        else PointToPointLink(None, lambda: now[0], role="gateway", config=config, session=77)
    )
    mp.run(f"kp_host.link_start({ADDRESS}, {seed}, bus={bus})")
    up, down = Line(rng, damage), Line(rng, damage)
    to_gateway, to_keypad = _messages(b"k", 25), _messages(b"g", 25)
    for kind, payload in to_keypad:
        if isinstance(gateway, BusMaster):
            gateway.send(ADDRESS, kind, payload)
        else:
            gateway.send(kind, payload)
    sends = [[kind, payload.hex()] for kind, payload in to_gateway]
    got_gateway: list[tuple[int, bytes]] = []
    got_keypad: list[tuple[int, bytes]] = []
    into_keypad = b""
    for tick in range(12000):
        now[0] = tick * STEP_MS / 1000
        answer = json.loads(
            mp.run(f"kp_host.link_step({into_keypad.hex()!r}, {tick * STEP_MS}, {sends!r})")[-1]
        )
        sends = []
        for event in answer["events"]:
            if event[0] == "delivered":
                got_keypad.append((event[1], bytes.fromhex(event[2])))
        gateway.receive_bytes(up.carry(bytes.fromhex(answer["out"])))
        for item in gateway.events():
            event = item.event if isinstance(gateway, BusMaster) else item
            if isinstance(event, Delivered):
                got_gateway.append((event.msg_type, event.payload))
        into_keypad = down.carry(gateway.poll(now[0]))
        if len(got_gateway) == len(to_gateway) and len(got_keypad) == len(to_keypad):
            break
    assert got_gateway == to_gateway
    assert got_keypad == to_keypad
    return mp.value("kp_host.link.duplicates"), tick


@pytest.mark.parametrize("damage", [0.0, 0.2])
def test_point_to_point_delivers_everything_once_in_order(mp: MicroPython, damage: float) -> None:
    duplicates, _ = _run(mp, bus=False, damage=damage, seed=33)
    if damage:
        assert duplicates > 0  # frames came twice (lost ACKs) and were filtered out


@pytest.mark.parametrize("damage", [0.0, 0.2])
def test_the_bus_delivers_everything_once_in_order(mp: MicroPython, damage: float) -> None:
    duplicates, _ = _run(mp, bus=True, damage=damage, seed=33)
    if damage:
        assert duplicates > 0


def _frames(data: bytes) -> list[Frame]:
    return [f for f in Decoder().feed(data) if isinstance(f, Frame)]


def test_an_idle_keypad_answers_the_gateway_s_keepalive_as_protocol_s_keypad_does(
    mp: MicroPython,
) -> None:
    """Quiet for a minute after one message each way: the gateway sends a SYNC of its own
    session every 20 s, the firmware answers each with the SYNC_ACK protocol/link.py's keypad
    end writes for the same bytes, nobody sees the link go down or the peer restart, and the
    next message still arrives, once."""
    step = 20  # ms; the keepalive is 20 s, the link's timeouts 150 ms and more
    now = [0.0]
    config = LinkConfig()
    assert config.keepalive is not None
    gateway = PointToPointLink(None, lambda: now[0], role="gateway", config=config, session=77)
    reference = PointToPointLink(ADDRESS, lambda: now[0], role="device", config=config, session=9)
    mp.run(f"kp_host.link_start({ADDRESS}, 33)")
    gateway.send(0x20, b"round")
    sends = [[0x13, b"hello".hex()]]
    into_keypad = b""
    keepalives: list[Frame] = []
    answers: list[tuple[list[Frame], list[Frame]]] = []  # (firmware's, protocol's) per keepalive
    events: list[object] = []
    got: list[tuple[int, bytes]] = []
    for tick in range(int(70_000 / step)):
        now[0] = tick * step / 1000
        if tick == int(65_000 / step):
            gateway.send(0x21, b"after the quiet")
        answer = json.loads(
            mp.run(f"kp_host.link_step({into_keypad.hex()!r}, {tick * step}, {sends!r})")[-1]
        )
        sends = []
        out = bytes.fromhex(answer["out"])
        events += [e[0] for e in answer["events"] if e[0] != "up"]
        got += [(e[1], bytes.fromhex(e[2])) for e in answer["events"] if e[0] == "delivered"]
        syncs = [f for f in _frames(into_keypad) if f.type == FrameType.SYNC]
        reference.receive_bytes(into_keypad)  # protocol's keypad end hears the same line
        reply = reference.poll(now[0])
        if syncs and now[0] > 1:  # past the first contact: a keepalive
            keepalives += syncs
            answers.append(
                (
                    [f for f in _frames(out) if f.type == FrameType.SYNC_ACK],
                    [f for f in _frames(reply) if f.type == FrameType.SYNC_ACK],
                )
            )
        gateway.receive_bytes(out)
        events += [e for e in gateway.events() if isinstance(e, LinkDown | PeerRestarted)]
        into_keypad = gateway.poll(now[0])
    assert len(keepalives) == 3, keepalives  # at about 20, 40 and 60 s
    assert all(k.payload == (77).to_bytes(4, "big") for k in keepalives)  # the same session
    for keepalive, (mine, theirs) in zip(keepalives, answers, strict=True):
        assert [(f.seq, f.payload) for f in mine] == [(keepalive.seq, keepalive.payload)]
        assert mine == theirs
    assert events == ["delivered", "delivered"], events  # no down, no restart
    assert got == [(0x20, b"round"), (0x21, b"after the quiet")]
    assert gateway.up
