"""The table side of § 262: enter, confirm, reject, correct, next round and TD calls.

Every command runs in one transaction holding the table row's lock, is idempotent by the client's
entry id, and returns the reply for the terminal plus the pushes for everyone watching. The
rules themselves are protocol/board_rules.py; here they meet the rows.
"""

from __future__ import annotations

import hmac
import json
import math
from collections.abc import Callable
from datetime import timedelta
from typing import Any, cast

from sqlmodel import Session

from protocol import board_rules as rules
from protocol.messages import (
    Ack,
    CallTD,
    CheckDeal,
    CheckEntry,
    ConfirmResult,
    ConflictRaised,
    CorrectResult,
    EnterDeal,
    EnterResult,
    EntryValues,
    GetBoardReport,
    GetRanking,
    GetRound,
    GetTableSettings,
    LookupMember,
    MarkNotPlayed,
    Message,
    NextRound,
    RejectResult,
    ResultAck,
    ResultChanged,
    ResultState,
    RoundChanged,
    SetPlayers,
    TableCommand,
    TableStatus,
)
from server.core.errors import ConflictError, ForbiddenError, TravellerError
from server.core.models import MovementAssignment, ReceivedEntry, Result, utcnow
from server.limits import guesses
from server.limits.ratelimit import RateLimitedError
from server.services import audit
from server.services.entries import (
    CheckedValues,
    apply_values,
    check_values,
    checked_entry,
    conflict_call_reason,
    same_values,
    value_columns,
)
from server.services.outcomes import TD_VIEWS, Outcome, Push, changed, refused_with_writes
from server.services.table import deal_entry, play_entry, table_extras, table_memory
from server.services.table.table_context import RESULTS, Seen, TableContext
from server.services.tokens import TableIdentity
from server.services.views import missing_boards, result_view

__all__ = [
    "TD_VIEWS",
    "CheckedValues",
    "Outcome",
    "Push",
    "TableCommands",
    "apply_values",
    "changed",
    "check_values",
    "conflict_call_reason",
    "outcome_for",
    "value_columns",
]

#: How stale a terminal's "last seen" may get before a command refreshes it.
LAST_SEEN_EVERY = timedelta(seconds=30)

BoardCommand = rules.BoardCommand

Query = GetTableSettings | LookupMember | CheckEntry | GetBoardReport | GetRanking


def refusal(exc: rules.RuleError, cmd: BoardCommand, version: int) -> TravellerError:
    """A refusal of the § 262 rules in the server's words (translated by
    server.i18n.error_words)."""
    code = exc.code
    if code == "pin_required":
        return ForbiddenError("pin_required", "E/W: key your pair's PIN to confirm.")
    if code == "pin_wrong":
        return ForbiddenError("pin_wrong", "That is not E/W's PIN: try again or call the TD.")
    if code == "not_entered":
        if isinstance(cmd, CorrectResult):
            return ConflictError(
                "not_entered", "Board {board} has no result to correct.", board=exc.board
            )
        return ConflictError(
            "not_entered", "Board {board} has no result to act on: enter it first.", board=exc.board
        )
    if code == "td_decided":
        if isinstance(cmd, EnterResult):
            return ConflictError(
                "td_decided",
                "The TD has settled board {board} at this table ({state}).",
                board=exc.board,
                state=exc.state,
            )
        return ConflictError(
            "td_decided",
            "Board {board} is with the TD ({state}): call the TD.",
            board=exc.board,
            state=exc.state,
        )
    if code == "stale_version":
        if exc.state == ResultState.REJECTED:
            return ConflictError(
                "stale_version", "Board {board} has changed: look again.", board=exc.board
            )
        return ConflictError(
            "stale_version",
            "Board {board} changed since it was shown (now version {version}): look at it again.",
            board=exc.board,
            version=version,
        )
    if isinstance(cmd, RejectResult):
        return ConflictError(
            "already_confirmed",
            "Board {board} is confirmed: North can correct it within the round.",
            board=exc.board,
        )
    return ConflictError(
        "already_confirmed", "Board {board} is already confirmed.", board=exc.board
    )


class TableCommands(TableContext):
    """The commands of one authenticated table, inside one open transaction."""

    def _decide(
        self,
        cmd: BoardCommand,
        result: Result | None,
        *,
        same_values: bool = False,
        pin: rules.Pin = rules.Pin.NOT_ASKED,
    ) -> rules.Step:
        """The § 262 rules' step for this board (protocol/board_rules.py), or the refusal in
        the server's words."""
        stored = (
            rules.Stored(ResultState(result.state), result.version, result.ruling_pending)
            if result is not None
            else None
        )
        try:
            return rules.decide(cmd, stored, same_values=same_values, pin=pin)
        except rules.RuleError as exc:
            raise refusal(exc, cmd, result.version if result is not None else 0) from None

    def _acked(self, entry_id: str, result: Result, warning: str | None = None) -> Outcome:
        """The ack and the push of a changed result, sharing one view of it."""
        view = result_view(result)
        push = Push(result.section_id, result.table_number, ResultChanged(result=view))
        return Outcome(ResultAck(entry_id=entry_id, result=view, warning=warning), [push])

    def _ack(self, entry_id: str, result: Result, pushes: list[Push]) -> Outcome:
        return Outcome(ResultAck(entry_id=entry_id, result=result_view(result)), pushes)

    def _duplicate(self, entry_id: str, seen: Seen) -> Outcome:
        result = self.s.get(Result, seen.result_id) if seen.result_id else None
        if result is None:
            return Outcome(Ack(entry_id=entry_id, detail="already received"))
        return Outcome(ResultAck(entry_id=entry_id, duplicate=True, result=result_view(result)))

    def checked(self, board: int, values: EntryValues) -> CheckedValues:
        """The keyed values checked with the event's settings (lead, auction) and scored."""
        return checked_entry(
            self.s,
            self.event,
            self.section.id or 0,
            board,
            values,
            lead_required=self.event.lead_required,
            with_deal=False,  # the play against the deal: play_entry.check_against_deal
        )

    # ------------------------------------------------------------------ commands

    def handle(self, command: TableCommand) -> Outcome:
        """Decide, then write: a command refused by the rules has written nothing (the group
        commit needs no savepoint to undo it, server.core.db.GroupWriter)."""
        outcome = self._handle(command)
        now = utcnow()
        last = self.ident.token.last_seen
        if last is None or now - last >= LAST_SEEN_EVERY:
            # "Last seen" is for the TD's terminal status: a write every 30 s is plenty, and
            # skipping it keeps most commands to the writes they really need.
            self.note_token(last_seen=now)
        return outcome

    def _handle(self, command: TableCommand) -> Outcome:
        answer = ANSWERS.get(type(command))
        if answer is not None:
            return answer(self, command)
        entry = cast(EntryCommand, command)
        seen = self.seen(entry.entry_id, entry)
        if seen is not None:
            return self._duplicate(entry.entry_id, seen)
        return ENTRIES[type(entry)](self, entry)

    def status(self, command: TableStatus) -> Ack:
        """Note the terminal's outbox size (the TD's "offline with N queued")."""
        now = utcnow()
        self.note_token(queued=command.queued, queued_at=now, last_seen=now)
        return Ack(detail=f"{command.queued} queued noted")

    # ------------------------------------------------------------------ the terminal's extras

    def query(self, command: Query) -> Message:
        """Answer a question that changes nothing (settings, member, entry check, reports)."""
        return QUERIES[type(command)](self, command)

    def set_players(self, cmd: SetPlayers) -> Outcome:
        """Players keyed membership numbers or visitors' names for the pair at a seat."""
        return table_extras.set_players(self, cmd)

    def mark_not_played(self, cmd: MarkNotPlayed) -> Outcome:
        """The TD, with the section's code, marks a board of this round not played."""
        return table_extras.mark_not_played(self, cmd)

    def enter(self, cmd: EnterResult) -> Outcome:
        row = self.check_board(cmd.board)
        values = self.checked(cmd.board, cmd.values)
        lead = table_extras.check_lead(self, cmd.entry_id, cmd.board, values)
        if lead.refusal is not None:
            return lead.refusal
        played = play_entry.check_against_deal(self, cmd.entry_id, cmd.board, values)
        if played.refusal is not None:
            return played.refusal
        outcome = self._enter(cmd, row, values)
        if lead.flagged:
            table_extras.flag_lead(self, cmd.board, cmd.entry_id, values)
        if played.flagged:
            play_entry.flag_play(self, cmd.board, cmd.entry_id)
        play_entry.call_td_if_differs(self, cmd.board, values)
        return outcome

    def _enter(self, cmd: EnterResult, row: MovementAssignment, values: CheckedValues) -> Outcome:
        result = self.result(cmd.board)
        actor = f"{self.label} N/S"
        same = result is not None and same_values(result, values)
        step = self._decide(cmd, result, same_values=same)
        if result is None:
            result = RESULTS.new(
                section_id=self.section.id or 0,
                table_number=self.table.number,
                round=self.table.round,
                board=cmd.board,
                ns_pair_id=row.ns_pair_id,
                ew_pair_id=row.ew_pair_id,
                state=step.state,
                ruling_pending=cmd.ruling_pending,
                entered_by=actor,
                entry_id=cmd.entry_id,
            )
            apply_values(result, values)
            self.insert_result(result)
            # The board's first entry here, and the only one that may get the "are you sure?".
            warning = table_extras.first_entry_warning(self, cmd.board, values)
            audit.record(
                self.s,
                actor=actor,
                action="entered",
                section_id=self.section.id,
                section=self.section,
                result_id=result.id or 0,
                old=None,
                new=audit.snapshot(result),
                reason="double-dummy warning given" if warning else "",
                at_commit=True,
            )
            self.remember(cmd.entry_id, cmd, result)
            return self._acked(cmd.entry_id, result, warning)
        if not step.changes:
            self.remember(cmd.entry_id, cmd, result)
            return self._ack(cmd.entry_id, result, [])
        old = audit.snapshot(result)
        if step.action != "conflict":  # re-entered after E/W's rejection
            changes = self._changes(step, cmd, values)
            changes["entered_by"] = actor
            return self._save(cmd.entry_id, cmd, result, actor, step.action or "", old, changes)
        outcome = self._save(
            cmd.entry_id,
            cmd,
            result,
            actor,
            "conflict",
            old,
            {"state": step.state, "conflict_entry_id": cmd.entry_id},
            reason=f"second entry {values.contract} {values.declarer or ''} {values.tricks}",
        )
        message = (
            f"Board {cmd.board} at table {self.table.number} already has a different result: "
            "the TD has been called."
        )
        outcome.pushes.append(
            Push(
                result.section_id,
                result.table_number,
                ConflictRaised(result=result_view(result), message=message),
            )
        )
        self.call_td(conflict_call_reason(cmd.board))
        return outcome

    @staticmethod
    def _changes(
        step: rules.Step, cmd: BoardCommand, values: CheckedValues | None = None
    ) -> dict[str, Any]:
        """The columns a step of the rules writes (besides the version and the time)."""
        changes: dict[str, Any] = {"state": step.state}
        if step.keyed:
            assert values is not None
            assert isinstance(cmd, EnterResult | CorrectResult)
            changes.update(value_columns(values))
            changes.update(ruling_pending=bool(step.ruling_pending), entry_id=cmd.entry_id)
        if step.clears_confirmation:
            changes.update(confirmed_by=None, confirmed_at=None)
        return changes

    def _save(
        self,
        entry_id: str,
        cmd: Message,
        result: Result,
        actor: str,
        action: str,
        old: dict[str, Any],
        changes: dict[str, Any],
        reason: str = "",
    ) -> Outcome:
        """Write ``changes`` with the next version, audit them and log the entry id."""
        changes["version"] = result.version + 1
        changes["updated_at"] = utcnow()
        self.update_result(result, changes)
        audit.record(
            self.s,
            actor=actor,
            action=action,
            section_id=self.section.id,
            section=self.section,
            result_id=result.id or 0,
            old=old,
            new=audit.snapshot(result),
            reason=reason,
            at_commit=True,
        )
        self.remember(entry_id, cmd, result)
        return self._acked(entry_id, result)

    def confirm(self, cmd: ConfirmResult) -> Outcome:
        wait = self.guess_wait(guesses.PIN)
        if wait:  # refused before anything is looked at, even with E/W's own PIN
            raise RateLimitedError(
                "pin_locked",
                "Too many wrong PINs at this table: call the TD (or wait {value} s).",
                value=math.ceil(wait),
            )
        self.check_board(cmd.board)
        result = self.result(cmd.board)
        pin = self._pin(result, cmd.pin)
        try:
            step = self._decide(cmd, result, pin=pin)
        except ForbiddenError as exc:
            if exc.code != "pin_wrong":
                raise
            self.note_guess(guesses.PIN, right=False)  # committed with the refusal
            return refused_with_writes(exc, cmd.entry_id, self.event.language)
        assert result is not None  # the rules refuse a confirmation of nothing
        if not step.changes:
            self.remember(cmd.entry_id, cmd, result)
            return self._ack(cmd.entry_id, result, [])
        old = audit.snapshot(result)
        actor = f"{self.label} E/W"
        changes = self._changes(step, cmd)
        changes.update(confirmed_by=actor, confirmed_at=utcnow())
        return self._save(cmd.entry_id, cmd, result, actor, "confirmed", old, changes)

    def _pin(self, result: Result | None, pin: str | None) -> rules.Pin:
        """When the event asks for it, only E/W's PIN confirms (N/S cannot confirm themselves)."""
        if not self.event.confirm_pin_required:
            return rules.Pin.NOT_ASKED
        if not pin:
            return rules.Pin.MISSING
        ew = self.pair(result.ew_pair_id) if result and result.ew_pair_id else None
        if ew is None or not hmac.compare_digest(pin.encode(), ew.pin.encode()):
            return rules.Pin.WRONG
        return rules.Pin.RIGHT

    def reject(self, cmd: RejectResult) -> Outcome:
        self.check_board(cmd.board)
        result = self.result(cmd.board)
        step = self._decide(cmd, result)
        assert result is not None
        old = audit.snapshot(result)
        actor = f"{self.label} E/W"
        changes = self._changes(step, cmd)
        return self._save(cmd.entry_id, cmd, result, actor, "rejected", old, changes, cmd.reason)

    def correct(self, cmd: CorrectResult) -> Outcome:
        self.check_board(cmd.board)
        values = self.checked(cmd.board, cmd.values)
        lead = table_extras.check_lead(self, cmd.entry_id, cmd.board, values)
        if lead.refusal is not None:
            return lead.refusal
        played = play_entry.check_against_deal(self, cmd.entry_id, cmd.board, values)
        if played.refusal is not None:
            return played.refusal
        result = self.result(cmd.board)
        step = self._decide(cmd, result)
        assert result is not None
        old = audit.snapshot(result)
        changes = self._changes(step, cmd, values)
        outcome = self._save(
            cmd.entry_id, cmd, result, f"{self.label} N/S", "corrected", old, changes
        )
        if lead.flagged:
            table_extras.flag_lead(self, cmd.board, cmd.entry_id, values)
        if played.flagged:
            play_entry.flag_play(self, cmd.board, cmd.entry_id)
        play_entry.call_td_if_differs(self, cmd.board, values)
        return outcome

    def td_called(self, cmd: CallTD) -> Outcome:
        self.call_td(cmd.reason)
        self.remember(cmd.entry_id, cmd, None)
        return Outcome(Ack(entry_id=cmd.entry_id, detail="The TD has been called."))

    def next_round(self) -> Outcome:
        """Move the table on (§ 262C): only with every board done and the next round started."""
        current = self.table.round
        if current >= self.section.rounds:
            raise ConflictError("last_round", "That was the last round: the session is over.")
        if current > 0:
            numbers = self.round_row().board_numbers()
            missing = missing_boards(numbers, list(self.round_results(numbers).values()))
            if missing:
                boards = ", ".join(str(b) for b in missing)
                raise ConflictError(
                    "round_incomplete",
                    "Boards {boards} are not entered and confirmed yet: finish them before "
                    "you leave the table.",
                    boards=boards,
                )
        if self.section.current_round <= current:
            raise ConflictError(
                "next_round_not_released",
                "The TD has not started round {current} yet.",
                current=current + 1,
            )
        self.move_table(current + 1)
        info = self.round_info()
        table_extras.warm_round(self)  # the new round's double dummy, ready for its entries
        return Outcome(
            info, [Push(self.section.id or 0, self.table.number, RoundChanged(round=info))]
        )


Handler = Callable[[TableCommands, Any], Outcome]

#: The commands that only read (no entry id, nothing stored), by type: each one's answer.
QUERIES: dict[type[Message], Callable[[TableCommands, Any], Message]] = {
    GetTableSettings: lambda t, c: table_extras.settings(t),
    LookupMember: lambda t, c: table_extras.lookup_member(t, c.number),
    CheckEntry: table_extras.check_entry,
    GetBoardReport: lambda t, c: table_extras.board_report(t, c.board),
    GetRanking: lambda t, c: table_extras.ranking(t),
}

#: The table commands answered without the idempotency log (they store nothing under an entry
#: id, or, the deal's, keep their own), by type.
ANSWERS: dict[type[Message], Handler] = {
    GetRound: lambda t, c: Outcome(t.round_info()),
    NextRound: lambda t, c: t.next_round(),
    **dict.fromkeys(QUERIES, lambda t, c: Outcome(t.query(c))),
    TableStatus: lambda t, c: Outcome(t.status(c)),
    EnterDeal: deal_entry.handle,  # idempotent by entry id, as the others
    CheckDeal: deal_entry.handle,
}
#: The commands logged by entry id (a resend is a duplicate), by type.
ENTRIES: dict[type[Message], Handler] = {
    EnterResult: TableCommands.enter,
    ConfirmResult: TableCommands.confirm,
    RejectResult: TableCommands.reject,
    CorrectResult: TableCommands.correct,
    SetPlayers: TableCommands.set_players,
    MarkNotPlayed: TableCommands.mark_not_played,
    CallTD: TableCommands.td_called,
}
#: The commands that write no row of their section, only their own table's (its results,
#: token, round): a batch of these reads its tables' counters at once, ahead of its commands
#: (server.services.table.table_memory.ReadAhead). Players' names and keyed deals write
#: their section's pairs and boards.
READ_AHEAD: tuple[type[Message], ...] = (
    EnterResult,
    ConfirmResult,
    RejectResult,
    CorrectResult,
    CallTD,
    NextRound,
    GetRound,
    TableStatus,
)
EntryCommand = (
    EnterResult | ConfirmResult | RejectResult | CorrectResult | SetPlayers | MarkNotPlayed | CallTD
)


def outcome_for(
    session: Session,
    ident: TableIdentity,
    command: TableCommand,
    opened: table_memory.Opened | None = None,
) -> Outcome:
    """Run one table command (the caller commits the transaction before replying);
    ``opened``: the table as server.services.table.table_memory opened it (its remembered state and
    the idempotency look-up its lock read made)."""
    if opened is None:
        return TableCommands(session, ident).handle(command)
    entry_id = getattr(command, "entry_id", None)
    seen = (entry_id, opened.seen) if opened.looked_up and entry_id is not None else None
    return TableCommands(session, ident, memory=opened.state, seen=seen).handle(command)


def stored_request(row: ReceivedEntry) -> dict[str, object]:
    """The command as it was received (for the TD's view of a conflict)."""
    data: dict[str, object] = json.loads(row.request)
    return data
