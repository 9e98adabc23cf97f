"""IMPs across the field on one board in one direction (§ 203), and cross-IMPs averaged."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from protocol.bridge import imps

from .frequency import frequencies, group_members, parts
from .models import Artificial, Number, Points, RealScore, SideScore
from .neuberg import neuberg_imps


def group_imps(sides: Sequence[RealScore], sign: int) -> list[Number]:
    """Each score IMPed against every other score in its group, summed (§ 203, § X78A1).

    Work is per distinct score (d² IMP look-ups for d distinct scores), not per pair of tables.
    A score's comparisons with itself are worth 0 IMPs, and a weighted score's comparisons among
    its own parts cancel (IMPs are antisymmetric), so they need no correction.
    """
    table = frequencies(sides, sign)
    against: dict[int, Number] = {
        score: sum(weight * imps(score - other) for other, weight in table.items())
        for score in table
    }
    return [
        against[sign * side.ns]
        if type(side) is Points
        else sum(w * against[s] for s, w in parts(side, sign))
        for side in sides
    ]


def direction_imps(
    sides: Sequence[SideScore | None],
    groups: Sequence[int],
    sign: int,
    field: int,
    *,
    average: bool = False,
) -> list[Number | None]:
    """IMPs across the field for each side of a board scored over `field` tables.

    Artificial scores get ±2 IMPs per comparison (§ 203A) and are not compared against; the
    others are IMPed within their group and scaled by A/G (§ 203B). With `average` the total
    is divided by the A-1 comparisons (the "cross-IMPs" convention of some programs).
    """
    comparisons = field - 1
    out: list[Number | None] = [None] * len(sides)
    grouped = group_members(sides, groups)
    for index, side in enumerate(sides):
        if type(side) is Artificial:
            out[index] = side.imps_per_comparison * comparisons
    for members in grouped.values():
        raw = group_imps([sides[i] for i in members], sign)  # type: ignore[misc]
        size = len(members)
        for index, value in zip(members, raw, strict=True):
            out[index] = value if size == field else neuberg_imps(value, size, field)
    if average:
        return [
            None if v is None else (Fraction(v, comparisons) if comparisons else Fraction(0))
            for v in out
        ]
    return out
