"""The round view of many tables read at once (the TD's round start) is, table by table, the
view each table gets on its own (server/services/views.py round_infos and round_info)."""

from __future__ import annotations

from sqlmodel import Session

from server.core.models import Event
from server.services.event import setup
from server.services.event.setup import tables_of
from server.services.views import round_info, round_infos
from tests.support.api import Club


def _both(club: Club) -> None:
    with Session(club.engine) as s:
        section = setup.get_section(s, club.section_id)
        event = s.get(Event, section.event_id)
        assert event is not None
        tables = tables_of(s, section)
        together = round_infos(s, event, section, tables)
        alone = {t.number: round_info(s, event, section, t) for t in tables}
    assert together == alone
    assert set(together) == {t.number for t in tables}


def test_many_tables_at_once_are_each_table_alone(club: Club) -> None:
    _both(club)  # round 0: nothing seated yet
    club.start_round(1)
    seats = {n: club.pair(n) for n in (1, 2, 3)}
    boards = {n: [b["board"] for b in seat.round()["boards"]] for n, seat in seats.items()}
    for board in boards[1]:  # table 1 completes its round: its pairs' next positions show
        version = seats[1].enter(board, "4S", "S", 10).json()["result"]["version"]
        assert seats[1].confirm(board, version).status_code == 200
    seats[2].enter(boards[2][0], "3NT", "N", 8)  # table 2: one board entered
    _both(club)
    club.start_round(2)
    assert seats[1].send({"type": "next_round"}).status_code == 200  # table 1 moves on
    _both(club)  # tables in rounds 1 and 2 at once
    r = club.td("POST", f"/api/v1/sections/{club.section_id}/rounds/1/close")
    assert r.status_code == 200, r.text
    _both(club)
