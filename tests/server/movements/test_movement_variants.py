"""Hesitation Mitchell, rover pair and web (shared-board) sections."""

from __future__ import annotations

from collections import Counter

import pytest

from server.movements import MovementError, PairRef, mitchell, validate
from server.movements.mitchell_variants import (
    add_rover,
    hesitation_mitchell,
    validate_sections,
    web_mitchell,
)


@pytest.mark.parametrize("tables", range(3, 20, 2))
def test_hesitation_mitchell_validates(tables: int) -> None:
    for arrow in (0, 1, 2):
        m = hesitation_mitchell(tables, arrow_switch_rounds=arrow)
        validate(m)
        assert m.rounds == tables + 1
        assert len(m.boards()) == (tables + 1) * 2
        assert len(m.pairs()) == 2 * tables


def test_hesitation_pairs_play_one_round_north_south_at_the_last_table() -> None:
    m = hesitation_mitchell(7)
    moving = [PairRef(n) for n in range(7, 15)]
    for pair in moving:
        seats = Counter((a.table, a.seat_of(pair)) for a in m.for_pair(pair))
        assert seats[(7, "NS")] == 1
        assert sum(n for (t, s), n in seats.items() if s == "EW") == 7
    assert [a.ns for a in m.for_pair(PairRef(1))] == [PairRef(1)] * 8


@pytest.mark.parametrize("tables", range(4, 21, 2))
def test_hesitation_mitchell_on_even_tables_shares_table_one_and_validates(tables: int) -> None:
    for arrow in (0, 1, 2):
        m = hesitation_mitchell(tables, arrow_switch_rounds=arrow)
        validate(m)
        assert m.shared_tables == ((1, tables),)
        assert m.rounds == tables + 1
        assert len(m.boards()) == 2 * (tables + 1)
    m = hesitation_mitchell(tables)
    for r in range(1, m.rounds + 1):
        at_one, at_last = m.at(1, r), m.at(tables, r)
        assert at_one is not None
        assert at_last is not None
        assert at_one.boards == at_last.boards
    # Each moving pair plays one round N/S at the hesitation table and meets every set.
    for number in range(tables, 2 * tables + 1):
        rounds = m.for_pair(PairRef(number))
        assert [a.seat_of(PairRef(number)) for a in rounds].count("NS") == 1
        assert len({b for a in rounds for b in a.boards}) == 2 * (tables + 1)


def test_hesitation_mitchell_needs_three_tables() -> None:
    with pytest.raises(ValueError, match="3 or more"):
        hesitation_mitchell(2)


@pytest.mark.parametrize("tables", range(3, 16))
@pytest.mark.parametrize("even", ["skip", "relay"])
def test_rover_validates_and_each_ns_pair_sits_out_at_most_once(tables: int, even: str) -> None:
    base = mitchell(tables, even=even)  # type: ignore[arg-type]
    m = add_rover(base)
    validate(m)
    rover = PairRef(tables + 1, "NS")
    rover_rounds = m.for_pair(rover)
    assert len(rover_rounds) == base.rounds
    sit_outs = Counter(
        p
        for r in range(1, m.rounds + 1)
        for p in base.pairs()
        if p.direction == "NS" and all(p not in a.pairs() for a in m.in_round(r))
    )
    assert set(sit_outs.values()) <= {1}
    if tables % 2 and tables % 3:  # rover meets every E/W pair once
        assert len({a.ew for a in rover_rounds}) == tables


def test_web_mitchell_shares_boards_only_where_declared() -> None:
    web = web_mitchell(3, 7, boards_per_round=3)
    validate_sections(web.sections, web.shared)
    with pytest.raises(MovementError, match=r"round 1, table 1, pair 1NS: section B: board 1"):
        validate_sections(web.sections)
