"""Auction entry at the table (issue 20): the event's setting, the calls checked by Laws 18-19
and 22 with their reason codes, the contract agreeing with the auction, the auction stored with
the result, covered by East's confirmation and audited (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from protocol.messages import EntryValues
from server.core.errors import InvalidError
from server.core.models import Audit, Result
from server.services.entries import check_values
from tests.support.api import Club, new_id, open_club


def entry(
    contract: str, declarer: str | None, tricks: int | str, auction: str | None
) -> EntryValues:
    return EntryValues(contract=contract, declarer=declarer, tricks=tricks, auction=auction)


# ---------------------------------------------------------------- the rules, table-driven

REFUSED = [
    # (board, auction, code): board 1 North deals, board 2 East, board 3 South
    (1, "1NT 1C", "insufficient_bid"),
    (1, "1H P 1D", "insufficient_bid"),
    (1, "1H P X", "double_own_side"),
    (1, "1H X P X", "double_twice"),
    (1, "X", "no_bid"),
    (1, "1H P P XX", "redouble_without_double"),
    (1, "1H X XX XX", "redouble_without_double"),
    (1, "1H X P XX", "redouble_opponents"),
    (1, "1H P P P P", "auction_ended"),
    (1, "P P P P 1C", "auction_ended"),
    (1, "1H P 9C", "invalid_call"),
    (1, "1H P P", "auction_open"),
    (1, "   ", None),  # blank: no auction keyed (the setting is "optional")
]


@pytest.mark.parametrize(("board", "auction", "code"), REFUSED)
def test_an_illegal_auction_is_refused_with_its_reason(
    board: int, auction: str, code: str | None
) -> None:
    values = entry("1H", "N", 7, auction)
    if code is None:
        assert check_values(board, values, False, auction_entry="optional").auction is None
        return
    with pytest.raises(InvalidError) as caught:
        check_values(board, values, False, auction_entry="optional")
    assert caught.value.code == code


AGREED = [
    # (board, auction, contract, declarer, stored auction)
    (1, "1C 1NT! P 3NT P P P", "3NT", "E", "1C 1NT! P 3NT P P P"),
    # South opened 1H, North raised: South, the first of N/S to name hearts, declares (Law 22B)
    (3, "1h p 4h x p p xx p p p", "4HXX", "S", "1H P 4H X P P XX P P P"),
    (2, "1S 2H 2S X P P P", "2SX", "E", "1S 2H 2S X P P P"),  # East deals on board 2
    (4, "P P P P", "PASS", None, "P P P P"),
    # East raised West's hearts: West, who named them first, declares
    (1, "P 1D P 1H P 2H P P P", "2H", "W", "P 1D P 1H P 2H P P P"),
]


@pytest.mark.parametrize(("board", "auction", "contract", "declarer", "stored"), AGREED)
def test_the_contract_and_declarer_agree_with_the_auction(
    board: int, auction: str, contract: str, declarer: str | None, stored: str
) -> None:
    tricks = 0 if contract == "PASS" else 9
    checked = check_values(
        board, entry(contract, declarer, tricks, auction), False, auction_entry="required"
    )
    assert (checked.contract, checked.declarer, checked.auction) == (contract, declarer, stored)


@pytest.mark.parametrize(
    ("contract", "declarer"),
    [("3NT", "W"), ("4S", "E"), ("3NTX", "E"), ("PASS", None)],
)
def test_a_contract_that_disagrees_with_the_auction_is_refused(
    contract: str, declarer: str | None
) -> None:
    values = entry(contract, declarer, 0 if contract == "PASS" else 9, "1C 1NT P 3NT P P P")
    with pytest.raises(InvalidError) as caught:
        check_values(1, values, False, auction_entry="optional")
    assert caught.value.code == "auction_disagrees"


def test_the_declarer_left_out_follows_from_the_auction() -> None:
    checked = check_values(
        1, entry("3NT", None, 9, "1C 1NT P 3NT P P P"), False, auction_entry="optional"
    )
    assert checked.declarer == "E"


def test_the_dealer_of_the_board_row_comes_first() -> None:
    # North bids 1C first when North deals; with West dealing, that first 1C is West's.
    values = entry("1C", "W", 7, "1C P P P")
    assert (
        check_values(1, values, False, auction_entry="optional", board_dealer="W").declarer == "W"
    )
    with pytest.raises(InvalidError) as caught:
        check_values(1, values, False, auction_entry="optional")
    assert caught.value.code == "auction_disagrees"


def test_the_setting_off_and_required() -> None:
    with pytest.raises(InvalidError) as caught:
        check_values(1, entry("1C", "N", 7, "1C P P P"), False, auction_entry="off")
    assert caught.value.code == "auction_not_taken"
    with pytest.raises(InvalidError) as caught:
        check_values(1, entry("1C", "N", 7, None), False, auction_entry="required")
    assert caught.value.code == "auction_required"
    assert (
        check_values(1, entry("1C", "N", 7, None), False, auction_entry="optional").auction is None
    )


# ---------------------------------------------------------------- through the table API


def send_entry(table: Any, board: int, values: dict[str, Any], **extra: Any) -> Any:
    kind = "correct_result" if "version" in extra else "enter_result"
    command = {"type": kind, "entry_id": new_id(), "board": board, "values": values, **extra}
    return table.send(command)


@pytest.fixture
def auction_club(client: TestClient, engine: Engine) -> Club:
    return open_club(client, engine, tables=3, bpr=2, event={"auction_entry": "required"})


def stored(engine: Engine, board: int) -> Result | None:
    with Session(engine) as s:
        return s.exec(select(Result).where(Result.board == board, Result.table_number == 1)).first()


def test_the_event_setting_is_kept_and_changed(auction_club: Club) -> None:
    r = auction_club.td("GET", f"/api/v1/events/{auction_club.event_id}")
    assert r.json()["auction_entry"] == "required"
    r = auction_club.td(
        "PATCH", f"/api/v1/events/{auction_club.event_id}", json={"auction_entry": "sometimes"}
    )
    assert r.status_code == 422
    r = auction_club.td(
        "PATCH", f"/api/v1/events/{auction_club.event_id}", json={"auction_entry": "optional"}
    )
    assert r.status_code == 200
    assert r.json()["auction_entry"] == "optional"


def test_the_terminal_reads_the_setting_with_the_table_settings(auction_club: Club) -> None:
    table = auction_club.pair(1)
    r = table.send({"type": "get_table_settings"})
    assert r.status_code == 200, r.text
    assert r.json()["auction_entry"] == "required"
    auction_club.td(
        "PATCH", f"/api/v1/events/{auction_club.event_id}", json={"auction_entry": "off"}
    )
    assert table.send({"type": "get_table_settings"}).json()["auction_entry"] == "off"


def test_an_auction_is_refused_stored_confirmed_and_audited(auction_club: Club) -> None:
    table = auction_club.pair(1)
    auction_club.start_round(1)
    board = table.round()["boards"][0]["board"]
    plain = {"contract": "3NT", "declarer": "E", "tricks": 9}

    r = send_entry(table, board, plain)
    assert r.status_code == 422
    assert r.json()["code"] == "auction_required"
    r = send_entry(table, board, {**plain, "auction": "1C 1NT P 1D P P P"})
    assert r.status_code == 422
    assert r.json()["code"] == "insufficient_bid"
    r = send_entry(table, board, {**plain, "declarer": "W", "auction": "1C 1NT P 3NT P P P"})
    assert r.status_code == 422
    assert r.json()["code"] == "auction_disagrees"
    assert stored(auction_club.engine, board) is None  # nothing stored by a refusal

    # board 1 is dealt by North (a 3-table Mitchell plays boards 1-2 at table 1 in round 1)
    calls = "1C 1NT! P 3NT P P P" if board % 4 == 1 else None
    assert calls is not None, f"expected board 1 at table 1, got {board}"
    r = send_entry(table, board, {**plain, "auction": calls})
    assert r.status_code == 200, r.text
    view = r.json()["result"]
    assert view["auction"] == calls
    assert view["contract"] == "3NT"
    assert view["declarer"] == "E"

    r = table.confirm(board, view["version"])
    assert r.status_code == 200, r.text
    assert r.json()["result"]["state"] == "confirmed"
    assert r.json()["result"]["auction"] == calls

    # North corrects it with another auction: a new confirmation is needed, the change audited
    r = send_entry(
        table,
        board,
        {"contract": "4S", "declarer": "W", "tricks": 10, "auction": "1C 1S P 4S P P P"},
        version=2,
    )
    assert r.status_code == 422
    assert r.json()["code"] == "auction_disagrees"
    r = send_entry(
        table,
        board,
        {"contract": "4S", "declarer": "E", "tricks": 10, "auction": "1C 1S P 4S P P P"},
        version=2,
    )
    assert r.status_code == 200, r.text
    assert r.json()["result"]["state"] == "entered"
    row = stored(auction_club.engine, board)
    assert row is not None
    assert row.auction == "1C 1S P 4S P P P"
    with Session(auction_club.engine) as s:
        trail = s.exec(
            select(Audit).where(Audit.result_id == row.id).order_by(Audit.id)  # type: ignore[arg-type]
        ).all()
    actions = [a.action for a in trail]
    assert actions[-3:] == ["entered", "confirmed", "corrected"]
    assert '"auction": "1C 1NT! P 3NT P P P"' in (trail[-1].old or "")
    assert '"auction": "1C 1S P 4S P P P"' in (trail[-1].new or "")


def test_a_refusal_of_a_call_in_the_clubs_language(client: TestClient, engine: Engine) -> None:
    club = open_club(
        client, engine, tables=3, bpr=2, event={"auction_entry": "optional", "language": "da"}
    )
    table = club.pair(1)
    club.start_round(1)
    board = table.round()["boards"][0]["board"]
    values = {"contract": "1H", "declarer": "N", "tricks": 7, "auction": "1H P X"}
    r = send_entry(table, board, values)
    assert r.status_code == 422
    assert r.json()["code"] == "double_own_side"
    assert "må ikke doble egen sides 1H" in r.json()["message"]
    r = send_entry(table, board, {"contract": "1H", "declarer": "N", "tricks": 7})
    assert r.status_code == 200, r.text  # optional: no auction is fine
    assert r.json()["result"]["auction"] is None
