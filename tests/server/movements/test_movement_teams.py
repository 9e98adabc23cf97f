"""Teams: the two-room match, round robins for 2-40 teams, Swiss pairings with no repeats."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from server.movements import PairRef, validate
from server.movements.teams import (
    Match,
    byes,
    check_schedule,
    round_robin,
    swiss_pairings,
    team_match,
)


def test_home_team_sits_north_south_in_the_open_room() -> None:
    m = team_match(3, 8, boards=range(1, 25), rounds=2)
    validate(m)
    open_room, closed_room = m.at(1, 1), m.at(2, 1)
    assert open_room is not None
    assert closed_room is not None
    assert (open_room.ns, open_room.ew) == (PairRef(3, "NS"), PairRef(8, "EW"))
    assert (closed_room.ns, closed_room.ew) == (PairRef(8, "NS"), PairRef(3, "EW"))
    assert open_room.boards == closed_room.boards == tuple(range(1, 13))
    assert m.shared_tables == ((1, 2),)


@pytest.mark.parametrize("teams", range(4, 41))
def test_round_robin(teams: int) -> None:
    matches = round_robin(teams)
    check_schedule(teams, matches)
    assert len(matches) == teams * (teams - 1) // 2
    assert max(m.round for m in matches) == teams - 1 + teams % 2
    homes, aways = Counter(m.home for m in matches), Counter(m.away for m in matches)
    assert all(abs(homes[t] - aways[t]) <= 1 for t in range(1, teams + 1))
    if teams % 2:
        assert sorted(byes(teams, matches).values()) == list(range(1, teams + 1))


def test_check_schedule_finds_a_repeat() -> None:
    with pytest.raises(ValueError, match="round 2: teams 2 and 1 meet again"):
        check_schedule(4, [Match(1, 1, 2), Match(2, 2, 1)])


@pytest.mark.parametrize("teams", range(4, 41))
def test_swiss_never_repeats(teams: int) -> None:
    rng = random.Random(teams)
    score = dict.fromkeys(range(1, teams + 1), 0)
    played: list[tuple[int, int]] = []
    had_bye: list[int] = []
    homes: Counter[int] = Counter()
    for r in range(1, max(2, teams // 2 - 1) + 1):
        standings = sorted(score, key=lambda t: (-score[t], t))
        matches, bye = swiss_pairings(
            standings, played, round=r, home_counts=dict(homes), had_bye=had_bye
        )
        assert len(matches) == teams // 2
        if bye is not None:
            assert bye not in had_bye
            had_bye.append(bye)
        for m in matches:
            played.append((m.home, m.away))
            homes[m.home] += 1
            score[m.home] += rng.randint(0, 20)
            score[m.away] += rng.randint(0, 20)
    check_schedule(teams, [Match(1 + i, h, a) for i, (h, a) in enumerate(played)])


def test_swiss_pairs_the_leaders_together() -> None:
    matches, bye = swiss_pairings([5, 2, 7, 1, 3])
    assert bye == 3
    assert [(m.home, m.away) for m in matches] == [(5, 2), (7, 1)]
    matches, _ = swiss_pairings([5, 2, 7, 1], played=[(5, 2)])
    assert {frozenset((m.home, m.away)) for m in matches} == {frozenset((5, 7)), frozenset((2, 1))}


def test_swiss_says_when_no_pairing_exists() -> None:
    with pytest.raises(ValueError, match="round 4: no Swiss pairing"):
        swiss_pairings([1, 2, 3, 4], played=[(1, 2), (1, 3), (1, 4)], round=4)
