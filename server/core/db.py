"""Database engines and sessions: SQLite (WAL, foreign keys) by default, PostgreSQL by URL."""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager, closing, contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, cast

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, event, text
from sqlalchemy.exc import DataError, IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, create_engine

from server.core.errors import InvalidError, TravellerError, UnavailableError

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def make_engine(url: str, *, pool_size: int = 5, max_overflow: int = 5) -> Engine:
    """An engine for ``url``. SQLite gets WAL, foreign keys, a busy timeout and write locks
    taken at BEGIN (so two writers queue instead of failing on lock upgrade). PostgreSQL gets
    a pool of ``pool_size`` + ``max_overflow`` connections (per worker process: see
    :func:`pool_for_workers`)."""
    if not is_sqlite(url):
        return create_engine(
            url, pool_pre_ping=True, pool_size=pool_size, max_overflow=max_overflow
        )
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": 30}}
    if url in ("sqlite://", "sqlite:///:memory:"):
        kwargs["poolclass"] = StaticPool
    else:
        # Page reads run in the worker threads at once (each on its own WAL snapshot): a pool
        # as large as they are keeps their connections open instead of opening one (with its
        # pragmas and the WAL index) for every read beyond the fifth.
        kwargs.update(pool_size=SQLITE_POOL, max_overflow=SQLITE_POOL)
    engine = create_engine(url, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin (see "begin" below).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")  # an acknowledged result survives power loss
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # Writers take the write lock up front; readers (see read()) never need it in WAL mode.
        readonly = conn.get_execution_options().get(READONLY, False)
        conn.exec_driver_sql("BEGIN" if readonly else "BEGIN IMMEDIATE")

    return engine


#: SQLite connections kept open (as many as the worker threads that read pages at once).
SQLITE_POOL = 40


#: Execution option marking a read-only transaction (SQLite: a deferred BEGIN, no write lock).
READONLY = "traveller_readonly"


def alembic_config(engine: Engine) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


#: pg_advisory_lock key: several workers starting at once migrate one after the other.
MIGRATION_LOCK = 0x7472_6176  # "trav"


#: A SQLite file already migrated to the newest revision by this code. When it is set, an empty
#: SQLite database is first copied from it, so `migrate` has nothing left to do: a new database
#: is ready in milliseconds instead of the seconds every migration takes (on a Raspberry Pi
#: several times longer). For whoever makes many new SQLite databases with one version of the
#: code, each server started on its own: a club's trial evenings, a training room, the test
#: suite (tests/conftest.py makes one template a session with `migrate` itself).
SCHEMA_TEMPLATE = "TRAVELLER_SCHEMA_TEMPLATE"


@cache
def newest_revision() -> str:
    """The head of the migrations in this code (read from their files once a process)."""
    heads = ScriptDirectory(str(MIGRATIONS)).get_heads()
    if len(heads) != 1:  # pragma: no cover - a branch in the migrations is a bug of ours
        raise RuntimeError(f"The migrations have {len(heads)} heads: {', '.join(heads)}.")
    return heads[0]


def at_newest_revision(engine: Engine) -> bool:
    """True when the database's Alembic revision is already this code's newest: migrating it
    would load every migration's file only to find nothing to do."""
    try:
        with engine.connect() as conn:
            stored = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    except (OperationalError, ProgrammingError):  # no alembic_version table: a new database
        return False
    return stored == [newest_revision()]


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (creates it on an empty database)."""
    if engine.dialect.name != "postgresql":
        _copy_template(engine)
        if not at_newest_revision(engine):
            command.upgrade(alembic_config(engine), "head")
        return
    if at_newest_revision(engine):  # no lock needed to find there is nothing to do
        return
    with engine.connect() as lock:
        lock.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK})
        try:
            command.upgrade(alembic_config(engine), "head")
        finally:
            lock.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK})
            lock.commit()


#: Seconds a starting server waits for its PostgreSQL server (restarting, or a container still
#: starting) before it gives up. A worker that uvicorn starts again while PostgreSQL restarts
#: would otherwise fail at once, and uvicorn then stops every worker.
DATABASE_WAIT = 60.0


def migrate_when_ready(
    engine: Engine, *, wait: float = DATABASE_WAIT, sleep: Callable[[float], None] = time.sleep
) -> None:
    """:func:`migrate`, trying again while PostgreSQL does not answer (an OperationalError),
    for up to ``wait`` seconds, each wait logged; then its error. SQLite is not waited for:
    its errors (a path that cannot be opened, a full disk) do not pass by themselves."""
    deadline = time.monotonic() + wait
    delay = 0.2
    while True:
        try:
            migrate(engine)
            return
        except OperationalError as exc:
            if engine.dialect.name == "sqlite" or time.monotonic() + delay > deadline:
                raise
            log.warning(
                "the database does not answer (%s); trying again in %.1f s", exc.orig, delay
            )
            sleep(delay)
            delay = min(delay * 2, 5.0)


def _copy_template(engine: Engine) -> None:
    """Copy the `SCHEMA_TEMPLATE` file into an empty SQLite database file (SQLite's backup
    API, page by page under the database's own locks); a database with any table is left."""
    template = os.environ.get(SCHEMA_TEMPLATE)
    database = engine.url.database
    if not template or not database or database == ":memory:":
        return
    with (
        closing(sqlite3.connect(template)) as source,
        closing(sqlite3.connect(database, timeout=30)) as target,
    ):
        if target.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            return
        source.backup(target)


@contextmanager
def session_scope(bind: Engine | Connection) -> Iterator[Session]:
    """A session that commits on success and rolls back on any error, on a connection of the
    engine's pool or on the connection given."""
    with Session(bind, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class CommitSteps(Protocol):
    """What a writer of table commands does around the COMMIT of a transaction, in this order:
    ``begin`` before the first command (``ahead``: what each of the batch's jobs said it will
    read, :attr:`Job.ahead`, for one read of them all), ``append`` the rows the commands kept
    for the commit just before it, ``apply`` what they changed to the process's memory only
    after it."""

    def begin(self, session: Session, ahead: Sequence[object] = ()) -> None: ...

    def append(self, session: Session) -> None: ...

    def apply(self, session: Session) -> None: ...


def transact(
    bind: Engine | Connection,
    work: Callable[[Session], T],
    *,
    attempts: int = 3,
    lock: AbstractContextManager[object] | None = None,
    steps: CommitSteps | None = None,
) -> T:
    """Run ``work`` in one transaction and commit before returning: what it returns has been
    stored. A race on a unique key (two devices at once) is retried, and then sees the row.
    ``lock``: the process's write lock (:func:`write_lock`, held by the server's Runtime), so
    that its transactions queue on it; without one, SQLite's busy timeout queues them.
    ``steps``: the table desk's steps around the COMMIT (:class:`CommitSteps`). ``bind``: an
    engine (a connection of its pool for the transaction) or a connection held by the caller."""
    for attempt in range(1, attempts + 1):
        try:
            if steps is None:
                with lock or nullcontext(), session_scope(bind) as session:
                    return work(session)
            with lock or nullcontext(), session_scope(bind) as session:
                steps.begin(session)
                value = work(session)
                steps.append(session)
            steps.apply(session)  # committed: session_scope returned
            return value
        except (OverflowError, DataError) as exc:  # e.g. an id of 10**20 in a URL
            raise InvalidError("out_of_range", "A number in the request is out of range.") from exc
        except (IntegrityError, OperationalError) as exc:
            if storage_full(exc):
                raise UnavailableError(
                    "storage_full",
                    "The server's disk is full: nothing was stored. Keep the entry; it is sent "
                    "again automatically. Tell the TD.",
                ) from exc
            retryable = isinstance(exc, IntegrityError) or "deadlock" in str(exc).lower()
            if attempt == attempts or not retryable:
                if isinstance(exc, OperationalError):  # e.g. the database restarting
                    raise UnavailableError(
                        "database_unavailable",
                        "The database did not answer; the entry may not be stored. It is sent "
                        "again automatically (a repeat is harmless).",
                    ) from exc
                raise
    raise AssertionError("unreachable")  # pragma: no cover


# ------------------------------------------------------------------------------ group commit


class Reply(Protocol[T_co]):
    """Where a job's answer goes: a thread's :class:`Future`, or a coroutine's
    :class:`LoopReply`."""

    def set_running_or_notify_cancel(self) -> bool: ...

    def done(self) -> bool: ...

    def set_result(self, result: Any, /) -> None: ...

    def set_exception(self, exception: BaseException | None, /) -> None: ...


class LoopReply(Generic[T]):
    """A job's answer for a coroutine, set on the writer's thread and handed to its event loop
    with the rest of its batch's answers: one wake-up of the loop a batch, not one a job, and
    no lock or condition made for each command (what a thread's :class:`Future` needs)."""

    __slots__ = ("loop", "outcome", "waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        #: What the coroutine awaits (made on its loop's thread, resolved there only).
        self.waiter: asyncio.Future[T] = loop.create_future()
        self.outcome: tuple[Any, BaseException | None] | None = None

    def set_running_or_notify_cancel(self) -> bool:
        """False if the coroutine stopped waiting before its job began (it is not run)."""
        return not self.waiter.cancelled()

    def done(self) -> bool:
        return self.outcome is not None

    def set_result(self, result: Any, /) -> None:
        self.outcome = (result, None)

    def set_exception(self, exception: BaseException | None, /) -> None:
        self.outcome = (None, exception)

    def deliver(self) -> None:
        """On the loop's thread: the coroutine gets the answer (unless it stopped waiting)."""
        if self.waiter.done() or self.outcome is None:
            return
        value, error = self.outcome
        if error is not None:
            self.waiter.set_exception(error)
        else:
            self.waiter.set_result(value)


def _deliver(replies: list[LoopReply[Any]]) -> None:
    for reply in replies:
        reply.deliver()


@dataclass(eq=False)
class Job(Generic[T]):
    work: Callable[[Session], T]
    order: int
    future: Reply[T] = field(default_factory=Future)
    #: What ``work`` will read first, for the steps to read for the whole batch at once
    #: (:meth:`CommitSteps.begin`; the table desk: its table's counters and entry id).
    ahead: object = None
    #: A write that is not a table command (the TD's, the Data Connector's, a pairing): it
    #: runs in a transaction of its own, in its place in the queue, never in a batch.
    alone: bool = False


@dataclass
class GroupStats:
    """What the group writer has done (for the tests and the benchmark's notes)."""

    batches: int = 0
    jobs: int = 0
    #: Writes that are not table commands, each run in a transaction of its own.
    alone: int = 0
    largest: int = 0
    fallbacks: int = 0


#: ``Connection.info`` key: the INSERT, UPDATE and DELETE statements run on a connection.
WRITES = "traveller.writes"
_WRITE_VERBS = ("INSERT", "UPDATE", "DELETE")
_watched: weakref.WeakSet[Engine] = weakref.WeakSet()


def _count_write(
    conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, _many: bool
) -> None:
    if statement.lstrip()[:6].upper() in _WRITE_VERBS:
        conn.info[WRITES] = conn.info.get(WRITES, 0) + 1


def count_writes(engine: Engine) -> None:
    """Count the writing statements of ``engine``'s connections (once an engine)."""
    if engine not in _watched:
        _watched.add(engine)
        event.listen(engine, "before_cursor_execute", _count_write)


def writes(session: Session) -> int:
    """The writing statements run so far on the session's connection (:func:`count_writes`)."""
    return int(session.connection().info.get(WRITES, 0))


def _pending(session: Session) -> bool:
    """Whether the session holds ORM changes not yet flushed (they would be written at the
    COMMIT)."""
    return bool(session.new or session.dirty or session.deleted)


class _RefusedAfterWriteError(Exception):
    """A command of a batch was refused after it had written: the batch runs one by one."""


class GroupWriter:
    """Group commit: table commands that wait for the writer run together in ONE transaction
    and are committed with one COMMIT (one ``fsync``) for the lot.

    * A command refused with a :class:`TravellerError` gets its own error; the others are
      stored. The table commands decide before they write, so a refusal has written nothing
      and no SAVEPOINT is needed to undo it (two statements a command saved). A command
      refused after it wrote (its statements are counted, :func:`count_writes`, and the
      session's pending objects looked at) makes the batch run one by one, as below.
    * Nothing is answered before the COMMIT has returned: a future is only resolved once its
      result is durable.
    * Anything else going wrong (a unique-key race, the disk full, the database away, a
      deadlock, a failed COMMIT) rolls the whole batch back and runs each of its commands again
      on its own through :func:`transact`, with its retries and its 503 errors: a batch never
      behaves worse than the commands one by one.
    * Jobs run in order of ``order`` (the table's id), so two workers' batches take PostgreSQL
      row locks in the same order; jobs of one table keep their arrival order.
    * A write that is not a table command (:attr:`Job.alone`: the TD's, the Data Connector's,
      a pairing) runs in a transaction of its own, between the batch of the commands queued
      before it and the batch of those queued after it: every write of a server process is
      made on this one thread, in the order it reached the queue.

    One daemon thread per writer; it ends after ``idle`` seconds without work and starts again
    with the next job. While it runs it keeps one connection of the engine's pool for all its
    transactions: SQLite keeps a connection's page cache while no other connection writes, so
    the writer's statements find their pages in memory (the pool hands its connections out in
    turn, and each came back to the writer stale from the readers' and the others' use); on
    PostgreSQL no pre-ping a batch. A connection that broke (the database restarted) is
    replaced with the next batch. :meth:`stop` (the server's end) ends the thread as soon as
    the jobs queued before it are done.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        max_batch: int = 64,
        idle: float = 5.0,
        lock: AbstractContextManager[object] | None = None,
        steps: CommitSteps | None = None,
    ) -> None:
        self.engine = engine
        self.lock = lock if lock is not None else write_lock(engine)
        #: The table desk's steps around each COMMIT (its unit of work and its memory).
        self.steps = steps
        self.max_batch = max_batch
        self.idle = idle
        self.stats = GroupStats()
        count_writes(engine)
        #: The jobs, and None where :meth:`stop` asked the thread to end.
        self._queue: queue.SimpleQueue[Job[Any] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(
        self,
        work: Callable[[Session], T],
        order: int = 0,
        ahead: object = None,
        *,
        alone: bool = False,
    ) -> Future[T]:
        """Queue ``work``; the future resolves (or fails) once its batch has committed.
        ``alone``: not a table command; it runs in a transaction of its own (:attr:`Job.alone`)."""
        job: Job[T] = Job(work, order, ahead=ahead, alone=alone)
        self._start(job)
        return cast(Future[T], job.future)

    def submit_async(
        self,
        work: Callable[[Session], T],
        order: int = 0,
        ahead: object = None,
        *,
        alone: bool = False,
    ) -> asyncio.Future[T]:
        """Queue ``work`` from a coroutine on the running event loop: what it awaits resolves
        (or fails) once its batch has committed, delivered with the batch's other answers."""
        reply: LoopReply[T] = LoopReply(asyncio.get_running_loop())
        self._start(Job(work, order, reply, ahead, alone))
        return reply.waiter

    def _start(self, job: Job[Any]) -> None:
        self._queue.put(job)
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="traveller-group-writer", daemon=True
                )
                self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """End the writer's thread once the jobs queued before now are done, and so give back
        its connection (the server's end); waits for it at most ``timeout`` seconds. A job
        queued afterwards starts the thread again."""
        with self._lock:
            thread = self._thread
        if thread is None:
            return
        self._queue.put(None)
        thread.join(timeout)

    def _loop(self) -> None:
        connection: Connection | None = None
        try:
            while True:
                try:
                    first = self._queue.get(timeout=self.idle)
                except queue.Empty:
                    first = None
                if first is None:  # idle, or stop() asked: end unless a job came meanwhile
                    with self._lock:
                        if self._queue.empty():
                            self._thread = None
                            return
                    continue
                batch = [first]
                while len(batch) < self.max_batch:
                    try:
                        job = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if job is None:  # stop() asked: seen again after what came before it
                        self._queue.put(None)
                        break
                    batch.append(job)
                live = [job for job in batch if job.future.set_running_or_notify_cancel()]
                try:
                    connection = self._connection(connection)
                    self.run_batch(live, connection or self.engine)
                except BaseException as exc:  # pragma: no cover - never leave a caller hanging
                    log.exception("group writer failed")
                    for job in live:
                        if not job.future.done():
                            job.future.set_exception(exc)
                finally:
                    _hand_over(live)
        finally:
            if connection is not None:
                connection.close()

    def _connection(self, held: Connection | None) -> Connection | None:
        """The writer's connection: ``held``, or a new one if it broke (None: the database
        gives none now; the batch then takes its chances through the pool, with
        :func:`transact`'s errors)."""
        if held is not None and not held.invalidated and not held.closed:
            return held
        if held is not None:
            with suppress(Exception):
                held.close()
        try:
            return self.engine.connect()
        except Exception:
            log.warning("the group writer could not open its connection", exc_info=True)
            return None

    def run_batch(self, jobs: list[Job[Any]], bind: Engine | Connection | None = None) -> None:
        """Run and commit ``jobs`` in queue order, then resolve their futures: each run of
        table commands as one transaction, each write that is not one (:attr:`Job.alone`) in
        a transaction of its own; on ``bind`` (the writer's connection), else on a connection
        of the engine's pool."""
        bind = bind if bind is not None else self.engine
        for run in _runs(jobs):
            if run[0].alone:
                self.stats.alone += 1
                self._alone(run[0], bind)
            else:
                self._commit(run, bind)

    def _commit(self, jobs: list[Job[Any]], bind: Engine | Connection) -> None:
        """Run and commit table commands as one transaction, then resolve their futures."""
        self.stats.batches += 1
        self.stats.jobs += len(jobs)
        self.stats.largest = max(self.stats.largest, len(jobs))
        if len(jobs) == 1:
            self._alone(jobs[0], bind)
            return
        jobs = sorted(jobs, key=lambda j: j.order)  # stable: one table's jobs keep their order
        done: list[tuple[Job[Any], Any, BaseException | None]] = []
        try:
            with self.lock, Session(bind, expire_on_commit=False) as session:
                try:
                    if self.steps is not None:
                        self.steps.begin(session, [job.ahead for job in jobs])
                    for job in jobs:  # decide, then write
                        before = writes(session)
                        try:
                            value = job.work(session)
                        except TravellerError as exc:  # refused, having written nothing
                            if writes(session) != before or _pending(session):
                                raise _RefusedAfterWriteError from exc
                            done.append((job, None, exc))
                        else:
                            done.append((job, value, None))
                    if self.steps is not None:
                        self.steps.append(session)  # the rows the commands kept for the commit
                    session.commit()
                except BaseException:
                    session.rollback()
                    raise
            if self.steps is not None:
                self.steps.apply(session)  # only once committed
        except Exception as exc:
            # Nothing of this batch is stored: run each command on its own instead.
            self.stats.fallbacks += 1
            log.info("group commit of %d commands fell back to one by one: %s", len(jobs), exc)
            for job in jobs:
                self._alone(job, bind)
            return
        for job, value, error in done:
            if error is not None:
                job.future.set_exception(error)
            else:
                job.future.set_result(value)

    def _alone(self, job: Job[Any], bind: Engine | Connection) -> None:
        try:
            value = transact(bind, job.work, lock=self.lock, steps=self.steps)
        except BaseException as exc:
            job.future.set_exception(exc)
        else:
            job.future.set_result(value)


def _runs(jobs: list[Job[Any]]) -> Iterator[list[Job[Any]]]:
    """``jobs`` in queue order as the transactions they run in: each run of table commands
    together, each write that is not one (:attr:`Job.alone`) by itself, where it came."""
    run: list[Job[Any]] = []
    for job in jobs:
        if job.alone:
            if run:
                yield run
                run = []
            yield [job]
        else:
            run.append(job)
    if run:
        yield run


def _hand_over(jobs: list[Job[Any]]) -> None:
    """The coroutines' answers of a batch, to each event loop in one call."""
    by_loop: dict[asyncio.AbstractEventLoop, list[LoopReply[Any]]] = {}
    for job in jobs:
        if isinstance(job.future, LoopReply):
            by_loop.setdefault(job.future.loop, []).append(job.future)
    for loop, replies in by_loop.items():
        with suppress(RuntimeError):  # a closed loop: nobody is waiting any more
            loop.call_soon_threadsafe(_deliver, replies)


def read(engine: Engine, work: Callable[[Session], T]) -> T:
    """Run read-only ``work`` on a consistent snapshot. On SQLite it neither takes nor waits
    for the write lock, so dashboards and round look-ups never delay a result being stored."""
    snapshot = engine.execution_options(**{READONLY: True})
    # Closing the session (not rolling it back) ends the transaction and keeps the loaded
    # objects usable, as transact() does after its commit.
    with Session(snapshot, expire_on_commit=False) as session:
        try:
            return work(session)
        except (OverflowError, DataError) as exc:  # e.g. an id of 10**20 in a URL
            raise InvalidError("out_of_range", "A number in the request is out of range.") from exc
        except OperationalError as exc:
            raise UnavailableError(
                "database_unavailable", "The database did not answer; try again."
            ) from exc


def write_lock(engine: Engine) -> AbstractContextManager[object]:
    """A new write lock for ``engine``'s transactions in one process (the server's Runtime
    holds one and hands it to the group writer, the table desk and its own transactions).

    SQLite: one transaction at a time, queued on a lock. SQLite takes its write lock at BEGIN
    anyway, but waiters would sleep in its busy handler (backing off up to 100 ms a try),
    which made the round-end burst's p99 two to three times worse. PostgreSQL: no lock (row
    locks, in table order)."""
    if engine.dialect.name != "sqlite":
        return nullcontext()
    return threading.RLock()


def storage_full(exc: Exception) -> bool:
    """SQLite's SQLITE_FULL or PostgreSQL's disk_full (53100): the write failed, nothing stored."""
    text_ = str(exc).lower()
    return "database or disk is full" in text_ or "no space left on device" in text_


def pool_for_workers(
    workers: int, max_connections: int = 100, reserve: int = 10
) -> tuple[int, int]:
    """A PostgreSQL pool (size, overflow) per worker process such that ``workers`` of them, plus
    the fan-out's two connections a worker and ``reserve`` more (psql, backups, doctor), stay
    within the server's ``max_connections`` (PostgreSQL's default is 100). At most 5 + 5: the
    group writer needs one connection for all table commands, the rest serve page reads."""
    per_worker = (max_connections - reserve - 2 * workers) // max(1, workers)
    if per_worker < 2:
        raise ValueError(
            f"{workers} workers do not fit in max_connections={max_connections}: "
            "use fewer workers or raise max_connections"
        )
    size = min(5, per_worker // 2)
    return size, min(5, per_worker - size)
