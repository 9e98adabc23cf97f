"""The terminal's extras driven by key presses against the fake server: where the pairs go
next, the score or traveller after confirmation, the deal, the lead and double-dummy checks,
"not played" with the TD's code, player numbers and the ranking at the session's end."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from protocol.messages import BoardReport, BoardResultView, TravellerLineView
from terminal.errors import ClientError
from terminal.screens.board_entry import BoardEntryScreen
from terminal.screens.confirm import ConfirmScreen
from terminal.screens.players import PlayersScreen
from terminal.screens.questions import QuestionScreen, TdCodeScreen
from terminal.screens.ranking import RankingScreen
from terminal.screens.report import BoardReportScreen, count_text, score_text, traveller_table
from terminal.screens.seat_check import SeatCheckScreen
from terminal.screens.summary import SummaryScreen
from terminal.testing.server import FakeServer
from tests.support.terminal import (
    make_app,
    north_then_east,
    screen_text,
    seated,
    settle,
    wait_for_screen,
)

SIZE = (80, 24)
FOUR_SPADES_BY_SOUTH_MADE = ["4", "4", "3", "1", "0", "enter", "enter"]
NORTH_SENDS_FOUR_SPADES = FOUR_SPADES_BY_SOUTH_MADE[:-1]  # without East's Enter
# West holds ♥AKQJ and ♠432; double dummy, N/S take 7 tricks in spades.
DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
NS_TRICKS = {"C": 5, "D": 7, "H": 5, "S": 7, "NT": 5}
EW_TRICKS = {"C": 7, "D": 5, "H": 7, "S": 5, "NT": 5}
DD = {"N": NS_TRICKS, "S": NS_TRICKS, "E": EW_TRICKS, "W": EW_TRICKS}


def with_deal(**kw: object) -> FakeServer:
    """A fake event whose board 1 has the deal above and its double-dummy table."""
    return FakeServer(deals={1: DEAL}, dd={1: DD}, **kw)  # type: ignore[arg-type]


def other_table_result(server: FakeServer, ns_score: int) -> None:
    """Table 2 has already played board 1 (an earlier round), confirmed."""
    server.results[(2, 0, 1)] = BoardResultView(
        board=1,
        round=0,
        table=2,
        state="confirmed",
        version=2,
        contract="4S",
        declarer="S",
        tricks=9,
        result="-1",
        ns_score=ns_score,
    )


async def test_the_summary_shows_where_the_pairs_go_once_the_round_is_done() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        assert client.round is not None
        assert client.round.next == []
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE, "3", "5", "1", "9", "enter", "enter")
        await settle(pilot, client)
        await client.wait_for(lambda: bool(client.round and client.round.next))
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        text = screen_text(app)
        assert "Pair 1: table 1 North-South, boards 3, 4." in text
        assert "Pair 3: table 2 East-West, boards 1, 2." in text


async def test_after_confirmation_the_score_then_the_next_board() -> None:
    server = FakeServer(after_confirm="score")
    other_table_result(server, -50)
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)
        await wait_for_screen(pilot, BoardReportScreen)
        text = screen_text(app)
        assert "N/S 100 %      E/W 0 %" in text
        assert "2 results so far (tables still to play it are not in it)." in text
        await pilot.press("enter")
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == 2


async def test_after_confirmation_the_traveller_of_played_boards_only() -> None:
    server = FakeServer(after_confirm="traveller")
    other_table_result(server, -50)
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE)
        await wait_for_screen(pilot, BoardReportScreen)
        report = app.screen.report  # type: ignore[attr-defined]
        assert [(row.table, row.ours) for row in report.rows] == [(2, False), (1, True)]
        assert "N/S 100 %" in screen_text(app)
        # Board 2 has not been played here: the server refuses, whoever asks.
        with pytest.raises(ClientError) as refused:
            await client.board_report(2)
        assert refused.value.code == "board_not_played_here"


def test_the_traveller_heads_its_score_columns_by_side() -> None:
    """The columns hold the N/S and the E/W score: headed "+" and "-" they read as the N/S plus
    and minus columns of a paper traveller ("+ -110  - 110")."""
    report = BoardReport(
        board=1,
        show="traveller",
        results=1,
        rows=[
            TravellerLineView(
                table=2,
                ns="3",
                ew="13",
                contract="2S",
                declarer="E",
                result="=",
                ns_score="-110",
                ew_score="110",
                ns_percent=0.0,
            )
        ],
    )
    console = Console(width=80, record=True)
    console.print(traveller_table(report))
    heading, row = console.export_text().splitlines()[:2]
    assert "N/S score" in heading
    assert "E/W score" in heading
    assert "+" not in heading.split()
    ns_at, ew_at = heading.index("N/S score"), heading.index("E/W score")
    assert row[ns_at:ew_at].strip() == "-110"
    assert row[ew_at : ew_at + len("E/W score")].strip() == "110"


def test_a_lone_result_says_why_both_sides_have_60_percent() -> None:
    lone = BoardReport(board=1, show="score", results=1, ns_percent=60.0, ew_percent=60.0)
    assert score_text(lone) == "N/S 60 %      E/W 60 %"
    assert count_text(lone) == (
        "the only result so far: a lone result scores 60 % for each side (§ X78B)"
    )
    two = lone.model_copy(update={"results": 2, "ns_percent": 100.0, "ew_percent": 0.0})
    assert count_text(two) == "2 results so far"


async def test_the_deal_on_demand_after_confirmation() -> None:
    server = with_deal(after_confirm="score")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await north_then_east(pilot, *NORTH_SENDS_FOUR_SPADES)  # a deal: checked first
        await wait_for_screen(pilot, BoardReportScreen)
        assert "* = the deal" in screen_text(app)
        await pilot.press("*")
        text = screen_text(app)
        assert "♠ A K Q J" in text
        assert "Makes (double dummy): N 1♠ 1♦  ·  E 1♥ 1♣" in text
        await pilot.press("enter")
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == 2


async def test_nothing_after_a_board_shows_no_deal_either() -> None:
    server = with_deal()  # the event shows nothing after a board (rules.md § 11)
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await north_then_east(pilot, *NORTH_SENDS_FOUR_SPADES)  # a deal: checked first
        await settle(pilot, client)
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == 2  # nothing after confirmation: straight on
        await pilot.press("left")
        assert "* deal" not in screen_text(app)
        await pilot.press("*")
        assert isinstance(app.screen, BoardEntryScreen)
        report = await client.board_report(1)
        assert (report.show, report.deal, report.dd_tricks) == ("nothing", None, None)


async def test_a_lead_not_in_the_leaders_hand_is_refused() -> None:
    server = with_deal(lead_required=True)
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await settle(pilot, client)
        # 4♠ by South, lead ♠A (North's card: West leads), ten tricks.
        await pilot.press("4", "4", "3", "4", "1", "4", "1", "0", "enter")
        await settle(pilot, client)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, BoardEntryScreen)
        assert "♠A is not in West's hand" in screen_text(app)
        # Checked on the entry itself (no question before it), and nothing stored.
        assert [c.type for c in server.received if c.type in ("enter_result", "check_entry")] == [
            "enter_result"
        ]
        assert (1, 1, 1) not in server.results
        # North changes the lead to ♥A: accepted, East confirms.
        for _ in range(5):
            await pilot.press("backspace")
        await pilot.press("3", "1", "4", "1", "0", "enter")
        await wait_for_screen(pilot, ConfirmScreen)
        await pilot.press("enter")
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].lead == "HA"


async def test_tricks_far_from_double_dummy_ask_are_you_sure() -> None:
    server = FakeServer(deals={1: DEAL, 2: DEAL}, dd={1: DD, 2: DD})
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await settle(pilot, client)
        await pilot.press("4", "4", "3", "1", "3", "enter")  # thirteen tricks
        await wait_for_screen(pilot, QuestionScreen)
        assert "far from what the cards allow" in screen_text(app)
        await pilot.press("enter")  # yes, it is right
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].tricks == 13
        # Board 2: no, North changes it; the correction gets no second question.
        await wait_for_screen(pilot, BoardEntryScreen)
        assert app.screen.board == 2
        await pilot.press("4", "4", "3", "1", "3", "enter")
        await wait_for_screen(pilot, QuestionScreen)
        await pilot.press("backspace")  # no: North changes it
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.editing
        await pilot.press("backspace", "backspace", "1", "2", "enter")
        await wait_for_screen(pilot, ConfirmScreen)
        await pilot.press("enter")
        await settle(pilot, client)
        assert server.results[(1, 1, 2)].tricks == 12
        assert [c.type for c in server.received].count("correct_result") == 1


async def test_not_played_needs_the_td_code() -> None:
    server = FakeServer(td_code="4321")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await settle(pilot, client)
        await pilot.press(".", "5")
        assert isinstance(app.screen, TdCodeScreen)
        await pilot.press("1", "1", "1", "1", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, TdCodeScreen)
        assert "not the TD's code" in screen_text(app)
        assert (1, 1, 1) not in server.results
        await pilot.press("4", "3", "2", "1", "enter")
        await wait_for_screen(pilot, BoardEntryScreen)
        assert server.results[(1, 1, 1)].state == "not_played"
        assert app.screen.board == 2  # type: ignore[attr-defined]
        assert client.board(1).state == "not_played"  # type: ignore[union-attr]


async def test_players_key_membership_numbers_and_a_visitor_name() -> None:
    server = FakeServer(
        player_numbers="first_round", members={"1001": "Anna Lind", "1002": "Bo Ek"}
    )
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, client)
        assert "* = player numbers" in screen_text(app)
        await pilot.press("*")
        assert isinstance(app.screen, PlayersScreen)
        await pilot.press("1", "0", "0", "1", "enter")  # North
        await app.workers.wait_for_complete()
        await pilot.press("9", "9", "enter")  # South: nobody has 99
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "No member has the number 99" in screen_text(app)
        await pilot.press("backspace", "backspace", "enter")  # South keeps the name
        await pilot.press("v", "e", "r", "a", "space", "v", "enter")  # East: a visitor
        await pilot.press("1", "0", "0", "2", "enter")  # West
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Anna Lind" in screen_text(app)
        assert "Are these your names?" in screen_text(app)
        await pilot.press("enter")
        await wait_for_screen(pilot, SeatCheckScreen)
        text = screen_text(app)
        assert "Anna Lind & Carl Dahl" in text
        assert "vera v & Bo Ek" in text
        assert server.names_of(1) == ("Anna Lind", "Carl Dahl")


async def test_no_player_numbers_when_the_event_does_not_take_them() -> None:
    server = FakeServer()
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, client)
        assert "player numbers" not in screen_text(app)
        await pilot.press("*")
        assert isinstance(app.screen, SeatCheckScreen)
        # The TD switches them on: the terminal hears of it at once.
        server.change_settings(player_numbers="every_round")
        await client.wait_for(lambda: client.settings.player_numbers == "every_round")
        await pilot.pause()
        assert "* = player numbers" in screen_text(app)


async def test_the_ranking_at_the_end_of_the_session() -> None:
    server = FakeServer(rounds=1, show_ranking=True)
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press(*FOUR_SPADES_BY_SOUTH_MADE, "3", "5", "1", "9", "enter", "enter")
        await settle(pilot, client)
        assert isinstance(app.screen, SummaryScreen)
        assert "Enter = the ranking" in screen_text(app)
        await pilot.press("enter")
        await wait_for_screen(pilot, RankingScreen)
        report = app.screen.report  # type: ignore[attr-defined]
        ours = [row.pair for group in report.groups for row in group.rows if row.ours]
        assert ours == ["1", "3"]
        assert "provisional" in screen_text(app)  # table 2 has not played yet
        await pilot.press("enter")
        assert isinstance(app.screen, SummaryScreen)


async def test_settings_survive_an_offline_restart(tmp_path: object) -> None:
    server = FakeServer(after_confirm="traveller")
    app, client = make_app(server, state_dir=Path(str(tmp_path)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, client)
        assert client.settings.after_confirm == "traveller"
    await client.close()
    server.set_online(False)
    app, client = make_app(server, table=None, state_dir=Path(str(tmp_path)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not client.online
        assert client.settings.after_confirm == "traveller"
    await client.close()


async def test_keypresses_with_the_score_after_confirmation() -> None:
    """4♠ by South made, confirmed, the score seen and on to board 2: 8 keys."""
    server = FakeServer(after_confirm="score")
    app, client = make_app(server)
    keys = [*FOUR_SPADES_BY_SOUTH_MADE, "enter"]
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press(*keys[:-1])
        await wait_for_screen(pilot, BoardReportScreen)
        await pilot.press(keys[-1])
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == 2
        assert server.results[(1, 1, 1)].state == "confirmed"
    assert len(keys) == 8
