"""Multi-team scoring (§ 205): a pair against the other tables, as imaginary matches in VPs."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from protocol.bridge import imps

from .frequency import parts
from .models import Artificial, Direction, Number, PairId, SideScore
from .vp import victory_points


@dataclass(frozen=True, slots=True, eq=False)
class MultiTeamTable:
    """One table's results in a round: board -> (N/S side's score, E/W side's score).

    Scores are in N/S points (Points or Weighted), or Artificial; an unbalanced score gives the
    two sides different scores.
    """

    table: Hashable
    match: Hashable
    """The real team match the table belongs to; its other table is not compared (§ 205A1)."""
    ns_pair: PairId
    ew_pair: PairId
    scores: Mapping[int, tuple[SideScore, SideScore]] = field(default_factory=dict)


def _artificial_imps(side: Artificial) -> Fraction:
    """An artificial score in an (imaginary) team match: Ave+ +3 IMPs, Ave- -3 (Law 86A)."""
    return (side.percent - 50) * 3 / 10


def _board_imps(own: SideScore, teammates: SideScore, sign: int) -> Number:
    """IMPs for a side's score against the score the imaginary teammates got at the other table.

    Artificial scores count as in a real match (§ 205B2): a side's own artificial score and its
    teammates' one add up, and a real score is not compared against an artificial one.
    """
    own_art = isinstance(own, Artificial)
    mate_art = isinstance(teammates, Artificial)
    if own_art or mate_art:
        total = Fraction(0)
        if isinstance(own, Artificial):
            total += _artificial_imps(own)
        if isinstance(teammates, Artificial):
            total += _artificial_imps(teammates)
        return total
    won: Number = 0
    for a, wa in parts(own, sign):  # type: ignore[arg-type]
        for b, wb in parts(teammates, -sign):  # type: ignore[arg-type]
            # The teammates sat the other way: their own score b is our comparison's -b.
            won += wa * wb * imps(a + b)
    return won


def multiteam_scores(
    tables: Sequence[MultiTeamTable], *, exclude_own_match: bool = True
) -> dict[PairId, Fraction]:
    """Each pair's average VPs over its imaginary matches against the other tables.

    Against another table, a N/S pair's teammates are that table's E/W pair. The match covers
    the boards both tables have a result on, uses the VP scale for that many boards and rounds
    the IMPs to whole IMPs first (§ X78C2). § 205A excludes the table of the pair's own match;
    § 205B (multi-team as a pairs event) compares with every other table.
    """
    out: dict[PairId, Fraction] = {}
    for t in tables:
        for direction in (Direction.NS, Direction.EW):
            pair = t.ns_pair if direction is Direction.NS else t.ew_pair
            index = 0 if direction is Direction.NS else 1
            vps: list[Fraction] = []
            for u in tables:
                if u is t or (exclude_own_match and u.match == t.match):
                    continue
                boards = sorted(set(t.scores) & set(u.scores))
                if not boards:
                    continue
                margin = sum(
                    (
                        Fraction(
                            _board_imps(t.scores[b][index], u.scores[b][1 - index], direction.sign)
                        )
                        for b in boards
                    ),
                    Fraction(0),
                )
                vps.append(victory_points(margin, len(boards))[0])
            if vps:
                out[pair] = sum(vps, Fraction(0)) / len(vps)
    return out
