"""A keyed result checked and scored (Law 77), the values a result row stores of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.bridge import BridgeError, TableResult, ns_score, parse_card
from protocol.messages import EntryValues
from server.errors import InvalidError
from server.models import Result


@dataclass(frozen=True)
class CheckedValues:
    contract: str
    declarer: str | None
    tricks: int
    lead: str | None
    ns_score: int


def check_values(board: int, values: EntryValues, lead_required: bool) -> CheckedValues:
    try:
        result = TableResult.make(values.contract, values.declarer, values.tricks)
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
    )


def conflict_call_reason(board: int) -> str:
    """The reason of the TD call a conflict raises (the TD's settling of the board closes it)."""
    return f"conflicting entries for board {board}"


def apply_values(result: Result, values: CheckedValues) -> None:
    result.contract = values.contract
    result.declarer = values.declarer
    result.tricks = values.tricks
    result.lead = values.lead
    result.ns_score = values.ns_score


def value_columns(values: CheckedValues) -> dict[str, Any]:
    """The result's columns that :func:`apply_values` sets, for an UPDATE."""
    return {
        "contract": values.contract,
        "declarer": values.declarer,
        "tricks": values.tricks,
        "lead": values.lead,
        "ns_score": values.ns_score,
    }


def same_values(result: Result, values: CheckedValues) -> bool:
    return (result.contract, result.declarer, result.tricks, result.lead) == (
        values.contract,
        values.declarer,
        values.tricks,
        values.lead,
    )
