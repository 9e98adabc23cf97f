"""Chromium: the TD's Deals page with a conflict between two tables' deals, settled from the
page (screenshots at 1366 and 390 px)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine
from sqlmodel import Session, col, select

from server.core.models import Board, BridgeTable, MovementAssignment
from tests.support.deals import DEAL, OTHER
from tests.support.web import LiveServer, Room, overflow, save_screen, scrolling_inside


def key(room: Room, table: int, board: int, deal: str) -> dict[str, Any]:
    return room.table(table).send(
        {"type": "enter_deal", "entry_id": str(uuid.uuid4()), "board": board, "deal": deal}
    )


def test_the_td_settles_a_conflicting_deal_from_the_page(
    td_page: Any, room: Room, live_server: LiveServer, tmp_path: Path
) -> None:
    room.td("PATCH", f"/api/v1/events/{room.event_id}", json={"deal_entry": True})
    assert key(room, 1, 1, DEAL)["state"] == "keyed"
    engine = create_engine(f"sqlite:///{live_server.database}")
    with Session(engine) as s:
        rows = s.exec(
            select(MovementAssignment)
            .where(MovementAssignment.section_id == room.section_id)
            .order_by(col(MovementAssignment.round))
        ).all()
        number, round_ = next(
            (r.table_number, r.round) for r in rows if r.round > 1 and 1 in r.board_numbers()
        )
        table = s.exec(
            select(BridgeTable).where(
                BridgeTable.section_id == room.section_id, BridgeTable.number == number
            )
        ).one()
        table.round = round_  # the table has moved on to the round that plays board 1
        s.add(table)
        s.commit()
    assert key(room, number, 1, OTHER)["state"] == "conflict"

    td_page.goto(f"/td/s/{room.section_id}/deals")
    assert td_page.locator("#deal-1 .pill").inner_text().lower() == "conflict"
    save_screen(td_page, tmp_path, "keyed-deals-1366.png")
    td_page.set_viewport_size({"width": 390, "height": 844})
    save_screen(td_page, tmp_path, "keyed-deals-390.png")
    # On a phone the rows stack: nothing scrolls sideways, not the page nor inside its card,
    # and the TD's choice is whole on the screen.
    assert overflow(td_page) == 0
    assert scrolling_inside(td_page) == []
    for radio in td_page.locator("#resolve-1 label").all():
        box = radio.bounding_box()
        assert box is not None
        assert box["x"] >= 0, box
        assert box["x"] + box["width"] <= 390, box
    td_page.set_viewport_size({"width": 1366, "height": 768})

    form = td_page.locator("#resolve-1")
    form.locator("input[value^='check:']").check()
    form.locator("input[name=reason]").fill("the board checked at the table")
    form.locator("button[type=submit]").click()
    td_page.wait_for_load_state()
    assert td_page.locator("#deal-1 .pill").inner_text().lower() == "confirmed"
    assert td_page.locator("#resolve-1").count() == 0
    with Session(engine) as s:
        deal = s.exec(
            select(Board.deal).where(Board.section_id == room.section_id, Board.number == 1)
        ).one()
    assert deal == OTHER
    engine.dispose()
