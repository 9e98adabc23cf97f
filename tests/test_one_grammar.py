"""One key grammar (issue 17): the same keys on the Textual terminal and on the table keypad give
the same stored results on the real server, and "4♠ by South, made" with East's confirmation
takes 7 keys on each.

The terminal (the real app and websocket client) plays table 1 against the server on loopback;
the keypad (firmware_sim's device behind its link) plays table 2 through the gateway core on the
same database. Both are given one key sequence in the grammar's names (protocol/keys.py); each
device's own names for OK and Backspace come from its key caps.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.core.models import Event

pytest.importorskip("uvicorn")

from sqlmodel import Session, select

from firmware_sim.device import Device, Key, Screen
from firmware_sim.keypad import Keypad
from firmware_sim.nullmodem import NullModem, VirtualClock
from firmware_sim.store import MemoryStore
from protocol import keys
from protocol.link import PointToPointLink
from server.core.db import make_engine
from server.core.models import Result
from server.gateway.inline import InlineGateway
from server.ops.demo import create_demo
from terminal.app import TravellerTerminal
from terminal.link import WebsocketClient
from terminal.screens import base, confirm
from terminal.screens.summary import SummaryScreen
from tests.terminal.test_e2e import SIZE, Served, delivered

#: The grammar's OK and Backspace as each device names them (digits and * are themselves).
TERMINAL_KEYS = {keys.OK: "enter", keys.BACK: "backspace"}
KEYPAD_KEYS = {keys.OK: Key.ENTER.value, keys.BACK: Key.BACK.value}

#: 4♠ by South, ten tricks; send; East confirms.
FOUR_SPADES_MADE = ("4", "4", "3", "1", "0", keys.OK, keys.OK)
#: 3NT by North, nine tricks; send; East rejects; North takes back the 9 (the other keys are
#: kept), keys 8; send; East confirms.
THREE_NT_CORRECTED = ("3", "5", "1", "9", keys.OK, keys.BACK, keys.BACK, "8", keys.OK, keys.OK)
#: What the server must hold for both tables, board by board.
EXPECTED = [("4S", "S", 10, "confirmed"), ("3NT", "N", 8, "confirmed")]


class CountingDevice(Device):
    """A keypad device that counts the keys pressed on it."""

    def __init__(self, table: int) -> None:
        super().__init__(table, MemoryStore(table))
        self.presses = 0

    def press(self, key: Key | str) -> None:
        self.presses += 1
        super().press(key)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """The server on a fresh SQLite file with a 3-table demo Mitchell, round 1 started."""
    engine = make_engine(f"sqlite:///{tmp_path / 'grammar.db'}")
    runner = Served(engine, create_demo(engine, tables=3, boards_per_round=2))  # serving
    yield runner
    runner.stop()
    engine.dispose()


class KeypadTable:
    """Table 2's keypad on a cable to the gateway, run in virtual time until it waits for keys."""

    def __init__(self, served: Served, table: int = 2) -> None:
        self.clock = VirtualClock()
        self.gateway = InlineGateway(served.engine, self.clock)
        self.device = CountingDevice(table)
        self.keypad = Keypad(self.device, PointToPointLink(table, self.clock))
        self.cable = NullModem(
            self.keypad.link,
            self.gateway.attach(f"/dev/ttyKP{table}"),
            self.clock,
            hooks=[self.keypad.pump, self.gateway.pump],
        )
        self.keypad.boot()

    def settle(self) -> None:
        self.cable.run(
            lambda: not self.device.busy and self.keypad.link.pending == 0, max_time=30.0
        )

    def press(self, *grammar_keys: str) -> None:
        for key in grammar_keys:
            self.keypad.press(KEYPAD_KEYS.get(key, key))
            self.settle()


def stored(served: Served, table: int) -> list[tuple[str | None, str | None, int | None, str]]:
    with Session(served.engine) as session:
        rows = session.exec(select(Result).where(Result.table_number == table)).all()
    return [
        (r.contract, r.declarer, r.tricks, r.state) for r in sorted(rows, key=lambda r: r.board)
    ]


async def test_the_same_keys_store_the_same_results_from_terminal_and_keypad(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The keypad: pair, seats OK (the grammar's OK), then the two boards.
    keypad = KeypadTable(served)
    keypad.press(*served.demo.pairing_codes[2], keys.OK)
    assert keypad.device.screen is Screen.SEATS
    keypad.press(keys.OK)
    before = keypad.device.presses
    keypad.press(*FOUR_SPADES_MADE)
    keypad_keys = keypad.device.presses - before
    assert stored(served, 2)[0] == EXPECTED[0]
    keypad.press(*THREE_NT_CORRECTED)
    assert keypad.device.screen is Screen.SUMMARY

    # The terminal: the same keys, each counted where the screens read it.
    seen: list[str] = []

    def counted(event: object) -> str:
        key = real_key_of(event)  # type: ignore[arg-type]
        seen.append(key)
        return key

    real_key_of = base.key_of
    monkeypatch.setattr(base, "key_of", counted)
    monkeypatch.setattr(confirm, "key_of", counted)
    client = WebsocketClient(served.url, tmp_path / "terminal")
    app = TravellerTerminal(client, confirm_guard=0)
    async with app.run_test(size=SIZE) as pilot:

        async def press(*grammar_keys: str) -> None:
            for key in grammar_keys:
                await pilot.press(TERMINAL_KEYS.get(key, key))
                if client.round is not None:
                    await delivered(client)
                await pilot.pause()

        await press(*served.demo.pairing_codes[1], keys.OK)
        await client.wait_for(lambda: client.online and client.round is not None, timeout=10)
        await pilot.pause()
        await press(keys.OK)
        before_terminal = len(seen)
        await press(*FOUR_SPADES_MADE)
        terminal_keys = len(seen) - before_terminal
        assert stored(served, 1)[0] == EXPECTED[0]
        await press(*THREE_NT_CORRECTED)
        assert isinstance(app.screen, SummaryScreen)
    await client.close()

    assert stored(served, 1) == stored(served, 2) == EXPECTED
    # "4♠ by South, made" with East's confirmation: 7 keys on each (the keypad took 10 before).
    assert (terminal_keys, keypad_keys) == (7, 7)


#: Issue 20: 3NT by North, nine tricks, OK; then the auction "1NT P 3NT P P P" (ends by itself
#: and the entry goes); East confirms.
THREE_NT_WITH_AUCTION = (
    "3",
    "5",
    "1",
    "9",
    keys.OK,
    "1",
    "5",
    "0",
    "3",
    "5",
    "0",
    "0",
    "0",
    keys.OK,
)


def stored_auctions(served: Served, table: int) -> list[tuple[str | None, str | None, str]]:
    with Session(served.engine) as session:
        rows = session.exec(select(Result).where(Result.table_number == table)).all()
    return [(r.contract, r.auction, r.state) for r in sorted(rows, key=lambda r: r.board)]


async def test_the_same_auction_keys_store_the_same_auction_from_terminal_and_keypad(
    served: Served, tmp_path: Path
) -> None:
    with Session(served.engine) as session:
        for event in session.exec(select(Event)).all():
            event.auction_entry = "required"  # keyed after the contract on both devices
            session.add(event)
        session.commit()
    keypad = KeypadTable(served, 3)  # table 3's first board is dealt by North, as table 1's
    keypad.press(*served.demo.pairing_codes[3], keys.OK)
    keypad.press(keys.OK)
    assert keypad.device.settings.auction_entry == "required"
    before = keypad.device.presses
    keypad.press(*THREE_NT_WITH_AUCTION)
    keypad_keys = keypad.device.presses - before

    client = WebsocketClient(served.url, tmp_path / "terminal")
    app = TravellerTerminal(client, confirm_guard=0)
    async with app.run_test(size=SIZE) as pilot:

        async def press(*grammar_keys: str) -> None:
            for key in grammar_keys:
                await pilot.press(TERMINAL_KEYS.get(key, key))
                if client.round is not None:
                    await delivered(client)
                await pilot.pause()

        await press(*served.demo.pairing_codes[1], keys.OK)
        await client.wait_for(lambda: client.online and client.round is not None, timeout=10)
        await client.wait_for(lambda: client.settings.auction_entry == "required", timeout=10)
        await pilot.pause()
        await press(keys.OK)
        await press(*THREE_NT_WITH_AUCTION)
    await client.close()

    expected = ("3NT", "1NT P 3NT P P P", "confirmed")
    assert stored_auctions(served, 3)[:1] == [expected], keypad.device.display
    assert stored_auctions(served, 1)[:1] == [expected]
    assert keypad_keys == len(THREE_NT_WITH_AUCTION) == 14
