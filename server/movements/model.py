"""The movement model: which pairs (or, in an individual, which players) sit where and which
boards they play, round by round."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

Direction = Literal["NS", "EW"]

_PAIR_RE = re.compile(r"^\s*(\d+)\s*(NS|EW)?\s*$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class PairRef:
    """A pair within a section: Mitchell "7NS"/"3EW", or a Howell-style unique number "7"."""

    number: int
    direction: Direction | None = None

    def __str__(self) -> str:
        return f"{self.number}{self.direction or ''}"

    @classmethod
    def parse(cls, text: str | int) -> PairRef:
        """Read "7", "7NS", "3ew" or 7 back into a PairRef."""
        if isinstance(text, int):
            return cls(text)
        match = _PAIR_RE.match(text)
        if match is None:
            raise ValueError(f"not a pair: {text!r}")
        direction = match.group(2)
        return cls(int(match.group(1)), cast(Direction, direction.upper()) if direction else None)

    def sort_key(self) -> tuple[int, str]:
        """Order pairs by number, then NS before EW, whatever the mix of directions."""
        return (self.number, {"NS": "0", "EW": "1"}.get(self.direction or "", ""))


@dataclass(frozen=True)
class RoundAssignment:
    """One table in one round: who sits N/S and E/W (None: nobody) and the boards they play."""

    table: int
    round: int
    ns: PairRef | None
    ew: PairRef | None
    boards: tuple[int, ...]
    #: Individual movements: the players in the N, E, S and W seats (None for pairs).
    seats: tuple[int | None, int | None, int | None, int | None] | None = None

    @property
    def played(self) -> bool:
        """True when both seats are taken, so the boards are really played here."""
        return self.ns is not None and self.ew is not None

    def pairs(self) -> tuple[PairRef, ...]:
        """The pairs seated at the table this round."""
        return tuple(p for p in (self.ns, self.ew) if p is not None)

    def opponent_of(self, pair: PairRef) -> PairRef | None:
        """The other pair at the table, or None when the seat is empty."""
        if pair == self.ns:
            return self.ew
        if pair == self.ew:
            return self.ns
        raise ValueError(f"pair {pair} is not at table {self.table} in round {self.round}")

    def seat_of(self, pair: PairRef) -> Direction | None:
        """Which seat the pair sits in this round ("NS" or "EW"), None when not here."""
        if pair == self.ns:
            return "NS"
        if pair == self.ew:
            return "EW"
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "round": self.round,
            "ns": None if self.ns is None else str(self.ns),
            "ew": None if self.ew is None else str(self.ew),
            "boards": list(self.boards),
            **({} if self.seats is None else {"seats": list(self.seats)}),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RoundAssignment:
        seats = d.get("seats")
        return cls(
            table=int(d["table"]),
            round=int(d["round"]),
            ns=None if d.get("ns") in (None, "") else PairRef.parse(d["ns"]),
            ew=None if d.get("ew") in (None, "") else PairRef.parse(d["ew"]),
            boards=tuple(int(b) for b in d["boards"]),
            seats=None if seats is None else parse_seats(seats),
        )


@dataclass(frozen=True)
class Movement:
    """A whole movement for one section: every table in every round.

    `shared_tables` declares groups of tables allowed to have the same boards in play in the
    same round (a relay; web Mitchell sharing is declared between sections instead).
    `circuits` splits the tables into board circuits, each with its own copy of every board
    (the EBU two-circuit web Mitchell): a board may then be in play once in each circuit.
    """

    name: str
    kind: str
    tables: int
    rounds: int
    boards_per_round: int
    assignments: tuple[RoundAssignment, ...]
    shared_tables: tuple[tuple[int, ...], ...] = field(default=())
    circuits: tuple[tuple[int, ...], ...] = field(default=())

    def circuit_of(self, table: int) -> int:
        """The board circuit a table belongs to (0 when the movement has one copy of boards)."""
        for index, tables in enumerate(self.circuits, start=1):
            if table in tables:
                return index
        return 0

    def pairs(self) -> list[PairRef]:
        """Every pair that sits at least once, in pair-number order."""
        seen = {p for a in self.assignments for p in a.pairs()}
        return sorted(seen, key=PairRef.sort_key)

    def boards(self) -> list[int]:
        """All boards used, sorted."""
        return sorted({b for a in self.assignments for b in a.boards})

    def at(self, table: int, round: int) -> RoundAssignment | None:
        """The assignment at a table in a round, or None when the table is not used."""
        for a in self.assignments:
            if a.table == table and a.round == round:
                return a
        return None

    def in_round(self, round: int) -> list[RoundAssignment]:
        """The tables of one round, in table order."""
        return sorted((a for a in self.assignments if a.round == round), key=lambda a: a.table)

    def for_pair(self, pair: PairRef) -> list[RoundAssignment]:
        """The pair's tables, in round order."""
        return sorted((a for a in self.assignments if pair in (a.ns, a.ew)), key=lambda a: a.round)

    def with_assignments(self, assignments: Iterable[RoundAssignment], **changes: Any) -> Movement:
        """A copy with other assignments (kept in round, table order) and other fields changed."""
        ordered = tuple(sorted(assignments, key=lambda a: (a.round, a.table)))
        return replace(self, assignments=ordered, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "tables": self.tables,
            "rounds": self.rounds,
            "boards_per_round": self.boards_per_round,
            "shared_tables": [list(group) for group in self.shared_tables],
            **({"circuits": [list(c) for c in self.circuits]} if self.circuits else {}),
            "assignments": [a.to_dict() for a in self.assignments],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Movement:
        return cls(
            name=str(d["name"]),
            kind=str(d["kind"]),
            tables=int(d["tables"]),
            rounds=int(d["rounds"]),
            boards_per_round=int(d["boards_per_round"]),
            assignments=tuple(RoundAssignment.from_dict(a) for a in d["assignments"]),
            shared_tables=tuple(
                tuple(int(t) for t in group) for group in d.get("shared_tables", ())
            ),
            circuits=tuple(tuple(int(t) for t in c) for c in d.get("circuits", ())),
        )


def board_set(number: int, boards_per_round: int) -> tuple[int, ...]:
    """Boards of board set `number` (1-based): (s-1)*bpr+1 .. s*bpr."""
    first = (number - 1) * boards_per_round + 1
    return tuple(range(first, first + boards_per_round))


def parse_seats(
    value: str | Iterable[int | None],
) -> tuple[int | None, int | None, int | None, int | None]:
    """Four seats N, E, S, W from "3,5,,8" or [3, 5, None, 8] (empty: no player)."""
    items = value.split(",") if isinstance(value, str) else list(value)
    if len(items) != 4:
        raise ValueError(f"seats need four players (N, E, S, W), got {value!r}")
    n, e, s, w = (None if v in (None, "", 0, "0") else int(v) for v in items)
    return (n, e, s, w)


def format_seats(seats: tuple[int | None, ...]) -> str:
    """The seats as stored: "3,5,,8"."""
    return ",".join("" if p is None else str(p) for p in seats)


# Individual movements: each player moves alone and partners a different player each round.

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
