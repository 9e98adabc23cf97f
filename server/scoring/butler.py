"""Butler scoring on one board in one direction: IMPs against a datum (§ 204)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from protocol.bridge import imps

from .exact import round_to_multiple
from .frequency import frequencies, group_members, parts, scaled
from .models import Artificial, Number, RealScore, SideScore


def butler_datum(table: Mapping[int, Number], drop: int = 1) -> Fraction:
    """The mean of a frequency table after taking `drop` occurrences off each end (§ 204A).

    Frequencies may be fractions (weighted scores, or a table scaled by A/G): then the highest
    score goes entirely and part of the next one too, so that exactly `drop` occurrences leave
    at each end (§ 204 footnote **). With no more than 2·drop occurrences nothing would be left,
    so the plain mean is taken (the regulations do not cover so small a field).
    """
    if drop < 0:
        raise ValueError("cannot drop a negative number of scores")
    items = sorted(table.items())
    total = sum((weight for _, weight in items), Fraction(0))
    if total <= 0:
        raise ValueError("a datum needs at least one score")
    if total <= 2 * drop:
        drop = 0
    scores = [score for score, _ in items]
    weights = [Fraction(weight) for _, weight in items]
    for order in (range(len(items)), range(len(items) - 1, -1, -1)):
        left = Fraction(drop)
        for i in order:
            if left <= 0:
                break
            taken = min(weights[i], left)
            weights[i] -= taken
            left -= taken
    kept = sum(weights, Fraction(0))
    return sum((s * w for s, w in zip(scores, weights, strict=True)), Fraction(0)) / kept


def butler_imps(score: int, datum: Number, *, round_datum: bool = False) -> int:
    """IMPs for a score against the datum: the difference rounded to a multiple of 10 (a
    difference ending in 5 away from zero, § 204B2), then IMPed (§ 78B).

    With `round_datum` the datum itself is rounded to 10 first (what some programs do); the
    regulations round the difference.
    """
    if round_datum:
        datum = round_to_multiple(datum, 10)
    return imps(round_to_multiple(score - datum, 10))


def group_butler(
    sides: Sequence[RealScore],
    sign: int,
    field: int,
    *,
    drop: int = 1,
    round_datum: bool = False,
) -> tuple[list[Number], Fraction]:
    """Butler IMPs for the scores of one group, and the group's datum.

    The group's frequency table is scaled by A/G before the top and bottom go (§ 204A2.2-3);
    a weighted score gets the weighted sum of its parts' IMPs.
    """
    table = scaled(frequencies(sides, sign), Fraction(field, len(sides)))
    datum = butler_datum(table, drop)
    cache: dict[int, int] = {}
    values: list[Number] = []
    for side in sides:
        total: Number = 0
        for score, weight in parts(side, sign):
            won = cache.get(score)
            if won is None:
                won = cache[score] = butler_imps(score, datum, round_datum=round_datum)
            total += weight * won
        values.append(total)
    return values, datum


def direction_butler(
    sides: Sequence[SideScore | None],
    groups: Sequence[int],
    sign: int,
    field: int,
    *,
    drop: int = 1,
    round_datum: bool = False,
) -> tuple[list[Number | None], dict[int, Fraction]]:
    """Butler IMPs for each side of a board, and each group's datum (seen from this direction).

    Artificial scores get ±2 IMPs (§ 204C) and take no part in the datum.
    """
    out: list[Number | None] = [None] * len(sides)
    grouped = group_members(sides, groups)
    for index, side in enumerate(sides):
        if type(side) is Artificial:
            out[index] = side.imps_per_comparison
    datums: dict[int, Fraction] = {}
    for group, members in grouped.items():
        values, datums[group] = group_butler(
            [sides[i] for i in members],  # type: ignore[misc]
            sign,
            field,
            drop=drop,
            round_datum=round_datum,
        )
        for index, value in zip(members, values, strict=True):
            out[index] = value
    return out, datums
