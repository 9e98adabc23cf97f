"""Comparison balance: known figures for Mitchells and Howells, and the counts behind them."""

from __future__ import annotations

from itertools import combinations

import pytest

from server.movements import Movement, PairRef, comparison_balance, mitchell
from server.movements.bridgescorer import load_bundled


def total_matchpoints(m: Movement) -> int:
    """Tables x boards x half a top, summed board by board: all the N/S matchpoints."""
    plays: dict[int, int] = {}
    for a in m.assignments:
        if a.played:
            for b in a.boards:
                plays[b] = plays.get(b, 0) + 1
    return sum(t * (t - 1) for t in plays.values())


@pytest.mark.parametrize("tables", [3, 5, 7, 9, 11])
def test_two_winner_mitchell(tables: int) -> None:
    report = comparison_balance(mitchell(tables))
    assert report.field_balance == pytest.approx(100.0)
    # One field: N/S v E/W competition cancels (they meet once, are allies elsewhere).
    assert report.balance == pytest.approx(100.0 * (tables - 1) / (2 * tables - 1))
    ns1, ns2, ew1 = PairRef(1, "NS"), PairRef(2, "NS"), PairRef(1, "EW")
    assert report.compared(ns1, ns2) == tables * 2
    assert report.compared(ns1, ew1) == 0


def test_arrow_switching_about_an_eighth_of_the_rounds_is_best() -> None:
    figures = {k: comparison_balance(mitchell(9, arrow_switch_rounds=k)).balance for k in range(5)}
    assert max(figures, key=lambda k: figures[k]) == 1
    assert figures[1] > 90


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Movement.Howell08T4B14", 100.0),
        ("Movement.Howell12T6B22", 100.0),
        ("Movement.Howell10T5B18", 83.33),
    ],
)
def test_known_howell_balance(name: str, expected: float) -> None:
    m = load_bundled(name)
    assert isinstance(m, Movement)
    assert comparison_balance(m).balance == pytest.approx(expected, abs=0.01)


@pytest.mark.parametrize(
    "m",
    [
        mitchell(7, arrow_switch_rounds=1),
        mitchell(6, even="relay"),
        load_bundled("Movement.Howell09T4B18"),
    ],
    ids=str,
)
def test_competition_adds_up_to_all_the_matchpoints(m: Movement) -> None:
    assert isinstance(m, Movement)
    report = comparison_balance(m)
    assert sum(report.competition.values()) == total_matchpoints(m)
    for a, b in combinations(report.pairs, 2):
        assert report.compared(a, b) == report.compared(b, a)
    table = report.table()
    assert all(table[i][i] == 0 for i in range(len(table)))
