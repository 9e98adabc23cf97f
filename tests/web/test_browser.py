"""The TD dashboard and public results in a real Chromium: live updates, edits, rulings."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import Session, select

from server.core.db import make_engine
from server.core.models import BridgeTable, Section, utcnow
from tests.support.web import LiveServer, Room, Terminal, login, open_room, save_screen

pytestmark = pytest.mark.slow


def mark_page(tab: Any) -> None:
    """Leave a marker in the page: it survives only if the page is never reloaded."""
    tab.evaluate("window.__traveller_same_page = true")


def same_page(tab: Any) -> bool:
    return bool(tab.evaluate("window.__traveller_same_page === true"))


def cell(tab: Any, table: int, round_: int) -> Any:
    return tab.locator(f'tr[data-table="{table}"] td.cell[data-round="{round_}"]')


Tricks = Callable[[int, int], int]
Deal = Callable[[int, int], tuple[str, str, int]]


def play_round(
    room: Room, round_: int, tricks: Tricks | None = None, deal: Deal | None = None
) -> None:
    """Every table plays its boards of ``round_``: 3NT by North with ``tricks(table, board)``
    tricks, or whatever ``deal(table, board)`` says."""
    for number in sorted(room.codes):
        terminal = room.table(number)
        assert terminal.round()["round"] == round_
        for board in terminal.boards():
            if deal is not None:
                terminal.play(board, *deal(number, board))
            else:
                assert tricks is not None
                terminal.play(board, "3NT", "N", tricks(number, board))


CONTRACTS = [("4S", "S", 10), ("3NT", "N", 9), ("4H", "N", 10), ("2S", "E", 8), ("3NT", "S", 9)]


def club_deal(table: int, board: int) -> tuple[str, str, int]:
    """A plausible spread of results: each board has a usual contract, tables vary around it."""
    contract, declarer, tricks = CONTRACTS[board % len(CONTRACTS)]
    swing = (table * 7 + board * 3 + table * board) % 5
    return contract, declarer, tricks + {0: 0, 1: 1, 2: -1, 3: 0, 4: 2}[swing]


def move_on(room: Room, next_round: int) -> None:
    room.start_round(next_round)
    for number in sorted(room.codes):
        assert room.table(number).next_round()["round"] == next_round


def winner_tricks(table: int, board: int) -> int:
    """Table 1's N/S win boards 1-3, table 2's N/S win boards 4-6; the rest make 9 tricks."""
    best = 1 if board <= 3 else 2
    return 10 if table == best else 9


def ns_order(tab: Any) -> list[tuple[str, str]]:
    rows = tab.locator(".ranking-group").first.locator("tbody tr")
    return [
        (
            rows.nth(i).get_attribute("data-pair") or "",
            rows.nth(i).get_attribute("data-place") or "",
        )
        for i in range(rows.count())
    ]


# --------------------------------------------------------------------------------------- tests


def test_td_logs_in_and_a_wrong_password_is_refused(page: Any, live_server: LiveServer) -> None:
    page.goto("/td")
    expect(page).to_have_url(f"{live_server.url}/td/login?next=/td")
    page.fill("#password", "not-the-password")
    page.click("button[type=submit]")
    expect(page.locator(".alert-error")).to_have_text("Wrong TD password.")
    login(page)
    expect(page.locator("h1").first).to_have_text("Events")


def test_grid_cell_turns_confirmed_live_without_reload(td_page: Any, room: Room) -> None:
    td_page.goto(f"/td/s/{room.section_id}")
    expect(td_page.locator("#live-status")).to_have_class("live-dot on")
    target = cell(td_page, 1, 1)
    expect(target).to_have_attribute("data-status", "playing")  # in time: in play, not red
    mark_page(td_page)
    terminal = room.table(1)
    first, second = terminal.boards()
    ack = terminal.enter(first)
    expect(target).to_have_attribute("data-entered", "1")
    terminal.confirm(first, ack["result"]["version"])
    terminal.play(second)
    expect(target).to_have_attribute("data-status", "complete")
    expect(target).to_have_attribute("data-confirmed", "2")
    expect(td_page.locator('[data-total="missing"]')).to_have_text("0")  # nothing overdue
    assert same_page(td_page)


def set_result_on_the_page(
    tab: Any, contract: str, declarer: str, tricks: str, reason: str
) -> None:
    """The TD changes a result in the result editor (the board's page) and saves it."""
    form = tab.locator("#set-form")
    form.locator('input[name="contract"]').fill(contract)
    form.locator('select[name="declarer"]').select_option(declarer)
    form.locator('input[name="tricks"]').fill(tricks)
    form.locator('input[name="reason"]').fill(reason)
    form.locator("button[type=submit]").click()


def test_td_edits_a_result_and_sees_the_audit_entry(td_page: Any, room: Room) -> None:
    terminal = room.table(1)
    board = terminal.boards()[0]
    terminal.play(board, "3NT", "N", 9)
    td_page.goto(f"/td/s/{room.section_id}/tables/1/rounds/1/boards/{board}")
    expect(td_page.locator("#board-state")).to_have_text("Confirmed")
    set_result_on_the_page(td_page, "4S", "S", "10", "Wrong contract keyed at the table")
    expect(td_page.locator(".flash-ok")).to_contain_text("set to 4S")
    latest = td_page.locator("#trail li").first
    expect(latest).to_contain_text("TD set the result")
    expect(latest).to_contain_text("by td")
    expect(latest).to_contain_text("Wrong contract keyed at the table")
    expect(latest.locator("td.old").first).to_have_text("3NT")
    expect(latest.locator("td.new").first).to_have_text("4S")
    td_page.goto(f"/td/s/{room.section_id}/audit?table=1&board={board}")
    expect(td_page.locator("#audit tbody tr").first).to_contain_text("Wrong contract keyed")


def test_average_plus_minus_moves_the_ranking(td_page: Any, room: Room) -> None:
    for round_ in (1, 2, 3):
        play_round(room, round_, winner_tricks)
        if round_ < 3:
            move_on(room, round_ + 1)
    ranking = td_page.context.new_page()
    ranking.goto(f"/results/{room.section_id}")
    expect(ranking.locator("#boards-shown")).to_have_text("after 6 of 6 boards")
    assert ns_order(ranking)[:2] == [("1NS", "1="), ("2NS", "1=")]
    mark_page(ranking)
    # Board 1 was played by pair 1 N/S at table 1 in round 1: give it Ave- (and E/W Ave+).
    td_page.goto(f"/td/s/{room.section_id}/tables/1/rounds/1/boards/1")
    td_page.fill('#adjust-form input[name="reason"]', "Fouled board: no result possible")
    td_page.click('#adjust-form button[data-ns="40"][data-ew="60"]')
    expect(td_page.locator("#board-state")).to_have_text("Adjusted")
    expect(td_page.locator(".result-text")).to_have_text("Adjusted score A40/60")
    expect(ranking.locator(".ranking-group").first.locator("tbody tr").first).to_have_attribute(
        "data-pair", "2NS"
    )
    assert ns_order(ranking)[:2] == [("2NS", "1"), ("1NS", "2")]
    assert same_page(ranking)


def test_td_resolves_a_conflict_by_choosing_an_entry(td_page: Any, room: Room) -> None:
    terminal = room.table(2)
    board = terminal.boards()[0]
    terminal.enter(board, "3NT", "N", 9)
    terminal.enter(board, "4S", "S", 10)  # a second device keys something else
    td_page.goto(f"/td/s/{room.section_id}")
    expect(cell(td_page, 2, 1)).to_have_attribute("data-status", "conflict")
    expect(td_page.locator("#calls")).to_contain_text(f"conflicting entries for board {board}")
    td_page.goto(f"/td/s/{room.section_id}/tables/2/rounds/1/boards/{board}")
    entries = td_page.locator("#conflict tbody tr")
    expect(entries).to_have_count(2)
    entries.nth(1).locator("button.choose-entry").click()
    expect(td_page.locator(".flash-ok")).to_contain_text("resolved")
    expect(td_page.locator("#board-state")).to_have_text("Confirmed")
    expect(td_page.locator(".result-text")).to_contain_text("South")
    expect(td_page.locator("#trail li").first).to_contain_text("Conflict resolved")
    td_page.goto(f"/td/s/{room.section_id}")
    expect(cell(td_page, 2, 1)).to_have_attribute("data-status", "playing")


def test_public_ranking_updates_live_and_hides_unfinished_travellers(
    page: Any, room: Room, tmp_path: Path
) -> None:
    for round_ in (1, 2):
        play_round(room, round_, winner_tricks)
        move_on(room, round_ + 1)
    page.goto(f"/results/{room.section_id}")
    expect(page.locator("#boards-shown")).to_have_text("after 0 of 6 boards")
    table1 = room.table(1)
    own = table1.boards()
    hidden = room.table(2).boards()[0]
    page.goto(f"/results/{room.section_id}/boards/{own[0]}")
    expect(page.locator("#traveller-hidden")).to_contain_text("Still being played")
    page.goto(f"/results/{room.section_id}")
    expect(page.locator("#live-status")).to_have_class("live-dot on")
    mark_page(page)
    for board in own:
        table1.play(board, "3NT", "N", winner_tricks(1, board))
    expect(page.locator("#boards-shown")).to_have_text("after 2 of 6 boards")
    expect(page.locator(f'.chip[data-board="{own[0]}"]')).to_have_attribute(
        "href", f"/results/{room.section_id}/boards/{own[0]}"
    )
    assert same_page(page)
    page.goto(f"/results/{room.section_id}/boards/{own[0]}")
    expect(page.locator("#traveller tbody tr")).to_have_count(3)
    page.goto(f"/results/{room.section_id}/boards/{hidden}")
    expect(page.locator("#traveller-hidden")).to_be_visible()
    expect(page.locator("#traveller")).to_have_count(0)


def test_td_call_appears_and_is_acknowledged(td_page: Any, room: Room) -> None:
    td_page.goto(f"/td/s/{room.section_id}")
    mark_page(td_page)
    room.table(3).send(
        {"type": "call_td", "entry_id": "call-0001-table3", "reason": "we are pair 7, not 5"}
    )
    call = td_page.locator("#calls li.call")
    expect(call).to_contain_text("we are pair 7, not 5")
    assert same_page(td_page)
    call.locator("button").click()
    expect(td_page.locator(".flash-ok")).to_have_text("Call acknowledged.")
    expect(td_page.locator("#calls li.call")).to_have_count(0)


# ------------------------------------------------------------------ reference screenshots


def _busy_room(live_server: LiveServer) -> Room:
    """A 30-table club night in round 3: mostly done, some boards out, a conflict, a call."""
    room = open_room(live_server, name="Thursday club pairs", tables=30, bpr=3, rounds=9)
    room.name_pairs()
    room.start_round(1)
    for round_ in (1, 2):
        for number in range(1, 31):
            room.table(number).play_round(tricks=8 + (number + round_) % 4)
        room.start_round(round_ + 1)
        for number in range(1, 31):
            if not (round_ == 2 and number in (11, 23)):  # two tables still on round 2
                room.table(number).next_round()
    for number in range(1, 31):
        terminal: Terminal = room.table(number)
        if terminal.round()["round"] != 3:
            continue
        boards = terminal.boards()
        done = {0: 3, 1: 2, 2: 1, 3: 0}[number % 4] if number % 7 else 3
        for board in boards[:done]:
            ack = terminal.enter(board, "4H", "S", 10 if number % 3 else 9)
            if number % 5:
                terminal.confirm(board, ack["result"]["version"])
    room.table(17).enter(room.table(17).boards()[2], "2S", "E", 8)
    room.table(17).enter(room.table(17).boards()[2], "2H", "E", 8)
    room.table(8).send({"type": "call_td", "entry_id": "call-table-8-r3", "reason": "revoke"})
    return room


def test_reference_screenshots(td_page: Any, live_server: LiveServer, tmp_path: Path) -> None:
    """The dashboard of a 30-table room fits a laptop screen; the public ranking reads well."""
    busy = _busy_room(live_server)
    _set_round_time(live_server, busy.section_id, late_tables=(6, 26))
    td_page.goto(f"/td/s/{busy.section_id}")
    expect(td_page.locator("#live-status")).to_have_class("live-dot on")
    expect(td_page.locator("table.grid tbody tr")).to_have_count(30)
    expect(td_page.locator('tr[data-table="6"]')).to_have_class("late")
    save_screen(td_page, tmp_path, "dashboard.png")
    last = td_page.locator('table.grid tbody tr[data-table="30"]')
    box = last.bounding_box()
    # A 1366x768 laptop leaves the page about 680 pixels under the browser's own bars.
    assert box is not None
    assert box["y"] + box["height"] <= 680, "30 tables must fit the screen"

    room = open_room(live_server, name="Monday pairs", tables=7, bpr=2)
    room.name_pairs()
    room.start_round(1)
    for round_ in range(1, 8):
        play_round(room, round_, deal=club_deal)
        if round_ < 7:
            move_on(room, round_ + 1)
    ranking = td_page.context.new_page()
    ranking.set_viewport_size({"width": 1100, "height": 760})
    ranking.goto(f"/results/{room.section_id}")
    expect(ranking.locator("#boards-shown")).to_have_text("after 14 of 14 boards")
    save_screen(ranking, tmp_path, "ranking.png")
    ranking.goto(f"/results/{room.section_id}/pairs/1NS")
    expect(ranking.locator(".qr img")).to_be_visible()
    save_screen(ranking, tmp_path, "scorecard.png")
    td_page.goto(f"/td/s/{busy.section_id}/tables/17/rounds/3/boards/{busy.table(17).boards()[2]}")
    save_screen(td_page, tmp_path, "conflict.png")


def _set_round_time(server: LiveServer, section_id: int, late_tables: tuple[int, ...]) -> None:
    """A 20-minute round in which two tables have been sitting for 26 minutes."""
    engine = make_engine(f"sqlite:///{server.database}")
    with Session(engine) as session:
        section = session.get(Section, section_id)
        assert section is not None
        section.round_minutes = 20
        session.add(section)
        for table in session.exec(select(BridgeTable).where(BridgeTable.section_id == section_id)):
            minutes = 26 if table.number in late_tables else 3 + table.number % 9
            table.round_entered_at = utcnow() - timedelta(minutes=minutes)
            session.add(table)
        session.commit()
    engine.dispose()


def test_public_ranking_in_danish_live(page: Any, room: Room) -> None:
    """The switcher picks Danish; the live updates keep it (the websocket sends the cookie)."""
    for round_ in (1, 2):
        play_round(room, round_, winner_tricks)
        move_on(room, round_ + 1)
    page.goto(f"/results/{room.section_id}?lang=da")
    expect(page.locator("html")).to_have_attribute("lang", "da")
    expect(page.locator("#boards-shown")).to_have_text("efter 0 af 6 spil")
    expect(page.locator(".ranking thead").first).to_contain_text("Spillere")
    expect(page.locator("#live-status")).to_have_class("live-dot on")
    mark_page(page)
    table1 = room.table(1)
    for board in table1.boards():
        table1.play(board, "3NT", "N", winner_tricks(1, board))
    expect(page.locator("#boards-shown")).to_have_text("efter 2 af 6 spil")
    expect(page.locator(".ranking td.pct").first).to_have_text(re.compile(r"^\d{1,3},\d\d\s%$"))
    assert same_page(page)
    page.goto(f"/results/{room.section_id}/pairs/1NS")
    expect(page.locator("h1")).to_have_text("Par 1 NS")
