"""Appendix Mitchell, the EBU two-circuit web Mitchell, a late pair's new table, individuals
as partnerships: validation, balance figures and the shapes the references describe."""

from __future__ import annotations

from collections import Counter

import pytest

from server.movements import PairRef, comparison_balance, howell, mitchell, validate
from server.movements.appendix import appendix_mitchell
from server.movements.balance import player_balance
from server.movements.catalog import build
from server.movements.edit import add_late_table, remove_pair
from server.movements.individual import individual
from server.movements.individual_pairs import as_partnerships, partnership_players
from server.movements.model import Movement
from server.movements.validate import MovementError
from server.movements.web_circuits import ebu_web_mitchell


@pytest.mark.parametrize("tables", range(4, 16))
def test_appendix_mitchell_validates_with_the_appendix_sharing_table_one(tables: int) -> None:
    for arrow in (0, 1):
        m = appendix_mitchell(tables, arrow_switch_rounds=arrow)
        validate(m)
    m = appendix_mitchell(tables)
    assert len(m.pairs()) == 2 * tables + 1
    assert m.rounds == tables - 1
    assert m.shared_tables == ((1, tables),)
    for r in range(1, m.rounds + 1):
        one, appendix = m.at(1, r), m.at(tables, r)
        assert one is not None
        assert appendix is not None
        assert one.boards == appendix.boards
    # N/S pairs never sit out; E/W pairs sit out at most once, and exactly two never do.
    sit_outs = Counter(a.pairs()[0] for a in m.assignments if not a.played)
    assert all(p.direction == "NS" for p in sit_outs)  # the E/W seat is the empty one
    ew_rounds = Counter(
        p for a in m.assignments if a.played for p in a.pairs() if p.direction == "EW"
    )
    assert sorted(set(ew_rounds.values())) == [m.rounds - 1, m.rounds]
    assert list(ew_rounds.values()).count(m.rounds) == 2
    report = comparison_balance(m)
    assert report.field_balance is not None
    assert report.field_balance >= 90


def test_appendix_mitchell_from_pairs_and_refusals() -> None:
    m = build("appendix-mitchell", pairs=21, boards_per_round=3)
    assert isinstance(m, Movement)
    assert m.tables == 10
    assert len(m.boards()) == 27
    with pytest.raises(ValueError, match="odd number of pairs"):
        build("appendix-mitchell", pairs=20)
    with pytest.raises(ValueError, match="4 or more"):
        appendix_mitchell(3)


@pytest.mark.parametrize("tables", range(6, 28, 2))
def test_web_mitchell_two_circuits_validate_and_every_pair_meets_every_set(tables: int) -> None:
    for sets in range(tables // 2, tables):
        if sets % 2 == 0:
            with pytest.raises(ValueError, match="odd number of board sets"):
                ebu_web_mitchell(tables, sets=sets)
            continue
        m = ebu_web_mitchell(tables, sets=sets)
        validate(m)
        for pair in m.pairs():
            assert len({b for a in m.for_pair(pair) for b in a.boards}) == 2 * sets
        for r in range(1, sets + 1):
            in_round = Counter(b for a in m.in_round(r) for b in a.boards)
            assert max(in_round.values()) <= 2
    m = ebu_web_mitchell(tables)
    assert m.circuits == (
        tuple(range(1, tables // 2 + 1)),
        tuple(range(tables // 2 + 1, tables + 1)),
    )
    # One copy only: the same movement is refused.
    with pytest.raises(MovementError, match="also in play"):
        validate(m.with_assignments(m.assignments, circuits=()))
    assert comparison_balance(m).field_balance == 100.0
    assert Movement.from_dict(m.to_dict()) == m


def test_late_pair_at_a_new_table_shares_the_sit_out_tables_boards() -> None:
    m = howell(13)
    late = add_late_table(m, PairRef(14), from_round=3)
    validate(late)
    assert late.tables == m.tables + 1
    assert [a for a in late.assignments if a.round < 3] == [a for a in m.assignments if a.round < 3]
    for r in range(3, m.rounds + 1):
        assert all(a.played for a in late.in_round(r) if a.table != 1)  # nobody sits out
    assert balance_better(late, m)
    fixed = add_late_table(
        mitchell(7), PairRef(8, "NS"), share_with=4, from_round=2, opponent=PairRef(8, "EW")
    )
    assert fixed.shared_tables == ((4, 8),)
    with pytest.raises(MovementError, match="already in the movement"):
        add_late_table(m, PairRef(3), from_round=2)
    with pytest.raises(MovementError, match="nobody sits out"):
        add_late_table(mitchell(5), PairRef(6, "NS"), share_with=1, from_round=2)
    with pytest.raises(ValueError, match="no round is left"):
        add_late_table(m, PairRef(14), from_round=m.rounds + 1)
    left = remove_pair(mitchell(5), PairRef(3, "EW"), from_round=2)
    validate(add_late_table(left, PairRef(6, "EW"), from_round=3))


def balance_better(after: Movement, before: Movement) -> bool:
    """More boards are compared once the phantom's victim plays the late pair."""

    def compared(m: Movement) -> int:
        report = comparison_balance(m)
        return sum(sum(row.values()) for row in report.comparisons.values())

    return compared(after) > compared(before)


@pytest.mark.parametrize("players", [8, 12])
def test_individual_as_partnerships_keeps_seats_and_meets_each_partner_once(players: int) -> None:
    source = individual(players)
    m = as_partnerships(source)
    validate(m)
    partners = partnership_players(m)
    assert len(partners) == players * (players - 1) // 2
    assert {frozenset(p) for p in partners.values()} == set(source.partners())
    for a, b in zip(
        sorted(source.assignments, key=lambda a: (a.round, a.table)), m.assignments, strict=True
    ):
        assert b.seats == (a.north, a.east, a.south, a.west)
    assert Movement.from_dict(m.to_dict()) == m
    figure = player_balance(m)
    assert 0 < figure <= 100
