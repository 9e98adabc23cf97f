"""Swapping two pairs mid-session (``movement_admin.swapped`` and ``swap_pairs``): each takes
the other's seats from a round on; earlier rounds, unknown pairs and replayed boards refused."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.db import transact
from server.core.errors import ConflictError, InvalidError
from server.core.models import Audit
from server.movements import Movement, MovementError, PairRef, mitchell
from server.services.event import movement_admin, setup
from tests.support.api import open_club

NS1, NS2, EW3 = PairRef(1, "NS"), PairRef(2, "NS"), PairRef(3, "EW")


def test_two_pairs_take_each_others_seats_from_the_round_given() -> None:
    m = mitchell(4, boards_per_round=2)
    after = movement_admin.swapped(m, NS1, NS2, from_round=1)
    for a, b in zip(m.assignments, after.assignments, strict=True):
        swap = {NS1: NS2, NS2: NS1}
        assert (b.table, b.round, b.boards) == (a.table, a.round, a.boards)
        assert b.ns == (swap.get(a.ns, a.ns) if a.ns else None)
        assert b.ew == a.ew
    assert after.name.endswith("pairs 1NS and 2NS swapped")
    assert sorted(after.pairs(), key=PairRef.sort_key) == m.pairs()


def test_a_swap_that_replays_a_board_or_names_a_stranger_is_refused() -> None:
    m = mitchell(4, boards_per_round=2)
    with pytest.raises(MovementError, match="again"):
        movement_admin.swapped(m, NS1, NS2, from_round=2)  # 2NS would meet its boards again
    with pytest.raises(MovementError, match="not in the movement"):
        movement_admin.swapped(m, NS1, PairRef(9, "NS"), from_round=1)
    with pytest.raises(ValueError, match="two different pairs"):
        movement_admin.swapped(m, NS1, NS1, from_round=1)
    with pytest.raises(ValueError, match="no round is left"):
        movement_admin.swapped(m, NS1, EW3, from_round=m.rounds + 1)


def test_a_swap_is_stored_and_audited_but_never_in_a_started_round(
    client: TestClient, engine: Engine
) -> None:
    club = open_club(client, engine, tables=4, bpr=2)

    def swap(from_round: int | None) -> Movement:
        def work(s: Session) -> Movement:
            section = setup.get_section(s, club.section_id)
            edit = movement_admin.swap_pairs(NS1, NS2, from_round)
            return movement_admin.change_movement(s, section, edit, what="sat down wrongly")

        return transact(engine, work)

    def stored(s: Session) -> Movement:
        return movement_admin.load_movement(s, setup.get_section(s, club.section_id))

    def reasons(s: Session) -> list[str]:
        return [a.reason for a in s.exec(select(Audit).where(Audit.action == "movement_changed"))]

    swap(None)
    after = transact(engine, stored)
    assert [a.ns for a in after.in_round(1)][:2] == [NS2, NS1]
    assert transact(engine, reasons) == ["sat down wrongly"]
    club.start_round(1)
    with pytest.raises(ConflictError, match="which have started"):
        swap(1)
    with pytest.raises(InvalidError, match="again"):
        swap(None)  # from round 2 in a Mitchell, a swapped N/S pair would replay boards
    assert transact(engine, stored) == after


def test_the_json_api_swaps_two_pairs_through_the_pages_service_audited(
    client: TestClient, engine: Engine
) -> None:
    """``POST .../movement/swap``: the same ``movement_admin.swap_pairs`` the TD's page uses,
    stored and audited; refused with its own code in a started round or a replayed board."""
    club = open_club(client, engine, tables=4, bpr=2)
    url = f"/api/v1/sections/{club.section_id}/movement/swap"
    r = club.td("POST", url, json={"pair": "1NS", "second": "2NS", "reason": "sat down wrongly"})
    assert r.status_code == 200, r.text
    cells = {(a["round"], a["table"]): a for a in r.json()["movement"]["assignments"]}
    assert (cells[(1, 1)]["ns"], cells[(1, 2)]["ns"]) == ("2NS", "1NS")
    stored = club.td("GET", f"/api/v1/sections/{club.section_id}/movement").json()
    assert stored["movement"] == r.json()["movement"]
    with Session(engine) as s:
        logged = s.exec(select(Audit).where(Audit.action == "movement_changed")).all()
        assert [(a.reason, a.section_id) for a in logged] == [("sat down wrongly", club.section_id)]
    club.start_round(1)
    r = club.td("POST", url, json={"pair": "1NS", "second": "2NS", "from_round": 1})
    assert (r.status_code, r.json()["code"]) == (409, "round_already_started")
    r = club.td("POST", url, json={"pair": "1NS", "second": "2NS"})  # 2NS would replay boards
    assert (r.status_code, r.json()["code"]) == (422, "board_played_again")
    assert r.json()["message"].startswith("Round 2, table ")
    assert "would play board" in r.json()["message"]
    r = club.td("POST", url, json={"pair": "1NS", "second": "1NS"})
    assert (r.status_code, r.json()["code"]) == (422, "same_pair_twice")
    r = club.td("POST", url, json={"pair": "1NS", "second": "9NS"})
    assert (r.json()["code"], r.json()["message"]) == (
        "pair_not_in_movement",
        "Pair 9NS is not in the movement.",
    )
    r = club.td("POST", url, json={"pair": "1NS", "second": "<b>"})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_pair")
    with Session(engine) as s:
        assert len(s.exec(select(Audit).where(Audit.action == "movement_changed")).all()) == 1
    assert club.td("GET", f"/api/v1/sections/{club.section_id}/movement").json() == stored


def test_a_refused_swap_is_worded_in_the_tds_language(client: TestClient, engine: Engine) -> None:
    club = open_club(client, engine, tables=4, bpr=2)
    club.start_round(1)
    url = f"/api/v1/sections/{club.section_id}/movement/swap"
    for lang, start in (
        ("da", "Runde 2, bord "),
        ("nb", "Runde 2, bord "),
        ("de", "Runde 2, Tisch "),
        ("ru", "Раунд 2, стол "),
    ):
        headers = {**club.td_headers, "Accept-Language": lang}
        r = client.post(url, json={"pair": "1NS", "second": "2NS"}, headers=headers)
        assert r.json()["code"] == "board_played_again", lang
        assert r.json()["message"].startswith(start), (lang, r.json()["message"])
