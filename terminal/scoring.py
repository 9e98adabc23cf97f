"""The live score: an entry checked, scored (Law 77) and put in words by the bridge domain."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.bridge import BridgeError, TableResult, describe, result_ns_score, vulnerability
from protocol.bridge.auction import Auction
from protocol.bridge.card import parse_card
from protocol.messages import EntryValues


@dataclass(frozen=True)
class ScoredEntry:
    """An entry as the terminal shows it: canonical contract, tricks taken, N/S score, sentence."""

    contract: str
    declarer: str | None
    tricks: int
    result: str
    lead: str | None
    ns_score: int
    description: str


def with_contract(board_dealer: str, values: EntryValues) -> EntryValues:
    """The entry with the contract and declarer of its auction filled in when only the auction
    was keyed (contract "", declarer None: Law 22B, as the server derives them); IllegalCall
    for an auction that is illegal or has not ended."""
    if values.contract or not values.auction:
        return values
    outcome = Auction(board_dealer, values.auction.split()).outcome()
    declarer = outcome.declarer.value if outcome.declarer is not None else None
    return values.model_copy(update={"contract": str(outcome.contract), "declarer": declarer})


def score_entry(board: int, values: EntryValues) -> ScoredEntry:
    """Check and score an entry on a board; raises BridgeError (with ``.code``) when it is wrong."""
    table_result = TableResult.make(values.contract, values.declarer, values.tricks)
    lead = parse_card(values.lead) if values.lead else None
    if table_result.contract.is_pass and lead is not None:
        raise BridgeError("a passed-out board has no opening lead", lead, code="invalid_card")
    ns = result_ns_score(table_result, vulnerability(board))
    return ScoredEntry(
        contract=str(table_result.contract),
        declarer=table_result.declarer.value if table_result.declarer else None,
        tricks=table_result.tricks,
        result=table_result.result,
        lead=lead,
        ns_score=ns,
        description=describe(board, table_result),
    )


def check_entry(board: int, values: EntryValues) -> str | None:
    """None when the entry is valid, else the reason in plain words."""
    try:
        score_entry(board, values)
    except BridgeError as error:
        return error.message
    return None
