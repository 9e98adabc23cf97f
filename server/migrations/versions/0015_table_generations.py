"""table generations: the counters that keep the table desk's memory honest

Two small tables of counters, kept by triggers in the database itself (so no writer can forget
them): ``table_generation`` (one row a bridge table) goes up with every INSERT, UPDATE or
DELETE of that table's own rows (the bridge table, its tokens, its results), and
``section_generation`` (one row a section) with every change to what a table's commands read
of its section (the section, its event, its movement, its pairs, its boards, its event's
scoring-program session). A table command takes its table's generation row FOR UPDATE and
uses what it remembers of the table only while both counters are what they were when it
remembered it (server/services/table/table_memory.py).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 22:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The guarded tables, how a row names the counters it moves ({row} is NEW or OLD), and
#: whether the table's generation row is created (INSERT) and dropped (DELETE) with the row.
#: Keep in step with server/services/table/table_memory.py GUARDED
#: (tests/server/services/test_table_memory.py checks every one has its three triggers on SQLite
#: and PostgreSQL).
_TABLE = "UPDATE table_generation SET gen = gen + 1 WHERE table_id IN ({ids})"
_SECTION = "UPDATE section_generation SET gen = gen + 1 WHERE section_id IN ({ids})"
BUMPS: dict[str, tuple[str, str]] = {
    # table level
    "bridge_table": (_TABLE, "{row}.id"),
    "table_token": (_TABLE, "{row}.table_id"),
    "result": (
        _TABLE,
        "SELECT id FROM bridge_table WHERE section_id = {row}.section_id "
        "AND number = {row}.table_number",
    ),
    # section level
    "section": (_SECTION, "{row}.id"),
    "event": (_SECTION, "SELECT id FROM section WHERE event_id = {row}.id"),
    "movement_assignment": (_SECTION, "{row}.section_id"),
    "pair": (_SECTION, "{row}.section_id"),
    "board": (_SECTION, "{row}.section_id"),
    "dc_session": (_SECTION, "SELECT id FROM section WHERE event_id = {row}.event_id"),
}
#: Rows whose INSERT creates, and DELETE removes, a generation row.
OWNERS = {
    "bridge_table": (
        "INSERT INTO table_generation (table_id, section_id, gen) "
        "VALUES (NEW.id, NEW.section_id, 1)",
        "DELETE FROM table_generation WHERE table_id = OLD.id",
    ),
    "section": (
        "INSERT INTO section_generation (section_id, gen) VALUES (NEW.id, 1)",
        "DELETE FROM section_generation WHERE section_id = OLD.id",
    ),
}
OPS = ("INSERT", "UPDATE", "DELETE")


def _statements(table: str, op_: str) -> list[str]:
    """The trigger body of ``op_`` on ``table`` (NEW / OLD as each dialect names them)."""
    bump, ids = BUMPS[table]
    owner = OWNERS.get(table)
    if op_ == "INSERT":
        rows = ["NEW"]
    elif op_ == "DELETE":
        rows = ["OLD"]
    else:
        rows = ["OLD", "NEW"]
    where = " UNION ".join(
        f"SELECT {ids.format(row=r)}" if not ids.startswith("SELECT") else ids.format(row=r)
        for r in rows
    )
    if owner is not None and op_ == "INSERT":
        return [owner[0]]
    if owner is not None and op_ == "DELETE":
        return [owner[1]]
    body = [bump.format(ids=where)]
    if table == "bridge_table":  # a table moved to another section keeps its counter's section
        body.append(
            "UPDATE table_generation SET section_id = NEW.section_id WHERE table_id = NEW.id"
        )
    return body


def _sqlite_name(table: str, op_: str) -> str:
    return f"traveller_gen_{table}_{op_.lower()}"


def _pg_function(table: str) -> str:
    def block(op_: str) -> str:
        return "\n".join(f"    {s};" for s in _statements(table, op_))

    return f"""
CREATE OR REPLACE FUNCTION traveller_gen_{table}() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
{block("INSERT")}
    RETURN NEW;
  ELSIF TG_OP = 'UPDATE' THEN
{block("UPDATE")}
    RETURN NEW;
  ELSE
{block("DELETE")}
    RETURN OLD;
  END IF;
END;
$$ LANGUAGE plpgsql;
"""


def create_triggers(bind: sa.engine.Connection) -> None:
    """Every guarded table's INSERT, UPDATE and DELETE triggers, for the bind's dialect."""
    if bind.dialect.name == "postgresql":
        for table in BUMPS:
            bind.exec_driver_sql(_pg_function(table))
            bind.exec_driver_sql(
                f'CREATE TRIGGER traveller_gen_{table} AFTER INSERT OR UPDATE OR DELETE ON "{table}" '
                f"FOR EACH ROW EXECUTE FUNCTION traveller_gen_{table}()"
            )
        return
    for table in BUMPS:
        for op_ in OPS:
            body = "\n".join(f"  {s};" for s in _statements(table, op_))
            bind.exec_driver_sql(
                f'CREATE TRIGGER {_sqlite_name(table, op_)} AFTER {op_} ON "{table}" '
                f"FOR EACH ROW BEGIN\n{body}\nEND"
            )


def drop_triggers(bind: sa.engine.Connection) -> None:
    if bind.dialect.name == "postgresql":
        for table in BUMPS:
            bind.exec_driver_sql(f'DROP TRIGGER IF EXISTS traveller_gen_{table} ON "{table}"')
            bind.exec_driver_sql(f"DROP FUNCTION IF EXISTS traveller_gen_{table}()")
        return
    for table in BUMPS:
        for op_ in OPS:
            bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {_sqlite_name(table, op_)}")


def upgrade() -> None:
    op.create_table(
        "table_generation",
        sa.Column("table_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("section_id", sa.Integer(), nullable=False),
        sa.Column("gen", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("table_id"),
    )
    op.create_table(
        "section_generation",
        sa.Column("section_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("gen", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("section_id"),
    )
    bind = op.get_bind()
    bind.exec_driver_sql(
        "INSERT INTO table_generation (table_id, section_id, gen) "
        "SELECT id, section_id, 1 FROM bridge_table"
    )
    bind.exec_driver_sql("INSERT INTO section_generation (section_id, gen) SELECT id, 1 FROM section")
    create_triggers(bind)


def downgrade() -> None:
    drop_triggers(op.get_bind())
    op.drop_table("section_generation")
    op.drop_table("table_generation")
