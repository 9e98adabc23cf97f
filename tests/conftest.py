"""Shared fixtures: a database per test on SQLite and (where available) PostgreSQL, a served app,
and helpers that act as the TD and as table terminals."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from server.core.db import SCHEMA_TEMPLATE, make_engine, migrate
from tests.support.app_factory import AppFactory
from tests.support.databases import (
    RecycledDatabases,
    pg_address,
    pg_database,
    pg_unavailable,
)
from tests.support.env import IN_CI as IN_CI
from tests.support.env import PG_ADMIN_URL as PG_ADMIN_URL
from tests.support.env import WORKER

# Shared machines are slow at times: no per-example deadline. CI replays fixed examples, so a
# red run can be reproduced; a developer's run explores new ones.
settings.register_profile("traveller", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)

_PG_REASON = pg_unavailable()
settings.load_profile("ci" if IN_CI else "traveller")


#: Fixtures that drive a real Chromium, and fixtures or module contents that start servers or
#: other processes: their tests get the `browser` and `subprocess` markers, so that
#: `traveller test --fast` (the inner loop) can leave them out. The full suite runs them all.
_BROWSER_FIXTURES = frozenset({"browser", "page", "td_page"})
_PROCESS_WORDS = (
    "subprocess.",
    "Popen",
    "ServerProcess",
    "ServeProcess",
    "start_process",
    "pexpect",
)


def _starts_processes(path: Path, seen: dict[Path, bool]) -> bool:
    if path not in seen:
        text = path.read_text(encoding="utf-8") if path.suffix == ".py" else ""
        seen[path] = any(word in text for word in _PROCESS_WORDS)
    return seen[path]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test by what it needs: `browser`, `subprocess`, `deploy` (tests/deploy) and
    `postgres` (the PostgreSQL half of `db_url`, and every test that uses `pg_url`)."""
    seen: dict[Path, bool] = {}
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        path = Path(str(item.fspath))
        if names & _BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        if _starts_processes(path, seen):
            item.add_marker(pytest.mark.subprocess)
        if "deploy" in path.parts:
            item.add_marker(pytest.mark.deploy)
        if names & {"pg_url", "pg_migrated_url", "pg_template", "pg_recycled"}:
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(scope="session", autouse=True)
def schema_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One SQLite database migrated to the newest revision for the whole session, made by
    `server.core.db.migrate` itself; every empty SQLite database a test (or a server it starts)
    migrates is copied from it instead of running every migration again. The copy is checked
    against a full migration in tests/server/core/test_schema_template.py."""
    path = tmp_path_factory.mktemp("schema") / f"template-{WORKER}.db"  # one a worker
    engine = make_engine(f"sqlite:///{path}")
    saved = os.environ.pop(SCHEMA_TEMPLATE, None)
    migrate(engine)
    engine.dispose()
    os.environ[SCHEMA_TEMPLATE] = str(path)
    yield path
    if saved is None:
        os.environ.pop(SCHEMA_TEMPLATE, None)
    else:
        os.environ[SCHEMA_TEMPLATE] = saved


def _need_pg() -> None:
    if _PG_REASON is not None:
        if IN_CI:
            pytest.fail(f"CI=true but PostgreSQL is not reachable at {PG_ADMIN_URL}: {_PG_REASON}")
        pytest.skip(
            f"PostgreSQL not reachable at {PG_ADMIN_URL} ({_PG_REASON}); "
            "set TRAVELLER_TEST_PG or start PostgreSQL to run these tests"
        )


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """A PostgreSQL database migrated once a session by `server.core.db.migrate`, to copy from."""
    _need_pg()

    with pg_database(kind="template") as name:
        engine = make_engine(pg_address(name))
        migrate(engine)
        engine.dispose()  # CREATE DATABASE ... TEMPLATE needs it without connections
        yield name


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    _need_pg()
    with pg_database() as name:
        yield pg_address(name)


@pytest.fixture(scope="session")
def pg_recycled(pg_template: str) -> Iterator[RecycledDatabases]:
    """This worker's copies of the template, put back as new after each test."""
    pool = RecycledDatabases(pg_template)
    yield pool
    pool.close()


@pytest.fixture
def pg_migrated_url(pg_recycled: RecycledDatabases) -> Iterator[str]:
    """A PostgreSQL database at the newest schema and with no rows: a copy of the session's
    template, new or put back as new after an earlier test (tests/support/databases.py)."""
    name = pg_recycled.take()
    try:
        yield pg_address(name)
    finally:
        pg_recycled.give_back(name)


@pytest.fixture
def apps() -> Iterator[AppFactory]:
    """Engines and served apps made for the test (tests/support/app_factory.py), closed after it."""
    with ExitStack() as stack:
        yield AppFactory(stack)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """The same test on a SQLite file and on a real PostgreSQL database (both start at the
    newest schema; migrating them again is a no-op)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'traveller.db'}"
    url: str = request.getfixturevalue("pg_migrated_url")
    return url


#: Every this many tests a worker collects its garbage and freezes what is left (the module
#: and session fixtures, the imported code, caches): the interpreter's full collections then
#: scan only what the tests since made, not the whole heap again. Measured on tests/server
#: (SQLite, one worker): 11.2 s of 136 s in the collector without, 6.5 s of 122 s with.
FREEZE_EVERY = 100
_tests_run = 0


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    global _tests_run
    _tests_run += 1
    if _tests_run % FREEZE_EVERY == 0:
        gc.collect()
        gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """The session is over: freeze what it left on the heap (thousands of apps, engines and
    reports) so that the interpreter's last garbage collections at exit skip it; scanning it
    took minutes of CPU after the summary was printed. Memory goes back to the OS either way."""
    gc.freeze()
