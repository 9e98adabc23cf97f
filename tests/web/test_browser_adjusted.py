"""In a real Chromium: a weighted score from the result editor moves the public ranking, and
the pairing page shows a terminal offline with its queued entries."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from server.core.db import make_engine
from server.core.models import BridgeTable, TableToken, utcnow
from tests.support.web import LiveServer, Room, save_screen
from tests.web.test_browser import expect, mark_page, move_on, ns_order, play_round, same_page

pytestmark = pytest.mark.slow


def winner_tricks(table: int, board: int) -> int:
    """Table 1's N/S win boards 1-3 with an overtrick, table 2's N/S boards 4-6."""
    best = 1 if board <= 3 else 2
    return 10 if table == best else 9


def test_a_weighted_score_from_the_result_editor_moves_the_ranking(
    td_page: Any, room: Room, tmp_path: Path
) -> None:
    for round_ in (1, 2, 3):
        play_round(room, round_, winner_tricks)
        if round_ < 3:
            move_on(room, round_ + 1)
    ranking = td_page.context.new_page()
    ranking.goto(f"/results/{room.section_id}")
    assert ns_order(ranking)[:2] == [("1NS", "1="), ("2NS", "1=")]
    mark_page(ranking)
    # 1 N/S made 3NT+1 on board 1; the TD rules it 30 % 3NT= and 70 % 3NT-1 (§ X78A1).
    td_page.goto(f"/td/s/{room.section_id}/tables/1/rounds/1/boards/1")
    form = td_page.locator("#weighted-form")
    rows = form.locator("table.parts").first.locator("tr.part")
    for i, (weight, tricks) in enumerate((("30", "="), ("70", "-1"))):
        row = rows.nth(i)
        row.locator('input[name="ns_weight"]').fill(weight)
        row.locator('input[name="ns_contract"]').fill("3NT")
        row.locator('select[name="ns_declarer"]').select_option("N")
        row.locator('input[name="ns_tricks"]').fill(tricks)
    form.locator('input[name="reason"]').fill("Misinformation: 3NT makes 30 % of the time")
    form.locator("button[type=submit]").click()
    expect(td_page.locator(".flash-ok")).to_contain_text("weighted score")
    expect(td_page.locator("#board-state")).to_have_text("Adjusted")
    expect(td_page.locator(".result-text")).to_have_text(
        "Weighted score 30% 3NT N = + 70% 3NT N -1"
    )
    expect(td_page.locator("#trail li").first).to_contain_text("Misinformation")
    save_screen(td_page, tmp_path, "weighted-score.png")
    td_page.locator("#score-card").scroll_into_view_if_needed()
    save_screen(td_page, tmp_path, "weighted-form.png")
    first = ranking.locator(".ranking-group").first.locator("tbody tr").first
    expect(first).to_have_attribute("data-pair", "2NS")
    assert ns_order(ranking)[:2] == [("2NS", "1"), ("1NS", "2")]
    assert same_page(ranking)
    ranking.goto(f"/results/{room.section_id}/boards/1")
    line = ranking.locator('#traveller tr[data-adjusted="weighted"]')
    expect(line).to_contain_text("Weighted score")
    expect(line).to_contain_text("30% ")
    save_screen(ranking, tmp_path, "weighted-traveller.png")


def test_the_pairing_page_shows_a_terminal_offline_with_its_queue(
    td_page: Any, room: Room, live_server: LiveServer, tmp_path: Path
) -> None:
    room.table(1).send({"type": "table_status", "queued": 0})  # heard from just now
    room.table(2).send({"type": "table_status", "queued": 3})
    _last_heard(live_server, room.section_id, table=2, minutes=7)
    td_page.goto(f"/td/s/{room.section_id}/pairing")
    status = td_page.locator('tr[data-table="2"] td.status')
    expect(status).to_have_attribute("data-status", "offline")
    expect(status).to_contain_text("offline with 3 queued")
    expect(status).to_contain_text("last seen")
    expect(td_page.locator('tr[data-table="1"] td.status')).to_have_attribute(
        "data-status", "online"
    )
    save_screen(td_page, tmp_path, "pairing-queued.png")


def _last_heard(server: LiveServer, section_id: int, *, table: int, minutes: int) -> None:
    """Make table ``table``'s terminal last heard of ``minutes`` ago (it has gone offline)."""
    engine = make_engine(f"sqlite:///{server.database}")
    with Session(engine) as session:
        row = session.exec(
            select(BridgeTable).where(
                BridgeTable.section_id == section_id, BridgeTable.number == table
            )
        ).one()
        for token in session.exec(select(TableToken).where(TableToken.table_id == row.id)):
            token.last_seen = utcnow() - timedelta(minutes=minutes)
            session.add(token)
        session.commit()
    engine.dispose()
