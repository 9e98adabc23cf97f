"""The key grammar for the auction and the play, in the table's one grammar (``protocol/keys.py``).

Calls and cards are keyed on the same numeric keys as the result, with the same meanings:

    call      a bid is its level 1-7 then its strain 1 ♣ 2 ♦ 3 ♥ 4 ♠ 5 NT (the result's level
              and strain keys); 0 is Pass (as 0 is "passed out" in a result); * is the double,
              and * again on a doubled bid the redouble (the result's * key: whichever of X
              and XX the Laws allow now). The alert key marks the call just made as alerted.
              The auction ends by itself after the closing passes (Law 22A).
    card      suit 1 ♣ 2 ♦ 3 ♥ 4 ♠, then rank 2-9, 0 = ten, 11 J 12 Q 13 K 14 A (the lead's
              keys). When the deal is known and the player holds the suit led, the suit is
              implied and the rank alone plays the card; when only one card may be played,
              OK plays it.
    claim     * then declarer's total tricks 0-13, then OK (Law 68).

A completed call or card is returned at once; a refused key raises
:class:`~protocol.keys.KeyRefusedError` with a code, and illegal calls and cards raise the
bridge domain's IllegalCall / IllegalPlay (with theirs). Pure: no I/O, no language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from protocol.bridge.auction import Auction, Call, IllegalCall
from protocol.bridge.enums import Strain
from protocol.bridge.play import Play
from protocol.keys import DOUBLE, HIGH_RANKS, OK, PASSED, STRAIN_KEYS, SUIT_KEYS, KeyRefusedError

ALERT: Final = "alert"
"""The grammar's alert key (the terminal's `+`, the keypad's `UP`)."""
CLAIM: Final = DOUBLE

_LEVELS: Final = frozenset("1234567")
_LOW_RANKS: Final = frozenset("23456789")
_SUIT_OF_KEY: Final = {key: Strain(value) for key, value in SUIT_KEYS.items()}
_KEY_OF_SUIT: Final = {value: key for key, value in SUIT_KEYS.items()}
_KEY_OF_STRAIN: Final = {value: key for key, value in STRAIN_KEYS.items()}
_KEY_OF_HIGH: Final = {value: key for key, value in HIGH_RANKS.items()}


def read_call(auction: Auction, keys: tuple[str, ...]) -> Call | None:
    """The call `keys` make at this point of `auction`, or None while it needs more keys.

    KeyRefusedError("call_level" | "call_strain") for a key that does not fit; IllegalCall when
    the call is complete but the Laws refuse it (an insufficient bid, a double of partner ...).
    """
    if not keys:
        return None
    first = keys[0]
    if len(keys) == 1:
        if first == PASSED:
            return auction.legal(Call("P"))
        if first == DOUBLE:
            for kind in ("X", "XX"):
                try:
                    return auction.legal(Call(kind))
                except IllegalCall:
                    continue
            return auction.legal(Call("X"))  # raises with the reason a double is refused
        if first in _LEVELS:
            return None
        raise KeyRefusedError("call_level")
    if len(keys) == 2 and first in _LEVELS:
        strain = STRAIN_KEYS.get(keys[1])
        if strain is None:
            raise KeyRefusedError("call_strain")
        return auction.legal(Call("bid", int(first), Strain(strain)))
    raise KeyRefusedError("call_level")


def call_keys(auction: Auction, call: Call) -> tuple[str, ...]:
    """The keys that make `call` now (the inverse of read_call), its alert key included."""
    if call.is_bid:
        assert call.strain is not None
        keys: tuple[str, ...] = (str(call.level), _KEY_OF_STRAIN[call.strain.value])
    else:
        keys = (PASSED,) if call.kind == "P" else (DOUBLE,)
    return (*keys, ALERT) if call.alert else keys


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim keyed: declarer's total tricks."""

    tricks: int


def read_card(play: Play, keys: tuple[str, ...]) -> str | Claim | None:
    """The card (or claim) `keys` make for the player to play, or None while more are needed.

    KeyRefusedError("card_suit" | "card_rank" | "card_high" | "claim_tricks") for a key that
    does not fit; IllegalPlay when the card is complete but may not be played.
    """
    if not keys:
        return None
    if keys[0] == CLAIM:
        return _read_claim(keys[1:])
    legal = _legal_cards(play)
    if keys == (OK,):
        if legal is not None and len(legal) == 1:
            return play.legal(next(iter(legal)))
        raise KeyRefusedError("card_suit")
    implied = _implied_suit(play, legal)
    if implied is None:
        suit = _SUIT_OF_KEY.get(keys[0])
        if suit is None:
            raise KeyRefusedError("card_suit")
        rank_keys = keys[1:]
    else:
        suit, rank_keys = implied, keys
    rank = _read_rank(rank_keys)
    return None if rank is None else play.legal(f"{suit.value}{rank}")


def card_keys(play: Play, card: str) -> tuple[str, ...]:
    """The fewest keys that play `card` now (the inverse of read_card)."""
    legal = _legal_cards(play)
    if legal is not None and legal == {card}:
        return (OK,)
    rank = card[1]
    rank_keys = (rank,) if rank in _LOW_RANKS else ("1", _KEY_OF_HIGH[rank])
    if rank == "T":
        rank_keys = ("0",)
    if _implied_suit(play, legal) is not None:
        return rank_keys
    return (_KEY_OF_SUIT[card[0]], *rank_keys)


def _read_rank(keys: tuple[str, ...]) -> str | None:
    if not keys:
        return None
    first = keys[0]
    if len(keys) == 1:
        if first in _LOW_RANKS:
            return first
        if first == "0":
            return "T"
        if first == "1":
            return None
        raise KeyRefusedError("card_rank")
    if len(keys) == 2 and first == "1":
        high = HIGH_RANKS.get(keys[1])
        if high is None or high == "T":
            raise KeyRefusedError("card_high")
        return high
    raise KeyRefusedError("card_rank")


def _read_claim(keys: tuple[str, ...]) -> Claim | None:
    if not keys or keys[-1] != OK:
        digits = "".join(keys)
        if not digits.isdigit() and digits:
            raise KeyRefusedError("claim_tricks")
        if digits and int(digits) > 13:
            raise KeyRefusedError("claim_tricks")
        return None
    digits = "".join(keys[:-1])
    if not digits.isdigit() or int(digits) > 13:
        raise KeyRefusedError("claim_tricks")
    return Claim(int(digits))


def _legal_cards(play: Play) -> set[str] | None:
    """The cards the player may play now, or None without the deal."""
    held = play.held(play.to_play)
    if held is None:
        return None
    led = play.tricks[-1].suit_led
    following = {card for card in held if card[0] == led} if led else set()
    return following or set(held)


def _implied_suit(play: Play, legal: set[str] | None) -> Strain | None:
    """The suit led, when the deal is known and the player must follow it."""
    led = play.tricks[-1].suit_led
    if legal is None or led is None or not any(card[0] == led for card in legal):
        return None
    return Strain(led)
