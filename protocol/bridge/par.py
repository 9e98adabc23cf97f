"""The par of a deal: the result when both sides bid perfectly, knowing the double-dummy tricks.

Par is what the usual definition (as in Bo Haglund's DDS and the PBN [OptimumScore] tag)
makes it: each side in turn, starting with the dealer's, may bid any contract higher than the
last one, or pass; a contract that makes is left undoubled, one that fails is doubled (a
sacrifice); each side plays a strain from its seat that takes the more tricks. The par contract
is where this game, solved backwards over the 35 contracts, comes to rest, and its score is the
par score. Solving the game, rather than applying a rule of thumb, gets sacrifices and
out-bidding right, and the dealer breaks the ties the bidding order breaks.

``tricks`` is the double-dummy table: declarer seat -> strain -> tricks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from .contract import Contract
from .enums import Doubling, Seat, Side, Strain, Vulnerability
from .score import contract_score

_STRAINS = (Strain.C, Strain.D, Strain.H, Strain.S, Strain.NT)
_CONTRACTS = tuple((level, strain) for level in range(1, 8) for strain in _STRAINS)


@dataclass(frozen=True, slots=True)
class Par:
    """The par score for N/S, and the contract it comes from (None when passed out)."""

    ns_score: int
    contract: Contract | None
    declarer: Seat | None
    tricks: int | None

    def __str__(self) -> str:
        if self.contract is None or self.declarer is None or self.tricks is None:
            return "Passed out, 0"
        needed = self.contract.level + 6
        result = "=" if self.tricks == needed else f"{self.tricks - needed:+d}"
        return f"{self.contract}{result} {self.declarer.value}, NS {self.ns_score:+d}"


def par(
    tricks: Mapping[str, Mapping[str, int]], vulnerability: Vulnerability | str, dealer: Seat | str
) -> Par:
    """The par of a deal from its double-dummy table."""
    vul = Vulnerability.parse(vulnerability)
    first = Seat.parse(dealer).side
    table = {
        Seat.parse(seat): {Strain.parse(strain): int(n) for strain, n in row.items()}
        for seat, row in tricks.items()
    }

    def best(side: Side, strain: Strain) -> tuple[Seat, int]:
        seats = side.seats
        return max(((seat, table[seat][strain]) for seat in seats), key=lambda st: st[1])

    def outcome(side: Side, rank: int) -> tuple[int, Contract, Seat, int]:
        """N/S score of `side` declaring contract `rank`: undoubled if it makes, else doubled."""
        level, strain = _CONTRACTS[rank]
        seat, taken = best(side, strain)
        makes = taken >= level + 6
        contract = Contract(level, strain, Doubling.NONE if makes else Doubling.X)
        score = contract_score(contract, taken, vul.is_vulnerable(side))
        return (score if side is Side.NS else -score), contract, seat, taken

    @cache
    def answer(rank: int, to_bid: Side) -> tuple[int, int, Side]:
        """(N/S score, final rank, its declaring side) when `to_bid` faces the other side's
        contract at `rank`: pass, or bid higher; each side keeps its own score highest."""
        holder = to_bid.other
        sign = 1 if to_bid is Side.NS else -1
        best_choice = (outcome(holder, rank)[0], rank, holder)
        for higher in range(rank + 1, len(_CONTRACTS)):
            choice = answer(higher, holder)
            if sign * choice[0] > sign * best_choice[0]:
                best_choice = choice
        return best_choice

    def opening(to_bid: Side, passes: int) -> tuple[int, int, Side] | None:
        """The result when `to_bid` may open (None: passed out)."""
        sign = 1 if to_bid is Side.NS else -1
        best_choice: tuple[int, int, Side] | None = None
        best_value = 0
        if passes == 0:
            later = opening(to_bid.other, 1)
            best_value = later[0] if later else 0
            best_choice = later
        for rank in range(len(_CONTRACTS)):
            choice = answer(rank, to_bid.other)
            if sign * choice[0] > sign * best_value:
                best_choice, best_value = choice, choice[0]
        return best_choice

    found = opening(first, 0)
    if found is None:
        return Par(0, None, None, None)
    score, rank, side = found
    _, contract, seat, taken = outcome(side, rank)
    return Par(score, contract, seat, taken)
