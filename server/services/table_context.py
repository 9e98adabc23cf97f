"""One authenticated table inside one open transaction: its locked row, its round, its boards,
and the idempotency log of its entry ids. The table's commands (table_commands) and extras
(table_extras) both work on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, SQLModel, select

from protocol.messages import Message, RoundInfo
from server.core.errors import ConflictError, NotFoundError
from server.core.models import BridgeTable, MovementAssignment, ReceivedEntry, Result, utcnow
from server.services.tokens import TableIdentity
from server.services.views import assignment, round_info

# The hot path's statements, built once (building a statement costs more than running it).
_SEEN = select(ReceivedEntry.request, ReceivedEntry.result_id).where(
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


@dataclass(frozen=True)
class Seen:
    """An entry id already in the idempotency log: what was received, and its result."""

    request: str
    result_id: int | None


class TableContext:
    """The table a command is for, locked for the length of its transaction."""

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
        self._rows: dict[int, MovementAssignment | None] = {}
        self._request: tuple[Message, str] | None = None

    # ------------------------------------------------------------------ helpers

    def seen(self, entry_id: str, command: Message) -> Seen | None:
        """The stored entry with this id, if any; the same id with other content is refused."""
        params = {"table_id": self.table.id, "entry_id": entry_id}
        row = self.s.execute(_SEEN, params).first()
        if row is None:
            return None
        if row.request != self.request_of(command):
            raise ConflictError(
                "entry_id_reused",
                f"Entry id {entry_id} was already used for a different command.",
            )
        return Seen(row.request, row.result_id)

    def request_of(self, command: Message) -> str:
        """The command as the idempotency log stores it (serialised once a command)."""
        if self._request is None or self._request[0] is not command:
            self._request = (command, command.model_dump_json())
        return self._request[1]

    def remember(self, entry_id: str, command: Message, result: Result | None) -> None:
        """Log the entry id (the idempotency log): one INSERT, no ORM object to track."""
        if result is not None and result.id is None:
            self.s.flush()
        self.s.execute(
            _REMEMBER,
            {
                "table_id": self.table.id or 0,
                "entry_id": entry_id,
                "kind": str(getattr(command, "type", "command")),
                "request": self.request_of(command),
                "result_id": result.id if result is not None else None,
                "received_at": utcnow(),
            },
        )

    def insert_result(self, result: Result) -> None:
        """Store a new result (built, with its defaults, as a model object) and set its id."""
        values = {key: getattr(result, key) for key in _RESULT_COLUMNS}
        key = self.s.connection().execute(_INSERT_RESULT, values).inserted_primary_key
        if key is None:  # pragma: no cover - an INSERT of one row always has its key
            raise StaleDataError("The new result's INSERT returned no id.")
        result.id = key[0]

    def update_result(self, result: Result, changes: dict[str, Any]) -> None:
        """Write ``changes`` to the result's row and to the loaded object (kept clean)."""
        stored = self.s.connection().execute(_UPDATE_RESULT, {"result_key": result.id, **changes})
        if stored.rowcount != 1:
            raise StaleDataError(
                f"UPDATE of result {result.id} matched {stored.rowcount} row(s), not 1."
            )
        for key, value in changes.items():
            set_committed_value(result, key, value)

    def assignment(self) -> MovementAssignment | None:
        """The movement's row for the table's round (read once a command and round)."""
        round_ = self.table.round
        if round_ not in self._rows:
            self._rows[round_] = assignment(self.s, self.section, self.table.number, round_)
        return self._rows[round_]

    def round_row(self) -> MovementAssignment:
        row = self.assignment()
        if row is None:
            raise ConflictError(
                "round_not_started",
                f"Table {self.table.number} has no round yet: wait for the TD to start it.",
            )
        return row

    def check_board(self, board: int) -> MovementAssignment:
        """The board must be one of this table's boards in its current, open round."""
        row = self.round_row()
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

    def result(self, board: int) -> Result | None:
        params = {
            "section_id": self.section.id,
            "table_number": self.table.number,
            "round": self.table.round,
            "board": board,
        }
        return self.s.exec(_RESULT, params=params).first()

    def round_info(self) -> RoundInfo:
        return round_info(self.s, self.event, self.section, self.table)
