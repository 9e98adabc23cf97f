"""The key grammar for a hand-dealt board's deal, in the table's one grammar
(``protocol/keys.py``), for the terminal and the keypad alike.

The hands are keyed suit by suit: ♠ ♥ ♦ ♣ of North, East, South and West (``enter``: the first
table to play the board), or North's alone (``check``: a later table). A rank is 2-9, 0 the
ten, and 1 then 1-4 for J Q K A (the lead's keys); OK after each suit. Thirteen cards a hand,
and for the four hands 52 in all (protocol/bridge/deal.check_deal), are checked before the deal
is sent. Pure: no I/O, no language; a refused key raises :class:`~protocol.keys.KeyRefusedError`
with a code, and a deal that is not 52 different cards the bridge domain's InvalidDeal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from protocol.bridge.deal import Hand, check_deal, format_deal, format_hand
from protocol.bridge.enums import Seat
from protocol.keys import HIGH_RANKS, KeyRefusedError

SUITS: Final = ("S", "H", "D", "C")
SEATS: Final = (Seat.N, Seat.E, Seat.S, Seat.W)
DealMode = Literal["enter", "check"]


@dataclass
class DealKeys:
    """The hands keyed so far: one string of ranks a suit, in keying order.

    Refusal codes: ``deal_high`` (after 1, only 1-4 for J Q K A), ``deal_keyed_already`` (the
    rank is in the suit already), ``deal_hand_full`` (the hand has 13 cards: OK),
    ``deal_hand_size`` (OK on clubs with other than 13 cards in the hand)."""

    mode: DealMode
    holdings: list[str] = field(default_factory=lambda: [""])
    high: bool = False  # a 1 keyed: J Q K A next

    @property
    def seats(self) -> tuple[Seat, ...]:
        return SEATS if self.mode == "enter" else (Seat.N,)

    @property
    def index(self) -> int:
        """Which of :attr:`seats` is being keyed."""
        return min((len(self.holdings) - 1) // 4, len(self.seats) - 1)

    @property
    def seat(self) -> Seat:
        """The hand being keyed."""
        return self.seats[self.index]

    @property
    def suit(self) -> str:
        """The suit being keyed."""
        return SUITS[(len(self.holdings) - 1) % 4]

    def hand(self, index: int) -> Hand:
        """The cards keyed for the seat at ``index`` of :attr:`seats`."""
        suits = self.holdings[index * 4 : index * 4 + 4]
        return frozenset(f"{SUITS[n]}{rank}" for n, held in enumerate(suits) for rank in held)

    def hands(self) -> dict[Seat, Hand]:
        """Every hand keyed so far."""
        return {seat: self.hand(index) for index, seat in enumerate(self.seats)}

    def press(self, key: str) -> None:
        """A rank key (a digit); KeyRefusedError with the code when it does not fit."""
        if self.high:
            rank = HIGH_RANKS.get(key)
            if rank is None or rank == "T":
                raise KeyRefusedError("deal_high")
            self.high = False
        elif key == "1":
            self.high = True
            return
        else:
            rank = "T" if key == "0" else key
        if rank in self.holdings[-1]:
            raise KeyRefusedError("deal_keyed_already")
        if len(self.hand((len(self.holdings) - 1) // 4)) >= 13:
            raise KeyRefusedError("deal_hand_full")
        self.holdings[-1] += rank

    def next_suit(self) -> bool:
        """OK after a suit: True when every hand is keyed (and, for the four, checked:
        InvalidDeal names a card in two hands); KeyRefusedError("deal_hand_size") when a hand
        ends with other than 13 cards."""
        index = (len(self.holdings) - 1) // 4
        if self.suit == "C":
            if len(self.hand(index)) != 13:
                raise KeyRefusedError("deal_hand_size")
            if index == len(self.seats) - 1:
                if self.mode == "enter":
                    check_deal(self.hands())
                return True
        self.holdings.append("")
        return False

    def back(self) -> bool:
        """Take back a key, or go back a suit; False when nothing is keyed."""
        if self.high:
            self.high = False
        elif self.holdings[-1]:
            self.holdings[-1] = self.holdings[-1][:-1]
        elif len(self.holdings) > 1:
            self.holdings.pop()
        else:
            return False
        return True

    def text(self) -> str:
        """What is sent: the PBN deal (EnterDeal), or North's hand (CheckDeal)."""
        hands = self.hands()
        return format_deal(hands) if self.mode == "enter" else format_hand(hands[Seat.N])
