"""The table desk: the one way a table command comes in, from any transport.

The websocket and HTTP routes (server/api/table.py) and the keypad gateway
(server/gateway/service.py) are adapters: they read their wire and write their reply, and
everything between is here, once:

* pairing (a code for a token) and the hello (a token for the table's round);
* the table's identity from its token, with the table row's lock (§ 262 commands one at a time);
* the PIN lockout on confirmations, counted on the token's row (server/limits/guesses.py)
  whatever the transport and the worker;
* the event's language on a refusal (the transport words it for its people);
* group commit (server.core.db.GroupWriter), with the table's id as the order in which table locks
  are taken, from every transport: two batches on PostgreSQL never wait on each other's locks
  in opposite orders (no deadlock);
* the publish step, once the command is committed (never before: committed before acknowledged).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager
from typing import TypeVar

from fastapi.concurrency import run_in_threadpool
from sqlalchemy import Engine
from sqlmodel import Session

from protocol.messages import Message, Paired, RoundInfo, TableCommand
from server.core.db import GroupWriter, read, transact
from server.core.errors import TravellerError
from server.live.bus import Bus
from server.services import commit_rows, generations, tokens
from server.services.outcomes import Outcome, Push
from server.services.table import table_memory
from server.services.table.table_commands import READ_AHEAD, outcome_for
from server.services.table.table_memory import ReadAhead, TableMemory
from server.services.views import round_info

T = TypeVar("T")

#: Tokens whose table id the desk remembers (a token belongs to one table for its life).
ORDER_CACHE = 20_000

Identify = Callable[[Session], tokens.TableIdentity]


class TableDesk:
    """Table commands for one engine: run through ``writer`` (group commit) when given, else
    each in its own transaction; pushes published on ``bus`` once committed."""

    def __init__(
        self,
        engine: Engine,
        *,
        bus: Bus | None = None,
        batch: int = 0,
        lock: AbstractContextManager[object] | None = None,
        memory: TableMemory | None = None,
    ) -> None:
        """``batch``: the most commands a group commit takes (below 2: one transaction each);
        ``lock``: the process's write lock, which the writer's transactions queue on."""
        self.engine = engine
        #: What it remembers of each table between commands (server.services.table.table_memory).
        self.memory = memory if memory is not None else TableMemory()
        self.bus = bus
        self.writer = (
            GroupWriter(engine, max_batch=batch, lock=lock, steps=self) if batch > 1 else None
        )
        #: The write lock its transactions queue on (the writer's, else the one given).
        self.lock = self.writer.lock if self.writer is not None else lock
        self._orders: dict[str, int] = {}

    # ------------------------------------------------------------------ around the COMMIT
    # A table command decides before it writes (``work``); its write-only rows wait in the
    # transaction's unit of work; the writer calls these three in this order (CommitSteps).

    def begin(self, session: Session, ahead: Sequence[object] = ()) -> None:
        """Before the transaction's first command: its unit of work is open, and a batch's
        tables are locked and their counters read in one statement (``ahead``: each job's
        :class:`~server.services.table.table_memory.ReadAhead`)."""
        commit_rows.begin(session)
        self.memory.read_ahead(session, ahead)

    def append(self, session: Session) -> None:
        """Just before the COMMIT: the read ahead checked (its sections did not move under a
        remembered state), then the commands' idempotency and audit rows, one
        ``executemany`` a statement for the whole batch."""
        self.memory.check_ahead(session)
        commit_rows.append(session)

    def apply(self, session: Session) -> None:
        """After the COMMIT only: the tables' states go back to the memory."""
        self.memory.apply(session)

    # ------------------------------------------------------------------ running

    def submit(self, work: Callable[[Session], T], order: int, ahead: object = None) -> Future[T]:
        """Queue ``work`` for the writer (``order``: the table's id; ``ahead``: what it reads
        first, :class:`ReadAhead`); resolves once committed."""
        if self.writer is None:
            future: Future[T] = Future()
            try:
                future.set_result(self._own(work))
            except BaseException as exc:
                future.set_exception(exc)
            return future
        return self.writer.submit(work, order, ahead)

    async def run(self, work: Callable[[Session], T], order: int, ahead: object = None) -> T:
        """Run ``work`` as a table command, with the commands waiting alongside it."""
        if self.writer is None:
            return await run_in_threadpool(self._own, work)
        return await self.writer.submit_async(work, order, ahead)

    # ------------------------------------------------------------------ every other write

    async def write(self, work: Callable[[Session], T], *, rounds_of: int | None = None) -> T:
        """A write that is not a table command (the TD's actions, the Data Connector's, a
        login): on the writer, in its place among the table commands, in a transaction of its
        own with the desk's steps around its COMMIT. ``rounds_of``: the section whose round
        ``work`` starts, closes or reopens (:meth:`round_control`)."""
        job = work if rounds_of is None else self.round_control(work, rounds_of)
        if self.writer is None:
            return await run_in_threadpool(self._own, job)
        return await self.writer.submit_async(job, alone=True)

    def transact(self, work: Callable[[Session], T]) -> T:
        """:meth:`write` from a worker thread (a keypad's pairing, hello and binding)."""
        if self.writer is None:
            return self._own(work)
        return self.writer.submit(work, alone=True).result()

    def round_control(
        self, work: Callable[[Session], T], section_id: int
    ) -> Callable[[Session], T]:
        """``work``, which starts, closes or reopens a round of the section, so that the
        tables the desk remembers take the section's new row once it has committed, instead
        of being read again (table_memory.SectionRowChange)."""

        def change(session: Session) -> T:
            generations.lock_section_tables(session, section_id)  # then the section's lock
            before = table_memory.lock_section(session, section_id)
            value = work(session)
            if before is not None:
                session.flush()
                self.memory.section_row_changed(session, section_id, before)
            return value

        return change

    def _own(self, work: Callable[[Session], T]) -> T:
        """``work`` in a transaction of its own, queued on the write lock (no group commit)."""
        return transact(self.engine, work, lock=self.lock, steps=self)

    def run_sync(self, work: Callable[[Session], T], order: int) -> T:
        """The same from a worker thread (the keypad gateway)."""
        return self.submit(work, order).result()

    def close(self) -> None:
        """The server's end: the writer finishes what was queued and gives back its
        connection."""
        if self.writer is not None:
            self.writer.stop()

    def publish(self, pushes: Iterable[Push]) -> None:
        if self.bus is not None:
            self.bus.publish((p.section_id, p.table, p.message) for p in pushes)

    # ------------------------------------------------------------------ lock order

    def order_of(self, token: str) -> int:
        """The table id of a token: the order in which its command takes the table's lock. 0
        for a token that is no good (its command is refused inside the transaction)."""
        key = tokens.digest(token)
        known = self._orders.get(key)
        if known is not None:
            return known
        try:
            ident = read(self.engine, lambda s: tokens.table_identity(s, token))
        except TravellerError:
            return 0
        return self.remember_order(token, ident.table.id or 0)

    def remember_order(self, token: str, table_id: int) -> int:
        """Note a token's table id (the hello read it already)."""
        if len(self._orders) >= ORDER_CACHE:
            self._orders.clear()
        self._orders[tokens.digest(token)] = table_id
        return table_id

    # ------------------------------------------------------------------ the checks

    def pair(self, session: Session, code: str, device: str) -> tuple[Paired, tokens.TableIdentity]:
        """Exchange the table's pairing code for a token (the transport limits the guesses)."""
        token, ident = tokens.pair_terminal(session, code=code, device=device)
        paired = Paired(
            token=token,
            event=ident.event.name,
            section=ident.section.letter,
            table=ident.table.number,
            expires_at=ident.token.expires_at,
        )
        return paired, ident

    @staticmethod
    def round_of(session: Session, ident: tokens.TableIdentity) -> RoundInfo:
        """The table's current round, as the hello answers it."""
        return round_info(session, ident.event, ident.section, ident.table)

    def work(
        self,
        command: TableCommand,
        identify: Identify,
        *,
        token: str | None = None,
        table_id: int = 0,
    ) -> Callable[[Session], Outcome]:
        """One command's work inside its transaction: the table (locked), the PIN lockout,
        the rules, and the event's language on a refusal. With the ``token`` and its
        ``table_id`` the table comes from the desk's memory (``identify`` is then not used);
        its state is kept for the COMMIT only if the command went well."""

        def work(session: Session) -> Outcome:
            opened = None
            if token is not None and table_id:
                entry_id = getattr(command, "entry_id", None)
                opened = self.memory.open(session, token, table_id, entry_id)
            ident = opened.ident if opened is not None else identify(session)
            try:
                with commit_rows.job(session):  # its write-only rows: one executemany a batch
                    outcome = outcome_for(session, ident, command, opened)
            except TravellerError as exc:
                exc.language = ident.event.language  # the club's language for the refusal
                raise
            if opened is not None and opened.state is not None:
                self.memory.done(session, opened.state)
            return outcome

        return work

    def finish(self, outcome: Outcome) -> Message:
        """After the commit: publish, then the reply (or the refusal whose writes stay)."""
        self.publish(outcome.pushes)
        if outcome.refusal is not None:  # refused, with what it wrote committed (an audited lead)
            raise outcome.refusal
        return outcome.reply

    async def command(self, token: str, command: TableCommand) -> Message:
        """A command with a table token (websocket, HTTP): committed, published, answered."""
        order = self._orders.get(tokens.digest(token))
        if order is None:
            order = await run_in_threadpool(self.order_of, token)
        identify = lambda s: tokens.table_identity(s, token, lock=True)  # noqa: E731
        work = self.work(command, identify, token=token, table_id=order)
        outcome = await self.run(work, order, read_ahead(command, order))
        return self.finish(outcome)


def read_ahead(command: TableCommand, table_id: int) -> ReadAhead | None:
    """What a command of a remembered table reads first, when its batch may read it for all
    its commands at once (table_commands.READ_AHEAD); None: it reads its own."""
    if not table_id or not isinstance(command, READ_AHEAD):
        return None
    return ReadAhead(table_id, getattr(command, "entry_id", None))
