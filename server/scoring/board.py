"""One board scored by any pairs method: exact values held over a common denominator."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from typing import TypeAlias

from .exact import Rounding
from .methods import DEFAULT, Method
from .models import BoardResult, Direction, Number, SelfInflicted, SideScore
from .redress import self_inflicted_score

BoardKey: TypeAlias = tuple[Hashable | None, int]
"""(section, board); the section is None when boards are scored across sections."""

DIRECTIONS = (Direction.NS, Direction.EW)


@dataclass(frozen=True, slots=True)
class ScoringOptions:
    """How a pairs event is scored."""

    method: Method = DEFAULT
    field: str | int = "max"
    """Tables a board is scored over (§ X78B's A): "max" - the most results any board of the
    section has (boards played fewer times are Neubergised up); "board" - each board's own
    number of results; or a fixed number of tables."""
    across_sections: bool = False
    """Compare results across sections playing the same boards (else per section)."""
    butler_drop: int = 1
    """Scores dropped at each end before the Butler datum (§ 204A1; the organiser may say 2)."""
    butler_round_datum: bool = False
    """Round the Butler datum to 10 before the differences (some programs do; § 204 does not)."""
    board_rounding: Rounding | None = None
    """Round each side's score on a board before the totals (some programs do; the
    regulations round nothing on a board, § X78C1)."""
    scaled_rounding: Rounding | None = None
    """Round (or truncate) factored matchpoints (§ X78B's values are exact under DBf)."""
    factor_artificial: bool = True
    """§ X78A3: the results beside an artificial score are factored up to the full field;
    without it they keep the top of the tables that played (some programs do)."""
    sitout_scaling: bool = False
    """IMP and points methods: a pair's total scaled up to the most boards any pair in its
    ranking was scored on (some programs do; § X78A5 gives a sit-out no score at all)."""
    sitout_factoring: Rounding | None = None
    """Matchpoint methods: a pair's total factored up to the most boards any pair of the
    event was scored on (total x B/b, rounded by this rounding), and its percentage taken
    from that rounded total over the top of B boards (ACBLscore does; § X78A5 and § X78C: no
    factoring, the percentage exact over the boards played)."""
    unique_places: bool = False
    """Break ties by § 223 (only where undividable prizes or qualification need it)."""
    tie_style: str = "="
    """Shared places as "3=" or, with "-", as "3-4"."""

    def __post_init__(self) -> None:
        if isinstance(self.field, str) and self.field not in ("max", "board"):
            raise ValueError(f"field is 'max', 'board' or a number of tables, not {self.field!r}")
        if isinstance(self.field, int) and self.field < 1:
            raise ValueError("a board is scored over at least one table")
        if self.tie_style not in ("=", "-"):
            raise ValueError("tie_style is '=' or '-'")


@dataclass(frozen=True, slots=True, eq=False)
class BoardScore:
    """A board's results and each side's score: exact, as numerators over one denominator.

    `numerators[d][i]` is the score of the side in direction d at results[i] (None: no score),
    `tops[d]` the numerator of the board's top (matchpoint methods only), `fields[d]` the number
    of tables it is scored over, `datums` the Butler datum of each group.
    """

    key: BoardKey
    method: Method
    results: tuple[BoardResult, ...]
    fields: tuple[int, int]
    denominator: int
    numerators: tuple[tuple[int | None, ...], tuple[int | None, ...]]
    tops: tuple[int | None, int | None]
    datums: tuple[dict[int, Fraction], dict[int, Fraction]] = field(
        default_factory=lambda: ({}, {})
    )

    @property
    def board(self) -> int:
        return self.key[1]

    def value(self, index: int, direction: Direction) -> Fraction | None:
        """The exact score of a side: matchpoints, IMPs or points, as the method says."""
        numerator = self.numerators[_d(direction)][index]
        return None if numerator is None else Fraction(numerator, self.denominator)

    def top(self, direction: Direction = Direction.NS) -> Fraction | None:
        """The top on the board (matchpoint methods), or None."""
        numerator = self.tops[_d(direction)]
        return None if numerator is None else Fraction(numerator, self.denominator)

    def percent(self, index: int, direction: Direction) -> Fraction | None:
        """A side's matchpoints as a percentage of the top (matchpoint methods), or None."""
        numerator = self.numerators[_d(direction)][index]
        top = self.tops[_d(direction)]
        if numerator is None or not top:
            return None
        return Fraction(100 * numerator, top)

    def sides(self, direction: Direction) -> list[tuple[int, BoardResult, Fraction]]:
        """(index, result, score) for every scored side in a direction."""
        column = self.numerators[_d(direction)]
        return [
            (i, result, Fraction(n, self.denominator))
            for i, (result, n) in enumerate(zip(self.results, column, strict=True))
            if n is not None
        ]


def _d(direction: Direction) -> int:
    return 0 if direction is Direction.NS else 1


def sides_scored(results: Sequence[BoardResult], direction: Direction) -> int:
    """How many results give the direction a score (the board's own field size)."""
    return sum(1 for r in results if r.side(direction) is not None)


def _direction_values(
    sides: Sequence[SideScore | None],
    groups: Sequence[int],
    sign: int,
    size: int,
    options: ScoringOptions,
) -> tuple[list[Number | None], Number | None, dict[int, Fraction]]:
    """Each side's score in one direction by the event's method, the top and the datums."""
    return options.method.spec.score_direction(sides, groups, sign, size, options)


def _redressed(
    side: SelfInflicted,
    index: int,
    adjusted: Number | None,
    compared: Sequence[SideScore | None],
    groups: Sequence[int],
    sign: int,
    size: int,
    options: ScoringOptions,
) -> Fraction:
    """§ X78A4: J is what the adjusted score earned; M and F are what the side would have
    earned had its score been the expected one or the table result, against the same field
    (the other results are unchanged, and they are compared against the adjusted score)."""

    def earned(score: SideScore) -> Number:
        hypothetical = list(compared)
        hypothetical[index] = score
        value = _direction_values(hypothetical, groups, sign, size, options)[0][index]
        assert value is not None
        return value

    assert adjusted is not None
    return self_inflicted_score(adjusted, earned(side.expected), earned(side.at_table))


def _rounded(
    values: list[Number | None], rounding: Rounding, method: Method
) -> list[Number | None]:
    """Each value rounded as the method shows it (the American scale is half the 2-1-0
    value held here); equal values keep sharing one object."""
    scale = method.spec.matchpoint_divisor or 1
    done: dict[int, Number] = {}
    out: list[Number | None] = []
    for value in values:
        if value is None:
            out.append(None)
            continue
        rounded = done.get(id(value))
        if rounded is None:
            rounded = done[id(value)] = rounding(value, scale)
        out.append(rounded)
    return out


def score_board(
    key: BoardKey,
    results: Sequence[BoardResult],
    options: ScoringOptions = ScoringOptions(),
    fields: tuple[int, int] | None = None,
) -> BoardScore:
    """Score one board's results in both directions.

    `fields` are the tables each direction is scored over (A in § X78B); by default the
    board's own number of scored sides. Matchpoints use the 2-1-0 scale internally; the
    American scale is exactly half of it, so it only doubles the denominator.
    """
    results = tuple(results)
    groups = [r.group for r in results]
    if fields is None:
        fields = (sides_scored(results, Direction.NS), sides_scored(results, Direction.EW))
    columns: list[list[Number | None]] = []
    sides: list[SideScore | None]
    tops: list[Number | None] = []
    datums: list[dict[int, Fraction]] = []
    method = options.method
    for direction, size in zip(DIRECTIONS, fields, strict=True):
        sides = [r.ns for r in results] if direction is Direction.NS else [r.ew for r in results]
        size = max(size, 1)
        redress = [i for i, side in enumerate(sides) if type(side) is SelfInflicted]
        compared = [side.adjusted if isinstance(side, SelfInflicted) else side for side in sides]
        values, top, datum = _direction_values(compared, groups, direction.sign, size, options)
        for index in redress:
            values[index] = _redressed(
                sides[index],  # type: ignore[arg-type]
                index,
                values[index],
                compared,
                groups,
                direction.sign,
                size,
                options,
            )
        if options.board_rounding is not None:
            values = _rounded(values, options.board_rounding, method)
        columns.append(values)
        tops.append(top)
        datums.append(datum)
    # Equal results share one value object, so the distinct values are found by identity.
    distinct = {id(v): v for column in (*columns, tops) for v in column if v is not None}
    denominator = 1
    for value in distinct.values():
        if denominator % value.denominator:
            denominator = lcm(denominator, value.denominator)
    numerator_of = {
        key: v.numerator * (denominator // v.denominator) for key, v in distinct.items()
    }
    numerators = [
        tuple(None if v is None else numerator_of[id(v)] for v in column) for column in columns
    ]
    top_numerators = [None if t is None else numerator_of[id(t)] for t in tops]
    denominator *= method.spec.matchpoint_divisor or 1
    return BoardScore(
        key=key,
        method=method,
        results=results,
        fields=fields,
        denominator=denominator,
        numerators=(numerators[0], numerators[1]),
        tops=(top_numerators[0], top_numerators[1]),
        datums=(datums[0], datums[1]),
    )
