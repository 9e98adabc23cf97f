"""Scaling a group's score up to the full field (§ X78B, § 203B): Neuberg and the small groups."""

from __future__ import annotations

from fractions import Fraction

from .models import Number


def neuberg(points: Number, group: int, field: int) -> Fraction:
    """Neuberg on the 2-1-0 scale: A/G·(P+1)-1, P the matchpoints within a group of G results.

    It is what the group's frequency table multiplied by A/G gives (§ X78B footnote). On the
    1-½-0 scale the same reasoning gives A/G·(P+½)-½, which is exactly half of this for half the
    points, so the American scale is this value halved.
    """
    _check(group, field)
    return Fraction(field, group) * (points + 1) - 1


def neuberg_american(points: Number, group: int, field: int) -> Fraction:
    """Neuberg on the 1-½-0 scale: A/G·(P+½)-½."""
    _check(group, field)
    return Fraction(field, group) * (points + Fraction(1, 2)) - Fraction(1, 2)


def neuberg_imps(imps: Number, group: int, field: int) -> Fraction:
    """§ 203B: IMPs across the field won within a group of G, scaled to A tables: A/G·P."""
    _check(group, field)
    return Fraction(field, group) * imps


def small_group_percent(points: Number, group: int, field: int) -> Fraction | None:
    """§ X78B1-3: the percentage for a group of 1, 2 or 3 results, or None if Neuberg applies.

    `points` are 2-1-0 matchpoints within the group. One result: 60 %. Two results on a board
    played at least 6 times: 65 % and 55 % (60 % each if equal). Three results and at least 9
    tables: 70/60/50 %, tied pairs sharing. Each is linear in the group's matchpoints, so the
    ties share exactly as the rule says and weighted scores fall in between.
    """
    _check(group, field)
    if group == 1:
        return Fraction(60)
    if group == 2 and field >= 6:
        return 55 + 5 * Fraction(points)
    if group == 3 and field >= 9:
        return 50 + 5 * Fraction(points)
    return None


def scale_matchpoints(points: Number, group: int, field: int) -> Number:
    """A group's 2-1-0 matchpoints on the full field's scale (top 2(A-1)), as § X78B says."""
    if group == field:
        return points
    percent = small_group_percent(points, group, field)
    if percent is not None:
        return percent * 2 * (field - 1) / 100
    return neuberg(points, group, field)


def _check(group: int, field: int) -> None:
    if group < 1 or field < group:
        raise ValueError(f"cannot scale a group of {group} results to {field} tables")
