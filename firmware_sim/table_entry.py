"""The keypad's auction and deal entry on the 2x16 LCD, in the one grammar
(protocol/keys_play.py): the same keys as the terminal, ``UP`` the alert key.

Auction: line 1 the board and the last calls that fit, line 2 who calls and the keys so far, or
why a call was refused. It ends by itself after the closing passes (Law 22A).

Deal: the hands suit by suit (S H D C of N, E, S, W; or North's alone to check a deal keyed at
another table), ranks 2-9, 0 ten, 11 J 12 Q 13 K 14 A, ENT after each suit; 13 cards a hand and
52 in all are checked (protocol/bridge/deal.py) before the deal is sent.

The play is not keyed on the keypad: protocol/keys.md says why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from protocol.bridge import BridgeError
from protocol.bridge.auction import Auction, IllegalCall
from protocol.bridge.enums import Seat
from protocol.keys import KeyRefusedError
from protocol.keys_deal import DealKeys
from protocol.keys_play import ALERT, read_call

from . import i18n
from .lcd import WIDTH

#: The keypad's keys as the grammar's while the auction is keyed (digits are themselves).
AUCTION_KEYS: Final = {"*": "*", "UP": ALERT}
#: Why a call was refused, in the LCD's few words (message ids of the keypad catalogue).
CALL_REFUSALS: Final = {
    "insufficient_bid": "Insufficient bid",
    "double_own_side": "No X of partner",
    "double_twice": "Already doubled",
    "no_bid": "No bid to double",
    "redouble_without_double": "No X to redouble",
    "redouble_opponents": "Not your XX",
    "call_level": "Level 1-7 0=pass",
    "call_strain": "1C 2D 3H 4S 5NT",
}


@dataclass
class AuctionDraft:
    """The calls keyed so far on one board, and the keys of the call being made."""

    board: int
    auction: Auction
    optional: bool
    first: bool  # keyed before the contract, which then follows from it
    keys: tuple[str, ...] = ()

    def press(self, key: str) -> str | None:
        """One key (the grammar's name); a refusal's words (English id) or None."""
        if key == ALERT:
            if self.keys or not self.auction.calls:
                return "Call first"
            self.auction.mark_alert()
            return None
        keys = (*self.keys, key)
        try:
            call = read_call(self.auction, keys)
        except KeyRefusedError as refusal:
            self.keys = ()
            return CALL_REFUSALS.get(refusal.code, "Level 1-7 0=pass")
        except IllegalCall as error:
            self.keys = ()
            return CALL_REFUSALS.get(error.code, "Not possible")
        if call is None:
            self.keys = keys
        else:
            self.keys = ()
            self.auction.add(call)
        return None

    def back(self) -> bool:
        """Take back one key or one call; False when there was nothing to take back."""
        if self.keys:
            self.keys = self.keys[:-1]
        elif self.auction.calls:
            self.auction = Auction(self.auction.dealer, self.auction.calls[:-1])
        else:
            return False
        return True

    def lines(self, lang: str) -> tuple[str, str]:
        """Line 1: "B5 1NT P 3NT", the last calls that fit; line 2: "S: 3_" or the hint."""
        head = i18n.text(lang, "B{board}", board=self.board)
        calls = [str(call) for call in self.auction.calls]
        shown = ""
        for call in reversed(calls):
            if len(head) + 1 + len(call) + 1 + len(shown) > WIDTH:
                break
            shown = f"{call} {shown}".strip()
        line1 = (
            f"{head} {shown}" if shown else i18n.text(lang, "B{board} auction", board=self.board)
        )
        seat = i18n.seat(lang, self.auction.to_call.value)
        if self.keys:
            return line1, f"{seat}: {''.join(self.keys)}_"
        if self.optional and not calls:
            return line1, i18n.text(lang, "{seat}? ENT=none", seat=seat)
        return line1, i18n.text(lang, "{seat}? 0=P *=X ^!", seat=seat)


#: Why a key of the deal was refused, in the LCD's few words (ids of the keypad catalogue).
DEAL_REFUSALS: Final = {
    "deal_high": "1: 1J 2Q 3K 4A",
    "deal_keyed_already": "Keyed already",
    "deal_hand_full": "13 cards: ENT",
    "deal_hand_size": "13 cards a hand",
}


@dataclass
class DealDraft:
    """The hands keyed so far on one board (the grammar: protocol/keys_deal.py): ``mode``
    "enter" (the four) or "check" (North's)."""

    board: int
    mode: Literal["enter", "check"]
    keys: DealKeys = field(init=False)

    def __post_init__(self) -> None:
        self.keys = DealKeys(self.mode)

    @property
    def seat(self) -> Seat:
        return self.keys.seat

    @property
    def suit(self) -> str:
        return self.keys.suit

    def press(self, key: str) -> str | None:
        """A rank key; a refusal's words (English id) or None."""
        try:
            self.keys.press(key)
        except KeyRefusedError as refused:
            return DEAL_REFUSALS[refused.code]
        return None

    def next_suit(self) -> tuple[str | None, bool]:
        """ENT: (a refusal's words or None, whether every hand is keyed and checked)."""
        try:
            return None, self.keys.next_suit()
        except KeyRefusedError as refused:
            return DEAL_REFUSALS[refused.code], False
        except BridgeError as error:
            return ("Card in 2 hands" if error.code == "card_twice" else "Not 52"), False

    def back(self) -> bool:
        """Take back a key, or go back a suit; False when nothing is keyed."""
        return self.keys.back()

    def text(self) -> str:
        """What is sent: the PBN deal, or North's hand."""
        return self.keys.text()

    def lines(self, lang: str) -> tuple[str, str]:
        """Line 1: "B5 N S:AKQ2_", line 2: the hand's count and the keys."""
        seat = i18n.seat(lang, self.seat.value)
        held = self.keys.holdings[-1] + ("1" if self.keys.high else "")
        head = f"{i18n.text(lang, 'B{board}', board=self.board)} {seat} {self.suit}:"
        line1 = head + (held + "_")[-(WIDTH - len(head)) :]
        count = len(self.keys.hand((len(self.keys.holdings) - 1) // 4))
        return line1, i18n.text(lang, "{count}/13 ENT=suit", count=count)
