"""The terminal's extras on the server: membership numbers, hand-record checks and the TD code
for "not played" (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from server.core.models import Audit, Pair, Result
from server.io.handrecords import solver_available
from server.limits import guesses
from server.services import hands
from server.services.event.members import import_members
from tests.support.api import Club, Table, new_id, open_club
from tests.support.deals import put_deal

# N holds the top spades, W the top hearts: 4♠ by South is led by West.
DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"


def set_players(table: Table, seat: str, *players: dict[str, str]) -> Any:
    return table.send(
        {"type": "set_players", "entry_id": new_id(), "seat": seat, "players": list(players)}
    )


def with_members(engine: Engine) -> None:
    with Session(engine) as s:
        import_members(s, "number,name\n1001,Anna Berg\n1002,Carl Dahl\n")
        s.commit()


def test_players_key_membership_numbers_and_a_visitor(client: TestClient, engine: Engine) -> None:
    club = open_club(client, engine, event={"player_numbers": "first_round"})
    with_members(engine)
    club.start_round(1)
    t1 = club.pair(1)
    found = t1.send({"type": "lookup_member", "number": "1001"}).json()
    assert found == {"v": 1, "type": "member_found", "number": "1001", "name": "Anna Berg"}
    unknown = t1.send({"type": "lookup_member", "number": "4711"})
    assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_member")
    r = set_players(t1, "NS", {"member": "1001"}, {"name": "Vera Visitor"})
    assert r.status_code == 200, r.text
    info = r.json()
    assert info["type"] == "round_info"
    assert info["ns"]["names"] == ["Anna Berg", "Vera Visitor"]
    with Session(engine) as s:
        pair = s.exec(select(Pair).where(Pair.number == 1, Pair.direction == "NS")).one()
        assert (pair.member1, pair.member2) == ("1001", None)
        named = select(Audit).where(Audit.action == "pair_names").order_by(col(Audit.id))
        audit = s.exec(named).all()[-1]
    assert audit.actor == "table 1 N/S"
    assert json.loads(audit.new or "{}")["member1"] == "1001"
    # A number nobody has is refused; nothing changes.
    refused = set_players(t1, "EW", {"member": "9999"}, {})
    assert refused.json()["code"] == "unknown_member"


def test_player_numbers_follow_the_event_setting(client: TestClient, engine: Engine) -> None:
    club = open_club(client, engine, tables=3, bpr=1)
    with_members(engine)
    club.start_round(1)
    t1 = club.pair(1)
    off = t1.send({"type": "lookup_member", "number": "1001"})
    assert (off.status_code, off.json()["code"]) == (403, "player_numbers_off")
    club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"player_numbers": "first_round"})
    assert set_players(t1, "EW", {"member": "1002"}, {}).status_code == 200
    r = t1.enter(1, "3NT", "N", 9)
    t1.confirm(1, r.json()["result"]["version"])
    club.start_round(2)
    t1.send({"type": "next_round"})
    later = t1.send({"type": "lookup_member", "number": "1001"})
    assert later.json()["code"] == "player_numbers_round_one"
    club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"player_numbers": "every_round"})
    assert t1.send({"type": "lookup_member", "number": "1001"}).status_code == 200


def test_the_lead_must_be_in_the_leaders_hand(club: Club) -> None:
    club.start_round(1)
    put_deal(club.engine, 1, DEAL)
    t1 = club.pair(1)
    values = {"lead": "SA"}  # North's card, but West leads against South
    refused = t1.enter(1, "4S", "S", 10, values=values)
    assert refused.status_code == 422
    assert refused.json()["code"] == "lead_not_in_hand"
    assert "♠A is not in West's hand" in refused.json()["message"]
    # The query never looks at the cards (H1): only the entry itself is checked.
    check = t1.send(
        {
            "type": "check_entry",
            "board": 1,
            "values": {**values, "contract": "4S", "declarer": "S", "tricks": 10},
        }
    )
    assert check.json() == {"v": 1, "type": "entry_checked", "board": 1, "warning": None}
    ok = t1.enter(1, "4S", "S", 10, values={"lead": "HA"})
    assert ok.status_code == 200, ok.text
    # A correction is checked the same way.
    again = t1.send(
        {
            "type": "correct_result",
            "entry_id": new_id(),
            "board": 1,
            "version": ok.json()["result"]["version"],
            "values": {"contract": "4S", "declarer": "S", "tricks": 10, "lead": "SK"},
        }
    )
    assert again.json()["code"] == "lead_not_in_hand"
    # A board without a deal takes any lead.
    assert t1.enter(2, "4S", "S", 10, values={"lead": "SA"}).status_code == 200


@pytest.mark.skipif(not solver_available(), reason="endplay (extra handrecords) not installed")
def test_tricks_far_from_double_dummy_ask_are_you_sure(club: Club) -> None:
    club.start_round(1)
    for board in (1, 2, 3):
        put_deal(club.engine, board, DEAL)
    t1 = club.pair(1)

    def warned(board: int, tricks: int) -> Any:
        reply = t1.enter(board, "4S", "N", tricks)
        assert reply.status_code == 200, reply.text
        return reply.json()["warning"]

    hands._dd_cached.cache_clear()
    # An entry never waits for the solver (it holds the table's lock): the round's deals are
    # solved in the background beforehand; here at once, so that the first entry has it.
    assert hands.dd_tricks(DEAL) is not None
    assert warned(1, 7) is None  # double dummy: seven tricks in spades for N/S
    assert warned(2, 10) is None  # three away: no question
    warning = warned(3, 11)
    assert isinstance(warning, str)
    assert "Check the declarer and the tricks" in warning
    assert "7" not in warning  # never the number
    assert hands._dd_cached.cache_info().misses == 1  # solved once, then cached


def test_without_the_solver_the_check_is_skipped(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    club.start_round(1)
    put_deal(club.engine, 1, DEAL)
    monkeypatch.setattr(hands.handrecords, "solver_available", lambda: False)
    t1 = club.pair(1)
    reply = t1.enter(1, "4S", "N", 13)
    assert reply.status_code == 200, reply.text
    assert reply.json()["warning"] is None


def test_not_played_needs_the_td_code(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    code = club.section["td_code"]
    wrong = "0000" if code != "0000" else "1111"

    def mark(td_code: str) -> Any:
        return t1.send(
            {"type": "mark_not_played", "entry_id": new_id(), "board": 2, "td_code": td_code}
        )

    refused = mark(wrong)
    assert (refused.status_code, refused.json()["code"]) == (403, "td_code_wrong")
    done = mark(code)
    assert done.status_code == 200, done.text
    assert done.json()["result"]["state"] == "not_played"
    with Session(club.engine) as s:
        result = s.exec(select(Result).where(Result.board == 2)).one()
        assert result.state == "not_played"
        audit = s.exec(select(Audit).where(Audit.result_id == result.id)).all()
    assert [(a.actor, a.action) for a in audit] == [("TD at table 1", "td_not_played")]
    # The board counts as done for the round gate.
    assert next(b for b in t1.round()["boards"] if b["board"] == 2)["state"] == "not_played"


def test_wrong_td_codes_lock_the_terminal_out(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    code = club.section["td_code"]
    wrong = "0000" if code != "0000" else "1111"
    codes = []
    for _ in range(guesses.TD_CODE.limit + 1):
        r = t1.send({"type": "mark_not_played", "entry_id": new_id(), "board": 1, "td_code": wrong})
        codes.append(r.json()["code"])
    assert codes[-2:] == ["td_code_wrong", "td_code_locked"]
    right = t1.send({"type": "mark_not_played", "entry_id": new_id(), "board": 1, "td_code": code})
    assert right.json()["code"] == "td_code_locked"
