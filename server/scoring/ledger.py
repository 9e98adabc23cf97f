"""Running pair totals kept exact as integers over one common denominator, for cheap updates."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from math import lcm

from .board import DIRECTIONS, BoardScore
from .models import PairId

# A common denominator past this many bits is rebuilt from the boards still held.
_MAX_UNIT_BITS = 4096


class Ledger:
    """Each pair's total, top total and number of boards scored.

    Totals are integers counting 1/unit, with unit a multiple of every board's denominator, so
    taking a board out and putting its new score in costs integer additions only.
    """

    def __init__(self) -> None:
        self.unit = 1
        self.total: dict[PairId, int] = {}
        self.top: dict[PairId, int] = {}
        self.boards: dict[PairId, int] = {}

    def register(self, pair: PairId) -> None:
        """Make a pair known with nothing scored (it shows in the standings)."""
        if pair not in self.total:
            self.total[pair] = 0
            self.top[pair] = 0
            self.boards[pair] = 0

    def widen(self, denominator: int) -> None:
        if self.unit % denominator == 0:
            return
        unit = lcm(self.unit, denominator)
        factor = unit // self.unit
        for table in (self.total, self.top):
            for pair in table:
                table[pair] *= factor
        self.unit = unit

    def needs_rebuild(self) -> bool:
        """True once the common denominator has grown too long to be cheap."""
        return self.unit.bit_length() > _MAX_UNIT_BITS

    def add(self, score: BoardScore, sign: int = 1) -> None:
        """Add a board's scores to the totals (sign -1 takes them off)."""
        self.widen(score.denominator)
        factor = sign * (self.unit // score.denominator)
        total, tops, boards = self.total, self.top, self.boards
        for index, direction in enumerate(DIRECTIONS):
            column = score.numerators[index]
            top = (score.tops[index] or 0) * factor
            for result, numerator in zip(score.results, column, strict=True):
                pair = result.pair(direction)
                if pair is None:
                    continue
                if pair not in total:
                    self.register(pair)
                if numerator is None:
                    continue
                total[pair] += numerator * factor
                tops[pair] += top
                boards[pair] += sign

    def fraction(self, numerator: int) -> Fraction:
        return Fraction(numerator, self.unit)

    def pairs(self) -> Iterator[PairId]:
        return iter(self.total)
