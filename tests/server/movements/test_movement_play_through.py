"""Play whole sessions through, round by round, following the guide cards: a 13-pair Howell
with a phantom and a 9-table Mitchell with an arrow-switch."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from server.movements import Movement, PairRef, comparison_balance, howell, mitchell, validate
from server.movements.guide import pair_card


def play(m: Movement, seed: int) -> dict[PairRef, float]:
    """Seat every pair where its guide card says, play the boards, matchpoint them (2 per
    pair beaten, 1 per tie, in the direction actually played) and return each pair's total."""
    validate(m)
    rng = random.Random(seed)
    cards = {p: pair_card(m, p) for p in m.pairs()}
    scores: dict[int, list[tuple[PairRef, PairRef, int]]] = defaultdict(list)
    for r in range(1, m.rounds + 1):
        seated: dict[int, dict[str, PairRef]] = defaultdict(dict)
        for pair, card in cards.items():
            row = card[r - 1]
            if row.table is not None and row.seat is not None:
                seated[row.table][row.seat] = pair
        for a in m.in_round(r):
            assert seated[a.table].get("NS") == a.ns
            assert seated[a.table].get("EW") == a.ew
            if a.ns is None or a.ew is None:
                continue
            for board in a.boards:
                scores[board].append((a.ns, a.ew, rng.choice([-200, -100, 110, 140, 420, 620])))
    totals: dict[PairRef, float] = defaultdict(float)
    for results in scores.values():
        for ns, ew, score in results:
            beaten = (
                sum(2 if score > other else 1 if score == other else 0 for _, _, other in results)
                - 1
            )
            top = 2 * (len(results) - 1)
            totals[ns] += beaten
            totals[ew] += top - beaten
        assert len({p for ns, ew, _ in results for p in (ns, ew)}) == 2 * len(results)
    return totals


def test_thirteen_pair_howell_with_phantom() -> None:
    m = howell(13, boards_per_round=2)
    totals = play(m, seed=13)
    assert len(totals) == 13
    boards = m.boards()
    assert len(boards) == 26
    # Every board is played at 6 tables (one table sits out each round): top 10.
    expected = len(boards) * 6 * 10
    assert sum(totals.values()) == pytest.approx(expected)
    assert comparison_balance(m).balance > 99.9


def test_nine_table_mitchell_with_arrow_switch() -> None:
    m = mitchell(9, boards_per_round=3, arrow_switch_rounds=1)
    totals = play(m, seed=9)
    assert len(totals) == 18
    assert sum(totals.values()) == pytest.approx(27 * 9 * 16)
    last = m.in_round(9)
    assert all(a.ns is not None and a.ns.direction == "EW" for a in last)
    report = comparison_balance(m)
    assert report.compared(PairRef(1, "NS"), PairRef(1, "EW")) > 0
    assert report.balance > 90
