"""Database engines and sessions: SQLite (WAL, foreign keys) by default, PostgreSQL by URL."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, event, text
from sqlalchemy.exc import DataError, IntegrityError, OperationalError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, create_engine

from server.errors import InvalidError, UnavailableError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def make_engine(url: str) -> Engine:
    """An engine for ``url``. SQLite gets WAL, foreign keys, a busy timeout and write locks
    taken at BEGIN (so two writers queue instead of failing on lock upgrade)."""
    if not is_sqlite(url):
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": 30}}
    if url in ("sqlite://", "sqlite:///:memory:"):
        kwargs["poolclass"] = StaticPool
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


#: Execution option marking a read-only transaction (SQLite: a deferred BEGIN, no write lock).
READONLY = "traveller_readonly"


def alembic_config(engine: Engine) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


#: pg_advisory_lock key: several workers starting at once migrate one after the other.
MIGRATION_LOCK = 0x7472_6176  # "trav"


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (creates it on an empty database)."""
    if engine.dialect.name != "postgresql":
        command.upgrade(alembic_config(engine), "head")
        return
    with engine.connect() as lock:
        lock.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK})
        try:
            command.upgrade(alembic_config(engine), "head")
        finally:
            lock.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK})
            lock.commit()


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session that commits on success and rolls back on any error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


T = TypeVar("T")


def transact(engine: Engine, work: Callable[[Session], T], *, attempts: int = 3) -> T:
    """Run ``work`` in one transaction and commit before returning: what it returns has been
    stored. A race on a unique key (two devices at once) is retried, and then sees the row."""
    for attempt in range(1, attempts + 1):
        try:
            with _writer(engine), session_scope(engine) as session:
                return work(session)
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


_WRITERS: weakref.WeakKeyDictionary[Engine, threading.RLock] = weakref.WeakKeyDictionary()


def _writer(engine: Engine) -> AbstractContextManager[object]:
    """SQLite: one transaction at a time per process, queued on a lock. SQLite takes its write
    lock at BEGIN anyway, but waiters would sleep in its busy handler (backing off up to 100 ms
    a try), which made the round-end burst's p99 two to three times worse."""
    if engine.dialect.name != "sqlite":
        return nullcontext()
    return _WRITERS.setdefault(engine, threading.RLock())


def storage_full(exc: Exception) -> bool:
    """SQLite's SQLITE_FULL or PostgreSQL's disk_full (53100): the write failed, nothing stored."""
    text_ = str(exc).lower()
    return "database or disk is full" in text_ or "no space left on device" in text_
