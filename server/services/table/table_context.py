"""One authenticated table inside one open transaction: its locked row, its round, its boards,
and the idempotency log of its entry ids. The table's commands (table_commands) and extras
(table_extras) both work on it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import bindparam, insert, inspect, update
from sqlalchemy.orm import configure_mappers
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, SQLModel, select

from protocol.messages import Message, RoundInfo
from server.core.errors import ConflictError, NotFoundError
from server.core.models import (
    Board,
    BridgeTable,
    MovementAssignment,
    Pair,
    ReceivedEntry,
    Result,
    TableToken,
    TDCall,
    utcnow,
)
from server.limits.guesses import GuessLimit
from server.services import commit_rows, generations
from server.services.table import table_memory
from server.services.table.table_memory import HeldTable
from server.services.tokens import TableIdentity, check_live
from server.services.views import (
    Facts,
    assignment,
    board_facts,
    next_positions,
    round_info,
    round_view,
)

# The hot path's statements, built once (building a statement costs more than running it).
_SEEN = select(ReceivedEntry.request, ReceivedEntry.result_id).where(
    ReceivedEntry.table_id == bindparam("table_id"), ReceivedEntry.entry_id == bindparam("entry_id")
)
#: The table's results, locked: of every round for the memory (which holds all its rounds) ...
_TABLE_LOCKED = (
    select(Result)
    .where(
        Result.section_id == bindparam("section_id"),
        Result.table_number == bindparam("table_number"),
    )
    .with_for_update()
)
_TABLE_RESULTS = _TABLE_LOCKED.execution_options(populate_existing=True)
#: ... and one board's of its round (a command without the memory).
_RESULT = _TABLE_LOCKED.where(
    Result.round == bindparam("round"), Result.board == bindparam("board")
)
#: The movement's rows of every round of one table (the memory reads them at once).
_TABLE_ROWS = select(MovementAssignment).where(
    MovementAssignment.section_id == bindparam("section_id"),
    MovementAssignment.table_number == bindparam("table_number"),
)
_REMEMBER = insert(ReceivedEntry)
_DEALS = select(Board.number, Board.deal).where(
    Board.section_id == bindparam("section_id"),
    Board.number.in_(bindparam("boards", expanding=True)),  # type: ignore[attr-defined]
)
_PAIRS = (
    select(Pair)
    .where(Pair.id.in_(bindparam("pair_ids", expanding=True)))  # type: ignore[union-attr]
    .execution_options(populate_existing=True)
)


M = TypeVar("M", bound=SQLModel)


class RowWriter(Generic[M]):
    """A table's writes to one table of rows as Core INSERT/UPDATEs, built once, instead of
    the ORM's unit of work: a loaded object stays in step through ``set_committed_value``
    (nothing left for a flush to write), a new one (:meth:`new`) gets its id."""

    def __init__(self, model: type[M]) -> None:
        table = SQLModel.metadata.tables[str(model.__tablename__)]
        self.columns = tuple(c.key for c in table.columns if c.key != "id")
        self.insert = insert(table)
        self.update = update(table).where(table.c.id == bindparam("row_key"))
        self.name = table.name
        #: Its rows are a table's own, or nobody's generation: a write moves no section's.
        self.own_rows = table.name not in table_memory.SECTION_GUARDED
        self._make = inspect(model).class_manager.new_instance
        fields = model.model_fields.items()
        #: Each field's plain default (None for one the caller must give), and the factories.
        self._defaults = {n: None if f.is_required() else f.default for n, f in fields}
        self._factories = tuple(
            (n, cast(Callable[[], Any], f.default_factory))
            for n, f in fields
            if f.default_factory is not None
        )
        self._configured = False

    def new(self, **values: Any) -> M:
        """A new row object: ``values``, and every other field's default, put in its state as
        the ORM puts a row it reads (no attribute events, nothing for a flush to write). The
        model's constructor, which does not validate a table model either, costs about
        seventeen times as much: 0.135 ms a result entered, against 0.008 ms."""
        unknown = values.keys() - self._defaults.keys()
        if unknown:  # as the constructor would not take them either
            raise TypeError(f"{self.name} has no field {', '.join(sorted(unknown))}")
        if not self._configured:  # the mappers' attributes exist once configured (a query
            configure_mappers()  # or a constructor would do it: this may come first)
            self._configured = True
        row: M = self._make()
        state = row.__dict__
        state.update(self._defaults)
        for name, factory in self._factories:
            state[name] = factory()
        state.update(values)
        return row

    def _run(self, session: Session, statement: Any, values: dict[str, Any]) -> Any:
        """Run one of its statements; a write of a table's own rows, which moves no section's
        generation, is counted as such (a batch read ahead need not read its sections again:
        table_memory)."""
        connection = session.connection()
        found = connection.execute(statement, values)
        if self.own_rows:
            table_memory.count_row_write(connection)
        return found

    def add(self, session: Session, row: SQLModel) -> None:
        """Store a new row (built, with its defaults, as a model object) and set its id."""
        values = {key: getattr(row, key) for key in self.columns}
        key = self._run(session, self.insert, values).inserted_primary_key
        if key is None:  # pragma: no cover - an INSERT of one row always has its key
            raise StaleDataError(f"The new {self.name} row's INSERT returned no id.")
        setattr(row, "id", key[0])  # noqa: B010 - every row of these tables has an id

    def change(self, session: Session, row: SQLModel, changes: dict[str, Any]) -> None:
        """Write ``changes`` to the row and to the loaded object (kept clean)."""
        row_id = getattr(row, "id")  # noqa: B009 - every row of these tables has an id
        stored = self._run(session, self.update, {"row_key": row_id, **changes})
        if stored.rowcount != 1:
            raise StaleDataError(
                f"UPDATE of {self.name} {row_id} matched {stored.rowcount} row(s), not 1."
            )
        for key, value in changes.items():
            set_committed_value(row, key, value)


RESULTS = RowWriter(Result)
TD_CALLS = RowWriter(TDCall)
TABLES = RowWriter(BridgeTable)
TOKENS = RowWriter(TableToken)


@dataclass(frozen=True)
class Seen:
    """An entry id already in the idempotency log: what was received, and its result."""

    request: str
    result_id: int | None


class TableContext:
    """The table a command is for, locked for the length of its transaction."""

    def __init__(
        self,
        session: Session,
        ident: TableIdentity,
        *,
        memory: HeldTable | None = None,
        seen: tuple[str, tuple[str, int | None] | None] | None = None,
    ) -> None:
        """``memory``: the table's remembered state (server.services.table.table_memory), whose rows
        this command reads and keeps in step with its writes; ``seen``: (entry id, its row in
        the idempotency log or None) when the table's lock read it already."""
        self.s = session
        self.ident = ident
        self.memory = memory
        self._seen = seen
        # Serialise every command of this table (PostgreSQL row lock; SQLite locks at BEGIN):
        # the table's generation row first, as table_memory's read takes it, then the table.
        # tokens.table_identity(lock=True) and TableMemory.open took them already.
        if not ident.locked:
            session.execute(generations.TABLE_LOCK, {"table_id": ident.table.id})
            session.refresh(ident.table, with_for_update=True)
            # Read before the lock (the keypad gateway's path): as they are now, under it.
            for row in (ident.token, ident.section, ident.event):
                session.refresh(row)
            check_live(ident.token)
        locked = ident.table
        self.table = locked
        self.section = ident.section
        self.event = ident.event
        self.label = f"table {locked.number}"
        self._rows: dict[int, MovementAssignment | None] = {}
        self._request: tuple[Message, str] | None = None

    # ------------------------------------------------------------------ helpers

    def seen(self, entry_id: str, command: Message) -> Seen | None:
        """The stored entry with this id, if any; the same id with other content is refused."""
        table_id = self.table.id or 0
        kept = commit_rows.pending_entry(self.s, table_id, entry_id)  # earlier in this batch
        if kept is not None:
            found = Seen(kept["request"], kept["result_id"])
        elif self._seen is not None and self._seen[0] == entry_id:  # read with the table's lock
            if self._seen[1] is None:
                return None
            found = Seen(*self._seen[1])
        else:
            row = self.s.execute(_SEEN, {"table_id": table_id, "entry_id": entry_id}).first()
            if row is None:
                return None
            found = Seen(row.request, row.result_id)
        if found.request != self.request_of(command):
            raise ConflictError(
                "entry_id_reused",
                "Entry id {entry_id} was already used for a different command.",
                entry_id=entry_id,
            )
        return found

    def request_of(self, command: Message) -> str:
        """The command as the idempotency log stores it (serialised once a command)."""
        if self._request is None or self._request[0] is not command:
            self._request = (command, command.model_dump_json())
        return self._request[1]

    def remember(self, entry_id: str, command: Message, result: Result | None) -> None:
        """Log the entry id (the idempotency log): one row, no ORM object to track, written at
        the commit with the batch's others (server.services.commit_rows)."""
        if result is not None and result.id is None:
            self.s.flush()
        table_id = self.table.id or 0
        params = {
            "table_id": table_id,
            "entry_id": entry_id,
            "kind": str(getattr(command, "type", "command")),
            "request": self.request_of(command),
            "result_id": result.id if result is not None else None,
            "received_at": utcnow(),
        }
        commit_rows.write(self.s, _REMEMBER, params, entry=(table_id, entry_id))

    def _bump(self) -> None:
        """One write to a guarded row that the remembered state follows (its trigger moves
        the table's generation by one: table_memory)."""
        if self.memory is not None:
            self.memory.bumps += 1

    def insert_result(self, result: Result) -> None:
        """Store a new result (built, with its defaults, as a model object) and set its id."""
        RESULTS.add(self.s, result)
        self._bump()
        if self.memory is not None:
            self.memory.results[(result.round, result.board)] = result

    def update_result(self, result: Result, changes: dict[str, Any]) -> None:
        """Write ``changes`` to the result's row and to the loaded object (kept clean)."""
        RESULTS.change(self.s, result, changes)
        self._bump()

    def call_td(self, reason: str) -> None:
        """A call for the TD from this table in its round (one INSERT)."""
        call = TDCall(
            section_id=self.section.id or 0,
            table_number=self.table.number,
            round=self.table.round,
            reason=reason,
        )
        TD_CALLS.add(self.s, call)

    def note_token(self, **changes: Any) -> None:
        """Write the table token's ``last_seen``/``queued``/``guesses`` columns (one UPDATE)."""
        TOKENS.change(self.s, self.ident.token, changes)
        self._bump()

    def guess_wait(self, limit: GuessLimit) -> float:
        """Seconds until this terminal may guess ``limit``'s secret again (0: now)."""
        return limit.wait(self.ident.token.guesses, time.time())

    def note_guess(self, limit: GuessLimit, *, right: bool) -> None:
        """Count a wrong guess at ``limit``'s secret on the token, or forgive the wrong ones
        (a right guess, where the secret forgives); the UPDATE only when the count changes."""
        stored = self.ident.token.guesses
        now = limit.cleared(stored) if right else limit.missed(stored, time.time())
        if now != stored:
            self.note_token(guesses=now)

    def move_table(self, round_: int) -> None:
        """Move the table to ``round_`` (one UPDATE of its locked row)."""
        TABLES.change(self.s, self.table, {"round": round_, "round_entered_at": utcnow()})
        self._bump()

    def assignment(self) -> MovementAssignment | None:
        """The movement's row for the table's round (read once a command and round; while
        the table is remembered, every round's row is read at once)."""
        round_ = self.table.round
        if self.memory is None:
            if round_ not in self._rows:
                self._rows[round_] = assignment(self.s, self.section, self.table.number, round_)
            return self._rows[round_]
        rows = self.memory.rows
        if round_ not in rows:
            with table_memory.loading():
                found = self.s.exec(_TABLE_ROWS, params=self._where()).all()
            for row in found:
                rows[row.round] = row
            for number in range(1, self.section.rounds + 1):
                rows.setdefault(number, None)
            rows.setdefault(round_, None)
        return rows[round_]

    def _where(self) -> dict[str, Any]:
        return {"section_id": self.section.id, "table_number": self.table.number}

    def _remembered_rows(self) -> list[MovementAssignment]:
        """The movement's rows of every round of the remembered table."""
        assert self.memory is not None
        self.assignment()  # reads them all unless the table's round's row is known
        return [row for row in self.memory.rows.values() if row is not None]

    def _remembered_boards(self, boards: list[int]) -> list[int]:
        """``boards`` and the boards of every round of the remembered table: what the memory
        reads at once when one of ``boards`` is not known."""
        every = {b for row in self._remembered_rows() for b in row.board_numbers()}
        return sorted(every.union(boards))

    def deals(self, boards: list[int]) -> dict[int, str | None]:
        """The deals (PBN, None without a hand record) of these boards of the section (while
        the table is remembered, of every round's boards at once)."""
        known = self.memory.deals if self.memory is not None else {}
        missing = [b for b in boards if b not in known]
        if missing:
            if self.memory is not None:
                missing = [b for b in self._remembered_boards(missing) if b not in known]
            params = {"section_id": self.section.id, "boards": missing}
            with table_memory.loading():
                found: dict[int, str | None] = dict(self.s.execute(_DEALS, params).all())
            for board in missing:
                known[board] = found.get(board)
        return {b: known[b] for b in boards}

    def deal(self, board: int) -> str | None:
        """The board's deal (PBN), or None without a hand record."""
        return self.deals([board])[board]

    def lead_checked(self, read: Callable[[], bool]) -> bool:
        """Whether the table's leads are checked (``read``: fair_play's look-up)."""
        if self.memory is None:
            return read()
        if self.memory.lead_checked is None:
            with table_memory.loading():
                self.memory.lead_checked = read()
        return self.memory.lead_checked

    def pair(self, pair_id: int) -> Pair | None:
        """A pair of the section (for its PIN); while the table is remembered, every pair it
        meets in the movement is read at once."""
        if self.memory is None:
            return self.s.get(Pair, pair_id)
        pairs = self.memory.pairs
        if pair_id not in pairs:
            ids = {pair_id} | {
                i
                for row in self._remembered_rows()
                for i in (row.ns_pair_id, row.ew_pair_id)
                if i is not None and i not in pairs
            }
            with table_memory.loading():
                found = {p.id: p for p in self.s.exec(_PAIRS, params={"pair_ids": sorted(ids)})}
            for i in ids:
                pairs[i] = found.get(i)
        return pairs[pair_id]

    def round_row(self) -> MovementAssignment:
        row = self.assignment()
        if row is None:
            raise ConflictError(
                "round_not_started",
                "Table {number} has no round yet: wait for the TD to start it.",
                number=self.table.number,
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
                    "unknown_board", "Board {board} is not played in this session.", board=board
                )
            boards = ", ".join(str(b) for b in row.board_numbers())
            raise ConflictError(
                "board_not_in_round",
                "Board {board} is not played at table {number} in round {round} (this round's "
                "boards: {boards}).",
                board=board,
                number=self.table.number,
                round=self.table.round,
                boards=boards,
            )
        if self.table.round <= self.section.closed_rounds:
            raise ConflictError(
                "round_closed",
                "Round {round} is closed: ask the TD to change board {board}.",
                round=self.table.round,
                board=board,
            )
        return row

    def result(self, board: int) -> Result | None:
        params = {
            "section_id": self.section.id,
            "table_number": self.table.number,
            "round": self.table.round,
            "board": board,
        }
        if self.memory is None:
            return self.s.exec(_RESULT, params=params).first()
        key = (self.table.round, board)
        results = self.memory.results
        if key not in results:  # every round's results at once (under the table's lock)
            with table_memory.loading():
                found = self.s.exec(_TABLE_RESULTS, params=self._where()).all()
            for row in found:
                results[(row.round, row.board)] = row
            for row_ in self._remembered_rows():
                for b in row_.board_numbers():
                    results.setdefault((row_.round, b), None)
            results.setdefault(key, None)
        return results[key]

    def board_facts(self, boards: list[int]) -> Facts:
        """The boards' dealer, vulnerability and whether the deal is unknown (read once while
        the table is remembered, every round's boards at once)."""
        known = self.memory.facts if self.memory is not None else {}
        missing = [b for b in boards if b not in known]
        if missing:
            if self.memory is not None:
                missing = [b for b in self._remembered_boards(missing) if b not in known]
            with table_memory.loading():
                known.update(board_facts(self.s, self.section.id or 0, missing))
        return {b: known[b] for b in boards if b in known}

    def round_results(self, boards: list[int]) -> dict[int, Result]:
        """The table's stored results of its round on ``boards``."""
        found = ((b, self.result(b)) for b in boards)
        return {b: r for b, r in found if r is not None}

    def round_info(self) -> RoundInfo:
        """The table's round view; remembered, from the table's state (its movement row,
        pairs, results and boards), reading only what it does not hold."""
        if self.memory is None:
            return round_info(self.s, self.event, self.section, self.table)
        round_ = self.table.round
        row = self.assignment() if round_ else None
        boards = row.board_numbers() if row is not None else []
        ns = self.pair(row.ns_pair_id) if row is not None and row.ns_pair_id else None
        ew = self.pair(row.ew_pair_id) if row is not None and row.ew_pair_id else None
        return round_view(
            self.s,
            self.event,
            self.section,
            self.table,
            row,
            (ns, ew),
            self.round_results(boards),
            self.board_facts(boards),
            partial(next_positions, self.s, self.section, round_),
        )
