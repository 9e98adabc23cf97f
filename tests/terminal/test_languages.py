"""The terminal in Danish, Norwegian, German and Russian: the event's language, the players'
switch (one key, remembered for the table), local letters, § 262 wording, and 80x24 fit."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widget import Widget
from textual.widgets import Static

from protocol.languages import LANGUAGES
from protocol.messages import NextPosition, RoundInfo
from terminal import i18n
from terminal.app import TravellerTerminal
from terminal.config import ConfigStore
from terminal.link import language_headers
from terminal.screens.summary import next_text
from terminal.testing.server import FakeServer
from tests.support.terminal import checked, make_app, settle

from .test_snapshots import DD, DEAL, played_elsewhere


def screen_text(app: TravellerTerminal) -> str:
    """Every Static's text on the current screen, tables included, joined."""
    console = Console(width=400, record=True, file=io.StringIO())
    for widget in app.screen.query(Static):
        console.print(widget.content)
    return console.export_text()


DANISH_262C1 = (
    "Når rundens sidste spil er indtastet, skal begge sider forvisse sig om, at der ikke mangler "
    "indtastninger, inden de forlader bordet."
)
DANISH_262B3 = (
    "En spiller fra den anden side, typisk Øst, bekræfter rigtigheden af de indtastede oplysninger."
)


@pytest.fixture(autouse=True)
def english_afterwards() -> Any:
    """The language is one setting per process: leave it as the next test expects."""
    yield
    i18n.set_language(None)


def cut_off(app: TravellerTerminal) -> list[str]:
    """What does not fit the 80x24 screen: widgets outside it or under the bottom lines, and
    texts that need more lines than their widget has."""
    screen = app.screen
    problems = []
    bottom = 24
    docked_bottom = [w for w in screen.query("#message, #hints") if w.display]
    if docked_bottom:
        bottom = min(w.region.y for w in docked_bottom)
    for widget in screen.query("*"):
        if not widget.display or widget.region.area == 0:
            continue
        region = widget.region
        if region.right > 80 or region.bottom > 24:
            problems.append(f"{widget!r} outside the screen: {region}")
        docked = widget.id in ("message", "hints", "status-line")
        in_dialog = any(a.has_class("dialog") for a in widget.ancestors if isinstance(a, Widget))
        if not docked and not in_dialog and region.bottom > bottom and widget.parent is screen:
            problems.append(f"{widget!r} under the key hints: {region}")
        if isinstance(widget, Static):
            size = widget.content_size
            needed = widget.get_content_height(size, size, size.width)
            if needed > size.height:
                problems.append(f"{widget!r} needs {needed} lines, has {size.height}")
    for dialog in screen.query(".dialog"):
        if dialog.virtual_size.height > dialog.size.height:
            problems.append(f"{dialog!r} is taller than it may be")
    return problems


async def check(pilot: Any, app: TravellerTerminal, where: str, seen: dict[str, list[str]]) -> None:
    await checked(pilot)
    seen[where] = cut_off(app)


@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_every_screen_fits_80x24(language: str) -> None:
    """Seat check, board entry at each step, East's confirmation with a PIN, the menu, the key
    help, the TD's code, the traveller and the deal, the summary, the ranking: none cut off."""
    server = played_elsewhere(
        FakeServer(
            language=language,
            pin="1234",
            lead_required=True,
            after_confirm="traveller",
            show_ranking=True,
            deals={1: DEAL},
            dd={1: DD},
            boards_per_round=3,
            rounds=1,
        )
    )
    app, client = make_app(server)
    seen: dict[str, list[str]] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, client)
        assert i18n.language() == language
        await check(pilot, app, "seat check", seen)
        await pilot.press("enter")
        for where, key in [
            ("level", "4"),
            ("suit", "4"),
            ("declarer", "3"),
            ("lead", "3"),
            ("lead rank", "1"),
            ("lead high", "4"),
            ("tricks", "1"),
            ("tricks 1", "0"),
        ]:
            await check(pilot, app, f"board entry: {where}", seen)
            await pilot.press(key)
        await check(pilot, app, "board entry: done", seen)
        await pilot.press("enter")
        await check(pilot, app, "East's confirmation", seen)
        await pilot.press("enter")
        await check(pilot, app, "East's PIN asked", seen)
        await pilot.press("1", "2", "3", "4", "enter")
        await settle(pilot, client)
        await check(pilot, app, "traveller", seen)
        await pilot.press("*")
        await check(pilot, app, "deal", seen)
        await pilot.press("enter")
        await check(pilot, app, "board 2", seen)
        await pilot.press("left")
        await check(pilot, app, "board 1 confirmed, * traveller", seen)
        await pilot.press("right", ".")
        await check(pilot, app, "menu", seen)
        await pilot.press("4")
        await check(pilot, app, "key help", seen)
        await pilot.press("enter", ".", "5")
        await check(pilot, app, "TD code", seen)
        await pilot.press("/", "/")
        await check(pilot, app, "summary, not finished", seen)
        for board in (2, 3):
            await pilot.press("enter")  # the first unfinished board
            assert f"{board}" in screen_text(app)
            await pilot.press("3", "5", "1", "3", "7", "9", "enter")
            await pilot.press("1", "2", "3", "4", "enter")
            await settle(pilot, client)
            await pilot.press("enter")
        await check(pilot, app, "summary, last round done", seen)
        await pilot.press("enter")
        await check(pilot, app, "ranking", seen)
    problems = {where: found for where, found in seen.items() if found}
    assert len(seen) >= 17
    assert not problems, f"{language}: {problems}"


async def test_a_danish_club_night_at_the_table() -> None:
    """The event is Danish: Danish words, Ø for East, § 262 in the regulations' own words;
    the keys are the same (4♠ by South, made: 7 keys)."""
    server = FakeServer(language="da", boards_per_round=2)
    app, client = make_app(server)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, client)
        text = screen_text(app)
        assert "Bord 1" in text
        assert "Runde 1 af 2" in text
        assert "Nord-Syd" in text
        assert "Øst-Vest" in text
        assert "bør spillerne bruge indtastningsenhedens oplysninger" in text
        await pilot.press("enter")
        await pilot.press("4", "4", "3", "1", "0")
        text = screen_text(app)
        assert "Spilfører" in text
        assert "Syd" in text
        assert "4♠, spilfører Syd: hjem, N-S +420" in text
        await pilot.press("enter")
        text = screen_text(app)
        assert DANISH_262B3 in text
        assert "Enter = BEKRÆFT" in text
        await pilot.press("enter")
        await settle(pilot, client)
        status = client.board(1)
        assert status is not None
        assert status.state == "confirmed"
        await pilot.press("/")
        text = screen_text(app)
        assert "IKKE FÆRDIG" in text
        assert DANISH_262C1 in text
        assert "bekræftet" in text
        assert "MANGLER" in text
        await pilot.press("enter", "1", "5", "2", "7", "enter")  # 1NT by East, seven tricks
        text = screen_text(app)
        assert "1UT, spilfører Øst: hjem, N-S -90" in text
        await pilot.press("enter")
        await settle(pilot, client)
        assert "ALLE SPIL FÆRDIGE" in screen_text(app)
    assert [c.type for c in server.received].count("confirm_result") == 2


async def test_the_players_switch_the_language_with_one_key(tmp_path: Path) -> None:
    """+ on the seat check goes to the next language; the choice is kept for this table (a
    restarted terminal shows it), and the event's language comes back for a new event."""
    server = FakeServer(language="de")
    app, client = make_app(server, state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, client)
        assert "Tisch 1" in screen_text(app)
        await pilot.press("+")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert i18n.language() == "ru"
        assert "Стол 1" in screen_text(app)
        await pilot.press("enter", "3", "5", "2")  # 3NT by East: the key is 2, the letter В
        text = screen_text(app)
        assert "Восток" in text
        assert "3 БК" in text
        await pilot.press(".", "6")  # the menu's language item: Russian -> English
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert i18n.language() == "en"
        text = screen_text(app)
        assert "East" in text
        assert "3 NT" in text, "the keys keyed are kept"
    assert ConfigStore(tmp_path).load().chosen_language() == "en"

    i18n.set_language(None)
    again, client = make_app(server, state_dir=tmp_path)
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot, client)
        assert i18n.language() == "en", "the table's choice outlives a restart"
    store = ConfigStore(tmp_path)
    store.save(store.load().__class__(**{**store.load().__dict__, "event": "next-event"}))
    third, client = make_app(server, state_dir=tmp_path)
    async with third.run_test(size=(80, 24)) as pilot:
        await settle(pilot, client)
        assert i18n.language() == "de", "a new event starts in its own language"


def test_local_letters_and_words() -> None:
    for language, east, notrump in [
        ("en", "E", "NT"),
        ("da", "Ø", "UT"),
        ("nb", "Ø", "NT"),
        ("de", "O", "SA"),
        ("ru", "В", "БК"),
    ]:
        i18n.set_language(language)
        assert i18n.seat("E") == east
        assert i18n.contract("3NTX") == f"3{notrump}X"
        assert i18n.contract("4S") == "4♠"
    i18n.set_language("ru")
    assert i18n.result_words("4S", "S", 8, -100) == "4♠, разыгрывающий Юг: без 2, С/Ю -100"
    assert i18n.result_words("4S", "S", 12, 480) == (
        "4♠, разыгрывающий Юг: выполнен, 2 лишние взятки, С/Ю +480"
    )
    i18n.set_language("de")
    assert i18n.percent(56.23) == "56,23\xa0%"
    i18n.set_language("en")
    english = "4♠ by South, made with two overtricks, N/S +480"
    assert i18n.result_words("4S", "S", 12, 480, english=english) == english


@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_the_player_number_screens_fit_80x24(language: str) -> None:
    members = {"1001": "Anna Lind", "1002": "Bo Ek"}
    server = FakeServer(language=language, player_numbers="first_round", members=members)
    app, client = make_app(server)
    seen: dict[str, list[str]] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, client)
        await check(pilot, app, "seat check with numbers", seen)
        await pilot.press("*", "1", "0", "0", "1", "enter")
        await check(pilot, app, "a member found", seen)
        await pilot.press("enter", "v", "e", "r", "a", "enter", "1", "0", "0", "2", "enter")
        await check(pilot, app, "the names to confirm", seen)
        await pilot.press("enter")
        await check(pilot, app, "names stored", seen)
    problems = {where: found for where, found in seen.items() if found}
    assert not problems, f"{language}: {problems}"


def test_refusals_follow_the_language_shown_once_it_is_known() -> None:
    """Before the terminal knows the event's language it sends no Accept-Language (the server
    uses the event's); once the language is the event's or the players' choice, it is sent,
    English too, so players who switched a Danish event's table to English get English."""
    try:
        i18n.set_language(None)
        assert (i18n.language(), language_headers()) == ("en", {})
        i18n.set_language("en")
        assert language_headers() == {"Accept-Language": "en"}
        i18n.set_language("da")
        assert language_headers() == {"Accept-Language": "da"}
    finally:
        i18n.set_language(None)


@pytest.mark.parametrize("lang", ["en", *sorted(set(LANGUAGES) - {"en"})])
def test_a_sit_out_round_says_the_pair_sits_out_instead_of_an_empty_board_list(
    lang: str,
) -> None:
    from protocol.messages import PairInfo, RoundInfo  # noqa: PLC0415
    from terminal.screens.seat_check import boards_text  # noqa: PLC0415

    pair = PairInfo(number=2, label="2", names=["Carl B", "Dorte B"])
    info = RoundInfo(
        event="E", section="A", table=1, round=2, rounds=7, ns=None, ew=pair, boards=[],
        complete=True, round_open=True, next_round_released=False,
    )  # fmt: skip
    i18n.set_language(lang)
    try:
        text = boards_text(info)
        empty = i18n.ngettext("Board {numbers}", "Boards {numbers}", 0).format(numbers="")
        said = i18n._("No boards: the pair sits out this round.")
    finally:
        i18n.set_language("en")
    assert text != empty
    assert text == said
    if lang != "en":
        assert text != "No boards: the pair sits out this round."


@pytest.mark.parametrize("lang", ["en", *sorted(set(LANGUAGES) - {"en"})])
@pytest.mark.parametrize("last", [False, True])
def test_a_sit_out_rounds_summary_says_no_boards_not_all_boards_done(lang: str, last: bool) -> None:
    from protocol.messages import RoundInfo  # noqa: PLC0415
    from terminal.screens.summary import done_text  # noqa: PLC0415

    info = RoundInfo(
        event="E", section="A", table=1, round=7 if last else 2, rounds=7, ns=None, ew=None,
        boards=[], complete=True, round_open=True, next_round_released=False,
    )  # fmt: skip
    i18n.set_language(lang)
    try:
        text = done_text(info)
        done = i18n._("ALL BOARDS DONE ✓  You may move to the next round.")
        done_last = i18n._("ALL BOARDS DONE ✓  This was the last round. Thank you!")
    finally:
        i18n.set_language("en")
    assert text not in (done, done_last)
    assert ("✓" in text) is False
    if lang != "en":
        assert not text.startswith("NO BOARDS")


def test_an_individuals_players_are_told_their_next_table_and_seat() -> None:
    """The round summary of an individual names each player (not a partnership), with the
    next table and seat, or the sit-out, in every language."""
    moves = RoundInfo(
        event="Individual",
        section="A",
        table=1,
        round=1,
        rounds=7,
        ns=None,
        ew=None,
        boards=[],
        complete=True,
        round_open=True,
        next_round_released=False,
        next=[
            NextPosition(pair="5", table=2, seat="E", boards=[3, 4], player=True),
            NextPosition(pair="6", table=None, player=True),
        ],
    )
    shown = {}
    for language in ("en", "da", "nb", "de", "ru"):
        i18n.set_language(language)
        shown[language] = next_text(moves).splitlines()
    assert shown == {
        "en": ["Player 5: table 2 East, boards 3, 4.", "Player 6: sits out next round."],
        "da": ["Spiller 5: bord 2 Øst, spil 3, 4.", "Spiller 6: sidder over i næste runde."],
        "nb": ["Spiller 5: bord 2 Øst, spill 3, 4.", "Spiller 6: sitter over i neste runde."],
        "de": [
            "Spieler 5: Tisch 2 Ost, Boards 3, 4.",
            "Spieler 6: setzt in der nächsten Runde aus.",
        ],
        "ru": ["Игрок 5: стол 2 Восток, сдачи 3, 4.", "Игрок 6: пропускает следующий раунд."],
    }
