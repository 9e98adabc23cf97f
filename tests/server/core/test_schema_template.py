"""The harness's schema template (tests/conftest.py `schema_template`, server.core.db
SCHEMA_TEMPLATE): a database copied from it is the database the migrations make."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import inspect

from server.core.db import SCHEMA_TEMPLATE, make_engine, migrate


def _schema(path: Path) -> list[tuple[str, str, list[str]]]:
    """Every table and index with its definition, the clauses sorted (two runs of the same
    batch migration list a table's constraints in different orders), and the revision."""
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY 1, 2"
        ).fetchall()
        version = conn.execute("SELECT version_num FROM alembic_version").fetchall()
    clauses = [
        (kind, name, sorted(line.strip().rstrip(",") for line in (sql or "").splitlines()))
        for kind, name, sql in rows
    ]
    return [*clauses, ("alembic_version", "head", [str(version)])]


def test_a_copy_of_the_template_is_the_schema_the_migrations_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, schema_template: Path
) -> None:
    copied = tmp_path / "copied.db"
    migrate(make_engine(f"sqlite:///{copied}"))
    monkeypatch.delenv(SCHEMA_TEMPLATE)
    migrated = tmp_path / "migrated.db"
    migrate(make_engine(f"sqlite:///{migrated}"))
    assert _schema(copied) == _schema(migrated)
    assert len(_schema(migrated)) > 20


def test_a_database_with_tables_is_never_overwritten_by_the_template(tmp_path: Path) -> None:
    path = tmp_path / "own.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE mine (x INTEGER)")
        conn.execute("INSERT INTO mine VALUES (7)")
        conn.commit()
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    tables = set(inspect(engine).get_table_names())
    assert "mine" in tables
    assert "event" in tables or "events" in tables
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT x FROM mine").fetchall() == [(7,)]


@pytest.mark.postgres
def test_a_postgres_copy_of_the_template_is_at_the_newest_revision(
    pg_migrated_url: str, pg_url: str
) -> None:
    copied, fresh = make_engine(pg_migrated_url), make_engine(pg_url)
    migrate(fresh)
    try:
        names = sorted(inspect(copied).get_table_names())
        assert names == sorted(inspect(fresh).get_table_names())
        with copied.connect() as a, fresh.connect() as b:
            query = "SELECT version_num FROM alembic_version"
            assert a.exec_driver_sql(query).all() == b.exec_driver_sql(query).all()
    finally:
        copied.dispose()
        fresh.dispose()


def test_an_empty_database_is_copied_from_the_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, schema_template: Path
) -> None:
    marked = tmp_path / "marked.db"
    with closing(sqlite3.connect(schema_template)) as source, closing(sqlite3.connect(marked)) as m:
        source.backup(m)
        m.execute("CREATE TABLE copied_from_template (x INTEGER)")
        m.commit()
    monkeypatch.setenv(SCHEMA_TEMPLATE, str(marked))
    engine = make_engine(f"sqlite:///{tmp_path / 'new.db'}")
    migrate(engine)
    assert "copied_from_template" in inspect(engine).get_table_names()
