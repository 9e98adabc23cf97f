"""Shared fixtures: a database per test on SQLite and (where available) PostgreSQL, a served app,
and helpers that act as the TD and as table terminals."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

# Shared machines are slow at times: no per-example deadline. CI replays fixed examples, so a
# red run can be reproduced; a developer's run explores new ones.
settings.register_profile("traveller", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)

PG_ADMIN_URL = os.environ.get("TRAVELLER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _pg_available() -> str | None:
    """None when PostgreSQL answers, else the reason it does not."""
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - psycopg is a server dependency
        return f"psycopg not installed ({exc})"
    try:
        with psycopg.connect(PG_ADMIN_URL, connect_timeout=3):
            return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}".strip()


_PG_REASON = _pg_available()
settings.load_profile("ci" if IN_CI else "traveller")


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    if _PG_REASON is not None:
        if IN_CI:
            pytest.fail(f"CI=true but PostgreSQL is not reachable at {PG_ADMIN_URL}: {_PG_REASON}")
        pytest.skip(
            f"PostgreSQL not reachable at {PG_ADMIN_URL} ({_PG_REASON}); "
            "set TRAVELLER_TEST_PG or start PostgreSQL to run these tests"
        )
    import psycopg

    name = f"traveller_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    yield f"{base}/{name}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """The same test on a SQLite file and on a real PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'traveller.db'}"
    url: str = request.getfixturevalue("pg_url")
    return url
