"""Hand-record entry at the table (issue 20): the first table keys a hand-dealt board's deal,
a later table checks one hand; agreeing, the board's deal is set (and solved), differing, a
conflict for the TD that nothing overwrites. Refusals, idempotency, the round's asks and the
audit; the HTTP and websocket paths (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from protocol.messages import DealAck, Error, RoundInfo, parse_server_message
from server.core.models import Audit, Board, KeyedDeal, TDCall
from server.services.table import deal_entry
from tests.support.api import Club, Table, new_id, open_club
from tests.support.deals import DEAL, OTHER, enter_deal, later, seat_at

NORTH = "AKQJ.AKQ.AKQ.AKQ"


@pytest.fixture
def deal_club(client: TestClient, engine: Engine) -> Club:
    club = open_club(client, engine, tables=3, bpr=2, event={"deal_entry": True})
    club.start_round(1)
    return club


def check_deal(table: Table, board: int, seat: str, hand: str, entry_id: str | None = None) -> Any:
    command = {"type": "check_deal", "entry_id": entry_id or new_id(), "board": board}
    return table.send({**command, "seat": seat, "hand": hand})


def asks(table: Table) -> dict[int, str | None]:
    return {b["board"]: b["deal"] for b in table.round()["boards"]}


def board_deal(engine: Engine, board: int) -> str | None:
    with Session(engine) as s:
        return s.exec(select(Board.deal).where(Board.number == board)).one()


def keyed(engine: Engine, board: int) -> KeyedDeal | None:
    with Session(engine) as s:
        return s.exec(select(KeyedDeal).where(KeyedDeal.board == board)).first()


def calls(engine: Engine) -> list[TDCall]:
    with Session(engine) as s:
        return list(s.exec(select(TDCall).order_by(col(TDCall.id))).all())


def actions(engine: Engine) -> list[str]:
    with Session(engine) as s:
        return [a.action for a in s.exec(select(Audit).order_by(col(Audit.id))).all()]


# ---------------------------------------------------------------- refusals


BAD_DEALS = [
    # (deal, code, words in the message)
    (
        "N:AKQJT.AKQ.AKQ.AKQ 987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432",
        "hand_size",
        "N has 14",
    ),
    ("N:AKQJ.AKQ.AKQ.AKQ AKQJ.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432", "card_twice", "SA"),
    ("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9", "invalid_deal", "four hands"),
    ("N:AKQJ.AKQ.AKQ.AKX T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432", "invalid_hand", "N"),
    (
        "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.543",
        "hand_size",
        "W has 12",
    ),
]


@pytest.mark.parametrize(("deal", "code", "words"), BAD_DEALS)
def test_a_bad_deal_is_refused_and_nothing_is_stored(
    deal_club: Club, deal: str, code: str, words: str
) -> None:
    table = deal_club.pair(1)
    r = enter_deal(table, 1, deal)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == code
    assert words in r.json()["message"]
    assert keyed(deal_club.engine, 1) is None
    assert "deal_keyed" not in actions(deal_club.engine)


def test_deals_are_refused_when_the_event_does_not_take_them(
    client: TestClient, engine: Engine
) -> None:
    club = open_club(client, engine, tables=3, bpr=2)
    club.start_round(1)
    table = club.pair(1)
    r = enter_deal(table, 1, DEAL)
    assert (r.status_code, r.json()["code"]) == (409, "deal_entry_off")
    r = check_deal(table, 1, "N", NORTH)
    assert (r.status_code, r.json()["code"]) == (409, "deal_entry_off")
    assert all(b["deal"] is None for b in table.round()["boards"])


def test_a_board_with_a_hand_record_or_not_at_this_table_is_refused(deal_club: Club) -> None:
    table = deal_club.pair(1)
    with Session(deal_club.engine) as s:
        row = s.exec(select(Board).where(Board.number == 2)).one()
        row.deal = DEAL
        s.add(row)
        s.commit()
    r = enter_deal(table, 2, DEAL)
    assert (r.status_code, r.json()["code"]) == (409, "deal_known")
    assert asks(table) == {1: "enter", 2: None}
    r = enter_deal(table, 3, DEAL)  # board 3 is played at table 2 in round 1
    assert (r.status_code, r.json()["code"]) == (409, "board_not_in_round")
    r = check_deal(table, 1, "N", NORTH)
    assert (r.status_code, r.json()["code"]) == (409, "deal_not_keyed")
    r = check_deal(table, 1, "N", "AKQJ.AKQ.AKQ.AK")
    assert (r.status_code, r.json()["code"]) == (422, "hand_size")


# ---------------------------------------------------------------- keyed, then checked


def test_keyed_then_checked_sets_the_boards_deal(deal_club: Club) -> None:
    first = deal_club.pair(1)
    assert asks(first)[1] == "enter"
    entry = new_id()
    r = enter_deal(first, 1, DEAL, entry)
    assert r.status_code == 200, r.text
    assert r.json() == {"v": 1, "type": "deal_ack", "board": 1, "state": "keyed", "differences": []}
    assert asks(first)[1] is None  # the table that keyed it checks nothing
    assert board_deal(deal_club.engine, 1) is None  # not the hand record until checked
    again = enter_deal(first, 1, DEAL, entry)  # a resend: the same answer, nothing new
    assert again.json() == r.json()
    reused = enter_deal(first, 1, OTHER, entry)
    assert (reused.status_code, reused.json()["code"]) == (409, "entry_id_reused")
    r = enter_deal(first, 1, DEAL)  # the same table again, with a new id
    assert (r.status_code, r.json()["code"]) == (409, "deal_keyed_here")
    r = check_deal(first, 1, "N", NORTH)
    assert (r.status_code, r.json()["code"]) == (409, "deal_keyed_here")

    number, round_ = later(deal_club.engine, 1)
    seat_at(deal_club.engine, number, round_)
    second = deal_club.pair(number)
    assert asks(second)[1] == "check"
    check_id = new_id()
    r = check_deal(second, 1, "N", NORTH, check_id)
    assert r.status_code == 200, r.text
    assert (r.json()["state"], r.json()["differences"]) == ("confirmed", [])
    assert board_deal(deal_club.engine, 1) == DEAL
    assert asks(second)[1] is None
    assert check_deal(second, 1, "N", NORTH, check_id).json() == r.json()  # resend
    r = check_deal(second, 1, "N", NORTH)  # the deal is the hand record now
    assert (r.status_code, r.json()["code"]) == (409, "deal_known")
    trail = actions(deal_club.engine)
    assert [a for a in trail if a.startswith("deal_")] == ["deal_keyed", "deal_checked", "deal_set"]
    assert calls(deal_club.engine) == []
    with Session(deal_club.engine) as s:
        row = s.exec(select(Audit).where(Audit.action == "deal_set")).one()
    assert json.loads(row.new or "{}")["deal"] == DEAL


def test_a_second_full_deal_that_agrees_counts_as_a_check(deal_club: Club) -> None:
    assert enter_deal(deal_club.pair(1), 1, DEAL).json()["state"] == "keyed"
    number, round_ = later(deal_club.engine, 1)
    seat_at(deal_club.engine, number, round_)
    # the same deal written from East: it is the same deal
    east_first = "E:T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432 AKQJ.AKQ.AKQ.AKQ"
    r = enter_deal(deal_club.pair(number), 1, east_first)
    assert r.status_code == 200, r.text
    assert r.json()["state"] == "confirmed"
    assert board_deal(deal_club.engine, 1) == DEAL


def test_a_hand_that_differs_is_a_conflict_for_the_td(deal_club: Club) -> None:
    assert enter_deal(deal_club.pair(1), 1, DEAL).json()["state"] == "keyed"
    number, round_ = later(deal_club.engine, 1)
    seat_at(deal_club.engine, number, round_)
    second = deal_club.pair(number)
    r = check_deal(second, 1, "N", "AKQT.AKQ.AKQ.AKQ")
    assert r.status_code == 200, r.text
    assert r.json()["state"] == "conflict"
    assert r.json()["differences"] == []  # not played here yet: "differs", and no card
    row = keyed(deal_club.engine, 1)
    assert row is not None
    assert json.loads(row.checks)[0]["differences"] == ["SJ missing", "ST extra"]  # the TD's
    assert board_deal(deal_club.engine, 1) is None  # nothing overwritten
    row = keyed(deal_club.engine, 1)
    assert row is not None
    assert (row.deal, row.state) == (DEAL, "conflict")
    reasons = [c.reason for c in calls(deal_club.engine)]
    assert reasons == [deal_entry.conflict_call_reason(1)]
    assert asks(second)[1] is None  # the TD decides now
    # another full deal while the conflict stands: recorded, still the TD's
    r = enter_deal(second, 1, OTHER)
    assert r.json()["state"] == "conflict"
    reasons = [c.reason for c in calls(deal_club.engine)]
    assert reasons.count(deal_entry.conflict_call_reason(1)) == 1  # one call for the conflict


def play_here(table: Table, board: int) -> None:
    """The table plays the board: North enters 4♠ by South making 10, East confirms."""
    r = table.enter(board, "4S", "S", 10)
    assert r.status_code == 200, r.text
    r = table.confirm(board, r.json()["result"]["version"])
    assert r.status_code == 200, r.text


def test_once_played_here_the_table_is_told_the_cards_of_its_hand_that_differ(
    deal_club: Club,
) -> None:
    assert enter_deal(deal_club.pair(1), 1, DEAL).json()["state"] == "keyed"
    number, round_ = later(deal_club.engine, 1)
    seat_at(deal_club.engine, number, round_)
    second = deal_club.pair(number)
    play_here(second, 1)
    r = check_deal(second, 1, "N", "AKQT.AKQ.AKQ.AKQ")
    assert r.status_code == 200, r.text
    # the ten the table keyed is elsewhere in the deal keyed first; the jack it did not key
    # (another hand's card there) is not named
    assert (r.json()["state"], r.json()["differences"]) == ("conflict", ["ST extra"])


def test_checks_are_capped_audited_and_a_second_difference_is_flagged_as_a_probe(
    deal_club: Club,
) -> None:
    assert enter_deal(deal_club.pair(1), 1, DEAL).json()["state"] == "keyed"
    number, round_ = later(deal_club.engine, 1)
    seat_at(deal_club.engine, number, round_)
    second = deal_club.pair(number)
    first = check_deal(second, 1, "N", "AKQT.AKQ.AKQ.AKQ")
    assert (first.json()["state"], first.json()["differences"]) == ("conflict", [])
    assert [c.reason for c in calls(deal_club.engine)] == [deal_entry.conflict_call_reason(1)]
    again = check_deal(second, 1, "E", "J987.JT9.JT9.JT9")
    assert (again.json()["state"], again.json()["differences"]) == ("conflict", [])
    assert [c.reason for c in calls(deal_club.engine)] == [
        deal_entry.conflict_call_reason(1),
        deal_entry.probe_call_reason(1, number),
    ]
    third_id = new_id()
    third = check_deal(second, 1, "W", "2.5432.5432.5432", third_id)
    assert (third.status_code, third.json()["code"]) == (409, "deal_checks_used")
    assert "2.5432" not in third.text
    # a resend of the refused check is refused again; a whole deal counts as a check too
    assert check_deal(second, 1, "W", "2.5432.5432.5432", third_id).json()["code"] == (
        "deal_checks_used"
    )
    assert enter_deal(second, 1, DEAL).json()["code"] == "deal_checks_used"
    trail = actions(deal_club.engine)
    assert [a for a in trail if a.startswith("deal_")] == [
        "deal_keyed",
        "deal_checked",
        "deal_checked",
        deal_entry.DEAL_PROBE,
        deal_entry.DEAL_CHECK_REFUSED,
        deal_entry.DEAL_CHECK_REFUSED,
        deal_entry.DEAL_CHECK_REFUSED,
    ]
    row = keyed(deal_club.engine, 1)
    assert row is not None
    assert [c["seat"] for c in json.loads(row.checks)] == ["N", "E"]  # the TD sees both
    assert (row.deal, row.state) == (DEAL, "conflict")


def test_the_td_settles_a_conflict_audited(deal_club: Club, engine: Engine) -> None:
    assert enter_deal(deal_club.pair(1), 1, DEAL).json()["state"] == "keyed"
    number, round_ = later(deal_club.engine, 1)
    seat_at(deal_club.engine, number, round_)
    other = new_id()
    assert enter_deal(deal_club.pair(number), 1, OTHER, other).json()["state"] == "conflict"
    with Session(engine) as s:
        found = deal_entry.keyed_deals(s, deal_club.section_id)
    assert [(d.board, d.state) for d in found] == [(1, "conflict")]
    assert [c["entry_id"] for c in found[0].deals_to_take] == [other]

    with Session(engine) as s, pytest.raises(deal_entry.InvalidError) as caught:
        deal_entry.resolve(s, deal_club.section_id, 1, choice="keyed", reason=" ")
    assert caught.value.code == "reason_required"
    with Session(engine) as s:
        chosen = deal_entry.resolve(
            s, deal_club.section_id, 1, choice="check", entry_id=other, reason="checked the board"
        )
        s.commit()
    assert chosen == OTHER
    assert board_deal(engine, 1) == OTHER
    assert all(c.acknowledged_at is not None for c in calls(engine))
    row = keyed(engine, 1)
    assert row is not None
    assert row.state == "confirmed"
    with Session(engine) as s:
        audit_row = s.exec(select(Audit).where(Audit.action == "deal_resolved")).one()
    assert audit_row.reason == "checked the board"
    assert json.loads(audit_row.old or "{}") == {"state": "conflict", "deal": DEAL}
    with Session(engine) as s, pytest.raises(deal_entry.ConflictError):
        deal_entry.resolve(s, deal_club.section_id, 1, choice="keyed", reason="again")


def test_the_td_keys_the_deal_and_a_bad_one_is_refused(deal_club: Club, engine: Engine) -> None:
    assert enter_deal(deal_club.pair(1), 1, DEAL).json()["state"] == "keyed"
    number, round_ = later(deal_club.engine, 1)
    seat_at(deal_club.engine, number, round_)
    assert check_deal(deal_club.pair(number), 1, "E", "T987.JT9.JT9.JT8").json()["state"] == (
        "conflict"
    )
    with Session(engine) as s, pytest.raises(deal_entry.InvalidError) as caught:
        deal_entry.resolve(s, deal_club.section_id, 1, choice="deal", deal="N:AKQ", reason="x")
    assert caught.value.code == "invalid_deal"
    with Session(engine) as s, pytest.raises(deal_entry.InvalidError) as caught:
        deal_entry.resolve(s, deal_club.section_id, 1, choice="check", entry_id="nope", reason="x")
    assert caught.value.code == "no_such_check"
    assert board_deal(engine, 1) is None
    with Session(engine) as s:
        deal_entry.resolve(s, deal_club.section_id, 1, choice="deal", deal=OTHER, reason="keyed")
        s.commit()
    assert board_deal(engine, 1) == OTHER


def test_the_keyed_deal_is_never_sent_to_a_table(deal_club: Club) -> None:
    """No reply to any table carries the keyed deal or another hand of it."""
    first = deal_club.pair(1)
    r = enter_deal(first, 1, DEAL)
    number, round_ = later(deal_club.engine, 1)
    seat_at(deal_club.engine, number, round_)
    second = deal_club.pair(number)
    replies = [
        r.text,
        json.dumps(first.round()),
        json.dumps(second.round()),
        check_deal(second, 1, "E", "T987.JT9.JT9.JT8").text,
        second.send({"type": "get_table_settings"}).text,
        second.send({"type": "get_board_report", "board": 1}).text,
    ]
    for text in replies:
        for hand in DEAL[2:].split():
            assert hand not in text, text


# ---------------------------------------------------------------- the websocket


def test_deal_commands_over_the_websocket(deal_club: Club) -> None:
    table = deal_club.pair(1)
    with deal_club.client.websocket_connect("/api/v1/table/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": table.token}))
        hello = parse_server_message(ws.receive_text())
        assert isinstance(hello, RoundInfo)
        assert [b.deal for b in hello.boards] == ["enter", "enter"]
        ws.send_json({"type": "enter_deal", "entry_id": new_id(), "board": 1, "deal": DEAL})
        ack = parse_server_message(ws.receive_text())
        assert isinstance(ack, DealAck)
        assert (ack.board, ack.state) == (1, "keyed")
        ws.send_json(
            {
                "type": "enter_deal",
                "entry_id": new_id(),
                "board": 2,
                "deal": BAD_DEALS[0][0],  # North with 14 cards
            }
        )
        refused = parse_server_message(ws.receive_text())
        assert isinstance(refused, Error)
        assert refused.code == "hand_size"
    assert keyed(deal_club.engine, 2) is None


def test_a_refusal_of_a_deal_in_the_clubs_language(client: TestClient, engine: Engine) -> None:
    club = open_club(client, engine, tables=3, bpr=2, event={"deal_entry": True, "language": "da"})
    club.start_round(1)
    r = enter_deal(club.pair(1), 1, BAD_DEALS[0][0])
    assert r.status_code == 422
    assert r.json()["message"] == "Spil 1: N har 14 kort; en hånd har 13."
