"""Calls, cards and hands in the language in use: how the auction, play and deal screens show
them, and why a call, card or hand was refused (the bridge domain's reason codes, in words)."""

from __future__ import annotations

from protocol.bridge import BridgeError
from protocol.bridge.auction import Call
from protocol.keys import KeyRefusedError

from . import i18n
from .i18n import N_, _
from .keypad import SYMBOLS

#: An illegal call, card, claim or hand (protocol/bridge: auction.py, play.py, deal.py) by code.
REFUSALS = {
    "insufficient_bid": N_("Insufficient bid: bid higher than {last}."),
    "double_own_side": N_("You cannot double your own side's bid."),
    "double_twice": N_("That bid is already doubled."),
    "no_bid": N_("There is no bid to double yet."),
    "redouble_without_double": N_("There is no double to redouble."),
    "redouble_opponents": N_("Only the side that was doubled may redouble."),
    "auction_ended": N_("The auction has ended: no more calls."),
    "not_in_hand": N_("That card is not in the hand of the player to play."),
    "revoke": N_("Follow suit: the player still holds {suit}."),
    "card_played": N_("That card has already been played."),
    "play_ended": N_("The play has ended."),
    "bad_claim": N_("That claim is not possible: declarer has {won} and at most {most} tricks."),
    "hand_size": N_("{seat} has {count} cards: a hand has 13."),
    "card_twice": N_("{card} is in two hands."),
}
#: A key that does not fit (protocol/keys_play.py codes).
KEY_HINTS = {
    "call_level": N_("A call: level 1-7 then the suit, 0 pass, * double or redouble."),
    "call_strain": N_("The suit of the bid: 1 ♣  2 ♦  3 ♥  4 ♠  5 NT."),
    "card_suit": N_("The suit of the card: 1 ♣  2 ♦  3 ♥  4 ♠."),
    "card_rank": N_("The rank: 2-9, 0 ten, 11 J, 12 Q, 13 K, 14 A."),
    "card_high": N_("After 1: 1 J, 2 Q, 3 K, 4 A."),
    "claim_tricks": N_("A claim: * then declarer's tricks 0-13, then Enter."),
}


def call_text(call: Call) -> str:
    """A call as shown: "1♣", "3NT" (local notrump), "Pass", "X", "XX"; "!" when alerted."""
    if call.is_bid:
        assert call.strain is not None
        text = f"{call.level}{i18n.strain(call.strain.value)}"
    elif call.kind == "P":
        text = _("Pass")
    else:
        text = call.kind
    return text + ("!" if call.alert else "")


def card_text(card: str) -> str:
    """ "SA" -> "♠A", "HT" -> "♥10" """
    rank = "10" if card[1:] == "T" else card[1:]
    return SYMBOLS.get(card[0], card[0]) + rank


def refusal_text(error: BridgeError, **fields: object) -> str:
    """Why the bridge domain refused a call, card, claim or hand, in the language in use;
    ``fields`` fill the sentence ({last}, {suit} ...)."""
    message = REFUSALS.get(error.code)
    if message is None:
        return error.message
    try:
        return _(message).format(**fields)
    except (KeyError, IndexError):
        return error.message


def key_hint(refusal: KeyRefusedError) -> str:
    """What a refused key's place wants."""
    return _(KEY_HINTS.get(refusal.code, KEY_HINTS["call_level"]))
