"""Hot-plug: the real gateway (threads, event loop, ports by path) loses its USB adapters during
play and gets them back, without a restart and without losing or repeating anything.

Three keypads in real time on two pty-backed "adapters": table 1 point to point, tables 2 and 3
on an RS-485 bus. Both adapters are pulled out mid-round and plugged in again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from firmware_sim.keypad import Keypad
from firmware_sim.player import VirtualPlayer
from protocol.link import BusDevice, PointToPointLink
from server.core.db import make_engine, transact
from server.core.models import Section
from server.gateway.ports import PortSpec
from server.gateway.runner import Gateway
from server.live.bus import Bus
from server.services.td import actions as td
from tests.support.wait import wait_until_async

from .cables import CableEnd, PtyCable
from .harness import Club, RecordingDevice, make_club, verify_db

THINK = 0.03  # seconds between a player's key presses


def _keypad(table: int, bus: bool) -> Keypad:
    link = BusDevice(table, time.monotonic) if bus else PointToPointLink(table, time.monotonic)
    return Keypad(RecordingDevice(table), link)


def _player(keypad: Keypad, club: Club) -> VirtualPlayer:
    table = keypad.device.table
    return VirtualPlayer(keypad, time.monotonic, code=club.codes[table], seed=table, think=THINK)


async def _td(engine: Engine, club: Club, bus: Bus) -> None:
    """Start round 2 once every table has finished round 1 (pushes go out on the bus)."""
    while True:
        await asyncio.sleep(0.2)

        def work(session: Session) -> list[tuple[int, int | None, object]]:
            section = session.get(Section, club.section_id)
            assert section is not None
            states = td.section_state(session, section)
            if section.current_round >= section.rounds or not all(s.complete for s in states):
                return []
            pushes = td.start_round(session, section, section.current_round + 1)
            return [(p.section_id, p.table, p.message) for p in pushes]

        pushes = await asyncio.to_thread(transact, engine, work)
        if pushes:
            bus.publish(pushes)  # type: ignore[arg-type]


def test_adapters_pulled_out_and_plugged_in_during_play(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="server.gateway")
    engine = make_engine(f"sqlite:///{tmp_path}/hotplug.db")
    club = make_club(engine, tables=3, rounds=2, bpr=2)
    single = PtyCable(tmp_path / "ttyKP1")
    shared = PtyCable(tmp_path / "ttyRS485")
    single.plug()
    shared.plug()
    keypads = {1: _keypad(1, False), 2: _keypad(2, True), 3: _keypad(3, True)}
    players = {t: _player(k, club) for t, k in keypads.items()}
    ends = [
        CableEnd(single, [keypads[1]], [players[1]]),
        CableEnd(shared, [keypads[2], keypads[3]], [players[2], players[3]]),
    ]

    def stored() -> int:
        return sum(k.device.stored_count for k in keypads.values())

    def finished() -> bool:
        return all(p.finished for p in players.values()) and all(
            k.link.pending == 0 and not k.device.store.pending() for k in keypads.values()
        )

    async def scenario() -> Gateway:
        bus = Bus()
        specs = [PortSpec(str(single.path)), PortSpec(str(shared.path), bus=(2, 3))]
        async with Gateway(engine, specs, bus=bus) as gateway:
            director = asyncio.ensure_future(_td(engine, club, bus))
            for end in ends:
                end.start()
            await wait_until_async(lambda: stored() >= 2, 20, "the first entries")
            single.unplug()
            shared.unplug()
            await wait_until_async(
                lambda: not any(w.is_open for w in gateway.workers.values()), 5, "ports lost"
            )
            await asyncio.sleep(1.5)  # the keypads' links time out meanwhile
            single.plug()
            shared.plug()
            await wait_until_async(
                lambda: all(w.opens == 2 for w in gateway.workers.values()), 10, "reopen"
            )
            await wait_until_async(finished, 60, "the end of the session")
            director.cancel()
            return gateway

    try:
        gateway = asyncio.run(asyncio.wait_for(scenario(), 90))
    finally:
        for end in ends:
            end.halt.set()
            end.join(timeout=5)
        single.unplug()
        shared.unplug()
    assert [e for end in ends for e in end.errors] == []
    for worker in gateway.workers.values():
        assert (worker.opens, worker.losses) == (2, 1), worker.url
    report = verify_db(engine, club, keypads)
    assert report.problems == []
    assert report.results == 3 * 2 * 2
    messages = [r.getMessage() for r in caplog.records]
    assert any("port lost" in m for m in messages)
    assert any("port open again" in m for m in messages)
    engine.dispose()
