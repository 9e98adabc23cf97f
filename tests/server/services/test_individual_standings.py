"""An individual section's players (server/services/results/individual_standings.py): a player named
once is named in every partnership they play in, audited; the ranking per player adds up each
player's boards; a pairs section or an unknown player refused (SQLite and PostgreSQL)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from server.core.errors import InvalidError, NotFoundError
from server.core.models import Audit, Pair, Result, Section
from server.services.results import individual_standings
from tests.support.api import Club
from tests.support.movements import movement_club, play_all

EIGHT = {"kind": "individual", "pairs": 8, "boards_per_round": 2}


def _section(session: Session, club: Club) -> Section:
    section = session.get(Section, club.section_id)
    assert section is not None
    return section


def test_a_named_player_is_named_in_each_partnership_and_audited(
    client: TestClient, engine: Engine
) -> None:
    club = movement_club(client, engine, EIGHT)
    with Session(engine) as s:
        section = _section(s, club)
        individual_standings.set_player_name(s, section, 3, "  Ann Berg ", "1001")
        s.commit()
        partners = individual_standings.partnership_players(s, section)
        hers = [pair_id for pair_id, players in partners.items() if 3 in players]
        assert hers  # she plays in partnerships
        for pair_id in hers:
            pair = s.get(Pair, pair_id)
            assert pair is not None
            first, _second = partners[pair_id]
            named, member = (
                (pair.player1, pair.member1) if first == 3 else (pair.player2, pair.member2)
            )
            assert "Ann Berg" in (named or "")
            assert member == "1001"
        assert individual_standings.player_names(s, section)[3] == "Ann Berg"
        (row,) = s.exec(select(Audit).where(Audit.action == "player_name")).all()
        assert json.loads(row.new or "{}") == {"player": 3, "name": "Ann Berg", "member": "1001"}
        with pytest.raises(NotFoundError) as unknown:
            individual_standings.set_player_name(s, section, 99, "Nobody", None)
        assert unknown.value.code == "unknown_player"


def test_a_pairs_section_has_no_ranking_per_player(club: Club) -> None:
    with Session(club.engine) as s, pytest.raises(InvalidError) as refused:
        individual_standings.player_ranking(s, _section(s, club))
    assert refused.value.code == "not_individual"


def test_the_ranking_per_player_adds_up_every_players_boards(
    client: TestClient, engine: Engine
) -> None:
    club = movement_club(client, engine, EIGHT)
    with Session(engine) as s:
        before = individual_standings.player_ranking(s, _section(s, club))
    assert sorted(line.number for line in before.lines) == list(range(1, 9))
    assert all(line.boards == 0 for line in before.lines)

    play_all(club)
    with Session(engine) as s:
        section = _section(s, club)
        ranking = individual_standings.player_ranking(s, section)
        results = s.exec(select(Result).where(col(Result.section_id) == club.section_id)).all()
    assert len(ranking.lines) == 8
    assert sum(line.boards for line in ranking.lines) == 4 * len(results)  # four players a result
    percents = [line.percent for line in ranking.lines]
    assert all(p is not None for p in percents)
    assert percents == sorted(percents, reverse=True)  # type: ignore[type-var]
    assert ranking.lines[0].place.startswith("1")
