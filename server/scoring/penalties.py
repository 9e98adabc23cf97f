"""Penalties in the standings' unit: standard deductions (§ 211B) and warnings first (§ X90C)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from protocol.bridge import ns_score

from .models import Number

MOST_STANDARD_DEDUCTIONS = 5
"""One penalty is 1 to 5 standard deductions (§ X90B3)."""
BOARD_CEILING = Fraction(ns_score(2, "7NTXX", "N", 13))
"""The greatest score one board can carry (Law 77: 7NT redoubled and made, vulnerable, 2980):
where the scoring has no standard deduction (total points) no penalty is larger, and no legal
penalty in any unit of pairs or teams scoring comes near it."""


class Unit(StrEnum):
    """The unit the standings are kept in, which fixes the size of a standard deduction."""

    MATCHPOINTS = "matchpoint"
    IMPS_ACROSS = "imp-across"
    BUTLER = "butler-imp"
    VP = "vp"
    BOARD_A_MATCH = "bam"
    KNOCKOUT_IMPS = "knockout"


def standard_deduction(
    unit: Unit,
    *,
    top: Number | None = None,
    other_tables: int | None = None,
    boards_in_match: int | None = None,
) -> Fraction:
    """The size of one standard deduction (§ 211B), unrounded.

    Pairs: 10 % of a top on one board (matchpoints; `top`), 2 IMPs per other table the board
    was to be played at (IMPs across the field; `other_tables`), 2 IMPs (Butler). Teams: ½ VP
    in a match scheduled for 13+ boards, 1 VP for 12 or fewer (`boards_in_match`); 0.2 in
    board-a-match; 1½ IMPs in a knock-out match.
    """
    if unit is Unit.MATCHPOINTS:
        if top is None:
            raise ValueError("a matchpoint deduction needs the top on a board")
        return Fraction(top) / 10
    if unit is Unit.IMPS_ACROSS:
        if other_tables is None:
            raise ValueError("an IMPs-across-the-field deduction needs the number of other tables")
        return Fraction(2 * other_tables)
    if unit is Unit.BUTLER:
        return Fraction(2)
    if unit is Unit.VP:
        if boards_in_match is None:
            raise ValueError("a VP deduction needs the number of boards in the match")
        return Fraction(1, 2) if boards_in_match >= 13 else Fraction(1)
    if unit is Unit.BOARD_A_MATCH:
        return Fraction(1, 5)
    return Fraction(3, 2)


def largest_deduction(standard: Fraction | None) -> Fraction:
    """The most one penalty may deduct: 5 standard deductions (§ X90B3), or, where the scoring
    has none (total points), the greatest score of one board (Law 77)."""
    if standard is None:
        return BOARD_CEILING
    return min(standard * MOST_STANDARD_DEDUCTIONS, BOARD_CEILING)


def stored_deduction(text: str) -> Fraction | None:
    """A deduction as stored (a Fraction's text), or None when no penalty can be that: text
    that is not a number, less than zero, or more than any unit allows (``BOARD_CEILING``):
    a row stored before the amounts were bounded, which the standings leave out."""
    try:
        amount = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    return amount if 0 <= amount <= BOARD_CEILING else None


def vp_penalty_as_imps(vp: Number, boards_in_match: int) -> Fraction:
    """§ 207A2: a VP penalty as IMPs for a carry-over: as standard deductions, 1½ IMPs each."""
    deductions = Fraction(vp) / standard_deduction(Unit.VP, boards_in_match=boards_in_match)
    return deductions * standard_deduction(Unit.KNOCKOUT_IMPS)


@dataclass(frozen=True, slots=True)
class Offence:
    """A procedural offence the TD recorded (e.g. a missing entry at the end of a round, § 262C2,
    or a time overrun, § 213B). The first of a kind in a phase earns a warning, each later one a
    standard deduction (§ X90C1); `immediate` ones are deducted at once (e.g. 3+ minutes late)."""

    contestant: Hashable
    kind: str
    phase: Hashable = None
    immediate: bool = False
    deductions: Fraction = Fraction(1)
    """How many standard deductions the offence costs when it is penalised."""


@dataclass(frozen=True, slots=True)
class Ruling:
    offence: Offence
    warning: bool
    deduction: Fraction


def assess(offences: Iterable[Offence], deduction: Fraction) -> list[Ruling]:
    """Rule on offences in the order they happened: a warning first, deductions after (§ X90C)."""
    warned: set[tuple[Hashable, str, Hashable]] = set()
    rulings: list[Ruling] = []
    for offence in offences:
        key = (offence.contestant, offence.kind, offence.phase)
        if key in warned or offence.immediate:
            rulings.append(Ruling(offence, False, deduction * offence.deductions))
        else:
            rulings.append(Ruling(offence, True, Fraction(0)))
        warned.add(key)
    return rulings


@dataclass(frozen=True, slots=True)
class Penalty:
    """A TD's penalty in the standings' unit (e.g. 1-5 standard deductions, § X90B3)."""

    contestant: Hashable
    amount: Fraction
    reason: str = ""

    @classmethod
    def standard(
        cls, contestant: Hashable, deduction: Fraction, times: Number = 1, reason: str = ""
    ) -> Penalty:
        return cls(contestant, deduction * Fraction(times), reason)


def penalty_totals(
    rulings: Sequence[Ruling] = (), penalties: Sequence[Penalty] = ()
) -> dict[Hashable, Fraction]:
    """Each offender's total deduction; only the offender is touched (§ 211A2)."""
    totals: dict[Hashable, Fraction] = {}
    for ruling in rulings:
        if ruling.deduction:
            who = ruling.offence.contestant
            totals[who] = totals.get(who, Fraction(0)) + ruling.deduction
    for penalty in penalties:
        totals[penalty.contestant] = totals.get(penalty.contestant, Fraction(0)) + penalty.amount
    return totals
