"""§ X78A4 (Law 12C1e): redress withheld from a non-offending side for self-inflicted damage."""

from __future__ import annotations

from fractions import Fraction

from .models import Number, RealScore
from .teams import TeamBoard, two_table_imps


def self_inflicted_score(adjusted: Number, expected: Number, at_table: Number) -> Fraction:
    """The non-offending side's score from J, M and F, all in the method's unit (§ X78A4).

    J (`adjusted`) is what the adjusted score earns, M (`expected`) what the score the side
    would expectedly have got without its serious error or gambling action earns, and F
    (`at_table`) what the result actually obtained earns. If M >= J all the damage was
    self-inflicted and the side keeps F (§ X78A4d); otherwise it gets J - M + F (§ X78A4e):
    the table result plus the part of the damage the infraction caused.
    """
    j, m, f = Fraction(adjusted), Fraction(expected), Fraction(at_table)
    return f if m >= j else j - m + f


def self_inflicted_team_board(
    board: int,
    *,
    open_score: RealScore | int,
    closed_score: RealScore | int,
    adjusted_room: str,
    non_offenders_home: bool,
    expected: RealScore | int,
    at_table: RealScore | int,
) -> TeamBoard:
    """A two-table board where one room's result is adjusted under § X78A4.

    `open_score`/`closed_score` are the N/S scores in each room, with the adjusted score (J's)
    in `adjusted_room` ("open" or "closed"); `expected` (M's) and `at_table` (F's) are N/S
    scores for that same room. The offending team gets -J IMPs, the non-offending team
    F if M >= J, else J - M + F (unbalanced IMPs, § X78A2). IMPs are the home team's
    open - closed, so a score in the closed room is IMPed against the open room the other way.
    """
    if adjusted_room not in ("open", "closed"):
        raise ValueError(f"the adjusted room is 'open' or 'closed', not {adjusted_room!r}")

    def home_imps(score: RealScore | int) -> Fraction:
        if adjusted_room == "open":
            return Fraction(two_table_imps(score, closed_score))
        return Fraction(two_table_imps(open_score, score))

    j_home = home_imps(open_score if adjusted_room == "open" else closed_score)
    m_home = home_imps(expected)
    f_home = home_imps(at_table)
    if non_offenders_home:
        home = self_inflicted_score(j_home, m_home, f_home)
        away = -j_home
    else:
        away = self_inflicted_score(-j_home, -m_home, -f_home)
        home = j_home
    return TeamBoard(board, open_score, closed_score, home_adjusted=home, away_adjusted=away)


__all__ = ["self_inflicted_score", "self_inflicted_team_board"]
