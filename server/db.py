"""Database engines and sessions: SQLite (WAL, foreign keys) by default, PostgreSQL by URL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, event
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, create_engine

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
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def alembic_config(engine: Engine) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (creates it on an empty database)."""
    command.upgrade(alembic_config(engine), "head")


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
            with session_scope(engine) as session:
                return work(session)
        except (IntegrityError, OperationalError) as exc:
            retryable = isinstance(exc, IntegrityError) or "deadlock" in str(exc).lower()
            if attempt == attempts or not retryable:
                raise
    raise AssertionError("unreachable")  # pragma: no cover
