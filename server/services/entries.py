"""A keyed result checked and scored (Law 77), the values a result row stores of it.

When the event takes the auction (issue 20, ``Event.auction_entry``) the calls are checked by
Laws 18-19 and 22 (protocol/bridge/auction.py): an illegal call is refused with its reason, and
the contract and declarer keyed must be those that follow from the auction (Law 22B)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, select

from protocol.bridge import BridgeError, Contract, TableResult, dealer, ns_score, parse_card
from protocol.bridge.auction import Auction, Call
from protocol.bridge.auction import Outcome as AuctionOutcome
from protocol.messages import EntryValues
from server.errors import InvalidError
from server.models import Board, Event, Result


@dataclass(frozen=True)
class CheckedValues:
    contract: str
    declarer: str | None
    tricks: int
    lead: str | None
    ns_score: int
    auction: str | None = None


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
        raise InvalidError("auction_empty", f"Board {board}: the auction has no calls.")
    for number, word in enumerate(calls, start=1):
        try:
            auction.add(Call.parse(word))
        except BridgeError as exc:
            raise call_refusal(exc.code, board, number, auction, word) from exc
    if not auction.ended:
        raise InvalidError(
            "auction_open",
            f"Board {board}: the auction has not ended ({auction.to_call.value} to call): "
            "three passes end it.",
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
            f"Board {board}, call {number}: {call} by {seat} is insufficient after {last}.",
        )
    if code == "double_own_side":
        return InvalidError(
            "double_own_side",
            f"Board {board}, call {number}: {seat} may not double own side's {last}.",
        )
    if code == "double_twice":
        return InvalidError(
            "double_twice", f"Board {board}, call {number}: {last} is already doubled."
        )
    if code == "no_bid":
        return InvalidError(
            "no_bid", f"Board {board}, call {number}: there is no bid to double yet."
        )
    if code == "redouble_without_double":
        return InvalidError(
            "redouble_without_double",
            f"Board {board}, call {number}: {seat} has no double of {last} to redouble.",
        )
    if code == "redouble_opponents":
        return InvalidError(
            "redouble_opponents",
            f"Board {board}, call {number}: only the side whose {last} was doubled may redouble.",
        )
    if code == "auction_ended":
        return InvalidError(
            "auction_ended",
            f"Board {board}, call {number}: the auction has ended, {call} comes after it.",
        )
    return InvalidError(
        "invalid_call", f"Board {board}, call {number}: {word} is not a call (1C-7NT, P, X, XX)."
    )


def _agree(board: int, values: EntryValues, outcome: AuctionOutcome) -> None:
    """A contract and declarer keyed besides the auction must be the auction's (Law 22B)."""
    try:
        keyed = Contract.parse(values.contract)
    except BridgeError as exc:
        raise InvalidError(exc.code, str(exc)) from exc
    seat = outcome.declarer.value if outcome.declarer is not None else None
    declarer_differs = values.declarer is not None and values.declarer != seat
    if keyed != outcome.contract or declarer_differs:
        said = " ".join(filter(None, (str(outcome.contract), seat)))
        given = " ".join(filter(None, (str(keyed), values.declarer)))
        raise InvalidError(
            "auction_disagrees",
            f"Board {board}: the auction ends in {said}, not {given} as keyed. "
            "Check the contract or the auction.",
        )


def check_values(
    board: int,
    values: EntryValues,
    lead_required: bool,
    *,
    auction_entry: str = "off",
    board_dealer: str | None = None,
) -> CheckedValues:
    """The entry checked and scored; ``auction_entry`` the event's setting (off, optional,
    required) and ``board_dealer`` the board's dealer (Law 2's rotation when None)."""
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
            "auction_required", f"This event asks for the auction: key the calls of board {board}."
        )
    try:
        result = TableResult.make(contract, declarer, values.tricks)
        lead = parse_card(values.lead) if values.lead else None
    except BridgeError as exc:
        raise InvalidError(exc.code, str(exc)) from exc
    if lead_required and lead is None and not result.contract.is_pass:
        raise InvalidError("lead_required", "This event asks for the opening lead: enter the card.")
    declarer = result.declarer.value if result.declarer is not None else None
    return CheckedValues(
        contract=str(result.contract),
        declarer=declarer,
        tricks=result.tricks,
        lead=lead,
        ns_score=ns_score(board, result.contract, result.declarer, result.tricks),
        auction=str(auction) if auction is not None else None,
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
) -> CheckedValues:
    """:func:`check_values` with the event's auction setting and the board's dealer read;
    ``auction_required=False`` (the TD) takes an entry without an auction even when the event
    asks the tables for one."""
    setting = event.auction_entry
    if setting == "required" and not auction_required:
        setting = "optional"
    seat = board_dealer(session, section_id, board) if values.auction else None
    return check_values(board, values, lead_required, auction_entry=setting, board_dealer=seat)


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
