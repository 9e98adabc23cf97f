"""Matchpoints on one board in one direction: sort-based, weighted, grouped and scaled."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .exact import Rounding
from .frequency import all_points, frequencies, group_members, parts
from .models import Artificial, Number, Points, RealScore, SideScore
from .neuberg import scale_matchpoints


def matchpoints_by_score(
    sides: Sequence[RealScore], sign: int
) -> tuple[dict[int, Number], dict[int, Number]]:
    """2-1-0 matchpoints within a group: (for an ordinary result of each score, for each
    weighted side by its position).

    Sorting the frequency table once gives every score the weight of the scores below it and
    equal to it, so the cost is O(n log n) (Law 78A). A weighted score earns the weighted sum
    of its parts' comparisons (§ X78A1); its own parts' comparisons with each other add up to
    exactly one point because the weights sum to 1, and that point is taken off like the
    one an ordinary result earns for "tying" with itself.
    """
    if all_points(sides):
        counts = Counter(sign * side.ns for side in sides)  # type: ignore[union-attr]
        below = 0
        by_score: dict[int, Number] = {}
        for score in sorted(counts):
            count = counts[score]
            by_score[score] = 2 * below + count - 1
            below += count
        return by_score, {}
    table = frequencies(sides, sign)
    below_weight: Number = 0
    earned: dict[int, Number] = {}
    for score in sorted(table):
        weight = table[score]
        earned[score] = 2 * below_weight + weight
        below_weight += weight
    by_score = {score: value - 1 for score, value in earned.items()}
    weighted = {
        position: sum((w * earned[s] for s, w in parts(side, sign)), -1)
        for position, side in enumerate(sides)
        if type(side) is not Points
    }
    return by_score, weighted


def group_matchpoints(sides: Sequence[RealScore], sign: int) -> list[Number]:
    """2-1-0 matchpoints of each score against the others in its group."""
    by_score, weighted = matchpoints_by_score(sides, sign)
    return [
        weighted[i] if i in weighted else by_score[sign * side.ns]  # type: ignore[union-attr]
        for i, side in enumerate(sides)
    ]


def direction_matchpoints(
    sides: Sequence[SideScore | None],
    groups: Sequence[int],
    sign: int,
    field: int,
    *,
    factor_artificial: bool = True,
    scaled_rounding: Rounding | None = None,
) -> tuple[list[Number | None], int]:
    """Each side's 2-1-0 matchpoints on a board scored over `field` tables, and the top.

    Artificial scores are not compared against (§ X78A3): they score their percentage of the
    top, and the other results are matchpointed among themselves - in separate groups for a
    fouled board (§ 87) - and scaled up to the field (§ X78B). None means no score (sit-out).
    Results with equal scores share one value object, which keeps the later steps cheap.

    Two conventions outside the regulations (server/scoring/profiles.py): without
    `factor_artificial` the board is scored over the field less its artificial scores, so the
    real results are not factored up for them and each artificial score takes its percentage
    of that smaller top; `scaled_rounding` rounds (or truncates) each factored value.
    """
    if not factor_artificial:
        artificial = sum(1 for side in sides if type(side) is Artificial)
        field = max(field - artificial, 1)
    top = 2 * (field - 1)
    out: list[Number | None] = [None] * len(sides)
    grouped = group_members(sides, groups)
    for index, side in enumerate(sides):
        if type(side) is Artificial:
            out[index] = side.percent * top / 100
    for members in grouped.values():
        members_sides: list[RealScore] = [sides[i] for i in members]  # type: ignore[misc]
        by_score, weighted = matchpoints_by_score(members_sides, sign)
        size = len(members)
        if size != field:
            by_score = {s: scale_matchpoints(p, size, field) for s, p in by_score.items()}
            weighted = {k: scale_matchpoints(p, size, field) for k, p in weighted.items()}
            if scaled_rounding is not None:
                by_score = {s: scaled_rounding(p) for s, p in by_score.items()}
                weighted = {k: scaled_rounding(p) for k, p in weighted.items()}
        if weighted:
            for position, index in enumerate(members):
                side = members_sides[position]
                out[index] = (
                    weighted[position] if position in weighted else by_score[sign * side.ns]  # type: ignore[union-attr]
                )
        else:
            for index, side in zip(members, members_sides, strict=True):
                out[index] = by_score[sign * side.ns]  # type: ignore[union-attr]
    return out, top
