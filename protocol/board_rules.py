"""The § 262 life of one board at one table, written once: what a table command does to it.

§ 262B: North (N/S) enters the result, East (E/W) confirms it or rejects it; North may correct
the board within the round; a second, different entry is never taken over the first: it is a
conflict, and the TD decides (§ 262B1, docs/rules.md § 4). The TD's actions (set a result, an
adjusted score, not played) take a board out of the table's hands.

Pure, no I/O: the server (server/services/table/table_commands.py) asks :func:`decide` and
writes the :class:`Step` to its rows; the terminal (replaying its queued commands, and its fake
server), the keypad simulator and its fake gateway ask :func:`apply_to_view` on the views they
hold, and fold the answer into their round with :func:`fold`. The refusal is a code and its
facts; each side words it in its own language layer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from protocol.messages import (
    AGREED_STATES,
    COMPLETE_STATES,
    TD_STATES,
    BoardResultView,
    BoardStatus,
    ConfirmResult,
    CorrectResult,
    EnterResult,
    RejectResult,
    ResultState,
    RoundInfo,
)

BoardCommand = EnterResult | CorrectResult | ConfirmResult | RejectResult
#: The board commands, for isinstance.
BOARD_COMMANDS = (EnterResult, CorrectResult, ConfirmResult, RejectResult)

#: States in which North may correct the board within the round.
CORRECTABLE: frozenset[str] = frozenset(
    {ResultState.ENTERED, ResultState.CONFIRMED, ResultState.TD_PENDING, ResultState.REJECTED}
)

#: What a command or the TD did, as the audit trail names it.
Action = Literal[
    "entered",
    "re-entered",
    "conflict",
    "confirmed",
    "rejected",
    "corrected",
    "td_set_result",
    "td_adjusted",
    "td_not_played",
]


class Pin(StrEnum):
    """E/W's PIN on a confirmation, as the caller checked it against the pair's."""

    NOT_ASKED = "not_asked"  # the event does not ask for a PIN
    RIGHT = "right"
    MISSING = "missing"
    WRONG = "wrong"


class RuleError(Exception):
    """A command the rules refuse: the error code, the board and the state it stands in.

    Codes: ``not_entered``, ``td_decided``, ``stale_version``, ``already_confirmed``,
    ``pin_required``, ``pin_wrong``."""

    def __init__(self, code: str, board: int, state: ResultState = ResultState.MISSING) -> None:
        super().__init__(f"{code}: board {board} ({state})")
        self.code = code
        self.board = board
        self.state = state


@dataclass(frozen=True)
class Stored:
    """What the rules need of a board's stored result (None: nothing stored yet)."""

    state: ResultState
    version: int
    ruling_pending: bool = False


@dataclass(frozen=True)
class Step:
    """A command's effect on the board.

    ``action`` None: nothing changes (the same entry again, a confirmation repeated), the
    command is acknowledged with the board as it stands. Otherwise the board takes ``state``
    and the next version; ``keyed``: the command's values replace the stored ones (with its
    ``ruling_pending``); ``clears_confirmation``: who confirmed, and when, are forgotten."""

    action: Action | None
    state: ResultState
    keyed: bool = False
    ruling_pending: bool | None = None
    clears_confirmation: bool = False

    @property
    def changes(self) -> bool:
        return self.action is not None


def _state(stored: Stored | None) -> ResultState:
    return stored.state if stored is not None else ResultState.MISSING


def _require(board: int, stored: Stored | None, version: int) -> Stored:
    """A stored entry, in the table's hands, at the version the table was shown."""
    if stored is None or stored.state in (ResultState.MISSING, ResultState.REJECTED):
        raise RuleError("not_entered", board, _state(stored))
    if stored.state in TD_STATES:
        raise RuleError("td_decided", board, stored.state)
    if stored.version != version:
        raise RuleError("stale_version", board, stored.state)
    return stored


def decide(
    command: BoardCommand,
    stored: Stored | None,
    *,
    same_values: bool = False,
    pin: Pin = Pin.NOT_ASKED,
) -> Step:
    """What ``command`` does to a board that stands as ``stored``; raises :class:`RuleError`.

    ``same_values``: for an entry, whether its checked values equal the stored ones; ``pin``:
    for a confirmation, E/W's PIN as checked (asked only of an entry that can be confirmed)."""
    board = command.board
    state = _state(stored)
    if isinstance(command, EnterResult):
        if stored is None or state == ResultState.MISSING:
            return Step("entered", ResultState.ENTERED, True, command.ruling_pending)
        if state == ResultState.REJECTED:
            return Step("re-entered", ResultState.ENTERED, True, command.ruling_pending)
        if state in (ResultState.ADJUSTED, ResultState.NOT_PLAYED):
            raise RuleError("td_decided", board, state)
        if state != ResultState.CONFLICT and same_values:
            return Step(None, state)  # the same result keyed twice (a second device)
        # A different entry for a board that has one: never overwrite, the TD decides.
        return Step("conflict", ResultState.CONFLICT)
    if isinstance(command, ConfirmResult):
        if (
            stored is not None
            and state in AGREED_STATES
            and command.version in (stored.version, stored.version - 1)
        ):
            return Step(None, state)  # confirmed already (e.g. from a second device)
        stored = _require(board, stored, command.version)
        if stored.state != ResultState.ENTERED:
            raise RuleError("already_confirmed", board, stored.state)
        if pin == Pin.MISSING:
            raise RuleError("pin_required", board, stored.state)
        if pin == Pin.WRONG:
            raise RuleError("pin_wrong", board, stored.state)
        final = ResultState.TD_PENDING if stored.ruling_pending else ResultState.CONFIRMED
        return Step("confirmed", final)
    if isinstance(command, RejectResult):
        stored = _require(board, stored, command.version)
        if stored.state != ResultState.ENTERED:
            raise RuleError("already_confirmed", board, stored.state)
        return Step("rejected", ResultState.REJECTED)
    # CorrectResult: North changes the board within the round (also a rejected one).
    if stored is None or state == ResultState.MISSING:
        raise RuleError("not_entered", board, state)
    if state != ResultState.REJECTED:
        _require(board, stored, command.version)
    elif stored.version != command.version:
        raise RuleError("stale_version", board, state)
    return Step(
        "corrected",
        ResultState.ENTERED,
        keyed=True,
        ruling_pending=command.ruling_pending,
        clears_confirmation=True,
    )


# ---------------------------------------------------------------------------- the TD's actions


def td_set_result() -> Step:
    """The TD enters or changes the result (also how a conflict is settled): confirmed."""
    return Step("td_set_result", ResultState.CONFIRMED, keyed=True, ruling_pending=False)


def td_adjusted() -> Step:
    """An adjusted score replaces the table result (Law 12C); the entry stays in the row."""
    return Step("td_adjusted", ResultState.ADJUSTED)


def td_not_played() -> Step:
    """The board was not played at this table."""
    return Step("td_not_played", ResultState.NOT_PLAYED)


def closes_conflict(before: str, after: str) -> bool:
    """Whether a change settles a conflict (its TD calls are then closed)."""
    return before == ResultState.CONFLICT and after != ResultState.CONFLICT


# ---------------------------------------------------------------------------- on views


def stored_of(view: BoardResultView | None) -> Stored | None:
    """The rules' view of a result a terminal or a fake holds."""
    if view is None or view.state == ResultState.MISSING:
        return None
    return Stored(ResultState(view.state), view.version, view.ruling_pending)


def same_result(view: BoardResultView, other: BoardResultView) -> bool:
    """Whether two results say the same contract, declarer, tricks and lead."""
    return (view.contract, view.declarer, view.tricks, view.lead) == (
        other.contract,
        other.declarer,
        other.tricks,
        other.lead,
    )


def apply_to_view(
    current: BoardResultView | None,
    command: BoardCommand,
    *,
    keyed: BoardResultView | None = None,
    pin: Pin = Pin.NOT_ASKED,
) -> BoardResultView:
    """The board's result after ``command`` (or :class:`RuleError`), on views.

    ``keyed``: for an entry or a correction, its values checked and scored as a view of the
    board (its state and version are not used)."""
    if isinstance(command, EnterResult | CorrectResult) and keyed is None:
        raise ValueError("an entry needs its keyed values")
    same = keyed is not None and current is not None and same_result(current, keyed)
    step = decide(command, stored_of(current), same_values=same, pin=pin)
    version = current.version if current is not None else 0
    if not step.changes:
        assert current is not None
        return current
    if step.keyed:
        assert keyed is not None
        return keyed.model_copy(
            update={
                "state": step.state,
                "version": version + 1,
                "ruling_pending": bool(step.ruling_pending),
            }
        )
    assert current is not None
    return current.model_copy(update={"state": step.state, "version": version + 1})


def complete(states: Iterable[str]) -> bool:
    """Whether every board of a round is done (§ 262C)."""
    return all(state in COMPLETE_STATES for state in states)


def fold(info: RoundInfo, view: BoardResultView) -> RoundInfo:
    """The round with one board's result replaced (an older version never replaces a newer
    one; a result of another table or round changes nothing), ``complete`` recomputed."""
    if view.round != info.round or view.table != info.table:
        return info
    boards = [
        BoardStatus(
            board=b.board,
            dealer=b.dealer,
            vulnerability=b.vulnerability,
            state=view.state,
            result=view,
        )
        if b.board == view.board and (b.result is None or b.result.version <= view.version)
        else b
        for b in info.boards
    ]
    return info.model_copy(update={"boards": boards, "complete": complete(b.state for b in boards)})


def status_of(status: BoardStatus, view: BoardResultView) -> BoardStatus:
    """One board of a round with its result replaced."""
    return status.model_copy(update={"state": view.state, "result": view})
