"""What a hand-dealt board asks of each table (server/services/keyed_deals.py): "enter" until a
table has keyed its deal, "check" at a later table, nothing at the table that keyed it or once
a later table's deal agreed; the keyed row and its checks as stored (SQLite and PostgreSQL)."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session

from server.services import keyed_deals
from tests.support.api import open_club
from tests.support.deals import DEAL, enter_deal, later, seat_at


def test_a_board_asks_enter_then_check_then_nothing(client: TestClient, engine: Engine) -> None:
    club = open_club(client, engine, tables=3, bpr=2, event={"deal_entry": True})
    club.start_round(1)
    sid = club.section_id
    with Session(engine) as s:
        assert keyed_deals.asks(s, sid, 1, 1, []) == {}
        assert keyed_deals.asks(s, sid, 1, 1, [1, 2]) == {1: "enter", 2: "enter"}
        assert keyed_deals.keyed_deal(s, sid, 1) is None

    assert enter_deal(club.pair(1), 1, DEAL).json()["state"] == "keyed"
    number, round_ = later(engine, 1)
    with Session(engine) as s:
        row = keyed_deals.keyed_deal(s, sid, 1)
        assert row is not None
        assert (row.deal, row.table_number, row.round, row.state) == (DEAL, 1, 1, "keyed")
        assert keyed_deals.checks_of(row) == []
        assert keyed_deals.keyed_here(row, 1, 1)
        assert not keyed_deals.keyed_here(row, number, round_)
        assert keyed_deals.asks(s, sid, 1, 1, [1, 2]) == {1: None, 2: "enter"}
        assert keyed_deals.asks(s, sid, number, round_, [1]) == {1: "check"}

    seat_at(engine, number, round_)
    assert enter_deal(club.pair(number), 1, DEAL).json()["state"] == "confirmed"
    with Session(engine) as s:
        row = keyed_deals.keyed_deal(s, sid, 1)
        assert row is not None
        assert row.state == "confirmed"
        (check,) = keyed_deals.checks_of(row)
        assert (check["table"], check["round"]) == (number, round_)
        assert keyed_deals.asks(s, sid, number, round_, [1]) == {1: None}
