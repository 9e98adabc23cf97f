"""The round view of many tables read at once (the TD's round start) is, table by table, the
view each table gets on its own (server/services/views.py round_infos and round_info)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.models import Event, MovementAssignment
from server.services import views
from server.services.event import setup
from server.services.event.setup import tables_of
from server.services.views import round_info, round_infos
from tests.support.api import Club, Table, client, engine  # noqa: F401 (fixtures)
from tests.support.movements import advance, movement_club, play_round


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


Place = tuple[int | None, str | None, tuple[int, ...]]


def where_they_sit(tables: list[Table]) -> dict[str, Place]:
    """Each seated pair's table, side and boards in the round the tables are at (no table: no
    one sits against it, so it sits out)."""
    seated: dict[str, Place] = {}
    for t in tables:
        info = t.round()
        boards = tuple(b["board"] for b in info["boards"])
        sides = [("NS", info["ns"]), ("EW", info["ew"])]
        plays = all(p is not None for _, p in sides)
        for side, pair in sides:
            if pair is not None:
                seated[pair["label"]] = (t.number, side, boards) if plays else (None, None, ())
    return seated


def where_players_sit(club: Club, round_: int) -> dict[str, Place]:
    """Each player's table, seat and boards in ``round_`` of an individual, from the stored
    movement (a table with a partnership missing plays nothing: its players sit out)."""
    seated: dict[str, Place] = {}
    with Session(club.engine) as s:
        rows = s.exec(
            select(MovementAssignment).where(
                MovementAssignment.section_id == club.section_id,
                MovementAssignment.round == round_,
            )
        )
        for row in rows:
            plays = row.ns_pair_id is not None and row.ew_pair_id is not None
            boards = tuple(int(b) for b in row.boards.split(",") if b)
            for seat, player in zip("NESW", (row.seats or ",,,").split(","), strict=True):
                if player:
                    seated[player] = (row.table_number, seat, boards) if plays else (None, None, ())
    return seated


def told_true(told: dict[str, Place], seated: dict[str, Place]) -> list[str]:
    """The pairs whose next position said at the end of a round was not where they sit now."""
    wrong = []
    for pair, place in told.items():
        sits_out = place[0] is None
        if (sits_out and seated.get(pair, place)[0] is not None) or (
            not sits_out and seated.get(pair) != place
        ):
            wrong.append(f"{pair}: told {place}, at {seated.get(pair, 'no table')}")
    return wrong


@pytest.mark.parametrize(
    "movement",
    [
        {"kind": "mitchell", "tables": 4, "boards_per_round": 1},  # an even number of tables
        {"kind": "mitchell", "tables": 5, "boards_per_round": 1},  # an odd number of tables
        {"kind": "howell", "pairs": 7, "boards_per_round": 1},  # a phantom in a Howell
        {"kind": "appendix-mitchell", "pairs": 11, "boards_per_round": 1},
        {"kind": "hesitation", "tables": 4, "boards_per_round": 1, "arrow_switch_rounds": 1},
        {"kind": "web-mitchell", "tables": 6, "boards_per_round": 1},
        {"kind": "individual", "pairs": 8, "boards_per_round": 1},
    ],
    ids=lambda m: "-".join(str(v) for v in m.values()),
)
def test_every_movement_kind_at_every_round_start(
    client: TestClient,  # noqa: F811 - the fixture
    engine: Engine,  # noqa: F811
    movement: dict[str, Any],
) -> None:
    """Odd numbers included: sit-outs, phantoms, boards shared, an individual; at each round's
    start, with every table done with the round before (its next positions shown), the round
    view of all the tables at once is each table's own."""
    club = movement_club(client, engine, movement)
    tables = [club.pair(n) for n in range(1, club.section["tables"] + 1)]
    club.start_round(1)
    _both(club)
    for round_ in range(1, club.section["rounds"] + 1):
        play_round(tables)
        _both(club)  # every table complete: where each pair goes next
        if round_ < club.section["rounds"]:
            told: dict[str, Place] = {
                n["pair"]: (n["table"], n.get("seat"), tuple(n.get("boards") or ()))
                for t in tables
                for n in t.round()["next"]
            }
            # A complete round tells its pairs where they go; an individual tells its
            # players (its partnerships last a round), never a partnership.
            players = [n["player"] for t in tables for n in t.round()["next"]]
            individual = movement["kind"] == "individual"
            assert players, round_
            assert all(p is individual for p in players), (round_, told)
            if individual:
                assert sorted(told, key=int) == [str(p) for p in range(1, 9)], round_
            advance(club, tables, round_ + 1)
            _both(club)
            seated = where_players_sit(club, round_ + 1) if individual else where_they_sit(tables)
            assert told_true(told, seated) == [], round_


def test_an_individuals_player_at_a_table_that_plays_nothing_sits_out() -> None:
    """A player whose next table has a partnership missing (no one to play) sits out; the
    others get their table, seat and boards, in the order they sit now (N, E, S, W)."""
    now = MovementAssignment(
        section_id=1, table_number=1, round=1, ns_pair_id=1, ew_pair_id=2, boards="1,2",
        seats="1,2,3,4",
    )  # fmt: skip
    following = [
        MovementAssignment(
            section_id=1, table_number=1, round=2, ns_pair_id=3, ew_pair_id=None, boards="1,2",
            seats="1,,3,",
        ),
        MovementAssignment(
            section_id=1, table_number=2, round=2, ns_pair_id=4, ew_pair_id=5, boards="3,4",
            seats="5,2,6,4",
        ),
    ]  # fmt: skip
    told = views.next_positions_of(now, [], following)
    assert [(p.pair, p.table, p.seat, p.boards, p.player) for p in told] == [
        ("1", None, None, [], True),
        ("2", 2, "E", [3, 4], True),
        ("3", None, None, [], True),
        ("4", 2, "W", [3, 4], True),
    ]
