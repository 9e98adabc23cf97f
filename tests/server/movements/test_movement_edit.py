"""Changing a running session keeps the rounds already played and stays valid."""

from __future__ import annotations

import pytest

from server.movements import Movement, MovementError, PairRef, howell, mitchell, validate
from server.movements.edit import (
    add_late_pair,
    change_boards_per_round,
    remove_pair,
    replace_pair,
    stop_after,
)


def played_before(m: Movement, round: int) -> list[object]:
    return [a for a in m.assignments if a.round < round]


def test_late_pair_takes_the_phantoms_place() -> None:
    m = howell(13)
    late = add_late_pair(m, PairRef(14), from_round=3)
    assert played_before(late, 3) == played_before(m, 3)
    for r in range(3, 14):
        assert all(a.played for a in late.in_round(r))
    assert len(late.for_pair(PairRef(14))) == 11


def test_late_pair_needs_one_empty_seat() -> None:
    m = remove_pair(howell(13), PairRef(3), from_round=1)
    with pytest.raises(MovementError, match="more than one empty seat"):
        add_late_pair(m, PairRef(14))
    with pytest.raises(MovementError, match="already in the movement"):
        add_late_pair(howell(13), PairRef(2))


def test_remove_a_pair_gives_its_opponents_sit_outs() -> None:
    m = mitchell(7, boards_per_round=3)
    left = remove_pair(m, PairRef(4, "EW"), from_round=5)
    assert played_before(left, 5) == played_before(m, 5)
    assert len(left.for_pair(PairRef(4, "EW"))) == 4
    sit_outs = [a for a in left.assignments if not a.played]
    assert [a.round for a in sit_outs] == [5, 6, 7]
    assert all(a.ns is not None for a in sit_outs)


def test_replace_pair() -> None:
    m = replace_pair(mitchell(5), PairRef(2, "EW"), PairRef(9, "EW"), from_round=2)
    assert len(m.for_pair(PairRef(9, "EW"))) == 4


@pytest.mark.parametrize("new", [1, 2, 3, 5])
def test_change_boards_per_round(new: int) -> None:
    m = mitchell(8, boards_per_round=3, even="relay", arrow_switch_rounds=1)
    changed = change_boards_per_round(m, new, from_round=4)
    validate(changed)
    assert played_before(changed, 4) == played_before(m, 4)
    assert {len(a.boards) for a in changed.assignments if a.round >= 4} == {new}
    if new > 3:
        assert max(changed.boards()) == 24 + 8 * (new - 3)


def test_stop_after() -> None:
    m = stop_after(mitchell(9), 6)
    assert m.rounds == 6
    assert max(a.round for a in m.assignments) == 6
    with pytest.raises(ValueError, match="between 1 and 6"):
        stop_after(m, 7)
