"""The generation counters the database's triggers keep (migrations 0015 and 0018, each
counter found by its key since 0019), read by whoever remembers what it read and must know
whether that still stands.

A section's ``section_generation.gen`` moves at every INSERT, UPDATE and DELETE, from any
process, of its rows in the section-guarded tables (the section, its event, movement, pairs,
boards, Data Connector sessions, sanctions and individual players:
``table_memory.SECTION_GUARDED``); a table's ``table_generation.gen`` at every change of its
own rows (the table, its tokens, its results).
The table desk's memory reads both under the table's lock (``table/table_memory.py``); a live
page reads its section's to know whether a periodic read can be skipped
(``web/live_views.py``).

A table's generation row, held FOR UPDATE, is also the table's lock: a table command takes it
before it reads anything of its table, and so does every other change that reads a table's
rows to change them (the TD's rulings, the scoring program's results, the TD moving a table
on: :func:`lock_tables`; the TD's round control, all the section's tables:
:func:`lock_section_tables`), so on PostgreSQL, with
several workers, the two come one after the other and the later one reads what the earlier
wrote (SQLite: every write transaction takes the database's write lock at BEGIN).

Both take a move of exactly one with the section's row changed only in its round columns for
what it is: the TD's round control alone (a round started, closed or reopened), which changes
nothing else they hold (:func:`round_control_only`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import bindparam, select, tuple_
from sqlmodel import Session, SQLModel

TABLE_GENERATION = SQLModel.metadata.tables["table_generation"]
SECTION_GENERATION = SQLModel.metadata.tables["section_generation"]
_SECTION = SQLModel.metadata.tables["section"]
_TABLE = SQLModel.metadata.tables["bridge_table"]

#: A section's generation (one small row, by its primary key).
SECTION_GEN = select(SECTION_GENERATION.c.gen).where(
    SECTION_GENERATION.c.section_id == bindparam("section_id")
)
#: A section's own row, every column (Core: plain values, no ORM object).
SECTION_ROW = _SECTION.select().where(_SECTION.c.id == bindparam("section_id"))
#: The section's columns the TD's round control changes (and nothing else of the section).
ROUND_COLUMNS = frozenset({"current_round", "closed_rounds", "round_started_at"})
_TG = TABLE_GENERATION


def _table_locks(where: Any, *, by_number: bool = False) -> Any:
    """The locks of the tables ``where`` says (their generation rows FOR UPDATE), taken in
    table id order: the order every writer takes them in, so no two wait on each other's.
    ``by_number``: ``where`` names the tables by their section and number."""
    found = _TG.join(_TABLE, _TABLE.c.id == _TG.c.table_id) if by_number else _TG
    return (
        select(_TG.c.table_id)
        .select_from(found)
        .where(where)
        .order_by(_TG.c.table_id)
        .with_for_update(of=_TG)
    )


#: A table's lock, by its id (a table command's).
TABLE_LOCK = _table_locks(_TG.c.table_id == bindparam("table_id"))
#: Tables' locks by id (a batch of table commands').
TABLE_IDS_LOCK = _table_locks(_TG.c.table_id.in_(bindparam("table_ids", expanding=True)))
#: Tables' locks by section and table number (:func:`lock_tables`).
TABLES_LOCK = _table_locks(
    tuple_(_TABLE.c.section_id, _TABLE.c.number).in_(bindparam("tables", expanding=True)),
    by_number=True,
)
#: The locks of every table of a section (:func:`lock_section_tables`).
SECTION_TABLES_LOCK = _table_locks(_TG.c.section_id == bindparam("section_id"))
_ABSENT = object()


def section_generation(session: Session, section_id: int) -> int | None:
    """The section's generation now (None: the section has none, e.g. it was deleted)."""
    found = session.connection().execute(SECTION_GEN, {"section_id": section_id}).first()
    return None if found is None else int(found[0])


def lock_tables(session: Session, tables: Iterable[tuple[int, int]]) -> None:
    """Hold the locks of these tables (section id, table number) until the COMMIT, before
    reading any of their rows: a table command at the same moment, on any worker, then waits
    for the change, or the change for it: each reads the table after the other's COMMIT."""
    wanted = sorted(set(tables))
    if wanted:
        session.connection().execute(TABLES_LOCK, {"tables": wanted})


def lock_section_tables(session: Session, section_id: int) -> None:
    """Hold the locks of every table of the section until the COMMIT (the TD's round control,
    which reads every table's round to tell each its new one): a table command at the same
    moment, on any worker, is then made before it or after it, never beside it. Taken before
    the section's own lock, in the order a command takes them (its table, then its section's
    counter when it writes a section's row)."""
    session.connection().execute(SECTION_TABLES_LOCK, {"section_id": section_id})


def section_row(session: Session, section_id: int) -> dict[str, Any] | None:
    """The section's row as plain values by column (None: no such section)."""
    found = session.connection().execute(SECTION_ROW, {"section_id": section_id}).mappings()
    row = found.first()
    return None if row is None else dict(row)


def round_control_only(held: Mapping[str, Any], row: Mapping[str, Any]) -> set[str] | None:
    """The columns in which ``row`` differs from the ``held`` values when they are round
    columns only (the TD's round control and nothing else); None when it differs in nothing,
    or in anything more (a column not held counts as a difference)."""
    differ = {k for k, v in row.items() if held.get(k, _ABSENT) != v}
    return differ if differ and differ <= ROUND_COLUMNS else None
