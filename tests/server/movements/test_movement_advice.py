"""The set-up wizard's movement advice: what fits a field and the time, and why not."""

from __future__ import annotations

import pytest

from server.movements import PairRef, validate
from server.movements.advice import proposal_for, propose
from server.movements.balance import comparison_balance
from server.movements.upload import MovementFileError, read_movement


def keys(pairs: int, **kw: object) -> set[str]:
    return {p.key for p in propose(pairs, **kw).proposals}  # type: ignore[arg-type]


def test_a_20_pair_club_night_gets_the_mitchells_that_fit_the_time() -> None:
    advice = propose(20, minutes=210, minutes_per_board=7.5)
    assert advice.recommended == "mitchell"
    mitchell = advice.proposal("mitchell")
    assert mitchell is not None
    assert (mitchell.tables, mitchell.rounds, mitchell.boards_per_round) == (10, 9, 3)
    assert mitchell.played == 27
    assert mitchell.minutes == 202.5
    assert mitchell.winners == 2
    assert not mitchell.sit_outs
    assert {"mitchell-relay", "mitchell-arrow", "hesitation", "web-mitchell"} <= keys(20)
    # Every proposal is a valid movement within the time, its balance as balance.py says.
    for p in advice.proposals:
        validate(p.movement)
        assert p.minutes <= 210
        assert p.balance == round(comparison_balance(p.movement).balance, 1)
    # The arrow-switch has one winner and a better balance for one winner.
    arrow = advice.proposal("mitchell-arrow")
    assert arrow is not None
    assert arrow.winners == 1
    assert arrow.balance > mitchell.balance


def test_reasons_name_why_a_movement_does_not_fit() -> None:
    unfit = {u.key: u for u in propose(20, minutes=210).unfit}
    assert unfit["howell"].reason == "too_long"
    assert unfit["howell"].figures == {"rounds": 19, "boards": 38, "fit": 28}
    assert unfit["appendix-mitchell"].reason == "odd_pairs_only"
    assert unfit["rover-mitchell"].reason == "odd_pairs_only"
    assert unfit["individual"].reason == "individual_size"
    assert unfit["team-match"].reason == "two_teams"
    assert "teams-swiss" not in unfit  # ten teams: a Swiss of 4 rounds of 7 boards


def test_seven_pairs_get_a_complete_howell_with_a_phantom() -> None:
    advice = propose(7, minutes=210)
    assert advice.recommended == "howell"
    howell = advice.proposal("howell")
    assert howell is not None
    assert (howell.tables, howell.rounds, howell.boards_per_round) == (4, 7, 4)
    assert howell.balance == 100.0
    assert howell.sit_outs
    assert len(howell.movement.pairs()) == 7
    assert {"rover-mitchell", "three-quarter-howell"} <= keys(7)
    assert "hesitation" not in keys(7)


def test_an_odd_mitchell_has_a_phantom_and_odd_fields_get_appendix_and_rover() -> None:
    advice = propose(13)
    mitchell = advice.proposal("mitchell")
    assert mitchell is not None
    assert mitchell.sit_outs
    assert len(mitchell.movement.pairs()) == 13
    assert {"appendix-mitchell", "rover-mitchell"} <= keys(13)
    assert {u.key: u.reason for u in advice.unfit}["mitchell-relay"] == "odd_tables_no_relay"


def test_small_fields_get_individuals_and_team_matches() -> None:
    assert {"individual", "team-match", "howell"} <= keys(4)
    assert "individual" in keys(6)


def test_boards_per_round_given_by_the_td_are_kept_or_the_movement_does_not_fit() -> None:
    assert {p.boards_per_round for p in propose(20, boards_per_round=2).proposals} == {2}
    unfit = {u.key: u for u in propose(20, minutes=60, boards_per_round=4).unfit}
    assert unfit["mitchell"].reason == "too_long"


def test_bad_fields_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 2 pairs"):
        propose(1)
    with pytest.raises(ValueError, match="must be positive"):
        propose(10, minutes_per_board=0)


CSV = "section,table,round,ns,ew,boards\nA,1,1,1NS,1EW,1-2\nA,2,1,2NS,2EW,3-4\n"


def test_a_movement_file_is_read_and_a_bad_line_is_named() -> None:
    m = read_movement(CSV)
    assert (m.tables, m.rounds, m.boards()) == (2, 1, [1, 2, 3, 4])
    with pytest.raises(MovementFileError, match="line 3"):
        read_movement(CSV.replace("2NS,2EW,3-4", "2NS,2EW,x-y"))
    with pytest.raises(MovementFileError, match=r"line 3: round 1, table 2.*board 1"):
        read_movement(CSV.replace("2NS,2EW,3-4", "2NS,2EW,1-2"))
    with pytest.raises(MovementFileError, match="line 2"):
        read_movement('{"sections":\n  nonsense}')
    round_data = "Section,Table,Round,NSPair,EWPair,LowBoard,HighBoard\nA,1,1,1,2,1,3\n"
    assert read_movement(round_data).boards() == [1, 2, 3]
    with pytest.raises(MovementFileError, match="empty"):
        read_movement("  ")


def test_one_proposal_is_the_same_as_in_the_full_advice() -> None:
    full = propose(7).proposal("howell")
    one = proposal_for("howell", 7)
    assert one is not None
    assert full is not None
    assert one.movement == full.movement
    assert proposal_for("hesitation", 7) is None
    assert proposal_for("no-such-movement", 7) is None


def test_a_round_robin_of_teams_is_one_movement_from_the_circle_method() -> None:
    advice = propose(12, minutes=210)  # six teams: five rounds of three matches
    rr = advice.proposal("teams-round-robin")
    assert rr is not None
    assert (rr.tables, rr.rounds, rr.boards_per_round, rr.boards) == (6, 5, 5, 25)
    assert not rr.sit_outs
    m = rr.movement
    validate(m)
    assert m.kind == "teams"
    assert m.shared_tables == ((1, 2, 3, 4, 5, 6),)
    met = set()
    for r in range(1, 6):
        cells = {a.table: a for a in m.in_round(r)}
        assert len({a.boards for a in cells.values()}) == 1  # every match plays the same boards
        assert cells[1].boards == tuple(range(5 * r - 4, 5 * r + 1))
        for open_room in (1, 3, 5):
            home, away = cells[open_room], cells[open_room + 1]
            assert home.ns is not None
            assert home.ew is not None
            # the closed room seats the same two teams the other way round
            assert (away.ns, away.ew) == (
                PairRef(home.ew.number, "NS"),
                PairRef(home.ns.number, "EW"),
            )
            met.add(frozenset((home.ns.number, home.ew.number)))
    assert len(met) == 15  # every team met every other once


def test_an_odd_number_of_teams_has_a_bye_and_odd_pairs_or_too_few_teams_do_not_fit() -> None:
    rr = propose(14, minutes=210).proposal("teams-round-robin")  # seven teams
    assert rr is not None
    assert (rr.tables, rr.rounds, rr.boards_per_round) == (6, 7, 4)
    assert rr.sit_outs
    for r in range(1, 8):
        seated = {p.number for a in rr.movement.in_round(r) for p in (a.ns, a.ew) if p}
        assert len(seated) == 6  # one team has the bye each round
    unfit = {u.key: u for u in propose(13, minutes=210).unfit}
    assert unfit["teams-round-robin"].reason == "even_pairs_only"
    unfit = {u.key: u for u in propose(4, minutes=210).unfit}
    assert unfit["teams-round-robin"].reason == "round_robin_size"
    unfit = {u.key: u for u in propose(40, minutes=210).unfit}  # 20 teams, 19 rounds
    assert unfit["teams-round-robin"].reason == "too_long"
    assert unfit["teams-round-robin"].figures == {"rounds": 19, "boards": 38, "fit": 28}


def test_a_swiss_plays_fewer_rounds_than_a_round_robin_round_1_by_team_number() -> None:
    swiss = propose(16, minutes=210).proposal("teams-swiss")  # eight teams
    assert swiss is not None
    assert (swiss.tables, swiss.rounds, swiss.boards_per_round) == (8, 4, 7)
    m = swiss.movement
    validate(m)
    assert m.name == "Swiss teams, 8 teams, 4 rounds"
    first = {(a.ns.number, a.ew.number) for a in m.in_round(1) if a.table % 2 and a.ns and a.ew}
    assert first == {(1, 2), (3, 4), (5, 6), (7, 8)}
    unfit = {u.key: u for u in propose(6, minutes=210).unfit}  # three teams: a round robin
    assert unfit["teams-swiss"].reason == "swiss_size"
    unfit = {u.key: u for u in propose(16, minutes=40).unfit}
    assert unfit["teams-swiss"].reason == "too_long"
