"""The validator rejects broken movements with a message naming the round, table and pair."""

from __future__ import annotations

import dataclasses

import pytest

from server.movements import Movement, MovementError, PairRef, RoundAssignment, validate

NS1, NS2, EW1, EW2 = PairRef(1, "NS"), PairRef(2, "NS"), PairRef(1, "EW"), PairRef(2, "EW")


def two_tables(*cells: RoundAssignment, shared: tuple[tuple[int, ...], ...] = ()) -> Movement:
    return Movement("test", "mitchell", 2, 2, 2, cells, shared)


GOOD = (
    RoundAssignment(1, 1, NS1, EW1, (1, 2)),
    RoundAssignment(2, 1, NS2, EW2, (3, 4)),
    RoundAssignment(1, 2, NS1, EW2, (5, 6)),
    RoundAssignment(2, 2, NS2, EW1, (7, 8)),
)


def test_a_good_movement_passes() -> None:
    validate(two_tables(*GOOD))


def test_pair_twice_in_one_round() -> None:
    cells = (*GOOD[:3], RoundAssignment(2, 2, NS2, EW2, (7, 8)))
    with pytest.raises(MovementError, match=r"round 2, table 2, pair 2EW: sits at two tables") as e:
        validate(two_tables(*cells))
    assert (e.value.round, e.value.table, e.value.pair) == (2, 2, EW2)


def test_board_at_two_tables_unless_shared() -> None:
    cells = (GOOD[0], dataclasses.replace(GOOD[1], boards=(2, 5)))
    with pytest.raises(MovementError, match=r"round 1, table 2, pair 2NS: board 2 is also in play"):
        validate(two_tables(*cells))
    validate(two_tables(*cells, shared=((1, 2),)))
    validate(two_tables(*cells), shared_tables=[(2, 1)])


def test_same_board_twice() -> None:
    cells = (*GOOD[:3], dataclasses.replace(GOOD[3], boards=(4, 9)))
    with pytest.raises(MovementError, match=r"round 2, table 2, pair 2NS: plays board 4 again"):
        validate(two_tables(*cells))


def test_pair_meets_itself() -> None:
    cells = (RoundAssignment(1, 1, NS1, NS1, (1, 2)),)
    with pytest.raises(MovementError, match=r"round 1, table 1, pair 1NS: meets itself"):
        validate(two_tables(*cells))


def test_table_outside_and_twice() -> None:
    with pytest.raises(MovementError, match=r"round 1, table 3: table outside"):
        validate(two_tables(RoundAssignment(3, 1, NS1, EW1, (1,))))
    with pytest.raises(MovementError, match=r"round 1, table 1: table listed twice"):
        validate(two_tables(GOOD[0], dataclasses.replace(GOOD[0], ns=NS2, ew=EW2, boards=(3,))))


def test_sit_out_boards_are_not_in_play() -> None:
    cells = (GOOD[0], RoundAssignment(2, 1, NS2, None, (1, 2)))
    validate(two_tables(*cells))
