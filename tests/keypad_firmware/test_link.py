"""The firmware's link (kp_link, under MicroPython) against protocol/link.py's other end, in
virtual time, on a line that corrupts and drops bytes: point to point against the gateway's
PointToPointLink, and on the bus against the BusMaster. Every message arrives once, in order."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from protocol.link import BusMaster, Delivered, LinkConfig, PointToPointLink
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
