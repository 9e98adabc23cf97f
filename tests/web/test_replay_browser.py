"""The trick-by-trick replay (static/replay.js) in real Chromium, on a projector-sized window and
on a 390 px phone: nothing before every table has played the board, then each table's auction
and play, stepped card by card; without JavaScript, the tricks listed."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from playwright.sync_api import expect
from sqlmodel import Session, select

from server.core.db import make_engine
from server.core.models import Board, Result
from server.services import hands
from tests.support.web import LiveServer, Room, Terminal, login, save_screen
from tests.web.test_hand_record_public import DEAL
from tests.web.test_play_public import AUCTION, PLAY


def _store(server: LiveServer, section_id: int, **where: Any) -> None:
    """The deal of board 1, or the play keyed at a table (Result.play), put in the database."""
    engine = make_engine(f"sqlite:///{server.database}")
    with Session(engine) as s:
        if "deal" in where:
            row: Any = s.exec(
                select(Board).where(Board.section_id == section_id, Board.number == 1)
            ).one()
            row.deal = where["deal"]
        else:
            row = s.exec(
                select(Result).where(
                    Result.section_id == section_id,
                    Result.table_number == where["table"],
                    Result.round == where["round"],
                    Result.board == 1,
                )
            ).one()
            row.play = PLAY
        s.add(row)
        s.commit()
    engine.dispose()


def _play_round(room: Room, live_server: LiveServer, terminal: Terminal, round_: int) -> None:
    for board in terminal.boards():
        if board != 1:
            terminal.play(board)
            continue
        values = {"contract": "4H", "declarer": "N", "tricks": 9, "auction": AUCTION}
        ack = terminal.send(
            {"type": "enter_result", "entry_id": str(uuid.uuid4()), "board": 1, "values": values}
        )
        assert ack["type"] == "result_ack", ack
        terminal.confirm(1, ack["result"]["version"])
        _store(live_server, room.section_id, table=terminal.number, round=round_)


def _slots(replay: Any) -> dict[str, str]:
    texts: dict[str, str] = replay.evaluate(
        "box => Object.fromEntries([...box.querySelectorAll('.replay-trick .slot')]"
        ".map(s => [s.dataset.slot, s.textContent]))"
    )
    return texts


def test_the_replay_steps_through_the_play_on_a_projector_and_a_phone(
    page: Any, room: Room, live_server: LiveServer, browser: Any, tmp_path: Path
) -> None:
    room.td("PATCH", f"/api/v1/events/{room.event_id}", json={"auction_entry": "optional"})
    _store(live_server, room.section_id, deal=DEAL)
    hands.dd_tricks(DEAL)  # solved now (if endplay is there), as the server would have by then
    url = f"/results/{room.section_id}/boards/1"
    for round_ in (1, 2, 3):  # the 3-table Mitchell: board 1 goes round every table
        if round_ > 1:
            room.start_round(round_)
        for number in (1, 2, 3):
            terminal = room.table(number)
            if round_ > 1:
                terminal.next_round()
            _play_round(room, live_server, terminal, round_)
        if round_ == 1:
            page.goto(url)
            expect(page.locator("#traveller-hidden")).to_be_visible()
            expect(page.locator("#table-plays")).to_have_count(0)
            assert "data-replay" not in page.content()

    page.goto(url)
    plays = page.locator("#table-plays")
    expect(plays.locator("details.table-play")).to_have_count(3)
    first = plays.locator("details.table-play").first
    replay = first.locator("[data-replay]")
    expect(replay.locator(".replay-stage")).to_be_visible()  # the script took over
    expect(first.locator("table.auction-grid")).to_contain_text("2♦!")
    east = replay.locator(".rhand.east")
    expect(east).to_have_class("rhand east to-play")  # East makes the opening lead
    assert set(_slots(replay).values()) == {""}
    expect(replay.locator('[data-count="ns"]')).to_have_text("0")

    next_card = replay.locator('button[data-step="next"]')
    back = replay.locator('button[data-step="back"]')
    expect(back).to_be_disabled()
    next_card.click()
    assert _slots(replay)["E"] == "♣9"
    expect(east.locator('.c[data-card="C9"]')).to_be_hidden()  # played: out of East's hand
    expect(east.locator('.c[data-card="C2"]')).to_be_visible()
    for _ in range(3):
        next_card.click()
    assert _slots(replay) == {"N": "♣A", "E": "♣9", "S": "♣3", "W": "♣10"}
    expect(replay.locator(".slot-n")).to_have_class("slot slot-n filled suit-c won")
    expect(replay.locator('[data-count="ns"]')).to_have_text("1")
    expect(replay.locator(".replay-at")).to_have_text("Trick 1")
    expect(replay.locator(".rhand.north")).to_have_class("rhand north to-play")  # it leads next
    next_card.click()
    assert _slots(replay) == {"N": "♥J", "E": "", "S": "", "W": ""}
    expect(replay.locator(".replay-at")).to_have_text("Trick 2")
    back.click()
    assert _slots(replay)["W"] == "♣10"
    replay.press("ArrowRight")  # the keyboard steps too
    assert _slots(replay)["N"] == "♥J"
    expect(replay.locator(".replay-end")).to_be_hidden()  # the claim is not told ahead

    replay.locator('button[data-step="end"]').click()
    expect(replay.locator(".replay-end")).to_be_visible()
    expect(replay.locator(".replay-end")).to_contain_text("Claim: declarer takes 9 tricks")
    expect(replay.locator('[data-count="ns"]')).to_have_text("9")
    expect(replay.locator('[data-count="ew"]')).to_have_text("4")
    expect(next_card).to_be_disabled()
    # 28 cards played, 24 left in the hands (13 each, less 7 each).
    expect(replay.locator(".rhand .c:visible")).to_have_count(52 - 28)
    replay.locator('tr[data-trick="5"]').click()  # a trick in the list jumps to its end
    assert _slots(replay) == {"W": "♣K", "N": "♥10", "E": "♥Q", "S": "♣Q"}
    expect(replay.locator(".slot-e")).to_have_class("slot slot-e filled suit-h won")
    expect(replay.locator('tr[data-trick="5"]')).to_have_class("jump now")
    expect(replay.locator('tr[data-trick="6"] .pc').first).to_be_hidden()  # not yet played
    expect(replay.locator('tr[data-trick="6"] .count')).to_be_hidden()  # nor its count
    expect(replay.locator('tr[data-trick="5"] td.num')).to_have_text("2–3")

    page.set_viewport_size({"width": 1366, "height": 768})
    page.evaluate("window.scrollTo(0, 0)")
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    save_screen(page, tmp_path, "public-traveller-with-plays-1366.png")
    page.evaluate("document.querySelector('#table-plays').scrollIntoView()")
    save_screen(page, tmp_path, "public-replay-1366.png")

    phone = browser.new_context(viewport={"width": 390, "height": 844}, base_url=live_server.url)
    try:
        tab = phone.new_page()
        tab.goto(url)
        box = tab.locator("#table-plays details.table-play").first.locator("[data-replay]")
        box.locator('button[data-step="next"]').click()
        for _ in range(5):
            box.locator('button[data-step="next"]').click()
        widths = tab.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], widths  # no sideways scroll on a phone
        for part in (".replay-table", ".replay-bar", "table.tricks"):
            found = box.locator(part).bounding_box()
            assert found is not None, part
            assert found["x"] >= 0, (part, found)
            assert found["x"] + found["width"] <= 390, (part, found)
        box.locator(".replay-table").scroll_into_view_if_needed()
        save_screen(tab, tmp_path, "public-replay-390.png")
        tab.goto(url + "?lang=da")  # the club's language: the labels translated, no overflow
        box = tab.locator("#table-plays details.table-play").first.locator("[data-replay]")
        box.locator('button[data-step="next"]').click()
        expect(box.locator(".replay-at")).to_have_text("Stik 1")
        expect(tab.locator("#table-plays h2")).to_have_text("Meldinger og spil")
        widths = tab.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], widths
        tab.evaluate("document.querySelector('#table-plays').scrollIntoView()")
        save_screen(tab, tmp_path, "public-replay-390-da.png")
    finally:
        phone.close()

    plain = browser.new_context(java_script_enabled=False, base_url=live_server.url)
    try:
        tab = plain.new_page()
        tab.goto(url)
        listed = tab.locator("#table-plays details.table-play").first
        expect(listed.locator(".replay-stage")).to_be_hidden()  # no stepping without the script
        expect(listed.locator("table.tricks tbody tr")).to_have_count(7)
        expect(listed.locator(".replay-end")).to_contain_text("Claim: declarer takes 9 tricks")
    finally:
        plain.close()

    # The TD's board page: every table's auction and play, this table's open, the same replay.
    board = f"/td/s/{room.section_id}/tables/1/rounds/1/boards/1"
    login(page, board)
    desk = page.locator("#board-plays")
    expect(desk.locator("details.table-play")).to_have_count(3)
    here = desk.locator("details.table-play.here")
    expect(here).to_have_attribute("open", "")
    for _ in range(6):
        here.locator('button[data-step="next"]').click()
    assert _slots(here.locator("[data-replay]")) == {"N": "♥J", "E": "♥2", "S": "", "W": ""}
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    desk.scroll_into_view_if_needed()
    save_screen(page, tmp_path, "td-board-replay-1366.png")
