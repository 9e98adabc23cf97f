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

Both take a move of exactly one with the section's row changed only in its round columns for
what it is: the TD's round control alone (a round started, closed or reopened), which changes
nothing else they hold (:func:`round_control_only`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam, select
from sqlmodel import Session, SQLModel

TABLE_GENERATION = SQLModel.metadata.tables["table_generation"]
SECTION_GENERATION = SQLModel.metadata.tables["section_generation"]
_SECTION = SQLModel.metadata.tables["section"]

#: A section's generation (one small row, by its primary key).
SECTION_GEN = select(SECTION_GENERATION.c.gen).where(
    SECTION_GENERATION.c.section_id == bindparam("section_id")
)
#: A section's own row, every column (Core: plain values, no ORM object).
SECTION_ROW = _SECTION.select().where(_SECTION.c.id == bindparam("section_id"))
#: The section's columns the TD's round control changes (and nothing else of the section).
ROUND_COLUMNS = frozenset({"current_round", "closed_rounds", "round_started_at"})
_ABSENT = object()


def section_generation(session: Session, section_id: int) -> int | None:
    """The section's generation now (None: the section has none, e.g. it was deleted)."""
    found = session.connection().execute(SECTION_GEN, {"section_id": section_id}).first()
    return None if found is None else int(found[0])


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
