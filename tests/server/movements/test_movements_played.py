"""Movements played through the server end to end: a 13-pair Howell with a phantom, a 9-table
Mitchell with an arrow-switch round, and changes to a running session (late pair, pair left,
fewer rounds), with the results checked in the database."""

from __future__ import annotations

from collections import Counter

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.models import Audit, Pair, Result, Section
from server.services.glance import dashboard
from tests.support.movements import advance, movement_club, play_all, play_round


def _no_pair_plays_a_board_twice(engine: Engine) -> list[Result]:
    with Session(engine) as s:
        results = list(s.exec(select(Result)))
    seen: Counter[tuple[int | None, int]] = Counter()
    for r in results:
        seen[(r.ns_pair_id, r.board)] += 1
        seen[(r.ew_pair_id, r.board)] += 1
    assert max(seen.values()) == 1
    assert all(r.state == "confirmed" for r in results)
    return results


def test_thirteen_pair_howell_with_a_phantom_is_played_through(
    client: TestClient, engine: Engine
) -> None:
    club = movement_club(client, engine, {"kind": "howell", "pairs": 13, "boards_per_round": 2})
    movement = club.td("GET", f"/api/v1/sections/{club.section_id}/movement").json()
    assert len(movement["pairs"]) == 13  # the phantom is an empty seat, not a pair
    _tables, played = play_all(club)
    results = _no_pair_plays_a_board_twice(engine)
    assert len(results) == played
    # Each real pair sits out exactly once (the round it would meet the phantom).
    with Session(engine) as s:
        pairs = {p.id: p.number for p in s.exec(select(Pair))}
    boards_per_pair: Counter[int] = Counter()
    for r in results:
        boards_per_pair[pairs[r.ns_pair_id]] += 1
        boards_per_pair[pairs[r.ew_pair_id]] += 1
    rounds = club.section["rounds"]
    assert len(boards_per_pair) == 13
    assert set(boards_per_pair.values()) == {2 * (rounds - 1)}


def test_nine_table_mitchell_with_arrow_switch_is_played_through(
    client: TestClient, engine: Engine
) -> None:
    spec = {"kind": "mitchell", "tables": 9, "boards_per_round": 2, "arrow_switch_rounds": 1}
    club = movement_club(client, engine, spec)
    _tables, played = play_all(club)
    assert played == 9 * 9 * 2
    results = _no_pair_plays_a_board_twice(engine)
    with Session(engine) as s:
        direction = {p.id: p.direction for p in s.exec(select(Pair))}
    switched = {r.round for r in results if direction[r.ns_pair_id] == "EW"}
    assert switched == {9}  # the last round is played the other way round
    assert all(direction[r.ns_pair_id] == "NS" for r in results if r.round < 9)


def test_late_pair_takes_the_phantoms_seat_from_the_next_round(
    client: TestClient, engine: Engine
) -> None:
    club = movement_club(client, engine, {"kind": "howell", "pairs": 13, "boards_per_round": 2})
    tables = [club.pair(n) for n in range(1, club.section["tables"] + 1)]
    club.start_round(1)
    play_round(tables)
    before = {(r.round, r.table_number, r.board) for r in _no_pair_plays_a_board_twice(engine)}
    r = club.td(
        "POST",
        f"/api/v1/sections/{club.section_id}/movement/late-pair",
        json={"pair": "14", "reason": "pair 14 arrived late"},
    )
    assert r.status_code == 200, r.text
    advance(club, tables, 2)
    labels = {(t.round()["ns"] or {}).get("label") for t in tables} | {
        (t.round()["ew"] or {}).get("label") for t in tables
    }
    assert "14" in labels  # the late pair plays from round 2
    played = play_round(tables)
    assert played == 2 * len(tables)  # nobody sits out any more
    after = {(r.round, r.table_number, r.board) for r in _no_pair_plays_a_board_twice(engine)}
    assert before <= after  # round 1's results are untouched
    # A change reaching back into a started round is refused.
    r = club.td(
        "POST",
        f"/api/v1/sections/{club.section_id}/movement/pair-left",
        json={"pair": "3", "from_round": 1},
    )
    assert (r.status_code, r.json()["code"]) == (409, "round_already_started")
    with Session(engine) as s:
        reasons = [
            a.reason for a in s.exec(select(Audit).where(Audit.action == "movement_changed"))
        ]
    assert reasons == ["pair 14 arrived late"]


def test_a_pair_leaves_and_its_opponents_sit_out(client: TestClient, engine: Engine) -> None:
    club = movement_club(client, engine, {"kind": "mitchell", "tables": 5, "boards_per_round": 2})
    tables = [club.pair(n) for n in range(1, 6)]
    club.start_round(1)
    play_round(tables)
    r = club.td(
        "POST",
        f"/api/v1/sections/{club.section_id}/movement/pair-left",
        json={"pair": "3EW", "from_round": 2},
    )
    assert r.status_code == 200, r.text
    advance(club, tables, 2)
    empty = [t for t in tables if t.round()["ew"] is None]
    assert len(empty) == 1
    info = empty[0].round()
    assert (info["boards"], info["complete"]) == ([], True)  # the sit-out table is done
    assert play_round(tables) == 2 * 4


def test_stop_after_fewer_rounds_and_preview(client: TestClient, engine: Engine) -> None:
    club = movement_club(client, engine, {"kind": "mitchell", "tables": 7, "boards_per_round": 3})
    r = club.td(
        "POST", f"/api/v1/sections/{club.section_id}/movement/stop-after", json={"rounds": 5}
    )
    assert r.status_code == 200, r.text
    assert club.td("GET", f"/api/v1/sections/{club.section_id}").json()["rounds"] == 5
    r = club.td(
        "POST",
        "/api/v1/movements/preview",
        json={"kind": "howell", "pairs": 8, "boards_per_round": 3},
    )
    assert r.status_code == 200, r.text
    assert r.json()["balance"]["balance"] == 100.0
    r = club.td("POST", "/api/v1/movements/preview", json={"kind": "mitchell"})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_movement")
    assert "tables" in r.json()["message"]
    csv = club.td("GET", f"/api/v1/sections/{club.section_id}/movement/export?format=round-data")
    assert csv.status_code == 200
    assert csv.text.splitlines()[0].startswith("Section,Table,Round,NSPair,EWPair")
    # Imported back, the RoundData makes the same movement.
    r = club.td(
        "POST",
        "/api/v1/movements/preview",
        json={"kind": "imported", "format": "round-data", "data": csv.text},
    )
    assert r.status_code == 200, r.text
    assert r.json()["rounds"] == 5


def test_a_pair_going_to_the_phantoms_table_is_told_it_sits_out(
    client: TestClient, engine: Engine
) -> None:
    """7 pairs in a Howell (phantom 8 at table 1): at the end of round 1 the pair that goes to
    the phantom's table plays no board there, so its move says it sits out (no table, no
    boards), and every other pair is sent to a table where it plays boards."""
    club = movement_club(client, engine, {"kind": "howell", "pairs": 7, "boards_per_round": 3})
    tables = [club.pair(n) for n in range(1, 5)]
    club.start_round(1)
    play_round(tables)
    moves = [m for t in tables for m in t.round()["next"]]
    assert sorted(m["pair"] for m in moves) == ["1", "2", "3", "4", "5", "6", "7"]
    out = [m for m in moves if m["table"] is None]
    assert [(m["pair"], m["boards"]) for m in out] == [("2", [])]
    assert all(m["boards"] for m in moves if m["table"] is not None)


def test_the_dashboard_shows_the_results_the_td_keyed_for_a_table_without_a_device(
    client: TestClient, engine: Engine
) -> None:
    """Table 3 has no terminal: the TD keys its travellers. Its own round never moves on (no
    device asks for the next round), but the dashboard shows its later rounds' results as
    keyed, not as 'not yet played'."""
    club = movement_club(client, engine, {"kind": "mitchell", "tables": 3, "boards_per_round": 2})
    tables = [club.pair(n) for n in (1, 2)]
    club.start_round(1)
    play_round(tables)
    advance(club, tables, 2)
    for board in (1, 2):  # table 3's round 2 plays boards 1-2 in a 3-table Mitchell
        r = club.td(
            "POST",
            f"/api/v1/sections/{club.section_id}/results/set",
            json={
                "table": 3,
                "round": 2,
                "board": board,
                "values": {"contract": "3NT", "declarer": "N", "tricks": 9},
                "reason": "keyed from the traveller slip",
            },
        )
        assert r.status_code == 200, r.text
    with Session(engine) as s:
        section = s.get(Section, club.section_id)
        assert section is not None
        rows = {row.table: row for row in dashboard.grid(s, section).rows}
    cell = next(c for c in rows[3].cells if c.round == 2)
    assert rows[3].round == 1
    assert (cell.status, cell.boards, cell.done) == ("complete", 2, 2)
