"""Frequency tables: each real score's parts as (own score, weight) for one direction."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from fractions import Fraction

from .models import Artificial, Number, Points, RealScore, SideScore


def parts(side: RealScore, sign: int) -> Iterator[tuple[int, Number]]:
    """The side's score(s) seen from its own direction (sign -1 turns N/S points into E/W's)."""
    if type(side) is Points:
        yield sign * side.ns, 1
    else:
        for score, weight in side.parts:  # type: ignore[union-attr]
            yield sign * score, weight


def frequencies(sides: Sequence[RealScore], sign: int) -> dict[int, Number]:
    """Score -> frequency (a decimal once weighted scores are in, § X78A1)."""
    table: dict[int, Number] = dict(
        Counter(sign * side.ns for side in sides if type(side) is Points)
    )
    for side in sides:
        if type(side) is not Points:
            for score, weight in side.parts:  # type: ignore[union-attr]
                table[score * sign] = table.get(score * sign, 0) + weight
    return table


def all_points(sides: Sequence[RealScore]) -> bool:
    """True when no side is weighted, so every frequency is a whole number."""
    return all(type(side) is Points for side in sides)


def scaled(table: dict[int, Number], factor: Fraction) -> dict[int, Number]:
    """The table with every frequency multiplied by A/G (§ X78B footnote, § 204A2.2)."""
    if factor == 1:
        return table
    return {score: weight * factor for score, weight in table.items()}


def group_members(sides: Sequence[SideScore | None], groups: Sequence[int]) -> dict[int, list[int]]:
    """Positions of the real (not artificial, not missing) scores, by comparison group (§ 87)."""
    real = [i for i, side in enumerate(sides) if side is not None and type(side) is not Artificial]
    first = groups[real[0]] if real else 0
    if all(groups[i] == first for i in real):
        return {first: real} if real else {}
    grouped: dict[int, list[int]] = {}
    for index in real:
        grouped.setdefault(groups[index], []).append(index)
    return grouped
