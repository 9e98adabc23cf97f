"""Boards not started (§ 216): absent pairs, late reserves and withdrawn contestants."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Unpack

from .models import AVE, AVE_MINUS, AVE_PLUS, BoardResult, Direction, PairId, Where


def absent_pair(
    board: int,
    present: PairId,
    absent: PairId,
    *,
    present_direction: Direction = Direction.NS,
    penalised: bool = True,
    ave_plus: Fraction = AVE_PLUS,
    **where: Unpack[Where],
) -> BoardResult:
    """§ 216B/C: the pair present gets Ave+; the absent pair Ave- (penalised) or Ave (excused)."""
    absent_percent = AVE_MINUS if penalised else AVE
    if present_direction is Direction.NS:
        return BoardResult.artificial(board, present, absent, ave_plus, absent_percent, **where)
    return BoardResult.artificial(board, absent, present, absent_percent, ave_plus, **where)


def reserve_not_played(
    board: int,
    opponents: PairId,
    reserve: PairId,
    *,
    opponents_direction: Direction = Direction.NS,
    **where: Unpack[Where],
) -> BoardResult:
    """§ 216D: boards a reserve pair did not play: its opponents Ave+, the reserve Ave."""
    if opponents_direction is Direction.NS:
        return BoardResult.artificial(board, opponents, reserve, AVE_PLUS, AVE, **where)
    return BoardResult.artificial(board, reserve, opponents, AVE, AVE_PLUS, **where)


def has_withdrawn(boards_played: int, boards_scheduled: int, *, reserve: bool = False) -> bool:
    """§ 216E1: a pair that played less than half its boards (a reserve: not more than half)
    counts as withdrawn."""
    if reserve:
        return 2 * boards_played <= boards_scheduled
    return 2 * boards_played < boards_scheduled


def withdraw(results: Iterable[BoardResult], pair: PairId) -> list[BoardResult]:
    """§ 216E2b: cancel every result of a withdrawn pair; its opponents score as sitting out."""
    kept: list[BoardResult] = []
    for result in results:
        if result.ns_pair == pair or result.ew_pair == pair:
            for direction in (Direction.NS, Direction.EW):
                opponent = result.pair(direction)
                if opponent is not None and opponent != pair:
                    kept.append(
                        BoardResult.sit_out(
                            result.board,
                            opponent,
                            direction,
                            table=result.table,
                            round=result.round,
                            section=result.section,
                            group=result.group,
                        )
                    )
        else:
            kept.append(result)
    return kept
