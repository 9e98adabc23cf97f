"""The hand record on the public traveller in real Chromium, on a laptop and a 390 px phone:
hidden while the board is in play, then the compass, the makeable contracts and par."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect
from sqlmodel import Session, select

from server.core.db import make_engine
from server.core.models import Board
from server.services import hands
from tests.support.web import LiveServer, Room, save_screen
from tests.web.test_hand_record_public import DEAL, NORTH_HEARTS


def _put_deal(server: LiveServer, section_id: int, board: int) -> None:
    engine = make_engine(f"sqlite:///{server.database}")
    with Session(engine) as s:
        row = s.exec(
            select(Board).where(Board.section_id == section_id, Board.number == board)
        ).one()
        row.deal = DEAL
        s.add(row)
        s.commit()
    engine.dispose()


def test_the_hand_viewer_shows_once_the_board_is_played_by_all(
    page: Any, room: Room, live_server: LiveServer, browser: Any, tmp_path: Path
) -> None:
    _put_deal(live_server, room.section_id, 1)
    hands.dd_tricks(DEAL)  # solved now (if endplay is there), as the server would have by then
    room.table(1).play_round()
    url = f"/results/{room.section_id}/boards/1"
    page.goto(url)
    expect(page.locator("#traveller-hidden")).to_be_visible()
    expect(page.locator("#hand-record")).to_have_count(0)
    assert NORTH_HEARTS not in page.content()

    room.table(2).play_round()
    room.table(3).play_round()
    for round_ in (2, 3):  # the rest of the 3-table Mitchell: board 1 goes round every table
        room.start_round(round_)
        for number in (1, 2, 3):
            room.table(number).next_round()
            room.table(number).play_round()
    page.goto(url)
    viewer = page.locator("#hand-record")
    expect(viewer).to_be_visible()
    expect(viewer.locator(".hand.north")).to_contain_text(NORTH_HEARTS)
    if hands.dd_tricks(DEAL, wait=False) is not None:
        expect(viewer.locator("table.makeable tbody tr")).to_have_count(4)
        expect(viewer.locator(".par")).to_contain_text("NS")
    page.set_viewport_size({"width": 1366, "height": 768})
    viewer.scroll_into_view_if_needed()
    save_screen(page, tmp_path, "public-hand-record-1366.png")
    phone = browser.new_context(viewport={"width": 390, "height": 844}, base_url=live_server.url)
    try:
        tab = phone.new_page()
        tab.goto(url)
        tab.locator("#hand-record").scroll_into_view_if_needed()
        widths = tab.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], widths  # no sideways scroll on a phone
        box = tab.locator("#hand-record .compass").bounding_box()
        assert box is not None
        assert box["width"] <= 390
        save_screen(tab, tmp_path, "public-hand-record-390.png")
    finally:
        phone.close()
