"""What a table desk remembers of each table between its commands, and why it cannot be stale.

A table command needs its table's token, table, section and event rows, the movement's row for
its round, the round's results, the boards' deals and the E/W pair's PIN. Read afresh, that is
most of the writer's work; remembered, a command reads one small row: its table's generation
counters (and, in the same statement, its entry id in the idempotency log). A state reads the
movement's rows, results, boards and pairs of all the table's rounds at once, so a table moving
on to its next round finds them remembered too.

**The invariant.** A :class:`HeldTable` is used only inside a transaction that holds its
table's ``table_generation`` row FOR UPDATE (the table's lock; SQLite: the write lock taken at
BEGIN) and only while, read once that lock is held,

* ``table_generation.gen`` equals the state's ``table_gen`` plus the writes the state itself
  made and counted (``bumps``), and
* ``section_generation.gen`` of the table's section equals the state's ``section_gen``.

Both counters are kept by **database triggers** (migrations 0015, 0018 and 0019), not by the
writers: every INSERT, UPDATE and DELETE, from any process, service or tool, of

* the table's rows: ``bridge_table``, ``table_token``, ``result`` (:data:`TABLE_GUARDED`),
  moves its ``table_generation``;
* its section's rows: ``section``, ``event``, ``movement_assignment``, ``pair``, ``board``,
  ``dc_session``, and also ``sanction`` and ``section_player`` (:data:`SECTION_GUARDED`),
  moves its ``section_generation``.

So a TD's change, another worker's command, a command's own write that the state did not
count (an ORM write in a rarer path), or a migration's, makes the counters differ, and the next
command reads the table again. Every row the state holds comes from one of the guarded tables
(tests/server/services/test_table_memory.py reads the statements the state loads with and
checks that each table they read has its three triggers, on SQLite and on PostgreSQL).

A data load never makes the state older than its counters: it is read under the table's lock
after the counters, so it is at least as new as them (a newer section row under an older
``section_gen`` only costs a reload).

**Its life.** A command takes its table's state out of the memory (:meth:`TableMemory.open`);
the state goes back only once the transaction's COMMIT has returned: the table desk calls
:meth:`TableMemory.apply` then (server.core.db ``CommitSteps``), and :meth:`TableMemory.done`
keeps the state for it until then. A refused command, a failed batch, a failed COMMIT: the
state is simply never put back, and the next command reads the table again. Within one batch
a table's later command takes the state its earlier one left (uncommitted but in the same
transaction, under the same lock).

**A batch read ahead.** When every command of a group commit said what it reads first
(:class:`ReadAhead`: the commands that write only their own table's rows), the batch locks all
its tables' generation rows and then reads their counters and entry ids at its start (on
PostgreSQL in a statement after the lock's, which sees what the writers it waited for
committed: :func:`_under_lock`; :meth:`TableMemory.read_ahead`); each table's first command
of the batch takes them instead of its own read, a later one reads its own (its table's
counters have moved by then).
A table's rows are written by its own commands only, so what was read ahead of them stays true
for its first command; its section's rows are not, so the sections a remembered state was
found fresh in are read again just before the COMMIT (:meth:`TableMemory.check_ahead`),
unless every write of the batch was one of a table's own rows (counted as they run:
:data:`ROW_WRITES`). If one has moved, something in the batch wrote it, perhaps before that
state was used: the batch is rolled back and runs one command at a time, each reading its own
counters.

**The TD's round control** (a round started, closed or reopened) changes the section's own
row, which every state holds: the desk runs it with the section's generation row locked
(:func:`lock_section`), and once it has committed (:meth:`TableMemory.apply`) the states that
were fresh before it take the section's new row and generation instead of being read again
(:class:`SectionRowChange`). Only when the change was exactly that: one bump of the section's
counter, the row differing only in its round columns, the state's table not written.

With several workers (PostgreSQL) each has its own memory; the counters make another worker's
commands visible as a mismatch. A round control is carried over by the other workers too: the
fan-out sends each change this memory carried (:attr:`TableMemory.observers`), and a worker
that hears one (:meth:`TableMemory.heard`) carries it at its memory's next use, with the same
checks. The lock order is unchanged: a command locks only its own table's generation row, a
batch read ahead locks its tables' rows in order of table id, and batches run in that order.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, bindparam
from sqlalchemy import select as core_select
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, SQLModel, select

from server.core.db import writes
from server.core.models import (
    Event,
    MovementAssignment,
    Pair,
    Result,
    Section,
    TableToken,
)
from server.services import generations, tokens

log = logging.getLogger(__name__)

#: The tables whose every change moves a table's own generation.
TABLE_GUARDED = ("bridge_table", "table_token", "result")
#: The tables whose every change moves a section's generation (an event's: all its sections').
#: The last two are not read by a table's state, but by the live ranking (its sanctions, an
#: individual's players: web/live_views.RankingView.current).
SECTION_GUARDED = (
    "section",
    "event",
    "movement_assignment",
    "pair",
    "board",
    "dc_session",
    "sanction",
    "section_player",
)
GUARDED = TABLE_GUARDED + SECTION_GUARDED

#: The session's states of this transaction (``session.info``), put back after its COMMIT.
KEY = "traveller.table_memory"
#: ``Connection.info`` key: the writes of rows that move no section's generation, a table's
#: own (table_context.RowWriter: its results, token, round; TD calls), counted as they run.
ROW_WRITES = "traveller.table_row_writes"


def count_row_write(connection: Connection) -> None:
    """Note a write of a table's own rows on ``connection`` (:data:`ROW_WRITES`)."""
    connection.info[ROW_WRITES] = connection.info.get(ROW_WRITES, 0) + 1


def _other_writes(session: Session) -> int:
    """The writing statements run on the session's connection that were not a table's own
    rows' (so far, ever: compare two readings)."""
    return writes(session) - int(session.connection().info.get(ROW_WRITES, 0))


_TG = generations.TABLE_GENERATION
_SG = generations.SECTION_GENERATION
_RE = SQLModel.metadata.tables["received_entry"]


def _counters_read(tables: Any, entries: Any, *columns: Any) -> Any:
    """A read of tables' counters, with their section's generation and their entry ids already
    used: the tables matching ``tables``, the idempotency rows matching ``entries``,
    ``columns`` first. Run under the tables' lock only (:func:`_under_lock`)."""
    found = _TG.join(_SG, _SG.c.section_id == _TG.c.section_id).outerjoin(
        _RE, and_(_RE.c.table_id == _TG.c.table_id, entries)
    )
    counters = (_TG.c.gen, _SG.c.section_id, _SG.c.gen)
    return (
        core_select(*columns, *counters, _RE.c.request, _RE.c.result_id)
        .select_from(found)
        .where(tables)
    )


#: The command's one read: both counters, and its entry id if already used (Core, run on the
#: session's connection: no ORM rows to build).
_OPEN = _counters_read(
    _TG.c.table_id == bindparam("table_id"), _RE.c.entry_id == bindparam("entry_id")
)
#: The same for a batch's tables at once, in table id order, with any of the batch's entry
#: ids already used at those tables.
_AHEAD = _counters_read(
    _TG.c.table_id.in_(bindparam("table_ids", expanding=True)),
    _RE.c.entry_id.in_(bindparam("entry_ids", expanding=True)),
    _TG.c.table_id,
    _RE.c.entry_id,
).order_by(_TG.c.table_id)


def _under_lock(session: Session, lock: Any, read: Any, params: dict[str, Any]) -> Any:
    """``read`` under the tables' lock: on PostgreSQL the lock first (``lock``), then the read
    in a statement of its own. Under READ COMMITTED a statement sees what was committed when it
    began: one that waited for a lock in it would see the locked row as the writer it waited
    for left it, but not that writer's other rows (an entry id it stored: a resend to another
    worker would be taken for a new command; its section's counter). SQLite has taken the
    database's write lock at BEGIN: one statement does both."""
    connection = session.connection()
    if connection.dialect.name == "sqlite":
        return connection.execute(read, params)
    connection.execute(lock, params)
    return connection.execute(read, params)


#: Sections' generations (the read ahead's check before the COMMIT).
_SECTION_GENS = select(_SG.c.section_id, _SG.c.gen).where(
    _SG.c.section_id.in_(bindparam("section_ids", expanding=True))
)
#: A section's generation, its row locked until the COMMIT (the TD's round control), then
#: read again after the change, with the generations of its tables and its row.
_SECTION_LOCK = generations.SECTION_GEN.with_for_update()
_TABLE_GENS = select(_TG.c.table_id, _TG.c.gen).where(_TG.c.section_id == bindparam("section_id"))


@dataclass
class HeldTable:
    """One table as its last command left it, valid at ``table_gen`` + ``bumps`` and
    ``section_gen`` (see the module's invariant)."""

    table_gen: int
    section_gen: int
    by_token: dict[str, TableToken]
    identity: tokens.TableIdentity
    #: Writes to guarded rows this state made and kept itself in step with (one trigger each).
    bumps: int = 0
    rows: dict[int, MovementAssignment | None] = field(default_factory=dict)
    results: dict[tuple[int, int], Result | None] = field(default_factory=dict)
    deals: dict[int, str | None] = field(default_factory=dict)
    #: Board number -> (dealer, vulnerability, deal unknown): the round view's board facts.
    facts: dict[int, tuple[str, str, bool]] = field(default_factory=dict)
    pairs: dict[int, Pair | None] = field(default_factory=dict)
    lead_checked: bool | None = None

    @property
    def table_id(self) -> int:
        return self.identity.table.id or 0


@dataclass(frozen=True)
class Opened:
    """A command's table: its identity, its state (None: not remembered, read as before), and
    its entry id's row in the idempotency log (request, result id) if the read found one."""

    ident: tokens.TableIdentity
    state: HeldTable | None
    seen: tuple[str, int | None] | None
    #: Whether ``seen`` answers the idempotency look-up (the entry id was in the read).
    looked_up: bool


@dataclass(frozen=True)
class ReadAhead:
    """What a table command will read first (its table's counters, its entry id), said when
    it is queued, so that a batch reads them for all its commands in one statement."""

    table_id: int
    entry_id: str | None


@dataclass
class _Ahead:
    """A batch's read ahead (on ``session.info``): each table's counters, taken by the table's
    first command of the batch; and the sections' generations those commands found their
    states fresh at, checked again before the COMMIT (:meth:`TableMemory.check_ahead`)."""

    #: Table id -> (table generation, section id, section generation).
    counters: dict[int, tuple[int, int, int]]
    #: The (table id, entry id) pairs asked for, and those already used: (request, result id).
    asked: set[tuple[int, str]]
    seen: dict[tuple[int, str], tuple[str, int | None]]
    #: The connection's other writes when it was read (:func:`_other_writes`).
    other_writes: int = 0
    #: Section id -> the generation a remembered state was used at.
    relied: dict[int, int] = field(default_factory=dict)


class StaleReadAheadError(Exception):
    """A command of the batch changed what a remembered state holds of its section after
    another table's state was checked against the batch's read ahead: the batch runs again
    one by one (server.core.db.GroupWriter), each command reading its own counters."""


@dataclass
class MemoryStats:
    """How often a command found its table remembered (for the tests and the benchmark)."""

    hits: int = 0
    loads: int = 0
    unguarded: int = 0
    #: States that took a section's new row after the TD's round control (not read again).
    carried: int = 0
    #: Batches read ahead in one statement, and those run again because a section moved.
    read_ahead: int = 0
    stale_ahead: int = 0
    #: Batches read ahead whose sections were read again (something else was written).
    checked_ahead: int = 0


@dataclass(frozen=True)
class SectionRowChange:
    """The TD's round control changed a section's row: its generation ``before`` (read with
    the row locked) and ``after`` the change, its tables' generations after it, and the row."""

    section_id: int
    before: int
    after: int
    table_gens: dict[int, int]
    row: dict[str, Any]


def lock_section(session: Session, section_id: int) -> int | None:
    """Lock the section's generation row until the COMMIT (every other change to what its
    tables' states hold waits) and give the generation (None: the section has none)."""
    found = session.connection().execute(_SECTION_LOCK, {"section_id": section_id}).first()
    return None if found is None else int(found[0])


@contextmanager
def loading() -> Iterator[None]:
    """Every load of a state runs inside: the one boundary of the memory's reads, where a test
    wraps it to see which tables a load reads."""
    yield


#: Tables remembered at most (a long-lived server sees many events): past it, all are forgotten.
MAX_TABLES = 5_000


class TableMemory:
    """The states of one process's tables (one a table desk). ``enabled=False`` keeps the
    same locks and reads everything afresh: the reference the tests compare it with."""

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self.stats = MemoryStats()
        self._states: dict[int, HeldTable] = {}
        #: Where a session keeps this memory's states until its COMMIT (``session.info``).
        self._key = f"{KEY}.{id(self)}"
        #: Told of every round control this memory carried over (the fan-out tells the other
        #: workers: server/live/notify.py).
        self.observers: list[Callable[[SectionRowChange], None]] = []
        #: Round controls another worker ran, carried over at this memory's next use.
        self._heard: deque[SectionRowChange] = deque(maxlen=1_000)

    def held(self) -> dict[int, HeldTable]:
        """The states held between transactions, by table id (a copy: to look at, not to use)."""
        return dict(self._states)

    def forget(self) -> None:
        """Drop every state (they are reloaded as their tables' commands come)."""
        self._states.clear()

    def heard(self, change: SectionRowChange) -> None:
        """Another worker's round control (from any thread): carried over at the next use of
        this memory, with the same checks as its own, so a late or overtaken notice carries
        nothing it should not (a state no longer fresh at ``change.before`` is left alone)."""
        self._heard.append(change)

    def _carry_heard(self) -> None:
        while self._heard:
            self._carry(self._heard.popleft())

    def read_ahead(self, session: Session, ahead: Sequence[object]) -> None:
        """Lock a batch's tables and read their counters and entry ids at once (the ``ahead``
        its jobs said: :class:`ReadAhead`); each table's first command of the batch takes them
        instead of its own read (:meth:`open`)."""
        wanted = [a for a in ahead if isinstance(a, ReadAhead) and a.table_id > 0]
        if len(wanted) < 2 or len(wanted) < len(ahead):  # a job that did not say: read each
            return
        table_ids = sorted({a.table_id for a in wanted})
        asked = {(a.table_id, a.entry_id) for a in wanted if a.entry_id is not None}
        params = {"table_ids": table_ids, "entry_ids": sorted({e for _, e in asked})}
        counters: dict[int, tuple[int, int, int]] = {}
        seen: dict[tuple[int, str], tuple[str, int | None]] = {}
        for row in _under_lock(session, generations.TABLE_IDS_LOCK, _AHEAD, params):
            table_id, entry_id, table_gen, section_id, section_gen, request, result_id = row
            counters[table_id] = (table_gen, section_id, section_gen)
            if entry_id is not None and (table_id, entry_id) in asked:
                seen[(table_id, entry_id)] = (request, result_id)
        session.info[f"{self._key}.ahead"] = _Ahead(counters, asked, seen, _other_writes(session))
        self.stats.read_ahead += 1

    def check_ahead(self, session: Session) -> None:
        """Before the COMMIT of a batch read ahead: the sections whose generation a remembered
        state was found fresh at must not have moved since. A command's write to its
        section's rows (a pair's players, a board's deal) moves it, and a table whose command
        came later used what that write changed: raise :class:`StaleReadAheadError` (the
        batch runs again one by one). A table's own rows are written by its own commands
        only, and each table's first command of the batch used the read ahead."""
        ahead: _Ahead | None = session.info.pop(f"{self._key}.ahead", None)
        if ahead is None or not ahead.relied:
            return
        if _other_writes(session) == ahead.other_writes:
            return  # the batch wrote its tables' own rows only: no section moved
        self.stats.checked_ahead += 1
        params = {"section_ids": sorted(ahead.relied)}
        found = session.connection().execute(_SECTION_GENS, params)
        now: dict[int, int] = {int(section): int(gen) for section, gen in found}
        if any(now.get(section) != gen for section, gen in ahead.relied.items()):
            self.stats.stale_ahead += 1
            raise StaleReadAheadError(f"sections moved during the batch: {sorted(ahead.relied)}")

    def _counters(
        self, session: Session, table_id: int, entry_id: str | None
    ) -> tuple[int, int, int, tuple[str, int | None] | None, _Ahead | None] | None:
        """The table's counters (table generation, section id, section generation) and its
        entry id's row if used, from the batch's read ahead (given too) for the table's first
        command, else read now. None: the table has no counters."""
        ahead: _Ahead | None = session.info.get(f"{self._key}.ahead")
        if ahead is not None and (entry_id is None or (table_id, entry_id) in ahead.asked):
            counters = ahead.counters.pop(table_id, None)
            if counters is not None:
                seen = ahead.seen.get((table_id, entry_id)) if entry_id is not None else None
                return (*counters, seen, ahead)
        params = {"table_id": table_id, "entry_id": entry_id}
        row = _under_lock(session, generations.TABLE_LOCK, _OPEN, params).first()
        if row is None:
            return None
        table_gen, section_id, section_gen, request, result_id = row
        seen = (request, result_id) if request is not None else None
        return table_gen, section_id, section_gen, seen, None

    def open(self, session: Session, token: str, table_id: int, entry_id: str | None) -> Opened:
        """Lock the table and give its identity, from the state when the counters allow."""
        self._carry_heard()
        read = self._counters(session, table_id, entry_id)
        if read is None:  # no counters (the token's table is not the one we were told)
            self.stats.unguarded += 1
            ident = tokens.table_identity(session, token, lock=True)
            return Opened(ident, None, None, looked_up=False)
        table_gen, section_id, section_gen, seen, ahead = read
        pending: dict[int, HeldTable] = session.info.setdefault(self._key, {})
        state = pending.pop(table_id, None) or self._states.pop(table_id, None)
        if not self.enabled:
            ident = tokens.table_identity(session, token, lock=True)
            return Opened(ident, None, seen, looked_up=entry_id is not None)
        key = tokens.digest(token)
        fresh = (
            state is not None
            and state.table_gen + state.bumps == table_gen
            and state.section_gen == section_gen
        )
        if state is not None and fresh and key in state.by_token:
            self.stats.hits += 1
            if ahead is not None:  # fresh at the batch's start: checked again at its end
                ahead.relied.setdefault(section_id, section_gen)
            ident = state.identity
            token_row = state.by_token[key]
            tokens.check_live(token_row)
            if token_row is not ident.token:
                ident = tokens.TableIdentity(
                    token_row, ident.table, ident.section, ident.event, locked=True
                )
                state.identity = ident
            return Opened(ident, state, seen, looked_up=entry_id is not None)
        self.stats.loads += 1
        with loading():
            ident = tokens.table_identity(session, token)
        if ident.table.id != table_id:  # the caller's table id was wrong: lock the right one
            self.stats.unguarded += 1
            ident = tokens.table_identity(session, token, lock=True)
            return Opened(ident, None, None, looked_up=False)
        ident = tokens.TableIdentity(ident.token, ident.table, ident.section, ident.event, True)
        if state is not None and fresh:  # another token of a remembered table
            state.by_token[key] = ident.token
            state.identity = ident
        else:
            state = HeldTable(table_gen, section_gen, {key: ident.token}, ident)
        return Opened(ident, state, seen, looked_up=entry_id is not None)

    def done(self, session: Session, state: HeldTable) -> None:
        """The command went well: keep its state for the transaction's COMMIT (or a later
        command of the same table in this transaction)."""
        pending: dict[int, HeldTable] = session.info.setdefault(self._key, {})
        pending[state.table_id] = state

    def section_row_changed(self, session: Session, section_id: int, before: int) -> None:
        """The TD's round control has written the section's row (after :func:`lock_section`
        gave ``before``): note the change for :meth:`apply`, when it was the only one the
        section's counter saw. Anything more, and the counters have the tables read again."""
        after = generations.section_generation(session, section_id)
        if after is None or after != before + 1:
            return
        row = generations.section_row(session, section_id)
        assert row is not None  # its generation row exists: so does the section
        found = session.connection().execute(_TABLE_GENS, {"section_id": section_id})
        gens: dict[int, int] = {int(t): int(g) for t, g in found}
        change = SectionRowChange(section_id, before, after, gens, row)
        session.info.setdefault(f"{self._key}.sections", []).append(change)

    def apply(self, session: Session) -> None:
        """After the transaction's COMMIT (never before): its tables' states go back, and the
        states of a section whose round the TD changed take its new row (and the observers
        hear of the change)."""
        pending: dict[int, HeldTable] = session.info.get(self._key, {})
        if len(self._states) + len(pending) > MAX_TABLES:
            self._states.clear()
        for table_id, state in pending.items():
            state.table_gen += state.bumps
            state.bumps = 0
            self._states[table_id] = state
        pending.clear()
        self._carry_heard()
        for change in session.info.pop(f"{self._key}.sections", []):
            self._carry(change)
            for observer in self.observers:
                try:
                    observer(change)
                except Exception:  # committed already: telling others must not undo the answer
                    log.exception(
                        "an observer of section %d's round control failed", change.section_id
                    )

    def _carry(self, change: SectionRowChange) -> None:
        """Give ``change``'s new row to each state that was fresh before it and whose table
        it did not write; the others are left to the counters. The row is set before the
        generation: a command that takes the state between the two reads it again. (Tables
        read in one transaction share their section's object: it is changed once.)"""
        carried: dict[int, bool] = {}  # by section object: whether it took the new row
        for table_id, state in list(self._states.items()):
            section = state.identity.section
            if section.id != change.section_id or state.section_gen != change.before:
                continue
            if state.bumps or change.table_gens.get(table_id) != state.table_gen:
                continue
            if id(section) not in carried:
                held = vars(section)  # the loaded values (a missing one: not carried)
                differ = generations.round_control_only(held, change.row)
                for name in differ or ():
                    set_committed_value(section, name, change.row[name])
                carried[id(section)] = differ is not None
            if not carried[id(section)]:
                continue  # not the round control's change alone: read again
            state.section_gen = change.after
            self.stats.carried += 1


__all__ = [
    "GUARDED",
    "SECTION_GUARDED",
    "TABLE_GUARDED",
    "Event",
    "HeldTable",
    "Opened",
    "ReadAhead",
    "Section",
    "SectionRowChange",
    "StaleReadAheadError",
    "TableMemory",
]
