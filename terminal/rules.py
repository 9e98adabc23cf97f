"""The terminal's side of the § 262 board rules: the rules are protocol/board_rules.py, here
only what a terminal adds, its keyed values scored into a view of the board and the refusals
in its own words.

Used twice: by the fake server as its rules, and by the client to show queued commands at once.
"""

from __future__ import annotations

from protocol import board_rules
from protocol.board_rules import CORRECTABLE, BoardCommand, Pin, same_result
from protocol.bridge import BridgeError
from protocol.messages import (
    BoardResultView,
    BoardStatus,
    ConfirmResult,
    CorrectResult,
    EnterResult,
    EntryValues,
    ResultState,
)

from .scoring import score_entry, with_contract

__all__ = [
    "CORRECTABLE",
    "BoardCommand",
    "RuleRefusedError",
    "apply_command",
    "result_view",
    "same_result",
]


class RuleRefusedError(Exception):
    """A command the rules refuse, with the server's error code and a sentence for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _words(error: board_rules.RuleError) -> RuleRefusedError:
    board = error.board
    text = {
        "not_entered": f"Board {board} has no result yet: North enters it first.",
        "td_decided": f"Board {board} is with the TD ({error.state}): call the TD.",
        "stale_version": f"Board {board} has changed since it was shown. Please check it again.",
        "already_confirmed": f"Board {board} is already confirmed.",
        "pin_required": "East must key the E/W PIN.",
        "pin_wrong": "That PIN is not right.",
    }.get(error.code, f"Board {board}: {error.code}")
    return RuleRefusedError(error.code, text)


def result_view(
    status: BoardStatus,
    *,
    table: int,
    round_no: int,
    state: ResultState,
    version: int,
    values: EntryValues,
    ruling_pending: bool,
) -> BoardResultView:
    """A stored result for the board built from keyed values (scored by the bridge domain)."""
    try:
        values = with_contract(status.dealer, values)
        scored = score_entry(status.board, values)
    except BridgeError as error:
        raise RuleRefusedError(error.code, error.message) from None
    return BoardResultView(
        board=status.board,
        round=round_no,
        table=table,
        state=state,
        version=version,
        contract=scored.contract,
        declarer=values.declarer if scored.declarer else None,
        tricks=scored.tricks,
        result=scored.result or None,
        lead=scored.lead,
        auction=values.auction or None,
        alerts=(values.alerts or None) if values.auction else None,
        play=values.play or None,
        ns_score=scored.ns_score,
        description=scored.description,
        ruling_pending=ruling_pending,
    )


def pin_of(command: BoardCommand, pin: str | None) -> Pin:
    """A confirmation's PIN checked against E/W's (``pin`` None: the event asks for none)."""
    if pin is None or not isinstance(command, ConfirmResult):
        return Pin.NOT_ASKED
    if not command.pin:
        return Pin.MISSING
    return Pin.RIGHT if command.pin == pin else Pin.WRONG


def apply_command(
    status: BoardStatus,
    command: BoardCommand,
    *,
    table: int,
    round_no: int,
    pin: str | None = None,
) -> BoardResultView:
    """The board's result after the command, or RuleRefusedError; ``pin`` is the E/W PIN if one
    is set."""
    keyed = None
    if isinstance(command, EnterResult | CorrectResult):
        keyed = result_view(
            status,
            table=table,
            round_no=round_no,
            state=ResultState.ENTERED,
            version=0,
            values=command.values,
            ruling_pending=command.ruling_pending,
        )
    try:
        return board_rules.apply_to_view(
            status.result, command, keyed=keyed, pin=pin_of(command, pin)
        )
    except board_rules.RuleError as error:
        raise _words(error) from None
