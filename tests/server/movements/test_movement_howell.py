"""Howells: every size offered validates; complete Howells meet everyone once and play every set."""

from __future__ import annotations

from collections import Counter

import pytest

from server.movements import MovementError, PairRef, comparison_balance, validate
from server.movements.howell import (
    MAX_PAIRS,
    MIN_PAIRS,
    complete_rounds,
    designs,
    howell,
    three_quarter_howell,
)
from server.movements.howell_design import design_movement, search_design
from server.movements.howell_tuning import tune

SIZES = range(MIN_PAIRS, MAX_PAIRS + 1)


@pytest.mark.parametrize("pairs", SIZES)
def test_complete_howell_meets_everyone_once_and_plays_every_board(pairs: int) -> None:
    m = howell(pairs)
    validate(m)
    seated = m.pairs()
    assert len(seated) == pairs
    meetings = Counter(frozenset(a.pairs()) for a in m.assignments if a.played)
    assert set(meetings.values()) == {1}
    assert len(meetings) == pairs * (pairs - 1) // 2
    for pair in seated:
        played = [b for a in m.for_pair(pair) if a.played for b in a.boards]
        assert len(played) == len(set(played))
        if pairs % 2 == 0:
            assert sorted(played) == m.boards()
        else:  # one sit-out round, whose boards the pair misses
            assert len(played) == len(m.boards()) - m.boards_per_round


@pytest.mark.parametrize("pairs", SIZES)
def test_short_and_three_quarter_howells_validate(pairs: int) -> None:
    validate(three_quarter_howell(pairs, boards_per_round=3))
    for rounds in {1, complete_rounds(pairs) // 2}:
        if rounds:
            validate(howell(pairs, rounds=rounds))


@pytest.mark.parametrize("boards_per_round", [1, 2, 3, 4])
def test_six_pairs_with_any_boards_per_round(boards_per_round: int) -> None:
    m = howell(6, boards_per_round=boards_per_round)
    validate(m)
    relay = howell(6, boards_per_round=boards_per_round, relay=True)
    validate(relay)
    assert relay.shared_tables == ((1, 2, 3),)


def test_thirteen_pair_howell_with_a_phantom() -> None:
    m = howell(13, boards_per_round=2)
    validate(m)
    assert m.tables == 7
    assert m.rounds == 13
    assert PairRef(14) not in m.pairs()
    for r in range(1, 14):
        empty = [a for a in m.in_round(r) if not a.played]
        assert len(empty) == 1, "exactly one pair sits out each round"
    sit_outs = Counter(p for a in m.assignments if not a.played for p in a.pairs())
    assert sorted(sit_outs) == [PairRef(n) for n in range(1, 14)]
    assert set(sit_outs.values()) == {1}
    assert comparison_balance(m).balance > 99.9


def test_every_size_has_a_design() -> None:
    complete = designs("complete")
    assert sorted(complete) == list(SIZES)
    for pairs, design in complete.items():
        assert design.pairs == pairs + pairs % 2
    assert set(designs("three_quarter")) <= set(SIZES)


@pytest.mark.parametrize(
    ("pairs", "kwargs"), [(2, {}), (41, {}), (8, {"rounds": 8}), (8, {"boards_per_round": 0})]
)
def test_impossible_howells_are_refused(pairs: int, kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match=r"\S"):
        howell(pairs, **kwargs)  # type: ignore[arg-type]


def test_relay_sharing_is_needed_for_the_six_pair_relay() -> None:
    m = howell(6, boards_per_round=3)
    with pytest.raises(MovementError, match="also in play"):
        validate(m.with_assignments(m.assignments, shared_tables=()))


@pytest.mark.parametrize("m", [7, 9, 11, 13, 21])
def test_search_finds_a_room_square(m: int) -> None:
    design = search_design(m, seed=1)
    assert design is not None
    movement = design_movement(design)
    validate(movement)
    assert len({frozenset(a.pairs()) for a in movement.assignments}) == m * (m + 1) // 2


def test_no_room_square_for_four_or_six_pairs() -> None:
    assert search_design(3) is None
    assert search_design(5) is None
    relay = search_design(3, relay=True)
    assert relay is not None
    assert relay.relay == (1, 2)


def test_tuning_finds_the_perfect_four_table_howell() -> None:
    design, score = tune(8, 7, seconds=0.2)
    assert score == pytest.approx(100.0)
    validate(design_movement(design))
