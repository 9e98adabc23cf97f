"""PostgreSQL databases made for a test (or a session) and dropped afterwards. Their names carry
the xdist worker, so parallel workers never share one (nor a template to copy from)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

from tests.support.env import PG_ADMIN_URL, WORKER

#: The admin address without its database, for SQLAlchemy (psycopg 3 driver).
PG_BASE = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)


def pg_unavailable() -> str | None:
    """None when PostgreSQL answers, else the reason it does not."""
    try:
        with psycopg.connect(PG_ADMIN_URL, connect_timeout=3):
            return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}".strip()


def pg_address(name: str) -> str:
    """The SQLAlchemy address of database ``name`` on the tests' PostgreSQL server."""
    return f"{PG_BASE}/{name}"


@contextmanager
def pg_database(template: str | None = None, *, kind: str = "test") -> Iterator[str]:
    """A new PostgreSQL database (a copy of ``template`` when given), dropped afterwards."""
    name = f"traveller_{kind}_{WORKER}_{uuid.uuid4().hex[:12]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{copy}')
    try:
        yield name
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
