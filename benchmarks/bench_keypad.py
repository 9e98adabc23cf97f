"""Keypad latency: from North's "send" key to the "stored" screen, against the bare wire time.

A simulated keypad plays boards against the fake gateway over a 9600-baud line in virtual time
(each byte takes 10 bits / baud on the wire), through the real link, codec and device code, with
optional random byte corruption. The bare wire time of an entry is the time its frames need on
the wire end to end: the EnterResult frame, the ACK the gateway sends first, then the ResultAck
frame. Run: python -m benchmarks.bench_keypad
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Literal

from benchmarks.stats import percentile
from firmware_sim.device import Device
from firmware_sim.fake_gateway import FakeGateway, FakeTables
from firmware_sim.faults import FaultInjector, Faults
from firmware_sim.keypad import Keypad
from firmware_sim.nullmodem import NullModem, SharedBus, VirtualClock
from firmware_sim.player import VirtualPlayer
from firmware_sim.store import MemoryStore
from protocol.framing import Frame
from protocol.keypad_codec import encode
from protocol.link import CONTROL_FRAME_LEN, BusDevice, BusMaster, LinkConfig, PointToPointLink
from protocol.messages import EnterResult, EntryValues, ResultAck

Mode = Literal["point_to_point", "bus"]


def _wire_bytes(ack: ResultAck) -> int:
    """Bytes on the wire for one entry: EnterResult frame + ACK + ResultAck frame."""
    view = ack.result
    entry = EnterResult(
        entry_id=ack.entry_id,
        board=view.board,
        values=EntryValues(
            contract=view.contract or "PASS", declarer=view.declarer, tricks=view.tricks or 0
        ),
    )
    up = Frame(1, 0, *encode(entry), from_device=True).encode()
    down = Frame(1, 0, *encode(ack)).encode()
    return len(up) + CONTROL_FRAME_LEN + len(down)


def run(
    baud: int = 9600,
    entries: int = 200,
    corruption: float = 0.0,
    seed: int = 1,
    *,
    mode: Mode = "point_to_point",
    idle_keypads: int = 0,
) -> dict[str, Any]:
    """Play ``entries`` boards and report the send -> stored latency against the wire time.

    ``mode="bus"`` puts the keypad on an RS-485 bus with ``idle_keypads`` others that the
    gateway must poll too.
    """
    tables = FakeTables(tables=1, rounds=(entries + 1) // 2, boards_per_round=2)
    clock = VirtualClock()
    config = LinkConfig(baud=baud)
    faults = Faults(corrupt=corruption)
    started = time.perf_counter()
    if mode == "point_to_point":
        keypad = Keypad(
            Device(1, MemoryStore(1)), PointToPointLink(1, clock, config=config, session=seed)
        )
        gateway_link = PointToPointLink(
            None, clock, role="gateway", config=config, session=seed + 1
        )
        gateway = FakeGateway(tables, gateway_link)
        player = VirtualPlayer(keypad, clock, code="0001", seed=seed, think=0.2)
        medium: NullModem | SharedBus = NullModem(
            keypad.link,
            gateway_link,
            clock,
            a_to_b=FaultInjector(faults, seed=seed, baud=baud),
            b_to_a=FaultInjector(faults, seed=seed + 1, baud=baud),
            hooks=[keypad.pump, gateway.pump, player],
        )
    else:
        addresses = range(1, idle_keypads + 2)
        master = BusMaster(addresses, clock, config=config, session=seed)
        gateway = FakeGateway(tables, master)
        keypad = Keypad(Device(1, MemoryStore(1)), BusDevice(1, clock, config=config, session=1))
        idle = [BusDevice(a, clock, config=config, session=a) for a in addresses if a != 1]
        player = VirtualPlayer(keypad, clock, code="0001", seed=seed, think=0.2)
        lines = [
            FaultInjector(faults, seed=seed * 100 + i, baud=baud) for i in range(len(addresses) + 1)
        ]
        medium = SharedBus(
            [master, keypad.link, *idle],
            clock,
            lines=lines,
            hooks=[keypad.pump, gateway.pump, player],
        )
    keypad.boot()
    medium.run(lambda: len(player.latencies) >= entries, max_time=entries * 60.0)
    latencies = player.latencies[:entries]
    acks = [
        a
        for a in tables.answers.values()
        if isinstance(a, ResultAck) and a.result.state == "entered"
    ][:entries]
    wire = [_wire_bytes(a) * 10 / baud for a in acks]
    median_wire = statistics.median(wire)
    median = statistics.median(latencies)
    return {
        "mode": mode if mode == "point_to_point" else f"bus, {idle_keypads + 1} keypads",
        "baud": baud,
        "corruption": corruption,
        "entries": len(latencies),
        "median_ms": round(median * 1000, 1),
        "p99_ms": round(percentile(latencies, 99) * 1000, 1),
        "max_ms": round(max(latencies) * 1000, 1),
        "wire_ms": round(median_wire * 1000, 1),
        "median_x_wire": round(median / median_wire, 2),
        "p99_x_wire": round(percentile(latencies, 99) / median_wire, 2),
        "corrupted_bytes": sum(line.stats.corrupted for line in _lines(medium)),
        "virtual_s": round(clock.t, 1),
        "real_s": round(time.perf_counter() - started, 2),
    }


def _lines(medium: NullModem | SharedBus) -> list[FaultInjector]:
    if isinstance(medium, NullModem):
        return [medium.a_to_b, medium.b_to_a]
    return medium.lines


def main() -> None:
    """Print the latency table: point to point and on a 10-keypad bus, clean and at 1 %."""
    cases: list[tuple[Mode, int, float]] = [
        ("point_to_point", 0, 0.0),
        ("point_to_point", 0, 0.01),
        ("bus", 9, 0.0),
        ("bus", 9, 0.01),
    ]
    header = "| link | corruption | entries | wire | median | p99 | median/wire | p99/wire |"
    print(header)
    print("|" + "---|" * 8)
    for mode, idle, corruption in cases:
        r = run(corruption=corruption, mode=mode, idle_keypads=idle)
        print(
            f"| {r['mode']} | {corruption:.0%} | {r['entries']} | {r['wire_ms']} ms "
            f"| {r['median_ms']} ms | {r['p99_ms']} ms | {r['median_x_wire']}x "
            f"| {r['p99_x_wire']}x |"
        )


if __name__ == "__main__":
    main()
