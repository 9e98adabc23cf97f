"""generation triggers by key: a row's counter found by its key, not through a set

The triggers of 0015 and 0018 named the counters an UPDATE moves as the UNION of the old
row's and the new row's (``... WHERE table_id IN (SELECT <old> UNION SELECT <new>)``). SQLite
builds a temporary B-tree for that set at every row: a result's UPDATE (East's confirmation)
cost about 70 µs with its trigger against 2 µs without, a result's INSERT (North's entry)
about 22 µs against 8 µs with the ``IN (SELECT ...)`` of one row. Now each statement finds
its counter by key (``= (SELECT ...)``, a section's tables or an event's sections still
``IN``), and an UPDATE moves the new row's counter, then the old row's only when the row
changed its key (moved to another table, section or event). Every write moves the same
counters by the same amount as before (once each): only the cost changes. The trigger and
function names are those of 0015 and 0018.

Keep in step with server/services/table/table_memory.py ``GUARDED``
(tests/server/services/test_table_memory.py checks every one has its three triggers, and
that each moves its counters once, on SQLite and PostgreSQL).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05 07:30:00
"""

from collections.abc import Sequence
from typing import NamedTuple

from alembic import op
from sqlalchemy.engine import Connection

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


#: The counters: a bridge table's, and a section's (each table and its key column).
_TABLE = "table_generation", "table_id"
_SECTION = "section_generation", "section_id"


class Guard(NamedTuple):
    """How a guarded table's row names the counters it moves."""

    #: The counter's table and key column: :data:`_TABLE` or :data:`_SECTION`.
    counter: tuple[str, str]
    #: The row's counter key(s), ``{row}`` for NEW or OLD; ``many``: a set of them.
    key: str
    #: The row's columns the key is made of: an UPDATE that changes none moves one counter.
    columns: tuple[str, ...]
    many: bool = False


GUARDS: dict[str, Guard] = {
    # a table's own rows
    "bridge_table": Guard(_TABLE, "{row}.id", ("id",)),
    "table_token": Guard(_TABLE, "{row}.table_id", ("table_id",)),
    "result": Guard(
        _TABLE,
        "(SELECT id FROM bridge_table WHERE section_id = {row}.section_id "
        "AND number = {row}.table_number)",
        ("section_id", "table_number"),
    ),
    # what a table's commands (0015) and the live ranking (0018) read of its section
    "section": Guard(_SECTION, "{row}.id", ("id",)),
    "event": Guard(_SECTION, "SELECT id FROM section WHERE event_id = {row}.id", ("id",), True),
    "movement_assignment": Guard(_SECTION, "{row}.section_id", ("section_id",)),
    "pair": Guard(_SECTION, "{row}.section_id", ("section_id",)),
    "board": Guard(_SECTION, "{row}.section_id", ("section_id",)),
    "dc_session": Guard(
        _SECTION, "SELECT id FROM section WHERE event_id = {row}.event_id", ("event_id",), True
    ),
    "sanction": Guard(_SECTION, "{row}.section_id", ("section_id",)),
    "section_player": Guard(_SECTION, "{row}.section_id", ("section_id",)),
}
#: Rows whose INSERT creates, and DELETE removes, their own counter (as 0015 made them).
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


def _select(key: str) -> str:
    """A row's counter key(s) as a query."""
    if key.startswith("(SELECT"):  # one key looked up: the query in its parentheses
        return key[1:-1]
    if key.startswith("SELECT"):  # a set of keys
        return key
    return f"SELECT {key}"  # a column of the row itself


def _bump(guard: Guard, row: str) -> str:
    """The statement moving the counter(s) of ``row`` (NEW or OLD), found by key."""
    table, column = guard.counter
    key = guard.key.format(row=row)
    where = f"{column} IN ({key})" if guard.many else f"{column} = {key}"
    return f"UPDATE {table} SET gen = gen + 1 WHERE {where}"


def _union(guard: Guard, rows: tuple[str, ...]) -> str:
    """0015's and 0018's statement: the counters of the set of the rows' keys."""
    table, column = guard.counter
    keys = " UNION ".join(_select(guard.key.format(row=row)) for row in rows)
    return f"UPDATE {table} SET gen = gen + 1 WHERE {column} IN ({keys})"


def statements(table: str, op_: str, distinct: str, by_key: bool = True) -> list[str]:
    """The trigger body of ``op_`` on ``table``; ``distinct``: the dialect's null-safe
    inequality (SQLite ``IS NOT``, PostgreSQL ``IS DISTINCT FROM``). ``by_key`` False: the
    bodies of 0015 and 0018, one statement over the UNION of the old and new rows' keys."""
    guard = GUARDS[table]
    owner = OWNERS.get(table)
    if owner is not None and op_ != "UPDATE":
        return [owner[0] if op_ == "INSERT" else owner[1]]
    rows = {"INSERT": ("NEW",), "DELETE": ("OLD",)}.get(op_, ("OLD", "NEW"))
    if not by_key:
        body = [_union(guard, rows)]
    elif op_ != "UPDATE":
        body = [_bump(guard, rows[0])]
    else:
        moved = " OR ".join(f"OLD.{c} {distinct} NEW.{c}" for c in guard.columns)
        old = _bump(guard, "OLD").replace(" WHERE ", f" WHERE ({moved}) AND ", 1)
        body = [_bump(guard, "NEW"), old]
    if table == "bridge_table" and op_ == "UPDATE":  # a table moved keeps its counter's section
        body.append(
            "UPDATE table_generation SET section_id = NEW.section_id WHERE table_id = NEW.id"
        )
    return body


def _pg_function(table: str, by_key: bool) -> str:
    """The PostgreSQL function of ``table``'s trigger, one branch an operation."""

    def block(op_: str) -> str:
        return "\n".join(f"    {s};" for s in statements(table, op_, "IS DISTINCT FROM", by_key))

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


def _create(bind: Connection, by_key: bool) -> None:
    """Every guarded table's triggers (PostgreSQL: its one function) with these bodies."""
    if bind.dialect.name == "postgresql":
        for table in GUARDS:
            bind.exec_driver_sql(_pg_function(table, by_key))
        return
    for table in GUARDS:
        for op_ in OPS:
            name = f"traveller_gen_{table}_{op_.lower()}"
            body = "\n".join(f"  {s};" for s in statements(table, op_, "IS NOT", by_key))
            bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
            bind.exec_driver_sql(
                f'CREATE TRIGGER {name} AFTER {op_} ON "{table}" FOR EACH ROW BEGIN\n{body}\nEND'
            )


def upgrade() -> None:
    _create(op.get_bind(), by_key=True)


def downgrade() -> None:
    _create(op.get_bind(), by_key=False)
