"""Individual movements: each player moves alone and partners a different player each round."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from server.movements.validate import MovementError

SEATS = ("north", "east", "south", "west")


@dataclass(frozen=True)
class IndividualAssignment:
    """One table in one round: a player (or None) in each seat, and the boards."""

    table: int
    round: int
    north: int | None
    east: int | None
    south: int | None
    west: int | None
    boards: tuple[int, ...]

    def players(self) -> tuple[int, ...]:
        return tuple(p for p in (self.north, self.east, self.south, self.west) if p is not None)

    def partnerships(self) -> tuple[tuple[int | None, int | None], tuple[int | None, int | None]]:
        """The N/S and E/W partnerships at the table."""
        return (self.north, self.south), (self.east, self.west)

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "round": self.round,
            **{seat: getattr(self, seat) for seat in SEATS},
            "boards": list(self.boards),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> IndividualAssignment:
        return cls(
            table=int(d["table"]),
            round=int(d["round"]),
            boards=tuple(int(b) for b in d["boards"]),
            **{seat: None if d.get(seat) is None else int(d[seat]) for seat in SEATS},
        )


@dataclass(frozen=True)
class IndividualMovement:
    """An individual movement: players numbered 1..n, one seat each per round."""

    name: str
    tables: int
    rounds: int
    boards_per_round: int
    assignments: tuple[IndividualAssignment, ...]
    kind: str = "individual"
    shared_tables: tuple[tuple[int, ...], ...] = ()

    def players(self) -> list[int]:
        return sorted({p for a in self.assignments for p in a.players()})

    def boards(self) -> list[int]:
        return sorted({b for a in self.assignments for b in a.boards})

    def at(self, table: int, round: int) -> IndividualAssignment | None:
        for a in self.assignments:
            if a.table == table and a.round == round:
                return a
        return None

    def for_player(self, player: int) -> list[IndividualAssignment]:
        return sorted((a for a in self.assignments if player in a.players()), key=lambda a: a.round)

    def partners(self) -> Counter[frozenset[int]]:
        """How often each two players partnered each other."""
        counts: Counter[frozenset[int]] = Counter()
        for a in self.assignments:
            for first, second in a.partnerships():
                if first is not None and second is not None:
                    counts[frozenset((first, second))] += 1
        return counts

    def opponents(self) -> Counter[frozenset[int]]:
        """How often each two players sat against each other."""
        counts: Counter[frozenset[int]] = Counter()
        for a in self.assignments:
            ns, ew = a.partnerships()
            for first in ns:
                for second in ew:
                    if first is not None and second is not None:
                        counts[frozenset((first, second))] += 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "tables": self.tables,
            "rounds": self.rounds,
            "boards_per_round": self.boards_per_round,
            "shared_tables": [list(group) for group in self.shared_tables],
            "assignments": [a.to_dict() for a in self.assignments],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> IndividualMovement:
        return cls(
            name=str(d["name"]),
            kind=str(d.get("kind", "individual")),
            tables=int(d["tables"]),
            rounds=int(d["rounds"]),
            boards_per_round=int(d["boards_per_round"]),
            assignments=tuple(IndividualAssignment.from_dict(a) for a in d["assignments"]),
            shared_tables=tuple(
                tuple(int(t) for t in group) for group in d.get("shared_tables", ())
            ),
        )


def validate_individual(
    m: IndividualMovement, *, shared_tables: Iterable[Iterable[int]] = ()
) -> None:
    """Raise MovementError: a player twice in a round or at a table, boards at two tables
    not declared as sharing, or a player given the same board twice."""
    sharing = {
        frozenset((first, second))
        for group in (*m.shared_tables, *shared_tables)
        for first, second in combinations(sorted(set(group)), 2)
    }
    played: dict[int, dict[int, int]] = {}
    for round_number in sorted({a.round for a in m.assignments}):
        seated: dict[int, int] = {}
        in_play: dict[int, int] = {}
        for a in sorted((a for a in m.assignments if a.round == round_number), key=_table):
            players = a.players()
            if len(set(players)) != len(players):
                raise MovementError("a player is in two seats", round=a.round, table=a.table)
            for player in players:
                if player in seated:
                    raise MovementError(
                        f"player {player} sits at two tables ({seated[player]} and {a.table})",
                        round=a.round,
                        table=a.table,
                    )
                seated[player] = a.table
            if len(players) < 4:
                continue
            for board in a.boards:
                if board in in_play and frozenset((in_play[board], a.table)) not in sharing:
                    raise MovementError(
                        f"board {board} is also in play at table {in_play[board]}",
                        round=a.round,
                        table=a.table,
                    )
                in_play.setdefault(board, a.table)
                for player in players:
                    before = played.setdefault(player, {}).get(board)
                    if before is not None:
                        raise MovementError(
                            f"player {player} plays board {board} again (round {before})",
                            round=a.round,
                            table=a.table,
                        )
                    played[player][board] = a.round


def _table(a: IndividualAssignment) -> int:
    return a.table


_PATTERNS = {
    8: "IndividualMovement.Individual2Tables14Boards",
    12: "IndividualMovement.Individual3Tables",
}


def individual(players: int, *, boards_per_round: int = 2) -> IndividualMovement:
    """An individual for 8 players (2 tables, 7 rounds, both tables sharing each round's
    boards) or 12 players (3 tables, 11 rounds), from the bundled bridgescorer patterns.

    Every player partners every other player exactly once.
    """
    from server.movements.bridgescorer import load_bundled

    if players not in _PATTERNS:
        raise ValueError(f"individual movements are offered for {sorted(_PATTERNS)} players")
    if boards_per_round < 1:
        raise ValueError("boards_per_round must be at least 1")
    pattern = load_bundled(_PATTERNS[players])
    assert isinstance(pattern, IndividualMovement)
    sets: dict[tuple[int, ...], int] = {}
    for a in sorted(pattern.assignments, key=lambda a: a.boards):
        sets.setdefault(a.boards, len(sets) + 1)
    cells = tuple(
        IndividualAssignment(
            a.table,
            a.round,
            a.north,
            a.east,
            a.south,
            a.west,
            tuple(
                range(
                    (sets[a.boards] - 1) * boards_per_round + 1,
                    sets[a.boards] * boards_per_round + 1,
                )
            ),
        )
        for a in pattern.assignments
    )
    return IndividualMovement(
        name=f"Individual {players} players",
        tables=pattern.tables,
        rounds=pattern.rounds,
        boards_per_round=boards_per_round,
        assignments=cells,
        shared_tables=((1, 2),) if players == 8 else (),
    )
