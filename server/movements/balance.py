"""Comparison balance: whom each pair is compared with, and how fair the movement is overall.

Two figures are reported.

Comparisons. Pair A's result on a board is compared with pair B's when both played that board
in the same direction (N/S or E/W seat, whatever their home direction) at different tables.
`comparisons[A][B]` counts those boards.

Balance. J. R. Manning's measure of competition (the EBU movements manual; also P. Smulders'
"balans" program): on a board played at t tables, two pairs compete by +1 when they sat in
the same direction at different tables (their matchpoints pull apart), by -1 when they sat in
opposite directions at different tables (allies: both gain from the same results), and by
t - 1 (half a top) when they played it against each other. Summed over the boards this gives
c(A, B) for each of the N pairs of pairs in a field; the total S = sum c equals the matchpoints
NS score in all (tables x boards x half a top), and the movement is balanced when every pair of
pairs competes equally, S / N. The balance figure is

    balance = 100 * (S^2 / N) / sum(c^2)

(Smulders' quality factor Qf): 100 for a perfectly balanced field, lower as the competition
spreads. A Mitchell without arrow-switch gives two fields (N/S and E/W); `field_balance` is
then the figure within each home direction, `balance` the figure for a single winner.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from server.movements.model import Direction, Movement, PairRef


@dataclass(frozen=True)
class BalanceReport:
    """Comparison counts per pair and the balance figures of a movement."""

    pairs: tuple[PairRef, ...]
    comparisons: dict[PairRef, dict[PairRef, int]]
    competition: dict[frozenset[PairRef], int]
    balance: float
    field_balance: float | None

    def compared(self, a: PairRef, b: PairRef) -> int:
        """How many boards pair a's result is compared with pair b's."""
        return self.comparisons[a].get(b, 0)

    def spread(self, pair: PairRef) -> tuple[int, int]:
        """The fewest and most boards the pair is compared with any other pair."""
        counts = [self.compared(pair, other) for other in self.pairs if other != pair]
        return (min(counts), max(counts)) if counts else (0, 0)

    def table(self) -> list[list[int]]:
        """The comparison counts as a square table in `pairs` order (0 on the diagonal)."""
        return [[self.compared(a, b) if a != b else 0 for b in self.pairs] for a in self.pairs]


def comparison_balance(m: Movement) -> BalanceReport:
    """Compute the comparison counts and the balance figures of a movement."""
    seats: dict[int, list[tuple[int, PairRef, Direction]]] = defaultdict(list)
    for cell in m.assignments:
        if cell.ns is None or cell.ew is None:
            continue
        for board in cell.boards:
            seats[board].append((cell.table, cell.ns, "NS"))
            seats[board].append((cell.table, cell.ew, "EW"))
    pairs = tuple(m.pairs())
    comparisons: dict[PairRef, dict[PairRef, int]] = {p: {} for p in pairs}
    competition: dict[frozenset[PairRef], int] = defaultdict(int)
    for entries in seats.values():
        half_top = len(entries) // 2 - 1
        for (table_a, first, seat_a), (table_b, second, seat_b) in combinations(entries, 2):
            key = frozenset((first, second))
            if table_a == table_b:
                competition[key] += half_top
            elif seat_a == seat_b:
                competition[key] += 1
                comparisons[first][second] = comparisons[first].get(second, 0) + 1
                comparisons[second][first] = comparisons[second].get(first, 0) + 1
            else:
                competition[key] -= 1
    fields = _fields(m, pairs)
    return BalanceReport(
        pairs=pairs,
        comparisons=comparisons,
        competition=dict(competition),
        balance=_quality([competition.get(frozenset(k), 0) for k in combinations(pairs, 2)]),
        field_balance=None
        if len(fields) < 2
        else _quality(
            [competition.get(frozenset(k), 0) for field in fields for k in combinations(field, 2)]
        ),
    )


#: Movement kinds whose pairs keep a home direction (N/S or E/W) and may have two winners.
TWO_FIELD_KINDS = ("mitchell", "appendix-mitchell", "web-mitchell")


def _fields(m: Movement, pairs: Iterable[PairRef]) -> list[list[PairRef]]:
    """Two fields (the N/S and E/W lines) when no pair ever changes direction, else one."""
    if m.kind in TWO_FIELD_KINDS and all(
        a.ns is None or a.ns.direction == "NS" for a in m.assignments
    ):
        by_direction: dict[Direction | None, list[PairRef]] = defaultdict(list)
        for p in pairs:
            by_direction[p.direction].append(p)
        return list(by_direction.values())
    return [list(pairs)]


def _quality(values: list[int]) -> float:
    """Smulders' Qf: 100 * (S^2 / N) / sum of squares; 100 when all values are equal."""
    squares = sum(v * v for v in values)
    if not values or squares == 0:
        return 100.0
    return 100.0 * sum(values) ** 2 / len(values) / squares


def player_balance(m: Movement) -> float:
    """The balance figure of an individual (a movement with seats), player against player.

    As for pairs, on a board played at t tables two players compete by +1 when they sat in
    the same direction at different tables, by -1 in opposite directions, and by t - 1 when
    they were opponents at one table; partners at one table share every result, -(t - 1).
    """
    seats: dict[int, list[tuple[int, int, Direction]]] = defaultdict(list)
    for cell in m.assignments:
        if cell.seats is None or not cell.played or None in cell.seats:
            continue
        north, east, south, west = cell.seats
        sides: tuple[tuple[int | None, Direction], ...] = (
            (north, "NS"),
            (south, "NS"),
            (east, "EW"),
            (west, "EW"),
        )
        for board in cell.boards:
            for player, direction in sides:
                assert player is not None
                seats[board].append((cell.table, player, direction))
    competition: dict[frozenset[int], int] = defaultdict(int)
    for entries in seats.values():
        half_top = len(entries) // 4 - 1
        for (table_a, first, seat_a), (table_b, second, seat_b) in combinations(entries, 2):
            key = frozenset((first, second))
            if table_a == table_b:
                competition[key] += half_top if seat_a != seat_b else -half_top
            else:
                competition[key] += 1 if seat_a == seat_b else -1
    players = sorted({p for entries in seats.values() for _, p, _ in entries})
    return _quality([competition.get(frozenset(k), 0) for k in combinations(players, 2)])
