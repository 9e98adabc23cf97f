"""A keyed result checked and scored (Law 77), the values a result row stores of it.

When the event takes the auction (``Event.auction_entry``) the calls are checked by
Laws 18-19 and 22 (protocol/bridge/auction.py): an illegal call is refused with its reason, and
the contract and declarer keyed must be those that follow from the auction (Law 22B); a
contract left out ("") is the auction's.

When the event takes the play (``Event.play_entry``) the cards are replayed from the opening
lead (protocol/bridge/play.py), against the deal when the board has one: a card not in the hand,
a revoke, a card played twice or a claim out of range is refused with the card and the reason,
and the play must end (13 tricks or a claim). Tricks keyed that differ from the tricks played
are taken, but the TD is called (``CheckedValues.play_differs``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, select

from protocol import alerts
from protocol.bridge import BridgeError, Contract, TableResult, dealer, ns_score, parse_card
from protocol.bridge.auction import Auction, AuctionOutcome, Call
from protocol.bridge.deal import Hand, InvalidDeal, parse_deal
from protocol.bridge.enums import Seat
from protocol.bridge.play import IllegalPlay, format_play, parse_play
from protocol.messages import AlertExplanation, EntryValues
from server.core.errors import InvalidError, verbatim
from server.core.models import Board, Event, Result
from server.core.text import checked


@dataclass(frozen=True)
class CheckedValues:
    contract: str
    declarer: str | None
    tricks: int
    lead: str | None
    ns_score: int
    auction: str | None = None
    play: str | None = None
    #: The explanations of the auction's alerted calls, as stored (protocol/alerts.py).
    alerts: str | None = None
    #: Declarer's tricks as played (the claim when there is one), None without a play.
    play_tricks: int | None = None

    @property
    def play_differs(self) -> bool:
        """Whether the tricks keyed differ from the tricks played (the TD is called)."""
        return self.play_tricks is not None and self.play_tricks != self.tricks


def board_dealer(session: Session, section_id: int, board: int) -> str:
    """The board's dealer: the section's board row when it has one, else Law 2's rotation."""
    found = session.exec(
        select(Board.dealer).where(Board.section_id == section_id, Board.number == board)
    ).first()
    return found or dealer(board).value


def check_auction(board: int, text: str, board_dealer: str | None = None) -> Auction:
    """The keyed calls as a complete, legal auction from the dealer (Laws 18-19, 22A)."""
    auction = Auction(board_dealer or dealer(board))
    calls = text.split()
    if not calls:
        raise InvalidError("auction_empty", "Board {board}: the auction has no calls.", board=board)
    for number, word in enumerate(calls, start=1):
        try:
            auction.add(Call.parse(word))
        except BridgeError as exc:
            raise call_refusal(exc.code, board, number, auction, word) from exc
    if not auction.ended:
        raise InvalidError(
            "auction_open",
            "Board {board}: the auction has not ended ({value} to call): three passes end it.",
            board=board,
            value=auction.to_call.value,
        )
    return auction


def call_refusal(code: str, board: int, number: int, auction: Auction, word: str) -> InvalidError:
    """The refusal of call ``number`` (``word``) of a board's auction, by its reason."""
    seat = auction.to_call.value
    last = next((str(c).rstrip("!") for c in reversed(auction.calls) if c.is_bid), "")
    call = word.rstrip("!").upper()
    if code == "insufficient_bid":
        return InvalidError(
            "insufficient_bid",
            "Board {board}, call {number}: {call} by {seat} is insufficient after {last}.",
            board=board,
            number=number,
            call=call,
            seat=seat,
            last=last,
        )
    if code == "double_own_side":
        return InvalidError(
            "double_own_side",
            "Board {board}, call {number}: {seat} may not double own side's {last}.",
            board=board,
            number=number,
            seat=seat,
            last=last,
        )
    if code == "double_twice":
        return InvalidError(
            "double_twice",
            "Board {board}, call {number}: {last} is already doubled.",
            board=board,
            number=number,
            last=last,
        )
    if code == "no_bid":
        return InvalidError(
            "no_bid",
            "Board {board}, call {number}: there is no bid to double yet.",
            board=board,
            number=number,
        )
    if code == "redouble_without_double":
        return InvalidError(
            "redouble_without_double",
            "Board {board}, call {number}: {seat} has no double of {last} to redouble.",
            board=board,
            number=number,
            seat=seat,
            last=last,
        )
    if code == "redouble_opponents":
        return InvalidError(
            "redouble_opponents",
            "Board {board}, call {number}: only the side whose {last} was doubled may redouble.",
            board=board,
            number=number,
            last=last,
        )
    if code == "auction_ended":
        return InvalidError(
            "auction_ended",
            "Board {board}, call {number}: the auction has ended, {call} comes after it.",
            board=board,
            number=number,
            call=call,
        )
    return InvalidError(
        "invalid_call",
        "Board {board}, call {number}: {word} is not a call (1C-7NT, P, X, XX).",
        board=board,
        number=number,
        word=word,
    )


def _agree(board: int, values: EntryValues, outcome: AuctionOutcome) -> None:
    """A contract and declarer keyed besides the auction must be the auction's (Law 22B); a
    contract left out ("") is taken from the auction (with its declarer)."""
    if not values.contract.strip():
        seat = outcome.declarer.value if outcome.declarer is not None else None
        if values.declarer is not None and values.declarer != seat:
            said = " ".join(filter(None, (str(outcome.contract), seat)))
            raise InvalidError(
                "auction_disagrees",
                "Board {board}: the auction ends in {said}, not declared by {declarer} as "
                "keyed. Check the declarer or the auction.",
                board=board,
                said=said,
                declarer=values.declarer,
            )
        return
    try:
        keyed = Contract.parse(values.contract)
    except BridgeError as exc:
        raise InvalidError(exc.code, verbatim(str(exc))) from exc
    seat = outcome.declarer.value if outcome.declarer is not None else None
    declarer_differs = values.declarer is not None and values.declarer != seat
    if keyed != outcome.contract or declarer_differs:
        said = " ".join(filter(None, (str(outcome.contract), seat)))
        given = " ".join(filter(None, (str(keyed), values.declarer)))
        raise InvalidError(
            "auction_disagrees",
            "Board {board}: the auction ends in {said}, not {given} as keyed. Check the "
            "contract or the auction.",
            board=board,
            said=said,
            given=given,
        )


def check_values(
    board: int,
    values: EntryValues,
    lead_required: bool,
    *,
    auction_entry: str = "off",
    board_dealer: str | None = None,
    play_entry: str = "off",
    deal: str | None = None,
) -> CheckedValues:
    """The entry checked and scored; ``auction_entry`` the event's setting (off, optional,
    required), ``board_dealer`` the board's dealer (Law 2's rotation when None),
    ``play_entry`` the event's play setting (off, optional) and ``deal`` the board's hand
    record (PBN) that the play is checked against, when known."""
    contract, declarer, auction = values.contract, values.declarer, None
    if values.auction is not None and values.auction.strip():
        if auction_entry == "off":
            raise InvalidError(
                "auction_not_taken", "This event does not take the auction: leave it out."
            )
        auction = check_auction(board, values.auction, board_dealer)
        outcome = auction.outcome()
        _agree(board, values, outcome)
        contract = str(outcome.contract)
        declarer = outcome.declarer.value if outcome.declarer is not None else None
    elif auction_entry == "required":
        raise InvalidError(
            "auction_required",
            "This event asks for the auction: key the calls of board {board}.",
            board=board,
        )
    explained = check_explanations(board, auction, values.alerts or ())
    try:
        result = TableResult.make(contract, declarer, values.tricks)
        lead = parse_card(values.lead) if values.lead else None
    except BridgeError as exc:
        raise InvalidError(exc.code, verbatim(str(exc))) from exc
    if lead_required and lead is None and not result.contract.is_pass:
        raise InvalidError("lead_required", "This event asks for the opening lead: enter the card.")
    declarer = result.declarer.value if result.declarer is not None else None
    play_text, play_tricks = None, None
    if values.play is not None and values.play.strip():
        if play_entry == "off":
            raise InvalidError("play_not_taken", "This event does not take the play: leave it out.")
        play_text, play_tricks = check_play(board, values.play, result, deal)
    return CheckedValues(
        contract=str(result.contract),
        declarer=declarer,
        tricks=result.tricks,
        lead=lead,
        ns_score=ns_score(board, result.contract, result.declarer, result.tricks),
        auction=str(auction) if auction is not None else None,
        play=play_text,
        alerts=alerts.stored_text(explained),
        play_tricks=play_tricks,
    )


def check_explanations(
    board: int, auction: Auction | None, given: Sequence[AlertExplanation]
) -> dict[int, str]:
    """The explanations of alerted calls, call number -> text: each one names an alerted call
    of the auction, once, in one short line (``checked``: no control or formatting
    character); an empty one leaves the call with its alert alone."""
    out: dict[int, str] = {}
    if given and auction is None:
        raise InvalidError(
            "alert_without_auction",
            "Board {board}: an alert's explanation goes with the auction: key the calls.",
            board=board,
        )
    calls = auction.calls if auction is not None else ()
    for note in given:
        number = note.call
        if number > len(calls) or not calls[number - 1].alert:
            raise InvalidError(
                "alert_not_alerted",
                "Board {board}, call {number}: only an alerted call is explained.",
                board=board,
                number=number,
            )
        if number in out:
            raise InvalidError(
                "alert_explained_twice",
                "Board {board}, call {number}: the call has one explanation.",
                board=board,
                number=number,
            )
        text = checked(note.text, max_length=alerts.ALERT_TEXT)
        if text:
            out[number] = text
    return out


def _hands(board: int, deal: str | None) -> dict[Seat, Hand] | None:
    """The board's four hands, or None (no deal, or a hand record that is not a whole deal:
    the play is then checked without it)."""
    if not deal:
        return None
    try:
        return parse_deal(deal)
    except InvalidDeal:
        return None


def check_play(board: int, text: str, result: TableResult, deal: str | None) -> tuple[str, int]:
    """The keyed play replayed card by card (against the deal when known): its canonical text
    and declarer's tricks; refused with the card and the reason, or if it has not ended."""
    if result.contract.is_pass or result.declarer is None:
        raise InvalidError(
            "play_passed_out", "Board {board} was passed out: there is no play.", board=board
        )
    try:
        strain = result.contract.strain
        assert strain is not None  # a contract that is not a pass has its strain
        play = parse_play(text, strain, result.declarer, _hands(board, deal))
    except IllegalPlay as exc:
        raise play_refusal(board, exc) from exc
    except BridgeError as exc:  # a token that is not a card
        card = exc.value
        raise InvalidError(
            "invalid_card",
            "Board {board}, the play: {card} is not a card (e.g. SA, HT, C2).",
            board=board,
            card=card,
        ) from exc
    if not play.ended:
        played = sum(len(trick.cards) for trick in play.tricks)
        raise InvalidError(
            "play_open",
            "Board {board}: the play has not ended ({played} cards played): key all 13 "
            "tricks or a claim (=n).",
            board=board,
            played=played,
        )
    return format_play(play), play.declarer_tricks()


def play_refusal(board: int, exc: IllegalPlay) -> InvalidError:
    """The refusal of a card of the play (or a claim), by its reason (IllegalPlay's code)."""
    card = exc.value
    if exc.code == "not_in_hand":
        return InvalidError(
            "card_not_in_hand",
            "Board {board}, the play: {card} is not in the player's hand.",
            board=board,
            card=card,
        )
    if exc.code == "revoke":
        return InvalidError(
            "revoke",
            "Board {board}, the play: {card} is a revoke (the player must follow suit).",
            board=board,
            card=card,
        )
    if exc.code == "card_played":
        return InvalidError(
            "card_played_twice",
            "Board {board}, the play: {card} has already been played.",
            board=board,
            card=card,
        )
    if exc.code == "play_ended":
        return InvalidError(
            "play_ended",
            "Board {board}, the play: {card} comes after the play has ended.",
            board=board,
            card=card,
        )
    if exc.code == "claim_not_last":
        return InvalidError(
            "claim_not_last",
            "Board {board}, the play: the claim {card} must be last.",
            board=board,
            card=card,
        )
    claim = card
    return InvalidError(
        "bad_claim",
        "Board {board}, the play: the claim {claim} is not possible now.",
        board=board,
        claim=claim,
    )


def checked_entry(
    session: Session,
    event: Event,
    section_id: int,
    board: int,
    values: EntryValues,
    *,
    lead_required: bool,
    auction_required: bool = True,
    with_deal: bool = True,
) -> CheckedValues:
    """:func:`check_values` with the event's auction and play settings, the board's dealer and
    (for a play) its deal read; ``auction_required=False`` (the TD) takes an entry without an
    auction even when the event asks the tables for one; ``with_deal=False`` (a query) checks
    the play without the hand record, which it must never reveal."""
    setting = event.auction_entry
    if setting == "required" and not auction_required:
        setting = "optional"
    seat = board_dealer(session, section_id, board) if values.auction else None
    deal = None
    if with_deal and values.play and event.play_entry != "off":
        deal = session.exec(
            select(Board.deal).where(Board.section_id == section_id, Board.number == board)
        ).first()
    return check_values(
        board,
        values,
        lead_required,
        auction_entry=setting,
        board_dealer=seat,
        play_entry=event.play_entry,
        deal=deal,
    )


def play_call_reason(board: int, values: CheckedValues) -> str:
    """The reason of the TD call when the tricks keyed and the tricks played differ."""
    return (
        f"board {board}: {values.tricks} tricks keyed but {values.play_tricks} played: "
        "check the result"
    )


def conflict_call_reason(board: int) -> str:
    """The reason of the TD call a conflict raises (the TD's settling of the board closes it)."""
    return f"conflicting entries for board {board}"


def value_columns(values: CheckedValues) -> dict[str, Any]:
    """The result's columns an entry sets (for an UPDATE, and by :func:`apply_values`)."""
    return {
        "contract": values.contract,
        "declarer": values.declarer,
        "tricks": values.tricks,
        "lead": values.lead,
        "ns_score": values.ns_score,
        "auction": values.auction,
        "alerts": values.alerts,
        "play": values.play,
    }


def apply_values(result: Result, values: CheckedValues) -> None:
    for column, value in value_columns(values).items():
        setattr(result, column, value)


def same_values(result: Result, values: CheckedValues) -> bool:
    """Whether the result already holds these values (the score follows from the rest)."""
    return all(
        getattr(result, column) == value
        for column, value in value_columns(values).items()
        if column != "ns_score"
    )
