"""The table side of § 262: enter, confirm, reject, correct, next round and TD calls.

Every command runs in one transaction holding the table row's lock, is idempotent by the client's
entry id, and returns the reply for the terminal plus the pushes for everyone watching.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy.orm import object_session
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, SQLModel, select

from protocol.bridge import BridgeError, TableResult, ns_score, parse_card
from protocol.messages import (
    Ack,
    CallTD,
    CheckEntry,
    ConfirmResult,
    ConflictRaised,
    CorrectResult,
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
    RoundChanged,
    RoundInfo,
    SetPlayers,
    TableCommand,
    TableStatus,
)
from server.errors import (
    ConflictError,
    ForbiddenError,
    InvalidError,
    NotFoundError,
    TravellerError,
)
from server.models import (
    BridgeTable,
    MovementAssignment,
    Pair,
    ReceivedEntry,
    Result,
    TDCall,
    utcnow,
)
from server.services import audit
from server.services.tokens import TableIdentity
from server.services.views import assignment, missing_boards, result_view, results_at, round_info

#: How stale a terminal's "last seen" may get before a command refreshes it.
LAST_SEEN_EVERY = timedelta(seconds=30)

#: States that only the TD may change (the table gets a clear refusal).
TD_STATES = frozenset({"conflict", "adjusted", "not_played"})

Query = GetTableSettings | LookupMember | CheckEntry | GetBoardReport | GetRanking
#: Commands that only read: no entry id, nothing stored.
QUERIES = (GetTableSettings, LookupMember, CheckEntry, GetBoardReport, GetRanking)


@dataclass
class Push:
    """A message for the clients watching a section (``table`` None: every table of it)."""

    section_id: int
    table: int | None
    message: Message


#: The "table" of a push for the TD's views only: no table has the number 0.
TD_VIEWS = 0


def changed(result: Result) -> list[Push]:
    """Tell the result's own table while it is still in that round (and the TD's views): never
    another table's terminal, nor the next pair at that table number, who may have the board
    still to play (Law 16; e.g. the TD changes a result of a round the table has left)."""
    table = result.table_number
    session = object_session(result)
    if session is not None:
        now = session.execute(
            select(BridgeTable.round).where(
                BridgeTable.section_id == result.section_id, BridgeTable.number == table
            )
        ).scalar()
        if now is not None and now != result.round:
            table = TD_VIEWS
    return [Push(result.section_id, table, ResultChanged(result=result_view(result)))]


@dataclass
class Outcome:
    """The reply to the command and what to push once the transaction has committed.

    ``refusal``: the command is refused, but what it wrote stays (the audited lead refusal
    that must be counted): the caller commits, then answers with this error (``reply`` is the
    same refusal as a message, for a caller that sends messages)."""

    reply: Message
    pushes: list[Push] = field(default_factory=list)
    refusal: TravellerError | None = None


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


def _same(result: Result, values: CheckedValues) -> bool:
    return (result.contract, result.declarer, result.tricks, result.lead) == (
        values.contract,
        values.declarer,
        values.tricks,
        values.lead,
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


# The hot path's statements, built once (building a statement costs more than running it).
_SEEN = select(ReceivedEntry).where(
    ReceivedEntry.table_id == bindparam("table_id"), ReceivedEntry.entry_id == bindparam("entry_id")
)
_RESULT = (
    select(Result)
    .where(
        Result.section_id == bindparam("section_id"),
        Result.table_number == bindparam("table_number"),
        Result.round == bindparam("round"),
        Result.board == bindparam("board"),
    )
    .with_for_update()
)
_REMEMBER = insert(ReceivedEntry)
# A table's writes to its results are Core INSERT/UPDATEs, not the ORM's unit of work: the ORM
# object stays in step through set_committed_value (nothing left for a flush to write).
_RESULT_TABLE = SQLModel.metadata.tables["result"]
_RESULT_COLUMNS = tuple(c.key for c in _RESULT_TABLE.columns if c.key != "id")
_INSERT_RESULT = insert(_RESULT_TABLE)
_UPDATE_RESULT = update(_RESULT_TABLE).where(_RESULT_TABLE.c.id == bindparam("result_key"))


class TableCommands:
    """The commands of one authenticated table, inside one open transaction."""

    def __init__(self, session: Session, ident: TableIdentity) -> None:
        self.s = session
        self.ident = ident
        # Serialise every command of this table (PostgreSQL row lock; SQLite locks at BEGIN).
        # tokens.table_identity(lock=True) took it already, with the same statement.
        locked = (
            ident.table
            if ident.locked
            else session.exec(
                select(BridgeTable).where(BridgeTable.id == ident.table.id).with_for_update()
            ).one()
        )
        self.table = locked
        self.section = ident.section
        self.event = ident.event
        self.label = f"table {locked.number}"

    # ------------------------------------------------------------------ helpers

    def _seen(self, entry_id: str, command: Message) -> ReceivedEntry | None:
        """The stored entry with this id, if any; the same id with other content is refused."""
        row = self.s.exec(_SEEN, params={"table_id": self.table.id, "entry_id": entry_id}).first()
        if row is not None and row.request != command.model_dump_json():
            raise ConflictError(
                "entry_id_reused",
                f"Entry id {entry_id} was already used for a different command.",
            )
        return row

    def _remember(self, entry_id: str, command: Message, result: Result | None) -> None:
        """Log the entry id (the idempotency log): one INSERT, no ORM object to track."""
        if result is not None and result.id is None:
            self.s.flush()
        self.s.execute(
            _REMEMBER,
            {
                "table_id": self.table.id or 0,
                "entry_id": entry_id,
                "kind": str(getattr(command, "type", "command")),
                "request": command.model_dump_json(),
                "result_id": result.id if result is not None else None,
                "received_at": utcnow(),
            },
        )

    def _insert_result(self, result: Result) -> None:
        """Store a new result (built, with its defaults, as a model object) and set its id."""
        values = {key: getattr(result, key) for key in _RESULT_COLUMNS}
        key = self.s.connection().execute(_INSERT_RESULT, values).inserted_primary_key
        if key is None:  # pragma: no cover - an INSERT of one row always has its key
            raise StaleDataError("The new result's INSERT returned no id.")
        result.id = key[0]

    def _update_result(self, result: Result, changes: dict[str, Any]) -> None:
        """Write ``changes`` to the result's row and to the loaded object (kept clean)."""
        stored = self.s.connection().execute(_UPDATE_RESULT, {"result_key": result.id, **changes})
        if stored.rowcount != 1:
            raise StaleDataError(
                f"UPDATE of result {result.id} matched {stored.rowcount} row(s), not 1."
            )
        for key, value in changes.items():
            set_committed_value(result, key, value)

    def _round_row(self) -> MovementAssignment:
        row = assignment(self.s, self.section, self.table.number, self.table.round)
        if row is None:
            raise ConflictError(
                "round_not_started",
                f"Table {self.table.number} has no round yet: wait for the TD to start it.",
            )
        return row

    def _check_board(self, board: int) -> MovementAssignment:
        """The board must be one of this table's boards in its current, open round."""
        row = self._round_row()
        if board not in row.board_numbers():
            in_movement = self.s.exec(
                select(MovementAssignment).where(MovementAssignment.section_id == self.section.id)
            ).all()
            if not any(board in a.board_numbers() for a in in_movement):
                raise NotFoundError(
                    "unknown_board", f"Board {board} is not played in this session."
                )
            boards = ", ".join(str(b) for b in row.board_numbers())
            raise ConflictError(
                "board_not_in_round",
                f"Board {board} is not played at table {self.table.number} in round "
                f"{self.table.round} (this round's boards: {boards}).",
            )
        if self.table.round <= self.section.closed_rounds:
            raise ConflictError(
                "round_closed",
                f"Round {self.table.round} is closed: ask the TD to change board {board}.",
            )
        return row

    def _result(self, board: int) -> Result | None:
        params = {
            "section_id": self.section.id,
            "table_number": self.table.number,
            "round": self.table.round,
            "board": board,
        }
        return self.s.exec(_RESULT, params=params).first()

    def _require(self, board: int, version: int, loaded: Result | None = None) -> Result:
        result = loaded if loaded is not None else self._result(board)
        if result is None or result.state == "rejected":
            raise ConflictError(
                "not_entered", f"Board {board} has no result to act on: enter it first."
            )
        if result.state in TD_STATES:
            raise ConflictError(
                "td_decided", f"Board {board} is with the TD ({result.state}): call the TD."
            )
        if result.version != version:
            raise ConflictError(
                "stale_version",
                f"Board {board} changed since it was shown (now version {result.version}): "
                "look at it again.",
            )
        return result

    def _acked(self, entry_id: str, result: Result, warning: str | None = None) -> Outcome:
        """The ack and the push of a changed result, sharing one view of it."""
        view = result_view(result)
        push = Push(result.section_id, result.table_number, ResultChanged(result=view))
        return Outcome(ResultAck(entry_id=entry_id, result=view, warning=warning), [push])

    def _ack(self, entry_id: str, result: Result, pushes: list[Push]) -> Outcome:
        return Outcome(ResultAck(entry_id=entry_id, result=result_view(result)), pushes)

    def _duplicate(self, entry_id: str, seen: ReceivedEntry) -> Outcome:
        result = self.s.get(Result, seen.result_id) if seen.result_id else None
        if result is None:
            return Outcome(Ack(entry_id=entry_id, detail="already received"))
        return Outcome(ResultAck(entry_id=entry_id, duplicate=True, result=result_view(result)))

    # ------------------------------------------------------------------ commands

    def handle(self, command: TableCommand) -> Outcome:
        now = utcnow()
        last = self.ident.token.last_seen
        if last is None or now - last >= LAST_SEEN_EVERY:
            # "Last seen" is for the TD's terminal status: a write every 30 s is plenty, and
            # skipping it keeps most commands to the writes they really need.
            self.ident.token.last_seen = now
            self.s.add(self.ident.token)
        if isinstance(command, GetRound):
            return Outcome(self.round_info())
        if isinstance(command, NextRound):
            return self.next_round()
        if isinstance(command, QUERIES):
            return Outcome(self.query(command))
        if isinstance(command, TableStatus):
            return Outcome(self.status(command))
        seen = self._seen(command.entry_id, command)
        if seen is not None:
            return self._duplicate(command.entry_id, seen)
        if isinstance(command, EnterResult):
            return self.enter(command)
        if isinstance(command, ConfirmResult):
            return self.confirm(command)
        if isinstance(command, RejectResult):
            return self.reject(command)
        if isinstance(command, CorrectResult):
            return self.correct(command)
        if isinstance(command, SetPlayers):
            return self.set_players(command)
        if isinstance(command, MarkNotPlayed):
            return self.mark_not_played(command)
        return self.call_td(command)

    def round_info(self) -> RoundInfo:
        return round_info(self.s, self.event, self.section, self.table)

    def status(self, command: TableStatus) -> Ack:
        """Note the terminal's outbox size (the TD's "offline with N queued")."""
        token = self.ident.token
        token.queued = command.queued
        token.queued_at = token.last_seen = utcnow()
        self.s.add(token)
        return Ack(detail=f"{command.queued} queued noted")

    # ------------------------------------------------------------------ the terminal's extras

    def query(self, command: Query) -> Message:
        """Answer a question that changes nothing (settings, member, entry check, reports)."""
        from server.services import table_extras as extras

        if isinstance(command, GetTableSettings):
            return extras.settings(self)
        if isinstance(command, LookupMember):
            return extras.lookup_member(self, command.number)
        if isinstance(command, CheckEntry):
            return extras.check_entry(self, command)
        if isinstance(command, GetBoardReport):
            return extras.board_report(self, command.board)
        return extras.ranking(self)

    def set_players(self, cmd: SetPlayers) -> Outcome:
        """Players keyed membership numbers or visitors' names for the pair at a seat."""
        from server.services import table_extras

        return table_extras.set_players(self, cmd)

    def mark_not_played(self, cmd: MarkNotPlayed) -> Outcome:
        """The TD, with the section's code, marks a board of this round not played."""
        from server.services import table_extras

        return table_extras.mark_not_played(self, cmd)

    def enter(self, cmd: EnterResult) -> Outcome:
        from server.services import table_extras

        row = self._check_board(cmd.board)
        values = check_values(cmd.board, cmd.values, self.event.lead_required)
        lead = table_extras.check_lead(self, cmd.entry_id, cmd.board, values)
        if lead.refusal is not None:
            return lead.refusal
        outcome = self._enter(cmd, row, values)
        if lead.flagged:
            table_extras.flag_lead(self, cmd.board, cmd.entry_id, values)
        return outcome

    def _enter(self, cmd: EnterResult, row: MovementAssignment, values: CheckedValues) -> Outcome:
        from server.services import table_extras

        result = self._result(cmd.board)
        actor = f"{self.label} N/S"
        if result is None:
            result = Result(
                section_id=self.section.id or 0,
                table_number=self.table.number,
                round=self.table.round,
                board=cmd.board,
                ns_pair_id=row.ns_pair_id,
                ew_pair_id=row.ew_pair_id,
                state="entered",
                ruling_pending=cmd.ruling_pending,
                entered_by=actor,
                entry_id=cmd.entry_id,
            )
            apply_values(result, values)
            self._insert_result(result)
            # The board's first entry here, and the only one that may get the "are you sure?".
            warning = table_extras.first_entry_warning(self, cmd.board, values)
            audit.record_change(
                self.s,
                actor=actor,
                action="entered",
                section=self.section,
                result_id=result.id or 0,
                old=None,
                new=audit.snapshot(result),
                reason="double-dummy warning given" if warning else "",
            )
            self._remember(cmd.entry_id, cmd, result)
            return self._acked(cmd.entry_id, result, warning)
        old = audit.snapshot(result)
        if result.state == "rejected":
            changes = value_columns(values)
            changes.update(state="entered", ruling_pending=cmd.ruling_pending)
            changes.update(entry_id=cmd.entry_id, entered_by=actor)
            return self._save(cmd.entry_id, cmd, result, actor, "re-entered", old, changes)
        if result.state in ("adjusted", "not_played"):
            raise ConflictError(
                "td_decided",
                f"The TD has settled board {cmd.board} at this table ({result.state}).",
            )
        if result.state != "conflict" and _same(result, values):
            # The same result keyed twice (e.g. on a second device): nothing changes.
            self._remember(cmd.entry_id, cmd, result)
            return self._ack(cmd.entry_id, result, [])
        # A different entry for a board that has one: never overwrite, let the TD decide.
        outcome = self._save(
            cmd.entry_id,
            cmd,
            result,
            actor,
            "conflict",
            old,
            {"state": "conflict", "conflict_entry_id": cmd.entry_id},
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
        self.s.add(
            TDCall(
                section_id=self.section.id or 0,
                table_number=self.table.number,
                round=self.table.round,
                reason=conflict_call_reason(cmd.board),
            )
        )
        return outcome

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
        self._update_result(result, changes)
        audit.record_change(
            self.s,
            actor=actor,
            action=action,
            section=self.section,
            result_id=result.id or 0,
            old=old,
            new=audit.snapshot(result),
            reason=reason,
        )
        self._remember(entry_id, cmd, result)
        return self._acked(entry_id, result)

    def confirm(self, cmd: ConfirmResult) -> Outcome:
        self._check_board(cmd.board)
        result = self._result(cmd.board)
        if (
            result is not None
            and result.state in ("confirmed", "td_pending")
            and cmd.version in (result.version, result.version - 1)
        ):
            # Confirmed already (e.g. from a second device): harmless, nothing changes.
            self._remember(cmd.entry_id, cmd, result)
            return self._ack(cmd.entry_id, result, [])
        result = self._require(cmd.board, cmd.version, result)
        if result.state != "entered":
            raise ConflictError("already_confirmed", f"Board {cmd.board} is already confirmed.")
        self._check_pin(result, cmd.pin)
        old = audit.snapshot(result)
        changes = {
            "state": "td_pending" if result.ruling_pending else "confirmed",
            "confirmed_by": f"{self.label} E/W",
            "confirmed_at": utcnow(),
        }
        return self._save(cmd.entry_id, cmd, result, f"{self.label} E/W", "confirmed", old, changes)

    def _check_pin(self, result: Result, pin: str | None) -> None:
        """When the event asks for it, only E/W's PIN confirms (N/S cannot confirm themselves)."""
        if not self.event.confirm_pin_required:
            return
        if not pin:
            raise ForbiddenError("pin_required", "E/W: key your pair's PIN to confirm.")
        ew = self.s.get(Pair, result.ew_pair_id) if result.ew_pair_id else None
        if ew is None or not hmac.compare_digest(pin.encode(), ew.pin.encode()):
            raise ForbiddenError("pin_wrong", "That is not E/W's PIN: try again or call the TD.")

    def reject(self, cmd: RejectResult) -> Outcome:
        self._check_board(cmd.board)
        result = self._require(cmd.board, cmd.version)
        if result.state != "entered":
            raise ConflictError(
                "already_confirmed",
                f"Board {cmd.board} is confirmed: North can correct it within the round.",
            )
        old = audit.snapshot(result)
        return self._save(
            cmd.entry_id,
            cmd,
            result,
            f"{self.label} E/W",
            "rejected",
            old,
            {"state": "rejected"},
            reason=cmd.reason,
        )

    def correct(self, cmd: CorrectResult) -> Outcome:
        from server.services import table_extras

        self._check_board(cmd.board)
        values = check_values(cmd.board, cmd.values, self.event.lead_required)
        lead = table_extras.check_lead(self, cmd.entry_id, cmd.board, values)
        if lead.refusal is not None:
            return lead.refusal
        result = self._result(cmd.board)
        if result is None:
            raise ConflictError("not_entered", f"Board {cmd.board} has no result to correct.")
        result = self._require(cmd.board, cmd.version) if result.state != "rejected" else result
        if result.version != cmd.version:
            raise ConflictError("stale_version", f"Board {cmd.board} has changed: look again.")
        old = audit.snapshot(result)
        changes = value_columns(values)
        changes.update(state="entered", ruling_pending=cmd.ruling_pending)
        changes.update(confirmed_by=None, confirmed_at=None, entry_id=cmd.entry_id)
        outcome = self._save(
            cmd.entry_id, cmd, result, f"{self.label} N/S", "corrected", old, changes
        )
        if lead.flagged:
            table_extras.flag_lead(self, cmd.board, cmd.entry_id, values)
        return outcome

    def call_td(self, cmd: CallTD) -> Outcome:
        self.s.add(
            TDCall(
                section_id=self.section.id or 0,
                table_number=self.table.number,
                round=self.table.round,
                reason=cmd.reason,
            )
        )
        self._remember(cmd.entry_id, cmd, None)
        return Outcome(Ack(entry_id=cmd.entry_id, detail="The TD has been called."))

    def next_round(self) -> Outcome:
        """Move the table on (§ 262C): only with every board done and the next round started."""
        current = self.table.round
        if current >= self.section.rounds:
            raise ConflictError("last_round", "That was the last round: the session is over.")
        if current > 0:
            row = self._round_row()
            missing = missing_boards(
                row.board_numbers(), results_at(self.s, self.section, self.table.number, current)
            )
            if missing:
                boards = ", ".join(str(b) for b in missing)
                raise ConflictError(
                    "round_incomplete",
                    f"Boards {boards} are not entered and confirmed yet: finish them before "
                    "you leave the table.",
                )
        if self.section.current_round <= current:
            raise ConflictError(
                "next_round_not_released", f"The TD has not started round {current + 1} yet."
            )
        self.table.round = current + 1
        self.table.round_entered_at = utcnow()
        self.s.add(self.table)
        info = self.round_info()
        from server.services import table_extras

        table_extras.warm_round(self)  # the new round's double dummy, ready for its entries
        return Outcome(
            info, [Push(self.section.id or 0, self.table.number, RoundChanged(round=info))]
        )


def outcome_for(session: Session, ident: TableIdentity, command: TableCommand) -> Outcome:
    """Run one table command (the caller commits the transaction before replying)."""
    return TableCommands(session, ident).handle(command)


def stored_request(row: ReceivedEntry) -> dict[str, object]:
    """The command as it was received (for the TD's view of a conflict)."""
    data: dict[str, object] = json.loads(row.request)
    return data
