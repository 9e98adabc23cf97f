"""Snapshots of every screen at 80x24 (pytest-textual-snapshot; update with --snapshot-update)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from protocol.messages import BoardResultView, EnterResult, EntryValues
from terminal import i18n
from terminal.errors import ClientError
from terminal.testing.server import FakeLink, FakeServer
from tests.support.terminal import checked, make_app, north_then_east, settle

pytest.importorskip("pytest_textual_snapshot", reason="pip install pytest-textual-snapshot")

SnapCompare = Callable[..., bool]
Steps = Callable[[Pilot[Any], Any], Awaitable[None]]


def snap(
    snap_compare: SnapCompare, steps: Steps, server: FakeServer | None = None, **kw: Any
) -> bool:
    """Run ``steps`` on a fresh app (seated and online unless they say otherwise), then compare."""
    app, client = make_app(server or FakeServer(), **kw)

    async def run_before(pilot: Pilot[Any]) -> None:
        await steps(pilot, client)
        if server_online(client):
            await client.wait_for(lambda: client.online and client.waiting == 0)
        await pilot.pause()

    return snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def server_online(client: Any) -> bool:
    """Whether the fake network is up (then the shot waits until nothing is queued)."""
    return bool(client.server.online and client.config.paired)


async def seated(pilot: Pilot[Any], client: Any) -> None:
    await settle(pilot, client)
    await pilot.press("enter")


def test_pairing_screen(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await pilot.press("0", "1")

    assert snap(snap_compare, steps, table=None)


def test_seat_check_screen(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await settle(pilot, client)

    assert snap(snap_compare, steps)


def test_board_entry_empty(snap_compare: SnapCompare) -> None:
    assert snap(snap_compare, seated)


def test_board_entry_declarer_step(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "*")

    assert snap(snap_compare, steps)


def test_board_entry_with_live_score(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "*", "3", "8")

    assert snap(snap_compare, steps)


def test_board_entry_with_lead_and_relative_tricks(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("3", "5", "1", "4", "1", "3", "+", "1")

    server = FakeServer(lead_required=True, tricks_style="relative")
    assert snap(snap_compare, steps, server)


def test_east_confirmation(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "*", "2", "8", "enter")

    assert snap(snap_compare, steps)


def test_east_confirmation_with_pin(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("3", "5", "1", "9", "enter", "1", "2")

    assert snap(snap_compare, steps, FakeServer(pin="1234"))


def test_round_summary_not_finished(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter")
        await pilot.press("escape", "/")

    assert snap(snap_compare, steps, FakeServer(boards_per_round=3))


def test_round_summary_complete(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter", "enter")
        await pilot.press("3", "5", "1", "8", "enter", "enter")
        await settle(pilot, client)

    assert snap(snap_compare, steps)


def test_offline_with_results_waiting(snap_compare: SnapCompare) -> None:
    server = FakeServer()

    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        server.set_online(False)
        await settle(pilot, client, online=False)
        await pilot.press("4", "4", "3", "1", "0", "enter", "enter")

    assert snap(snap_compare, steps, server)


def test_conflict_notice(snap_compare: SnapCompare) -> None:
    server = FakeServer()

    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter")
        await settle(pilot, client)
        values = EntryValues(contract="3NT", declarer="N", tricks=9)
        server.handle(1, EnterResult(entry_id="other-device-1", board=1, values=values))
        await client.wait_for(lambda: client.board(1).state == "conflict")

    assert snap(snap_compare, steps, server)


def test_menu(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press(".")

    assert snap(snap_compare, steps)


def test_help(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press(".", "4")

    assert snap(snap_compare, steps)


# ---------------------------------------------------------------- the extras (issue 4)

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
NS_TRICKS = {"C": 5, "D": 7, "H": 5, "S": 7, "NT": 5}
EW_TRICKS = {"C": 7, "D": 5, "H": 7, "S": 5, "NT": 5}
DD = {"N": NS_TRICKS, "S": NS_TRICKS, "E": EW_TRICKS, "W": EW_TRICKS}
FOUR_SPADES = ("4", "4", "3", "1", "0", "enter")  # North sends; East confirms after


def played_elsewhere(server: FakeServer) -> FakeServer:
    """Table 2 has played board 1 already: 4♠ by South, one down."""
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
        ns_score=-50,
        lead="HA",
    )
    return server


def test_report_score(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await north_then_east(pilot, *FOUR_SPADES)
        await settle(pilot, client)
        await checked(pilot)

    assert snap(snap_compare, steps, played_elsewhere(FakeServer(after_confirm="score")))


def test_report_traveller(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await north_then_east(pilot, *FOUR_SPADES)
        await settle(pilot, client)
        await checked(pilot)

    server = played_elsewhere(FakeServer(after_confirm="traveller", deals={1: DEAL}))
    assert snap(snap_compare, steps, server)


def test_report_deal(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await north_then_east(pilot, *FOUR_SPADES)
        await settle(pilot, client)
        await checked(pilot)
        await pilot.press("*")
        await checked(pilot)

    # The deal after a board the event shows (rules.md § 11: "nothing" shows no deal either).
    server = FakeServer(after_confirm="score", deals={1: DEAL}, dd={1: DD})
    assert snap(snap_compare, steps, server)


def test_are_you_sure(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await settle(pilot, client)
        await pilot.press("4", "4", "3", "1", "3", "enter")
        await checked(pilot)

    assert snap(snap_compare, steps, FakeServer(deals={1: DEAL}, dd={1: DD}))


def test_td_code(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await settle(pilot, client)
        await pilot.press(".", "5", "1", "1", "1", "1", "enter")
        await checked(pilot)

    assert snap(snap_compare, steps)


def test_seat_check_with_player_numbers(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await settle(pilot, client)

    assert snap(snap_compare, steps, FakeServer(player_numbers="first_round"))


def test_players_confirm(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await settle(pilot, client)
        await pilot.press("*", "1", "0", "0", "1", "enter")
        await checked(pilot)
        await pilot.press("enter", "v", "e", "r", "a", "enter", "1", "0", "0", "2", "enter")
        await checked(pilot)

    members = {"1001": "Anna Lind", "1002": "Bo Ek"}
    assert snap(snap_compare, steps, FakeServer(player_numbers="first_round", members=members))


def test_players_keying(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await settle(pilot, client)
        await pilot.press("*", "1", "0", "0", "1", "enter")
        await checked(pilot)
        await pilot.press("1", "0")

    members = {"1001": "Anna Lind", "1002": "Bo Ek"}
    assert snap(snap_compare, steps, FakeServer(player_numbers="first_round", members=members))


def test_ranking(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press(*FOUR_SPADES, "enter", "3", "5", "1", "9", "enter", "enter")  # no deals
        await settle(pilot, client)
        await pilot.press("enter")
        await checked(pilot)

    assert snap(snap_compare, steps, FakeServer(rounds=1, show_ranking=True))


# ---------------------------------------------------------------- other languages (issue 11)


@pytest.fixture
def english_afterwards() -> Any:
    """The language is one setting per process: back to English after a shot in another."""
    yield
    i18n.set_language(None)


def test_danish_seat_check(snap_compare: SnapCompare, english_afterwards: Any) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await settle(pilot, client)

    assert snap(snap_compare, steps, FakeServer(language="da"))


def test_danish_board_entry_with_live_score(
    snap_compare: SnapCompare, english_afterwards: Any
) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "*", "2", "8")

    assert snap(snap_compare, steps, FakeServer(language="da"))


def test_danish_east_confirmation(snap_compare: SnapCompare, english_afterwards: Any) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("3", "5", "2", "9", "enter")

    assert snap(snap_compare, steps, FakeServer(language="da"))


def test_danish_round_summary_not_finished(
    snap_compare: SnapCompare, english_afterwards: Any
) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter")
        await pilot.press("escape", "/")

    assert snap(snap_compare, steps, FakeServer(language="da", boards_per_round=3))


def test_russian_seat_check(snap_compare: SnapCompare, english_afterwards: Any) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await settle(pilot, client)

    assert snap(snap_compare, steps, FakeServer(language="ru"))


def test_russian_board_entry_declarer_step(
    snap_compare: SnapCompare, english_afterwards: Any
) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "*")

    assert snap(snap_compare, steps, FakeServer(language="ru"))


def test_russian_east_confirmation_with_pin(
    snap_compare: SnapCompare, english_afterwards: Any
) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("3", "5", "1", "9", "enter", "1", "2")

    assert snap(snap_compare, steps, FakeServer(language="ru", pin="1234"))


def test_russian_round_summary_complete(snap_compare: SnapCompare, english_afterwards: Any) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter", "enter")
        await pilot.press("3", "5", "1", "8", "enter", "enter")
        await settle(pilot, client)

    assert snap(snap_compare, steps, FakeServer(language="ru"))


def test_russian_key_help(snap_compare: SnapCompare, english_afterwards: Any) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press(".", "4")

    assert snap(snap_compare, steps, FakeServer(language="ru"))


async def _keys(pilot: Pilot[Any], client: Any, keys: tuple[str, ...]) -> None:
    if keys:
        await seated(pilot, client)
        await pilot.press(*keys)
    else:
        await settle(pilot, client)


#: The main screens of a round: seat check, a board keyed with its live score, East's
#: confirmation, and the § 262C summary with a board missing.
MAIN_SCREENS = {
    "seat_check": (),
    "board_entry": ("4", "4", "*", "2", "8"),
    "east_confirmation": ("3", "5", "2", "9", "enter"),
    "summary_not_finished": ("4", "4", "3", "1", "0", "enter", "escape", "/"),
}


@pytest.mark.parametrize("screen", list(MAIN_SCREENS))
@pytest.mark.parametrize("language", ["nb", "de"])
def test_norwegian_and_german_main_screens(
    snap_compare: SnapCompare, english_afterwards: Any, language: str, screen: str
) -> None:
    keys = MAIN_SCREENS[screen]

    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await _keys(pilot, client, keys)

    assert snap(snap_compare, steps, FakeServer(language=language, boards_per_round=3))


# ---------------------------------------------------------------- one key grammar (issue 17)


def test_danish_board_entry_declarer_step(
    snap_compare: SnapCompare, english_afterwards: Any
) -> None:
    """The declarer keys 1 N 2 Ø 3 S 4 V, as on the keypad (protocol/keys.md)."""

    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "*")

    assert snap(snap_compare, steps, FakeServer(language="da"))


def test_danish_key_help(snap_compare: SnapCompare, english_afterwards: Any) -> None:
    """The help screen is the table card's terminal column (protocol/table_card.py)."""

    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press(".", "4")

    assert snap(snap_compare, steps, FakeServer(language="da"))


def test_fourteen_tricks_are_not_possible(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "4")

    assert snap(snap_compare, steps)


def test_danish_fourteen_tricks_are_not_possible(
    snap_compare: SnapCompare, english_afterwards: Any
) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "4")

    assert snap(snap_compare, steps, FakeServer(language="da"))


# ---------------------------------------------------------------- the table side's edges (issue 17)

#: The server's refusal of an unknown code, in the language the terminal asked for.
UNKNOWN_CODE = {
    "en": "No table has the pairing code '12105496' (a code works once: ask the TD for the "
    "table's current code).",
    "da": "Intet bord har parringskoden '12105496' (en kode virker én gang: bed "
    "turneringslederen om bordets aktuelle kode).",
}


@pytest.mark.parametrize("language", ["en", "da"])
def test_pairing_refused_with_a_long_reason(
    snap_compare: SnapCompare, english_afterwards: Any, monkeypatch: Any, language: str
) -> None:
    """Before pairing: "not paired yet" (not OFFLINE), and the refusal whole, wrapped."""

    async def refused(self: FakeLink, code: str, device: str) -> None:
        raise ClientError("pairing_code_unknown", UNKNOWN_CODE[language])

    monkeypatch.setattr(FakeLink, "pair", refused)

    async def steps(pilot: Pilot[Any], client: Any) -> None:
        if language == "da":
            await pilot.press("+")  # the players' language key: English -> Danish
            await pilot.pause()
        await pilot.press(*"12105496", "enter")
        await pilot.app.workers.wait_for_complete()

    assert snap(snap_compare, steps, table=None)


@pytest.mark.parametrize("language", ["en", "da"])
def test_offline_gate_done_here_not_at_the_server(
    snap_compare: SnapCompare, english_afterwards: Any, language: str
) -> None:
    """§ 262C with the server away: every board done at the table, board 2 not yet sent."""
    server = FakeServer(language=None if language == "en" else language)

    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter", "enter")
        await settle(pilot, client)
        server.set_online(False)
        await settle(pilot, client, online=False)
        await pilot.press("3", "5", "1", "8", "enter", "enter")

    assert snap(snap_compare, steps, server)


def test_danish_conflict_notice(snap_compare: SnapCompare, english_afterwards: Any) -> None:
    """The notice over the board (East's dialog for it closed), in Danish."""
    server = FakeServer(language="da")

    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter")
        await settle(pilot, client)
        values = EntryValues(contract="3NT", declarer="N", tricks=9)
        server.handle(1, EnterResult(entry_id="other-device-1", board=1, values=values))
        await client.wait_for(lambda: client.board(1).state == "conflict")

    assert snap(snap_compare, steps, server)


def test_danish_offline_with_boards_not_sent(
    snap_compare: SnapCompare, english_afterwards: Any
) -> None:
    server = FakeServer(language="da")

    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        server.set_online(False)
        await settle(pilot, client, online=False)
        await pilot.press("4", "4", "3", "1", "0", "enter", "enter")

    assert snap(snap_compare, steps, server)
