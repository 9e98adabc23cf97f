"""The newer movements played through the server end to end: appendix Mitchell, hesitation
Mitchell on an even number of tables, the EBU two-circuit web Mitchell, an individual for 8
and 12 players (ranked per player), and a late pair given a new table that shares boards."""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.errors import ConflictError
from server.core.models import Audit, MovementAssignment, Pair, Result, Section
from server.movements import PairRef
from server.movements.catalog import build
from server.movements.edit import add_late_table
from server.movements.model import Movement
from server.services.event import movement_admin
from tests.support.movements import advance, movement_club, play_all, play_round


def _stored(engine: Engine) -> list[Result]:
    with Session(engine) as s:
        return list(s.exec(select(Result)))


def _expected_cells(m: Movement) -> set[tuple[int, int, int]]:
    """(table, round, board) of every board the movement has really played."""
    return {(a.table, a.round, b) for a in m.assignments if a.played for b in a.boards}


def _check_every_result_stored(engine: Engine, m: Movement) -> list[Result]:
    results = _stored(engine)
    assert {(r.table_number, r.round, r.board) for r in results} == _expected_cells(m)
    assert all(r.state == "confirmed" for r in results)
    seen: Counter[tuple[int | None, int]] = Counter()
    for r in results:
        seen[(r.ns_pair_id, r.board)] += 1
        seen[(r.ew_pair_id, r.board)] += 1
    assert max(seen.values()) == 1  # no pair plays a board twice
    return results


@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "appendix-mitchell", "pairs": 11, "boards_per_round": 2},
        {"kind": "hesitation", "tables": 4, "boards_per_round": 2, "arrow_switch_rounds": 1},
        {"kind": "web-mitchell", "tables": 6, "boards_per_round": 2},
    ],
    ids=["appendix-5.5-tables", "hesitation-4-tables", "web-6-tables"],
)
def test_new_pairs_movements_are_played_through(
    client: TestClient, engine: Engine, spec: dict[str, Any]
) -> None:
    club = movement_club(client, engine, spec)
    built = build(
        spec["kind"],
        tables=spec.get("tables"),
        pairs=spec.get("pairs"),
        boards_per_round=spec["boards_per_round"],
        arrow_switch_rounds=spec.get("arrow_switch_rounds", 0),
    )
    assert isinstance(built, Movement)
    movement = club.td("GET", f"/api/v1/sections/{club.section_id}/movement").json()
    assert movement["movement"]["assignments"] == [a.to_dict() for a in built.assignments]
    _tables, played = play_all(club)
    results = _check_every_result_stored(engine, built)
    assert len(results) == played
    ranking = client.get(f"/api/v1/sections/{club.section_id}/ranking")
    if ranking.status_code == 200:  # the public ranking ranks every pair that played
        assert ranking.json()


def test_web_mitchell_scores_each_board_over_both_circuits(
    client: TestClient, engine: Engine
) -> None:
    club = movement_club(
        client, engine, {"kind": "web-mitchell", "tables": 6, "boards_per_round": 1}
    )
    play_all(club)
    where: dict[tuple[int, int], list[int]] = defaultdict(list)
    for r in _stored(engine):
        where[(r.round, r.board)].append(r.table_number)
    # A board is in play at most once in each circuit (tables 1-3 and 4-6) in a round, and
    # with 5 sets on 3 tables a circuit some boards are in play in both at once.
    assert all(
        sorted(t > 3 for t in tables) in ([False], [True], [False, True])
        for tables in where.values()
    )
    assert any(len(tables) == 2 for tables in where.values())
    boards = Counter(r.board for r in _stored(engine))
    assert set(boards.values()) == {6}  # every board is played at all six tables


def test_appendix_table_shares_table_ones_boards(client: TestClient, engine: Engine) -> None:
    club = movement_club(client, engine, {"kind": "appendix-mitchell", "tables": 5})
    play_all(club)
    by_cell: dict[tuple[int, int], set[int]] = defaultdict(set)
    for r in _stored(engine):
        by_cell[(r.round, r.table_number)].add(r.board)
    for rnd in range(1, club.section["rounds"] + 1):
        assert by_cell[(rnd, 5)] == by_cell[(rnd, 1)]


@pytest.mark.parametrize("players", [8, 12])
def test_individual_is_played_and_ranked_per_player(
    client: TestClient, engine: Engine, players: int
) -> None:
    club = movement_club(
        client, engine, {"kind": "individual", "pairs": players, "boards_per_round": 2}
    )
    sid = club.section_id
    r = club.td("PUT", f"/api/v1/sections/{sid}/individual/players/3", json={"name": "Ann Berg"})
    assert r.status_code == 200, r.text
    tables = [club.pair(n) for n in range(1, club.section["tables"] + 1)]
    first = tables[0].round()
    assert first["ns"] is None  # before round 1 nothing is seated
    club.start_round(1)
    info = tables[0].round()
    assert len(info["ns"]["names"]) == 2
    assert len(info["ew"]["names"]) == 2
    play_round(tables)
    for rnd in range(2, club.section["rounds"] + 1):
        advance(club, tables, rnd)
        play_round(tables)
    results = _stored(engine)
    with Session(engine) as s:
        seats = {
            (a.table_number, a.round): [int(p) for p in (a.seats or "").split(",")]
            for a in s.exec(select(MovementAssignment))
        }
        labels = {p.id: (p.player1, p.player2) for p in s.exec(select(Pair))}
    assert all(len(v) == 4 for v in seats.values())
    assert len(results) == sum(2 for _ in seats)  # every table, every round, both boards
    assert all(r.state == "confirmed" for r in results)
    # The partnership names follow the seats, and the renamed player shows on them.
    assert any("3 Ann Berg" in names for names in labels.values())
    # Each player's score is their partnership's matchpoints on each board: worked out here
    # independently (1 for each table beaten, 1/2 for each tie) as a percentage of the top.
    got: dict[int, Fraction] = defaultdict(Fraction)
    top: dict[int, Fraction] = defaultdict(Fraction)
    for r in results:
        others = [x for x in results if x.board == r.board and x is not r]
        assert r.ns_score is not None
        ns = sum(
            Fraction(1) if r.ns_score > (x.ns_score or 0) else Fraction(1, 2)
            for x in others
            if r.ns_score >= (x.ns_score or 0)
        )
        north, east, south, west = seats[(r.table_number, r.round)]
        for player, value in (
            (north, ns),
            (south, ns),
            (east, len(others) - ns),
            (west, len(others) - ns),
        ):
            got[player] += value
            top[player] += len(others)
    ranking = club.td("GET", f"/api/v1/sections/{sid}/individual/ranking")
    assert ranking.status_code == 200, ranking.text
    lines = ranking.json()["lines"]
    assert sorted(line["number"] for line in lines) == list(range(1, players + 1))
    rounds = club.section["rounds"]
    assert {line["boards"] for line in lines} == {2 * rounds}
    for line in lines:
        expected = 100 * got[line["number"]] / top[line["number"]]
        assert abs(Fraction(line["percentage"]) - expected) < Fraction(1, 200)
    assert {line["name"] for line in lines if line["number"] == 3} == {"Ann Berg"}
    percents = [Fraction(line["percentage"]) for line in lines]
    assert percents == sorted(percents, reverse=True)
    assert lines[0]["place"] in ("1", "1=")
    # At the table, the session-end ranking is the players' too, this table's four marked.
    club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"show_ranking": True})
    report = tables[0].send({"type": "get_ranking"}).json()
    assert (report["type"], report["kind"]) == ("ranking_report", "individual")
    (group,) = report["groups"]
    assert [(row["place"], int(row["pair"])) for row in group["rows"]] == [
        (line["place"], line["number"]) for line in lines
    ]
    assert {int(row["pair"]) for row in group["rows"] if row["ours"]} == set(
        seats[(1, club.section["rounds"])]
    )


def test_individual_refuses_pair_changes(client: TestClient, engine: Engine) -> None:
    club = movement_club(client, engine, {"kind": "individual", "pairs": 8})
    r = club.td(
        "POST",
        f"/api/v1/sections/{club.section_id}/movement/late-pair",
        json={"pair": "29"},
    )
    assert (r.status_code, r.json()["code"]) == (422, "individual_section")
    pairs_club = movement_club(client, engine, {"kind": "mitchell", "tables": 3})
    r = pairs_club.td("GET", f"/api/v1/sections/{pairs_club.section_id}/individual/ranking")
    assert (r.status_code, r.json()["code"]) == (422, "not_individual")


def test_late_pair_at_a_new_table_sharing_boards(client: TestClient, engine: Engine) -> None:
    club = movement_club(client, engine, {"kind": "howell", "pairs": 13, "boards_per_round": 2})
    sid = club.section_id
    tables = [club.pair(n) for n in range(1, club.section["tables"] + 1)]
    club.start_round(1)
    play_round(tables)
    before = {(r.round, r.table_number, r.board, r.ns_pair_id) for r in _stored(engine)}
    r = club.td(
        "POST",
        f"/api/v1/sections/{sid}/movement/late-table",
        json={"pair": "14", "reason": "pair 14 arrived after round 1"},
    )
    assert r.status_code == 200, r.text
    after_change = r.json()
    assert after_change["tables"] == club.section["tables"] + 1
    new_table = after_change["tables"]
    section = club.td("GET", f"/api/v1/sections/{sid}").json()
    assert str(new_table) in {str(k) for k in section["pairing_codes"]}
    club.section = section
    tables.append(club.pair(new_table))
    for rnd in range(2, section["rounds"] + 1):
        advance(club, tables, rnd)
        played = play_round(tables)
        assert played == 2 * (len(tables) - 1)  # the phantom's victim now plays pair 14
    m = Movement.from_dict(club.td("GET", f"/api/v1/sections/{sid}/movement").json()["movement"])
    results = _check_every_result_stored(engine, m)
    assert before <= {(r.round, r.table_number, r.board, r.ns_pair_id) for r in results}
    shared = m.shared_tables[0]
    for r in results:
        if r.table_number == new_table:  # the new table plays a sharing table's boards
            twin = [x for x in results if x.round == r.round and x.board == r.board]
            assert len(twin) == 1 or any(x.table_number in shared for x in twin)
    # With every round started there is nothing left to join; a change reaching into a
    # started round is refused; the audit has only the first change.
    r = club.td(
        "POST",
        f"/api/v1/sections/{sid}/movement/late-table",
        json={"pair": "15", "share_with": 2},
    )
    assert (r.status_code, r.json()["code"]) == (422, "no_round_left")
    with Session(engine) as s:
        section = s.get(Section, sid)
        assert section is not None
        with pytest.raises(ConflictError) as refused:
            movement_admin.change_movement(s, section, _reach_back, what="reaches back")
    assert refused.value.code == "round_already_started"
    with Session(engine) as s:
        reasons = [
            a.reason for a in s.exec(select(Audit).where(Audit.action == "movement_changed"))
        ]
    assert reasons == ["pair 14 arrived after round 1"]


def _reach_back(m: Movement, _first: int) -> Movement:
    """A late table from round 2 on, once round 2 has started (two late pairs)."""
    return add_late_table(m, PairRef(15), share_with=2, from_round=2, opponent=PairRef(16))
