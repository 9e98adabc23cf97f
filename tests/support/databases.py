"""PostgreSQL databases for the tests: made for a test (or a session) and dropped afterwards, or
copies of a migrated template that are put back as new after each test and handed to the next
(RecycledDatabases). Their names carry the xdist worker, so parallel workers never share one
(nor a template to copy from)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg

from tests.support.env import PG_ADMIN_URL, WORKER

#: The admin address without its database: for psycopg, and for SQLAlchemy (psycopg 3 driver).
_PG_SERVER = PG_ADMIN_URL.rsplit("/", 1)[0]
PG_BASE = _PG_SERVER.replace("postgresql://", "postgresql+psycopg://", 1)


def pg_unavailable() -> str | None:
    """None when PostgreSQL answers, else the reason it does not."""
    try:
        with psycopg.connect(PG_ADMIN_URL, connect_timeout=3):
            return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}".strip()


def pg_address(name: str) -> str:
    """The SQLAlchemy address of database ``name`` on the tests' PostgreSQL server (for psycopg
    itself, :func:`pg_admin_url`)."""
    return f"{PG_BASE}/{name}"


def _create(template: str | None = None, *, kind: str = "test") -> str:
    name = f"traveller_{kind}_{WORKER}_{uuid.uuid4().hex[:12]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{copy}')
    return name


def _drop(name: str) -> None:
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def pg_database(template: str | None = None, *, kind: str = "test") -> Iterator[str]:
    """A new PostgreSQL database (a copy of ``template`` when given), dropped afterwards."""
    name = _create(template, kind=kind)
    try:
        yield name
    finally:
        _drop(name)


#: What a database's schema is made of, as text: relations (tables, indexes, sequences, views)
#: with their owners and grants, columns, constraints, triggers, functions, types and enum
#: labels, schemas, extensions and database settings. Two databases with the same text have
#: the same schema; a test that changed any of it (a migration run down, a column added, an
#: index dropped, a GRANT) leaves a different text behind.
_SCHEMA_TEXT = """
SELECT md5(coalesce(string_agg(part, E'\\n' ORDER BY part), '')) FROM (
  SELECT 'rel ' || c.relkind::text || ' ' || n.nspname || '.' || c.relname || ' '
         || c.relowner::regrole::text || ' ' || coalesce(c.relacl::text, '') AS part
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
     AND n.nspname NOT LIKE 'pg_temp_%' AND n.nspname NOT LIKE 'pg_toast_temp_%'
  UNION ALL
  SELECT 'col ' || table_schema || '.' || table_name || '.' || column_name || ' ' || data_type
         || ' ' || is_nullable || ' ' || coalesce(column_default, '')
    FROM information_schema.columns
   WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
  UNION ALL
  SELECT 'idx ' || indexdef FROM pg_indexes
   WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL
  SELECT 'con ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    FROM pg_constraint
   WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  UNION ALL
  SELECT 'trg ' || tgrelid::regclass::text || ' ' || tgname || ' ' || tgenabled::text
    FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL
  SELECT 'fun ' || oid::regprocedure::text FROM pg_proc
   WHERE pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  UNION ALL
  SELECT 'typ ' || oid::regtype::text FROM pg_type
   WHERE typnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace,
                              'pg_toast'::regnamespace)
  UNION ALL
  SELECT 'enm ' || enumtypid::regtype::text || ' ' || enumlabel || ' ' || enumsortorder::text
    FROM pg_enum
  UNION ALL
  SELECT 'nsp ' || nspname FROM pg_namespace
   WHERE nspname NOT LIKE 'pg_temp_%' AND nspname NOT LIKE 'pg_toast_temp_%'
  UNION ALL
  SELECT 'ext ' || extname || ' ' || extversion FROM pg_extension
  UNION ALL
  SELECT 'set ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
   WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
  UNION ALL
  SELECT 'lob ' || count(*)::text FROM pg_largeobject_metadata
  UNION ALL
  SELECT 'seq ' || schemaname || '.' || sequencename || ' ' || data_type::text || ' '
         || start_value || ' ' || increment_by || ' ' || min_value || ' ' || max_value || ' '
         || cycle::text || ' ' || cache_size
    FROM pg_sequences
) AS schema_parts
"""


def schema_fingerprint(conn: psycopg.Connection[Any]) -> str:
    """A digest of the schema of the database ``conn`` is connected to (see _SCHEMA_TEXT)."""
    row = conn.execute(_SCHEMA_TEXT).fetchone()
    assert row is not None
    return str(row[0])


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class DatabaseState:
    """What a database holds: its schema's digest, the rows of every table as COPY text (a fresh
    copy of the template has them only in ``alembic_version``) and where each sequence stands."""

    fingerprint: str
    tables: tuple[str, ...]
    rows: tuple[tuple[str, bytes], ...]
    sequences: tuple[tuple[str, int, bool], ...]

    @classmethod
    def of(cls, conn: psycopg.Connection[Any]) -> DatabaseState:
        tables = tuple(
            _quoted(schema) + "." + _quoted(table)
            for schema, table in conn.execute(
                "SELECT schemaname, tablename FROM pg_tables"
                " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
                " ORDER BY 1, 2"
            )
        )
        rows = []
        for table in tables:
            with conn.cursor().copy(f"COPY {table} TO STDOUT") as copy:
                data = b"".join(bytes(chunk) for chunk in copy)
            if data:
                rows.append((table, data))
        sequences = tuple(
            (_quoted(schema) + "." + _quoted(name), int(value), bool(called))
            for schema, name, value, called in conn.execute(
                "SELECT schemaname, sequencename, coalesce(last_value, start_value),"
                " last_value IS NOT NULL FROM pg_sequences ORDER BY 1, 2"
            )
        )
        return cls(schema_fingerprint(conn), tables, tuple(rows), sequences)

    def restore(self, conn: psycopg.Connection[Any]) -> None:
        """Put the rows and sequences of database ``conn`` back as they were in the template,
        in one transaction. Foreign keys are not checked meanwhile (every table is emptied)."""
        with conn.transaction():
            conn.execute("SET LOCAL session_replication_role = replica")
            conn.execute("SET LOCAL lock_timeout = '10s'")
            for table in self.tables:
                conn.execute(f"DELETE FROM {table}")
            for table, data in self.rows:
                with conn.cursor().copy(f"COPY {table} FROM STDIN") as copy:
                    copy.write(data)
            for sequence, value, called in self.sequences:
                conn.execute("SELECT setval(%s::regclass, %s, %s)", (sequence, value, called))


class _NotAsNewError(Exception):
    pass


class RecycledDatabases:
    """Copies of a migrated template for one worker's tests, emptied after each test instead of
    dropped: making a database from a template and dropping it costs PostgreSQL about half a
    second of work (and twice that under the suite's load); putting 23 tables and 21 sequences
    back takes a twentieth of that.

    A database is handed out again only when it is as good as a new copy: the test's
    connections are ended first, its schema must still match the template's digest, and its
    rows and sequences are restored to the template's. A database that fails any of this is
    dropped and the next test gets a new copy."""

    def __init__(self, template: str) -> None:
        self.template = template
        with psycopg.connect(pg_admin_url(template), autocommit=True) as conn:
            self.snapshot = DatabaseState.of(conn)
        self._free: list[str] = []
        self._made: set[str] = set()

    def take(self) -> str:
        """The name of a database at the template's state, for one test."""
        if self._free:
            return self._free.pop()
        name = _create(self.template)
        self._made.add(name)
        return name

    def give_back(self, name: str) -> None:
        """Ready ``name`` for the next test, or drop it when it cannot be made as new."""
        try:
            with psycopg.connect(pg_admin_url(name), autocommit=True) as conn:
                _end_other_connections(conn)
                if schema_fingerprint(conn) != self.snapshot.fingerprint:
                    raise _NotAsNewError(f"{name}: the test changed the schema")
                self.snapshot.restore(conn)
        except (psycopg.Error, _NotAsNewError):
            self._made.discard(name)
            _drop(name)
        else:
            self._free.append(name)

    def close(self) -> None:
        """Drop every database this pool made."""
        for name in sorted(self._made):
            _drop(name)
        self._made.clear()
        self._free.clear()


def pg_admin_url(name: str) -> str:
    """The psycopg address of database ``name``, as the tests' superuser."""
    return f"{_PG_SERVER}/{name}"


def _end_other_connections(conn: psycopg.Connection[Any]) -> None:
    """End every other connection to the database ``conn`` is connected to (what a test's
    engines left open), waiting up to 5 s for each to be gone."""
    conn.execute(
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
        " WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )
