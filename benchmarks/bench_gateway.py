"""Gateway latency at 9600 baud: a keypad's "send" key to its "stored" screen, through the real
gateway and a real database, against the bare wire time of the frames involved.

Virtual time (the main figures): a club night of tests/gateway/harness.py (10 firmware_sim
keypads played by firmware_sim players, 7 rounds x 4 boards) over 9600-baud lines in virtual
time, each byte taking its 10 bits; the gateway is server.gateway's core, and every database
call really runs: the real time it took is added on the virtual clock, one call at a time as
SQLite serialises its writers, so the figures include the server's work. Wire time of an entry:
(EnterResult frame + ACK + ResultAck frame) bytes x 10 / baud.

Real time (``--realtime``): one keypad on a pty against the whole gateway (port thread, event
loop, worker threads, SQLite), no baud rate: what the gateway adds on top of the wire.

Run: python -m benchmarks.bench_gateway [--realtime] [--db postgresql+psycopg://...]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from sqlmodel import Session, select

from benchmarks.stats import percentile
from firmware_sim.faults import Faults
from firmware_sim.keypad import Keypad
from firmware_sim.player import VirtualPlayer
from protocol.framing import Frame
from protocol.keypad_codec import encode
from protocol.link import CONTROL_FRAME_LEN, PointToPointLink
from protocol.messages import EnterResult, ResultAck
from server.core.db import make_engine
from server.core.models import Result
from server.gateway.ports import PortSpec
from server.gateway.runner import Gateway
from server.live.bus import Bus
from server.services.views import result_view
from tests.gateway.cables import CableEnd, PtyCable
from tests.gateway.harness import (
    BAUD,
    Night,
    RecordingDevice,
    make_club,
    release_all_rounds,
    sent_by,
)

Layout = Literal["point_to_point", "bus"]


def _wire_seconds(entry: EnterResult, ack: ResultAck, baud: int) -> float:
    up = Frame(1, 0, *encode(entry), from_device=True).encode()
    down = Frame(1, 0, *encode(ack)).encode()
    return (len(up) + CONTROL_FRAME_LEN + len(down)) * 10 / baud


def run(
    layout: Layout = "point_to_point",
    corruption: float = 0.0,
    *,
    seed: int = 1,
    db_url: str | None = None,
    think: float = 1.0,
) -> dict[str, Any]:
    """One club night; the send -> stored latencies against the wire time."""
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(db_url or f"sqlite:///{tmp}/bench.db")
        started = time.perf_counter()
        night = Night(
            engine,
            Faults(corrupt=corruption),
            seed=seed,
            bus_tables=tuple(range(1, 11)) if layout == "bus" else (),
            reject_rate=0.0,
            service_time=True,
            think=think,
        )
        assert night.run(max_time=3600.0), "the night did not finish"
        real = time.perf_counter() - started
        entries = {
            c.entry_id: c
            for commands in sent_by(night.keypads).values()
            for c in commands
            if isinstance(c, EnterResult)
        }
        with Session(engine) as session:
            rows = session.exec(select(Result)).all()
            wire = [
                _wire_seconds(
                    entries[r.entry_id],
                    ResultAck(
                        entry_id=r.entry_id,
                        result=result_view(r).model_copy(update={"state": "entered", "version": 1}),
                    ),
                    BAUD,
                )
                for r in rows
                if r.entry_id in entries
            ]
        engine.dispose()
    latencies = [x for p in night.players for x in p.latencies]
    service = night.gateway.service_seconds
    median_wire = statistics.median(wire)
    median = statistics.median(latencies)
    p99 = percentile(latencies, 99)
    return {
        "layout": "point to point, 10 ports" if layout == "point_to_point" else "bus, 10 keypads",
        "corruption": corruption,
        "entries": len(latencies),
        "wire_ms": round(median_wire * 1000, 1),
        "median_ms": round(median * 1000, 1),
        "p99_ms": round(p99 * 1000, 1),
        "median_x_wire": round(median / median_wire, 2),
        "p99_x_wire": round(p99 / median_wire, 2),
        "service_median_ms": round(statistics.median(service) * 1000, 1),
        "service_p99_ms": round(percentile(service, 99) * 1000, 1),
        "virtual_s": round(night.clock.t),
        "real_s": round(real, 1),
    }


def realtime() -> dict[str, Any]:
    """One keypad on a pty against the whole gateway, in real time, with no baud rate."""
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{tmp}/realtime.db")
        club = make_club(engine, tables=3, rounds=3, bpr=12)
        release_all_rounds(engine, club)
        entries = 3 * 12
        cable = PtyCable(Path(tmp) / "ttyKP1")
        cable.plug()
        keypad = Keypad(RecordingDevice(1), PointToPointLink(1, time.monotonic))
        player = VirtualPlayer(keypad, time.monotonic, code=club.codes[1], seed=1, think=0.01)
        end = CableEnd(cable, [keypad], [player])

        async def play() -> None:
            async with Gateway(engine, [PortSpec(str(cable.path))], bus=Bus()):
                end.start()
                deadline = time.monotonic() + 120
                # The player runs in its own thread: no asyncio event to await.
                while len(player.latencies) < entries and time.monotonic() < deadline:  # noqa: ASYNC110
                    await asyncio.sleep(0.05)

        try:
            asyncio.run(play())
        finally:
            end.halt.set()
            end.join(5)
            cable.unplug()
            engine.dispose()
    latencies = player.latencies[:entries]
    return {
        "entries": len(latencies),
        "median_ms": round(statistics.median(latencies) * 1000, 1),
        "p99_ms": round(percentile(latencies, 99) * 1000, 1),
    }


def main() -> None:
    """Print the latency table (and, with --realtime, the gateway's own turnaround)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--realtime", action="store_true", help="also measure over a real pty")
    parser.add_argument(
        "--think", type=float, default=1.0, help="seconds between a player's keys (default 1)"
    )
    args = parser.parse_args()
    print(
        "| layout | corruption | entries | wire | median | p99 | median/wire | p99/wire "
        "| db call median / p99 | virtual / real s |"
    )
    print("|" + "---|" * 10)
    for layout, corruption in (
        ("point_to_point", 0.0),
        ("point_to_point", 0.01),
        ("bus", 0.0),
        ("bus", 0.01),
    ):
        r = run(layout, corruption, db_url=args.db, think=args.think)  # type: ignore[arg-type]
        print(
            f"| {r['layout']} | {corruption:.0%} | {r['entries']} | {r['wire_ms']} ms "
            f"| {r['median_ms']} ms | {r['p99_ms']} ms | {r['median_x_wire']}x "
            f"| {r['p99_x_wire']}x | {r['service_median_ms']} / {r['service_p99_ms']} ms "
            f"| {r['virtual_s']} / {r['real_s']} |",
            flush=True,
        )
    if args.realtime:
        r = realtime()
        print(
            f"\nreal time, pty, no baud rate: {r['entries']} entries, "
            f"median {r['median_ms']} ms, p99 {r['p99_ms']} ms (send -> stored, whole gateway)"
        )


if __name__ == "__main__":
    main()
