"""Plain, frozen data the scorer reads: board results, side scores and scoring options."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import TypeAlias, TypedDict, Unpack

from protocol.bridge import TableResult, ns_score

PairId: TypeAlias = Hashable
"""A pair's key; the scorer only compares and hashes it."""

Number: TypeAlias = int | Fraction

AVE_PLUS = Fraction(60)
AVE = Fraction(50)
AVE_MINUS = Fraction(40)


class Direction(StrEnum):
    """The two directions a board is scored in."""

    NS = "NS"
    EW = "EW"

    @property
    def other(self) -> Direction:
        return Direction.EW if self is Direction.NS else Direction.NS

    @property
    def sign(self) -> int:
        """+1 for N/S, -1 for E/W: multiply an N/S score by this to get the side's own score."""
        return 1 if self is Direction.NS else -1


def as_fraction(value: int | str | Fraction) -> Fraction:
    """An exact number from an int, a Fraction or a decimal string such as "0.3" or "3/10"."""
    if isinstance(value, bool):
        raise TypeError("a bool is not a number here")
    if isinstance(value, float):
        raise TypeError("pass an exact number (int, Fraction or string), not a float")
    return Fraction(value)


@dataclass(frozen=True, slots=True)
class Points:
    """A table result or an assigned score (Law 12C1b): the N/S score in points."""

    ns: int

    def __post_init__(self) -> None:
        if isinstance(self.ns, bool) or not isinstance(self.ns, int):
            raise TypeError(f"a score is a whole number of points, not {self.ns!r}")


@dataclass(frozen=True, slots=True)
class Weighted:
    """A weighted score (Law 12C1c, § X78A1): N/S scores with weights summing to 1."""

    parts: tuple[tuple[int, Fraction], ...]

    def __post_init__(self) -> None:
        if not self.parts:
            raise ValueError("a weighted score needs at least one part")
        total = Fraction(0)
        for score, weight in self.parts:
            if isinstance(score, bool) or not isinstance(score, int):
                raise TypeError(f"a score is a whole number of points, not {score!r}")
            if not isinstance(weight, Fraction) or weight <= 0:
                raise ValueError(f"weights are positive Fractions, not {weight!r}")
            total += weight
        if total != 1:
            raise ValueError(f"the weights of a weighted score sum to {total}, not 1")

    @classmethod
    def of(cls, *parts: tuple[int, int | str | Fraction]) -> Weighted:
        """Build from (score, weight) pairs, e.g. Weighted.of((420, "0.3"), (-50, "0.7"))."""
        return cls(tuple((score, as_fraction(weight)) for score, weight in parts))


@dataclass(frozen=True, slots=True)
class Artificial:
    """An artificial adjusted score for one side as a percentage (Ave+ 60, Ave 50, Ave- 40)."""

    percent: Fraction

    def __post_init__(self) -> None:
        if not isinstance(self.percent, Fraction) or not 0 <= self.percent <= 100:
            raise ValueError(
                f"an artificial score is a Fraction from 0 to 100, not {self.percent!r}"
            )

    @classmethod
    def of(cls, percent: int | str | Fraction) -> Artificial:
        return cls(as_fraction(percent))

    @property
    def imps_per_comparison(self) -> Fraction:
        """§ 203A/§ 204C: Ave+ is +2 IMPs, Ave- -2; other splits pro rata (10 % = 2 IMPs)."""
        return (self.percent - 50) / 5


RealScore: TypeAlias = Points | Weighted


@dataclass(frozen=True, slots=True)
class SelfInflicted:
    """§ X78A4 (Law 12C1e): the non-offending side's score when part of its damage was
    self-inflicted (a serious error or a gambling action after the infraction).

    `adjusted` is the adjusted score: the offenders get its result (J), and every other
    contestant is compared against it. `expected` is the score the side would expectedly have
    got without its serious error or gambling action (giving M); `at_table` the result it
    actually obtained at the table (giving F). Either may be weighted or artificial. The side
    scores F when M >= J, else J - M + F (§ X78A4d-e). All scores are N/S points.
    """

    adjusted: RealScore
    expected: RealScore | Artificial
    at_table: RealScore | Artificial

    def __post_init__(self) -> None:
        if not isinstance(self.adjusted, Points | Weighted):
            raise TypeError(
                f"the adjusted score of § X78A4 is a contract result, not {self.adjusted!r}"
            )
        for name in ("expected", "at_table"):
            value = getattr(self, name)
            if not isinstance(value, Points | Weighted | Artificial):
                raise TypeError(f"{name} is a Points, Weighted or Artificial score, not {value!r}")


SideScore: TypeAlias = Points | Weighted | Artificial | SelfInflicted
"""What one side of a table is scored on; real scores are always in N/S points."""


def _side(value: SideScore | int | None) -> SideScore | None:
    if value is None or isinstance(value, Points | Weighted | Artificial | SelfInflicted):
        return value
    return Points(value)


class Where(TypedDict, total=False):
    """Where a result was obtained: the optional keyword arguments of BoardResult's builders."""

    table: Hashable | None
    round: int | None
    section: Hashable | None
    group: int


@dataclass(frozen=True, slots=True)
class BoardResult:
    """One table's result on one board, as the scorer sees it.

    `ns` and `ew` are what each side is scored on. They are the same object for an ordinary
    result; they differ for an artificial score (each side its percentage), an unbalanced score
    (§ X78A2) and a sit-out or board not played (None: the side gets no score, § X78A5).
    """

    board: int
    ns_pair: PairId | None
    ew_pair: PairId | None
    ns: SideScore | None
    ew: SideScore | None
    table: Hashable | None = None
    round: int | None = None
    section: Hashable | None = None
    group: int = 0
    """§ 87 fouled boards: results in different groups are not compared with each other."""
    play: TableResult | None = field(default=None, compare=False)
    lead: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.board, bool) or not isinstance(self.board, int) or self.board < 1:
            raise ValueError(f"board numbers start at 1, not {self.board!r}")

    @classmethod
    def played(
        cls, board: int, ns_pair: PairId, ew_pair: PairId, ns_score: int, **where: Unpack[Where]
    ) -> BoardResult:
        """An ordinary result, given as the N/S score."""
        side = Points(ns_score)
        return cls(board, ns_pair, ew_pair, side, side, **where)

    @classmethod
    def from_play(
        cls,
        board: int,
        ns_pair: PairId,
        ew_pair: PairId,
        contract: str,
        declarer: str | None,
        tricks: int,
        *,
        lead: str | None = None,
        **where: Unpack[Where],
    ) -> BoardResult:
        """An ordinary result from the contract, declarer and tricks taken (Law 77 scoring)."""
        play = TableResult.make(contract, declarer, tricks)
        side = Points(ns_score(board, play.contract, play.declarer, play.tricks))
        return cls(board, ns_pair, ew_pair, side, side, play=play, lead=lead, **where)

    @classmethod
    def artificial(
        cls,
        board: int,
        ns_pair: PairId,
        ew_pair: PairId,
        ns_percent: int | str | Fraction = AVE_PLUS,
        ew_percent: int | str | Fraction = AVE_MINUS,
        **where: Unpack[Where],
    ) -> BoardResult:
        """An artificial adjusted score, each side its own percentage (they need not balance)."""
        return cls(
            board,
            ns_pair,
            ew_pair,
            Artificial.of(ns_percent),
            Artificial.of(ew_percent),
            **where,
        )

    @classmethod
    def weighted(
        cls,
        board: int,
        ns_pair: PairId,
        ew_pair: PairId,
        *parts: tuple[int, int | str | Fraction],
        **where: Unpack[Where],
    ) -> BoardResult:
        """A weighted score (§ X78A1) given as (N/S score, weight) pairs."""
        side = Weighted.of(*parts)
        return cls(board, ns_pair, ew_pair, side, side, **where)

    @classmethod
    def unbalanced(
        cls,
        board: int,
        ns_pair: PairId,
        ew_pair: PairId,
        ns_side: SideScore | int,
        ew_side: SideScore | int,
        **where: Unpack[Where],
    ) -> BoardResult:
        """Different scores for the two sides (§ X78A2); both given as N/S points (or %)."""
        return cls(board, ns_pair, ew_pair, _side(ns_side), _side(ew_side), **where)

    @classmethod
    def self_inflicted(
        cls,
        board: int,
        ns_pair: PairId,
        ew_pair: PairId,
        *,
        offenders: Direction,
        adjusted: RealScore | int,
        expected: RealScore | Artificial | int,
        at_table: RealScore | Artificial | int,
        **where: Unpack[Where],
    ) -> BoardResult:
        """An adjusted score where the non-offending side keeps only part of its redress
        (§ X78A4, Law 12C1e): the offenders score the adjusted score; the other side is
        scored on J, M and F as `SelfInflicted` says. Scores are N/S points (or artificial)."""
        adjusted_side = _side(adjusted)
        expected_side = _side(expected)
        at_table_side = _side(at_table)
        if not isinstance(adjusted_side, Points | Weighted):
            raise TypeError("the adjusted score of § X78A4 is a contract result")
        if isinstance(expected_side, SelfInflicted) or isinstance(at_table_side, SelfInflicted):
            raise TypeError("M and F are ordinary, weighted or artificial scores")
        redress = SelfInflicted(adjusted_side, expected_side, at_table_side)  # type: ignore[arg-type]
        if offenders is Direction.NS:
            return cls(board, ns_pair, ew_pair, adjusted_side, redress, **where)
        return cls(board, ns_pair, ew_pair, redress, adjusted_side, **where)

    @classmethod
    def sit_out(
        cls, board: int, pair: PairId, direction: Direction = Direction.NS, **where: Unpack[Where]
    ) -> BoardResult:
        """A pair sitting out the board: no score for it (§ X78A5); shown on its score card."""
        ns_pair, ew_pair = (pair, None) if direction is Direction.NS else (None, pair)
        return cls(board, ns_pair, ew_pair, None, None, **where)

    def pair(self, direction: Direction) -> PairId | None:
        return self.ns_pair if direction is Direction.NS else self.ew_pair

    def side(self, direction: Direction) -> SideScore | None:
        return self.ns if direction is Direction.NS else self.ew

    @property
    def is_sit_out(self) -> bool:
        return self.ns is None and self.ew is None


def pairs_of(results: Iterable[BoardResult]) -> set[PairId]:
    """Every pair named in the results."""
    found: set[PairId] = set()
    for result in results:
        for pair in (result.ns_pair, result.ew_pair):
            if pair is not None:
                found.add(pair)
    return found
