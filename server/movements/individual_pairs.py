"""An individual movement as partnerships, so a pairs server can play and score it.

Every two players who partner each other form a partnership, numbered in the order they first
sit (round, then table, N/S before E/W). The partnership movement has the same tables, rounds
and boards; each assignment also keeps the four players' seats. A player's score on a board
is the score of the partnership they played it in (individual matchpoints).
"""

from __future__ import annotations

from server.movements.model import IndividualMovement, Movement, PairRef, RoundAssignment


def as_partnerships(m: IndividualMovement) -> Movement:
    """The partnerships movement of an individual (kind "individual", seats kept)."""
    numbers: dict[frozenset[int], int] = {}

    def partnership(first: int | None, second: int | None) -> PairRef | None:
        if first is None or second is None:
            return None
        key = frozenset((first, second))
        if key not in numbers:
            numbers[key] = len(numbers) + 1
        return PairRef(numbers[key])

    cells = []
    for a in sorted(m.assignments, key=lambda a: (a.round, a.table)):
        ns = partnership(a.north, a.south)
        ew = partnership(a.east, a.west)
        seats = (a.north, a.east, a.south, a.west)
        cells.append(RoundAssignment(a.table, a.round, ns, ew, a.boards, seats=seats))
    return Movement(
        name=m.name,
        kind="individual",
        tables=m.tables,
        rounds=m.rounds,
        boards_per_round=m.boards_per_round,
        assignments=tuple(cells),
        shared_tables=m.shared_tables,
    )


def partnership_players(m: Movement) -> dict[PairRef, tuple[int, int]]:
    """Each partnership's two players (N then S, or E then W, where it first sits)."""
    players: dict[PairRef, tuple[int, int]] = {}
    for a in sorted(m.assignments, key=lambda a: (a.round, a.table)):
        if a.seats is None:
            continue
        north, east, south, west = a.seats
        for pair, first, second in ((a.ns, north, south), (a.ew, east, west)):
            if pair is not None and first is not None and second is not None:
                players.setdefault(pair, (first, second))
    return players


def players_of(m: Movement) -> list[int]:
    """Every player seated in the movement, in number order."""
    return sorted({p for a in m.assignments if a.seats for p in a.seats if p is not None})
