"""The table terminal driven by key presses at 80x24 against the fake server (§ 262 flows)."""

from __future__ import annotations

from pathlib import Path

from protocol.messages import ConfirmResult, EnterResult, EntryValues
from terminal.screens.board_entry import BoardEntryScreen
from terminal.screens.confirm import ConfirmScreen
from terminal.screens.notice import NoticeScreen
from terminal.screens.pairing import PairingScreen
from terminal.screens.seat_check import SeatCheckScreen
from terminal.screens.summary import SummaryScreen
from terminal.testing.server import FakeServer
from terminal.widgets.status_line import StatusLine
from tests.support.terminal import make_app, screen_text, seated, settle

SIZE = (80, 24)
FOUR_SPADES_BY_SOUTH_MADE = ["4", "4", "3", "1", "0", "enter", "enter"]


def entered_kinds(server: FakeServer) -> list[str]:
    """The commands with an entry id the server received (no questions), by type."""
    return [c.type for c in server.received if hasattr(c, "entry_id")]


async def test_pairing_then_seat_check() -> None:
    app, client = make_app(table=None)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, PairingScreen)
        await pilot.press("9", "9", "9", "9", "enter")
        await pilot.pause()
        assert "not a pairing code" in screen_text(app)
        await pilot.press("0", "1", "0", "1", "enter")
        await client.wait_for(lambda: client.round is not None)
        await pilot.pause()
        assert isinstance(app.screen, SeatCheckScreen)
        text = screen_text(app)
        assert "pair 1" in text
        assert "Anna Berg & Carl Dahl" in text
        assert "pair 3" in text
        assert "Boards 1, 2" in text
        assert client.config.token == "token-table-1"


async def test_full_round_enter_reject_reenter_confirm_gate_next_round() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        screen = app.screen
        assert isinstance(screen, BoardEntryScreen)
        assert screen.board == 1

        # North keys 4♠ by South, ten tricks; the score is shown before sending.
        await pilot.press("4", "4", "3", "1", "0")
        assert "4♠ by South, made, N/S +420" in screen_text(app)
        await pilot.press("enter")
        assert isinstance(app.screen, ConfirmScreen)

        # East rejects with Backspace (protocol/keys.md): back to North, the keys kept.
        await pilot.press("backspace")
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].state == "rejected"
        assert isinstance(app.screen, BoardEntryScreen)
        assert "East rejected" in screen_text(app)

        # North changes the tricks to nine (one down) and East confirms.
        await pilot.press("backspace", "backspace", "9")
        assert "one down, N/S -50" in screen_text(app)
        await pilot.press("enter", "enter")
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].state == "confirmed"
        assert server.results[(1, 1, 1)].tricks == 9
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == 2

        # The round gate: board 2 is missing, so Enter goes to it instead of the next round.
        await pilot.press("/")
        assert isinstance(app.screen, SummaryScreen)
        assert app.screen.unfinished == [2]
        assert "NOT FINISHED" in screen_text(app)
        await pilot.press("enter")
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == 2
        assert "next_round" not in [c.type for c in server.received]

        # Board 2: 3NT by North, +1; after East confirms the summary shows the round is done.
        await pilot.press("3", "5", "1", "1", "0", "enter", "enter")
        await settle(pilot, client)
        assert isinstance(app.screen, SummaryScreen)
        assert app.screen.unfinished == []
        assert "ALL BOARDS DONE" in screen_text(app)

        # Next round: the seat check for round 2 with the E/W pair that moved in.
        await pilot.press("enter")
        await client.wait_for(lambda: client.round is not None and client.round.round == 2)
        await pilot.pause()
        assert server.table_round[1] == 2
        assert isinstance(app.screen, SeatCheckScreen)
        assert "Round 2 of 2" in screen_text(app)
        assert "pair 4" in screen_text(app)
        assert entered_kinds(server) == [
            "enter_result",
            "reject_result",
            "enter_result",
            "confirm_result",
            "enter_result",
            "confirm_result",
        ]


async def test_keypresses_for_four_spades_by_south_made() -> None:
    """The headline number: keys from an empty board to East's confirmation."""
    for style, keys in (
        ("absolute", FOUR_SPADES_BY_SOUTH_MADE),
        ("relative", ["4", "4", "3", "0", "enter", "enter"]),
    ):
        server = FakeServer(tricks_style=style)  # type: ignore[arg-type]
        app, client = make_app(server)
        async with app.run_test(size=SIZE) as pilot:
            await seated(pilot, client)
            await pilot.press(*keys)
            await settle(pilot, client)
            result = server.results[(1, 1, 1)]
            assert (result.state, result.contract, result.declarer, result.result) == (
                "confirmed",
                "4S",
                "S",
                "=",
            )
            assert len(keys) <= 8
    assert len(FOUR_SPADES_BY_SOUTH_MADE) == 7


async def test_next_round_waits_for_the_td() -> None:
    server = FakeServer(started_round=1)
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)
        await pilot.press("3", "5", "1", "9", "enter", "enter")
        await settle(pilot, client)
        assert isinstance(app.screen, SummaryScreen)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, NoticeScreen)
        assert "has not started the next round" in screen_text(app)
        assert server.table_round[1] == 1


async def test_offline_entries_wait_and_are_delivered_once() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await settle(pilot, client)
        server.set_online(False)
        await settle(pilot, client, online=False)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)
        assert client.waiting == 2
        assert server.results == {}
        status = app.screen.query_one(StatusLine)
        # Two commands (the entry, East's confirmation), one board: the players count boards.
        assert "OFFLINE, 1 board not sent" in str(status.render())
        # The terminal keeps working: board 2 is offered and board 1 shows as confirmed.
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == 2
        board_one = client.board(1)
        assert board_one is not None
        assert board_one.state == "confirmed"

        server.set_online(True)
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].state == "confirmed"
        assert entered_kinds(server) == ["enter_result", "confirm_result"]
        assert "online" in str(app.screen.query_one(StatusLine).render())


async def test_a_lost_ack_is_resent_and_deduplicated() -> None:
    server = FakeServer(drop_after_store=1)
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)
        await settle(pilot, client)
        kinds = entered_kinds(server)
        assert kinds == ["enter_result", "enter_result", "confirm_result"]
        enters = [c for c in server.received if isinstance(c, EnterResult)]
        assert enters[0].entry_id == enters[1].entry_id
        assert server.results[(1, 1, 1)].state == "confirmed"
        assert server.results[(1, 1, 1)].version == 2


async def test_restart_with_a_pending_outbox(tmp_path: Path) -> None:
    server = FakeServer()
    app, client = make_app(server, state_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await settle(pilot, client)
        server.set_online(False)
        await settle(pilot, client, online=False)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)
        assert client.waiting == 2
    await client.close()
    assert server.results == {}

    # The terminal starts again, still offline: it remembers its table, round and outbox, and
    # that the seats were checked: it goes on with board 2.
    app, client = make_app(server, table=None, state_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == 2
        assert client.waiting == 2
        assert "OFFLINE, 1 board not sent" in str(app.screen.query_one(StatusLine).render())
        assert "Round 1 of 2" in screen_text(app)
        server.set_online(True)
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].state == "confirmed"
        assert entered_kinds(server) == ["enter_result", "confirm_result"]
        assert client.outbox.delivered_count() == 2
    await client.close()


async def test_correction_needs_east_again() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)
        await pilot.press("left")
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == 1
        assert "Confirmed" in screen_text(app)
        # Backspace reopens the board with its keys; change 10 tricks to 11.
        await pilot.press("backspace", "backspace", "backspace", "1", "1", "enter")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")
        await settle(pilot, client)
        stored = server.results[(1, 1, 1)]
        assert (stored.state, stored.tricks, stored.version) == ("confirmed", 11, 4)
        assert "correct_result" in entered_kinds(server)


async def test_conflict_is_shown_and_the_td_called() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter")
        await settle(pilot, client)
        # Another device at the table enters something different for the same board.
        values = EntryValues(contract="3NT", declarer="N", tricks=9)
        server.handle(1, EnterResult(entry_id="other-device-1", board=1, values=values))
        await client.wait_for(lambda: client.board(1).state == "conflict")  # type: ignore[union-attr]
        await pilot.pause()
        assert isinstance(app.screen, NoticeScreen)
        assert "two different results" in screen_text(app)
        assert server.td_calls
        assert "TD has been called" in server.td_calls[0][1]


async def test_pin_and_double_enter_guard() -> None:
    server = FakeServer(pin="2468")
    app, client = make_app(server, guard=60.0)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter", "enter")
        assert isinstance(app.screen, ConfirmScreen)  # the second Enter came too soon
        app.screen.guard = 0.0
        await pilot.press("enter")
        assert isinstance(app.screen, ConfirmScreen)
        assert "key the E/W PIN" in screen_text(app)
        await pilot.press("2", "4", "6", "8", "enter")
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].state == "confirmed"
        confirm = [c for c in server.received if isinstance(c, ConfirmResult)]
        assert confirm[0].pin == "2468"


async def test_wrong_seat_calls_the_td() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await client.wait_for(lambda: client.round is not None)
        await pilot.pause()
        await pilot.press(".")
        await settle(pilot, client)
        assert isinstance(app.screen, NoticeScreen)
        assert server.td_calls == [(1, "Wrong seat: the players do not sit as the terminal says.")]


async def test_refused_keys_say_why_and_passed_out_board() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("9")
        assert "Level is 1 to 7" in screen_text(app)
        await pilot.press("enter")
        assert "Still to key: the level" in screen_text(app)
        await pilot.press("0", "enter", "enter")
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].contract == "PASS"
        assert server.results[(1, 1, 1)].ns_score == 0


async def test_fourteen_tricks_refused_leave_no_result_one_enter_from_being_sent() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "4")
        text = screen_text(app)
        assert "14 is not possible: 0 to 13 tricks." in text
        assert "nine down" not in text
        await pilot.press("enter")
        await settle(pilot, client)
        assert entered_kinds(server) == []
        assert "Still to key: the tricks" in screen_text(app)
        await pilot.press("1", "0", "enter", "enter")
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].tricks == 10


async def test_an_offline_entry_that_meets_another_device_s_entry_is_a_conflict() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await settle(pilot, client)
        server.set_online(False)
        await settle(pilot, client, online=False)
        await pilot.press("4", "4", "3", "1", "0", "enter", "escape")
        # Meanwhile a second device at the table gave the server another result for board 1.
        values = EntryValues(contract="3NT", declarer="N", tricks=9)
        server.handle(1, EnterResult(entry_id="other-device-1", board=1, values=values))
        server.set_online(True)
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].state == "conflict"
        assert isinstance(app.screen, NoticeScreen)
        assert "TD has been called" in screen_text(app)
        await pilot.press("enter")
        assert isinstance(app.screen, BoardEntryScreen)
        assert "the TD has been called and decides" in screen_text(app)


async def test_a_ruling_pending_board_is_confirmed_as_td_pending() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", ".", "3")
        assert "(TD ruling pending)" in screen_text(app)
        await pilot.press("enter")
        assert "A TD ruling is pending" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot, client)
        stored = server.results[(1, 1, 1)]
        assert (stored.state, stored.ruling_pending) == ("td_pending", True)


async def test_a_revoked_token_brings_back_the_pairing_screen() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        server.revoked.add(server.token(1))
        server.set_online(False)
        server.set_online(True)
        await client.wait_for(lambda: not client.config.paired)
        await pilot.pause()
        assert isinstance(app.screen, PairingScreen)
        assert "unpaired this terminal" in screen_text(app)
