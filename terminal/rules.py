"""The § 262 life of one board at a table: entered, confirmed, rejected, corrected, conflict.

Used twice: by the fake server as its rules, and by the client to show queued commands at once.
"""

from __future__ import annotations

from protocol.bridge import BridgeError
from protocol.messages import (
    BoardResultView,
    BoardStatus,
    ConfirmResult,
    CorrectResult,
    EnterResult,
    EntryValues,
    RejectResult,
    ResultState,
)

from .scoring import score_entry

#: States in which North may correct the board within the round.
CORRECTABLE: frozenset[str] = frozenset({"entered", "confirmed", "td_pending", "rejected"})
#: States the TD has settled: the table cannot change them.
TD_STATES: frozenset[str] = frozenset({"not_played", "adjusted", "conflict"})

BoardCommand = EnterResult | CorrectResult | ConfirmResult | RejectResult


class RuleError(Exception):
    """A command the rules refuse, with the server's error code and a sentence for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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
        scored = score_entry(status.board, values)
    except BridgeError as error:
        raise RuleError(error.code, error.message) from None
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
        ns_score=scored.ns_score,
        description=scored.description,
        ruling_pending=ruling_pending,
    )


def values_of(view: BoardResultView) -> EntryValues:
    """The keyed values a stored result stands for (tricks as a total)."""
    return EntryValues(
        contract=view.contract or "PASS",
        declarer=view.declarer,
        tricks=view.tricks if view.tricks is not None else 0,
        lead=view.lead,
    )


def same_result(view: BoardResultView, other: BoardResultView) -> bool:
    """Whether two stored results say the same contract, declarer, tricks and lead."""
    return (view.contract, view.declarer, view.tricks, view.lead) == (
        other.contract,
        other.declarer,
        other.tricks,
        other.lead,
    )


def _check_version(view: BoardResultView, version: int) -> None:
    if view.version != version:
        raise RuleError(
            "stale_version",
            f"Board {view.board} has changed since it was shown. Please check it again.",
        )


def apply_command(
    status: BoardStatus,
    command: BoardCommand,
    *,
    table: int,
    round_no: int,
    pin: str | None = None,
) -> BoardResultView:
    """The board's result after the command, or RuleError; ``pin`` is the E/W PIN if one is set."""
    current = status.result
    version = current.version if current is not None else 0
    state = status.state
    board = status.board

    def build(new_state: ResultState, values: EntryValues, ruling: bool) -> BoardResultView:
        return result_view(
            status,
            table=table,
            round_no=round_no,
            state=new_state,
            version=version + 1,
            values=values,
            ruling_pending=ruling,
        )

    if isinstance(command, EnterResult):
        if state in ("not_played", "adjusted"):
            raise RuleError("already_confirmed", f"The TD has settled board {board}.")
        if current is None or state in ("missing", "rejected"):
            return build("entered", command.values, command.ruling_pending)
        entered = build("entered", command.values, command.ruling_pending)
        if same_result(current, entered):
            return current
        return current.model_copy(update={"state": "conflict", "version": version + 1})
    if state in ("not_played", "adjusted"):
        raise RuleError("already_confirmed", f"The TD has settled board {board}.")
    if state == "conflict":
        raise RuleError("conflict", f"Board {board} has two different results: the TD decides.")
    if current is None or state == "missing":
        raise RuleError("not_entered", f"Board {board} has no result yet.")
    if isinstance(command, CorrectResult):
        _check_version(current, command.version)
        return build("entered", command.values, command.ruling_pending)
    if state == "rejected":
        raise RuleError("not_entered", f"Board {board} was rejected: North must enter it again.")
    if state != "entered":
        raise RuleError("already_confirmed", f"Board {board} is already confirmed.")
    _check_version(current, command.version)
    if isinstance(command, RejectResult):
        return current.model_copy(update={"state": "rejected", "version": version + 1})
    if pin is not None and command.pin != pin:
        code = "pin_required" if not command.pin else "pin_wrong"
        text = "East must key the E/W PIN." if not command.pin else "That PIN is not right."
        raise RuleError(code, text)
    final: ResultState = "td_pending" if current.ruling_pending else "confirmed"
    return current.model_copy(update={"state": final, "version": version + 1})
