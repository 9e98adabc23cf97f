"""The table side's edges (issue 17): the offline gate tells the truth (§ 262C), the status line
counts boards, the pairing screen before pairing, a conflict closes East's dialog, and a restart
after kill -9 goes back to the board in hand."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import EnterResult, EntryValues
from terminal import i18n
from terminal.app import TravellerTerminal
from terminal.errors import ClientError
from terminal.screens.board_entry import BoardEntryScreen
from terminal.screens.confirm import ConfirmScreen
from terminal.screens.notice import NoticeScreen
from terminal.screens.pairing import PairingScreen
from terminal.screens.seat_check import SeatCheckScreen
from terminal.screens.summary import SummaryScreen
from terminal.testing.server import FakeLink, FakeServer
from terminal.widgets.status_line import StatusLine
from tests.support.terminal import make_app, screen_text, seated, settle

from .test_flow import FOUR_SPADES_BY_SOUTH_MADE

SIZE = (80, 24)
#: The server's refusal of an unknown code (server/services/tokens.py): longer than a line.
UNKNOWN_CODE = (
    "No table has the pairing code '12105496' (a code works once: ask the TD for the table's "
    "current code)."
)


@pytest.fixture(autouse=True)
def english_afterwards() -> Any:
    """The language is one setting per process: back to English after each test."""
    yield
    i18n.set_language(None)


def shown(app: TravellerTerminal) -> str:
    """What the 80x24 screen shows, line by line, as drawn (cut or covered text is not there)."""
    svg = app.export_screenshot()
    return "\n".join(html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg))


def status(app: TravellerTerminal) -> str:
    return str(app.screen.query_one(StatusLine).render())


# ---------------------------------------------------------------- the offline gate (§ 262C)


async def play_offline(pilot: Any, client: Any, server: FakeServer) -> None:
    """Board 1 online, then the server goes away and board 2 is entered and confirmed."""
    await seated(pilot, client)
    await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)
    await settle(pilot, client)
    server.set_online(False)
    await settle(pilot, client, online=False)
    await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)
    await pilot.pause()


async def test_the_offline_gate_says_stored_here_not_at_the_server() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await play_offline(pilot, client, server)
        assert isinstance(app.screen, SummaryScreen)
        text = screen_text(app)
        assert "DONE AT THIS TABLE, NOT YET AT THE SERVER" in text
        assert "Board 2 is stored at this table only: the server cannot be reached" in text
        assert "You may move" not in text
        assert "ALL BOARDS DONE" not in text
        assert "Enter = next round" not in text
        assert "§ 262C1" in text
        await pilot.press("enter")  # no attempt to move on while the server lacks board 2
        assert isinstance(app.screen, SummaryScreen)
        assert server.table_round[1] == 1

        server.set_online(True)
        await settle(pilot, client)
        text = screen_text(app)
        assert "ALL BOARDS DONE ✓  You may move to the next round." in text
        assert "NOT YET AT THE SERVER" not in text


async def test_the_offline_gate_in_danish() -> None:
    server = FakeServer(language="da")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await play_offline(pilot, client, server)
        text = screen_text(app)
        assert "FÆRDIGT VED BORDET, ENDNU IKKE PÅ SERVEREN" in text
        assert "Spil 2 er kun gemt ved dette bord" in text
        assert "I må gå videre" not in text


async def test_the_last_round_offline_does_not_say_thank_you_and_goodbye() -> None:
    server = FakeServer(rounds=1)
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await play_offline(pilot, client, server)
        text = screen_text(app)
        assert "NOT YET AT THE SERVER" in text
        assert "Thank you" not in text


# ---------------------------------------------------------------- the status line


async def seated_then_offline(pilot: Any, client: Any, server: FakeServer) -> None:
    await seated(pilot, client)
    await settle(pilot, client)
    server.set_online(False)
    await settle(pilot, client, online=False)


async def test_the_status_line_counts_boards_not_commands() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated_then_offline(pilot, client, server)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)  # board 1: entry and confirmation
        assert client.waiting == 2
        assert "OFFLINE, 1 board not sent" in status(app)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)  # board 2
        assert client.waiting == 4
        assert "OFFLINE, 2 boards not sent" in status(app)


async def test_a_td_call_alone_is_a_message_not_a_board() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated_then_offline(pilot, client, server)
        client.call_td("help")
        await pilot.pause()
        assert "OFFLINE, 1 message not sent" in status(app)


# ---------------------------------------------------------------- the pairing screen


async def test_before_pairing_the_status_line_does_not_say_offline() -> None:
    app, _client = make_app(table=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PairingScreen)
        line = app.screen.query_one(StatusLine)
        assert "not paired yet" in str(line.render())
        assert "OFFLINE" not in str(line.render())
        assert not line.has_class("offline")


async def test_a_long_refusal_is_shown_whole_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    async def refused(self: FakeLink, code: str, device: str) -> None:
        raise ClientError("pairing_code_unknown", UNKNOWN_CODE)

    monkeypatch.setattr(FakeLink, "pair", refused)
    app, _client = make_app(table=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"12105496", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        drawn = " ".join(shown(app).split())
        assert " ".join(UNKNOWN_CODE.split()) in drawn


async def test_a_too_short_code_is_cleared_for_the_next_one() -> None:
    app, client = make_app(table=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "2", "enter")
        assert "at least 4 digits" in screen_text(app)
        screen = app.screen
        assert isinstance(screen, PairingScreen)
        assert screen.code == ""
        await pilot.press("0", "1", "0", "1", "enter")
        await client.wait_for(lambda: client.round is not None)
        assert client.config.table == 1  # "0101", not "120101"


# ---------------------------------------------------------------- conflict


async def test_a_conflict_closes_east_s_dialog_for_that_board() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE[:-1])  # North sends; East's dialog opens
        await settle(pilot, client)
        assert isinstance(app.screen, ConfirmScreen)
        values = EntryValues(contract="3NT", declarer="N", tricks=9)
        server.handle(1, EnterResult(entry_id="other-device-1", board=1, values=values))
        await client.wait_for(lambda: client.board(1).state == "conflict")  # type: ignore[union-attr]
        await pilot.pause()
        assert isinstance(app.screen, NoticeScreen)
        assert not any(isinstance(s, ConfirmScreen) for s in app.screen_stack)
        await pilot.press("enter")  # OK
        await pilot.pause()
        assert isinstance(app.screen, BoardEntryScreen)
        assert "the TD has been called and decides" in screen_text(app)
        assert "EAST" not in shown(app)
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert server.results[(1, 1, 1)].state == "conflict"


# ---------------------------------------------------------------- restart after kill -9


async def test_a_restart_mid_entry_goes_back_to_east_without_a_second_seat_check(
    tmp_path: Path,
) -> None:
    server = FakeServer()
    app, client = make_app(server, state_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE[:-1])  # sent by North, East not yet
        await settle(pilot, client)
        assert isinstance(app.screen, ConfirmScreen)
    # kill -9: nothing closes; what is committed to the state directory is all there is.

    app, client = make_app(server, table=None, state_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, client)
        assert isinstance(app.screen, ConfirmScreen), "no second seat check, East's turn"
        assert app.screen.status.board == 1
        await pilot.press("enter")  # East confirms: one Enter
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].state == "confirmed"
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == 2
    await client.close()


async def test_seats_kept_for_another_round_are_checked_again(tmp_path: Path) -> None:
    server = FakeServer()
    app, client = make_app(server, state_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await settle(pilot, client)
        assert client.seated_round == 1
        client.outbox.save_seated(1, 7)  # as if the seats were checked in another round
    await client.close()

    app, client = make_app(server, table=None, state_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, client)
        assert isinstance(app.screen, SeatCheckScreen)
    await client.close()
