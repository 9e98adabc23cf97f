"""The fair-play rule on stored data (server/services/table/fair_play.py): who sits at a table in a
round (its two pairs, or an individual's four players), and who has played a board: only those
with a confirmed result on it, never a table that has only keyed one (SQLite and PostgreSQL)."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session

from server.core.models import Section
from server.services.table import fair_play
from server.services.views import assignment
from tests.support.api import Club
from tests.support.movements import movement_club


def _section(session: Session, club: Club) -> Section:
    section = session.get(Section, club.section_id)
    assert section is not None
    return section


def test_a_board_is_played_by_the_pairs_that_confirmed_it_only(club: Club) -> None:
    club.start_round(1)
    one = club.pair(1)
    board = one.round()["boards"][0]["board"]
    with Session(club.engine) as s:
        section = _section(s, club)
        row = assignment(s, section, 1, 1)
        assert row is not None
        at_one = fair_play.seated(row, individual=False)
        assert at_one == {row.ns_pair_id, row.ew_pair_id}
        assert fair_play.seated(None, individual=False) == set()
        assert fair_play.played_by(s, section, board) == set()

    version = one.enter(board, "4S", "N", 10).json()["result"]["version"]
    with Session(club.engine) as s:
        assert fair_play.played_by(s, _section(s, club), board) == set()  # keyed, not agreed
    assert one.confirm(board, version).json()["result"]["state"] == "confirmed"
    with Session(club.engine) as s:
        section = _section(s, club)
        assert fair_play.played_by(s, section, board) == at_one
        row_two = assignment(s, section, 2, 1)
        assert row_two is not None
        assert not fair_play.seated(row_two, individual=False) & at_one  # another table's pairs


def test_in_an_individual_the_four_players_sit_and_play(client: TestClient, engine: Engine) -> None:
    club = movement_club(client, engine, {"kind": "individual", "pairs": 8, "boards_per_round": 2})
    club.start_round(1)
    table = club.pair(1)
    board = table.round()["boards"][0]["board"]
    with Session(engine) as s:
        section = _section(s, club)
        row = assignment(s, section, 1, 1)
        assert row is not None
        players = fair_play.seated(row, individual=True)
        assert len(players) == 4
        assert players <= set(range(1, 9))
    version = table.enter(board, "3NT", "N", 9).json()["result"]["version"]
    assert table.confirm(board, version).json()["result"]["state"] == "confirmed"
    with Session(engine) as s:
        assert fair_play.played_by(s, _section(s, club), board) == players
