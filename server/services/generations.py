"""The generation counters the database's triggers keep (migrations 0015, 0018), read by
whoever remembers what it read and must know whether that still stands.

A section's ``section_generation.gen`` moves at every INSERT, UPDATE and DELETE, from any
process, of its rows in the section-guarded tables (the section, its event, movement, pairs,
boards, Data Connector sessions, sanctions and individual players:
``table_memory.SECTION_GUARDED``); a table's
``table_generation.gen`` at every change of its own rows (the table, its tokens, its results).
The table desk's memory reads both under the table's lock (``table/table_memory.py``); a live
page reads its section's to know whether a periodic read can be skipped
(``web/live_views.py``)."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlmodel import Session, SQLModel

TABLE_GENERATION = SQLModel.metadata.tables["table_generation"]
SECTION_GENERATION = SQLModel.metadata.tables["section_generation"]

#: A section's generation (one small row, by its primary key).
SECTION_GEN = select(SECTION_GENERATION.c.gen).where(
    SECTION_GENERATION.c.section_id == bindparam("section_id")
)


def section_generation(session: Session, section_id: int) -> int | None:
    """The section's generation now (None: the section has none, e.g. it was deleted)."""
    found = session.connection().execute(SECTION_GEN, {"section_id": section_id}).first()
    return None if found is None else int(found[0])
