"""What a running server holds: settings, the engine, the push bus, the group writer and the
table desk (one per app, on ``app.state.runtime``). Web pages, the API, the keypad gateway and
the Data Connector all reach the database through it."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterable
from typing import TypeVar

from fastapi.concurrency import run_in_threadpool
from sqlalchemy import Engine
from sqlmodel import Session

from server.core.config import Settings
from server.core.db import GroupWriter, read, write_lock
from server.live.bus import Bus
from server.live.live_tokens import LiveTokens
from server.live.table_desk import TableDesk
from server.services.outcomes import Push

T = TypeVar("T")

#: The interpreter's thread switch interval while a server runs (Python's default: 5 ms). The
#: writer thread gives up the GIL around every SQLite call; with the default, a thread rendering
#: a page could keep it for 5 ms each time, so a command of a dozen statements waited tens of
#: milliseconds for the GIL. 0.5 ms hands it back at once.
SWITCH_INTERVAL = 0.0005


def tune_interpreter() -> None:
    """Set the switch interval for a server process: called by its entry points (``traveller
    serve``'s app factory, the demo, the load bench's server), never by a library object."""
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))


#: Younger passes between two full passes of the garbage collector in a server process
#: (Python's default: 10). A full pass walks every object the event holds (the tables'
#: memory, the live pages' rooms) and frees almost nothing: at 200 tables, frozen, each took
#: 11-92 ms and freed at most a few hundred objects, and one landing in a round-end burst held
#: back every acknowledgement behind it (benchmarks/RESULTS.md).
FULL_PASS_AFTER = 100


def settle_heap() -> None:
    """Take what a server process holds once its app is built (the modules, the models'
    schemas, the app, its templates) out of the garbage collector's passes (``gc.freeze``):
    a full pass then walks only what the running event made, not the whole program; and make
    full passes rarer (:data:`FULL_PASS_AFTER`). Called by the entry points once the app
    exists, never by a library object (what is frozen is never freed)."""
    gc.collect()
    gc.freeze()
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_PASS_AFTER)


class Runtime:
    """What a running server holds: settings, the engine and the push bus (on app.state)."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self.settings = settings
        self.engine = engine
        self.bus = Bus()
        #: The open sockets' table tokens, live (a push asks them, not the database).
        self.tokens = LiveTokens(engine, recheck=settings.token_check_seconds)
        #: The process's write lock: every transaction of this server queues on it (SQLite).
        self.lock = write_lock(engine)
        self.desk = TableDesk(engine, bus=self.bus, batch=settings.group_commit_max, lock=self.lock)

    @property
    def writer(self) -> GroupWriter | None:
        """The table desk's group commit (None when it is off: one transaction a command)."""
        return self.desk.writer

    def transact(self, work: Callable[[Session], T]) -> T:
        """Run a use case in one transaction through the table desk, committed on return
        (from a worker thread)."""
        return self.desk.transact(work)

    async def run(self, work: Callable[[Session], T], *, rounds_of: int | None = None) -> T:
        """Run a use case in one transaction through the table desk, in its place among the
        table commands, committed on return. ``rounds_of``: the section whose round ``work``
        starts, closes or reopens (the table desk then keeps its tables remembered:
        TableDesk.round_control)."""
        return await self.desk.write(work, rounds_of=rounds_of)

    async def command(self, work: Callable[[Session], T], order: int = 0) -> T:
        """Run a table command through the group writer: with the commands waiting alongside
        it, in one transaction and one commit. Returns once committed.
        ``order``: the table's id (table locks are taken in that order, see TableDesk)."""
        return await self.desk.run(work, order)

    async def read(self, work: Callable[[Session], T]) -> T:
        """Run a read-only query in a worker thread, on a snapshot that never blocks writers."""
        return await run_in_threadpool(read, self.engine, work)

    def publish(self, pushes: Iterable[Push]) -> None:
        self.desk.publish(pushes)
