"""A traveller line's auction and play as a file gives them, checked the same for every reader
(PBN [Auction]/[Play], BWS BiddingData/PlayData) with the protocol's rules: every call legal
(Laws 18-19, 22), the auction ending in the line's contract and declarer (Law 22B), every card
legal (Law 44, the hands when the deal is known), and the play agreeing with the line's tricks.
A play that stops early is ended by a claim (Law 68) of the line's tricks.

The texts are those ``Result`` stores: the auction as canonical calls from the dealer
("1C 1NT! P 3NT P P P"), the play as ``protocol.bridge.play.format_play`` writes it.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.bridge import BridgeError, Contract, Seat
from protocol.bridge.auction import Auction
from protocol.bridge.deal import Hand, parse_deal
from protocol.bridge.play import Play, format_play


class PlayedError(ValueError):
    """An auction or play that cannot be read: the reason (the reader adds the place)."""


def _contract_words(contract: Contract, declarer: Seat | None) -> str:
    if contract.strain is None:
        return "passed out"
    return f"{contract} by {declarer.value if declarer else '?'}"


def auction_text(build: Callable[[], Auction], contract: str | None, declarer: str | None) -> str:
    """The auction ``build`` makes, checked: PlayedError when a call is illegal, the auction
    does not end, or it ends in another contract or declarer than the line's."""
    try:
        auction = build()
    except BridgeError as exc:
        raise PlayedError(f"the auction: {exc}") from None
    if not auction.ended:
        raise PlayedError(f"the auction {auction} does not end (Law 22A)")
    outcome = auction.outcome()
    if contract is not None:
        keyed = Contract.parse(contract)
        seat = None if keyed.strain is None else Seat.parse(declarer or "")
        if (keyed, seat) != (outcome.contract, outcome.declarer):
            raise PlayedError(
                f"the auction ends in {_contract_words(outcome.contract, outcome.declarer)}, "
                f"the result says {_contract_words(keyed, seat)}"
            )
    return str(auction)


def hands_of(deal: str | None) -> dict[Seat, Hand] | None:
    """The four hands of a stored deal, or None without one (the play is then checked
    without the hands: a card played twice is still refused)."""
    return parse_deal(deal) if deal else None


def play_text(
    build: Callable[[Contract, str], Play],
    contract: str | None,
    declarer: str | None,
    tricks: int | None,
) -> str:
    """The play ``build(contract, declarer)`` makes, checked and ended: PlayedError when a card
    is refused (not in the hand, a revoke, the wrong opening leader), when there is no contract
    played, or when the play and the line's tricks disagree."""
    if contract is None or declarer is None or contract == "PASS":
        raise PlayedError("a play without a contract played")
    try:
        play = build(Contract.parse(contract), declarer)
        if not play.ended:
            if tricks is None:
                raise PlayedError("the play stops before the end and the result is not given")
            play.claim(tricks)
    except BridgeError as exc:
        raise PlayedError(f"the play: {exc}") from None
    if tricks is not None and play.declarer_tricks() != tricks:
        raise PlayedError(
            f"the play gives declarer {play.declarer_tricks()} tricks, the result {tricks}"
        )
    return format_play(play)
