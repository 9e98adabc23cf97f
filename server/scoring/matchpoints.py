"""Matchpoints on one board in one direction: sort-based, weighted, grouped and scaled."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .frequency import all_points, frequencies, parts
from .models import Artificial, Number, RealScore, SideScore
from .neuberg import scale_matchpoints


def group_matchpoints(sides: Sequence[RealScore], sign: int) -> list[Number]:
    """2-1-0 matchpoints of each score against the others in its group (Law 78A, § X78A1).

    Sorting the frequency table once gives every score the weight of the scores below it and
    equal to it, so the cost is O(n log n). A weighted score earns the weighted sum of its
    parts' comparisons; its own parts cancel to exactly one point because the weights sum to 1.
    """
    if all_points(sides):
        own = [sign * side.ns for side in sides]  # type: ignore[union-attr]
        counts = Counter(own)
        below = 0
        points: dict[int, int] = {}
        for score in sorted(counts):
            count = counts[score]
            points[score] = 2 * below + count - 1
            below += count
        return [points[score] for score in own]
    table = frequencies(sides, sign)
    below_weight: Number = 0
    value: dict[int, Number] = {}
    for score in sorted(table):
        weight = table[score]
        value[score] = 2 * below_weight + weight
        below_weight += weight
    return [sum(w * value[s] for s, w in parts(side, sign)) - 1 for side in sides]


def direction_matchpoints(
    sides: Sequence[SideScore | None], groups: Sequence[int], sign: int, field: int
) -> tuple[list[Number | None], int]:
    """Each side's 2-1-0 matchpoints on a board scored over `field` tables, and the top.

    Artificial scores are not compared against (§ X78A3): they score their percentage of the
    top, and the other results are matchpointed among themselves - in separate groups for a
    fouled board (§ 87) - and scaled up to the field (§ X78B). None means no score (sit-out).
    """
    top = 2 * (field - 1)
    out: list[Number | None] = [None] * len(sides)
    grouped: dict[int, list[int]] = {}
    for index, side in enumerate(sides):
        if side is None:
            continue
        if type(side) is Artificial:
            out[index] = side.percent * top / 100
        else:
            grouped.setdefault(groups[index], []).append(index)
    for members in grouped.values():
        raw = group_matchpoints([sides[i] for i in members], sign)  # type: ignore[misc]
        size = len(members)
        if size == field:
            for index, value in zip(members, raw, strict=True):
                out[index] = value
            continue
        cache: dict[Number, Number] = {}
        for index, value in zip(members, raw, strict=True):
            scaled = cache.get(value)
            if scaled is None:
                scaled = cache[value] = scale_matchpoints(value, size, field)
            out[index] = scaled
    return out, top
