"""A round-robin teams section's matches and VP standings (`services/team_matches.py`): the
open and closed rooms of each match compared in IMPs, VPs on the WBF scale, a bye's 12 VPs,
unsettled boards left out."""

from __future__ import annotations

from fractions import Fraction

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from protocol.bridge import imps
from server.core.errors import ConflictError, InvalidError
from server.core.models import Audit, MovementAssignment, Pair, Section
from server.movements.advice import proposal_for
from server.scoring.vp import victory_points
from server.services.event import event_wizard, setup
from server.services.results.team_matches import pair_next_round, team_table
from server.services.td import round_control
from tests.support.teams import play, round_robin, teams_section


def test_a_round_of_six_teams_is_scored_match_by_match(engine: Engine, client: TestClient) -> None:
    with Session(engine) as s:
        section = round_robin(s, 12)
        # Round 1: boards 1-2 (none vulnerable on 1, N/S vulnerable on 2).
        play(s, section, 1, 1, "4S", 10)  # open room of match 1: home N/S make 4S
        play(s, section, 1, 2, "4S", 9)  # closed room: the away N/S go one down
        play(s, section, 1, 3, "3NT", 9)  # match 2: the same result in both rooms
        play(s, section, 1, 4, "3NT", 9)
        play(s, section, 1, 5, "2H", 8)  # match 3: the closed room has not finished
        s.commit()
        table = team_table(s, section)
        pairs = {p.id: p.number for p in s.exec(select(Pair))}
        first = s.exec(
            select(MovementAssignment).where(
                MovementAssignment.round == 1, MovementAssignment.table_number == 1
            )
        ).one()
    home, away = pairs[first.ns_pair_id], pairs[first.ew_pair_id]
    round1 = [m for m in table.matches if m.round == 1]
    assert len(round1) == 3
    m1 = next(m for m in round1 if m.home == home)
    assert m1.away == away
    assert m1.boards == 2
    assert m1.result is not None
    # Board 1 (none vul): +420 v -50 = 470 -> 10 IMPs; board 2 (N/S vul): +620 v -100 -> 12.
    expected = imps(420 + 50) + imps(620 + 100)
    assert m1.result.home_margin == expected == 22
    assert m1.result.home_vp == victory_points(Fraction(22), 2)[0]
    m2 = round1[1]
    assert m2.result is not None
    assert (m2.result.home_vp, m2.result.away_vp) == (10, 10)
    m3 = round1[2]
    assert (m3.boards, m3.result) == (0, None)  # nothing counts until both rooms are in
    leader = table.standings[0]
    assert leader.team == home
    assert leader.vp == m1.result.home_vp
    assert table.names[1] == "Aces"
    assert {s.team for s in table.standings} == {home, away, m2.home, m2.away}
    assert table.byes == {}


def test_the_bye_of_an_odd_field_scores_12_vps_once_the_round_is_under_way(
    engine: Engine, client: TestClient
) -> None:
    with Session(engine) as s:
        section = round_robin(s, 10)  # five teams: two matches and a bye each round
        assert team_table(s, section).standings == []
        play(s, section, 1, 1, "1NT", 7)
        play(s, section, 1, 2, "1NT", 7)
        s.commit()
        table = team_table(s, section)
    bye = table.byes[1]
    rested = next(x for x in table.standings if x.team == bye)
    assert rested.vp == 12
    assert len(table.byes) == 5  # each team rests once


def test_a_pairs_section_is_not_a_team_table(engine: Engine, client: TestClient) -> None:
    with Session(engine) as s:
        proposal = proposal_for("mitchell", 8)
        assert proposal is not None
        made = event_wizard.create(
            s,
            name="Pairs",
            settings=event_wizard.WizardSettings(),
            sections=[event_wizard.SectionPlan("A", proposal.movement)],
        )
        with pytest.raises(InvalidError, match="not a teams movement"):
            team_table(s, setup.get_section(s, made.section_ids[0]))


def swiss(session: Session, pairs: int) -> Section:
    return teams_section(session, "teams-swiss", pairs, "Swiss")


def matches_in(session: Session, section: Section, round_: int) -> set[tuple[int, int]]:
    numbers = {p.id: p.number for p in session.exec(select(Pair))}
    cells = session.exec(
        select(MovementAssignment).where(
            MovementAssignment.section_id == section.id, MovementAssignment.round == round_
        )
    ).all()
    return {
        (numbers[c.ns_pair_id], numbers[c.ew_pair_id])
        for c in cells
        if c.table_number % 2 == 1 and c.ns_pair_id and c.ew_pair_id
    }


def test_a_swiss_pairs_the_next_round_from_the_vp_standings(
    engine: Engine, client: TestClient
) -> None:
    with Session(engine) as s:
        section = swiss(s, 16)  # eight teams, 4 rounds of 2 boards in the time
        assert section.movement_name.startswith("Swiss teams, 8 teams")
        assert matches_in(s, section, 1) == {(1, 2), (3, 4), (5, 6), (7, 8)}  # seeding
        with pytest.raises(ConflictError, match="Round 1 is paired by team number"):
            pair_next_round(s, section)
        round_control.start_round_once(s, section, 1)
        # The home teams of tables 1 and 3 win big, tables 5 and 7 are flat.
        play(s, section, 1, 1, "4S", 10)
        play(s, section, 1, 2, "4S", 9)
        play(s, section, 1, 3, "4S", 10)
        play(s, section, 1, 4, "4S", 9)
        play(s, section, 1, 5, "3NT", 9)
        play(s, section, 1, 6, "3NT", 9)
        play(s, section, 1, 7, "3NT", 9)
        s.commit()
        with pytest.raises(ConflictError, match=r"Round 1 is not finished \(matches 7 v 8\)"):
            pair_next_round(s, section)
        play(s, section, 1, 8, "3NT", 9)
        s.commit()
        before = matches_in(s, section, 3)
        paired = pair_next_round(s, section)
        s.commit()
        assert {frozenset((m.home, m.away)) for m in paired} == {
            frozenset(p) for p in matches_in(s, section, 2)
        }
        second = {frozenset(p) for p in matches_in(s, section, 2)}
        # The two winners (1 and 3, 20 VPs) meet; then the four 10-VP teams; the losers.
        assert frozenset((1, 3)) in second
        assert frozenset((2, 4)) in second
        assert not second & {frozenset(p) for p in matches_in(s, section, 1)}
        assert matches_in(s, section, 3) == before  # later rounds wait for their pairing
        audit = s.exec(select(Audit).where(Audit.action == "movement_changed")).all()
        assert any("Swiss: round 2" in (a.reason or "") for a in audit)
        round_control.start_round_once(s, section, 2)
        s.commit()
        with pytest.raises(ConflictError, match="Round 2 is not finished"):
            pair_next_round(s, section)


def test_a_round_robin_is_not_paired_round_by_round(engine: Engine, client: TestClient) -> None:
    with Session(engine) as s:
        section = round_robin(s, 12)
        with pytest.raises(InvalidError, match="Only a Swiss"):
            pair_next_round(s, section)


def test_an_odd_swiss_gives_the_bye_to_a_team_that_has_not_had_one(
    engine: Engine, client: TestClient
) -> None:
    with Session(engine) as s:
        section = swiss(s, 14)  # seven teams: three matches and a bye a round
        assert team_table(s, section).byes[1] == 7  # round 1 by number: the last team rests
        round_control.start_round_once(s, section, 1)
        for table in range(1, 7):
            play(s, section, 1, table, "3NT", 9)  # every match flat: 10-10
        s.commit()
        pair_next_round(s, section)
        s.commit()
        table = team_table(s, section)
    assert table.byes[2] != 7
    assert next(x for x in table.standings if x.team == 7).vp == 12  # the bye of round 1
    second = {frozenset((m.home, m.away)) for m in table.matches if m.round == 2}
    first = {frozenset((m.home, m.away)) for m in table.matches if m.round == 1}
    assert len(second) == 3
    assert not second & first
    assert 7 in {t for pair in second for t in pair}
