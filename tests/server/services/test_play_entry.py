"""Play entry at the table (issue 20): the cards replayed against the deal with the reason of a
refusal, the play ending, tricks keyed and played differing calling the TD, the play stored,
shown, audited and idempotent; and the contract left out when an auction is keyed (Law 22).
SQLite and PostgreSQL through the table API."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from protocol.messages import EntryValues
from server.core.errors import InvalidError
from server.core.models import Audit, Board, Result, TDCall
from server.services.entries import check_values, value_columns
from tests.support.api import Club, new_id, open_club

# North holds the top cards: 7NT by North makes all 13 (East leads).
DEAL = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"
#: Trick 1: East leads ST, South S6, West S2, North SA (North wins).
TRICK_1 = "ST S6 S2 SA"


def grand(play: str | None, tricks: int = 13, contract: str = "7NT") -> EntryValues:
    return EntryValues(contract=contract, declarer="N", tricks=tricks, play=play)


def full_play() -> str:
    """All 13 tricks of 7NT by North, played out: North cashes its suits from the top."""
    east = ["ST", "S9", "S8", "S7", "HJ", "HT", "H9", "DJ", "DT", "D9", "CJ", "CT", "C9"]
    south = ["S6", "S5", "S4", "S3", "H8", "H7", "H6", "D8", "D7", "D6", "C8", "C7", "C6"]
    west = ["S2", "H5", "H4", "H3", "H2", "D5", "D4", "D3", "D2", "C5", "C4", "C3", "C2"]
    north = ["SA", "SK", "SQ", "SJ", "HA", "HK", "HQ", "DA", "DK", "DQ", "CA", "CK", "CQ"]
    cards = []
    for index in range(13):
        if index == 0:  # East leads the first trick
            cards += [east[0], south[0], west[0], north[0]]
        else:  # North, who wins every trick, leads the rest
            cards += [north[index], east[index], south[index], west[index]]
    return " ".join(cards)


# ---------------------------------------------------------------- the rules, table-driven

REFUSED = [
    # (play, deal known, code)
    ("SA S6 S2 SK", True, "card_not_in_hand"),  # East has no ace of spades
    ("ST H8 S2 SA", True, "revoke"),  # South holds spades
    ("ST ST", False, "card_played_twice"),
    (f"{TRICK_1} =0", True, "bad_claim"),  # North has one trick already
    (f"{TRICK_1} =14", True, "bad_claim"),
    ("ST =13 S6", True, "claim_not_last"),
    (f"{TRICK_1} =x", True, "bad_claim"),
    (TRICK_1, True, "play_open"),  # neither 13 tricks nor a claim
    ("ST S6 ZZ", True, "invalid_card"),
    (f"{full_play()} SA", True, "play_ended"),
]


@pytest.mark.parametrize(("play", "known", "code"), REFUSED)
def test_a_play_the_rules_refuse_is_refused_with_its_reason(
    play: str, known: bool, code: str
) -> None:
    with pytest.raises(InvalidError) as caught:
        check_values(1, grand(play), False, play_entry="optional", deal=DEAL if known else None)
    assert caught.value.code == code
    assert "Board 1" in caught.value.message


def test_the_refusal_names_the_card() -> None:
    with pytest.raises(InvalidError) as caught:
        check_values(1, grand("SA S6 S2 SK"), False, play_entry="optional", deal=DEAL)
    assert "SA" in caught.value.message
    with pytest.raises(InvalidError) as caught:
        check_values(1, grand("ST H8 S2 SA"), False, play_entry="optional", deal=DEAL)
    assert "H8" in caught.value.message


def test_without_the_deal_a_card_of_another_suit_is_taken() -> None:
    checked = check_values(1, grand("ST H8 S2 SA =13"), False, play_entry="optional")
    assert checked.play == "ST H8 S2 SA =13"


def test_a_play_played_out_and_a_claim_are_taken_with_the_tricks_played() -> None:
    played = check_values(1, grand(full_play()), False, play_entry="optional", deal=DEAL)
    assert played.play == full_play()
    assert (played.play_tricks, played.play_differs) == (13, False)
    claimed = check_values(
        1, grand(f"{TRICK_1.lower()}  =13"), False, play_entry="optional", deal=DEAL
    )
    assert claimed.play == f"{TRICK_1} =13"  # canonical, as format_play writes it
    assert value_columns(claimed)["play"] == f"{TRICK_1} =13"


def test_tricks_keyed_that_differ_from_the_play_are_flagged() -> None:
    checked = check_values(1, grand(f"{TRICK_1} =13", tricks=12), False, play_entry="optional")
    assert (checked.tricks, checked.play_tricks, checked.play_differs) == (12, 13, True)


def test_the_play_off_and_a_passed_out_board() -> None:
    with pytest.raises(InvalidError) as caught:
        check_values(1, grand(f"{TRICK_1} =13"), False, play_entry="off")
    assert caught.value.code == "play_not_taken"
    passed = EntryValues(contract="PASS", declarer=None, tricks=0, play="ST S6 S2 SA =1")
    with pytest.raises(InvalidError) as caught:
        check_values(1, passed, False, play_entry="optional")
    assert caught.value.code == "play_passed_out"
    assert check_values(1, grand("  "), False, play_entry="optional").play is None


# ---------------------------------------------------------------- the contract from the auction


def test_the_contract_left_out_follows_from_the_auction() -> None:
    values = EntryValues(contract="", declarer=None, tricks=9, auction="1C 1NT P 3NT P P P")
    checked = check_values(1, values, False, auction_entry="optional")
    assert (checked.contract, checked.declarer, checked.ns_score) == ("3NT", "E", -400)
    passed = EntryValues(contract="", tricks=0, auction="P P P P")
    assert check_values(1, passed, False, auction_entry="optional").contract == "PASS"


def test_the_contract_left_out_with_a_declarer_that_disagrees_is_refused() -> None:
    values = EntryValues(contract="", declarer="W", tricks=9, auction="1C 1NT P 3NT P P P")
    with pytest.raises(InvalidError) as caught:
        check_values(1, values, False, auction_entry="optional")
    assert caught.value.code == "auction_disagrees"
    same = EntryValues(contract="", declarer="E", tricks=9, auction="1C 1NT P 3NT P P P")
    assert check_values(1, same, False, auction_entry="optional").declarer == "E"


def test_no_contract_and_no_auction_is_refused() -> None:
    with pytest.raises(InvalidError):
        check_values(1, EntryValues(contract="", declarer="N", tricks=9), False)


# ---------------------------------------------------------------- through the table API


@pytest.fixture
def play_club(client: TestClient, engine: Engine) -> Club:
    club = open_club(
        client,
        engine,
        tables=3,
        bpr=2,
        event={"play_entry": "optional", "auction_entry": "optional"},
    )
    club.start_round(1)
    return club


def set_deal(engine: Engine, board: int, deal: str) -> None:
    with Session(engine) as s:
        row = s.exec(select(Board).where(Board.number == board)).one()
        row.deal = deal
        s.add(row)
        s.commit()


def send(table: Any, board: int, values: dict[str, Any], entry_id: str | None = None) -> Any:
    command = {
        "type": "enter_result",
        "entry_id": entry_id or new_id(),
        "board": board,
        "values": values,
    }
    return table.send(command)


def stored(engine: Engine, board: int) -> Result | None:
    with Session(engine) as s:
        return s.exec(select(Result).where(Result.board == board, Result.table_number == 1)).first()


def calls(engine: Engine) -> list[str]:
    with Session(engine) as s:
        return [c.reason for c in s.exec(select(TDCall).order_by(col(TDCall.id))).all()]


def test_the_setting_is_kept_changed_and_read_by_the_terminal(play_club: Club) -> None:
    r = play_club.td("GET", f"/api/v1/events/{play_club.event_id}")
    assert (r.json()["play_entry"], r.json()["deal_entry"]) == ("optional", False)
    r = play_club.td(
        "PATCH", f"/api/v1/events/{play_club.event_id}", json={"play_entry": "required"}
    )
    assert r.status_code == 422  # play entry is never required
    table = play_club.pair(1)
    assert table.send({"type": "get_table_settings"}).json()["play_entry"] == "optional"
    r = play_club.td(
        "PATCH",
        f"/api/v1/events/{play_club.event_id}",
        json={"play_entry": "off", "deal_entry": True},
    )
    assert r.status_code == 200, r.text
    settings = table.send({"type": "get_table_settings"}).json()
    assert (settings["play_entry"], settings["deal_entry"]) == ("off", True)


def test_a_play_is_refused_stored_shown_and_audited(play_club: Club) -> None:
    table = play_club.pair(1)
    set_deal(play_club.engine, 1, DEAL)
    plain = {"contract": "7NT", "declarer": "N", "tricks": 13}

    r = send(table, 1, {**plain, "play": "SA S6 S2 SK =12"})
    assert r.status_code == 422
    assert r.json()["code"] == "card_not_in_hand"
    assert "SA" in r.json()["message"]
    r = send(table, 1, {**plain, "play": "ST H8 S2 SA =13"})
    assert r.status_code == 422
    assert r.json()["code"] == "revoke"
    assert stored(play_club.engine, 1) is None  # nothing stored by a refusal

    entry = new_id()
    r = send(table, 1, {**plain, "play": f"{TRICK_1} =13"}, entry)
    assert r.status_code == 200, r.text
    view = r.json()["result"]
    assert view["play"] == f"{TRICK_1} =13"
    assert table.round()["boards"][0]["result"]["play"] == f"{TRICK_1} =13"
    r = send(table, 1, {**plain, "play": f"{TRICK_1} =13"}, entry)  # a resend: the same
    assert r.status_code == 200
    assert r.json()["duplicate"] is True
    row = stored(play_club.engine, 1)
    assert row is not None
    assert row.play == f"{TRICK_1} =13"
    assert calls(play_club.engine) == []  # keyed and played agree: no TD call

    r = table.confirm(1, view["version"])
    assert r.status_code == 200, r.text
    r = table.send(
        {
            "type": "correct_result",
            "entry_id": new_id(),
            "board": 1,
            "version": r.json()["result"]["version"],
            "values": {**plain, "play": full_play()},
        }
    )
    assert r.status_code == 200, r.text
    with Session(play_club.engine) as s:
        trail = s.exec(select(Audit).where(Audit.result_id == row.id).order_by(col(Audit.id))).all()
    assert [a.action for a in trail][-1] == "corrected"
    assert f'"play": "{TRICK_1} =13"' in (trail[-1].old or "")
    assert f'"play": "{full_play()}"' in (trail[-1].new or "")


def test_tricks_that_differ_from_the_play_are_stored_and_call_the_td(play_club: Club) -> None:
    table = play_club.pair(1)
    values = {"contract": "7NT", "declarer": "N", "tricks": 12, "play": f"{TRICK_1} =13"}
    r = send(table, 1, values)
    assert r.status_code == 200, r.text
    assert r.json()["result"]["tricks"] == 12
    reason = "board 1: 12 tricks keyed but 13 played: check the result"
    assert calls(play_club.engine) == [reason]
    r = send(table, 1, values)  # keyed again with a new entry id: no second call
    assert r.status_code == 200, r.text
    assert calls(play_club.engine) == [reason]
    with Session(play_club.engine) as s:
        flagged = s.exec(select(Audit).where(Audit.action == "play_differs")).all()
    assert len(flagged) == 1
    assert flagged[0].reason == reason


def test_the_play_is_refused_when_the_event_does_not_take_it(
    client: TestClient, engine: Engine
) -> None:
    club = open_club(client, engine, tables=3, bpr=2)
    club.start_round(1)
    table = club.pair(1)
    r = send(table, 1, {"contract": "7NT", "declarer": "N", "tricks": 13, "play": "ST =13"})
    assert r.status_code == 422
    assert r.json()["code"] == "play_not_taken"


def test_the_contract_left_out_at_the_table_is_the_auctions(play_club: Club) -> None:
    table = play_club.pair(1)
    r = send(table, 1, {"contract": "", "tricks": 9, "auction": "1C 1NT P 3NT P P P"})
    assert r.status_code == 200, r.text
    assert (r.json()["result"]["contract"], r.json()["result"]["declarer"]) == ("3NT", "E")


def test_a_check_entry_never_reads_the_deal(play_club: Club) -> None:
    """A query must not tell a table which cards a hand holds: the play is checked without
    the deal (the actual entry checks it)."""
    table = play_club.pair(1)
    set_deal(play_club.engine, 1, DEAL)
    # East leads the ace of spades it does not hold, and wins it: 12 tricks for North
    values = {"contract": "7NT", "declarer": "N", "tricks": 12, "play": "SA S6 S2 SK =12"}
    r = table.send({"type": "check_entry", "board": 1, "values": values})
    assert r.status_code == 200, r.text
    assert r.json()["type"] == "entry_checked"
    r = send(table, 1, values)  # the entry itself is checked against the deal
    assert r.status_code == 422
    assert r.json()["code"] == "card_not_in_hand"


def test_a_refusal_of_a_card_in_the_clubs_language(client: TestClient, engine: Engine) -> None:
    club = open_club(
        client, engine, tables=3, bpr=2, event={"play_entry": "optional", "language": "de"}
    )
    club.start_round(1)
    set_deal(engine, 1, DEAL)
    values = {"contract": "7NT", "declarer": "N", "tricks": 13, "play": "ST H8 S2 SA =13"}
    r = send(club.pair(1), 1, values)
    assert r.status_code == 422
    assert r.json()["message"] == (
        "Board 1, das Abspiel: H8 ist eine Revoke (der Spieler muss Farbe bedienen)."
    )


def test_play_refusals_against_the_deal_are_audited_capped_and_flagged(play_club: Club) -> None:
    """Each refusal tells a table something of the cards: as with a wrong lead, two per table
    and board, each audited, then the entry is taken and the TD called (no card oracle)."""
    table = play_club.pair(1)
    set_deal(play_club.engine, 1, DEAL)
    plain = {"contract": "7NT", "declarer": "N", "tricks": 13}
    first = new_id()
    for entry_id, play in ((first, "SA S6 S2 SK =12"), (first, "SA S6 S2 SK =12")):
        r = send(table, 1, {**plain, "play": play}, entry_id)  # a resend is not counted again
        assert r.json()["code"] == "card_not_in_hand"
    r = send(table, 1, {**plain, "play": "ST H8 S2 SA =13"})
    assert r.json()["code"] == "revoke"
    with Session(play_club.engine) as s:
        refused = s.exec(select(Audit).where(Audit.action == "play_refused")).all()
        assert s.exec(select(Result)).all() == []
    assert len(refused) == 2
    r = send(table, 1, {**plain, "play": "SK S6 S2 SA =13"})  # East has no king either
    assert r.status_code == 200, r.text
    assert r.json()["result"]["play"] == "SK S6 S2 SA =13"
    assert calls(play_club.engine) == [
        "board 1: the play does not fit the hand record (taken after 2 refusals): check the play"
    ]
    with Session(play_club.engine) as s:
        assert len(s.exec(select(Audit).where(Audit.action == "play_flagged")).all()) == 1
