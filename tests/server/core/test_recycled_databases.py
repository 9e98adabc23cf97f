"""The harness's recycled PostgreSQL databases (tests/support/databases.py RecycledDatabases,
behind the `pg_migrated_url` fixture): a database handed to a second test is as new as a fresh
copy of the template, and one that a test changed beyond its rows is dropped, never reused."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import text

from server.core.db import make_engine
from tests.support.api import open_club
from tests.support.app_factory import app_client
from tests.support.databases import (
    DatabaseState,
    RecycledDatabases,
    pg_address,
    pg_admin_url,
    pg_database,
)
from tests.support.env import PG_ADMIN_URL

pytestmark = pytest.mark.postgres


@pytest.fixture
def pool(pg_template: str) -> Iterator[RecycledDatabases]:
    made = RecycledDatabases(pg_template)
    yield made
    made.close()


def _state(name: str) -> DatabaseState:
    with psycopg.connect(pg_admin_url(name), autocommit=True) as conn:
        return DatabaseState.of(conn)


def _exists(name: str) -> bool:
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        return (
            conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            is not None
        )


def _connections(name: str) -> int:
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_database_a_club_night_filled_comes_back_as_a_fresh_copy(
    pool: RecycledDatabases, pg_template: str
) -> None:
    name = pool.take()
    engine = make_engine(pg_address(name))
    with app_client(engine) as client:
        club = open_club(client, engine)
        club.start_round(1)
        table = club.pair(1)
        assert table.enter(1, "3NT", "N", 10).status_code == 200
    used = _state(name)
    assert used.rows != pool.snapshot.rows  # the night left rows behind
    assert used.sequences != pool.snapshot.sequences
    # A connection left open in a transaction, holding a lock on a table the reset empties.
    held = engine.connect()
    held.execute(text("LOCK TABLE result IN ACCESS EXCLUSIVE MODE"))

    pool.give_back(name)

    assert _connections(name) == 0
    again = pool.take()
    assert again == name
    with pg_database(pg_template) as fresh:
        assert _state(again) == _state(fresh)
    held.invalidate()
    engine.dispose()


def test_a_database_whose_schema_a_test_changed_is_dropped(pool: RecycledDatabases) -> None:
    name = pool.take()
    with psycopg.connect(pg_admin_url(name), autocommit=True) as conn:
        conn.execute("ALTER TABLE event ADD COLUMN left_behind integer")

    pool.give_back(name)

    assert not _exists(name)
    other = pool.take()
    assert other != name
    assert _state(other) == pool.snapshot


@pytest.mark.parametrize(
    "change",
    [
        "CREATE INDEX left_behind ON event (name)",
        "ALTER TABLE event ALTER COLUMN name DROP NOT NULL",
        "ALTER TABLE event DROP CONSTRAINT event_pkey CASCADE",
        "DROP TRIGGER traveller_gen_event ON event",
        "CREATE SEQUENCE left_behind",
        "ALTER SEQUENCE event_id_seq INCREMENT BY 2",
        "CREATE VIEW left_behind AS SELECT 1 AS one",
        "GRANT SELECT ON event TO PUBLIC",
        "CREATE SCHEMA left_behind",
    ],
)
def test_each_kind_of_schema_change_changes_the_fingerprint(
    pool: RecycledDatabases, change: str
) -> None:
    name = pool.take()
    with psycopg.connect(pg_admin_url(name), autocommit=True) as conn:
        conn.execute(change)
        assert DatabaseState.of(conn).fingerprint != pool.snapshot.fingerprint
    pool.give_back(name)
    assert not _exists(name)


def test_closing_the_pool_drops_every_database_it_made(pool: RecycledDatabases) -> None:
    first, second = pool.take(), pool.take()
    pool.give_back(first)
    pool.close()
    assert not _exists(first)
    assert not _exists(second)
