"""The demo club night: a 5-table Mitchell, 3 boards a round, named pairs, round 1 started.

`traveller demo` keeps the event between starts (:func:`open_demo`); only ``--wipe`` starts it
again, and wipes the database file in place (:func:`wipe_sqlite`) so that a gateway that still
has it open writes to the new event, never to a deleted file.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from server.core.db import migrate, transact
from server.core.models import Event, Section
from server.movements import mitchell
from server.services.event import setup
from server.services.td import actions as td

DEMO_PAIRS = [
    ("Anna Jensen", "Bo Nielsen"),
    ("Carl Hansen", "Dorte Pedersen"),
    ("Erik Andersen", "Frida Christensen"),
    ("Gitte Larsen", "Hans Sørensen"),
    ("Ida Rasmussen", "Jens Jørgensen"),
    ("Karen Petersen", "Lars Madsen"),
    ("Mette Kristensen", "Niels Olsen"),
    ("Ole Thomsen", "Pia Poulsen"),
    ("Rikke Johansen", "Søren Møller"),
    ("Tove Mortensen", "Ulrik Knudsen"),
]


@dataclass(frozen=True)
class Demo:
    event_id: int
    section_id: int
    pairing_codes: dict[int, str]
    tables: int = 5
    kept: bool = False  # an event from an earlier start (False: made now)


DEMO_NAME = "Demo club night"


def create_demo(engine: Engine, *, tables: int = 5, boards_per_round: int = 3) -> Demo:
    """Create the demo event in an empty (or fresh) database and start round 1."""
    migrate(engine)

    def work(session: Session) -> Demo:
        event = setup.create_event(session, name=DEMO_NAME)
        movement = mitchell(tables, boards_per_round=boards_per_round)
        section = setup.create_section(session, event=event, letter="A", movement=movement)
        names = iter(DEMO_PAIRS * 4)
        for ref in movement.pairs():
            first, second = next(names)
            setup.set_pair_names(
                session,
                section=section,
                number=ref.number,
                direction=ref.direction,
                names=setup.PairNames(first, second),
            )
        td.start_round(session, section, 1)
        return Demo(event.id or 0, section.id or 0, td.pairing_codes(session, section), tables)

    return transact(engine, work)


def find_demo(engine: Engine) -> Demo | None:
    """The demo event an earlier start made in this database (migrated first), if any."""
    migrate(engine)

    def look(session: Session) -> Demo | None:
        event = session.exec(
            select(Event).where(Event.name == DEMO_NAME).order_by(col(Event.id).desc())
        ).first()
        if event is None:
            return None
        section = session.exec(
            select(Section).where(Section.event_id == event.id).order_by(col(Section.id))
        ).first()
        if section is None:
            return None
        codes = td.pairing_codes(session, section)
        return Demo(event.id or 0, section.id or 0, codes, section.tables, kept=True)

    return transact(engine, look)


def open_demo(engine: Engine, *, tables: int = 5, boards_per_round: int = 3) -> Demo:
    """The demo event kept from an earlier start, else a new one."""
    return find_demo(engine) or create_demo(
        engine, tables=tables, boards_per_round=boards_per_round
    )


def wipe_sqlite(path: Path) -> None:
    """Empty a SQLite database in place: every table, index, view and trigger dropped, the
    file kept. Another process that has it open (a gateway) sees the new event made in it next,
    where deleting the file would leave it writing to a file nobody reads."""
    if not path.is_file():
        return
    conn = sqlite3.connect(path, timeout=10, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("BEGIN IMMEDIATE")
        rows = conn.execute(
            "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
            "AND type IN ('table', 'view', 'trigger')"
        ).fetchall()
        for kind, name in rows:
            quoted = '"' + name.replace('"', '""') + '"'
            conn.execute(f"DROP {kind.upper()} IF EXISTS {quoted}")
        conn.execute("COMMIT")
        with contextlib.suppress(sqlite3.OperationalError):  # busy: another reader is in it
            conn.execute("VACUUM")
    finally:
        conn.close()
