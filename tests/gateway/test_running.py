"""Running the gateway: inside the server (lifespan), as its own process (watcher, CLI), and
through a database that is away for a moment."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from sqlalchemy import event
from sqlmodel import Session
from typer.testing import CliRunner

from firmware_sim.device import Screen
from firmware_sim.keypad import Keypad
from firmware_sim.nullmodem import NullModem, VirtualClock
from protocol.link import PointToPointLink
from protocol.messages import EntryValues, ResultChanged, RoundChanged
from server.core.config import Settings
from server.core.db import make_engine, transact
from server.core.errors import UnavailableError
from server.core.models import Result, Section
from server.gateway import inline
from server.gateway.cli import gateway
from server.gateway.runner import Gateway
from server.gateway.service import load_bindings
from server.gateway.watch import Watcher
from server.services.td import actions as td
from tests.support.app_factory import app_client
from tests.support.wait import wait_until

from .harness import RecordingDevice, make_club


def test_the_server_runs_the_gateway_when_ports_are_set(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/app.db")
    settings = Settings(td_password="secret-td", database_url="unused://", gateway_ports="loop://")
    with app_client(engine, settings) as client:
        running = client.app.state.gateway  # type: ignore[attr-defined]
        assert isinstance(running, Gateway)
        wait_until(lambda: running.workers["loop://"].is_open, 30, "the gateway's port open")
    assert not running.workers["loop://"].is_open  # closed with the server
    plain = Settings(td_password="secret-td", database_url="unused://")
    with app_client(engine, plain) as client:
        assert getattr(client.app.state, "gateway", None) is None  # type: ignore[attr-defined]
    engine.dispose()


def test_the_watcher_turns_others_changes_into_pushes(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/watch.db")
    club = make_club(engine, tables=3, rounds=2, bpr=2)
    watcher = Watcher(engine)
    table = (club.section_id, 1)
    assert watcher.scan([table]) == []  # the first look only takes note

    def td_enters(session: Session) -> None:
        section = session.get(Section, club.section_id)
        assert section is not None
        result = Result(
            section_id=club.section_id, table_number=1, round=1, board=1, state="missing"
        )
        session.add(result)
        session.flush()
        values = EntryValues(contract="3NT", declarer="N", tricks=9)
        td.set_result(session, result=result, values=values, reason="keyed for the table")

    transact(engine, td_enters)
    (changed,) = watcher.scan([table])
    assert isinstance(changed[2], ResultChanged)
    assert changed[:2] == table
    assert watcher.scan([table]) == []

    def td_starts(session: Session) -> None:
        section = session.get(Section, club.section_id)
        assert section is not None
        td.start_round(session, section, 2)

    transact(engine, td_starts)
    (released,) = watcher.scan([table])
    assert isinstance(released[2], RoundChanged)
    assert released[2].round.next_round_released
    assert watcher.scan([]) == []
    assert watcher.marks == {}
    engine.dispose()


def test_the_watchers_look_never_waits_for_a_writer(tmp_path: Path) -> None:
    """A gateway in its own process looks at its tables every second or so: on a snapshot,
    so a look while the server's writer holds SQLite's write lock neither waits for it nor
    makes the writer wait (a write transaction's look sat in the busy handler behind it)."""
    engine = make_engine(f"sqlite:///{tmp_path}/watch.db")
    club = make_club(engine, tables=3, rounds=2, bpr=2)
    table = (club.section_id, 1)
    with engine.connect() as writer:
        writer.exec_driver_sql("SELECT 1")  # begun IMMEDIATE: the server's writer, mid-write
        short = make_engine(f"sqlite:///{tmp_path}/watch.db")
        event.listen(short, "connect", lambda c, _r: c.execute("PRAGMA busy_timeout=0"))
        assert Watcher(short).scan([table]) == []  # no "database is locked"
        assert load_bindings(short) == {}  # a gateway starting reads them the same way
        writer.rollback()
        short.dispose()
    engine.dispose()


def test_a_database_away_for_a_moment_delays_but_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/away.db")
    club = make_club(engine, tables=3, rounds=2, bpr=2)
    clock = VirtualClock()
    gw = inline.InlineGateway(engine, clock)
    keypad = Keypad(RecordingDevice(1), PointToPointLink(1, clock))
    cable = NullModem(keypad.link, gw.attach("/dev/ttyUSB0"), clock, hooks=[keypad.pump, gw.pump])
    real = inline.handle
    failures = iter([True, True, False])

    def flaky(*args: object, **kwargs: object) -> object:
        if next(failures, False):
            raise UnavailableError("database_unavailable", "The database did not answer.")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(inline, "handle", flaky)
    keypad.boot()
    for key in [*club.codes[1], "ENT"]:
        keypad.press(key)
    cable.run(lambda: keypad.device.screen is Screen.SEATS, max_time=30.0)
    assert keypad.device.screen is Screen.SEATS
    assert gw.core.stats.postponed == 2
    assert clock.t >= 2 * inline.RETRY_DELAY
    engine.dispose()


def test_the_command_line() -> None:
    app = typer.Typer()
    app.command()(gateway)
    runner = CliRunner()
    shown = runner.invoke(app, ["--help"])
    assert shown.exit_code == 0
    assert "--port" in shown.output
    for bad in (["--port", "x", "--bus", "0"], ["--port", "x#a"], ["--port", "a", "--port", "a"]):
        refused = runner.invoke(app, bad)
        assert refused.exit_code == 2, (bad, refused.output)
