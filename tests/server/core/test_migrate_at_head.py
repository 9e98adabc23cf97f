"""`migrate` on a database already at the newest revision does nothing and loads no migration
file (a server start, and every test's app, used to load them all to find nothing to do); a
database behind it is still upgraded, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic import command
from sqlalchemy import Engine, inspect, text

from server.core import db
from server.core.db import alembic_config, at_newest_revision, make_engine, migrate, newest_revision


@pytest.fixture
def migrated(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    migrate(engine)
    yield engine
    engine.dispose()


def _revision(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())


def test_a_database_at_the_newest_revision_is_left_as_it_is(
    migrated: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _revision(migrated) == [newest_revision()]
    assert at_newest_revision(migrated)
    tables = sorted(inspect(migrated).get_table_names())

    def no_upgrade(*args: object, **kwargs: object) -> None:
        raise AssertionError("migrate ran the migrations on a database at the newest revision")

    monkeypatch.setattr(db.command, "upgrade", no_upgrade)
    migrate(migrated)
    assert sorted(inspect(migrated).get_table_names()) == tables
    assert _revision(migrated) == [newest_revision()]


def test_a_database_one_revision_behind_is_upgraded(migrated: Engine) -> None:
    command.downgrade(alembic_config(migrated), "-1")
    behind = _revision(migrated)
    assert behind
    assert behind != [newest_revision()]
    assert not at_newest_revision(migrated)
    migrate(migrated)
    assert _revision(migrated) == [newest_revision()]
    assert at_newest_revision(migrated)


def test_a_database_without_the_revision_table_is_not_at_the_newest(pg_or_lite: str) -> None:
    engine = make_engine(pg_or_lite)
    try:
        assert not at_newest_revision(engine)
        migrate(engine)
        assert at_newest_revision(engine)
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def pg_or_lite(request: pytest.FixtureRequest, tmp_path: object) -> str:
    """An empty database: a new SQLite file (not copied from the template) or PostgreSQL."""
    if request.param == "sqlite":
        request.getfixturevalue("monkeypatch").delenv(db.SCHEMA_TEMPLATE, raising=False)
        return f"sqlite:///{tmp_path}/empty.db"
    url: str = request.getfixturevalue("pg_url")
    return url
