"""Mitchell generator: every size and option validates; each N/S meets each E/W at most once."""

from __future__ import annotations

import pytest

from server.movements import Movement, PairRef, mitchell, validate
from server.movements.mitchell import max_rounds

SIZES = range(2, 21)


def meetings(m: Movement) -> set[frozenset[PairRef]]:
    return {frozenset(a.pairs()) for a in m.assignments if a.played}


@pytest.mark.parametrize("tables", SIZES)
@pytest.mark.parametrize("even", ["skip", "relay"])
def test_every_size_and_round_count_validates(tables: int, even: str) -> None:
    most = max_rounds(tables, even)  # type: ignore[arg-type]
    for rounds in range(1, most + 1):
        for arrow in {0, 1, rounds}:
            m = mitchell(tables, rounds=rounds, even=even, arrow_switch_rounds=arrow)  # type: ignore[arg-type]
            validate(m)
            assert len(m.assignments) == tables * rounds


@pytest.mark.parametrize("tables", [t for t in SIZES if t % 2 == 1])
def test_odd_tables_each_ns_meets_each_ew_once(tables: int) -> None:
    m = mitchell(tables)
    assert m.rounds == tables
    assert meetings(m) == {
        frozenset((PairRef(n, "NS"), PairRef(e, "EW")))
        for n in range(1, tables + 1)
        for e in range(1, tables + 1)
    }
    for pair in m.pairs():
        assert len(m.for_pair(pair)) == tables
        assert sorted(b for a in m.for_pair(pair) for b in a.boards) == m.boards()


@pytest.mark.parametrize("tables", [t for t in SIZES if t % 2 == 0])
def test_even_relay_meets_everyone_and_skip_misses_one(tables: int) -> None:
    relay = mitchell(tables, even="relay")
    assert relay.shared_tables == ((1, tables),)
    assert len(meetings(relay)) == tables * tables
    skip = mitchell(tables, even="skip")
    assert skip.rounds == tables - 1
    assert len(meetings(skip)) == tables * (tables - 1)


def test_relay_round_one_shares_set_one_and_bye_stand_holds_the_last() -> None:
    m = mitchell(6, even="relay", boards_per_round=3)
    first = {a.table: a.boards for a in m.in_round(1)}
    assert first[1] == first[6] == (1, 2, 3)
    assert set(m.boards()) - {b for bs in first.values() for b in bs} == {16, 17, 18}


def test_round_one_layout_and_board_sets() -> None:
    m = mitchell(5, boards_per_round=4)
    assert m.name == "Mitchell 5 tables"
    assert m.boards() == list(range(1, 21))
    a = m.at(3, 1)
    assert a is not None
    assert (a.ns, a.ew, a.boards) == (PairRef(3, "NS"), PairRef(3, "EW"), (9, 10, 11, 12))
    b = m.at(3, 2)
    assert b is not None
    # E/W move up one table, boards move down one table.
    assert (b.ew, b.boards) == (PairRef(2, "EW"), (13, 14, 15, 16))


def test_skip_after_half_the_rounds() -> None:
    m = mitchell(4)
    tables_of_ew1 = [a.table for a in m.for_pair(PairRef(1, "EW"))]
    assert tables_of_ew1 == [1, 2, 4]


def test_arrow_switch_swaps_seats_in_the_last_rounds() -> None:
    m = mitchell(9, arrow_switch_rounds=2)
    validate(m)
    for a in m.assignments:
        assert a.ns is not None
        assert a.ew is not None
        expected = ("EW", "NS") if a.round > 7 else ("NS", "EW")
        assert (a.ns.direction, a.ew.direction) == expected


@pytest.mark.parametrize(
    ("tables", "kwargs"),
    [
        (1, {}),
        (5, {"rounds": 6}),
        (4, {"rounds": 4}),
        (5, {"arrow_switch_rounds": 6}),
        (5, {"boards_per_round": 0}),
    ],
)
def test_impossible_mitchells_are_refused(tables: int, kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match=r"\S"):
        mitchell(tables, **kwargs)  # type: ignore[arg-type]


def test_json_dict_round_trip() -> None:
    m = mitchell(8, even="relay", arrow_switch_rounds=1)
    assert Movement.from_dict(m.to_dict()) == m
