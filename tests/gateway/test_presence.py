"""A keypad's presence on the TD's pages follows its link, not its last key (the gateway's
keepalive and presence, server/gateway/core.py PRESENCE_EVERY, protocol/link.py keepalive).

In virtual time: a point-to-point keypad on the real gateway core and a real database, the
server's clock moved with the simulation's. An idle keypad stays online for 15 minutes; with its
cable pulled its link is reported down within 30 s and the TD sees it offline within 2 minutes.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session

from firmware_sim.device import Device, Key, Screen
from firmware_sim.faults import FaultInjector, Faults
from firmware_sim.keypad import Keypad
from firmware_sim.nullmodem import Network, NullModem, VirtualClock
from firmware_sim.store import MemoryStore
from protocol.link import LinkConfig, PointToPointLink
from server.core.db import make_engine
from server.core.models import Section, utcnow
from server.gateway import service as gateway_service
from server.gateway.inline import InlineGateway
from server.gateway.jobs import Station
from server.services.glance import dashboard
from server.services.table import table_commands
from tests.gateway.harness import make_club

BAUD = 9600
PORT = "/dev/ttyKP1"


class Rig:
    """One keypad at table 1, paired, on its own port of an inline gateway."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.engine = make_engine(f"sqlite:///{tmp_path / 'presence.db'}")
        self.club = make_club(self.engine, tables=3, rounds=2, bpr=1)
        self.clock = VirtualClock()
        self.start = utcnow()
        for module in (table_commands, gateway_service):  # the server's clock is the simulation's
            monkeypatch.setattr(module, "utcnow", self.now)
        config = LinkConfig(baud=BAUD)
        link = PointToPointLink(1, self.clock, config=config, session=1)
        self.keypad = Keypad(Device(1, MemoryStore(1)), link)
        self.gateway = InlineGateway(self.engine, self.clock, config=config)
        self.up = FaultInjector(Faults(), seed=1, baud=BAUD)
        self.down = FaultInjector(Faults(), seed=2, baud=BAUD)
        modem = NullModem(
            link, self.gateway.attach(PORT), self.clock, a_to_b=self.up, b_to_a=self.down
        )
        self.net = Network([modem], self.clock, hooks=[self.keypad.pump, self.gateway.pump])
        self.keypad.boot()
        for key in [*self.club.codes[1], "ENT"]:
            self.keypad.press(Key.parse(key))
            self.run_for(0.5)
        assert self.keypad.device.screen is Screen.SEATS, self.keypad.device.display
        self.keypad.press(Key.ENTER)  # the seats are right: the keypad shows its first board
        self.run_for(1.0)

    def now(self) -> datetime:
        return self.start + timedelta(seconds=self.clock())

    def run_for(self, seconds: float) -> None:
        self.net.advance(self.clock() + seconds)

    def online(self) -> bool:
        """Table 1's keypad as the TD's Pairing page shows it."""
        with Session(self.engine) as session:
            section = session.get(Section, self.club.section_id)
            assert section is not None
            rows = dashboard.pairing(session, section, now=self.now())
        [terminal] = next(r for r in rows if r.table == 1).terminals
        return terminal.online

    def link_up(self) -> bool | None:
        return self.gateway.core.keypads[Station(PORT, 1)].up


def test_an_idle_keypad_stays_online_and_a_pulled_cable_goes_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = Rig(tmp_path, monkeypatch)
    assert rig.online()
    for _ in range(15 * 6):  # 15 minutes without a key, looked at every 10 s
        rig.run_for(10.0)
        assert rig.online(), rig.clock()
        assert rig.link_up()
    pulled = rig.clock()
    rig.up.pull_cable(pulled, 3600.0)
    rig.down.pull_cable(pulled, 3600.0)
    rig.run_for(30.0)
    assert rig.link_up() is False  # the gateway's keepalive went unanswered
    rig.run_for(90.0)
    assert not rig.online()  # 2 minutes after the pull at most
    # plugged back: the link comes up at the next keepalive and the keypad is online again
    rig.up.plug_back(rig.clock())
    rig.down.plug_back(rig.clock())
    rig.run_for(10.0)
    assert rig.link_up()
    assert rig.online()
