"""Total points scoring on one board in one direction."""

from __future__ import annotations

from collections.abc import Sequence

from .frequency import parts
from .models import Artificial, Number, SelfInflicted, SideScore


def direction_total(sides: Sequence[SideScore | None], sign: int) -> list[Number | None]:
    """Each side's own points (a weighted score: the weighted mean of its parts).

    The regulations give no points value for an artificial score in total-points scoring; it
    scores 0 here (the average of a zero-sum comparison), and a TD wanting more assigns a score.
    """
    out: list[Number | None] = []
    for side in sides:
        if side is None:
            out.append(None)
        elif isinstance(side, Artificial):
            out.append(0)
        elif isinstance(side, SelfInflicted):
            raise TypeError("a § X78A4 score is compared as its adjusted score (see board.py)")
        else:
            total: Number = 0
            for score, weight in parts(side, sign):
                total += weight * score
            out.append(total)
    return out
