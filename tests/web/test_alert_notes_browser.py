"""A table's alert explanations on the TD's board page in real Chromium, at 1366x768 and on a
390 px phone: numbered on the alerted calls of the auction grid and listed under it."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.support.web import LiveServer, Room, login, save_screen

AUCTION = "1H 2D! 4H! P P P"  # board 1, North deals: North declares 4H


def test_the_td_sees_the_explanations_with_the_auction(
    page: Any, room: Room, live_server: LiveServer, browser: Any, tmp_path: Path
) -> None:
    room.td("PATCH", f"/api/v1/events/{room.event_id}", json={"auction_entry": "optional"})
    terminal = room.table(1)
    assert 1 in terminal.boards()
    notes = [
        {"call": 2, "text": "both majors, 5-5 or longer"},
        {"call": 3, "text": "to play; <b>not</b> a slam try"},
    ]
    values = {"contract": "4H", "declarer": "N", "tricks": 10, "auction": AUCTION, "alerts": notes}
    ack = terminal.send(
        {"type": "enter_result", "entry_id": str(uuid.uuid4()), "board": 1, "values": values}
    )
    assert ack["type"] == "result_ack", ack
    terminal.confirm(1, ack["result"]["version"])

    url = f"/td/s/{room.section_id}/tables/1/rounds/1/boards/1"
    login(page, url)
    listed = page.locator("#board-auction + ol.alert-notes li")
    expect(listed).to_have_count(2)
    expect(listed.nth(0)).to_contain_text("2♦! both majors, 5-5 or longer")
    expect(listed.nth(1)).to_contain_text("to play; <b>not</b> a slam try")  # shown as text
    grid = page.locator("#board-plays table.auction-grid").first
    expect(grid.locator("abbr.alert sup")).to_have_text(["1", "2"])
    save_screen(page, tmp_path, "td-board-alert-notes-1366.png")

    phone = browser.new_context(viewport={"width": 390, "height": 844}, base_url=live_server.url)
    tab = phone.new_page()
    login(tab, url)
    expect(tab.locator("#board-auction + ol.alert-notes li")).to_have_count(2)
    save_screen(tab, tmp_path, "td-board-alert-notes-390.png")
    phone.close()
