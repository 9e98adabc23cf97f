"""Running pair totals kept exact as integers over one common denominator, for cheap updates."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from fractions import Fraction
from math import gcd, lcm

from .board import BoardScore
from .models import PairId

_NO_PAIR = -1


class Ledger:
    """Each pair's total, top total and number of boards scored.

    Totals are integers counting 1/unit, where unit is the least common multiple of the
    denominators of the boards held (and of any penalty), so replacing one board's scores costs
    integer arithmetic only, and the unit never grows past what the current boards need. Pairs
    live in numbered slots so the per-result work is list arithmetic.
    """

    def __init__(self) -> None:
        self.unit = 1
        self._slot: dict[PairId, int] = {}
        self._pairs: list[PairId] = []
        self._total: list[int] = []
        self._top: list[int] = []
        self._boards: list[int] = []
        self._uses: Counter[int] = Counter()
        self._base = 1
        self._board_slots: dict[Hashable, tuple[BoardScore, list[int], list[int]]] = {}

    # --- pairs ----------------------------------------------------------------------------

    def register(self, pair: PairId) -> int:
        """A pair's slot, making it known with nothing scored (it shows in the standings)."""
        slot = self._slot.get(pair)
        if slot is None:
            slot = self._slot[pair] = len(self._pairs)
            self._pairs.append(pair)
            self._total.append(0)
            self._top.append(0)
            self._boards.append(0)
        return slot

    def pairs(self) -> list[PairId]:
        return list(self._pairs)

    def total(self, pair: PairId) -> int:
        """A pair's total in 1/unit (0 if unknown)."""
        slot = self._slot.get(pair)
        return 0 if slot is None else self._total[slot]

    def top(self, pair: PairId) -> int:
        """The sum of the tops of the boards the pair was scored on, in 1/unit."""
        slot = self._slot.get(pair)
        return 0 if slot is None else self._top[slot]

    def boards(self, pair: PairId) -> int:
        slot = self._slot.get(pair)
        return 0 if slot is None else self._boards[slot]

    def fraction(self, numerator: int) -> Fraction:
        return Fraction(numerator, self.unit)

    # --- the common denominator -----------------------------------------------------------

    def set_base(self, denominator: int) -> None:
        """A denominator the unit must always be a multiple of (e.g. the penalties')."""
        self._base = denominator
        self._rebase(self._target())

    def _target(self, extra: int = 1) -> int:
        return lcm(self._base, extra, *self._uses)

    def _rebase(self, unit: int) -> None:
        """Express every total over a new unit; exact because each board's denominator divides
        both the old and the new unit."""
        if unit == self.unit:
            return
        common = gcd(self.unit, unit)
        down, up = self.unit // common, unit // common
        self._total = [value // down * up for value in self._total]
        self._top = [value // down * up for value in self._top]
        self.unit = unit

    # --- boards ---------------------------------------------------------------------------

    def load(self, scores: Iterable[BoardScore]) -> None:
        """Add many boards at once (a full rescore)."""
        held = list(scores)
        self._uses.update(score.denominator for score in held)
        self._rebase(self._target())
        for score in held:
            self._apply(score, self._slots_of(score), 1)

    def replace(self, old: BoardScore | None, new: BoardScore | None) -> None:
        """Take one board's old scores off the totals and put its new ones on."""
        if old is not None:
            self._apply(old, self._slots_of(old), -1)
            self._uses[old.denominator] -= 1
            if not self._uses[old.denominator]:
                del self._uses[old.denominator]
            del self._board_slots[old.key]
        self._rebase(self._target(1 if new is None else new.denominator))
        if new is not None:
            self._uses[new.denominator] += 1
            self._apply(new, self._slots_of(new), 1)

    def _slots_of(self, score: BoardScore) -> tuple[list[int], list[int]]:
        held = self._board_slots.get(score.key)
        if held is not None and held[0] is score:
            return held[1], held[2]
        register = self.register
        ns = [_NO_PAIR if r.ns_pair is None else register(r.ns_pair) for r in score.results]
        ew = [_NO_PAIR if r.ew_pair is None else register(r.ew_pair) for r in score.results]
        self._board_slots[score.key] = (score, ns, ew)
        return ns, ew

    def _apply(self, score: BoardScore, slots: tuple[list[int], list[int]], sign: int) -> None:
        factor = sign * (self.unit // score.denominator)
        total, tops, boards = self._total, self._top, self._boards
        for index in (0, 1):
            top = (score.tops[index] or 0) * factor
            for slot, numerator in zip(slots[index], score.numerators[index], strict=True):
                if numerator is None or slot < 0:
                    continue
                total[slot] += numerator * factor
                tops[slot] += top
                boards[slot] += sign
