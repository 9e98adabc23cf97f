"""Individual movements for 8 and 12 players."""

from __future__ import annotations

import dataclasses

import pytest

from server.movements import MovementError
from server.movements.individual import (
    IndividualMovement,
    individual,
    validate_individual,
)


@pytest.mark.parametrize("players", [8, 12])
@pytest.mark.parametrize("boards_per_round", [1, 2, 3])
def test_everyone_partners_everyone_once(players: int, boards_per_round: int) -> None:
    m = individual(players, boards_per_round=boards_per_round)
    validate_individual(m)
    assert m.players() == list(range(1, players + 1))
    partners = m.partners()
    assert len(partners) == players * (players - 1) // 2
    assert set(partners.values()) == {1}
    for player in m.players():
        boards = [b for a in m.for_player(player) for b in a.boards]
        assert len(boards) == len(set(boards)) == m.rounds * boards_per_round
    assert IndividualMovement.from_dict(m.to_dict()) == m


def test_eight_players_oppose_everyone_twice() -> None:
    assert set(individual(8).opponents().values()) == {2}


def test_a_player_twice_in_a_round_is_rejected() -> None:
    m = individual(12)
    first = m.assignments[0]
    broken = dataclasses.replace(m.assignments[1], north=first.north)
    cells = (first, broken, *m.assignments[2:])
    with pytest.raises(MovementError, match=r"round 1, table \d: player 12 sits at two tables"):
        validate_individual(dataclasses.replace(m, assignments=cells))


def test_other_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="8, 12"):
        individual(16)
